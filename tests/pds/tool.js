// Account helpers for the test PDS (tests/pds/start, account, app-password call this).
//
//   node tool.js accounts <server.json> <pds.json>
//       creates alice.test (the authority), bob.test and carol.test with random passwords and
//       writes <pds.json> (mode 0600): {pds, plc, pid, adminPassword, accounts: [...]} and
//       prints it without the passwords
//   node tool.js account <pds.json> <name>
//       creates <name>-<random>.test; prints {handle, did, password, accessJwt, refreshJwt}
//   node tool.js app-password <pds.json> <handle> <password|-> <label>
//       prints a new app password (`-`: the account password is read from stdin)
// Errors: one line on stderr, exit status 1.
'use strict'

const crypto = require('node:crypto')
const fs = require('node:fs')

function fail(msg) {
  process.stderr.write(`pds: ${msg}\n`)
  process.exit(1)
}

function readJson(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'))
  } catch (err) {
    fail(`cannot read '${file}': ${err.message}`)
  }
}

async function xrpc(base, method, body, token) {
  const headers = { 'content-type': 'application/json' }
  if (token) headers.authorization = `Bearer ${token}`
  const res = await fetch(`${base}/xrpc/${method}`, {
    method: 'POST',
    headers,
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  })
  const text = await res.text()
  let data = null
  try {
    data = JSON.parse(text)
  } catch {
    // reported below with the raw text
  }
  if (!res.ok) {
    const what = data && data.error ? `${data.error}: ${data.message}` : text.slice(0, 200)
    throw new Error(`${method} failed (${res.status} ${what})`)
  }
  return data
}

const randomPassword = () => crypto.randomBytes(24).toString('base64url')

async function createAccount(pds, handle) {
  const password = randomPassword()
  const email = `${handle.replace(/\.test$/, '')}@example.test`
  const out = await xrpc(pds, 'com.atproto.server.createAccount', { handle, email, password })
  return {
    handle: out.handle,
    did: out.did,
    password,
    accessJwt: out.accessJwt,
    refreshJwt: out.refreshJwt,
  }
}

async function accounts(serverFile, outFile) {
  const info = readJson(serverFile)
  info.accounts = []
  for (const name of ['alice', 'bob', 'carol']) {
    const acct = await createAccount(info.pds, `${name}.test`)
    info.accounts.push({ name, handle: acct.handle, did: acct.did, password: acct.password })
  }
  const tmp = `${outFile}.tmp`
  fs.writeFileSync(tmp, JSON.stringify(info, null, 2) + '\n', { mode: 0o600 })
  fs.renameSync(tmp, outFile)
  // The printed copy (it ends up in ctest's logs) leaves the secrets to the file.
  const shown = { ...info, adminPassword: '(in pds.json)' }
  shown.accounts = info.accounts.map((a) => ({ ...a, password: '(in pds.json)' }))
  process.stdout.write(JSON.stringify(shown, null, 2) + '\n')
}

async function account(infoFile, name) {
  if (!/^[a-z][a-z0-9-]{0,30}$/.test(name)) fail(`invalid account name '${name}'`)
  const info = readJson(infoFile)
  const suffix = crypto.randomBytes(4).toString('hex')
  const acct = await createAccount(info.pds, `${name}-${suffix}.test`)
  process.stdout.write(JSON.stringify(acct) + '\n')
}

async function appPassword(infoFile, handle, password, label) {
  const info = readJson(infoFile)
  if (password === '-') password = fs.readFileSync(0, 'utf8').replace(/\r?\n$/, '')
  const session = await xrpc(info.pds, 'com.atproto.server.createSession', {
    identifier: handle,
    password,
  })
  const out = await xrpc(
    info.pds,
    'com.atproto.server.createAppPassword',
    { name: label },
    session.accessJwt,
  )
  process.stdout.write(out.password + '\n')
}

async function main() {
  const [cmd, ...args] = process.argv.slice(2)
  if (cmd === 'accounts' && args.length === 2) return accounts(...args)
  if (cmd === 'account' && args.length === 2) return account(...args)
  if (cmd === 'app-password' && args.length === 4) return appPassword(...args)
  fail('usage: tool.js accounts|account|app-password ...')
}

main().catch((err) => fail(err.message))
