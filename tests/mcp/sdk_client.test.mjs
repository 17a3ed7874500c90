// editgate's MCP server as the official TypeScript SDK sees it: every tool
// called end to end by clients nobody here wrote, installed from npm by
// setup.sh (never by the product):
//   - @modelcontextprotocol/sdk 1.32.2 (2025-11-25: initialize, a session)
//     over Streamable HTTP (POST /mcp, the bearer cookie in requestInit) and
//     over stdio (`editgate mcp` in the workspace);
//   - @modelcontextprotocol/client 2.4.0 pinned to 2026-07-28 (stateless,
//     server/discover) over Streamable HTTP.
// Each suite gets its own git workspace, gateway (with its Node page) and,
// for the HTTP ones, a headless Chromium tab loading /adapter.js.
// Run: EDITGATE=<binary> MCP_NPM=<build>/npm-mcp node --test tests/mcp/sdk_client.test.mjs
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';

import { chromium, git, serve, tab, waitFor, workspace } from './harness.mjs';

const editgate = process.env.EDITGATE;
const npm = process.env.MCP_NPM;
const clientsDir = npm && path.join(npm, 'clients');
const installed = clientsDir && fs.existsSync(path.join(clientsDir, 'node_modules/@modelcontextprotocol/client'));
const requireClient = installed ? createRequire(path.join(clientsDir, 'package.json')) : null;

// The tools of the contract, in tools/list's order.
const TOOLS = ['edit_apply', 'edit_check', 'edit_undo', 'history', 'file_read', 'file_list', 'file_search',
  'page_list', 'page_open', 'page_go', 'page_screenshot', 'page_close', 'page_eval', 'page_events', 'page_interrupt',
  'realm_open', 'realm_close'];
const READ_ONLY = ['edit_check', 'history', 'file_read', 'file_list', 'file_search', 'page_list', 'page_events'];
const REQUIRED = { edit_apply: ['text'], edit_check: ['text'], file_read: ['path'], file_search: ['pattern'],
  page_eval: ['code'], realm_close: ['session'], page_open: ['url'], page_go: ['page', 'to'], page_screenshot: ['page'],
  page_close: ['page'] };

const NOTES = 'alpha\ngamma\n';
const block = (file, from, to) => `${file}\n««« EDIT\n${from}\n═══════ REPL\n${to}\n»»» EDIT END\n`;
// Two blocks: the first applies (beta after alpha), the second's EDIT
// section is nowhere in the file.
const TWO_BLOCKS = `${block('notes.txt', 'alpha', 'alpha\nbeta')}\n${block('notes.txt', 'no such line', 'replaced')}`;

const CALL = { timeout: 30000 };

// Every result's structuredContent is checked against its tool's
// outputSchema (generated from the op's reply shape) with ajv, as the spec
// requires of a server: successes, failures and results kept aside alike.
// `conformed` collects the tools whose results were checked.
function conforming(client, call) {
  const AjvModule = requireClient('ajv');
  const ajv = new (AjvModule.default ?? AjvModule)({ strict: false });
  let validators;
  const conformed = new Set();
  return {
    conformed,
    async call(name, args, options) {
      validators ??= Object.fromEntries((await client.listTools()).tools.map((t) => [t.name, ajv.compile(t.outputSchema)]));
      const result = await call(name, args, options);
      if (result.structuredContent !== undefined) {
        const valid = validators[name](result.structuredContent);
        assert.ok(valid, `${name}: structuredContent does not conform to its outputSchema: ${ajv.errorsText(validators[name].errors)}: ${JSON.stringify(result.structuredContent)}`);
        conformed.add(name);
      }
      return result;
    },
  };
}

// The two SDK generations call tools alike but for callTool's arguments.
function v1Adapter(client) {
  const checked = conforming(client, (name, args = {}, options = {}) =>
    client.callTool({ name, arguments: args }, undefined, { ...CALL, ...options }));
  return { client, call: checked.call, conformed: checked.conformed, list: () => client.listTools() };
}
function v2Adapter(client) {
  const checked = conforming(client, (name, args = {}, options = {}) =>
    client.callTool({ name, arguments: args }, { ...CALL, ...options }));
  return { client, call: checked.call, conformed: checked.conformed, list: () => client.listTools() };
}

// An edit's block results: its progress messages carry the WebSocket's
// block messages, {"block": {...}}; the final reply lists them in `blocks`.
const blocksOf = (sc) => sc.blocks;

const text = (result) => result.content.filter((c) => c.type === 'text').map((c) => c.text).join('\n');

// A call that must succeed: its structuredContent. The text is for the
// model: it reads as text, not as the JSON (docs/decisions/mcp.md).
async function ok(mcp, name, args, options) {
  const result = await mcp.call(name, args, options);
  assert.ok(!result.isError, `${name} failed: ${text(result)}`);
  assert.equal(typeof result.structuredContent, 'object', `${name}: no structuredContent`);
  assert.ok(!text(result).startsWith('{'), `${name}: the text is JSON: ${text(result)}`);
  return result.structuredContent;
}

async function livePage(mcp, kind) {
  return waitFor(`a live ${kind} page in page_list`, async () => {
    const { pages } = await ok(mcp, 'page_list');
    return pages.find((p) => p.kind === kind && p.state !== 'disconnected');
  });
}

// Every tool, end to end, through `connect(gw)` -> adapter. `browser`: a
// headless Chromium tab is opened and evaluated in.
function suite(label, { connect, browser, skip, progressLate }) {
  describe(label, { skip, timeout: 120000 }, () => {
    let root; let gw; let mcp; let browserTab; let nodePage;

    before(async () => {
      root = workspace({ 'notes.txt': NOTES });
      gw = await serve(editgate, root);
      if (browser) browserTab = await tab(gw, 'MCP Tab');
      mcp = await connect(gw);
    });
    after(async () => {
      await mcp?.client.close();
      await browserTab?.close();
      await gw?.stop();
      if (root) fs.rmSync(root, { recursive: true, force: true });
    });

    it('lists the seventeen tools of the contract, in order, with their input schemas', async () => {
      const { tools } = await mcp.list();
      assert.deepEqual(tools.map((t) => t.name), TOOLS, 'every tool, in the contract\'s order');
      // A second close is refused (the session is gone): not idempotent.
      assert.equal(tools.find((t) => t.name === 'realm_close').annotations.idempotentHint, false);
      assert.match(tools.find((t) => t.name === 'page_events').description, /oldest first/);
      for (const t of tools) {
        assert.equal(t.inputSchema.type, 'object', `${t.name}: inputSchema`);
        assert.ok(t.description, `${t.name}: no description`);
        for (const r of REQUIRED[t.name] ?? []) assert.ok(t.inputSchema.required?.includes(r), `${t.name} requires ${r}`);
        assert.equal(t.annotations?.readOnlyHint === true, READ_ONLY.includes(t.name), `${t.name}: readOnlyHint`);
      }
    });

    it('edit_check validates a block and writes nothing', async () => {
      const head = git(root, 'rev-parse', 'HEAD');
      const sc = await ok(mcp, 'edit_check', { text: block('notes.txt', 'gamma', 'GAMMA') });
      assert.deepEqual(blocksOf(sc).map((b) => b.status), ['validated']);
      assert.equal(sc.dry_run, true);
      assert.equal(fs.readFileSync(path.join(root, 'notes.txt'), 'utf8'), NOTES);
      // The pages commit their logs meanwhile (the Node page's connection, at
      // any moment after start): no commit of the checked file is the promise.
      assert.equal(git(root, 'rev-list', `${head.trim()}..HEAD`, '--', 'notes.txt'), '');
    });

    it('edit_apply streams a progress notification per block; the failed block is an error result with its diagnostic', async () => {
      const progress = [];
      const result = await mcp.call('edit_apply', { text: TWO_BLOCKS, agent: 'sdk-agent' },
        { onprogress: (p) => progress.push(p) });
      // The v1 SDK handles a notification a microtask after it reads it and a
      // response at once: over stdio, a notification read in the same chunk as
      // the response is dropped by the client ("unknown token"). The bridge
      // writes every one (e2e.mcp_stdio_gateway reads them), so over stdio
      // the blocks are checked in the result.
      if (!progressLate) assert.equal(progress.length, 2, `one progress per block: ${JSON.stringify(progress)}`);
      const blocks = progressLate ? blocksOf(result.structuredContent) : progress.map((p) => JSON.parse(p.message).block);
      assert.equal(blocks.length, 2, JSON.stringify(blocks));
      assert.equal(blocks[0].status, 'applied');
      assert.equal(blocks[1].status, 'failed');
      assert.equal(blocks[1].reason, 'anchor_not_found');
      if (!progressLate) assert.ok(progress[1].progress > progress[0].progress, 'progress increases');

      assert.equal(result.isError, true, 'a failed block makes the result an error');
      // The model reads the report: each block's status, the diagnostic as plain lines.
      assert.match(text(result), /^notes\.txt:\d+: applied {2}block 1/m);
      assert.match(text(result), /^notes\.txt(:\d+)?: failed \(anchor_not_found\) {2}block 2/m);
      assert.match(text(result), /^ {4}.*no line of the EDIT section/m);
      assert.ok(!/\\[n"]/.test(text(result)), `no JSON escapes: ${text(result)}`);
      assert.deepEqual(blocksOf(result.structuredContent), blocks, 'the result repeats the blocks');
      assert.deepEqual(result.structuredContent.counts, { applied: 1, validated: 0, failed: 1, skipped: 0, not_in_context: 0 });
      // The first block is applied and committed, authored by the agent.
      assert.equal(fs.readFileSync(path.join(root, 'notes.txt'), 'utf8'), 'alpha\nbeta\ngamma\n');
      // (Pages' commits may land after it: the result names the edit's.)
      const { commit } = result.structuredContent;
      git(root, 'merge-base', '--is-ancestor', commit, 'HEAD');
      assert.equal(git(root, 'log', '-1', '--format=%an|%(trailers:key=Editgate-Kind,valueonly)', commit).trim(), 'sdk-agent|edit');
      assert.equal(git(root, 'show', '--format=', commit).match(/^[+-][^+-].*$/gm).join('\n'), '+beta');
    });

    it('page_eval runs code in the built-in Node page', async () => {
      nodePage = await livePage(mcp, 'node');
      const sc = await ok(mcp, 'page_eval', { code: '6*7' });
      assert.equal(sc.value, 42);
      assert.equal(sc.page, nodePage.page);
    });

    it('realm_open, page_eval in the realm, realm_close', async () => {
      const realm = await ok(mcp, 'realm_open');
      assert.equal(typeof realm.value, 'string');
      assert.equal(typeof realm.page, 'string');
      assert.equal((await ok(mcp, 'page_eval', { page: realm.page, code: 'globalThis.inRealm = 21; inRealm * 2' })).value, 42);
      // The realm named by its session, as realm_open returned it.
      const bySession = await ok(mcp, 'page_eval', { session: realm.value, code: 'inRealm' });
      assert.equal(bySession.value, 21);
      assert.equal(bySession.page, realm.page);
      // A realm's globals are its own.
      assert.equal((await ok(mcp, 'page_eval', { code: 'typeof inRealm' })).value, 'undefined');
      await ok(mcp, 'realm_close', { session: realm.value });
      const again = await mcp.call('realm_close', { session: realm.value });
      assert.equal(again.isError, true, 'a second close is refused');
      assert.equal(again.structuredContent.error, 'not_found', text(again));
      const { pages } = await ok(mcp, 'page_list');
      assert.ok(!pages.some((p) => p.page === realm.page && p.state !== 'disconnected'), 'the realm is closed');
      // A closed realm's session is gone: refused, never run in the default page.
      const gone = await mcp.call('page_eval', { session: realm.value, code: '1' });
      assert.equal(gone.isError, true, 'an eval in a closed realm fails');
      assert.equal(gone.structuredContent.error, 'not_found', text(gone));
    });

    it('page_eval in a headless Chromium tab', { skip: !browser && 'no tab in this suite' }, async () => {
      const page = await livePage(mcp, 'browser');
      const sc = await ok(mcp, 'page_eval', { page: page.page, code: 'document.title' });
      assert.equal(sc.value, 'MCP Tab');
    });

    it('a long eval cancelled through the AbortSignal frees the page', async () => {
      const abort = new AbortController();
      const lines = [];
      const pending = mcp.call('page_eval', { code: "console.log('mcp-waiting'); await new Promise(() => {})" }, {
        signal: abort.signal,
        onprogress: (p) => {
          lines.push(p.message);
          // Its output line says the job runs: cancel it now.
          if (String(p.message).includes('mcp-waiting')) abort.abort();
        },
      });
      await assert.rejects(pending, (e) => e.name === 'AbortError' || /abort/i.test(String(e)));
      assert.ok(lines.some((l) => String(l).includes('mcp-waiting')), `the output line came as progress: ${lines}`);
      // The page's queue is free: had the job kept running, this one would wait behind it.
      assert.equal((await ok(mcp, 'page_eval', { code: "'free again'", timeout: 10000 })).value, 'free again');
    });

    it('a busy loop cancelled through the AbortSignal frees the page', async () => {
      const abort = new AbortController();
      const ticks = [];
      const pending = mcp.call('page_eval', { code: 'while (true) {}' }, {
        signal: abort.signal,
        onprogress: (p) => {
          ticks.push(p.message);
          // Synchronous code prints nothing until it ends: the gateway's
          // `executing (Ns)` tick says it runs.
          if (/^executing/.test(String(p.message))) abort.abort();
        },
      });
      await assert.rejects(pending, (e) => e.name === 'AbortError' || /abort/i.test(String(e)));
      assert.match(String(ticks[0]), /^executing \(\d+s\)$/);
      assert.equal((await ok(mcp, 'page_eval', { code: "'loop stopped'", timeout: 10000 })).value, 'loop stopped');
    });

    it('page_interrupt stops a running eval, which ends as an error result', async () => {
      const idle = await mcp.call('page_interrupt', {});
      assert.ok(!idle.isError, `interrupt with nothing running: ${text(idle)}`);
      let started;
      const running = new Promise((resolve) => { started = resolve; });
      const pending = mcp.call('page_eval', { code: "console.log('mcp-spin'); await new Promise(() => {})" }, {
        onprogress: (p) => { if (String(p.message).includes('mcp-spin')) started(); },
      });
      await running;
      const sc = await ok(mcp, 'page_interrupt', {});
      assert.equal(sc.result, 'interrupted');
      const result = await pending;
      assert.equal(result.isError, true);
      assert.match(text(result), /interrupt/);
      assert.equal((await ok(mcp, 'page_eval', { code: '1 + 1' })).value, 2);
    });

    it('page_events pages through the Node page console output, oldest first', async () => {
      await ok(mcp, 'page_eval', { code: "console.log('order-1'); console.log('order-2'); console.log('order-3')" });
      const sc = await ok(mcp, 'page_events', { page: nodePage.page, limit: 50 });
      assert.ok(Array.isArray(sc.events), JSON.stringify(sc));
      assert.ok(sc.events.some((e) => String(e.text).includes('mcp-waiting')), JSON.stringify(sc.events));
      const at = (mark) => sc.events.findIndex((e) => String(e.text).includes(mark));
      assert.ok(at('order-1') >= 0 && at('order-1') < at('order-2') && at('order-2') < at('order-3'),
        `oldest first: ${JSON.stringify(sc.events.map((e) => e.text))}`);
    });

    it('an argument the tool does not take is refused, naming it, as the input schema says', async () => {
      const result = await mcp.call('page_list', { pagez: 'node' });
      assert.equal(result.isError, true, text(result));
      assert.equal(result.structuredContent.error, 'bad_request');
      assert.match(text(result), /^error bad_request: page_list does not take "pagez"/);
    });

    it('history lists the edit on the branch, and the REPL exchanges on their own ref, newest first', async () => {
      const branch = await ok(mcp, 'history', { limit: 100 });
      const edit = branch.commits.find((c) => c.kind === 'edit');
      assert.ok(edit, JSON.stringify(branch.commits));
      assert.equal(edit.agent, 'sdk-agent');
      assert.equal(edit.commit, git(root, 'log', '--format=%H', '--grep=^edit notes.txt', '-1').trim());
      assert.ok(!branch.commits.some((c) => ['exchange', 'request', 'reply'].includes(c.kind)), 'no REPL on the branch');
      // An exchange is a commit of its own when its reply comes alone; one
      // that came while another commit waited is grouped ("repl"), so either
      // holds one (a slow machine groups more).
      let seen = [];
      const commits = await waitFor('the REPL exchanges committed', async () => {
        const sc = await ok(mcp, 'history', { limit: 100, repl: true });
        seen = sc.commits.map((c) => `${c.kind}: ${c.summary}`);
        const holds = (c) => ['exchange', 'reply'].includes(c.kind) || (c.kind === 'repl' && /exchange/.test(c.summary));
        return sc.commits.some(holds) ? sc.commits : null;
      }).catch((e) => { throw new Error(`${e.message}; the REPL ref held: ${JSON.stringify(seen)}`); });
      assert.match(commits[0].trailers['Editgate-Branch'] ?? '', /^[0-9a-f]{40}$/, 'names the branch commit it saw');
      const times = commits.map((c) => Date.parse(c.time));
      assert.ok(times.every((t) => Number.isFinite(t)), JSON.stringify(commits.map((c) => c.time)));
      assert.deepEqual(times, [...times].sort((a, b) => b - a), 'newest first');
    });

    it('edit_undo reverts the edit', async () => {
      const sc = await ok(mcp, 'edit_undo', { agent: 'sdk-agent' });
      assert.deepEqual(sc.paths, ['notes.txt']);
      assert.equal(fs.readFileSync(path.join(root, 'notes.txt'), 'utf8'), NOTES);
      git(root, 'merge-base', '--is-ancestor', sc.commit, 'HEAD');
      assert.equal(git(root, 'log', '-1', '--format=%(trailers:key=Editgate-Kind,valueonly)', sc.commit).trim(), 'undo');
    });

    it('an edit whose model names no agent is authored by the client\'s name (clientInfo)', async () => {
      const sc = await ok(mcp, 'edit_apply', { text: block('notes.txt', 'gamma', 'gamma\ndelta') });
      assert.equal(git(root, 'log', '-1', '--format=%an|%(trailers:key=Editgate-Agent,valueonly)', sc.commit).trim(),
        'editgate-sdk-test|editgate-sdk-test');
      const named = await ok(mcp, 'edit_undo', {});
      assert.equal(git(root, 'log', '-1', '--format=%an', named.commit).trim(), 'editgate-sdk-test');
    });

    it('file_list, file_search and file_read give an edit block its lines; refused paths and binary files are named', async () => {
      fs.mkdirSync(path.join(root, 'src'), { recursive: true });
      fs.writeFileSync(path.join(root, 'src/app.js'), 'const a = 1;\nconst b = 2;\nconst c = 3;\n');
      fs.writeFileSync(path.join(root, 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]));
      const listed = await ok(mcp, 'file_list', {});
      assert.ok(listed.entries.some((e) => e.path === 'src/app.js' && e.kind === 'file'), listed.text);
      assert.ok(!listed.entries.some((e) => e.path.startsWith('.git')), listed.text);
      const found = await ok(mcp, 'file_search', { pattern: 'const b' });
      assert.deepEqual(found.matches, [{ path: 'src/app.js', line: 2, text: 'const b = 2;' }]);
      const read = await ok(mcp, 'file_read', { path: 'src/app.js', offset: 2, limit: 1 });
      assert.equal(read.text, '     2\u2192const b = 2;\n(lines 2-2 of 3; more from offset 3)\n');
      assert.equal(read.next_offset, 3);
      // The line as the model read it, its number stripped (up to the first arrow), is the EDIT section.
      const line = read.text.split('\n')[0];
      const edit = line.slice(line.indexOf('\u2192') + 1);
      await ok(mcp, 'edit_apply', { text: block('src/app.js', edit, 'const b = 20;') });
      const exact = await ok(mcp, 'file_read', { path: 'src/app.js', line_numbers: false });
      assert.equal(exact.text, 'const a = 1;\nconst b = 20;\nconst c = 3;\n');
      for (const [args, code] of [[{ path: '../outside.txt' }, 'path_refused'], [{ path: '.git/config' }, 'path_refused'],
        [{ path: '/etc/passwd' }, 'path_refused'], [{ path: 'logo.png' }, 'binary_file'], [{ path: 'nope.txt' }, 'not_found']]) {
        const refused = await mcp.call('file_read', args);
        assert.equal(refused.isError, true, text(refused));
        assert.equal(refused.structuredContent.error, code, text(refused));
      }
    });

    it('page_open, page_screenshot (an image), page_go and page_close in the gateway\'s own browser', async () => {
      const site = http.createServer((req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/html' });
        res.end('<!doctype html><title>Own</title><p id="p">own</p>');
      });
      await new Promise((resolve) => site.listen(0, '127.0.0.1', resolve));
      try {
        const opened = await ok(mcp, 'page_open', { url: `http://127.0.0.1:${site.address().port}/` });
        assert.equal(opened.title, 'Own');
        assert.equal((await ok(mcp, 'page_eval', { page: opened.page, code: 'document.title' })).value, 'Own');
        const shot = await mcp.call('page_screenshot', { page: opened.page, selector: '#p' });
        assert.ok(!shot.isError, text(shot));
        assert.equal(shot.content.find((c) => c.type === 'image')?.mimeType, 'image/png');
        assert.equal((await ok(mcp, 'page_go', { page: opened.page, to: 'reload' })).page, opened.page);
        assert.equal((await ok(mcp, 'page_close', { page: opened.page })).closed, true);
      } finally {
        site.closeAllConnections();
        await new Promise((resolve) => site.close(resolve));
      }
    });

    it('every tool\'s results conformed to its outputSchema', () => {
      assert.deepEqual([...mcp.conformed].sort(), [...TOOLS].sort());
    });
  });
}

const noClients = !installed && 'the npm clients are not installed (tests/mcp/setup.sh)';
const noChromium = !chromium() && 'chromium is not installed';

function bearer(gw) {
  return { requestInit: { headers: { Authorization: `Bearer ${gw.cookie}` } } };
}

suite('@modelcontextprotocol/sdk 1.32.2 over Streamable HTTP (2025-11-25)', {
  skip: noClients || noChromium,
  browser: true,
  async connect(gw) {
    const { Client } = requireClient('@modelcontextprotocol/sdk/client/index.js');
    const { StreamableHTTPClientTransport } = requireClient('@modelcontextprotocol/sdk/client/streamableHttp.js');
    const client = new Client({ name: 'editgate-sdk-test', version: '1.0.0' }, { capabilities: {} });
    const transport = new StreamableHTTPClientTransport(new URL(gw.url), bearer(gw));
    await client.connect(transport);
    assert.equal(client.getServerVersion()?.name, 'editgate');
    assert.ok(transport.sessionId, 'the 2025-11-25 session id');
    return v1Adapter(client);
  },
});

// A client that connects per call, as `mcporter call` and the MCP Inspector
// CLI do: each call its own connection and MCP session, left open (never
// DELETEd). A realm one call opened is the next ones' to use, interrupt and
// close: it is addressed by its session id.
describe('a realm across per-call clients (sdk 1.32.2, a new MCP session per call)', { skip: noClients, timeout: 120000 }, () => {
  let root; let gw; const clients = [];
  before(async () => {
    root = workspace({ 'notes.txt': NOTES });
    gw = await serve(editgate, root);
  });
  after(async () => {
    for (const c of clients) await c.close();
    await gw?.stop();
    if (root) fs.rmSync(root, { recursive: true, force: true });
  });
  async function once(name, args = {}) {
    const { Client } = requireClient('@modelcontextprotocol/sdk/client/index.js');
    const { StreamableHTTPClientTransport } = requireClient('@modelcontextprotocol/sdk/client/streamableHttp.js');
    const client = new Client({ name: 'per-call', version: '1.0.0' }, { capabilities: {} });
    const transport = new StreamableHTTPClientTransport(new URL(gw.url), bearer(gw));
    await client.connect(transport);
    clients.push(client);
    return client.callTool({ name, arguments: args }, undefined, CALL);
  }
  async function onceOk(name, args) {
    const result = await once(name, args);
    assert.ok(!result.isError, `${name} failed: ${text(result)}`);
    return result.structuredContent;
  }

  it('realm_open, then page_eval, page_interrupt and realm_close each from a client of its own', async () => {
    await waitFor('the Node page', async () => (await onceOk('page_list')).pages.some((p) => p.kind === 'node' && p.state !== 'disconnected'));
    const realm = await onceOk('realm_open');
    assert.equal((await onceOk('page_eval', { session: realm.value, code: 'globalThis.kept = 7; kept' })).value, 7);
    assert.equal((await onceOk('page_eval', { session: realm.value, code: 'kept * 6' })).value, 42);
    // One client's eval spins in the realm; another's interrupt ends it.
    const spinning = once('page_eval', { session: realm.value, code: 'while (true) {}', timeout: 30000 });
    await waitFor('the realm running the eval', async () =>
      (await onceOk('page_list')).pages.find((p) => p.page === realm.page)?.running);
    const stop = await onceOk('page_interrupt', { session: realm.value });
    assert.equal(stop.result, 'interrupted', JSON.stringify(stop));
    const spun = await spinning;
    assert.equal(spun.isError, true, text(spun));
    assert.ok(spun.structuredContent.status.includes('interrupted'), text(spun));
    await onceOk('realm_close', { session: realm.value });
    const { pages } = await onceOk('page_list');
    assert.deepEqual(pages.filter((p) => p.page === realm.page).map((p) => p.state), ['disconnected']);
    const gone = await once('page_eval', { session: realm.value, code: '1' });
    assert.equal(gone.structuredContent.error, 'not_found', text(gone));
  });
});

suite('@modelcontextprotocol/sdk 1.32.2 over stdio: editgate mcp (2025-11-25)', {
  skip: noClients,
  progressLate: true,
  async connect(gw) {
    const { Client } = requireClient('@modelcontextprotocol/sdk/client/index.js');
    const { StdioClientTransport, getDefaultEnvironment } = requireClient('@modelcontextprotocol/sdk/client/stdio.js');
    const client = new Client({ name: 'editgate-sdk-test', version: '1.0.0' }, { capabilities: {} });
    // The SDK passes a child only a few variables (HOME, PATH...): the
    // suite's XDG_STATE_HOME goes too, or the bridge would look for the
    // gateway in another state home.
    const env = { ...getDefaultEnvironment(), XDG_STATE_HOME: process.env.XDG_STATE_HOME };
    await client.connect(new StdioClientTransport({ command: editgate, args: ['mcp'], cwd: gw.root, env, stderr: 'inherit' }));
    return v1Adapter(client);
  },
});

suite('@modelcontextprotocol/client 2.4.0 pinned to 2026-07-28 over Streamable HTTP', {
  skip: noClients || noChromium,
  browser: true,
  async connect(gw) {
    const { Client, StreamableHTTPClientTransport } = requireClient('@modelcontextprotocol/client');
    const client = new Client({ name: 'editgate-sdk-test', version: '2.0.0' },
      { capabilities: {}, versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new StreamableHTTPClientTransport(new URL(gw.url), bearer(gw)));
    assert.equal(client.getProtocolEra(), 'modern');
    return v2Adapter(client);
  },
});
