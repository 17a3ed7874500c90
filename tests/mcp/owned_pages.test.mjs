// Pages the gateway opens in its own headless Chromium, as an MCP client
// with no person present uses them (@modelcontextprotocol/sdk 1.32.2 over
// Streamable HTTP): page_open, page_eval, page_screenshot (an image it
// receives), navigation, page_close; every exchange in the page's one log
// and the REPL's history. Then the isolation of its pages, a crash of its
// browser, and the refusals, each by name.
// Run: EDITGATE=<binary> MCP_NPM=<build>/npm-mcp node --test tests/mcp/owned_pages.test.mjs
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';

import { chromium, git, serve, waitFor, workspace } from './harness.mjs';

const editgate = process.env.EDITGATE;
const npm = process.env.MCP_NPM;
const clientsDir = npm && path.join(npm, 'clients');
const installed = clientsDir && fs.existsSync(path.join(clientsDir, 'node_modules/@modelcontextprotocol/sdk'));
const requireClient = installed ? createRequire(path.join(clientsDir, 'package.json')) : null;
const skip = (!installed && 'the npm clients are not installed (tests/mcp/setup.sh)') ||
  (!chromium() && 'chromium is not installed');

const PAGES = {
  '/': '<!doctype html><title>Owned App</title><h1 id="head">Owned</h1><script>window.appReady = true;</script>',
  '/two.html': '<!doctype html><title>Second</title><p>two</p>',
  // A dialog of its own at load: nobody would close it in a headless browser.
  '/alert.html': '<!doctype html><title>Alerting</title><script>alert("hello from the page")</script>',
};

// The app: a static site on 127.0.0.1 (a loopback origin: pages may connect
// from it without anyone's approval). /csp.html forbids scripts from elsewhere and eval.
async function site() {
  const server = http.createServer((req, res) => {
    const p = new URL(req.url, 'http://x').pathname;
    if (p === '/csp.html') {
      res.writeHead(200, { 'Content-Type': 'text/html', 'Content-Security-Policy': "default-src 'self'" });
      return res.end('<!doctype html><title>Strict</title><p>strict</p>');
    }
    res.writeHead(PAGES[p] ? 200 : 404, { 'Content-Type': 'text/html' });
    res.end(PAGES[p] ?? 'no such page');
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: (p = '/') => `http://127.0.0.1:${server.address().port}${p}`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

async function connect(gw) {
  const { Client } = requireClient('@modelcontextprotocol/sdk/client/index.js');
  const { StreamableHTTPClientTransport } = requireClient('@modelcontextprotocol/sdk/client/streamableHttp.js');
  const client = new Client({ name: 'unattended-agent', version: '1.0.0' }, { capabilities: {} });
  await client.connect(new StreamableHTTPClientTransport(new URL(gw.url),
    { requestInit: { headers: { Authorization: `Bearer ${gw.cookie}` } } }));
  return client;
}

const text = (result) => result.content.filter((c) => c.type === 'text').map((c) => c.text).join('\n');

async function call(client, name, args) {
  return client.callTool({ name, arguments: args }, undefined, { timeout: 60000 });
}
async function ok(client, name, args) {
  const result = await call(client, name, args);
  assert.ok(!result.isError, `${name} failed: ${text(result)}`);
  return result.structuredContent;
}
async function refused(client, name, args, code) {
  const result = await call(client, name, args);
  assert.equal(result.isError, true, `${name} should fail ${code}: ${text(result)}`);
  assert.equal(result.structuredContent.error, code, text(result));
  return text(result);
}

// The processes whose parent is `pid`, as /proc has them: [{pid, comm, cmdline}].
function children(pid) {
  const out = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== pid) continue;
      out.push({ pid: Number(entry), comm: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')),
        cmdline: fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0') });
    } catch { /* gone meanwhile */ }
  }
  return out;
}
const browserOf = (gw) => children(gw.server.pid).find((c) => c.cmdline.includes('--remote-debugging-pipe'));

// The socket inodes of `pid`'s descriptors.
function socketInodes(pid) {
  const inodes = new Set();
  try {
    for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (m) inodes.add(m[1]);
      } catch { /* closed meanwhile */ }
    }
  } catch { /* gone */ }
  return inodes;
}
// The inodes of listening TCP sockets (state 0A), IPv4 and IPv6.
function listeningInodes() {
  const out = new Set();
  for (const f of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of fs.readFileSync(f, 'utf8').split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols[3] === '0A') out.add(cols[9]);
    }
  }
  return out;
}
// The browser and every process under it.
function tree(pid) {
  const all = [pid];
  for (let i = 0; i < all.length; ++i) for (const c of children(all[i])) all.push(c.pid);
  return all;
}

const repl = (root) => git(root, 'for-each-ref', '--format=%(refname)', 'refs/editgate/repl').trim().split('\n')[0];

describe('pages the gateway opens, through MCP with no person present', { skip, timeout: 240000 }, () => {
  let root; let gw; let client; let app;

  before(async () => {
    root = workspace({ 'README.md': 'app\n' });
    app = await site();
    gw = await serve(editgate, root, ['--no-node']);
    client = await connect(gw);
  });
  after(async () => {
    await client?.close();
    await gw?.stop();
    await app?.close();
    if (root) fs.rmSync(root, { recursive: true, force: true });
  });

  it('opens a page, evaluates in it, sees it as an image, navigates it and closes it: one page, one log, every exchange committed', async () => {
    const opened = await ok(client, 'page_open', { url: app.url('/'), agent: 'ci-agent' });
    assert.equal(opened.opened, true);
    assert.equal(opened.owned, true);
    assert.equal(opened.title, 'Owned App');
    const page = opened.page;
    assert.equal(opened.log, `debug/${page}.md`);

    const evaluated = await ok(client, 'page_eval', { page, code: '[document.title, window.appReady]', agent: 'ci-agent' });
    assert.deepEqual(evaluated.value, ['Owned App', true]);

    const shot = await call(client, 'page_screenshot', { page, agent: 'ci-agent' });
    assert.ok(!shot.isError, text(shot));
    const image = shot.content.find((c) => c.type === 'image');
    assert.ok(image, `an image content item: ${JSON.stringify(shot.content.map((c) => c.type))}`);
    assert.equal(image.mimeType, 'image/png');
    const png = Buffer.from(image.data, 'base64');
    assert.equal(png.subarray(1, 4).toString(), 'PNG');
    assert.equal(shot.structuredContent.png, undefined, 'the image is not repeated as text');
    assert.ok(!text(shot).includes(image.data.slice(0, 40)), 'nor in the text');
    const { path: shotPath, width, height, bytes } = shot.structuredContent;
    assert.equal(shotPath, `debug/${page}.screenshots/1.png`);
    assert.ok(width > 100 && height > 100, `${width}x${height}`);
    assert.equal(bytes, png.length);
    assert.deepEqual(fs.readFileSync(path.join(root, shotPath)), png, 'the file beside the log is the image the client got');

    const element = await ok(client, 'page_screenshot', { page, selector: '#head' });
    assert.equal(element.path, `debug/${page}.screenshots/2.png`);
    assert.ok(element.width < width, `an element is narrower than the page: ${element.width}`);

    // Navigation keeps the page: page_open on it, back, reload.
    const moved = await ok(client, 'page_open', { page, url: app.url('/two.html') });
    assert.equal(moved.page, page);
    assert.equal(moved.opened, false);
    assert.equal(moved.title, 'Second');
    assert.equal((await ok(client, 'page_eval', { page, code: 'location.pathname' })).value, '/two.html');
    const back = await ok(client, 'page_go', { page, to: 'back' });
    assert.equal(back.url, app.url('/'));
    await ok(client, 'page_eval', { page, code: 'window.marker = 1' });
    await ok(client, 'page_go', { page, to: 'reload' });
    assert.equal((await ok(client, 'page_eval', { page, code: 'typeof window.marker' })).value, 'undefined', 'a reload is a new document');
    assert.match(await refused(client, 'page_go', { page, to: 'back' }, 'bad_request'), /no earlier page/);

    const closed = await ok(client, 'page_close', { page, agent: 'ci-agent' });
    assert.equal(closed.closed, true);
    await refused(client, 'page_screenshot', { page }, 'not_owned');

    // One log, holding every exchange and both screenshots' links.
    const logs = fs.readdirSync(path.join(root, 'debug')).filter((f) => f.endsWith('.md') && f !== 'debug.md');
    assert.deepEqual(logs, [`${page}.md`], 'one page, one log');
    const log = fs.readFileSync(path.join(root, 'debug', `${page}.md`), 'utf8');
    assert.match(log, /\*\*ci-agent\*\* to .*\n```JS\n\[document\.title, window\.appReady\]\n```/);
    assert.match(log, /\["Owned App",true\]/);
    assert.ok(log.includes(`![screenshot 1](${page}.screenshots/1.png)`), log);
    assert.ok(log.includes(`![screenshot 2](${page}.screenshots/2.png)`), log);
    assert.match(log, /reconnected at .*two\.html/);
    assert.match(log.replace(/\\/g, ''), /_closed by ci-agent \(page_close\) at /);

    // The REPL's history has them all, and the screenshots' files with their notes.
    const ref = await waitFor('the close committed', () => {
      const r = repl(root);
      return r && git(root, 'log', '--format=%B', r).includes('closed by ci-agent') ? r : null;
    });
    const subjects = git(root, 'log', '--format=%B', ref);
    assert.match(subjects, new RegExp(`page ${page} connected`));
    assert.match(subjects, new RegExp(`screenshot 1 of ${page}`));
    assert.match(subjects, /\[document\.title, window\.appReady\]/);
    const files = git(root, 'log', '--name-only', '--format=', ref);
    assert.ok(files.includes(`${page}.screenshots/1.png`), files);
    assert.deepEqual(execFileSync('git', ['show', `${ref}:${page}.screenshots/1.png`], { cwd: root }), png);
  });

  it('a page whose own alert would hold a headless browser, and one whose CSP forbids eval, are pages like any', async () => {
    const alerting = await ok(client, 'page_open', { url: app.url('/alert.html') });
    assert.equal((await ok(client, 'page_eval', { page: alerting.page, code: 'document.title' })).value, 'Alerting');
    const strict = await ok(client, 'page_open', { url: app.url('/csp.html') });
    assert.equal((await ok(client, 'page_eval', { page: strict.page, code: 'await Promise.resolve(6 * 7)' })).value, 42);
    await ok(client, 'page_close', { page: alerting.page });
    await ok(client, 'page_close', { page: strict.page });
  });

  it('keeps each page in a profile of its own, with no debugging port another process could reach', async () => {
    const a = await ok(client, 'page_open', { url: app.url('/'), name: 'first' });
    const b = await ok(client, 'page_open', { url: app.url('/'), name: 'second' });
    assert.match(a.page, /^first-/);
    await ok(client, 'page_eval', { page: a.page, code: 'document.cookie = "who=first; path=/"; localStorage.setItem("k", "first"); 1' });
    assert.equal((await ok(client, 'page_eval', { page: a.page, code: 'document.cookie' })).value, 'who=first');
    const other = await ok(client, 'page_eval', { page: b.page, code: '[document.cookie, localStorage.getItem("k")]' });
    assert.deepEqual(other.value, ['', null], 'the second page sees neither the first one\'s cookie nor its storage');

    const browser = browserOf(gw);
    assert.ok(browser, `the gateway's browser among its children: ${JSON.stringify(children(gw.server.pid))}`);
    assert.ok(!browser.cmdline.some((a) => a.startsWith('--remote-debugging-port')), browser.cmdline.join(' '));
    const profile = browser.cmdline.find((a) => a.startsWith('--user-data-dir=')).slice('--user-data-dir='.length);
    assert.ok(profile.startsWith(os.tmpdir()), profile);
    assert.ok(!profile.startsWith(root), 'not in the workspace');
    assert.equal(fs.statSync(profile).mode & 0o777, 0o700);
    const listening = listeningInodes();
    for (const pid of tree(browser.pid))
      for (const inode of socketInodes(pid)) assert.ok(!listening.has(inode), `process ${pid} of the browser listens on TCP`);

    await ok(client, 'page_close', { page: a.page });
    await ok(client, 'page_close', { page: b.page });
  });

  it('stops a page stuck in synchronous code by loading it again, which a tab cannot do', async () => {
    const { page } = await ok(client, 'page_open', { url: app.url('/'), name: 'stuck' });
    await ok(client, 'page_eval', { page, code: 'window.kept = 1' });
    const pending = call(client, 'page_eval', { page, code: 'while (true) {}' });
    await waitFor('the loop running', async () =>
      (await ok(client, 'page_list', {})).pages.find((p) => p.page === page)?.state === 'executing');
    const sc = await ok(client, 'page_interrupt', { page });
    assert.equal(sc.result, 'interrupted', JSON.stringify(sc));
    assert.match(sc.message, /its script stopped and its document loaded again/);
    assert.equal((await pending).isError, true, 'the loop ends as an error');
    assert.equal((await ok(client, 'page_eval', { page, code: 'typeof window.kept' })).value, 'undefined', 'a new document');
    await ok(client, 'page_close', { page });
  });

  it('a crashed browser is started again and its page reopened, one log', async () => {
    const opened = await ok(client, 'page_open', { url: app.url('/'), name: 'crashing' });
    const page = opened.page;
    await ok(client, 'page_eval', { page, code: 'window.before = true' });
    const browser = browserOf(gw);
    process.kill(browser.pid, 'SIGKILL');
    // Its renderer may answer a moment more; then the page is a new document of a new browser.
    const again = await waitFor('the page back after the crash', async () => {
      const r = await call(client, 'page_eval', { page, code: '[document.title, typeof window.before]', timeout: 5000 });
      return !r.isError && r.structuredContent.value[1] === 'undefined' && r.structuredContent;
    }, { tries: 60, every: 500 });
    assert.deepEqual(again.value, ['Owned App', 'undefined']);
    const next = browserOf(gw);
    assert.ok(next && next.pid !== browser.pid, 'a new browser');
    // (Notes are Markdown: their punctuation comes escaped.)
    const log = fs.readFileSync(path.join(root, 'debug', `${page}.md`), 'utf8').replace(/\\/g, '');
    assert.match(log, /the gateway's browser ended \(killed by signal 9\); the page is reopened at/);
    assert.ok((await ok(client, 'page_screenshot', { page })).bytes > 0, 'and it can be seen');
    await ok(client, 'page_close', { page });
  });

  it('refuses by name: a URL that is no web page, an origin not approved, an unreachable port, a page it did not open', async () => {
    assert.match(await refused(client, 'page_open', { url: 'file:///etc/passwd' }, 'bad_request'), /http:\/\/ or https:\/\//);
    assert.match(await refused(client, 'page_open', { url: 'https://example.invalid/' }, 'origin_pending'), /--allow-origin/);
    const dead = http.createServer();
    await new Promise((resolve) => dead.listen(0, '127.0.0.1', resolve));
    const port = dead.address().port;
    await new Promise((resolve) => dead.close(resolve));
    assert.match(await refused(client, 'page_open', { url: `http://127.0.0.1:${port}/` }, 'navigation_failed'), /ERR_CONNECTION_REFUSED/);
    await refused(client, 'page_screenshot', { page: 'node' }, 'not_owned');
    const opened = await ok(client, 'page_open', { url: app.url('/') });
    await refused(client, 'page_screenshot', { page: opened.page, selector: '#nothing-here' }, 'not_found');
    await refused(client, 'page_screenshot', { page: opened.page, selector: '((' }, 'bad_request');
    await ok(client, 'page_close', { page: opened.page });
    // Nothing of them is left open: a failed open closes its page.
    const { pages } = await ok(client, 'page_list', {});
    assert.ok(!pages.some((p) => p.owned && p.state !== 'disconnected'), JSON.stringify(pages));
  });

  it('ends the browser, its processes and its profile when the gateway stops', async () => {
    await ok(client, 'page_open', { url: app.url('/') });
    const browser = browserOf(gw);
    const profile = browser.cmdline.find((a) => a.startsWith('--user-data-dir=')).slice('--user-data-dir='.length);
    const processes = tree(browser.pid);
    await client.close();
    client = null;
    await gw.stop();
    await waitFor('the browser\'s processes gone', () => processes.every((pid) => !fs.existsSync(`/proc/${pid}/stat`) ||
      fs.readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ')), { tries: 100, every: 100 });
    assert.ok(!fs.existsSync(profile), `the profile ${profile} is removed`);
  });
});

describe('a browser that cannot start', { skip, timeout: 60000 }, () => {
  it('fails page_open by name and keeps nothing', async () => {
    const root = workspace({});
    const app = await site();
    const gw = await serve(editgate, root, ['--no-node', '--browser', '/bin/false']);
    const client = await connect(gw);
    try {
      const words = await refused(client, 'page_open', { url: app.url('/') }, 'browser_unavailable');
      assert.match(words, /exited with status 1 before it answered.*browser\.log/);
      const missing = await serve(editgate, workspace({}), ['--no-node', '--browser', '/nonexistent/chromium']).catch((e) => e);
      assert.ok(!(missing instanceof Error), 'serve starts without the browser: it is started at the first page_open');
      const other = await connect(missing);
      await refused(other, 'page_open', { url: app.url('/') }, 'browser_unavailable');
      await other.close();
      await missing.stop();
    } finally {
      await client.close();
      await gw.stop();
      await app.close();
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
