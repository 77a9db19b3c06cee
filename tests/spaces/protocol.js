// Every wire detail of the permissioned-spaces protocol the test host follows, in one place:
// the October 2026 alpha (signed HTTP headers, 600 s credentials), as collected in
// docs/SPACE-PROTOCOL.md. The next alpha should change this file only.
'use strict'

const crypto = require('node:crypto')

const VERSION = 'atproto-spaces-alpha-2026-10'

const DELEGATION_TYP = 'atproto-space-delegation+jwt'
const CREDENTIAL_TYP = 'atproto-space-credential+jwt'
const DELEGATION_TTL = 60 // seconds
const CREDENTIAL_TTL = 600 // seconds (the October alpha; 7200 before)
const CLOCK_SKEW = 5 // seconds of grace on exp
const SPACE_HOST_FRAGMENT = '#atproto_space_host'
// No source names the service's type (clients match the id); this is the test host's choice.
const SPACE_HOST_SERVICE_TYPE = 'AtprotoSpaceHost'

const SIG_LABEL = 'atproto-space'
const SIG_ALG = 'ecdsa-p256-sha256'
const AUTH_SCHEME_CREDENTIAL = 'Atproto-Space'
const AUDIENCE_HEADER = 'atproto-space-audience'

const COMMIT_CTX_PREFIX = 'atproto-space-v1'
const LTHASH_BYTES = 2048

const MAX_WRITES = 200
const MAX_BODY = 1_000_000

const NS = {
  space: 'com.atproto.space',
  simplespace: 'com.atproto.simplespace',
}
const POLICY = {
  public: 'com.atproto.simplespace.defs#publicPolicy',
  memberList: 'com.atproto.simplespace.defs#memberListPolicy',
  managingApp: 'com.atproto.simplespace.defs#managingAppPolicy',
}
const APP_ACCESS_OPEN = 'com.atproto.simplespace.defs#open'

// --- errors --------------------------------------------------------------------------------

class HostError extends Error {
  constructor(status, error, message) {
    super(message || error)
    this.status = status
    this.error = error
  }
}
const bad = (error, message) => new HostError(400, error, message)
const unauthorized = (error, message) => new HostError(401, error, message)

// --- syntax --------------------------------------------------------------------------------

const DID_RE = /^did:[a-z]+:[a-zA-Z0-9._:%-]*[a-zA-Z0-9._-]$/
const NSID_RE =
  /^[a-zA-Z]([a-zA-Z0-9-]{0,62})?(\.[a-zA-Z0-9]([a-zA-Z0-9-]{0,62})?)+(\.[a-zA-Z]([a-zA-Z0-9]{0,62})?)$/
const RKEY_RE = /^[A-Za-z0-9._:~-]{1,512}$/
const TID_RE = /^[234567abcdefghij][234567abcdefghijklmnopqrstuvwxyz]{12}$/

const isDid = (s) => typeof s === 'string' && s.length <= 2048 && DID_RE.test(s)
const isNsid = (s) => typeof s === 'string' && s.length <= 317 && NSID_RE.test(s)
const isRkey = (s) => typeof s === 'string' && RKEY_RE.test(s) && s !== '.' && s !== '..'
const isTid = (s) => typeof s === 'string' && TID_RE.test(s)

// at://<authority DID>/space/<space type NSID>/<skey>
function parseSpaceUri(uri) {
  if (typeof uri !== 'string' || !uri.startsWith('at://')) return null
  const parts = uri.slice(5).split('/')
  if (parts.length !== 4 || parts[1] !== 'space') return null
  const [authority, , spaceType, skey] = parts
  if (!isDid(authority) || !isNsid(spaceType) || !isRkey(skey)) return null
  return { authority, spaceType, skey }
}
const spaceUri = (authority, spaceType, skey) => `at://${authority}/space/${spaceType}/${skey}`
const recordUri = (space, did, collection, rkey) => `${space}/${did}/${collection}/${rkey}`
const spaceHostAudience = (authority) => `${authority}${SPACE_HOST_FRAGMENT}`

// --- TIDs ----------------------------------------------------------------------------------

const B32 = '234567abcdefghijklmnopqrstuvwxyz'
let lastTidUs = 0n
const clockId = BigInt(crypto.randomInt(1024))
function nextTid() {
  let us = BigInt(Date.now()) * 1000n
  if (us <= lastTidUs) us = lastTidUs + 1n
  lastTidUs = us
  let v = (us << 10n) | clockId
  let s = ''
  for (let i = 0; i < 13; i++) {
    s = B32[Number(v & 31n)] + s
    v >>= 5n
  }
  return s
}

// --- JWTs ----------------------------------------------------------------------------------

const b64url = (buf) => Buffer.from(buf).toString('base64url')
const jsonB64 = (obj) => b64url(Buffer.from(JSON.stringify(obj)))
const randomJti = () => crypto.randomBytes(16).toString('hex')
const now = () => Math.floor(Date.now() / 1000)

// keypair: an @atproto/crypto Keypair (sign() hashes with SHA-256, returns compact r||s).
async function signJwt(keypair, header, payload) {
  const input = `${jsonB64(header)}.${jsonB64(payload)}`
  const sig = await keypair.sign(Buffer.from(input))
  return `${input}.${b64url(sig)}`
}

function decodeJwt(token) {
  if (typeof token !== 'string') return null
  const parts = token.split('.')
  if (parts.length !== 3) return null
  try {
    const header = JSON.parse(Buffer.from(parts[0], 'base64url').toString('utf8'))
    const payload = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'))
    const sig = new Uint8Array(Buffer.from(parts[2], 'base64url'))
    if (!header || typeof header !== 'object' || !payload || typeof payload !== 'object')
      return null
    return { header, payload, sig, signingInput: Buffer.from(`${parts[0]}.${parts[1]}`) }
  } catch {
    return null
  }
}

function delegationClaims(iss, space, authority) {
  const iat = now()
  return {
    header: { typ: DELEGATION_TYP, kid: '#atproto' },
    payload: {
      iss,
      sub: space,
      aud: spaceHostAudience(authority),
      iat,
      exp: iat + DELEGATION_TTL,
      jti: randomJti(),
    },
  }
}

function credentialClaims(authority, space, keyId, ttl) {
  const iat = now()
  return {
    header: { typ: CREDENTIAL_TYP, kid: '#atproto' },
    payload: {
      iss: authority,
      sub: space,
      cnf: { kid: keyId },
      iat,
      exp: iat + ttl,
      jti: randomJti(),
    },
  }
}

const jwtAlgFor = (keypair) => keypair.jwtAlg // ES256K for the PDS's account keys

// What each token type must carry (the reference's SPACE_TOKEN_TYPES).
const TOKEN_SPECS = {
  delegation: { typ: DELEGATION_TYP, requireAud: true, requireCnf: false, singleUse: true },
  credential: { typ: CREDENTIAL_TYP, requireAud: false, requireCnf: true, singleUse: false },
}
const TOKEN_KIDS = ['#atproto', '#atproto_space'] // the DID-document key a token may name

// Structural checks of a space token, in the reference's order; throws 401 with its codes.
function parseSpaceToken(type, token) {
  const spec = TOKEN_SPECS[type]
  const jwt = decodeJwt(token)
  if (!jwt) throw unauthorized('BadJwt', 'malformed token')
  const { header, payload } = jwt
  if (header.typ !== spec.typ)
    throw unauthorized('BadJwtType', `wrong token type: expected "${spec.typ}"`)
  if (typeof header.alg !== 'string' || !header.alg)
    throw unauthorized('BadJwt', 'missing token "alg"')
  if (!payload.iss) throw unauthorized('BadJwtIss', 'missing token "iss"')
  if (!payload.sub) throw unauthorized('BadJwtSub', 'missing token "sub"')
  if (typeof payload.exp !== 'number') throw unauthorized('BadJwt', 'missing token "exp"')
  if (spec.requireAud && !payload.aud) throw unauthorized('BadJwtAudience', 'missing token "aud"')
  if (spec.requireCnf && !(payload.cnf && isDid(payload.cnf.kid)))
    throw unauthorized('BadJwtCnf', 'missing token "cnf.kid"')
  if (spec.singleUse && (typeof payload.jti !== 'string' || !payload.jti)) {
    throw unauthorized('BadJwt', `a ${type} token requires a "jti"`)
  }
  if (now() - CLOCK_SKEW >= payload.exp) throw unauthorized('JwtExpired', 'token expired')
  if (!TOKEN_KIDS.includes(header.kid))
    throw unauthorized('BadJwt', `unsupported space token "kid": ${header.kid}`)
  return jwt
}

// The Authorization header: exactly "<scheme> <token>", scheme case-insensitive.
const AUTH_SCHEMES = ['Basic', 'Bearer', 'DPoP', AUTH_SCHEME_CREDENTIAL]
function parseAuthorization(value) {
  if (!value) return null
  const parts = value.split(' ')
  if (parts.length !== 2) throw bad('InvalidToken', 'Malformed authorization header')
  const scheme = AUTH_SCHEMES.find((s) => s.toUpperCase() === parts[0].toUpperCase())
  if (!scheme) throw bad('InvalidToken', `Unsupported authorization type: ${parts[0]}`)
  return { scheme, token: parts[1] }
}

// --- RFC 8941 structured fields (the subset the signature headers use) ----------------------

class SfParser {
  constructor(s) {
    this.s = s
    this.i = 0
  }
  fail() {
    throw new Error('malformed structured field')
  }
  ows() {
    while (this.s[this.i] === ' ' || this.s[this.i] === '\t') this.i++
  }
  sp() {
    while (this.s[this.i] === ' ') this.i++
  }
  key() {
    const m = /^[a-z*][a-z0-9_\-.*]*/.exec(this.s.slice(this.i))
    if (!m) this.fail()
    this.i += m[0].length
    return m[0]
  }
  params() {
    const out = new Map()
    while (this.s[this.i] === ';') {
      this.i++
      this.sp()
      const k = this.key()
      let v = { type: 'boolean', value: true }
      if (this.s[this.i] === '=') {
        this.i++
        v = this.bare()
      }
      out.set(k, v)
    }
    return out
  }
  bare() {
    const c = this.s[this.i]
    if (c === '"') {
      this.i++
      let v = ''
      for (;;) {
        const ch = this.s[this.i++]
        if (ch === undefined) this.fail()
        if (ch === '\\') {
          const n = this.s[this.i++]
          if (n !== '"' && n !== '\\') this.fail()
          v += n
        } else if (ch === '"') {
          return { type: 'string', value: v }
        } else {
          const code = ch.charCodeAt(0)
          if (code < 0x20 || code > 0x7e) this.fail()
          v += ch
        }
      }
    }
    if (c === ':') {
      const end = this.s.indexOf(':', this.i + 1)
      if (end < 0) this.fail()
      const b64 = this.s.slice(this.i + 1, end)
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64)) this.fail()
      this.i = end + 1
      return { type: 'bytes', value: new Uint8Array(Buffer.from(b64, 'base64')) }
    }
    if (c === '?') {
      const b = this.s[this.i + 1]
      if (b !== '0' && b !== '1') this.fail()
      this.i += 2
      return { type: 'boolean', value: b === '1' }
    }
    const num = /^-?[0-9]{1,15}(\.[0-9]{1,3})?/.exec(this.s.slice(this.i))
    if (num) {
      this.i += num[0].length
      return { type: num[1] ? 'decimal' : 'integer', value: Number(num[0]) }
    }
    const tok = /^[A-Za-z*][A-Za-z0-9!#$%&'*+\-.^_`|~:/]*/.exec(this.s.slice(this.i))
    if (!tok) this.fail()
    this.i += tok[0].length
    return { type: 'token', value: tok[0] }
  }
  itemOrInnerList() {
    if (this.s[this.i] === '(') {
      this.i++
      const items = []
      for (;;) {
        this.sp()
        if (this.s[this.i] === ')') {
          this.i++
          return { inner: items, params: this.params() }
        }
        const v = this.bare()
        items.push({ ...v, params: this.params() })
        const n = this.s[this.i]
        if (n !== ' ' && n !== ')') this.fail()
      }
    }
    const v = this.bare()
    return { ...v, params: this.params() }
  }
  dictionary() {
    const out = new Map()
    this.sp()
    while (this.i < this.s.length) {
      const k = this.key()
      let member
      if (this.s[this.i] === '=') {
        this.i++
        member = this.itemOrInnerList()
      } else {
        member = { type: 'boolean', value: true, params: this.params() }
      }
      out.set(k, member)
      this.ows()
      if (this.i >= this.s.length) break
      if (this.s[this.i] !== ',') this.fail()
      this.i++
      this.ows()
      if (this.i >= this.s.length) this.fail()
    }
    return out
  }
}

const parseDictionary = (s) => new SfParser(s).dictionary()

function serializeBare(v) {
  switch (v.type) {
    case 'string':
      return `"${v.value.replace(/[\\"]/g, (c) => `\\${c}`)}"`
    case 'bytes':
      return `:${Buffer.from(v.value).toString('base64')}:`
    case 'boolean':
      return v.value ? '?1' : '?0'
    default:
      return String(v.value)
  }
}
function serializeParams(params) {
  let out = ''
  for (const [k, v] of params) {
    out += v.type === 'boolean' && v.value === true ? `;${k}` : `;${k}=${serializeBare(v)}`
  }
  return out
}
const serializeInnerList = (m) =>
  `(${m.inner.map((it) => serializeBare(it) + serializeParams(it.params)).join(' ')})${serializeParams(m.params)}`

// --- HTTP message signatures -----------------------------------------------------------------

// The signature base: lines joined by "\n", no trailing newline, header values trimmed.
function signatureBase(authorization, signatureParams, audience) {
  const lines = [`"authorization": ${authorization.trim()}`]
  if (audience !== undefined) lines.push(`"${AUDIENCE_HEADER}": ${audience.trim()}`)
  lines.push(`"@signature-params": ${signatureParams}`)
  return Buffer.from(lines.join('\n'))
}

// Node keeps one value of a duplicated Authorization header and joins other duplicates:
// count the raw headers instead.
function singleHeader(req, name) {
  let value
  let count = 0
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (req.rawHeaders[i].toLowerCase() === name) {
      count++
      value = req.rawHeaders[i + 1]
    }
  }
  return count === 1 ? value : undefined
}

// Verifies the atproto-space signature of a request. keyId undefined: the exchange (covers
// "authorization" only; the key is the keyid parameter). keyId given: a credentialed request
// (covers "authorization" "atproto-space-audience"; keyid optional, must equal keyId).
// Returns { keyId, audience }. Throws HostError 401 BadSpaceSignature.
async function verifySpaceSignature(req, keyId, cryptoMod) {
  const fail = (why) => unauthorized('BadSpaceSignature', why)
  const inputHeader = req.headers['signature-input']
  const sigHeader = req.headers['signature']
  if (typeof inputHeader !== 'string' || typeof sigHeader !== 'string') {
    throw fail('missing or malformed signature headers')
  }
  let input, signature
  try {
    input = parseDictionary(inputHeader).get(SIG_LABEL)
    signature = parseDictionary(sigHeader).get(SIG_LABEL)
  } catch {
    throw fail('malformed signature headers')
  }
  if (
    !input ||
    !input.inner ||
    !signature ||
    signature.inner ||
    signature.type !== 'bytes' ||
    signature.params.size
  ) {
    throw fail('missing or malformed atproto-space signature')
  }
  const want = keyId === undefined ? ['authorization'] : ['authorization', AUDIENCE_HEADER]
  const got = input.inner
  if (
    got.length !== want.length ||
    got.some((it, i) => it.type !== 'string' || it.value !== want[i] || it.params.size !== 0)
  ) {
    throw fail(`signature must cover exactly ${want.map((w) => `"${w}"`).join(' ')}, in order`)
  }
  const alg = input.params.get('alg')
  if (alg && !(alg.type === 'string' && alg.value === SIG_ALG))
    throw fail(`signature algorithm must be ${SIG_ALG}`)
  const kid = input.params.get('keyid')
  if (kid && kid.type !== 'string') throw fail('keyid must be a string')
  const signingKey = keyId ?? (kid && kid.value)
  if (typeof signingKey !== 'string') throw fail('signature key must be a P-256 did:key')
  try {
    if (cryptoMod.parseDidKey(signingKey).jwtAlg !== 'ES256') throw new Error()
  } catch {
    throw fail('signature key must be a P-256 did:key')
  }
  if (keyId !== undefined && kid && kid.value !== keyId)
    throw fail('signature keyid does not match the credential key')
  const authorization = singleHeader(req, 'authorization')
  if (!authorization) throw fail('request requires exactly one "authorization" field')
  let audience
  if (keyId !== undefined) {
    audience = singleHeader(req, AUDIENCE_HEADER)
    if (!audience) throw fail(`request requires exactly one "${AUDIENCE_HEADER}" field`)
  }
  const base = signatureBase(authorization, serializeInnerList(input), audience)
  const bytes = signature.value
  let ok = false
  if (bytes.length === 64) {
    try {
      ok = await cryptoMod.verifySignature(signingKey, base, bytes, { allowMalleableSig: true })
    } catch {
      ok = false
    }
  }
  if (!ok) throw fail('invalid HTTP message signature')
  return { keyId: signingKey, audience: audience && audience.trim() }
}

// A client's headers (the self-test uses them). key: an @atproto/crypto P256Keypair.
async function signedHeaders(key, authorization, audience) {
  const keyId = key.did()
  const params =
    audience === undefined
      ? `("authorization");keyid="${keyId}";alg="${SIG_ALG}"`
      : `("authorization" "${AUDIENCE_HEADER}");keyid="${keyId}";alg="${SIG_ALG}"`
  const sig = await key.sign(signatureBase(authorization, params, audience))
  const h = {
    authorization,
    'signature-input': `${SIG_LABEL}=${params}`,
    signature: `${SIG_LABEL}=:${Buffer.from(sig).toString('base64').replace(/=+$/, '')}:`,
  }
  if (audience !== undefined) h[AUDIENCE_HEADER] = audience
  return h
}

module.exports = {
  VERSION,
  DELEGATION_TYP,
  CREDENTIAL_TYP,
  DELEGATION_TTL,
  CREDENTIAL_TTL,
  CLOCK_SKEW,
  SPACE_HOST_FRAGMENT,
  SPACE_HOST_SERVICE_TYPE,
  SIG_LABEL,
  SIG_ALG,
  AUTH_SCHEME_CREDENTIAL,
  AUDIENCE_HEADER,
  COMMIT_CTX_PREFIX,
  LTHASH_BYTES,
  MAX_WRITES,
  MAX_BODY,
  NS,
  POLICY,
  APP_ACCESS_OPEN,
  HostError,
  bad,
  unauthorized,
  isDid,
  isNsid,
  isRkey,
  isTid,
  parseSpaceUri,
  spaceUri,
  recordUri,
  spaceHostAudience,
  nextTid,
  now,
  signJwt,
  decodeJwt,
  delegationClaims,
  credentialClaims,
  jwtAlgFor,
  parseSpaceToken,
  parseAuthorization,
  parseDictionary,
  serializeInnerList,
  signatureBase,
  singleHeader,
  verifySpaceSignature,
  signedHeaders,
}
