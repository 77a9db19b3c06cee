// Self-test of the test space host, over HTTP as a client would use it.
//
//   node selftest.js <install dir> <pds.json>
//
// Run by tests/cmd/space_host.sh (ctest, fixture pds) with the Node 22 of the install.
// Prints one line per check; exit status 1 on the first failure.
'use strict'

const assert = require('node:assert/strict')
const crypto = require('node:crypto')
const fs = require('node:fs')
const path = require('node:path')
const { createRequire } = require('node:module')
const { pathToFileURL } = require('node:url')
const P = require('./protocol.js')
const { makeRepoKit } = require('./repo.js')

const [installDir, infoFile] = process.argv.slice(2)
if (!installDir || !infoFile) {
  process.stderr.write('usage: selftest.js <install dir> <pds.json>\n')
  process.exit(2)
}
const info = JSON.parse(fs.readFileSync(infoFile, 'utf8'))
const base = info.spaces.host
const req = createRequire(path.join(installDir, 'package.json'))
const load = (name) => import(pathToFileURL(req.resolve(name)).href)

let checks = 0
function ok(what) {
  checks++
  process.stdout.write(`ok ${checks} ${what}\n`)
}

async function call(verb, nsid, { params, body, headers = {}, token } = {}) {
  const url = new URL(`${base}/xrpc/${nsid}`)
  for (const [k, v] of Object.entries(params || {}))
    if (v !== undefined) url.searchParams.set(k, String(v))
  const h = { ...headers }
  if (token) h.authorization = `Bearer ${token}`
  let payload
  if (body !== undefined) {
    h['content-type'] = 'application/json'
    payload = typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body)
  }
  const res = await fetch(url, {
    method: verb,
    headers: h,
    body: payload,
    signal: AbortSignal.timeout(20_000),
  })
  const buf = Buffer.from(await res.arrayBuffer())
  let json = null
  if ((res.headers.get('content-type') || '').includes('json'))
    json = JSON.parse(buf.toString('utf8'))
  return { status: res.status, json, buf, type: res.headers.get('content-type') || '' }
}
const get = (nsid, o) => call('GET', nsid, o)
const post = (nsid, o) => call('POST', nsid, o)

function expectOk(r, what) {
  assert.equal(r.status, 200, `${what}: ${r.status} ${JSON.stringify(r.json)}`)
  return r.json
}
function expectErr(r, status, error, what) {
  assert.equal(
    r.status,
    status,
    `${what}: wanted ${status} ${error}, got ${r.status} ${JSON.stringify(r.json)}`,
  )
  assert.equal(r.json && r.json.error, error, `${what}: ${JSON.stringify(r.json)}`)
  ok(`${what} -> ${status} ${error}`)
}

async function knob(name, body) {
  const res = await fetch(`${info.spaces.knobs}${name}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Basic ${Buffer.from(`admin:${info.adminPassword}`).toString('base64')}`,
    },
    body: JSON.stringify(body),
  })
  const json = await res.json()
  assert.equal(res.status, 200, `knob ${name}: ${JSON.stringify(json)}`)
  return json
}

async function account(name) {
  const handle = `${name}-${crypto.randomBytes(4).toString('hex')}.test`
  const password = crypto.randomBytes(18).toString('base64url')
  const out = expectOk(
    await post('com.atproto.server.createAccount', {
      body: { handle, email: `${handle}@example.test`, password },
    }),
    'createAccount',
  )
  return { handle, did: out.did, password, token: out.accessJwt }
}

async function main() {
  const t0 = Date.now()
  const cryptoMod = await load('@atproto/crypto')
  const cbor = await load('@atproto/lex-cbor')
  const lexJson = await load('@atproto/lex-json')
  const { blake3 } = await load('@noble/hashes/blake3')
  const kit = makeRepoKit({ blake3, cbor })
  const key = await cryptoMod.P256Keypair.create() // the client's key, one per run

  // ---- LtHash and commit against the reference-generated vectors -------------------------
  const vectors = JSON.parse(
    fs.readFileSync(path.join(__dirname, '../../testdata/space-host/vectors.json'), 'utf8'),
  )
  const hex = (b) => Buffer.from(b).toString('hex')
  for (const v of vectors.lthash) {
    const st = kit.emptyState()
    for (const [op, el] of v.ops) (op === '+' ? kit.addElement : kit.removeElement)(st, el)
    assert.equal(hex(kit.digest(st)), v.digest)
    for (const [, el] of v.ops) kit.removeElement(st, el)
    assert.equal(hex(kit.digest(st)), vectors.lthash[0].digest)
  }
  ok(
    'LtHash: the empty set (e5a00aa9...36b183ad) and {one, two} match the vectors; removal undoes addition',
  )
  for (const v of vectors.commits) {
    const ikm = Buffer.from(v.ikm, 'hex')
    const ctxb = kit.commitCtx(v.ctx.space, v.ctx.author, v.ctx.rev, ikm)
    assert.equal(hex(ctxb), v.ctxBytes)
    assert.equal(hex(kit.commitMac(ikm, ctxb, Buffer.from(v.hash, 'hex'))), v.mac)
    assert.ok(await cryptoMod.verifySignature(v.didKey, ctxb, Buffer.from(v.sig, 'hex')))
  }
  ok('commit ctx, MAC and signature match the vectors')

  // ---- accounts, a space, members -------------------------------------------------------
  const [auth, m1, m2, outsider] = await Promise.all(['sa', 'sb', 'sc', 'sd'].map(account))

  const spaceType = 'garden.engram.space'
  const skey = `selftest${crypto.randomBytes(3).toString('hex')}`
  const created = expectOk(
    await post('com.atproto.simplespace.createSpace', {
      token: auth.token,
      body: {
        spaceType,
        skey,
        readPolicy: { $type: P.POLICY.memberList },
        writePolicy: { $type: P.POLICY.memberList },
      },
    }),
    'createSpace',
  )
  const space = created.uri
  assert.equal(space, `at://${auth.did}/space/${spaceType}/${skey}`)
  expectErr(
    await post('com.atproto.simplespace.createSpace', {
      token: auth.token,
      body: { spaceType, skey },
    }),
    400,
    'SpaceAlreadyExists',
    'createSpace twice',
  )
  // The August form (type + policy) is read too.
  const august = expectOk(
    await post('com.atproto.simplespace.createSpace', {
      token: auth.token,
      body: { type: spaceType, skey: `${skey}aug`, policy: { $type: P.POLICY.memberList } },
    }),
    'createSpace (August form)',
  )
  assert.equal(august.uri, `at://${auth.did}/space/${spaceType}/${skey}aug`)
  ok('createSpace: October form, August form, SpaceAlreadyExists')
  expectOk(
    await post('com.atproto.simplespace.putMember', {
      token: auth.token,
      body: { space, did: m1.did, read: true, write: true },
    }),
    'putMember',
  )
  expectOk(
    await post('com.atproto.simplespace.putMember', {
      token: auth.token,
      body: { space, did: m2.did, read: true, write: true },
    }),
    'putMember',
  )
  expectErr(
    await post('com.atproto.simplespace.putMember', {
      token: m1.token,
      body: { space, did: outsider.did, read: true, write: true },
    }),
    400,
    'NotSpaceOwner',
    'putMember by a member',
  )
  const members = expectOk(
    await get('com.atproto.simplespace.listMembers', { token: auth.token, params: { space } }),
    'listMembers',
  )
  assert.deepEqual(members.members.map((m) => m.did).sort(), [m1.did, m2.did].sort())
  assert.ok(members.members.every((m) => m.read === true && m.write === true))
  ok('putMember / listMembers {did, read, write}')
  // A 1 s credential (knob settings), checked for expiry at the end, past the 5 s skew.
  await knob('settings', { space, credentialTtl: 1 })
  const short = expectOk(await exchange(await delegation(auth)), 'getSpaceCredential').credential
  await knob('settings', { space, credentialTtl: null })
  const sc = P.decodeJwt(short).payload
  assert.equal(sc.exp - sc.iat, 1)
  expectOk(
    await get('com.atproto.space.listRepos', {
      headers: await cred(short, auth.did),
      params: { space },
    }),
    'listRepos with a fresh 1 s credential',
  )
  ok('knob settings: a credential with a 1 s life')

  // ---- writes ---------------------------------------------------------------------------
  const coll = 'garden.engram.skill'
  const w1 = expectOk(
    await post('com.atproto.space.createRecord', {
      token: m1.token,
      body: {
        space,
        repo: m1.did,
        collection: coll,
        rkey: 'alpha',
        record: { name: 'alpha', n: 1 },
      },
    }),
    'createRecord',
  )
  assert.equal(w1.uri, `${space}/${m1.did}/${coll}/alpha`)
  assert.equal(w1.validationStatus, 'unknown')
  const expectCid = (
    await cbor.cidForLex(lexJson.jsonToLex({ name: 'alpha', n: 1, $type: coll }))
  ).toString()
  assert.equal(w1.cid, expectCid)
  ok('createRecord: $type added, CID is the DAG-CBOR CID of the record')
  expectErr(
    await post('com.atproto.space.createRecord', {
      token: m1.token,
      body: { space, repo: m1.did, collection: coll, rkey: 'alpha', record: { name: 'again' } },
    }),
    400,
    'RecordAlreadyExists',
    'createRecord on an existing key',
  )
  expectErr(
    await post('com.atproto.space.createRecord', {
      token: m1.token,
      body: { space, repo: m2.did, collection: coll, rkey: 'x', record: { name: 'x' } },
    }),
    403,
    'Forbidden',
    'createRecord into another account repo',
  )
  expectErr(
    await post('com.atproto.space.putRecord', {
      token: m1.token,
      body: {
        space,
        repo: m1.did,
        collection: coll,
        rkey: 'beta',
        record: { $type: 'other.type', name: 'b' },
      },
    }),
    400,
    'InvalidRequest',
    'putRecord with a different $type',
  )
  expectErr(
    await post('com.atproto.space.putRecord', {
      token: m1.token,
      body: {
        space,
        repo: m1.did,
        collection: coll,
        rkey: 'beta',
        validate: true,
        record: { name: 'b' },
      },
    }),
    400,
    'InvalidRequest',
    'putRecord of an unknown lexicon with validate: true',
  )
  expectErr(
    await post('com.atproto.space.putRecord', {
      token: m1.token,
      body: { space, repo: m1.did, collection: coll, rkey: 'beta', record: { f: 1.5 } },
    }),
    400,
    'InvalidRequest',
    'putRecord of a float',
  )
  expectOk(
    await post('com.atproto.space.putRecord', {
      token: m1.token,
      body: { space, repo: m1.did, collection: coll, rkey: 'beta', record: { name: 'beta' } },
    }),
    'putRecord',
  )
  // applyWrites atomicity: an update of a missing key fails the whole batch.
  const before = expectOk(
    await get('com.atproto.space.listRecords', {
      token: m1.token,
      params: { space, repo: m1.did },
    }),
    'listRecords',
  )
  expectErr(
    await post('com.atproto.space.applyWrites', {
      token: m1.token,
      body: {
        space,
        repo: m1.did,
        writes: [
          {
            $type: 'com.atproto.space.applyWrites#create',
            collection: coll,
            rkey: 'gamma',
            value: { name: 'gamma' },
          },
          {
            $type: 'com.atproto.space.applyWrites#update',
            collection: coll,
            rkey: 'missing',
            value: { name: 'm' },
          },
        ],
      },
    }),
    400,
    'RecordNotFound',
    'applyWrites with an update of a missing key',
  )
  expectErr(
    await post('com.atproto.space.applyWrites', {
      token: m1.token,
      body: {
        space,
        repo: m1.did,
        writes: [
          {
            $type: 'com.atproto.space.applyWrites#create',
            collection: coll,
            rkey: 'gamma',
            value: { name: 'gamma' },
          },
          {
            $type: 'com.atproto.space.applyWrites#create',
            collection: coll,
            rkey: 'alpha',
            value: { name: 'a2' },
          },
        ],
      },
    }),
    400,
    'RecordAlreadyExists',
    'applyWrites with a create of an existing key',
  )
  expectErr(
    await post('com.atproto.space.applyWrites', {
      token: m1.token,
      body: {
        space,
        repo: m1.did,
        writes: [
          { $type: 'com.atproto.space.applyWrites#delete', collection: coll, rkey: 'missing' },
        ],
      },
    }),
    400,
    'RecordNotFound',
    'applyWrites with a delete of a missing key',
  )
  const after = expectOk(
    await get('com.atproto.space.listRecords', {
      token: m1.token,
      params: { space, repo: m1.did },
    }),
    'listRecords',
  )
  assert.deepEqual(after, before)
  ok('applyWrites: a failed batch changes nothing')
  const tooMany = Array.from({ length: 201 }, (_, i) => ({
    $type: 'com.atproto.space.applyWrites#create',
    collection: coll,
    rkey: `k${i}`,
    value: { i },
  }))
  expectErr(
    await post('com.atproto.space.applyWrites', {
      token: m1.token,
      body: { space, repo: m1.did, writes: tooMany },
    }),
    400,
    'InvalidRequest',
    'applyWrites with 201 writes',
  )
  const big = {
    space,
    repo: m1.did,
    collection: coll,
    rkey: 'big',
    record: { text: 'x'.repeat(1_000_001) },
  }
  expectErr(
    await post('com.atproto.space.putRecord', { token: m1.token, body: big }),
    413,
    'PayloadTooLargeError',
    'a body over 1,000,000 bytes',
  )
  {
    // The limit counts decoded bytes: a gzipped body under 1 MB on the wire but over it
    // decoded is refused, one under it decoded is taken.
    const zlib = require('node:zlib')
    const gz = (o) => zlib.gzipSync(Buffer.from(JSON.stringify(o)))
    const send = (o) =>
      call('POST', 'com.atproto.space.putRecord', {
        token: m1.token,
        headers: { 'content-encoding': 'gzip' },
        body: gz(o),
      })
    expectErr(
      await send(big),
      413,
      'PayloadTooLargeError',
      'a gzipped body over 1,000,000 bytes decoded',
    )
    const fits = { ...big, rkey: 'zipped', record: { text: 'x'.repeat(900_000) } }
    expectOk(await send(fits), 'a gzipped body under the limit')
    expectOk(
      await post('com.atproto.space.deleteRecord', {
        token: m1.token,
        body: { space, repo: m1.did, collection: coll, rkey: 'zipped' },
      }),
      'deleteRecord',
    )
    ok('gzip bodies: the limit counts decoded bytes')
  }
  const batch = Array.from({ length: 150 }, (_, i) => ({
    $type: 'com.atproto.space.applyWrites#create',
    collection: coll,
    rkey: `r${String(i).padStart(3, '0')}`,
    value: { i },
  }))
  batch.push({
    $type: 'com.atproto.space.applyWrites#update',
    collection: coll,
    rkey: 'beta',
    value: { name: 'beta2' },
  })
  batch.push({ $type: 'com.atproto.space.applyWrites#delete', collection: coll, rkey: 'alpha' })
  const applied = expectOk(
    await post('com.atproto.space.applyWrites', {
      token: m1.token,
      body: { space, repo: m1.did, writes: batch },
    }),
    'applyWrites',
  )
  assert.equal(applied.results.length, 152)
  assert.equal(applied.results[150].$type, 'com.atproto.space.applyWrites#updateResult')
  assert.equal(applied.results[151].$type, 'com.atproto.space.applyWrites#deleteResult')
  ok('applyWrites of 152 writes: create, update and delete results')
  expectOk(
    await post('com.atproto.space.deleteRecord', {
      token: m1.token,
      body: { space, repo: m1.did, collection: coll, rkey: 'nothere' },
    }),
    'deleteRecord of a missing key',
  )
  for (const who of [m2, outsider, auth]) {
    expectOk(
      await post('com.atproto.space.putRecord', {
        token: who.token,
        body: { space, repo: who.did, collection: coll, rkey: 'mine', record: { by: who.handle } },
      }),
      'putRecord',
    )
  }
  ok('writes by the other member, the authority and an outsider (in its own repo)')
  const listed1 = expectOk(
    await get('com.atproto.space.listSpaces', { token: m1.token, params: { spaceType } }),
    'listSpaces',
  )
  assert.deepEqual(listed1, { spaces: [{ uri: space }] })
  ok('listSpaces: the spaces the caller holds a repo in')

  // ---- delegation token: full session vs app password ------------------------------------
  const appPw = expectOk(
    await post('com.atproto.server.createAppPassword', {
      token: m2.token,
      body: { name: 'selftest' },
    }),
    'createAppPassword',
  )
  const appSession = expectOk(
    await post('com.atproto.server.createSession', {
      body: { identifier: m2.handle, password: appPw.password },
    }),
    'createSession with an app password',
  )
  expectErr(
    await get('com.atproto.space.getDelegationToken', {
      token: appSession.accessJwt,
      params: { space },
    }),
    400,
    'InvalidToken',
    'getDelegationToken with an app-password session',
  )
  expectOk(
    await post('com.atproto.space.putRecord', {
      token: appSession.accessJwt,
      body: {
        space,
        repo: m2.did,
        collection: coll,
        rkey: 'viaapp',
        record: { by: 'app password' },
      },
    }),
    'putRecord with an app-password session',
  )
  expectOk(
    await post('com.atproto.space.deleteRecord', {
      token: appSession.accessJwt,
      body: { space, repo: m2.did, collection: coll, rkey: 'viaapp' },
    }),
    'deleteRecord with an app-password session',
  )
  ok('an app-password session writes to its own space repo')
  {
    // A repo never written in a space: empty, with no commit.
    const params = { space: august.uri, repo: m1.did }
    const none = expectOk(
      await get('com.atproto.space.listRecords', { token: m1.token, params }),
      'listRecords',
    )
    assert.deepEqual(none, { records: [] })
    const noOps = expectOk(
      await get('com.atproto.space.listRepoOps', { token: m1.token, params }),
      'listRepoOps',
    )
    assert.deepEqual(noOps, { ops: [] })
    expectErr(
      await get('com.atproto.space.getLatestCommit', { token: m1.token, params }),
      400,
      'RepoNotFound',
      'getLatestCommit of a repo never written',
    )
  }
  async function delegation(who) {
    return expectOk(
      await get('com.atproto.space.getDelegationToken', { token: who.token, params: { space } }),
      'getDelegationToken',
    ).token
  }
  const tok = await delegation(m1)
  const d = P.decodeJwt(tok)
  assert.equal(d.header.typ, 'atproto-space-delegation+jwt')
  assert.equal(d.header.alg, 'ES256K')
  assert.equal(d.payload.iss, m1.did)
  assert.equal(d.payload.sub, space)
  assert.equal(d.payload.aud, `${auth.did}#atproto_space_host`)
  assert.equal(d.payload.exp - d.payload.iat, 60)
  assert.match(d.payload.jti, /^[0-9a-f]{32}$/)
  const m1Key = await (await fetch(`${info.plc}/${m1.did}`)).json()
  const vm = m1Key.verificationMethod.find((v) => v.id.endsWith('#atproto'))
  assert.ok(vm, 'the DID document has an #atproto key')
  ok(`getDelegationToken: typ, aud, 60 s life, jti (the DID document key is ${vm.type})`)

  // ---- the exchange -----------------------------------------------------------------------
  async function exchange(token, { body = { space }, sigKey = key, tamper } = {}) {
    const headers = await P.signedHeaders(sigKey, `Bearer ${token}`)
    if (tamper) tamper(headers)
    return post('com.atproto.space.getSpaceCredential', { headers, body })
  }
  expectErr(
    await exchange(tok, { tamper: (h) => (h.authorization = `bearer ${tok}`) }),
    401,
    'BadSpaceSignature',
    'exchange whose Authorization differs from the signed one',
  )
  const tokB = await delegation(m1)
  expectErr(
    await exchange(tokB, {
      tamper: (h) =>
        (h['signature-input'] = h['signature-input'].replace(';alg="ecdsa-p256-sha256"', '')),
    }),
    401,
    'BadSpaceSignature',
    'exchange whose signature params differ from the signed ones',
  )
  const cred1 = expectOk(await exchange(tok), 'getSpaceCredential').credential
  expectErr(await exchange(tok), 401, 'JwtReplayed', 'a replayed delegation token')
  const c = P.decodeJwt(cred1)
  assert.equal(c.header.typ, 'atproto-space-credential+jwt')
  assert.equal(c.payload.iss, auth.did)
  assert.equal(c.payload.sub, space)
  assert.equal(c.payload.cnf.kid, key.did())
  assert.equal(c.payload.exp - c.payload.iat, 600)
  assert.equal(c.payload.aud, undefined)
  const authKey = await (async () => {
    const doc = await (await fetch(`${info.plc}/${auth.did}`)).json()
    return doc
  })()
  assert.ok(authKey.service.some((s) => s.id === '#atproto_pds' && s.serviceEndpoint === base))
  ok('getSpaceCredential: typ, iss = authority, sub, cnf.kid, exp = iat + 600, no aud')
  expectErr(
    await exchange(await delegation(outsider)),
    400,
    'UserNotAuthorized',
    'exchange by a non-member',
  )
  const otherSpace = august.uri
  const tokOther = expectOk(
    await get('com.atproto.space.getDelegationToken', {
      token: m1.token,
      params: { space: otherSpace },
    }),
    'getDelegationToken',
  ).token
  expectErr(
    await exchange(tokOther),
    400,
    'InvalidDelegationToken',
    'a delegation token for another space',
  )
  const stale = await delegation(m1)
  expectErr(
    await exchange(stale, {
      tamper: (h) => (h.authorization = h.authorization.slice(0, -2) + 'AA'),
    }),
    401,
    'BadJwtSignature',
    'a delegation token with a bad signature',
  )

  // ---- credentialed reads -----------------------------------------------------------------
  async function cred(credential, audience) {
    return P.signedHeaders(key, `Atproto-Space ${credential}`, audience)
  }
  async function listAllRepos(credential, limit) {
    const out = []
    let cursor
    let pages = 0
    for (;;) {
      const page = expectOk(
        await get('com.atproto.space.listRepos', {
          headers: await cred(credential, auth.did),
          params: { space, limit, cursor },
        }),
        'listRepos',
      )
      pages++
      out.push(...page.repos)
      if (!page.cursor) return { repos: out, pages }
      cursor = page.cursor
    }
  }
  const listed = await listAllRepos(cred1, 1)
  assert.deepEqual(listed.repos.map((r) => r.did).sort(), [auth.did, m1.did, m2.did].sort())
  assert.ok(listed.pages >= 3)
  for (let i = 1; i < listed.repos.length; i++)
    assert.ok(listed.repos[i - 1].spaceRev < listed.repos[i].spaceRev)
  const m1Row = listed.repos.find((r) => r.did === m1.did)
  assert.ok(
    P.isTid(m1Row.repoRev) && P.isTid(m1Row.spaceRev) && typeof m1Row.hash.$bytes === 'string',
  )
  ok(
    'listRepos: {did, repoRev, hash, spaceRev}, paged by spaceRev with limit 1, outsider not listed',
  )
  expectErr(
    await get('com.atproto.space.listRepos', {
      headers: await cred(cred1, m1.did),
      params: { space },
    }),
    401,
    'BadSpaceAudience',
    'listRepos with a repo audience',
  )
  expectErr(
    await get('com.atproto.space.listRepos', {
      headers: await cred(cred1, auth.did),
      params: { space: otherSpace },
    }),
    400,
    'InvalidCredential',
    'a credential used for another space',
  )
  {
    const h = await cred(cred1, auth.did)
    h[P.AUDIENCE_HEADER] = m1.did
    expectErr(
      await get('com.atproto.space.listRepos', { headers: h, params: { space } }),
      401,
      'BadSpaceSignature',
      'an audience header changed after signing',
    )
    const other = await cryptoMod.P256Keypair.create()
    const h2 = await P.signedHeaders(other, `Atproto-Space ${cred1}`, auth.did)
    expectErr(
      await get('com.atproto.space.listRepos', { headers: h2, params: { space } }),
      401,
      'BadSpaceSignature',
      'a credential signed with another key than cnf.kid',
    )
    // The signature's encoding: high-S accepted, DER refused, a second label ignored.
    const { p256 } = await load('@noble/curves/p256')
    const h3 = await cred(cred1, auth.did)
    const raw = Buffer.from(h3.signature.slice('atproto-space=:'.length, -1), 'base64')
    const sig = p256.Signature.fromCompact(raw)
    const high = sig.hasHighS() ? sig : new p256.Signature(sig.r, p256.CURVE.n - sig.s)
    assert.ok(high.hasHighS())
    expectOk(
      await get('com.atproto.space.listRepos', {
        headers: {
          ...h3,
          signature: `atproto-space=:${Buffer.from(high.toCompactRawBytes()).toString('base64')}:`,
        },
        params: { space },
      }),
      'listRepos with a high-S signature',
    )
    expectErr(
      await get('com.atproto.space.listRepos', {
        headers: {
          ...h3,
          signature: `atproto-space=:${Buffer.from(sig.toDERRawBytes()).toString('base64')}:`,
        },
        params: { space },
      }),
      401,
      'BadSpaceSignature',
      'a DER-encoded signature',
    )
    expectOk(
      await get('com.atproto.space.listRepos', {
        headers: {
          ...h3,
          'signature-input': `other=("authorization");keyid="x", ${h3['signature-input']}`,
          signature: `other=:AAAA:, ${h3.signature}`,
        },
        params: { space },
      }),
      'listRepos with a second signature label',
    )
    ok('signature encoding: high-S accepted, a second label ignored')
  }

  const rec = expectOk(
    await get('com.atproto.space.getRecord', {
      headers: await cred(cred1, m2.did),
      params: { space, repo: m2.did, collection: coll, rkey: 'mine' },
    }),
    'getRecord',
  )
  assert.equal(rec.uri, `${space}/${m2.did}/${coll}/mine`)
  assert.equal(rec.value.by, m2.handle)
  expectErr(
    await get('com.atproto.space.getRecord', {
      headers: await cred(cred1, m1.did),
      params: { space, repo: m2.did, collection: coll, rkey: 'mine' },
    }),
    401,
    'BadSpaceAudience',
    'getRecord with another repo as audience',
  )
  expectErr(
    await get('com.atproto.space.getRecord', {
      token: m1.token,
      params: { space, repo: m2.did, collection: coll, rkey: 'mine' },
    }),
    400,
    'RepoNotFound',
    "a session reading another account's repo",
  )
  // listRecords: URI-descending order, paging
  const all = []
  let cursor
  for (;;) {
    const page = expectOk(
      await get('com.atproto.space.listRecords', {
        headers: await cred(cred1, m1.did),
        params: { space, repo: m1.did, limit: 40, cursor },
      }),
      'listRecords',
    )
    all.push(...page.records)
    if (!page.cursor) break
    cursor = page.cursor
  }
  const keys = all.map((r) => `${r.collection}/${r.rkey}`)
  assert.equal(keys.length, 151)
  assert.deepEqual(keys, [...keys].sort().reverse())
  assert.equal(all[0].uri, undefined)
  ok('listRecords: 151 records in URI-descending order over 4 pages, no uri field')

  {
    const before = (await knob('requests', { space, reset: true })).counts
    assert.ok(before['com.atproto.space.listRecords'] >= 4)
    await listAllRepos(cred1, 1000)
    const after = (await knob('requests', { space })).counts
    assert.deepEqual(after, { 'com.atproto.space.listRepos': 1 })
    ok('knob requests: what was asked of the space, per method, and reset')
  }

  // ---- listRepoOps and the signed commit, verified as a client would -------------------------
  async function verifyCommit(commitJson, repoDid, state) {
    const commit = lexJson.jsonToLex(commitJson)
    assert.equal(commit.ver, 1)
    const hash = kit.digest(state)
    assert.deepEqual(Buffer.from(commit.hash), Buffer.from(hash), 'set hash')
    const ctxb = kit.commitCtx(space, repoDid, commit.rev, commit.ikm)
    assert.deepEqual(
      Buffer.from(commit.mac),
      Buffer.from(kit.commitMac(commit.ikm, ctxb, commit.hash)),
      'mac',
    )
    const doc = await (await fetch(`${info.plc}/${repoDid}`)).json()
    const vmk = doc.verificationMethod.find((v) => v.id.endsWith('#atproto'))
    const didKey =
      vmk.type === 'Multikey' ? `did:key:${vmk.publicKeyMultibase}` : legacyDidKey(cryptoMod, vmk)
    assert.ok(await cryptoMod.verifySignature(didKey, ctxb, commit.sig), 'commit signature')
    return commit
  }
  async function opsSince(repoDid, since, limit) {
    const ops = []
    let cur
    let calls = 0
    for (;;) {
      const page = expectOk(
        await get('com.atproto.space.listRepoOps', {
          headers: await cred(cred1, repoDid),
          params: { space, repo: repoDid, since, limit, cursor: cur },
        }),
        'listRepoOps',
      )
      calls++
      ops.push(...page.ops)
      if (page.cursor) {
        assert.equal(page.commit, undefined, 'a full page has no commit')
        assert.equal(page.ops.length, limit)
        cur = page.cursor
        assert.match(cur, /^[a-z2-7]{13}\/\d+$/)
        continue
      }
      assert.ok(page.commit, 'a short page has the commit')
      return { ops, commit: page.commit, calls }
    }
  }
  const full = await opsSince(m1.did, undefined, 50)
  const state = kit.emptyState()
  for (const o of full.ops) {
    if (o.prev) kit.removeElement(state, kit.elementOf(o.collection, o.rkey, o.prev))
    if (o.cid) kit.addElement(state, kit.elementOf(o.collection, o.rkey, o.cid))
  }
  const commit = await verifyCommit(full.commit, m1.did, state)
  assert.equal(commit.rev, m1Row.repoRev)
  assert.deepEqual(
    Buffer.from(commit.hash).toString('base64').replace(/=+$/, ''),
    m1Row.hash.$bytes,
  )
  ok(
    `listRepoOps from the start: ${full.ops.length} ops in ${full.calls} pages fold to the signed set hash; commit MAC and signature verify`,
  )
  const again = expectOk(
    await get('com.atproto.space.listRepoOps', {
      headers: await cred(cred1, m1.did),
      params: { space, repo: m1.did, since: commit.rev },
    }),
    'listRepoOps',
  )
  assert.equal(again.ops.length, 0)
  assert.ok(again.commit)
  assert.notDeepEqual(again.commit.ikm, full.commit.ikm)
  ok('listRepoOps since the head: no ops, the commit, a fresh ikm')
  const valueOps = full.ops.filter((o) => o.value)
  assert.ok(
    full.ops.find((o) => o.rkey === 'beta' && o.prev === null && !o.value),
    'a superseded op has no value',
  )
  assert.ok(valueOps.length > 0)
  ok('listRepoOps: values only on ops still current')
  // one more write, then since = the old head
  expectOk(
    await post('com.atproto.space.putRecord', {
      token: m1.token,
      body: { space, repo: m1.did, collection: coll, rkey: 'r000', record: { i: 'changed' } },
    }),
    'putRecord',
  )
  const inc = await opsSince(m1.did, commit.rev, 100)
  assert.equal(inc.ops.length, 1)
  assert.equal(inc.calls, 1)
  kit.removeElement(state, kit.elementOf(coll, 'r000', inc.ops[0].prev))
  kit.addElement(state, kit.elementOf(coll, 'r000', inc.ops[0].cid))
  await verifyCommit(inc.commit, m1.did, state)
  ok('listRepoOps since the last revision: the one change, folded and verified')

  // ---- getRepo CAR --------------------------------------------------------------------------
  const carRes = await get('com.atproto.space.getRepo', {
    headers: await cred(cred1, m1.did),
    params: { space, repo: m1.did },
  })
  assert.equal(carRes.status, 200)
  assert.match(carRes.type, /application\/vnd\.ipld\.car/)
  const car = readCar(carRes.buf, cbor)
  assert.equal(car.header.version, 1)
  assert.equal(car.header.roots.length, 2)
  assert.equal(car.blocks[0].cid, car.header.roots[0].toString())
  assert.equal(car.blocks[1].cid, car.header.roots[1].toString())
  const carCommit = cbor.decode(car.blocks[0].bytes)
  const index = cbor.decode(car.blocks[1].bytes)
  assert.equal(Object.keys(index).length, 151)
  assert.equal(car.blocks.length, 2 + 151)
  const fullState = kit.emptyState()
  for (const [k, v] of Object.entries(index)) {
    const [col, rk] = k.split('/')
    kit.addElement(fullState, kit.elementOf(col, rk, v.toString()))
  }
  await verifyCommit(lexJson.lexToJson(carCommit), m1.did, fullState)
  for (const b of car.blocks.slice(2)) {
    assert.equal((await cbor.cidForLex(cbor.decode(b.bytes))).toString(), b.cid)
  }
  const bare = await get('com.atproto.space.getRepo', {
    headers: await cred(cred1, m1.did),
    params: { space, repo: m1.did, excludeValues: true },
  })
  assert.equal(readCar(bare.buf, cbor).blocks.length, 2)
  ok(
    'getRepo: CAR v1, roots [commit, index], 151 record blocks whose CIDs check; excludeValues gives the roots only',
  )
  const latest = expectOk(
    await get('com.atproto.space.getLatestCommit', {
      headers: await cred(cred1, m1.did),
      params: { space, repo: m1.did },
    }),
    'getLatestCommit',
  )
  await verifyCommit(latest.commit, m1.did, fullState)
  ok('getLatestCommit verifies')

  // ---- knobs ------------------------------------------------------------------------------
  await knob('tamper', { space, repo: m1.did, collection: coll, rkey: 'r001' })
  const tampered = expectOk(
    await get('com.atproto.space.getRecord', {
      headers: await cred(cred1, m1.did),
      params: { space, repo: m1.did, collection: coll, rkey: 'r001' },
    }),
    'getRecord',
  )
  assert.notEqual(
    (await cbor.cidForLex(lexJson.jsonToLex(tampered.value))).toString(),
    tampered.cid,
  )
  ok('knob tamper: the value changes, the CID stays')
  await knob('corruptHash', { space, repo: m1.did })
  const corrupted = expectOk(
    await get('com.atproto.space.getLatestCommit', {
      headers: await cred(cred1, m1.did),
      params: { space, repo: m1.did },
    }),
    'getLatestCommit',
  )
  await assert.rejects(verifyCommit(corrupted.commit, m1.did, fullState))
  await knob('corruptHash', { space, repo: m1.did, clear: true })
  ok('knob corruptHash: the commit no longer matches the records, and clears')
  await knob('compact', { space, repo: m1.did })
  const compacted = expectOk(
    await get('com.atproto.space.listRepoOps', {
      headers: await cred(cred1, m1.did),
      params: { space, repo: m1.did, since: commit.rev },
    }),
    'listRepoOps',
  )
  assert.equal(compacted.ops.length, 0)
  ok('knob compact: ops since an old revision are gone')
  const raw = await knob('rawWrite', {
    space,
    repo: m2.did,
    writes: [{ collection: coll, rkey: '..', value: { $type: 'not.this', name: '../../etc' } }],
  })
  assert.ok(P.isTid(raw.rev))
  const rawRec = expectOk(
    await get('com.atproto.space.getRecord', {
      headers: await cred(cred1, m2.did),
      params: { space, repo: m2.did, collection: coll, rkey: '..' },
    }),
    'getRecord',
  )
  assert.equal(rawRec.value.name, '../../etc')
  ok('knob rawWrite: a record no validation would let through')
  const rawBytes = Buffer.concat([
    Buffer.from('{"$type":"garden.engram.skill","n":18446744073709551616,"s":"'),
    Buffer.from([0xff, 0xfe]),
    Buffer.from('"}'),
  ])
  await knob('rawWrite', {
    space,
    repo: m2.did,
    writes: [{ collection: coll, rkey: 'rawbytes', raw: rawBytes.toString('base64') }],
  })
  const rawRes = await get('com.atproto.space.getRecord', {
    headers: await cred(cred1, m2.did),
    params: { space, repo: m2.did, collection: coll, rkey: 'rawbytes' },
  })
  assert.equal(rawRes.status, 200)
  assert.ok(rawRes.buf.includes(Buffer.concat([Buffer.from('"value":'), rawBytes])))
  ok('knob rawWrite with raw bytes: served byte for byte (a 2^64 integer, invalid UTF-8)')

  // revocation and expiry
  await knob('revoke', { space, did: m1.did })
  expectErr(
    await get('com.atproto.space.listRepos', {
      headers: await cred(cred1, auth.did),
      params: { space },
    }),
    401,
    'CredentialRevoked',
    'a revoked credential',
  )
  const wait = (sc.exp + P.CLOCK_SKEW + 1) * 1000 - Date.now()
  await new Promise((r) => setTimeout(r, Math.max(0, wait)))
  expectErr(
    await get('com.atproto.space.listRepos', {
      headers: await cred(short, auth.did),
      params: { space },
    }),
    401,
    'JwtExpired',
    'an expired credential',
  )

  const cred2 = expectOk(await exchange(await delegation(m2)), 'getSpaceCredential').credential
  const view = expectOk(
    await get('com.atproto.simplespace.getSpace', {
      headers: await cred(cred2, auth.did),
      params: { space },
    }),
    'getSpace',
  )
  assert.equal(view.uri, space)
  assert.equal(view.readPolicy.$type, P.POLICY.memberList)
  const ownView = expectOk(
    await get('com.atproto.simplespace.getSpace', { token: auth.token, params: { space } }),
    'getSpace',
  )
  assert.deepEqual(ownView, view)
  expectErr(
    await get('com.atproto.simplespace.getSpace', { token: m2.token, params: { space } }),
    400,
    'NotSpaceOwner',
    "getSpace with a member's session",
  )

  // The #atproto_space_host service: absent by default, declared and withdrawn by the knob.
  const docOf = async (did) => (await fetch(`${info.plc}/${did}`)).json()
  const hostService = (doc) => (doc.service || []).find((x) => x.id === '#atproto_space_host')
  assert.equal(hostService(await docOf(auth.did)), undefined)
  await knob('spaceHostService', { did: auth.did, endpoint: 'http://127.0.0.1:9' })
  assert.equal(hostService(await docOf(auth.did)).serviceEndpoint, 'http://127.0.0.1:9')
  await knob('spaceHostService', { did: auth.did, endpoint: null })
  assert.equal(hostService(await docOf(auth.did)), undefined)
  ok('knob spaceHostService: #atproto_space_host declared in the DID document, then withdrawn')

  // ---- membership changes -------------------------------------------------------------------
  await post('com.atproto.simplespace.putMember', {
    token: auth.token,
    body: { space, did: m2.did, read: true, write: false },
  })
  let now = await listAllRepos(cred2, 100)
  assert.deepEqual(now.repos.map((r) => r.did).sort(), [auth.did, m1.did].sort())
  ok('a read-only member drops out of listRepos')
  await post('com.atproto.simplespace.removeMember', {
    token: auth.token,
    body: { space, did: m1.did },
  })
  now = await listAllRepos(cred2, 100)
  assert.deepEqual(
    now.repos.map((r) => r.did),
    [auth.did],
  )
  expectErr(
    await exchange(await delegation(m1)),
    400,
    'UserNotAuthorized',
    'exchange by a removed member',
  )
  ok('a removed member drops out of listRepos')
  expectOk(
    await post('com.atproto.simplespace.deleteSpace', { token: auth.token, body: { space } }),
    'deleteSpace',
  )
  expectErr(
    await exchange(await delegation(m2)),
    400,
    'SpaceDeleted',
    'exchange for a deleted space',
  )

  process.stdout.write(
    `space host self-test: ${checks} checks passed in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`,
  )
}

// did:key of a legacy EcdsaSecp256k1VerificationKey2019 method (publicKeyMultibase of the
// raw key: compressed or uncompressed secp256k1 point, multibase base58btc).
function legacyDidKey(cryptoMod, vm) {
  assert.equal(vm.type, 'EcdsaSecp256k1VerificationKey2019')
  const raw = cryptoMod.multibaseToBytes(vm.publicKeyMultibase)
  return cryptoMod.formatDidKey('ES256K', raw)
}

function readCar(buf, cbor) {
  let pos = 0
  const varint = () => {
    let n = 0
    let shift = 1
    for (;;) {
      const b = buf[pos++]
      n += (b & 0x7f) * shift
      if (b < 0x80) return n
      shift *= 128
    }
  }
  const hlen = varint()
  const header = cbor.decode(buf.subarray(pos, pos + hlen))
  pos += hlen
  const blocks = []
  while (pos < buf.length) {
    const len = varint()
    const start = pos
    // CIDv1: version, codec, multihash (code, length, digest) as varints
    varint()
    varint()
    varint()
    const dlen = varint()
    const cidEnd = pos + dlen
    const cidBytes = buf.subarray(start, cidEnd)
    blocks.push({ cid: cidString(cidBytes), bytes: buf.subarray(cidEnd, start + len) })
    pos = start + len
  }
  return { header, blocks }
}
function cidString(bytes) {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567'
  let bits = 0
  let value = 0
  let out = 'b'
  for (const byte of bytes) {
    value = (value << 8) | byte
    bits += 8
    while (bits >= 5) {
      out += alphabet[(value >>> (bits - 5)) & 31]
      bits -= 5
    }
  }
  if (bits > 0) out += alphabet[(value << (5 - bits)) & 31]
  return out
}

main().catch((err) => {
  process.stderr.write(`FAIL: ${err && err.stack ? err.stack : err}\n`)
  process.exit(1)
})
