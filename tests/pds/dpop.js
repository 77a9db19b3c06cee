// Uses an OAuth session that skillsync keeps, the way another program holding its file
// could, for tests/cmd/oauth.sh: what the PDS lets its token do.
//
// Usage: node dpop.js <session file> <dpop|bare> <GET|POST> <xrpc method> [<JSON body>]
//   dpop: "Authorization: DPoP <token>" with a DPoP proof made with the session's key (the
//         nonce the PDS asks for is sent on a second try); bare: "Authorization: Bearer
//         <token>", no proof.
// Prints the HTTP status and the answer's error name (or "ok") on one line.
'use strict'

const crypto = require('node:crypto')
const fs = require('node:fs')

const b64 = (buf) => Buffer.from(buf).toString('base64url')

function readSession(file) {
  const s = {}
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const sp = line.indexOf(' ')
    if (sp > 0 && line[0] !== '#') s[line.slice(0, sp)] = line.slice(sp + 1)
  }
  return s
}

function keyOf(d64) {
  const ecdh = crypto.createECDH('prime256v1')
  ecdh.setPrivateKey(Buffer.from(d64, 'base64url'))
  const pub = ecdh.getPublicKey()
  const jwk = { kty: 'EC', crv: 'P-256', x: b64(pub.subarray(1, 33)), y: b64(pub.subarray(33)) }
  return { jwk, key: crypto.createPrivateKey({ key: { ...jwk, d: d64 }, format: 'jwk' }) }
}

function proof({ jwk, key }, method, url, token, nonce) {
  const header = { alg: 'ES256', typ: 'dpop+jwt', jwk }
  const claims = {
    jti: b64(crypto.randomBytes(16)),
    htm: method,
    htu: url.split('?')[0],
    iat: Math.floor(Date.now() / 1000),
    ath: b64(crypto.createHash('sha256').update(token).digest()),
  }
  if (nonce) claims.nonce = nonce
  const input = `${b64(JSON.stringify(header))}.${b64(JSON.stringify(claims))}`
  const sig = crypto.sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' })
  return `${input}.${b64(sig)}`
}

async function main() {
  const [file, mode, method, nsid, body] = process.argv.slice(2)
  const s = readSession(file)
  const url = `${s.pds}/xrpc/${nsid}`
  const key = keyOf(s.dpop)
  let nonce = null
  let res
  for (let attempt = 0; attempt < 2; attempt++) {
    const headers = { 'content-type': 'application/json' }
    if (mode === 'bare') {
      headers.authorization = `Bearer ${s.access}`
    } else {
      headers.authorization = `DPoP ${s.access}`
      headers.dpop = proof(key, method, url, s.access, nonce)
    }
    res = await fetch(url, { method, headers, body: method === 'POST' ? body : undefined })
    nonce = res.headers.get('dpop-nonce')
    if (mode === 'bare' || !nonce || res.status !== 401) break
    const peek = await res.clone().json().catch(() => ({}))
    if (peek.error !== 'use_dpop_nonce') break
  }
  const data = await res.json().catch(() => ({}))
  console.log(`${res.status} ${res.ok ? 'ok' : data.error}`)
}

main().catch((err) => {
  console.error(`dpop: ${err.message}`)
  process.exit(1)
})
