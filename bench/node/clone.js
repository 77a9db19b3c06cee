// The baseline for bench/clone.sh: what a user would write instead of `skillsync clone`, with
// @atproto/api. Lists every member's garden.engram.skill records (all members at once, 100 a
// page), keeps one version per skill (mine, else the authority's, else the newest by
// updatedAt), writes <dir>/<name>/SKILL.md and the files, then git init, add and commit.
// Usage: node clone.js <pds url> <dir> <authority did> [<member did>...]   ($ME: my DID)
'use strict'
const { AtpAgent } = require('@atproto/api')
const fs = require('node:fs/promises')
const path = require('node:path')
const { execFileSync } = require('node:child_process')

const [service, dir, ...dids] = process.argv.slice(2)
const authority = dids[0]
const me = process.env.ME || ''
const agent = new AtpAgent({ service })

async function list(did) {
  const out = []
  let cursor
  do {
    const res = await agent.com.atproto.repo.listRecords({
      repo: did, collection: 'garden.engram.skill', limit: 100, cursor,
    })
    for (const r of res.data.records) out.push({ did, value: r.value })
    cursor = res.data.records.length ? res.data.cursor : undefined
  } while (cursor)
  return out
}

const rank = (v) => (v.did === me ? 0 : v.did === authority ? 1 : 2)
const better = (a, b) =>
  rank(a) !== rank(b) ? rank(a) < rank(b) : (a.value.updatedAt || '') > (b.value.updatedAt || '')
const safe = (p) => p.split('/').every((s) => s && s !== '.' && s !== '..')

async function main() {
  const view = new Map()
  for (const versions of await Promise.all(dids.map(list)))
    for (const v of versions) {
      const name = v.value.name
      if (typeof name !== 'string' || !/^[a-z0-9][a-z0-9-]*$/.test(name)) continue
      const seen = view.get(name)
      if (!seen || better(v, seen)) view.set(name, v)
    }
  await fs.mkdir(dir)
  for (const [name, { value }] of view) {
    const root = path.join(dir, name)
    await fs.mkdir(root)
    const front = `---\nname: ${name}\ndescription: ${JSON.stringify(value.description || '')}\n---\n\n`
    await fs.writeFile(path.join(root, 'SKILL.md'), front + (value.instructions || ''))
    for (const f of value.files || []) {
      if (typeof f.path !== 'string' || !safe(f.path)) continue
      const file = path.join(root, f.path)
      await fs.mkdir(path.dirname(file), { recursive: true })
      await fs.writeFile(file, f.content || '', { mode: f.executable ? 0o755 : 0o644 })
    }
  }
  const git = (...args) => execFileSync('git', args, { cwd: dir, stdio: 'ignore' })
  git('init', '-q')
  git('add', '-A')
  git('-c', 'user.name=bench', '-c', 'user.email=bench@example.invalid', 'commit', '-q', '-m', 'clone')
}

main().catch((e) => {
  console.error(e.message || e)
  process.exit(1)
})
