// A client over Streamable HTTP without the token, or with a wrong one, as
// clients nobody here wrote show it: the MCP Inspector's CLI (it sends no
// headers and starts no OAuth) and mcporter (it starts OAuth on any 401) both
// print editgate's words naming the cookie file, and mcporter never asks for
// `mcporter auth`; the official SDK still connects with the right token.
// Run: EDITGATE=<binary> MCP_NPM=<build>/npm-mcp node --test tests/mcp/token_door.test.mjs
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { places, serve, workspace } from './harness.mjs';

const editgate = process.env.EDITGATE;
const bin = path.join(process.env.MCP_NPM, 'per-call', 'node_modules', '.bin');
const requireClient = createRequire(path.join(process.env.MCP_NPM, 'clients', 'package.json'));

let root; let gw; let cookieFile; let home;
before(async () => {
  root = workspace({ 'a.txt': 'a\n' });
  gw = await serve(editgate, root, []);
  cookieFile = places(editgate, root).cookie;
  // mcporter keeps OAuth state under HOME: a fresh one, as on a new machine.
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'editgate-token-door-'));
});
after(async () => { await gw?.stop(); });

// A client's run that must fail: its stdout and stderr together.
function failing(file, args) {
  return new Promise((resolve) => {
    execFile(file, args, { timeout: 60000, env: { ...process.env, HOME: home } }, (error, stdout, stderr) => {
      assert.ok(error, `the call succeeded: ${stdout}`);
      resolve(`${stdout}\n${stderr}`);
    });
  });
}

async function mcporter(headers) {
  const config = path.join(home, `mcporter-${Object.keys(headers).length}.json`);
  fs.writeFileSync(config, JSON.stringify({ mcpServers: { editgate: { baseUrl: gw.url, headers } } }));
  return failing(path.join(bin, 'mcporter'), ['--config', config, 'call', 'editgate.history']);
}

test('the 401 challenges for a Bearer token and announces no OAuth', async () => {
  const none = await fetch(gw.url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
  assert.equal(none.status, 401);
  assert.equal(none.headers.get('www-authenticate'), 'Bearer realm="editgate"');
  const body = await none.json();
  assert.equal(body.error, 'unauthorized');
  assert.ok(body.message.includes(cookieFile), body.message);
  const wrong = await fetch(gw.url, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: 'Bearer nope' }, body: '{}' });
  assert.equal(wrong.headers.get('www-authenticate'), 'Bearer realm="editgate", error="invalid_token"');
  assert.match((await wrong.json()).message, /^wrong token: /);
  const probe = await fetch(new URL('/.well-known/oauth-protected-resource/mcp', gw.url));
  assert.equal(probe.status, 404);
  assert.match((await probe.json()).message, /^editgate uses no OAuth: /);
  const register = await fetch(new URL('/register', gw.url), { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
  assert.equal(register.status, 400);
  const refused = await register.json();
  assert.equal(refused.error, 'access_denied');
  assert.ok(refused.error_description.includes(cookieFile));
});

test('the Inspector CLI without a token prints where the token is', { timeout: 90000 }, async () => {
  // Its CLI (0.15.0) sends no headers: no token is the one case it has.
  const out = await failing(path.join(bin, 'mcp-inspector'), ['--cli', gw.url, '--transport', 'http', '--method', 'tools/list']);
  assert.ok(out.includes(cookieFile), out);
  assert.ok(out.includes('editgate mcp'), out);
});

for (const [name, headers] of [['no token', {}], ['a wrong token', { Authorization: 'Bearer wrong' }]]) {
  test(`mcporter with ${name} prints where the token is, not 'mcporter auth'`, { timeout: 120000 }, async () => {
    const out = await mcporter(headers);
    assert.ok(out.includes(`editgate uses no OAuth: send 'Authorization: Bearer <token>', the token being the content of ${cookieFile}`), out);
    assert.ok(!out.includes('mcporter auth'), out);
  });
}

test('the official SDK connects with the right token and is told where it is without', { timeout: 60000 }, async () => {
  const { Client } = requireClient('@modelcontextprotocol/sdk/client/index.js');
  const { StreamableHTTPClientTransport } = requireClient('@modelcontextprotocol/sdk/client/streamableHttp.js');
  const client = new Client({ name: 'token-door-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(gw.url),
    { requestInit: { headers: { Authorization: `Bearer ${gw.cookie}` } } }));
  assert.ok((await client.listTools()).tools.some((t) => t.name === 'history'));
  await client.close();
  const lacking = new Client({ name: 'token-door-test', version: '1.0.0' });
  await assert.rejects(lacking.connect(new StreamableHTTPClientTransport(new URL(gw.url))),
    (e) => e.message.includes(cookieFile));
});

test('a gateway bound beyond loopback names no path of this machine to whoever reaches it', async () => {
  const open = await serve(editgate, workspace({ 'b.txt': 'b\n' }), ['--bind', '0.0.0.0']);
  try {
    const refused = await fetch(open.url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    assert.equal(refused.status, 401);
    const { message } = await refused.json();
    assert.ok(!message.includes(os.homedir()) && !message.includes('/cookie'), message);
    assert.match(message, /^no token: .*the gateway's cookie file \(on its machine, `editgate where` names it/);
  } finally {
    await open.stop();
  }
});
