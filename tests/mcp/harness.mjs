// What the MCP tests share: a git workspace in a temporary folder, `editgate
// serve` on it (port and cookie read from the files `editgate where` names, as
// any client reads them), and a headless Chromium tab on a page that loads the
// gateway's /adapter.js.
// Everything started here is stopped by the returned close()/stop().
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';

export function git(root, ...args) {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args],
    { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

// A new git repository holding `files` (path -> text), committed.
export function workspace(files = {}) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'editgate-mcp-'));
  git(root, 'init', '-q', '-b', 'main');
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
  git(root, 'add', '-A');
  git(root, 'commit', '-q', '--allow-empty', '-m', 'start');
  return root;
}

// Polls `probe` (no sleeps as assertions: this only waits for a state to come).
export async function waitFor(what, probe, { tries = 400, every = 50 } = {}) {
  for (let i = 0; i < tries; ++i) {
    const v = await probe();
    if (v) return v;
    await delay(every);
  }
  throw new Error(`${what} did not happen`);
}

// What `editgate where` names for the workspace at `root` (its state folder's
// files, the agents' folder): absolute paths, known before a gateway runs.
export function places(binary, root) {
  return JSON.parse(execFileSync(binary, ['where', '--root', root, '--format', 'json'],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }));
}

// `editgate serve --port 0` on `root`; resolves once its server.json names its pid.
export async function serve(binary, root, extra = []) {
  const where = places(binary, root);
  const child = spawn(binary, ['serve', '--port', '0', '--root', root, ...extra],
    { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let early = null;
  exited.then((code) => { early = code; });
  const server = await waitFor(`the gateway publishing ${where.port}`, () => {
    if (early !== null) throw new Error(`editgate serve exited (${early}):\n${stderr}`);
    if (!fs.existsSync(where.port)) return null;
    return JSON.parse(fs.readFileSync(where.server_json, 'utf8'));
  });
  if (server.pid !== child.pid) throw new Error(`server.json names pid ${server.pid}, not ${child.pid}`);
  const cookie = fs.readFileSync(where.cookie, 'utf8').trim();
  return {
    root, server, cookie, port: server.port,
    url: `http://127.0.0.1:${server.port}/mcp`,
    stderr: () => stderr,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const done = await Promise.race([exited, delay(15000).then(() => 'late')]);
      if (done === 'late') {
        child.kill('SIGKILL');
        await exited;
      }
    },
  };
}

export function chromium() {
  for (const p of ['/usr/bin/chromium', '/usr/bin/chromium-browser']) {
    try {
      fs.accessSync(p, fs.constants.X_OK);
      return p;
    } catch { /* next */ }
  }
  return null;
}

// A page on 127.0.0.1 that loads the gateway's /adapter.js, open in headless
// Chromium; resolves once it is served (the tab itself connects on its own).
export async function tab(gw, title = 'MCP Tab') {
  const html = `<!doctype html><title>${title}</title><body><script src="http://127.0.0.1:${gw.port}/adapter.js?workspace=${gw.server.workspace_id}" crossorigin></script></body>`;
  const site = http.createServer((req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html' });
    res.end(html);
  });
  await new Promise((resolve) => site.listen(0, '127.0.0.1', resolve));
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'editgate-mcp-chromium-'));
  const browser = spawn(chromium(), ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync',
    `--user-data-dir=${profile}`, `http://127.0.0.1:${site.address().port}/index.html`],
  { stdio: 'ignore', detached: true });
  const exited = new Promise((resolve) => browser.once('exit', resolve));
  return {
    async close() {
      try { process.kill(-browser.pid, 'SIGKILL'); } catch { /* gone */ }
      await exited;
      site.closeAllConnections();
      await new Promise((resolve) => site.close(resolve));
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}
