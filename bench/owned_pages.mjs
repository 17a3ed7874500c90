// The owned pages' times against Playwright MCP's, in one run (issue 38): an agent opens a page
// of a local app and evaluates in it, through editgate's MCP door (`page_open`, `page_eval` over
// Streamable HTTP) and through Playwright MCP (`browser_navigate`, `browser_evaluate` over
// stdio), both driven by the same MCP SDK client, both with Debian's Chromium.
// Started by bench/owned_pages.sh, which installs the pinned npm packages and builds editgate:
//   node bench/owned_pages.mjs --editgate BIN --npm DIR --chromium PATH --workdir DIR
//        [--evals 200] [--default-evals 40] [--opens 10] [--starts 3] [--rounds 4] [--warmup 10]
//        [--only playwright]
// Everything it starts (the app, the gateway, Playwright MCP and their browsers) stops at the
// end; the work folder is the caller's to remove.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';

const opts = parseArgs(process.argv.slice(2));
const requireNpm = createRequire(path.join(opts.npm, 'package.json'));
const { Client } = requireNpm('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = requireNpm('@modelcontextprotocol/sdk/client/stdio.js');
const { StreamableHTTPClientTransport } = requireNpm('@modelcontextprotocol/sdk/client/streamableHttp.js');
const versionOf = (pkg) => JSON.parse(fs.readFileSync(path.join(opts.npm, 'node_modules', pkg, 'package.json'), 'utf8')).version;
const CALL = { timeout: 120000 };

function parseArgs(argv) {
  const o = { evals: 200, defaultEvals: 40, opens: 10, rounds: 4, warmup: 10, starts: 3, only: '' };
  const names = { '--editgate': 'editgate', '--npm': 'npm', '--chromium': 'chromium', '--workdir': 'workdir',
    '--evals': 'evals', '--default-evals': 'defaultEvals', '--opens': 'opens', '--rounds': 'rounds',
    '--warmup': 'warmup', '--starts': 'starts', '--only': 'only' };
  for (let i = 0; i < argv.length; i += 2) {
    const key = names[argv[i]];
    if (!key || argv[i + 1] === undefined) throw new Error(`owned_pages: unknown or incomplete option ${argv[i]}`);
    o[key] = typeof o[key] === 'number' ? Number(argv[i + 1]) : argv[i + 1];
    if (typeof o[key] === 'number' && !(Number.isInteger(o[key]) && o[key] > 0)) throw new Error(`${argv[i]}: a whole number above 0`);
  }
  if (!['', 'playwright'].includes(o.only)) throw new Error('--only: playwright (the Playwright MCP half alone)');
  for (const k of ['npm', 'chromium', 'workdir']) if (!o[k]) throw new Error(`owned_pages: --${k} is required`);
  if (!o.editgate && !o.only) throw new Error('owned_pages: --editgate is required');
  for (const k of ['editgate', 'npm', 'workdir']) if (o[k]) o[k] = path.resolve(o[k]);
  return o;
}

// The app: one static page whose script builds a list and names the page after its `n`, so an
// eval of document.title proves the script ran in the page the URL named.
const titleFor = (n) => `Owned Bench ${n}`;
function startApp() {
  const html = `<!doctype html><html><head><meta charset="utf-8"><title>loading</title></head><body>
<h1>Owned pages bench</h1><button id="add">Add</button><ul id="items"></ul>
<script>
const n = new URLSearchParams(location.search).get('n') ?? '0';
const ul = document.getElementById('items');
for (let i = 0; i < 20; i++) { const li = document.createElement('li'); li.textContent = 'item ' + i; ul.append(li); }
document.getElementById('add').onclick = () => { const li = document.createElement('li'); li.textContent = 'added'; ul.append(li); };
document.title = ${JSON.stringify(titleFor(''))} + n;
</script></body></html>`;
  const server = http.createServer((req, res) => {
    if (req.url === '/favicon.ico') { res.writeHead(404); res.end(); return; }
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' });
    res.end(html);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({
    url: (n) => `http://127.0.0.1:${server.address().port}/?n=${n}`,
    close: () => new Promise((r) => { server.closeAllConnections(); server.close(r); }),
  })));
}

const childEnv = () => ({ ...process.env, TMPDIR: path.join(opts.workdir, 'tmp'), XDG_STATE_HOME: path.join(opts.workdir, 'state') });

function check(result, what) {
  if (result.isError) {
    const text = (result.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');
    throw new Error(`${what} failed: ${text.slice(0, 2000)}`);
  }
  return result;
}
const textOf = (result) => (result.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');

// Playwright MCP answers an evaluate with Markdown; the value is the JSON under "### Result".
function playwrightValue(result) {
  const m = /### Result\n(.*)\n/.exec(textOf(result) + '\n');
  return m ? JSON.parse(m[1]) : undefined;
}

// One Playwright MCP server over stdio, as an MCP host starts it (`npx @playwright/mcp`), on
// Debian's Chromium; `extra` are its options beyond the launch ones.
async function playwrightSide(label, extra, run) {
  const cwd = path.join(opts.workdir, `playwright-${label}-${run}`);
  fs.mkdirSync(cwd, { recursive: true });
  const cli = path.join(opts.npm, 'node_modules/@playwright/mcp/cli.js');
  const args = [cli, '--executable-path', opts.chromium, '--headless', '--isolated', '--no-sandbox',
    '--output-dir', path.join(cwd, 'output'), ...extra];
  const started = performance.now();
  const transport = new StdioClientTransport({ command: process.execPath, args, cwd, env: childEnv(), stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d) => { stderr = (stderr + d).slice(-8000); });
  const client = new Client({ name: 'owned-pages-bench', version: '1.0.0' });
  await client.connect(transport);
  const call = async (name, args2) => check(await client.callTool({ name, arguments: args2 }, undefined, CALL), name);
  const side = {
    label, started, args: extra, pid: transport.pid,
    async open(url) { return call('browser_navigate', { url }); },
    async eval() { return playwrightValue(await call('browser_evaluate', { function: '() => document.title' })); },
    async newPage(url) { return call('browser_tabs', { action: 'new', url }); },
    async closePage() { return call('browser_tabs', { action: 'close' }); },
    async stop() {
      await client.close().catch(() => {});
      await stopPid(transport.pid, 'Playwright MCP');
    },
    stderr: () => stderr,
  };
  return side;
}

// A PID this bench started: waits for it to end after its client closed, then TERM, then KILL.
async function stopPid(pid, what) {
  if (!pid) return;
  const alive = () => { try { process.kill(pid, 0); return true; } catch { return false; } };
  for (let i = 0; i < 100 && alive(); ++i) await delay(50);
  if (!alive()) return;
  process.kill(pid, 'SIGTERM');
  for (let i = 0; i < 200 && alive(); ++i) await delay(50);
  if (alive()) { process.stderr.write(`owned_pages: ${what} ${pid} ignored SIGTERM, killing it\n`); process.kill(pid, 'SIGKILL'); }
}

function git(cwd, ...args) {
  return execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@example.com', ...args],
    { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

// editgate serve on a fresh repository, with the owned browser on Debian's Chromium, reached
// as any MCP client reaches it: POST /mcp with the cookie as a bearer token.
async function editgateSide(run) {
  const root = path.join(opts.workdir, `workspace-${run}`);
  fs.mkdirSync(root, { recursive: true });
  git(root, 'init', '-q', '-b', 'main');
  fs.writeFileSync(path.join(root, 'README.md'), 'owned pages bench\n');
  git(root, 'add', '-A');
  git(root, 'commit', '-q', '-m', 'start');
  const env = childEnv();
  const where = JSON.parse(execFileSync(opts.editgate, ['where', '--root', root, '--format', 'json'], { encoding: 'utf8', env }));
  const started = performance.now();
  const child = spawn(opts.editgate, ['serve', '--port', '0', '--root', root, '--browser', opts.chromium],
    { stdio: ['ignore', 'ignore', 'pipe'], env });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr = (stderr + d).slice(-8000); });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let server = null;
  for (let i = 0; i < 600 && !server; ++i) {
    if (child.exitCode !== null) throw new Error(`editgate serve exited (${child.exitCode}):\n${stderr}`);
    if (fs.existsSync(where.port)) server = JSON.parse(fs.readFileSync(where.server_json, 'utf8'));
    if (server?.pid !== child.pid) { server = null; await delay(20); }
  }
  if (!server || server.pid !== child.pid) throw new Error(`editgate serve did not publish its port:\n${stderr}`);
  const cookie = fs.readFileSync(where.cookie, 'utf8').trim();
  const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${server.port}/mcp`),
    { requestInit: { headers: { Authorization: `Bearer ${cookie}` } } });
  const client = new Client({ name: 'owned-pages-bench', version: '1.0.0' });
  await client.connect(transport);
  const call = async (name, args) => check(await client.callTool({ name, arguments: args }, undefined, CALL), name).structuredContent;
  const tools = (await client.listTools()).tools.map((t) => t.name);
  let page = null;
  let last = null;
  const side = {
    label: 'editgate', started, root, tools, pid: child.pid, serveLog: where.serve_log,
    async open(url) { last = await call('page_open', page ? { url, page } : { url }); page ??= last.page; return last; },
    async eval(on = page) { last = await call('page_eval', { page: on, code: 'document.title' }); return last.value; },
    async newPage(url) { const r = await call('page_open', { url }); side.extra = r.page; return r; },
    async evalExtra() { return side.eval(side.extra); },
    async closePage() { return call('page_close', { page: side.extra }); },
    page: () => page,
    lastReply: () => last,
    async stop() {
      await client.close().catch(() => {});
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const done = await Promise.race([exited, delay(15000).then(() => 'late')]);
      if (done === 'late') { child.kill('SIGKILL'); await exited; }
    },
    stderr: () => stderr,
  };
  return side;
}

// The REPL's ref holds every exchange: a commit per exchange, or one for a group, whose
// Editgate-Job trailers name its jobs. Waits (commits trail the replies) up to 60 s; returns how
// many of `jobs` (all on `page`) it found, and after how many ms.
async function committedJobs(side, page, jobs) {
  const root = side.root;
  const t0 = performance.now();
  let found = new Set();
  for (let i = 0; i < 600; ++i) {
    const refs = git(root, 'for-each-ref', '--format=%(refname)', 'refs/editgate/repl/').trim().split('\n').filter(Boolean);
    found = new Set();
    for (const ref of refs) {
      for (const body of git(root, 'log', '--format=%B%x00', ref).split('\0')) {
        if (!body.includes(`Editgate-Page: ${page}\n`)) continue;
        for (const m of body.matchAll(/^Editgate-Job: (\d+)$/gm)) found.add(Number(m[1]));
      }
    }
    if (jobs.every((j) => found.has(j))) break;
    await delay(100);
  }
  const missing = jobs.filter((j) => !found.has(j));
  if (missing.length) {
    // What the ref says of them, for the reader to judge.
    const log = git(root, 'log', '--format=%H %s%n%b', ...git(root, 'for-each-ref', '--format=%(refname)', 'refs/editgate/repl/').trim().split('\n'));
    process.stderr.write(`owned_pages: jobs not found on the REPL's ref: ${missing.join(' ')}\n`);
    for (const j of missing.slice(0, 5)) {
      const lines = log.split('\n').filter((l) => new RegExp(`job ${j}\\b|Job: ${j}$`).test(l));
      process.stderr.write(`  job ${j}: ${lines.length ? lines.join(' | ') : 'no line names it'}\n`);
    }
    const serveLog = fs.existsSync(side.serveLog) ? fs.readFileSync(side.serveLog, 'utf8').split('\n') : [];
    process.stderr.write(`the gateway's log (${side.serveLog}), its REPL lines:\n${serveLog.filter((l) => /REPL|commit/i.test(l)).slice(-20).join('\n')}\n`);
  }
  return { count: jobs.length - missing.length, ms: performance.now() - t0 };
}

// Nearest rank below, as bench/percentiles.hpp; undefined for no samples.
const pct = (v, q) => { const s = [...(v ?? [])].sort((a, b) => a - b); return s[Math.floor(q * (s.length - 1))]; };
const fmt = (x) => (x === undefined ? '—' : x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
const ratio = (a, b) => (a === undefined || b === undefined ? '—' : `${a / b >= 0.1 ? (a / b).toFixed(2) : (a / b).toPrecision(2)}×`);

async function expectTitle(value, n, who) {
  if (value !== titleFor(n)) throw new Error(`${who}: the eval read ${JSON.stringify(value)}, not ${JSON.stringify(titleFor(n))}`);
}

// Open (or navigate to) the app's page n and evaluate once: [ms from the open's call to the
// eval's reply, ms of the open alone].
async function openThenEval(side, n, fresh) {
  const t0 = performance.now();
  if (fresh) await side.newPage(app.url(n)); else await side.open(app.url(n));
  const t1 = performance.now();
  const value = fresh && side.evalExtra ? await side.evalExtra() : await side.eval();
  const t2 = performance.now();
  await expectTitle(value, n, side.label);
  return [t2 - t0, t1 - t0];
}

// Each side's first page on a fresh server (a new process, browser and workspace): what an
// agent waits for before its first eval. `starts` times, the sides taking turns, one started
// after the other's first page so their browsers' starts do not overlap; all but the last run's
// servers are stopped again, the last ones pushed onto `sides`.
async function firstPages(results, sides) {
  const factories = [
    ...(opts.only ? [] : [(run) => editgateSide(run)]),
    (run) => playwrightSide('defaults', [], run),
    (run) => playwrightSide('lean', ['--timeout-settle', '0', '--snapshot-mode', 'none'], run),
  ];
  for (let run = 1; run <= opts.starts; ++run) {
    for (const factory of factories) {
      const side = await factory(run);
      sides.push(side);
      if (side.tools && !side.tools.includes('page_open')) throw new Error(`this editgate has no page_open tool (tools: ${side.tools.join(', ')})`);
      const [first, open] = await openThenEval(side, 1, false);
      const r = (results[side.label] ??= { first: [], firstOpen: [], fromStart: [], again: [], fresh: [], evals: [] });
      r.first.push(first);
      r.firstOpen.push(open);
      r.fromStart.push(performance.now() - side.started);
      if (run < opts.starts) { sides.pop(); await side.stop(); }
    }
  }
}

// Another URL in the same page, then a new page (opened, evaluated, closed), `opens` times, the
// sides taking turns; then back on the first page at ?n=2.
async function opens(results, sides) {
  for (let i = 0; i < opts.opens; ++i) {
    for (const side of sides) results[side.label].again.push((await openThenEval(side, 100 + i, false))[0]);
    for (const side of sides) {
      results[side.label].fresh.push((await openThenEval(side, 200 + i, true))[0]);
      await side.closePage();
    }
  }
  for (const side of sides) await openThenEval(side, 2, false);
}

// The eval round trips: warm-up, then rounds with the sides taking turns, so a slow moment of
// the machine falls on all of them. The defaults' evals each wait the 500 ms settle, so they
// get fewer samples. Returns editgate's jobs.
async function roundTrips(results, sides) {
  const jobs = [];
  for (const side of sides)
    for (let i = 0; i < opts.warmup; ++i) await expectTitle(await side.eval(), 2, side.label);
  for (let r = 0; r < opts.rounds; ++r) {
    for (const side of sides) {
      const total = side.label === 'defaults' ? opts.defaultEvals : opts.evals;
      const count = Math.floor(total / opts.rounds) + (r < total % opts.rounds ? 1 : 0);
      for (let i = 0; i < count; ++i) {
        const t0 = performance.now();
        const value = await side.eval();
        results[side.label].evals.push(performance.now() - t0);
        await expectTitle(value, 2, side.label);
        if (side.label === 'editgate') jobs.push(side.lastReply().job);
      }
    }
  }
  return jobs;
}

function printTable(results, eg) {
  const rows = [
    [`first page: open → first eval (fresh server), p50 of ${opts.starts}`, (r) => pct(r?.first, 0.5)],
    ['  of which the open', (r) => pct(r?.firstOpen, 0.5)],
    [`process start → first eval, p50 of ${opts.starts}`, (r) => pct(r?.fromStart, 0.5)],
    [`another URL in the same page → eval, p50 of ${opts.opens}`, (r) => pct(r?.again, 0.5)],
    [`a new page → eval, p50 of ${opts.opens}`, (r) => pct(r?.fresh, 0.5)],
    ['eval round trip p50', (r) => pct(r?.evals, 0.5)],
    ['eval round trip p90', (r) => pct(r?.evals, 0.9)],
  ];
  const count = (label) => results[label]?.evals.length ?? 0;
  console.log(`editgate ${eg ? opts.editgate : '(not run: --only playwright)'}; Chromium ${opts.chromium}; Playwright MCP ${versionOf('@playwright/mcp')} ` +
    `(Playwright ${versionOf('playwright')}); @modelcontextprotocol/sdk ${versionOf('@modelcontextprotocol/sdk')}; Node ${process.version}`);
  console.log(`evals: editgate ${count('editgate')}, Playwright MCP defaults ${count('defaults')}, lean ${count('lean')}; ` +
    `${opts.rounds} rounds, ${opts.warmup} warm-up each`);
  console.log('');
  console.log('| ms | editgate (page_open, page_eval) | Playwright MCP defaults | Playwright MCP lean | editgate / defaults | editgate / lean |');
  console.log('|---|---|---|---|---|---|');
  for (const [name, get] of rows) {
    const [e, d, l] = ['editgate', 'defaults', 'lean'].map((label) => get(results[label]));
    console.log(`| ${name} | ${fmt(e)} | ${fmt(d)} | ${fmt(l)} | ${ratio(e, d)} | ${ratio(e, l)} |`);
  }
  console.log('');
  console.log('Playwright MCP defaults: `--headless --isolated --no-sandbox` (settle 500 ms after every action, ' +
    'the page snapshot after navigate written to a file); lean: also `--timeout-settle 0 --snapshot-mode none`.');
}

fs.mkdirSync(path.join(opts.workdir, 'tmp'), { recursive: true });
const app = await startApp();
const sides = [];
// Stopped from outside: the servers this bench started are told to stop (they end their browsers).
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    for (const s of sides) try { process.kill(s.pid, 'SIGTERM'); } catch { /* gone */ }
    process.exit(130);
  });
}
try {
  const results = {};
  await firstPages(results, sides);
  const eg = sides.find((s) => s.label === 'editgate');
  const logPath = eg?.lastReply().log;
  await opens(results, sides);
  const jobs = await roundTrips(results, sides);
  const committed = eg ? await committedJobs(eg, eg.page(), jobs) : null;
  printTable(results, eg);
  if (eg) {
    console.log(`editgate: every page_eval logged in ${logPath} and committed on the REPL's ref: ` +
      `${committed.count} of the ${jobs.length} timed evals found there, ${(committed.ms / 1000).toFixed(1)} s after the last reply.`);
    if (committed.count !== jobs.length) process.exitCode = 1;
  }
} catch (e) {
  for (const s of sides) if (s.stderr()) process.stderr.write(`--- ${s.label} stderr (tail):\n${s.stderr()}\n`);
  throw e;
} finally {
  for (const s of sides) await s.stop().catch((e) => process.stderr.write(`owned_pages: stopping ${s.label}: ${e}\n`));
  await app.close();
}
