// Realms through clients that connect per call, as a person or a script uses
// them from a shell: mcporter (`mcporter call`) and the MCP Inspector's CLI,
// each call a process of its own running the stdio bridge (`editgate mcp`).
// A realm opened by one call is used, interrupted and closed by the next ones.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { serve, workspace } from './harness.mjs';

const run = promisify(execFile);
const editgate = process.env.EDITGATE;
const bin = path.join(process.env.MCP_NPM, 'per-call', 'node_modules', '.bin');

let root; let gw; let config;
before(async () => {
  root = workspace({ 'a.txt': 'a\n' });
  gw = await serve(editgate, root, []);
  // mcporter reads its servers from a config file: the stdio bridge of this workspace.
  config = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'editgate-mcporter-')), 'mcporter.json');
  fs.writeFileSync(config, JSON.stringify({
    mcpServers: { editgate: { command: editgate, args: ['mcp', '--root', root], env: { XDG_STATE_HOME: process.env.XDG_STATE_HOME } } },
  }));
});
after(async () => { await gw?.stop(); });

// One `mcporter call`, its printed JSON.
async function mcporter(tool, ...args) {
  const { stdout } = await run(path.join(bin, 'mcporter'), ['--config', config, 'call', `editgate.${tool}`, ...args],
    { timeout: 60000 });
  return JSON.parse(stdout);
}

// One Inspector CLI call, its result's structured content.
async function inspector(tool, args = {}) {
  const flags = Object.entries(args).flatMap(([k, v]) => ['--tool-arg', `${k}=${v}`]);
  const { stdout } = await run(path.join(bin, 'mcp-inspector'),
    ['--cli', editgate, 'mcp', '--root', root, '--method', 'tools/call', '--tool-name', tool, ...flags],
    { timeout: 60000 });
  return JSON.parse(stdout).structuredContent;
}

test('mcporter: a realm opened by one call is used by the next and closed by a third', { timeout: 120000 }, async () => {
  const opened = await mcporter('realm_open');
  const realm = opened.value;
  assert.match(realm, /^[0-9a-f]{12}$/);
  assert.equal((await mcporter('page_eval', 'code=globalThis.n = 41; n + 1', `session=${realm}`)).value, 42);
  const again = await mcporter('page_eval', 'code=n', `session=${realm}`);
  assert.equal(again.value, 41, 'the realm kept its globals between two processes');
  assert.equal(again.page, opened.page);
  assert.equal((await mcporter('realm_close', `session=${realm}`)).value, 'ok');
  const gone = await mcporter('page_eval', 'code=1', `session=${realm}`);
  assert.equal(gone.error, 'not_found');
});

test('the Inspector CLI: an eval of one call is interrupted by another, then the realm is closed', { timeout: 120000 }, async () => {
  const realm = (await inspector('realm_open')).value;
  const spinning = inspector('page_eval', { code: 'while (true) {}', session: realm });
  // The interrupt is a call of its own, as a second shell's would be.
  let answer;
  for (let i = 0; i < 40; ++i) {
    answer = await inspector('page_interrupt', { session: realm });
    if (answer.result === 'interrupted') break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  assert.equal(answer.result, 'interrupted');
  const ended = await spinning;
  assert.equal(ended.interrupted, true);
  assert.deepEqual(ended.status, ['interrupted']);
  assert.equal((await inspector('realm_close', { session: realm })).value, 'ok');
});
