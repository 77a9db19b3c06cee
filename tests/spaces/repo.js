// The structures a space repo is synced with: the LtHash set hash, the signed commit and the
// CAR of getRepo (docs/SPACE-PROTOCOL.md, section 3).
'use strict'

const crypto = require('node:crypto')
const P = require('./protocol.js')

// deps: { blake3 (from @noble/hashes/blake3), cbor (@atproto/lex-cbor) }
function makeRepoKit({ blake3, cbor }) {
  // --- LtHash: 1024 u16 little-endian lanes; element "<collection>/<rkey>/<cid>" ----------
  const LANES = P.LTHASH_BYTES / 2
  const emptyState = () => new Uint16Array(LANES)
  const elementOf = (collection, rkey, cid) => `${collection}/${rkey}/${cid}`
  function expand(element) {
    const out = blake3(Buffer.from(element, 'utf8'), { dkLen: P.LTHASH_BYTES })
    const lanes = new Uint16Array(LANES)
    for (let i = 0; i < LANES; i++) lanes[i] = out[2 * i] | (out[2 * i + 1] << 8)
    return lanes
  }
  function addElement(state, element) {
    const e = expand(element)
    for (let i = 0; i < LANES; i++) state[i] = (state[i] + e[i]) & 0xffff
  }
  function removeElement(state, element) {
    const e = expand(element)
    for (let i = 0; i < LANES; i++) state[i] = (state[i] - e[i]) & 0xffff
  }
  function stateBytes(state) {
    const b = Buffer.alloc(P.LTHASH_BYTES)
    for (let i = 0; i < LANES; i++) b.writeUInt16LE(state[i], 2 * i)
    return b
  }
  const digest = (state) =>
    new Uint8Array(crypto.createHash('sha256').update(stateBytes(state)).digest())

  // --- signed commit -------------------------------------------------------------------------
  function commitCtx(space, author, rev, ikm) {
    const parts = [Buffer.from(P.COMMIT_CTX_PREFIX)]
    for (const field of [
      Buffer.from(space),
      Buffer.from(author),
      Buffer.from(rev),
      Buffer.from(ikm),
    ]) {
      const len = Buffer.alloc(2)
      len.writeUInt16BE(field.length)
      parts.push(len, field)
    }
    return Buffer.concat(parts)
  }
  // HKDF-Expand only (PRK = ikm), 32 bytes: T(1) = HMAC(PRK, info || 0x01).
  const hkdfExpand32 = (prk, info) =>
    crypto
      .createHmac('sha256', prk)
      .update(Buffer.concat([info, Buffer.from([1])]))
      .digest()
  const commitMac = (ikm, ctx, hash) =>
    new Uint8Array(
      crypto
        .createHmac('sha256', hkdfExpand32(Buffer.from(ikm), ctx))
        .update(hash)
        .digest(),
    )

  // keypair: the author's #atproto key (the PDS's actor store). Fresh ikm every call.
  async function signCommit(keypair, space, author, rev, hash) {
    const ikm = new Uint8Array(crypto.randomBytes(32))
    const ctx = commitCtx(space, author, rev, ikm)
    const sig = await keypair.sign(ctx)
    return { ver: 1, hash, ikm, sig, mac: commitMac(ikm, ctx, hash), rev }
  }

  // --- CAR v1 --------------------------------------------------------------------------------
  function varint(n) {
    const out = []
    while (n >= 0x80) {
      out.push((n & 0x7f) | 0x80)
      n = Math.floor(n / 128)
    }
    out.push(n)
    return Buffer.from(out)
  }
  // blocks: [{cid (lex-data Cid), bytes}]
  function car(roots, blocks) {
    const header = cbor.encode({ version: 1, roots })
    const parts = [varint(header.length), Buffer.from(header)]
    for (const b of blocks) {
      parts.push(
        varint(b.cid.bytes.length + b.bytes.length),
        Buffer.from(b.cid.bytes),
        Buffer.from(b.bytes),
      )
    }
    return Buffer.concat(parts)
  }
  async function block(value) {
    return { cid: await cbor.cidForLex(value), bytes: cbor.encode(value) }
  }

  return {
    emptyState,
    elementOf,
    addElement,
    removeElement,
    stateBytes,
    digest,
    commitCtx,
    commitMac,
    signCommit,
    car,
    block,
  }
}

module.exports = { makeRepoKit }
