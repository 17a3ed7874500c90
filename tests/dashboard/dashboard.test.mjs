// The dashboard in real headless Chromium (Debian's, driven by playwright-core,
// which setup.sh installs into the build folder), against a real `editgate
// serve` on a temporary workspace: the printed URL signs in once, every view
// follows the gateway live, approvals let a page in, a foreign origin reads
// nothing, and the keyboard reaches everything. Screenshots of the main views
// go to $SCREENSHOTS.
// Run: EDITGATE=<binary> DASHBOARD_NPM=<build>/npm-dashboard SCREENSHOTS=<dir> node --test tests/dashboard/dashboard.test.mjs
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';

import { places, waitFor, workspace } from '../mcp/harness.mjs';

const editgate = process.env.EDITGATE;
const npm = process.env.DASHBOARD_NPM;
const shots = process.env.SCREENSHOTS;
const { chromium } = createRequire(path.join(npm, 'package.json'))('playwright-core');

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
  return {
    url, base, cookie,
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
  `<!doctype html><title>${title}</title><body><script src="${gw.base}/adapter.js" crossorigin></script></body>`;

// The last line of the edit route's NDJSON: the run's summary, with its commit.
const summaryOf = (text) => JSON.parse(text.trim().split('\n').pop());

describe('dashboard in headless Chromium', { timeout: 180000 }, () => {
  let root; let gw; let browser; let ctx; let dash;
  const problems = [];

  before(async () => {
    root = workspace({ 'notes.txt': 'alpha\ngamma\n', 'app.js': 'const a = 1;\nconst b = 2;\n' });
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
    const cookie = (await ctx.cookies(gw.base)).find((c) => c.name === 'editgate_dashboard');
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
    const item = await dash.waitForSelector(`#history-list [role=option][data-key="${commit}"]`);
    await item.click();
    await dash.waitForSelector(`#history-detail .meta:has-text("${commit.slice(0, 12)}")`);
  }

  it('selecting a history entry shows its diff, unified or side by side', async (t) => {
    const r = await gw.post('/v1/edits?agent=dash-agent', block('notes.txt', 'alpha', 'alpha\nbeta-from-dashboard'), 'text/plain');
    const { commit } = summaryOf(r.text);
    assert.match(commit, /^[0-9a-f]{40}$/, r.text);
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
    await dash.keyboard.press('End');
    await dash.keyboard.press('Enter');
    const key = await dash.evaluate(() => document.activeElement.dataset.key);
    assert.equal(await dash.getAttribute(`#history-list [data-key="${key}"]`, 'aria-selected'), 'true', 'Enter selects the entry');
    assert.equal(await dash.$('#history-detail .empty'), null, 'and the detail shows it');
    await shot('history');
  });

  it('ran under the strict CSP without a refused script, style or error', (t) => {
    assert.deepEqual(problems.filter((p) => !/WebSocket connection to .*(127\.0\.0\.2|probe)/.test(p)), []);
  });
});
