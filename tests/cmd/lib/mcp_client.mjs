// tests/cmd/lib/mcp_client.mjs: an agent's side of `skillsync mcp`, driven through the official
// MCP SDK's client (@modelcontextprotocol/sdk, pinned in tests/pds/package.json), for
// tests/cmd/mcp.sh. One scenario a run; every check throws (exit 1) with what it saw.
//     node mcp_client.mjs <node_modules> <scenario>
// Environment: SKILLSYNC (the binary), CLONE (the clone served), and per scenario:
//   serve:  SKILLS (the names skills/list must give, comma-separated), PROMPTS (likewise),
//           SECRET (text of an uncommitted edit that must never be served)
//   notify: CHANGED (a skill the pull brings in), HELD (a file URI the pull holds back)
//   update: NAME (the skill to update)
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';

const [modules, scenario] = process.argv.slice(2);
const sdk = (p) => import(pathToFileURL(`${modules}/@modelcontextprotocol/sdk/dist/esm/${p}`).href);
const { Client } = await sdk('client/index.js');
const { StdioClientTransport } = await sdk('client/stdio.js');
const types = await sdk('types.js');

const clone = process.env.CLONE;
const git = (...args) => execFileSync('git', ['-C', clone, ...args]);
const sha256 = (bytes) => 'sha256:' + createHash('sha256').update(bytes).digest('hex');
const mainFile = (name, path) => git('show', `main:${name}/${path}`);

async function connect() {
  const transport = new StdioClientTransport({
    command: process.env.SKILLSYNC,
    args: ['mcp', '-C', clone],
    env: { ...process.env },
    stderr: 'inherit',
  });
  const client = new Client({ name: 'skillsync-test', version: '1.0.0' }, { capabilities: {} });
  await client.connect(transport);
  return client;
}

const call = (client, method, params = {}) => client.request({ method, params }, types.ResultSchema);

async function refused(promise, code, what) {
  await assert.rejects(promise, (e) => e.code === code, what);
}

async function allSkills(client) {
  let out = [], cursor;
  do {
    const page = await call(client, 'skills/list', cursor ? { cursor } : {});
    out = out.concat(page.skills);
    cursor = page.nextCursor;
  } while (cursor);
  return out;
}

// Each entry's digests are those of main's files, every file listed, and reads give the bytes.
async function checkEntry(client, entry) {
  const name = entry.frontmatter.name;
  assert.equal(entry.uri, `skill://${name}/SKILL.md`);
  const files = git('ls-tree', '-r', '--name-only', `main:${name}`).toString().trim().split('\n');
  assert.deepEqual(entry.resources.map((r) => r.uri).sort(), files.map((f) => `skill://${name}/${f}`).sort());
  for (const r of entry.resources) {
    const path = r.uri.slice(`skill://${name}/`.length);
    const bytes = mainFile(name, path);
    assert.equal(r.digest, sha256(bytes), `digest of ${r.uri}`);
    const read = await client.readResource({ uri: r.uri });
    const c = read.contents[0];
    const got = c.text !== undefined ? Buffer.from(c.text, 'utf8') : Buffer.from(c.blob, 'base64');
    assert.ok(got.equals(bytes), `resources/read of ${r.uri} gave other bytes`);
  }
}

const scenarios = {
  async serve() {
    const client = await connect();
    const caps = client.getServerCapabilities();
    assert.deepEqual(caps.extensions['io.modelcontextprotocol/skills'], { directoryRead: true });
    assert.equal(caps.resources.subscribe, true);

    const skills = await allSkills(client);
    assert.deepEqual(skills.map((s) => s.frontmatter.name), process.env.SKILLS.split(','));
    for (const s of skills) await checkEntry(client, s);
    const first = skills[0];
    assert.deepEqual((await call(client, 'skills/get', { uri: first.uri })).skill, first);
    await refused(call(client, 'skills/get', { uri: 'skill://nope/SKILL.md' }), -32602, 'unknown skill');
    await refused(call(client, 'skills/get', { uri: `skill://${first.frontmatter.name}/x.md` }), -32602, 'not a SKILL.md');

    // the directory reads of the SEP
    const root = await call(client, 'resources/directory/read', { uri: 'skill://tool' });
    assert.deepEqual(root.resources.map((r) => [r.name, r.mimeType]),
      [['SKILL.md', 'text/markdown'], ['scripts', 'inode/directory']]);
    const sub = await call(client, 'resources/directory/read', { uri: 'skill://tool/scripts' });
    assert.deepEqual(sub.resources.map((r) => r.uri), ['skill://tool/scripts/run.sh']);
    await refused(call(client, 'resources/directory/read', { uri: 'skill://tool/SKILL.md' }), -32602, 'a file is no directory');

    // resources/list covers every file
    const listed = (await client.listResources()).resources.map((r) => r.uri);
    for (const s of skills) for (const r of s.resources) assert.ok(listed.includes(r.uri), r.uri);

    // a skill loaded only by name is a prompt, not a listed skill, and still readable
    const prompts = (await client.listPrompts()).prompts.map((p) => p.name);
    assert.deepEqual(prompts, process.env.PROMPTS.split(','));
    const p = await client.getPrompt({ name: prompts[0] });
    assert.ok(mainFile(prompts[0], 'SKILL.md').equals(Buffer.from(p.messages[0].content.resource.text)));
    await client.readResource({ uri: `skill://${prompts[0]}/SKILL.md` });

    // the working tree's uncommitted edit is never served
    for (const s of skills) {
      const read = await client.readResource({ uri: s.uri });
      assert.ok(!read.contents[0].text.includes(process.env.SECRET), `uncommitted text served in ${s.uri}`);
    }

    // URIs that try to leave their skill
    for (const uri of ['skill://tool/../plain/SKILL.md', 'skill://tool/%2e%2e/plain/SKILL.md',
      'skill://tool/scripts/%2E%2E/SKILL.md', 'skill://..%2f..%2fetc/passwd', 'skill://tool/.git/config',
      'skill://tool/link', 'skill://tool//SKILL.md', 'skill://tool/SKILL.md%00', 'file:///etc/passwd',
      'skill://tool/scripts', 'skill://tool/SKILL.md?x=1', 'skill://linked/out',
      'skill://linked/SKILL.md']) {
      await refused(client.readResource({ uri }), -32602, uri);
    }
    await client.close();
  },

  async notify() {
    const client = await connect();
    const changed = `skill://${process.env.CHANGED}/SKILL.md`;
    const held = process.env.HELD;
    const before = await allSkills(client);
    const updated = [];
    let listChanged = 0;
    client.setNotificationHandler(types.ResourceUpdatedNotificationSchema, (n) => updated.push(n.params.uri));
    client.setNotificationHandler(types.ResourceListChangedNotificationSchema, () => listChanged++);
    await client.subscribeResource({ uri: changed });
    await client.subscribeResource({ uri: held });
    execFileSync(process.env.SKILLSYNC, ['pull', '--quiet'], { cwd: clone, stdio: 'ignore' });
    for (let i = 0; i < 100 && !(listChanged && updated.length); i++) await new Promise((r) => setTimeout(r, 100));
    assert.ok(listChanged > 0, 'no notifications/resources/list_changed after the pull');
    assert.deepEqual(updated, [changed], 'resources/updated');
    const after = await allSkills(client);
    const digest = (list, uri) => list.flatMap((s) => s.resources).find((r) => r.uri === uri)?.digest;
    assert.notEqual(digest(after, changed), digest(before, changed));
    assert.equal(digest(after, held), digest(before, held), 'the held version was served');
    const [name, ...rest] = held.slice('skill://'.length).split('/');
    assert.equal(digest(after, held), sha256(mainFile(name, rest.join('/'))));
    await client.close();
  },

  async update() {
    const client = await connect();
    const name = process.env.NAME;
    const tools = (await client.listTools()).tools;
    assert.deepEqual(tools.map((t) => t.name), ['update_skill']);
    const head = () => git('rev-parse', 'main').toString().trim();
    const start = head();
    const bad = async (args, why) => {
      const r = await client.callTool({ name: 'update_skill', arguments: args });
      assert.equal(r.isError, true, `${why}: ${JSON.stringify(r)}`);
      assert.equal(r.content.length, 1);
      assert.ok(!r.content[0].text.includes('\n'), 'one line');
      assert.equal(head(), start, `${why} moved main`);
      return r.content[0].text;
    };
    await bad({ name: 'Bad Name', files: [], note: 'x' }, 'a bad name');
    await bad({ name, files: [{ path: '../escape.md', content: 'x' }], note: 'x' }, 'a path with ..');
    await bad({ name, files: [{ path: 'SKILL.md', content: 'no frontmatter\n' }], note: 'x' }, 'a bad SKILL.md');
    await bad({ name, files: [], note: '  ' }, 'no note');
    await bad({ name, files: [], remove: ['SKILL.md'], note: 'x' }, 'removing SKILL.md');
    await bad({ name, files: [{ path: 'SKILL.md',
      content: `---\nname: ${name}\ndescription: ${'d'.repeat(1100)}\n---\nBody.\n` }], note: 'x' },
      'over a limit');

    const old = mainFile(name, 'SKILL.md').toString();
    const content = old + '\nStep 4: check the totals before sending.\n';
    const note = 'Check the totals before sending\n\nThe form was sent twice with wrong totals.';
    const r = await client.callTool({ name: 'update_skill', arguments: {
      name, note, files: [{ path: 'SKILL.md', content }, { path: 'references/totals.md', content: '# Totals\n' }] } });
    assert.ok(!r.isError, JSON.stringify(r));
    assert.equal(r.structuredContent.commit, head());
    assert.equal(git('log', '-1', '--format=%B', 'main').toString().trim(), note);
    assert.equal(mainFile(name, 'SKILL.md').toString(), content);
    const entry = (await call(client, 'skills/get', { uri: `skill://${name}/SKILL.md` })).skill;
    assert.ok(entry.resources.some((x) => x.uri === `skill://${name}/references/totals.md`));

    const made = await client.callTool({ name: 'update_skill', arguments: { name: 'learned', note: 'Add learned',
      files: [{ path: 'SKILL.md', content: '---\nname: learned\ndescription: What the agent learned.\n---\nBody.\n' }] } });
    assert.ok(!made.isError, JSON.stringify(made));
    const removed = await client.callTool({ name: 'update_skill', arguments: { name, note: 'Drop the totals page',
      files: [], remove: ['references/totals.md'] } });
    assert.ok(!removed.isError, JSON.stringify(removed));
    await client.close();
    console.log(JSON.stringify({ commit: head() }));
  },
};

await scenarios[scenario]();
