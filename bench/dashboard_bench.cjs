// The dashboard in Chromium (playwright-core) against a real gateway:
//   1. first view: 100 realms connected (op clone) and a 10 MB log on the Node
//      page; the time from navigation to the Pages table holding every page
//      and the log's tail rendered, against a baseline page load (/v1/health)
//      in the same browser, as a ratio;
//   2. live updates: evals at a target rate spread over the realms, the
//      dashboard following realm 1's log; the exchanges the gateway completed
//      per second with the dashboard open against the same run without it
//      (the baseline, taking turns), and how long after the last reply the
//      dashboard showed the last entry.
// Run by bench/dashboard.sh: node --experimental-websocket dashboard_bench.cjs EDITGATE WORKDIR [--rate N] [--seconds S] [--runs R]
'use strict';
const { spawn, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { chromium } = require('playwright-core');

const [editgate, work] = process.argv.slice(2, 4);
const opt = (name, dflt) => { const i = process.argv.indexOf('--' + name); return i > 0 ? Number(process.argv[i + 1]) : dflt; };
const RATE = opt('rate', 500), SECONDS = opt('seconds', 4), RUNS = opt('runs', 5), REALMS = opt('pages', 100), LOG_MB = opt('log-mb', 10);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const median = (a) => { const s = a.slice().sort((x, y) => x - y); return s[Math.floor(s.length / 2)]; };

// What `editgate where` names for the workspace at `root` (its state folder's files): absolute paths.
const places = (root) => JSON.parse(execFileSync(editgate, ['where', '--root', root, '--format', 'json'], { encoding: 'utf8' }));

async function serve(root) {
  const where = places(root);
  const child = spawn(editgate, ['serve', '--port', '0', '--root', root], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d) => { out += d; });
  for (let i = 0; i < 400 && !fs.existsSync(where.port); i++) await sleep(50);
  const url = /dashboard: (\S+)/.exec(out);
  if (!url) throw new Error('serve printed no dashboard URL:\n' + out);
  return { child, url: url[1], base: new URL(url[1]).origin, cookie: fs.readFileSync(where.cookie, 'utf8').trim() };
}

// An agent on /v1/ws: requests by id, each resolved by its final reply.
async function agent(gw) {
  const ws = new WebSocket(gw.base.replace('http', 'ws') + '/v1/ws');
  const waiting = new Map();
  let next = 1;
  await new Promise((resolve, reject) => {
    ws.onmessage = (m) => {
      const msg = JSON.parse(m.data);
      if (msg.op === 'auth-required') ws.send(JSON.stringify({ type: 'auth', cookie: gw.cookie }));
      else if (msg.op === 'session-started') resolve();
      const w = waiting.get(msg.id);
      if (w && Array.isArray(msg.status) && msg.status.includes('done')) { waiting.delete(msg.id); w(msg); }
    };
    ws.onerror = reject;
  });
  return {
    call: (op, params) => new Promise((resolve) => { const id = next++; waiting.set(id, resolve); ws.send(JSON.stringify({ op, id, ...params })); }),
    close: () => ws.close(),
  };
}

async function fill(gw, a, page) {
  const log = path.join(gw.root, (await a.call('pages', {})).pages.find((p) => p.page === page).log);
  // A reply keeps only the head of a long value: the loop runs until the log is that big.
  for (let i = 0; i < 40000 && (!fs.existsSync(log) || fs.statSync(log).size < LOG_MB * 1e6); i++)
    await a.call('eval', { page, code: `'${i} ' + 'lorem ipsum dolor sit amet '.repeat(2000)` });
  return fs.statSync(log).size;
}

async function firstView(browser, gw, big) {
  const ctx = await browser.newContext();
  await (await ctx.newPage()).goto(gw.url);  // signs in once; later pages reuse the cookie
  const base = [], view = [], tail = [];
  for (let i = 0; i < RUNS; i++) {
    const p = await ctx.newPage();
    await p.goto(gw.base + '/v1/health');
    base.push(await p.evaluate(() => performance.getEntriesByType('navigation')[0].loadEventEnd));
    await p.addInitScript((n) => {
      const marks = window.__marks = {};
      new MutationObserver(() => {
        if (!marks.pages && document.querySelectorAll('#pages-body tr.page').length >= n) marks.pages = performance.now();
        if (!marks.log && document.querySelector('#log-entries .entry')) marks.log = performance.now();
      }).observe(document, { childList: true, subtree: true });
    }, REALMS + 1);
    await p.goto(gw.base + '/');
    await p.waitForFunction(() => window.__marks.pages && window.__marks.log, null, { timeout: 30000 });
    const m = await p.evaluate(() => window.__marks);
    view.push(m.pages);
    tail.push(m.log);
    await p.close();
  }
  await ctx.close();
  return { base: median(base), pages: median(view), log: median(tail), big };
}

// Evals at RATE/s for SECONDS over the realms, from 8 agent connections.
async function drive(agents, realms) {
  const total = RATE * SECONDS;
  const t0 = performance.now();
  const pending = [];
  for (let i = 0; i < total; i++) {
    const due = t0 + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    pending.push(agents[i % agents.length].call('eval', { page: realms[i % realms.length], code: `${i}` }));
  }
  await Promise.all(pending);
  const secs = (performance.now() - t0) / 1000;
  return { rate: total / secs, lastReply: Date.now() };
}

async function live(browser, gw, agents, realms) {
  const ctx = await browser.newContext();
  const p = await ctx.newPage();
  await p.goto(gw.base + '/?token=' + mint(gw));
  await p.waitForSelector('#conn.ok');
  await p.click('#tab-log');
  await p.selectOption('#log-page', realms[0]);
  await p.waitForSelector('#log-path:not(:empty)');
  const rows = [];
  for (let r = 0; r < 3; r++) {
    const alone = await drive(agents, realms);
    const marker = `'marker-${r}'`;
    const watched = await drive(agents, realms);
    await agents[0].call('eval', { page: realms[0], code: marker });
    const sent = Date.now();
    await p.waitForSelector(`#log-entries .entry:has-text("marker-${r}")`, { timeout: 60000 });
    rows.push({ alone: alone.rate, watched: watched.rate, lag: Date.now() - sent });
  }
  await ctx.close();
  return rows;
}

function mint(gw) {
  const out = execFileSync(editgate, ['dashboard', '--root', gw.root], { encoding: 'utf8' });
  return new URL(/(http:\/\/\S+)/.exec(out)[1]).searchParams.get('token');
}

(async () => {
  const root = fs.mkdtempSync(path.join(work, 'ws-'));
  execFileSync('git', ['init', '-q', root]);
  execFileSync('git', ['-C', root, '-c', 'user.name=b', '-c', 'user.email=b@b', 'commit', '-q', '--allow-empty', '-m', 'start']);
  const gw = await serve(root);
  gw.root = root;
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox'] });
  try {
    const a = await agent(gw);
    let node = null;
    for (let i = 0; i < 200 && !node; i++) { node = (await a.call('pages', {})).pages.find((p) => p.kind === 'node'); if (!node) await sleep(50); }
    const realms = [];
    for (let i = 0; i < REALMS; i++) realms.push((await a.call('clone', {})).page);
    const big = await fill(gw, a, node.page);
    const fv = await firstView(browser, gw, big);
    console.log(`first view, ${REALMS} realms + the Node page, a ${(big / 1e6).toFixed(1)} MB log (median of ${RUNS}):`);
    console.log(`  Pages table complete   ${fv.pages.toFixed(0)} ms`);
    console.log(`  log tail rendered      ${fv.log.toFixed(0)} ms`);
    console.log(`  baseline (/v1/health)  ${fv.base.toFixed(0)} ms   ratio ${(Math.max(fv.pages, fv.log) / fv.base).toFixed(1)}x`);
    const agents = [a];
    for (let i = 1; i < 8; i++) agents.push(await agent(gw));
    const rows = await live(browser, gw, agents, realms);
    console.log(`live updates, target ${RATE} exchanges/s for ${SECONDS} s over ${REALMS} realms, the dashboard following one:`);
    console.log('  run  without dashboard  with dashboard  ratio  last entry shown after');
    rows.forEach((r, i) => console.log(`  ${i + 1}    ${r.alone.toFixed(0).padStart(8)}/s     ${r.watched.toFixed(0).padStart(8)}/s   ${(r.watched / r.alone).toFixed(2)}   ${r.lag} ms`));
    for (const x of agents) x.close();
  } finally {
    await browser.close();
    gw.child.kill('SIGTERM');
    await new Promise((r) => gw.child.once('exit', r));
    fs.rmSync(root, { recursive: true, force: true });
  }
})().catch((e) => { console.error(e); process.exitCode = 1; });
