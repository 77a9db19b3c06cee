// Runs a did:plc directory (in-memory database) and the reference PDS in this one process,
// both listening on 127.0.0.1 only, for skillsync's integration tests.
//
// Usage: node server.js <install dir> <state dir>
// Run with the Node 22 of the install (tests/pds/install); tests/pds/start does that.
// The test space host (tests/spaces/) is mounted in the PDS's app.
// Writes <state dir>/server.json ({pds, plc, pid, adminPassword, spaces}, mode 0600) once both
// answer; stops cleanly on SIGTERM or SIGINT. The PDS keeps its data in <state dir>/data.
'use strict'

const crypto = require('node:crypto')
const fs = require('node:fs')
const net = require('node:net')
const path = require('node:path')
const { createRequire } = require('node:module')
const { pathToFileURL } = require('node:url')

const HOST = '127.0.0.1'

function fail(msg) {
  process.stderr.write(`pds server: ${msg}\n`)
  process.exit(1)
}

// A port that was free on 127.0.0.1 a moment ago (the PDS needs its port before it starts,
// since its public URL goes into DID documents; a lost race is retried by the caller).
function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer()
    srv.once('error', reject)
    srv.listen(0, HOST, () => {
      const { port } = srv.address()
      srv.close(() => resolve(port))
    })
  })
}

// express listens on every interface unless told otherwise: pin the host.
function bindLoopback(app) {
  const listen = app.listen.bind(app)
  app.listen = (port, ...rest) => listen(port, HOST, ...rest)
}

function writePrivate(file, text) {
  const tmp = `${file}.tmp`
  fs.writeFileSync(tmp, text, { mode: 0o600 })
  fs.renameSync(tmp, file)
}

// POST /_test/rotate-key {did, plcOnly?}, HTTP basic auth admin:<adminPassword>: a new repo
// signing key for a local account, named as #atproto in its DID document through the PLC with
// the PDS's rotation key. The PDS signs its next commits with it; no commit is written here
// (the head stays signed by the previous key until the account writes). plcOnly: the DID
// document changes but the PDS keeps signing with the previous key (a PDS that has not caught
// up). Answers {did, key, previous} (did:keys).
async function rotateKey(pds, adminPassword, Secp256k1Keypair, req, res) {
  const want = 'Basic ' + Buffer.from(`admin:${adminPassword}`).toString('base64')
  const got = req.headers.authorization ?? ''
  if (got.length !== want.length || !crypto.timingSafeEqual(Buffer.from(got), Buffer.from(want))) {
    return res.status(401).json({ error: 'AuthRequired', message: 'admin auth needed' })
  }
  try {
    const ctx = pds.ctx
    const did = req.body?.did
    if (typeof did !== 'string' || !(await ctx.accountManager.getAccount(did))) {
      return res.status(400).json({ error: 'InvalidRequest', message: 'did must be an account here' })
    }
    const previous = (await ctx.actorStore.keypair(did)).did()
    const next = await Secp256k1Keypair.create({ exportable: true })
    if (!req.body.plcOnly) {
      const { keyLocation } = await ctx.actorStore.getLocation(did)
      writePrivate(keyLocation, await next.export())
    }
    await ctx.plcClient.updateAtprotoKey(did, ctx.plcRotationKey, next.did())
    await ctx.idResolver.did.resolve(did, true)
    res.json({ did, key: next.did(), previous })
  } catch (err) {
    res.status(500).json({ error: 'InternalServerError', message: String(err) })
  }
}

async function main() {
  const [installDir, stateDir] = process.argv.slice(2)
  if (!installDir || !stateDir) fail('usage: server.js <install dir> <state dir>')
  process.env.LOG_ENABLED = process.env.LOG_ENABLED ?? 'true'
  process.env.LOG_LEVEL = process.env.LOG_LEVEL ?? 'info'

  const req = createRequire(path.join(installDir, 'package.json'))
  const load = (name) => import(pathToFileURL(req.resolve(name)).href)
  const plcServer = await load('@did-plc/server')
  const pdsMod = await load('@atproto/pds')
  const cryptoMod = await load('@atproto/crypto')
  const { PlcServer, Database } = plcServer.default ?? plcServer
  const { PDS, envToCfg, envToSecrets } = pdsMod
  const { Secp256k1Keypair } = cryptoMod
  const express = (await load('express')).default
  const { createSpaceHost, PROTOCOL: spacesProtocol } = require('../spaces/host.js')

  const plc = PlcServer.create({ db: Database.mock(), port: 0 })
  bindLoopback(plc.app)
  const plcHttp = await plc.start()
  const plcUrl = `http://localhost:${plcHttp.address().port}`

  const rotationKey = await Secp256k1Keypair.create({ exportable: true })
  const adminPassword = crypto.randomBytes(24).toString('hex')
  let pds = null
  let pdsEnv = null
  let port = 0
  for (let attempt = 1; !pds; attempt++) {
    port = await freePort()
    const dataDir = path.join(stateDir, 'data')
    fs.rmSync(dataDir, { recursive: true, force: true })
    fs.mkdirSync(path.join(dataDir, 'blobs'), { recursive: true, mode: 0o700 })
    const env = {
      port,
      hostname: 'localhost',
      devMode: true,
      version: '0.0.0',
      dataDirectory: dataDir,
      blobstoreDiskLocation: path.join(dataDir, 'blobs'),
      didPlcUrl: plcUrl,
      inviteRequired: false,
      rateLimitsEnabled: false,
      crawlers: [],
      jwtSecret: crypto.randomBytes(32).toString('hex'),
      adminPassword,
      plcRotationKeyK256PrivateKeyHex: Buffer.from(await rotationKey.export()).toString('hex'),
    }
    const candidate = await PDS.create(envToCfg(env), envToSecrets(env))
    // The test space host (tests/spaces/): its routes go in front of the PDS's own app.
    const spaceHost = await createSpaceHost({ pds: candidate, load, adminPassword })
    const outer = express()
    outer.post('/_test/rotate-key', express.json(), (req, res) =>
      rotateKey(pds ?? candidate, adminPassword, Secp256k1Keypair, req, res),
    )
    outer.use(spaceHost.router)
    outer.use(candidate.app)
    candidate.app = outer
    bindLoopback(candidate.app)
    try {
      await candidate.start()
      pds = candidate
      pdsEnv = env
    } catch (err) {
      await candidate.destroy().catch(() => {})
      if (err.code !== 'EADDRINUSE' || attempt >= 5) throw err
    }
  }

  let stopping = false
  const stop = async (sig) => {
    if (stopping) return
    stopping = true
    process.stderr.write(`pds server: ${sig}, stopping\n`)
    await pds.destroy().catch((err) => process.stderr.write(`pds server: ${err}\n`))
    await plc.destroy().catch((err) => process.stderr.write(`pds server: ${err}\n`))
    process.exit(0)
  }
  process.on('SIGTERM', () => stop('SIGTERM'))
  process.on('SIGINT', () => stop('SIGINT'))
  // SIGUSR2: the PDS stops, its open connections cut (a request in flight gets no answer),
  // and starts again on the same port with the same data, keys and secrets (the PLC
  // directory stays up), as a crashed and restarted server would; the log says
  // "pds server: restarted" once it answers again.
  let restarting = false
  process.on('SIGUSR2', async () => {
    if (stopping || restarting) return
    restarting = true
    try {
      const stopped = pds.destroy()
      pds.server?.closeAllConnections?.()
      await stopped
      const next = await PDS.create(envToCfg(pdsEnv), envToSecrets(pdsEnv))
      bindLoopback(next.app)
      await next.start()
      pds = next
      process.stderr.write('pds server: restarted\n')
    } catch (err) {
      fail(`restart: ${err && err.stack ? err.stack : err}`)
    }
    restarting = false
  })

  writePrivate(
    path.join(stateDir, 'server.json'),
    JSON.stringify({
      pds: `http://localhost:${port}`,
      plc: plcUrl,
      pid: process.pid,
      adminPassword,
      spaces: {
        host: `http://localhost:${port}`,
        protocol: spacesProtocol,
        knobs: `http://localhost:${port}/_test/space/`,
      },
    }) + '\n',
  )
  process.stderr.write(`pds server: ready, pds http://localhost:${port}, plc ${plcUrl}\n`)
}

main().catch((err) => fail(err && err.stack ? err.stack : String(err)))
