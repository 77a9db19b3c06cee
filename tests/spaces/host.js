// The test space host: com.atproto.space.* and com.atproto.simplespace.* mounted inside the
// harness's reference PDS process (tests/pds/server.js), built on the PDS's own parts: its
// auth verifier for sessions, its actor store's #atproto keys, its account manager and its
// identity resolver (DID documents from the test PLC). See README.md in this directory.
//
//   const host = await createSpaceHost({ pds, load, adminPassword })
//   outerApp.use(host.router)   // before the PDS's own app
'use strict'

const crypto = require('node:crypto')
const zlib = require('node:zlib')
const P = require('./protocol.js')
const { makeRepoKit } = require('./repo.js')

const ACCESS_FULL = ['com.atproto.access']

async function createSpaceHost({ pds, load, adminPassword }) {
  const ctx = pds.ctx
  const express = (await load('express')).default
  const cryptoMod = await load('@atproto/crypto')
  const cbor = await load('@atproto/lex-cbor')
  const lexJson = await load('@atproto/lex-json')
  const { blake3 } = await load('@noble/hashes/blake3')
  const { parseCid, cidForCbor } = await load('@atproto/lex-data')
  const { repoPrepare } = await load('@atproto/pds')
  const kit = makeRepoKit({ blake3, cbor })

  // ---- state (in memory: the host lives as long as the harness's PDS process) -------------
  const spaces = new Map() // space URI -> space (at its authority)
  const repos = new Map() // `${space}\n${did}` -> repo (at the writer's PDS)
  const usedDelegations = new Map() // jti -> exp
  const issued = [] // credentials minted: {jti, space, did, keyId, iat, exp}
  const revoked = new Set() // credential jtis
  const settings = { credentialTtl: P.CREDENTIAL_TTL, ttlBySpace: new Map() }
  const rawValues = new Map() // placeholder string -> the raw JSON bytes served in its place

  // ---- helpers --------------------------------------------------------------------------
  const isLocal = async (did) => P.isDid(did) && !!(await ctx.accountManager.getAccount(did))
  const keypairOf = (did) => ctx.actorStore.keypair(did)

  function toHostError(err) {
    if (err instanceof P.HostError) return err
    if (err && typeof err.statusCode === 'number' && err.payload) {
      return new P.HostError(err.statusCode, err.payload.error, err.payload.message)
    }
    return null
  }

  // The PDS's own verifiers: a full-access session (no app password) for delegation tokens;
  // any session, of an active account, for writes; any session for own-repo reads.
  const verifiers = {
    full: ctx.authVerifier.authorization({
      scopes: ACCESS_FULL,
      checkTakedown: true,
      checkDeactivated: true,
      authorize: () => {},
    }),
    write: ctx.authVerifier.authorization({
      checkTakedown: true,
      checkDeactivated: true,
      authorize: () => {},
    }),
    read: ctx.authVerifier.authorization({ authorize: () => {} }),
  }
  async function session(req, res, kind = 'read') {
    try {
      const out = await verifiers[kind]({ req, res, params: {} })
      return out.credentials.did
    } catch (err) {
      throw toHostError(err) || err
    }
  }

  function requireSpaceParam(v) {
    const parsed = P.parseSpaceUri(v)
    if (!parsed)
      throw P.bad('InvalidRequest', 'space must be a space URI (at://<did>/space/<type>/<skey>)')
    return parsed
  }

  function policyName(p, field) {
    if (p === undefined) return 'memberList'
    const t = p && typeof p === 'object' ? p.$type : p
    if (typeof t !== 'string') throw P.bad('UnsupportedPolicy', `${field} must be a policy object`)
    if (t === P.POLICY.public || t.endsWith('#publicPolicy')) return 'public'
    if (t === P.POLICY.memberList || t.endsWith('#memberListPolicy')) return 'memberList'
    throw P.bad('UnsupportedPolicy', `${field} ${t} is not supported by this host`)
  }
  const policyValue = (name) => ({
    $type: name === 'public' ? P.POLICY.public : P.POLICY.memberList,
  })

  const canRead = (sp, did) =>
    did === sp.authority ||
    sp.readPolicy === 'public' ||
    !!(sp.members.get(did) && sp.members.get(did).read)
  const canWrite = (sp, did) =>
    did === sp.authority ||
    sp.writePolicy === 'public' ||
    !!(sp.members.get(did) && sp.members.get(did).write)

  function liveSpace(uri, { deletedError = 'SpaceNotFound' } = {}) {
    const sp = spaces.get(uri)
    if (!sp) throw P.bad('SpaceNotFound', 'space not found')
    if (sp.deleted)
      throw P.bad(
        deletedError,
        deletedError === 'SpaceDeleted' ? 'space has been deleted' : 'space not found',
      )
    return sp
  }
  function ownedSpace(uri, did) {
    const parsed = requireSpaceParam(uri)
    if (parsed.authority !== did) throw P.bad('NotSpaceOwner', 'Not the space owner')
    return liveSpace(uri)
  }

  function limitParam(v, def, max) {
    if (v === undefined) return def
    const n = Number(v)
    if (!Number.isInteger(n) || n < 1 || n > max)
      throw P.bad('InvalidRequest', `limit must be an integer from 1 to ${max}`)
    return n
  }
  const boolParam = (v) => v === 'true' || v === true

  // ---- credentials ------------------------------------------------------------------------
  async function resolveTokenKey(iss, force) {
    try {
      return await ctx.idResolver.did.resolveAtprotoKey(iss, force)
    } catch {
      throw P.unauthorized('BadJwtIss', `could not resolve the #atproto key of ${iss}`)
    }
  }
  async function matches(didKey, jwt) {
    try {
      return await cryptoMod.verifySignature(didKey, jwt.signingInput, jwt.sig, {
        jwtAlg: jwt.header.alg,
      })
    } catch {
      throw P.unauthorized('BadJwtSignature', 'could not verify token signature')
    }
  }
  // A delegation token or a credential: structure, exp, then the signature under the
  // issuer's #atproto key (re-resolved once if it does not verify).
  async function verifySpaceToken(type, token) {
    const jwt = P.parseSpaceToken(type, token)
    const key = await resolveTokenKey(jwt.payload.iss, false)
    if (await matches(key, jwt)) return jwt.payload
    const fresh = await resolveTokenKey(jwt.payload.iss, true)
    if (fresh !== key && (await matches(fresh, jwt))) return jwt.payload
    throw P.unauthorized('BadJwtSignature', 'invalid token signature')
  }
  function spaceOfToken(sub) {
    const parsed = P.parseSpaceUri(sub)
    if (!parsed) throw P.unauthorized('BadJwtSub', `space token subject is not a space URI: ${sub}`)
    return parsed
  }

  // A credentialed request: returns the credential's payload or throws.
  async function verifyCredential(req, token, { audience, space }) {
    const c = await verifySpaceToken('credential', token)
    if (c.iss !== spaceOfToken(c.sub).authority) {
      throw P.unauthorized('BadJwtIss', 'space credential issuer is not the space authority')
    }
    if (!P.isDid(P.singleHeader(req, P.AUDIENCE_HEADER))) {
      throw P.unauthorized('BadSpaceSignature', 'missing or invalid space audience DID')
    }
    const sig = await P.verifySpaceSignature(req, c.cnf.kid, cryptoMod)
    if (revoked.has(c.jti)) throw P.unauthorized('CredentialRevoked', 'credential has been revoked')
    if (sig.audience !== audience)
      throw P.unauthorized('BadSpaceAudience', `audience must be ${audience}`)
    if (c.sub !== space) throw P.bad('InvalidCredential', 'credential is for another space')
    return c
  }

  // Auth for reads: a credential (any repo of its space) or a session (own repo only).
  async function readAuth(req, res, { audience, space }) {
    const auth = P.parseAuthorization(req.headers.authorization)
    if (auth && auth.scheme === P.AUTH_SCHEME_CREDENTIAL) {
      const credential = await verifyCredential(req, auth.token, { audience, space })
      return { credential, did: null }
    }
    return { credential: null, did: await session(req, res) }
  }

  // ---- repos ------------------------------------------------------------------------------
  const repoKey = (space, did) => `${space}\n${did}`
  function getRepo(space, did) {
    return repos.get(repoKey(space, did))
  }
  const newRepo = (space, did) => ({
    space,
    did,
    rev: null,
    records: new Map(),
    state: kit.emptyState(),
    ops: [],
    badHash: null,
  })
  function ensureRepo(space, did) {
    let r = repos.get(repoKey(space, did))
    if (!r) {
      r = newRepo(space, did)
      repos.set(repoKey(space, did), r)
    }
    return r
  }
  const repoHash = (r) => r.badHash || kit.digest(r.state)
  async function signedCommit(r) {
    return kit.signCommit(await keypairOf(r.did), r.space, r.did, r.rev, repoHash(r))
  }

  // Repo-host reads: the repo's owner must be an account here (else RepoNotFound). As in the
  // reference, an account that never wrote to the space has an empty repo: no records, no
  // ops, no commit (getLatestCommit and getRepo answer RepoNotFound).
  async function readableRepo(req, res, params) {
    requireSpaceParam(params.space)
    if (!P.isDid(params.repo)) throw P.bad('InvalidRequest', 'repo must be a DID')
    const auth = await readAuth(req, res, { audience: params.repo, space: params.space })
    if (auth.did && auth.did !== params.repo) {
      throw P.bad('RepoNotFound', `Could not find repo for DID: ${params.repo}`)
    }
    if (!(await isLocal(params.repo))) {
      throw P.bad('RepoNotFound', `Could not find repo for DID: ${params.repo}`)
    }
    return getRepo(params.space, params.repo) || newRepo(params.space, params.repo)
  }
  function requireCommitted(r) {
    if (r.rev === null) throw P.bad('RepoNotFound', `Could not find repo for space: ${r.space}`)
    return r
  }

  const recordJson = (value) => lexJson.lexToJson(value)

  // Applies prepared writes to a repo atomically (no await between the checks and the
  // changes) and notifies the authority; returns the results. writes: [{action: create |
  // update | delete | put (upsert), collection, rkey, value?, cid?, bytes?}].
  async function commitWrites(r, writes) {
    // Check everything first: nothing changes unless all pass.
    const pending = new Map()
    const current = (key) => (pending.has(key) ? pending.get(key) : r.records.get(key))
    for (const w of writes) {
      const key = `${w.collection}/${w.rkey}`
      const cur = current(key)
      if (w.action === 'put') w.action = cur ? 'update' : 'create'
      if (w.action === 'create' && cur)
        throw P.bad('RecordAlreadyExists', `record already exists: ${key}`)
      if ((w.action === 'update' || w.action === 'delete') && !cur)
        throw P.bad('RecordNotFound', `record not found: ${key}`)
      w.prev = cur ? cur.cid : null
      pending.set(key, w.action === 'delete' ? null : w)
    }
    const rev = P.nextTid()
    const results = []
    writes.forEach((w, idx) => {
      const key = `${w.collection}/${w.rkey}`
      if (w.prev) kit.removeElement(r.state, kit.elementOf(w.collection, w.rkey, w.prev))
      if (w.action === 'delete') {
        r.records.delete(key)
        r.ops.push({ rev, idx, collection: w.collection, rkey: w.rkey, cid: null, prev: w.prev })
        results.push({ $type: `${P.NS.space}.applyWrites#deleteResult` })
        return
      }
      kit.addElement(r.state, kit.elementOf(w.collection, w.rkey, w.cid))
      r.records.set(key, {
        collection: w.collection,
        rkey: w.rkey,
        cid: w.cid,
        value: w.value,
        bytes: w.bytes,
      })
      r.ops.push({ rev, idx, collection: w.collection, rkey: w.rkey, cid: w.cid, prev: w.prev })
      results.push({
        $type: `${P.NS.space}.applyWrites#${w.action === 'create' ? 'createResult' : 'updateResult'}`,
        uri: P.recordUri(r.space, r.did, w.collection, w.rkey),
        cid: w.cid,
        validationStatus: w.validationStatus,
      })
    })
    r.rev = rev
    r.badHash = null
    notifyWrite(r)
    return results
  }

  // The authority's side of notifyWrite (in process): a write that passes writePolicy makes
  // the writer listed with a new spaceRev.
  function notifyWrite(r) {
    const sp = spaces.get(r.space)
    if (!sp || sp.deleted || !canWrite(sp, r.did)) return
    sp.writers.set(r.did, { repoRev: r.rev, hash: repoHash(r), spaceRev: P.nextTid() })
  }

  // A write as the PDS itself prepares one (its repoPrepare: $type, record key, known
  // lexicons, validate, CID); its InvalidRecordError becomes 400 InvalidRequest as on the PDS.
  async function prepareWrite(w, { validate, did }) {
    if (!P.isNsid(w.collection))
      throw P.bad('InvalidRequest', `Invalid collection: ${w.collection}`)
    if (w.action === 'delete') {
      if (!P.isRkey(w.rkey)) throw P.bad('InvalidRequest', `Invalid record key: ${w.rkey}`)
      return w
    }
    if (w.action !== 'create' && w.rkey === undefined)
      throw P.bad('InvalidRequest', 'rkey is required')
    const v = w.value
    if (!v || typeof v !== 'object' || Array.isArray(v)) {
      throw P.bad('InvalidRequest', 'record must be an object')
    }
    try {
      const prep = await repoPrepare.prepareCreate({
        did,
        collection: w.collection,
        rkey: w.rkey,
        record: lexJson.jsonToLex(v),
        validate,
      })
      w.rkey = prep.uri.rkey
      w.value = prep.record
      w.bytes = cbor.encode(prep.record)
      w.cid = prep.cid.toString()
      w.validationStatus = prep.validationStatus
      w.blobs = prep.blobs
    } catch (err) {
      throw P.bad('InvalidRequest', err && err.message ? err.message : 'Invalid record')
    }
    return w
  }
  // The blobs prepared writes name, kept by the writer's PDS as its own writes' are: each
  // must have been uploaded (com.atproto.repo.uploadBlob: the PDS's own, per account) and
  // becomes permanent in the account's blob store, tied to the space record's URI. As in the
  // reference PDS, a blob store is the account's, not the space's: see getBlob below.
  async function keepBlobs(r, writes) {
    for (const w of writes) {
      if (!w.blobs || !w.blobs.length) continue
      const uri = P.recordUri(r.space, r.did, w.collection, w.rkey)
      try {
        await ctx.actorStore.transact(r.did, async (store) => {
          for (const b of w.blobs) {
            await store.repo.blob.associateBlob(b, uri)
            await store.repo.blob.verifyBlobAndMakePermanent(b)
          }
        })
      } catch (err) {
        throw P.bad(err.customErrorName || 'InvalidRequest', err.message || 'invalid blob')
      }
    }
  }
  // The rawWrite knob: no checks but that the value is DAG-CBOR data.
  async function finishWrite(w) {
    try {
      w.value = lexJson.jsonToLex(w.value)
      w.bytes = cbor.encode(w.value)
      w.cid = w.cid || (await cbor.cidForLex(w.value)).toString()
    } catch (err) {
      throw P.bad('InvalidRequest', `record is not valid data: ${err.message}`)
    }
    return w
  }

  async function writeTarget(req, res, body) {
    const did = await session(req, res, 'write')
    requireSpaceParam(body.space)
    if (body.repo !== did)
      throw new P.HostError(403, 'Forbidden', 'repo must match authenticated user')
    return ensureRepo(body.space, did)
  }

  // ---- methods ----------------------------------------------------------------------------
  const methods = new Map()
  const def = (nsid, verb, fn) => methods.set(nsid, { verb, fn })
  const S = (n) => `${P.NS.space}.${n}`
  const SS = (n) => `${P.NS.simplespace}.${n}`

  // simplespace: the authority's session.
  async function createSpace({ req, res, body }) {
    const did = await session(req, res, 'write')
    const spaceType = body.spaceType ?? body.type // October: spaceType; August: type
    if (!P.isNsid(spaceType)) throw P.bad('InvalidRequest', 'spaceType must be an NSID')
    const skey = body.skey ?? P.nextTid()
    if (!P.isRkey(skey)) throw P.bad('InvalidRequest', 'skey must be a record key')
    const readPolicy = policyName(body.readPolicy ?? body.policy, 'readPolicy')
    const writePolicy = policyName(body.writePolicy ?? body.policy, 'writePolicy')
    if (body.appAccess !== undefined) {
      const t = body.appAccess && body.appAccess.$type
      if (typeof t !== 'string' || !t.endsWith('#open'))
        throw P.bad('UnsupportedAppAccess', 'only #open app access is supported')
    }
    const uri = P.spaceUri(did, spaceType, skey)
    if (spaces.has(uri)) throw P.bad('SpaceAlreadyExists', 'space already exists')
    spaces.set(uri, {
      uri,
      authority: did,
      spaceType,
      skey,
      readPolicy,
      writePolicy,
      deleted: false,
      members: new Map(),
      writers: new Map(),
    })
    return { uri }
  }
  def(SS('createSpace'), 'POST', createSpace)
  def(S('createSpace'), 'POST', createSpace) // August name

  const spaceView = (sp) => ({
    uri: sp.uri,
    spaceType: sp.spaceType,
    readPolicy: policyValue(sp.readPolicy),
    writePolicy: policyValue(sp.writePolicy),
    appAccess: { $type: P.APP_ACCESS_OPEN },
  })
  def(SS('getSpace'), 'GET', async ({ req, res, params }) => {
    const parsed = requireSpaceParam(params.space)
    const auth = await readAuth(req, res, { audience: parsed.authority, space: params.space })
    if (auth.did && auth.did !== parsed.authority)
      throw P.bad('NotSpaceOwner', 'only the space authority can read it with a session')
    return spaceView(liveSpace(params.space))
  })

  def(SS('updateSpace'), 'POST', async ({ req, res, body }) => {
    const sp = ownedSpace(body.space, await session(req, res, 'write'))
    const readPolicy =
      body.readPolicy === undefined ? sp.readPolicy : policyName(body.readPolicy, 'readPolicy')
    const writePolicy =
      body.writePolicy === undefined ? sp.writePolicy : policyName(body.writePolicy, 'writePolicy')
    Object.assign(sp, { readPolicy, writePolicy })
    return {}
  })

  def(SS('deleteSpace'), 'POST', async ({ req, res, body }) => {
    const did = await session(req, res, 'write')
    const parsed = requireSpaceParam(body.space)
    if (parsed.authority !== did)
      throw P.bad('NotSpaceOwner', 'only the space authority can do this')
    const sp = spaces.get(body.space)
    if (sp) sp.deleted = true
    // As the reference: the authority's own repo in the space goes with it; members' repos
    // stay on their PDSes, unreadable since no credential can be had any more.
    repos.delete(repoKey(body.space, did))
    return {}
  })

  async function putMember({ req, res, body }) {
    const sp = ownedSpace(body.space, await session(req, res, 'write'))
    if (!P.isDid(body.did)) throw P.bad('InvalidRequest', 'did must be a DID')
    const read = body.read === undefined ? true : body.read === true
    const write = body.write === undefined ? true : body.write === true
    sp.members.set(body.did, { read, write })
    return {}
  }
  def(SS('putMember'), 'POST', putMember)
  def(SS('addMember'), 'POST', putMember) // August name
  def(S('addMember'), 'POST', putMember)

  def(SS('removeMember'), 'POST', async ({ req, res, body }) => {
    const sp = ownedSpace(body.space, await session(req, res, 'write'))
    if (!P.isDid(body.did)) throw P.bad('InvalidRequest', 'did must be a DID')
    sp.members.delete(body.did)
    return {}
  })

  def(SS('listMembers'), 'GET', async ({ req, res, params }) => {
    const sp = ownedSpace(params.space, await session(req, res))
    const limit = limitParam(params.limit, 100, 1000)
    const dids = [...sp.members.keys()]
      .sort()
      .filter((d) => params.cursor === undefined || d > params.cursor)
    const page = dids.slice(0, limit)
    const out = { members: page.map((did) => ({ did, ...sp.members.get(did) })) }
    if (page.length === limit) out.cursor = page[page.length - 1]
    return out
  })

  // Delegation token: the user's own PDS, a full-access session.
  def(S('getDelegationToken'), 'GET', async ({ req, res, params }) => {
    const did = await session(req, res, 'full')
    const parsed = requireSpaceParam(params.space)
    const key = await keypairOf(did)
    const { header, payload } = P.delegationClaims(did, params.space, parsed.authority)
    return { token: await P.signJwt(key, { alg: P.jwtAlgFor(key), ...header }, payload) }
  })

  // The exchange at the space host.
  def(S('getSpaceCredential'), 'POST', async ({ req, body }) => {
    const auth = P.parseAuthorization(req.headers.authorization)
    if (!auth || auth.scheme !== 'Bearer')
      throw P.unauthorized('MissingJwt', 'missing delegation token')
    const t = await verifySpaceToken('delegation', auth.token)
    const sub = spaceOfToken(t.sub)
    // Many authorities share this host: the audience comes from sub.
    if (t.aud !== P.spaceHostAudience(sub.authority)) {
      throw P.unauthorized(
        'BadJwtAudience',
        'delegation token audience does not match the space authority',
      )
    }
    if (!P.isDid(t.iss)) throw P.unauthorized('BadJwtIss', 'delegation token issuer is not a DID')
    const sig = await P.verifySpaceSignature(req, undefined, cryptoMod)
    const jtiKey = `${t.iss} ${t.jti}`
    if (usedDelegations.has(jtiKey))
      throw P.unauthorized('JwtReplayed', 'delegation token has already been used')
    usedDelegations.set(jtiKey, t.exp)
    for (const [k, exp] of usedDelegations) if (exp + 60 < P.now()) usedDelegations.delete(k)
    // From here on the token is spent, whatever the answer.
    if (t.sub !== body.space)
      throw P.bad('InvalidDelegationToken', 'delegation token is for another space')
    const sp = liveSpace(body.space, { deletedError: 'SpaceDeleted' })
    if (!canRead(sp, t.iss)) throw P.bad('UserNotAuthorized', 'User not authorized for this space')
    const key = await keypairOf(sp.authority)
    const { header, payload } = P.credentialClaims(
      sp.authority,
      sp.uri,
      sig.keyId,
      settings.ttlBySpace.get(sp.uri) ?? settings.credentialTtl,
    )
    issued.push({
      jti: payload.jti,
      space: sp.uri,
      did: t.iss,
      keyId: sig.keyId,
      iat: payload.iat,
      exp: payload.exp,
    })
    if (issued.length > 10000) issued.splice(0, issued.length - 10000)
    return { credential: await P.signJwt(key, { alg: P.jwtAlgFor(key), ...header }, payload) }
  })

  // listRepos at the space host: the writers whose writes passed writePolicy, who may still
  // write now (a removed or read-only member drops out), ordered by spaceRev, cursor = the
  // last spaceRev of a full page (exclusive); repoRev and hash as the last accepted
  // notification gave them.
  def(S('listRepos'), 'GET', async ({ req, res, params }) => {
    const parsed = requireSpaceParam(params.space)
    await readAuthHost(req, res, parsed, params.space)
    const sp = liveSpace(params.space)
    const limit = limitParam(params.limit, 100, 1000)
    const cursor = params.cursor
    const rows = [...sp.writers.entries()]
      .filter(([did]) => canWrite(sp, did))
      .map(([did, w]) => ({ did, ...w }))
      .sort((a, b) => (a.spaceRev < b.spaceRev ? -1 : 1))
      .filter((w) => cursor === undefined || w.spaceRev > cursor)
    const page = rows.slice(0, limit)
    const out = {
      repos: page.map((w) => ({
        did: w.did,
        repoRev: w.repoRev,
        hash: w.hash,
        spaceRev: w.spaceRev,
      })),
    }
    if (page.length === limit) out.cursor = page[page.length - 1].spaceRev
    return lexJson.lexToJson(out)
  })
  async function readAuthHost(req, res, parsed, space) {
    const auth = await readAuth(req, res, { audience: parsed.authority, space })
    if (auth.did && auth.did !== parsed.authority)
      throw P.bad('NotSpaceOwner', 'a session may list only its own space')
  }

  // listSpaces (session only): the spaces the caller holds a repo in, by URI.
  def(S('listSpaces'), 'GET', async ({ req, res, params }) => {
    const did = await session(req, res)
    const limit = limitParam(params.limit, 50, 100)
    const spaceType = params.spaceType ?? params.type // October: spaceType; August: type
    const uris = [...repos.values()]
      .filter((r) => r.did === did && r.rev !== null)
      .map((r) => r.space)
      .filter((uri) => {
        const p = P.parseSpaceUri(uri)
        return (
          (spaceType === undefined || p.spaceType === spaceType) &&
          (params.did === undefined || p.authority === params.did)
        )
      })
      .sort()
      .filter((uri) => params.cursor === undefined || uri > params.cursor)
    const page = uris.slice(0, limit)
    const out = { spaces: page.map((uri) => ({ uri })) }
    if (page.length === limit) out.cursor = page[page.length - 1]
    return out
  })

  // ---- repo reads (the writer's PDS) ------------------------------------------------------
  def(S('getRecord'), 'GET', async ({ req, res, params }) => {
    const r = await readableRepo(req, res, params)
    const rec = r.records.get(`${params.collection}/${params.rkey}`)
    if (!rec) throw P.bad('RecordNotFound', 'record not found')
    return {
      uri: P.recordUri(r.space, r.did, rec.collection, rec.rkey),
      cid: rec.cid,
      value: recordJson(rec.value),
    }
  })

  // Ordered by record URI descending (ascending with reverse); cursor = the last URI of a full page.
  def(S('listRecords'), 'GET', async ({ req, res, params }) => {
    const r = await readableRepo(req, res, params)
    const limit = limitParam(params.limit, 50, 1000)
    const reverse = boolParam(params.reverse)
    const excludeValues = boolParam(params.excludeValues)
    const prefix = `${r.space}/${r.did}/`
    let after = params.cursor
    if (after !== undefined && after.startsWith(prefix)) after = after.slice(prefix.length)
    let keys = [...r.records.keys()]
    if (params.collection !== undefined)
      keys = keys.filter((k) => k.startsWith(`${params.collection}/`))
    keys.sort()
    if (!reverse) keys.reverse()
    if (after !== undefined) keys = keys.filter((k) => (reverse ? k > after : k < after))
    const page = keys.slice(0, limit)
    const records = page.map((k) => {
      const rec = r.records.get(k)
      const out = { collection: rec.collection, rkey: rec.rkey, cid: rec.cid }
      if (!excludeValues) out.value = recordJson(rec.value)
      return out
    })
    const out = { records }
    if (page.length === limit) out.cursor = prefix + page[page.length - 1]
    return out
  })

  // The rollback knob's answer: one op per record whose version differs between the repo now
  // and its snapshot, at the snapshot's revision, taking the set back to the snapshot's, and
  // the snapshot's signed commit.
  async function rollbackOps(r, excludeValues) {
    const snap = r.snapshot
    const keys = new Set([...r.records.keys(), ...snap.records.keys()])
    const ops = []
    for (const k of [...keys].sort()) {
      const cur = r.records.get(k)
      const old = snap.records.get(k)
      if ((cur && cur.cid) === (old && old.cid)) continue
      const any = old || cur
      const e = {
        rev: snap.rev,
        collection: any.collection,
        rkey: any.rkey,
        cid: old ? old.cid : null,
        prev: cur ? cur.cid : null,
      }
      if (!excludeValues && old) e.value = recordJson(old.value)
      ops.push(e)
    }
    return { ops, commit: lexJson.lexToJson(await signedCommit(snap)) }
  }

  // since exclusive; cursor "<rev>/<idx>" wins over since; a full page gives a cursor and no
  // commit, a short one the commit and no cursor. Compacted ops are simply gone.
  def(S('listRepoOps'), 'GET', async ({ req, res, params }) => {
    const r = await readableRepo(req, res, params)
    if (r.rollback) {
      const out = await rollbackOps(r, boolParam(params.excludeValues))
      if (r.rollbackOnce) showRollback(r, false)
      return out
    }
    const limit = limitParam(params.limit, 100, 1000)
    const excludeValues = boolParam(params.excludeValues)
    let after = null
    if (params.cursor !== undefined) {
      const m = /^([^/]*)\/(\d+)$/.exec(params.cursor)
      if (!m) throw P.bad('MalformedCursor', 'Malformed cursor')
      after = { rev: m[1], idx: Number(m[2]) }
    } else if (params.since !== undefined) {
      after = { rev: params.since, idx: Infinity }
    }
    const ops = r.ops.filter(
      (o) => !after || o.rev > after.rev || (o.rev === after.rev && o.idx > after.idx),
    )
    const page = ops.slice(0, limit)
    const out = {
      ops: page.map((o) => {
        const e = { rev: o.rev, collection: o.collection, rkey: o.rkey, cid: o.cid, prev: o.prev }
        const cur = r.records.get(`${o.collection}/${o.rkey}`)
        if (!excludeValues && o.cid && cur && cur.cid === o.cid) e.value = recordJson(cur.value)
        return e
      }),
    }
    if (page.length === limit) {
      const last = page[page.length - 1]
      out.cursor = `${last.rev}/${last.idx}`
    } else if (r.rev !== null) {
      out.commit = lexJson.lexToJson(await signedCommit(r))
    }
    return out
  })

  def(S('getLatestCommit'), 'GET', async ({ req, res, params }) => {
    const r = requireCommitted(await readableRepo(req, res, params))
    return { commit: lexJson.lexToJson(await signedCommit(r)) }
  })

  // CAR v1: roots [commit, index]; blocks commit, index, then the records in index order.
  def(S('getRepo'), 'GET', async ({ req, res, params }) => {
    const live = requireCommitted(await readableRepo(req, res, params))
    const r = live.rollback ? live.snapshot : live
    const commit = await kit.block(await signedCommit(r))
    const index = {}
    const cids = {}
    for (const [k, rec] of r.records) cids[k] = rec.cid
    for (const k of Object.keys(cids)) index[k] = parseCid(cids[k])
    const indexBlock = await kit.block(index)
    const blocks = [commit, indexBlock]
    if (!boolParam(params.excludeValues)) {
      const keys = Object.keys(index).sort(
        (a, b) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0),
      )
      for (const k of keys) {
        const rec = r.records.get(k)
        blocks.push({ cid: parseCid(rec.cid), bytes: rec.bytes })
      }
    }
    return { car: kit.car([commit.cid, indexBlock.cid], blocks) }
  })

  // A blob a record of the repo in this space names, with the space's credential (or the
  // owner's session); BlobNotFound for any other CID. The bytes come from the account's blob
  // store, the same one com.atproto.sync.getBlob serves without any credential.
  def(S('getBlob'), 'GET', async ({ req, res, params }) => {
    const r = await readableRepo(req, res, params)
    const cid = String(params.cid || '')
    const named = [...r.records.values()].some((rec) =>
      JSON.stringify(recordJson(rec.value)).includes(`{"$link":"${cid}"}`),
    )
    if (!named) throw P.bad('BlobNotFound', 'Blob not found')
    let found
    try {
      found = await ctx.actorStore.read(r.did, (store) => store.repo.blob.getBlob(parseCid(cid)))
    } catch (err) {
      throw P.bad('BlobNotFound', 'Blob not found')
    }
    const chunks = []
    for await (const c of found.stream) chunks.push(c)
    return { blob: Buffer.concat(chunks) }
  })

  // ---- writes (the writer's own PDS, session auth) ----------------------------------------
  def(S('createRecord'), 'POST', async ({ req, res, body }) => {
    const r = await writeTarget(req, res, body)
    const w = await prepareWrite(
      { action: 'create', collection: body.collection, rkey: body.rkey, value: body.record },
      { validate: body.validate, did: r.did },
    )
    await keepBlobs(r, [w])
    const [result] = await commitWrites(r, [w])
    return { uri: result.uri, cid: result.cid, validationStatus: result.validationStatus }
  })

  def(S('putRecord'), 'POST', async ({ req, res, body }) => {
    const r = await writeTarget(req, res, body)
    if (body.rkey === undefined) throw P.bad('InvalidRequest', 'rkey is required')
    const w = await prepareWrite(
      { action: 'put', collection: body.collection, rkey: body.rkey, value: body.record },
      { validate: body.validate, did: r.did },
    )
    await keepBlobs(r, [w])
    const [result] = await commitWrites(r, [w])
    return { uri: result.uri, cid: result.cid, validationStatus: result.validationStatus }
  })

  def(S('deleteRecord'), 'POST', async ({ req, res, body }) => {
    const r = await writeTarget(req, res, body)
    const w = await prepareWrite(
      { action: 'delete', collection: body.collection, rkey: body.rkey },
      {},
    )
    if (!r.records.has(`${w.collection}/${w.rkey}`)) return {} // no commit, no notification
    await commitWrites(r, [w])
    return {}
  })

  def(S('applyWrites'), 'POST', async ({ req, res, body }) => {
    const r = await writeTarget(req, res, body)
    if (!Array.isArray(body.writes)) throw P.bad('InvalidRequest', 'writes must be an array')
    if (body.writes.length > P.MAX_WRITES)
      throw P.bad('InvalidRequest', `Too many writes. Max: ${P.MAX_WRITES}`)
    const prepared = []
    for (const w of body.writes) {
      const t = w && w.$type
      const action =
        t === `${P.NS.space}.applyWrites#create`
          ? 'create'
          : t === `${P.NS.space}.applyWrites#update`
            ? 'update'
            : t === `${P.NS.space}.applyWrites#delete`
              ? 'delete'
              : null
      if (!action) throw P.bad('InvalidRequest', `unknown write $type: ${t}`)
      prepared.push(
        await prepareWrite(
          { action, collection: w.collection, rkey: w.rkey, value: w.value },
          { validate: body.validate, did: r.did },
        ),
      )
    }
    if (prepared.length === 0) return { results: [] }
    await keepBlobs(r, prepared)
    return { results: await commitWrites(r, prepared) }
  })

  // ---- test knobs (admin password; loopback only, like the whole server) ------------------
  const knobs = new Map()
  knobs.set('settings', async (b) => {
    const ttl = b.credentialTtl
    if (b.space !== undefined) {
      if (!P.parseSpaceUri(b.space)) throw P.bad('InvalidRequest', 'space must be a space URI')
      if (ttl === null) settings.ttlBySpace.delete(b.space)
      else if (ttl !== undefined) settings.ttlBySpace.set(b.space, positive(ttl))
    } else if (ttl !== undefined) {
      settings.credentialTtl = positive(ttl)
    }
    return {
      credentialTtl: settings.credentialTtl,
      spaces: Object.fromEntries(settings.ttlBySpace),
    }
  })
  function positive(n) {
    if (!Number.isInteger(n) || n < 1)
      throw P.bad('InvalidRequest', 'credentialTtl must be a positive integer')
    return n
  }
  knobs.set('credentials', async () => ({
    credentials: issued.map((c) => ({ ...c, revoked: revoked.has(c.jti) })),
  }))
  knobs.set('revoke', async (b) => {
    const hit = issued.filter(
      (c) =>
        (b.jti === undefined || c.jti === b.jti) &&
        (b.space === undefined || c.space === b.space) &&
        (b.did === undefined || c.did === b.did),
    )
    if (b.jti !== undefined && hit.length === 0) revoked.add(b.jti)
    for (const c of hit) revoked.add(c.jti)
    return { revoked: b.jti !== undefined && hit.length === 0 ? [b.jti] : hit.map((c) => c.jti) }
  })
  function knobRepo(b) {
    const r = getRepo(b.space, b.repo)
    if (!r || r.rev === null) throw P.bad('RepoNotFound', 'repo not found')
    return r
  }
  knobs.set('tamper', async (b) => {
    const r = knobRepo(b)
    const rec = r.records.get(`${b.collection}/${b.rkey}`)
    if (!rec) throw P.bad('RecordNotFound', 'record not found')
    const value =
      b.value !== undefined ? lexJson.jsonToLex(b.value) : { ...rec.value, tampered: true }
    rec.value = value
    rec.bytes = cbor.encode(value)
    return { cid: rec.cid }
  })
  knobs.set('corruptHash', async (b) => {
    const r = knobRepo(b)
    r.badHash = b.clear ? null : new Uint8Array(crypto.randomBytes(32))
    // The authority heard it too: listRepos carries the same hash.
    const w = spaces.get(r.space) && spaces.get(r.space).writers.get(r.did)
    if (w && w.repoRev === r.rev) w.hash = repoHash(r)
    return { hash: lexJson.lexToJson(repoHash(r)) }
  })
  knobs.set('compact', async (b) => {
    const r = knobRepo(b)
    const through = b.through ?? r.rev
    const before = r.ops.length
    r.ops = r.ops.filter((o) => o.rev > through)
    return { dropped: before - r.ops.length, through }
  })
  // The rollback knobs (a host that replays a writer's older, genuinely signed state):
  // snapshot keeps the repo as it is now (its rev, records and set); rollback {on: true}
  // makes listRepoOps answer with ops that fold the repo's current set back to the
  // snapshot's, under the snapshot's signed commit, getRepo serve the snapshot, and
  // listRepos list it; {on: true, once: true} ends it after one listRepoOps answer (a host
  // that replays once, then answers honestly); {on: false} ends it.
  knobs.set('snapshot', async (b) => {
    const r = knobRepo(b)
    r.snapshot = {
      space: r.space,
      did: r.did,
      rev: r.rev,
      records: new Map(r.records),
      state: r.state.slice(),
      badHash: null,
    }
    return { rev: r.rev }
  })
  knobs.set('rollback', async (b) => {
    const r = knobRepo(b)
    if (b.on && !r.snapshot) throw P.bad('InvalidRequest', 'no snapshot of this repo')
    r.rollbackOnce = !!(b.on && b.once)
    return { rollback: !!b.on, rev: showRollback(r, !!b.on) }
  })
  // Turns r's rollback on or off, listRepos listing what it serves now; its revision.
  function showRollback(r, on) {
    r.rollback = on
    const sp = spaces.get(r.space)
    const shown = r.rollback ? r.snapshot : r
    if (sp && sp.writers.has(r.did))
      sp.writers.set(r.did, { repoRev: shown.rev, hash: repoHash(shown), spaceRev: P.nextTid() })
    return shown.rev
  }

  knobs.set('rawWrite', async (b) => {
    if (!P.parseSpaceUri(b.space) || !P.isDid(b.repo))
      throw P.bad('InvalidRequest', 'space and repo are required')
    if (!Array.isArray(b.writes) || b.writes.length === 0)
      throw P.bad('InvalidRequest', 'writes must be a non-empty array')
    const r = ensureRepo(b.space, b.repo)
    const prepared = []
    for (const w of b.writes) {
      if (typeof w.collection !== 'string' || typeof w.rkey !== 'string')
        throw P.bad('InvalidRequest', 'collection and rkey are strings')
      if (w.delete) {
        prepared.push({ action: 'delete', collection: w.collection, rkey: w.rkey })
      } else if (typeof w.raw === 'string') {
        // Served byte for byte as the record's JSON value (invalid UTF-8, huge integers,
        // anything); the CAR carries the same bytes as the record's block.
        const bytes = Buffer.from(w.raw, 'base64')
        const cid = w.cid || (await cidForCbor(bytes)).toString()
        const mark = `__space_raw_${crypto.randomBytes(12).toString('hex')}__`
        rawValues.set(mark, bytes)
        prepared.push({
          action: 'put',
          collection: w.collection,
          rkey: w.rkey,
          value: mark,
          bytes,
          cid,
        })
      } else {
        prepared.push(
          await finishWrite({
            action: 'put',
            collection: w.collection,
            rkey: w.rkey,
            value: w.value,
            cid: w.cid,
          }),
        )
      }
    }
    const results = await commitWrites(r, prepared)
    return { rev: r.rev, results }
  })

  // Declares (endpoint: a URL) or withdraws (endpoint: null) the #atproto_space_host service
  // in an account's DID document, through the test PLC with the PDS's rotation key.
  knobs.set('spaceHostService', async (b) => {
    if (!(await isLocal(b.did))) throw P.bad('InvalidRequest', 'did must be an account here')
    if (
      b.endpoint !== null &&
      !(typeof b.endpoint === 'string' && /^https?:\/\//.test(b.endpoint))
    ) {
      throw P.bad('InvalidRequest', 'endpoint must be an http(s) URL or null')
    }
    const id = P.SPACE_HOST_FRAGMENT.slice(1)
    await ctx.plcClient.updateData(b.did, ctx.plcRotationKey, (last) => {
      const services = { ...last.services }
      if (b.endpoint === null) delete services[id]
      else services[id] = { type: P.SPACE_HOST_SERVICE_TYPE, endpoint: b.endpoint }
      return { ...last, services }
    })
    await ctx.idResolver.did.resolve(b.did, true)
    return { did: b.did, endpoint: b.endpoint }
  })

  // Requests per space and method (the `space` parameter or body field), for tests that
  // check what a client asked for.
  const counts = new Map() // space URI -> Map(nsid -> n)
  function countRequest(space, nsid) {
    if (typeof space !== 'string') return
    if (!counts.has(space)) counts.set(space, new Map())
    const c = counts.get(space)
    c.set(nsid, (c.get(nsid) || 0) + 1)
  }
  knobs.set('requests', async (b) => {
    if (typeof b.space !== 'string') throw P.bad('InvalidRequest', 'space is required')
    const out = { space: b.space, counts: Object.fromEntries(counts.get(b.space) || []) }
    if (b.reset) counts.delete(b.space)
    return out
  })

  // Virtual hosts that answer like a newer alpha of the protocol, at
  // <host>/_test/alpha/<name>/xrpc/<nsid> (declare one as an authority's space host with
  // spaceHostService): the space methods as usual, but those in `unknown` answer XRPC's
  // 501 MethodNotImplemented, describeServer carries `spacesAlpha` when given, and with
  // `shape: "writers"` listRepos answers {writers} for {repos} (as a listWriters would).
  const alphas = new Map() // name -> {spacesAlpha, unknown: Set, shape}
  knobs.set('alpha', async (b) => {
    if (typeof b.name !== 'string' || !/^[A-Za-z0-9._-]{1,64}$/.test(b.name)) {
      throw P.bad('InvalidRequest', 'name must be 1-64 of A-Za-z0-9._-')
    }
    if (b.clear) {
      alphas.delete(b.name)
      return { name: b.name, cleared: true }
    }
    const unknown = Array.isArray(b.unknown) ? b.unknown.filter((n) => typeof n === 'string') : []
    if (b.spacesAlpha !== undefined && b.spacesAlpha !== null && typeof b.spacesAlpha !== 'string') {
      throw P.bad('InvalidRequest', 'spacesAlpha must be a string or null')
    }
    if (b.shape !== undefined && b.shape !== null && b.shape !== 'writers') {
      throw P.bad('InvalidRequest', 'shape must be "writers" or null')
    }
    alphas.set(b.name, {
      spacesAlpha: b.spacesAlpha ?? null,
      unknown: new Set(unknown),
      shape: b.shape ?? null,
    })
    return { name: b.name, path: `/_test/alpha/${b.name}`, spacesAlpha: b.spacesAlpha ?? null, unknown, shape: b.shape ?? null }
  })

  function knobAuth(req) {
    const m = /^Basic\s+(\S+)$/i.exec(req.headers.authorization || '')
    const want = Buffer.from(`admin:${adminPassword}`)
    const got = m ? Buffer.from(m[1], 'base64') : Buffer.alloc(0)
    if (got.length !== want.length || !crypto.timingSafeEqual(got, want)) {
      throw P.unauthorized('AuthRequired', 'admin basic auth required')
    }
  }

  // ---- HTTP -------------------------------------------------------------------------------
  // The JSON body, at most `limit` bytes after decoding (gzip, deflate, br), as the PDS counts.
  function readBody(req, limit = P.MAX_BODY) {
    return new Promise((resolve, reject) => {
      const encoding = (req.headers['content-encoding'] || 'identity').trim().toLowerCase()
      const decoders = {
        gzip: zlib.createGunzip,
        deflate: zlib.createInflate,
        br: zlib.createBrotliDecompress,
      }
      let stream = req
      if (encoding !== 'identity') {
        if (!decoders[encoding])
          return reject(P.bad('InvalidRequest', `unsupported content-encoding: ${encoding}`))
        stream = req.pipe(decoders[encoding]())
      }
      const chunks = []
      let size = 0
      let over = false
      stream.on('data', (c) => {
        size += c.length
        if (size > limit) over = true
        else if (!over) chunks.push(c)
      })
      stream.on('end', () => {
        if (over) {
          return reject(new P.HostError(413, 'PayloadTooLargeError', 'request entity too large'))
        }
        const text = Buffer.concat(chunks).toString('utf8')
        if (!text) return resolve({})
        try {
          const v = JSON.parse(text)
          if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error()
          resolve(v)
        } catch {
          reject(P.bad('InvalidRequest', 'body must be a JSON object'))
        }
      })
      stream.on('error', () => reject(P.bad('InvalidRequest', 'unreadable request body')))
    })
  }

  // JSON out, with raw record values (rawWrite) spliced in byte for byte.
  const KNOB_MAX_BODY = 64 * 1024 * 1024
  function sendJson(res, out) {
    let body = Buffer.from(JSON.stringify(out))
    if (rawValues.size && body.includes('"__space_raw_')) {
      const parts = []
      const text = body.toString('latin1')
      const re = /"(__space_raw_[0-9a-f]{24}__)"/g
      let last = 0
      for (let m = re.exec(text); m; m = re.exec(text)) {
        const raw = rawValues.get(m[1])
        if (!raw) continue
        parts.push(body.subarray(last, m.index), raw)
        last = m.index + m[0].length
      }
      parts.push(body.subarray(last))
      body = Buffer.concat(parts)
    }
    res.status(200).type('application/json').send(body)
  }

  function sendError(res, err) {
    const he = toHostError(err)
    if (!he) {
      process.stderr.write(`space host: ${err && err.stack ? err.stack : err}\n`)
      return res
        .status(500)
        .json({ error: 'InternalServerError', message: 'Internal Server Error' })
    }
    res.spaceError = he.error
    res.status(he.status).json({ error: he.error, message: he.message })
  }

  // One JSON line per space request in the server's log (no headers, no bodies).
  function logRequest(req, res) {
    const t0 = process.hrtime.bigint()
    res.on('finish', () => {
      const line = {
        name: 'space-host',
        time: Date.now(),
        method: req.method,
        nsid: req.params.nsid || req.params.knob,
        status: res.statusCode,
        ms: Number((process.hrtime.bigint() - t0) / 1000n) / 1000,
      }
      if (res.statusCode >= 400 && res.spaceError) line.error = res.spaceError
      process.stderr.write(JSON.stringify(line) + '\n')
    })
  }

  const router = express.Router()
  // One space method; alpha: a virtual host's settings (the alpha knob), or undefined.
  async function serve(req, res, m, alpha) {
    logRequest(req, res)
    try {
      if (req.method !== m.verb) throw P.bad('InvalidRequest', 'Incorrect HTTP method')
      const body = m.verb === 'POST' ? await readBody(req) : {}
      const params = {}
      for (const [k, v] of Object.entries(req.query)) params[k] = Array.isArray(v) ? v[0] : v
      countRequest(params.space ?? body.space, req.params.nsid)
      let out = await m.fn({ req, res, params, body })
      if (alpha && alpha.shape === 'writers' && req.params.nsid === 'com.atproto.space.listRepos') {
        const { repos, ...rest } = out
        out = { ...rest, writers: repos }
      }
      if (out && out.car) {
        res.status(200).type('application/vnd.ipld.car').send(out.car)
      } else if (out && out.blob) {
        res.status(200).type('application/octet-stream').send(out.blob)
      } else {
        sendJson(res, out)
      }
    } catch (err) {
      sendError(res, err)
    }
  }
  router.all('/xrpc/:nsid', async (req, res, next) => {
    const m = methods.get(req.params.nsid)
    if (!m) return next()
    await serve(req, res, m)
  })
  router.all('/_test/alpha/:name/xrpc/:nsid', async (req, res, next) => {
    const alpha = alphas.get(req.params.name)
    if (!alpha) return next()
    if (req.params.nsid === 'com.atproto.server.describeServer') {
      logRequest(req, res)
      const out = { did: `did:web:${req.hostname}`, availableUserDomains: [] }
      if (alpha.spacesAlpha !== null) out.spacesAlpha = alpha.spacesAlpha
      return sendJson(res, out)
    }
    const m = methods.get(req.params.nsid)
    if (!m || alpha.unknown.has(req.params.nsid)) {
      logRequest(req, res)
      res.spaceError = 'MethodNotImplemented'
      return res.status(501).json({ error: 'MethodNotImplemented', message: 'Method Not Implemented' })
    }
    await serve(req, res, m, alpha)
  })
  router.all('/_test/space/:knob', async (req, res, next) => {
    const k = knobs.get(req.params.knob)
    if (!k) return next()
    logRequest(req, res)
    try {
      knobAuth(req)
      if (req.method !== 'POST') throw P.bad('InvalidRequest', 'knobs are POST')
      sendJson(res, await k(await readBody(req, KNOB_MAX_BODY)))
    } catch (err) {
      sendError(res, err)
    }
  })

  return { router, version: P.VERSION }
}

module.exports = { createSpaceHost, PROTOCOL: P.VERSION }
