// The dashboard in real headless Chromium (Debian's, driven by playwright-core,
// which setup.sh installs into the build folder), against a real `editgate
// serve` on a temporary workspace: the printed URL signs in once, every view
// follows the gateway live, approvals let a page in, a foreign origin reads
// nothing, and the keyboard reaches everything. The History shows the
// branch's code changes or the REPL's exchanges, links the two, pages back to
// the first commit, and its diff gives the code the width. A page an agent opened
// in the gateway's own browser is marked owned, with its screenshots. Screenshots
// of the main views go to $SCREENSHOTS.
// Run: EDITGATE=<binary> DASHBOARD_NPM=<build>/npm-dashboard SCREENSHOTS=<dir> node --test tests/dashboard/dashboard.test.mjs
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';

import { git, places, waitFor, workspace } from '../mcp/harness.mjs';

const editgate = process.env.EDITGATE;
const npm = process.env.DASHBOARD_NPM;
const shots = process.env.SCREENSHOTS;
const { chromium } = createRequire(path.join(npm, 'package.json'))('playwright-core');

// A real source file of this repository, with a line of 117 columns.
const sourceFile = fs.readFileSync(new URL('../../ops/show.cpp', import.meta.url), 'utf8');
const longLine = '  return s.size() >= 7 && s.size() <= 40 && s.find_first_not_of("0123456789abcdefABCDEF") == std::string_view::npos;';

const block = (file, from, to) => `${file}\n««« EDIT\n${from}\n═══════ REPL\n${to}\n»»» EDIT END\n`;

// `editgate serve --port 0`; the dashboard URL is read from its output, as a person reads it.
async function serve(root) {
  const where = places(editgate, root);
  const child = spawn(editgate, ['serve', '--port', '0', '--root', root], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { err += d; });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let early = null;
  exited.then((code) => { early = code; });
  await waitFor('serve publishing its port', () => {
    if (early !== null) throw new Error(`editgate serve exited (${early}):\n${err}`);
    return fs.existsSync(where.port);
  });
  // The port file comes after everything serve prints, so the lines are in the
  // pipe by now, if not read yet; a binary without the door prints none.
  const m = await waitFor('serve\'s lines read', () => /dashboard: (http:\/\/\S+)\n/.exec(out), { tries: 40 })
    .catch(() => null);
  const url = m ? m[1] : null;
  const cookie = fs.readFileSync(where.cookie, 'utf8').trim();
  const base = `http://127.0.0.1:${fs.readFileSync(where.port, 'utf8').trim()}`;
  const server = JSON.parse(fs.readFileSync(where.server_json, 'utf8'));
  const workspace = server.workspace_id;
  return {
    url, base, cookie, workspace, cookieName: `editgate_dashboard_${server.port}`,
    async post(route, body, type = 'application/json') {
      const r = await fetch(base + route, {
        method: 'POST', headers: { Authorization: `Bearer ${cookie}`, 'Content-Type': type },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
      return { status: r.status, text: await r.text() };
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      if (await Promise.race([exited, delay(15000).then(() => 'late')]) === 'late') {
        child.kill('SIGKILL');
        await exited;
      }
    },
  };
}

// A site on `host` serving a page that loads the gateway's adapter (or any HTML given).
async function site(host, pages) {
  const s = http.createServer((req, res) => {
    const body = pages[new URL(req.url, 'http://x').pathname];
    res.writeHead(body ? 200 : 404, { 'Content-Type': 'text/html' });
    res.end(body || 'no');
  });
  await new Promise((resolve) => s.listen(0, host, resolve));
  return {
    origin: `http://${host}:${s.address().port}`,
    async close() { s.closeAllConnections(); await new Promise((resolve) => s.close(resolve)); },
  };
}
const adapterPage = (gw, title) =>
  `<!doctype html><title>${title}</title><body><script src="${gw.base}/adapter.js?workspace=${gw.workspace}" crossorigin></script></body>`;

// The last line of the edit route's NDJSON: the run's summary, with its commit.
const summaryOf = (text) => JSON.parse(text.trim().split('\n').pop());

describe('dashboard in headless Chromium', { timeout: 180000 }, () => {
  let root; let gw; let browser; let ctx; let dash;
  const problems = [];
  const edits = [];  // the edit commits the tests made, oldest first

  before(async () => {
    assert.ok(sourceFile.includes(longLine), 'ops/show.cpp still has the long line the diff test edits');
    root = workspace({ 'notes.txt': 'alpha\ngamma\n', 'app.js': 'const a = 1;\nconst b = 2;\n', 'src/ops_show.cpp': sourceFile });
    gw = await serve(root);
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
    ctx = await browser.newContext({ viewport: { width: 1280, height: 760 } });
    if (shots) fs.mkdirSync(shots, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    await gw?.stop();
    if (root) fs.rmSync(root, { recursive: true, force: true });
  });
  const shot = async (name) => { if (shots) await dash.screenshot({ path: path.join(shots, `${name}.png`) }); };
  const view = async (name) => { await dash.click(`#tab-${name}`); await dash.waitForSelector(`#view-${name}:not([hidden])`); };
  const nodePage = async () => waitFor('the Node page in Pages', async () =>
    dash.$eval('#pages-body', (b) => Array.from(b.querySelectorAll('tr.page')).map((tr) => tr.dataset.key).find((k) => /^node/.test(k))));

  it('opens the printed URL: the token leaves the address bar and an HttpOnly, SameSite=Strict cookie signs in', async (t) => {
    assert.ok(gw.url, 'serve printed a dashboard URL');
    dash = await ctx.newPage();
    dash.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()); });
    dash.on('pageerror', (e) => problems.push(String(e)));
    const res = await dash.goto(gw.url);
    assert.equal(res.status(), 200);
    assert.equal(dash.url(), gw.base + '/', 'no token in the address bar');
    // Named for the gateway's port: cookies do not separate ports.
    const cookie = (await ctx.cookies(gw.base)).find((c) => c.name === gw.cookieName);
    assert.ok(cookie, 'the session cookie is set');
    assert.equal(cookie.httpOnly, true);
    assert.equal(cookie.sameSite, 'Strict');
    assert.equal(await dash.evaluate(() => document.cookie), '', 'the page\'s script cannot read it');
    await dash.waitForSelector('#conn.ok');
  });

  it('the token is single-use: another browser opening the same URL is refused', async (t) => {
    const other = await browser.newContext();
    try {
      const p = await other.newPage();
      const res = await p.goto(gw.url);
      assert.equal(res.status(), 401);
      assert.equal((await other.cookies(gw.base)).length, 0);
      assert.equal(await p.$('#view-pages'), null, 'no dashboard for it');
    } finally { await other.close(); }
  });

  it('a tab connecting appears in Pages, live', async (t) => {
    const tabs = await site('127.0.0.1', { '/tab.html': adapterPage(gw, 'Dashboard Tab') });
    const tabCtx = await browser.newContext();
    try {
      await (await tabCtx.newPage()).goto(`${tabs.origin}/tab.html`);
      const row = await dash.waitForSelector('#pages-body tr.page:has-text("Dashboard Tab")');
      assert.match(await row.textContent(), /browser/);
      assert.match(await row.textContent(), new RegExp(tabs.origin.replace(/\./g, '\\.')));
      await nodePage();
      await shot('pages');
    } finally {
      await tabCtx.close();
      await tabs.close();
    }
  });

  it('an eval sent by an agent appears live in the rendered log', async (t) => {
    const page = await nodePage();
    await view('log');
    await dash.selectOption('#log-page', page);
    await dash.waitForSelector('#log-path:not(:empty)');
    const r = await gw.post('/v1/eval', { page, code: '"dash" + "board-" + 6 * 7', agent: 'dash-agent' });
    assert.equal(r.status, 200, r.text);
    await dash.waitForSelector('#log-entries .entry.kind-request:has-text("\\"dash\\" + \\"board-\\"")');
    await dash.waitForSelector('#log-entries .entry.kind-reply:has-text("dashboard-42")');
    const atEnd = await dash.$eval('#log-scroll', (s) => s.scrollHeight - s.scrollTop - s.clientHeight < 30);
    assert.ok(atEnd, 'following: the newest entry is in view');
    await gw.post('/v1/eval', { page, code: 'throw new Error("dash-broke")', agent: 'dash-agent' });
    await dash.waitForSelector('#log-entries .entry.kind-error:has-text("dash-broke")');
    await shot('log');
  });

  async function selectCommit(commit) {
    await view('history');
    // A locator finds the entry again at the click: the list is redrawn when commits come.
    await dash.locator(`#history-list [role=option][data-key="${commit}"]`).click();
    await dash.waitForSelector(`#history-detail .meta:has-text("${commit.slice(0, 12)}")`);
  }

  it('selecting a history entry shows its diff, unified or side by side', async (t) => {
    const r = await gw.post('/v1/edits?agent=dash-agent', block('notes.txt', 'alpha', 'alpha\nbeta-from-dashboard'), 'text/plain');
    const { commit } = summaryOf(r.text);
    assert.match(commit, /^[0-9a-f]{40}$/, r.text);
    edits.push(commit);
    await selectCommit(commit);
    await dash.waitForSelector('#history-detail table.diff.unified tr.add:has-text("beta-from-dashboard")');
    await dash.click('#history-detail button.toggle:has-text("side by side")');
    await dash.waitForSelector('#history-detail table.diff.split td.text.add:has-text("beta-from-dashboard")');
    await shot('history-diff');
  });

  it('a failing edit run shows its failing block highlighted with its diagnostic', async (t) => {
    const text = `${block('app.js', 'const b = 2;', 'const b = 3;')}\n${block('app.js', 'const c = 9;', 'const c = 10;')}`;
    const r = await gw.post('/v1/edits?agent=dash-agent', text, 'text/plain');
    const { commit } = summaryOf(r.text);
    edits.push(commit);
    await selectCommit(commit);
    const failed = await dash.waitForSelector('#history-detail .block.failed');
    assert.equal((await dash.$$('#history-detail .block.failed')).length, 1, 'only the failing block');
    assert.equal((await dash.$$('#history-detail .block')).length, 2);
    assert.match(await failed.textContent(), /app\.js/);
    assert.ok(await failed.$('.diagnostic'), 'its diagnostic is shown');
    assert.notEqual(await failed.evaluate((e) => getComputedStyle(e).borderLeftColor),
      await dash.$eval('#history-detail .block:not(.failed)', (e) => getComputedStyle(e).borderLeftColor), 'it stands out');
    await shot('history-failed-block');
  });

  const listed = async () => dash.$$eval('#history-list [role=option]',
    (all) => all.map((li) => ({ key: li.dataset.key, kind: li.dataset.kind, summary: li.querySelector('.summary').textContent, text: li.textContent })));
  const which = async (name) => {
    await dash.click(`#history-which [data-which="${name}"]`);
    assert.equal(await dash.getAttribute(`#history-which [data-which="${name}"]`, 'aria-checked'), 'true');
  };
  // What the branch holds (the start's kinds aside), and what only the REPL's ref does.
  const codeKinds = new Set(['edit', 'undo']);
  const replKinds = new Set(['exchange', 'request', 'reply', 'repl', 'page', 'run', 'background']);

  it('History shows the branch\'s code changes first, the REPL\'s exchanges on the switch, and each links to the other', async (t) => {
    await view('history');
    assert.equal(await dash.getAttribute('#history-which [data-which="branch"]', 'aria-checked'), 'true', 'code changes by default');
    let items = await waitFor('the edits listed', async () => { const l = await listed(); return edits.every((c) => l.some((i) => i.key === c)) && l; });
    assert.deepEqual(items.map((i) => i.kind).filter((k) => !codeKinds.has(k)), [], 'only code changes on the branch (no exchange)');
    assert.ok(!items.some((i) => /dashboard-42/.test(i.text)), 'the REPL\'s exchanges are not among the code changes');

    await which('repl');
    const exchange = await dash.waitForSelector('#history-list [role=option]:has-text("dashboard-42")');
    assert.match(await dash.$eval('#history-ref', (e) => e.textContent), /^refs\/editgate\/repl\//, 'the REPL\'s ref is named');
    items = await listed();
    assert.ok(items.every((i) => replKinds.has(i.kind)), `REPL kinds only: ${items.map((i) => i.kind)}`);
    assert.ok(items.some((i) => i.kind === 'exchange'), 'exchanges among them');
    assert.ok(!items.some((i) => edits.includes(i.key)), 'no edit among the REPL\'s exchanges');
    assert.ok(items.some((i) => /dash-broke/.test(i.text)), 'the failed eval is there too');
    await shot('history-repl');

    // The exchange names the branch commit its page saw (the start: no edit was made yet).
    const replCommit = await exchange.getAttribute('data-key');
    await dash.locator(`#history-list [role=option][data-key="${replCommit}"]`).click();
    await dash.waitForSelector(`#history-detail .meta:has-text("${replCommit.slice(0, 12)}")`);
    await dash.waitForSelector('#history-detail table.diff td.text:has-text("dashboard-42")');
    const toBranch = await dash.waitForSelector('#history-detail button.commit-link[data-where="branch"]');
    const branchCommit = await toBranch.getAttribute('data-commit');
    assert.equal(branchCommit.trim(), git(root, 'rev-list', '--max-parents=0', 'HEAD').trim(), 'the start commit');
    assert.equal((await toBranch.textContent()).trim(), branchCommit.slice(0, 10), 'a short id');
    await dash.locator('#history-detail button.commit-link[data-where="branch"]').click();
    await dash.waitForSelector(`#history-detail .meta:has-text("${branchCommit.slice(0, 12)}")`);
    await dash.waitForSelector('#history-detail h2:has-text("start")');
    await dash.click('#history-detail button.back');
    await dash.waitForSelector(`#history-detail .meta:has-text("${replCommit.slice(0, 12)}")`);

    // The last edit names the REPL's tip when it was made; following it shows that exchange.
    await which('branch');
    const edit = edits[edits.length - 1];
    await dash.click(`#history-list [role=option][data-key="${edit}"]`);
    await dash.waitForSelector(`#history-detail .meta:has-text("${edit.slice(0, 12)}")`);
    const toRepl = await dash.waitForSelector('#history-detail button.commit-link[data-where="repl"]');
    const tip = await toRepl.getAttribute('data-commit');
    const trailer = git(root, 'log', '-1', '--format=%(trailers:key=Editgate-Repl,valueonly)', edit).trim();
    assert.equal(tip, trailer, 'the Editgate-Repl trailer');
    await shot('history-links');
    await dash.locator('#history-detail button.commit-link[data-where="repl"]').click();
    await dash.waitForSelector(`#history-detail .meta:has-text("${tip.slice(0, 12)}")`);
    const kind = await dash.$eval('#history-detail .detail-head .badge', (e) => e.textContent);
    assert.ok(replKinds.has(kind), `a REPL commit (${kind})`);
    await dash.waitForSelector('#history-detail .file-head:has-text(".md")');
  });

  it('the diff of a real source file gives the code the width: line numbers a few characters wide', async (t) => {
    const edited = longLine.replace('abcdefABCDEF', 'abcdef');
    const r = await gw.post('/v1/edits?agent=dash-agent', block('src/ops_show.cpp', longLine, edited), 'text/plain');
    const { commit } = summaryOf(r.text);
    assert.match(commit, /^[0-9a-f]{40}$/, r.text);
    edits.push(commit);
    const measure = () => dash.$eval('#history-detail table.diff', (t) => {
      const tw = t.getBoundingClientRect().width;
      const row = Array.from(t.querySelectorAll('tr')).find((tr) => tr.classList.contains('del') || tr.classList.contains('chg'));
      const cells = Array.from(row.cells).map((c) => ({ cls: c.className, share: c.getBoundingClientRect().width / tw, width: c.clientWidth }));
      const probe = document.createElement('span');
      probe.textContent = '0'.repeat(100);
      t.querySelector('td.text').append(probe);
      const ch = probe.getBoundingClientRect().width / 100;
      probe.remove();
      return { cells, ch };
    });
    await selectCommit(commit);
    await dash.click('#history-detail button.toggle:has-text("unified")');
    await dash.waitForSelector('#history-detail table.diff.unified tr.del:has-text("abcdefABCDEF")');
    const unified = await measure();
    const [ln1, ln2, text] = unified.cells;
    assert.ok(ln1.share < 0.1 && ln2.share < 0.1, `number columns narrow: ${JSON.stringify(unified.cells)}`);
    assert.ok(text.share > 0.6, `the code column has the rest: ${JSON.stringify(unified.cells)}`);
    assert.ok((text.width - 12) / unified.ch >= 80, `80 columns of code or more before wrapping: ${(text.width - 12) / unified.ch}`);
    await shot('history-diff-source');

    await dash.click('#history-detail button.toggle:has-text("side by side")');
    await dash.waitForSelector('#history-detail table.diff.split td.text.del:has-text("abcdefABCDEF")');
    const split = await measure();
    const [l1, t1, l2, t2] = split.cells;
    assert.ok(l1.share < 0.1 && l2.share < 0.1, `number columns narrow: ${JSON.stringify(split.cells)}`);
    assert.ok(t1.share > 0.4 && t2.share > 0.4 && t1.share + t2.share > 0.8, `the code columns have the rest: ${JSON.stringify(split.cells)}`);
    await shot('history-diff-source-split');
    await dash.click('#history-detail button.toggle:has-text("unified")');
  });

  it('a page from an origin not on the allow-list waits as pending, is allowed, and then connects', async (t) => {
    const away = await site('127.0.0.2', { '/tab.html': adapterPage(gw, 'Pending Tab') });
    const tabCtx = await browser.newContext();
    try {
      await (await tabCtx.newPage()).goto(`${away.origin}/tab.html`);
      await view('approvals');
      const li = await dash.waitForSelector(`#origins-pending li:has-text("${away.origin}")`);
      assert.equal(await dash.$eval('#count-approvals', (e) => e.textContent), '1');
      assert.equal(await dash.$('#pages-body tr.page:has-text("Pending Tab")'), null, 'not connected while pending');
      await shot('approvals');
      await (await li.$('button.allow')).click();
      await dash.waitForSelector(`#origins-decided li.allowed:has-text("${away.origin}")`);
      await view('pages');
      const row = await dash.waitForSelector('#pages-body tr.page:has-text("Pending Tab")', { timeout: 30000 });
      assert.doesNotMatch(await row.textContent(), /disconnected/);
    } finally {
      await tabCtx.close();
      await away.close();
    }
  });

  it('the person types an origin to allow it before its page asks; a malformed one is refused', async (t) => {
    await view('approvals');
    assert.equal(await dash.$('#viewer-note:not([hidden])'), null, 'the person\'s sign-in is told nothing about viewers');
    await dash.fill('#allow-origin', 'https://typed.example/app');
    await dash.click('#allow-typed button[type=submit]');
    await dash.waitForSelector('#allow-typed-status:has-text("http(s)://host[:port]")');
    await dash.fill('#allow-origin', 'https://Typed.example:8443');
    await dash.click('#allow-typed button[type=submit]');
    await dash.waitForSelector('#origins-decided li.allowed:has-text("https://typed.example:8443")');
    await view('pages');
  });

  it('a sign-in from `editgate dashboard` looks but is offered no decision, and says where the person decides', async (t) => {
    // A page from an origin nobody allowed asks (a handshake with its Origin), so there is one pending.
    await new Promise((resolve, reject) => {
      const req = http.get(gw.base + '/v1/page', { headers: { Origin: 'http://viewer-pending.example', Upgrade: 'websocket',
        Connection: 'Upgrade', 'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==', 'Sec-WebSocket-Version': '13' } });
      req.on('response', (r) => { r.resume(); r.on('end', resolve); });
      req.on('error', reject);
    });
    const minted = await gw.post('/v1/dashboard-url', {});
    assert.equal(minted.status, 200);
    const viewerCtx = await browser.newContext();
    try {
      const p = await viewerCtx.newPage();
      await p.goto(JSON.parse(minted.text).url);
      await p.waitForSelector('#conn.ok');
      await p.click('#tab-approvals');
      const li = await p.waitForSelector('#origins-pending li:has-text("http://viewer-pending.example")');
      assert.equal(await li.$('button'), null, 'no Allow or Refuse for a viewer');
      const note = await p.waitForSelector('#viewer-note:not([hidden])');
      assert.match(await note.textContent(), /editgate serve/);
      assert.equal(await p.$('#allow-typed:not([hidden])'), null, 'no typed allow for a viewer');
    } finally {
      await viewerCtx.close();
    }
  });

  it('a cookie of the dashboard\'s name tossed in by another loopback origin does not lock the person out', async (t) => {
    // 127.0.0.1 on another port shares the gateway's cookies; its longer path puts its cookie first.
    const tosser = await site('127.0.0.1', { '/toss.html': '<!doctype html><title>toss</title>' });
    const p = await ctx.newPage();
    try {
      await p.goto(`${tosser.origin}/toss.html`);
      await p.evaluate((name) => { document.cookie = `${name}=tossed; path=/v1/dashboard`; }, gw.cookieName);
      const tossed = (await ctx.cookies(gw.base + '/v1/dashboard')).filter((c) => c.name === gw.cookieName);
      assert.equal(tossed.length, 2, 'the browser holds both');
      await dash.reload();
      await dash.waitForSelector('#conn.ok');
      await p.evaluate((name) => { document.cookie = `${name}=; path=/v1/dashboard; max-age=0`; }, gw.cookieName);
    } finally {
      await p.close();
      await tosser.close();
    }
  });

  it('a foreign origin cannot read the dashboard\'s data, even with the session cookie in its browser', async (t) => {
    // Same browser context as the dashboard: the cookie is there. 127.0.0.1 on another
    // port is the same site (the cookie goes along), 127.0.0.2 another one.
    const probes = { '/probe.html': '<!doctype html><title>probe</title>' };
    for (const s of [await site('127.0.0.1', probes), await site('127.0.0.2', probes)]) {
      const p = await ctx.newPage();
      try {
        await p.goto(`${s.origin}/probe.html`);
        const got = await p.evaluate(async (base) => {
          const out = {};
          try { out.fetch = (await (await fetch(base + '/', { credentials: 'include' })).text()).slice(0, 40); } catch (e) { out.fetch = 'refused'; }
          out.ws = await new Promise((resolve) => {
            const ws = new WebSocket(base.replace('http', 'ws') + '/v1/dashboard');
            const seen = [];
            ws.onmessage = (m) => seen.push(String(m.data).slice(0, 40));
            ws.onclose = () => resolve(seen.length ? 'read: ' + seen.join('|') : 'refused');
            ws.onerror = () => {};
            setTimeout(() => { ws.close(); resolve(seen.length ? 'read: ' + seen.join('|') : 'refused'); }, 3000);
          });
          return out;
        }, gw.base);
        assert.deepEqual(got, { fetch: 'refused', ws: 'refused' }, `from ${s.origin}`);
      } finally {
        await p.close();
        await s.close();
      }
    }
  });

  it('the keyboard reaches every view and list: arrows move, Enter selects, focus is visible', async (t) => {
    await view('pages');
    await dash.focus('#tab-pages');
    await dash.keyboard.press('ArrowRight');
    assert.equal(await dash.evaluate(() => document.activeElement.id), 'tab-log');
    assert.equal(await dash.getAttribute('#tab-log', 'aria-selected'), 'true');
    await dash.keyboard.press('End');
    assert.equal(await dash.evaluate(() => document.activeElement.id), 'tab-approvals');
    await dash.keyboard.press('Home');
    assert.equal(await dash.evaluate(() => document.activeElement.id), 'tab-pages');
    await dash.keyboard.press('Tab');
    const first = await dash.evaluate(() => document.activeElement.getAttribute('role') === 'option' && document.activeElement.dataset.key);
    assert.ok(first, 'Tab goes from the tabs into the list of pages');
    assert.notEqual(await dash.evaluate(() => getComputedStyle(document.activeElement).outlineStyle), 'none', 'focus is visible');
    await dash.keyboard.press('ArrowDown');
    const second = await dash.evaluate(() => document.activeElement.dataset.key);
    assert.ok(second && second !== first, 'ArrowDown moves to the next page');
    await dash.keyboard.press('Enter');
    assert.equal(await dash.getAttribute('#tab-log', 'aria-selected'), 'true', 'Enter opens that page\'s log');
    assert.equal(await dash.$eval('#log-page', (s) => s.value), second);

    await dash.focus('#tab-log');
    await dash.keyboard.press('ArrowRight');
    assert.equal(await dash.getAttribute('#tab-history', 'aria-selected'), 'true');
    await dash.keyboard.press('Tab');
    assert.equal(await dash.evaluate(() => document.activeElement.dataset.which), 'branch', 'Tab reaches the history\'s switch');
    await dash.keyboard.press('ArrowRight');
    assert.equal(await dash.getAttribute('#history-which [data-which="repl"]', 'aria-checked'), 'true', 'an arrow switches to the REPL');
    await dash.keyboard.press('ArrowLeft');
    assert.equal(await dash.getAttribute('#history-which [data-which="branch"]', 'aria-checked'), 'true');
    await dash.waitForSelector('#history-list[aria-label="Code changes"] [role=option]');
    await dash.keyboard.press('Tab');
    await dash.keyboard.press('End');
    await dash.keyboard.press('Enter');
    const key = await dash.evaluate(() => document.activeElement.dataset.key);
    assert.equal(await dash.getAttribute(`#history-list [data-key="${key}"]`, 'aria-selected'), 'true', 'Enter selects the entry');
    assert.equal(await dash.$('#history-detail .empty'), null, 'and the detail shows it');
    await shot('history');
  });

  it('"load earlier" pages back to the first commit, then is gone', async (t) => {
    // More editgate commits than a page (50), made with git's own CLI while the gateway runs.
    const made = 120;
    const msgs = Array.from({ length: made }, (_, i) => `paging ${i + 1}\n\nEditgate-Kind: edit\nEditgate-Agent: pager`);
    for (const m of msgs) git(root, 'commit', '-q', '--allow-empty', '-m', m);
    // One more through the gateway: its commit event reloads the history.
    const r = await gw.post('/v1/edits?agent=dash-agent', block('notes.txt', 'gamma', 'gamma\ndelta'), 'text/plain');
    const { commit } = summaryOf(r.text);
    edits.push(commit);
    await view('history');
    await which('branch');
    await dash.waitForSelector(`#history-list [role=option][data-key="${commit}"]`);
    const total = git(root, 'log', '--format=%(trailers:key=Editgate-Kind,valueonly)', 'HEAD')
      .split('\n').filter((l) => l.trim()).length;
    assert.equal(total, made + edits.length, 'the branch\'s editgate commits');
    const count = async () => (await listed()).length;
    assert.equal(await count(), 50, 'one page');
    assert.equal(await dash.isVisible('#history-earlier'), true);
    assert.equal(await dash.isVisible('#history-start'), false);
    let pages = 1;
    while (await dash.isVisible('#history-earlier')) {
      const before = await count();
      await dash.click('#history-earlier');
      await waitFor('an earlier page', async () => (await count()) > before || !(await dash.isVisible('#history-earlier')));
      pages++;
      assert.ok(pages < 10, 'no endless paging');
    }
    const items = await listed();
    assert.equal(pages, Math.ceil(total / 50), 'page by page');
    assert.equal(items.length, total, 'every commit, once');
    assert.equal(new Set(items.map((i) => i.key)).size, total);
    assert.equal(items[0].key, commit, 'newest first');
    assert.equal(items[items.length - 1].key, edits[0], 'down to the first edit');
    assert.ok(items.some((i) => i.summary === 'paging 1') && items.some((i) => i.summary === `paging ${made}`));
    assert.equal(await dash.isVisible('#history-start'), true, 'the first commit is marked');
    await dash.$eval('#history-list', (l) => { l.scrollTop = l.scrollHeight; });
    await shot('history-first-commit');
  });

  it('an owned page is marked, its screenshots shown (the newest as a thumbnail, the others in a strip) and each opens full size', async (t) => {
    // A page an agent opens in the gateway's own browser, painted one colour so that its pixels can be told.
    const app = await site('127.0.0.1', { '/owned.html': '<!doctype html><title>Owned App</title><body style="margin:0;background:rgb(200,30,40)"><p>owned</p>' });
    let page = null;
    try {
      const opened = await gw.post('/v1/pages/open', { url: `${app.origin}/owned.html`, name: 'owned-app', agent: 'dash-agent' });
      assert.equal(opened.status, 200, opened.text);
      page = JSON.parse(opened.text).page;
      assert.match(page, /^owned-app-/);
      await view('pages');
      const row = `#pages-body tr.page[data-key="${page}"]`;
      const badge = await dash.waitForSelector(`${row} .badge.owned`);
      assert.equal(await badge.textContent(), 'owned');
      assert.equal(await badge.getAttribute('title'), 'opened by an agent in the gateway\'s own browser');
      assert.equal(await dash.$(`#pages-body tr.page:not(.owned) .badge.owned`), null, 'only the owned page is marked');

      const shots = [];
      for (let i = 0; i < 3; i++) {
        const r = await gw.post('/v1/pages/screenshot', { page, agent: 'dash-agent' });
        assert.equal(r.status, 200, r.text);
        shots.push(JSON.parse(r.text));
      }
      const paths = shots.map((s) => s.path);
      assert.deepEqual(paths, [1, 2, 3].map((n) => `debug/${page}.screenshots/${n}.png`));
      const newest = paths[2];
      const src = (p) => `/v1/dashboard/screenshot?path=${encodeURIComponent(p)}`;
      // The row's thumbnail is the newest, loaded and decoded: the gateway served the PNG.
      await dash.waitForSelector(`${row} .thumb img[src="${src(newest)}"]`);
      const loaded = (sel) => dash.waitForFunction((s) => { const i = document.querySelector(s); return i && i.complete && i.naturalWidth > 0 && [i.naturalWidth, i.naturalHeight]; }, sel);
      assert.deepEqual(await (await loaded(`${row} .thumb img`)).jsonValue(), [shots[2].width, shots[2].height]);
      await shot('pages-owned');

      // The page's view: the words, the newest as a thumbnail, the two before it in the strip, newest first.
      await dash.click(row);
      await dash.waitForSelector('#view-log:not([hidden])');
      const head = await dash.waitForSelector('#shots:not([hidden]) .shots-head');
      assert.match(await head.textContent(), /opened by an agent in the gateway's own browser.*3 screenshots/);
      assert.equal(await dash.getAttribute('#shots button.shot.newest', 'data-path'), newest);
      assert.deepEqual(await dash.$$eval('#shots .strip button.shot', (bs) => bs.map((b) => b.dataset.path)), [paths[1], paths[0]]);
      await loaded('#shots button.shot.newest img');
      // What the browser decoded is the page as the agent saw it: its colour, read back from the image.
      const pixel = await dash.$eval('#shots button.shot.newest img', (img) => {
        const c = document.createElement('canvas');
        c.width = img.naturalWidth; c.height = img.naturalHeight;
        const g = c.getContext('2d');
        g.drawImage(img, 0, 0);
        return Array.from(g.getImageData(img.naturalWidth - 2, img.naturalHeight - 2, 1, 1).data.slice(0, 3));
      });
      assert.ok(pixel.every((v, i) => Math.abs(v - [200, 30, 40][i]) <= 3), `the page's colour: ${pixel}`);
      await shot('log-owned');

      // Any of them opens full size: the arrows go to its neighbours, Escape closes it.
      await dash.click(`#shots .strip button.shot[data-path="${paths[0]}"]`);
      await dash.waitForSelector('#shot-dialog[open]');
      assert.deepEqual(await (await loaded('#shot-full')).jsonValue(), [shots[0].width, shots[0].height]);
      assert.match(await dash.$eval('#shot-caption', (e) => e.textContent), /^screenshot 1 of .*\(1 of 3\)/);
      assert.equal(await dash.getAttribute('#shot-tab', 'href'), src(paths[0]));
      await dash.keyboard.press('ArrowRight');
      assert.match(await dash.$eval('#shot-caption', (e) => e.textContent), /\(2 of 3\)/);
      await shot('screenshot-full');
      await dash.keyboard.press('Escape');
      await dash.waitForFunction(() => !document.getElementById('shot-dialog').open);

      // The log links each screenshot; the link is shown through the route and opens the viewer.
      const inLog = await dash.waitForSelector(`#log-entries img.log-shot[data-shot="${newest}"]`);
      assert.equal(await inLog.getAttribute('src'), src(newest));
      await loaded(`#log-entries img.log-shot[data-shot="${newest}"]`);
      await inLog.click();
      await dash.waitForSelector('#shot-dialog[open]');
      assert.match(await dash.$eval('#shot-caption', (e) => e.textContent), /\(3 of 3\)/);
      await dash.keyboard.press('Escape');

      // Another loopback origin is the same site (the cookie goes along with its <img>): the
      // browser still hands it no screenshot.
      const probe = await site('127.0.0.1', { '/probe.html': '<!doctype html><title>probe</title>' });
      const p = await ctx.newPage();
      try {
        await p.goto(`${probe.origin}/probe.html`);
        const got = await p.evaluate((u) => new Promise((resolve) => {
          const img = new Image();
          img.onload = () => resolve('loaded');
          img.onerror = () => resolve('refused');
          img.src = u;
        }), gw.base + src(newest));
        assert.equal(got, 'refused');
      } finally {
        await p.close();
        await probe.close();
      }
    } finally {
      if (page) await gw.post('/v1/pages/close', { page, agent: 'dash-agent' });
      await app.close();
    }
  });

  it('ran under the strict CSP without a refused script, style or error', (t) => {
    assert.deepEqual(problems.filter((p) => !/WebSocket connection to .*(127\.0\.0\.2|probe)/.test(p)), []);
  });
});
