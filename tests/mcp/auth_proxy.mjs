// A loopback proxy in front of the gateway's /mcp for MCP clients that cannot
// send an Authorization header (the conformance suite has no option for one):
// every request is forwarded to the gateway with `Authorization: Bearer
// <cookie>` added, responses (SSE included) stream back chunk by chunk.
//
// Host and Origin are forwarded as the client sent them, with one translation:
// the proxy's own authority (127.0.0.1:<proxy port>, localhost:<proxy port>)
// becomes the gateway's, as if the client had dialled the gateway directly.
// Any other value, such as a DNS-rebinding probe's Host: evil.example.com,
// reaches the gateway untouched, so its Host/Origin checks are what answers.
//
// As a module: startProxy({ gatewayPort, cookie }) -> { port, close() }.
// As a command: node auth_proxy.mjs GATEWAY_PORT COOKIE_FILE prints
// `listening <port>` on stdout and runs until stdin closes or SIGTERM.
import fs from 'node:fs';
import http from 'node:http';
import { pathToFileURL } from 'node:url';

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te',
  'trailer', 'proxy-authorization', 'proxy-authenticate']);

function translate(value, own, target) {
  if (value === undefined) return undefined;
  for (const name of ['127.0.0.1', 'localhost']) {
    const from = `${name}:${own}`;
    if (value === from) return `${name}:${target}`;
    if (value === `http://${from}`) return `http://${name}:${target}`;
  }
  return value;
}

export function startProxy({ gatewayPort, cookie }) {
  const token = cookie.trim();
  const agent = new http.Agent({ keepAlive: true });
  const server = http.createServer((req, res) => {
    const own = server.address().port;
    const headers = {};
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      const name = req.rawHeaders[i];
      const lower = name.toLowerCase();
      if (HOP_BY_HOP.has(lower) || lower === 'authorization') continue;
      let value = req.rawHeaders[i + 1];
      if (lower === 'host' || lower === 'origin') value = translate(value, own, gatewayPort);
      headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
    }
    headers.Authorization = `Bearer ${token}`;
    const upstream = http.request({ host: '127.0.0.1', port: gatewayPort, method: req.method, path: req.url,
      headers, agent, setHost: false });
    upstream.on('response', (up) => {
      const out = {};
      for (const [k, v] of Object.entries(up.headers)) if (!HOP_BY_HOP.has(k)) out[k] = v;
      res.writeHead(up.statusCode, up.statusMessage, out);
      res.flushHeaders();
      up.on('data', (chunk) => res.write(chunk));  // unbuffered: each SSE event as it comes
      up.on('end', () => res.end());
      up.on('error', () => res.destroy());
    });
    upstream.on('error', (err) => {
      if (res.headersSent) return res.destroy();
      res.writeHead(502, { 'Content-Type': 'text/plain' });
      res.end(`auth_proxy: ${err.message}\n`);
    });
    // The client closing its side (an aborted SSE stream: a cancel in
    // 2026-07-28) closes the gateway's side too.
    res.on('close', () => { if (!res.writableFinished) upstream.destroy(); });
    req.pipe(upstream);
  });
  server.on('connection', (s) => s.setNoDelay(true));
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve({
      port: server.address().port,
      close: () => new Promise((done) => { server.closeAllConnections(); agent.destroy(); server.close(() => done()); }),
    }));
  });
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [gatewayPort, cookieFile] = process.argv.slice(2);
  if (!gatewayPort || !cookieFile) {
    console.error('usage: auth_proxy.mjs GATEWAY_PORT COOKIE_FILE');
    process.exit(2);
  }
  const proxy = await startProxy({ gatewayPort: Number(gatewayPort), cookie: fs.readFileSync(cookieFile, 'utf8') });
  process.stdout.write(`listening ${proxy.port}\n`);
  const stop = () => proxy.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.stdin.on('end', stop);
  process.stdin.resume();
}
