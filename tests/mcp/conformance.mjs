// The official MCP conformance suite (npm @modelcontextprotocol/conformance,
// installed by setup.sh) against a real gateway, one spec revision per run:
//   node conformance.mjs EDITGATE NPM_DIR 2025-11-25|2026-07-28 [OUT_DIR]
// 2025-11-25 runs conformance 0.1.16 (`--spec-version 2025-11-25`: it has no
// --requirements); 2026-07-28 runs 0.2.0-alpha.12 (`--requirements 2026-07-28`,
// the frozen set). Each has a baseline, expected-failures-<revision>.yml, whose
// every entry is explained in docs/mcp-conformance.md. Exit: the suite's own
// (0: nothing failed outside the baseline and no baselined entry passed);
// 1 when the packages setup.sh installs are missing.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { startProxy } from './auth_proxy.mjs';
import { serve, workspace } from './harness.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const [editgate, npmDir, revision, outArg] = process.argv.slice(2);
const runs = {
  '2025-11-25': { pkg: 'conf-2025', select: ['--spec-version', '2025-11-25'] },
  '2026-07-28': { pkg: 'conf-2026', select: ['--requirements', '2026-07-28'] },
};
if (!editgate || !npmDir || !runs[revision]) {
  console.error('usage: conformance.mjs EDITGATE NPM_DIR 2025-11-25|2026-07-28 [OUT_DIR]');
  process.exit(2);
}
const run = runs[revision];
const cli = path.join(npmDir, run.pkg, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
if (!fs.existsSync(cli)) {
  console.error(`conformance.mjs: ${cli} is missing (tests/mcp/setup.sh installs it)`);
  process.exit(1);
}
const out = outArg ?? fs.mkdtempSync(path.join(npmDir, `results-${revision}-`));
fs.rmSync(out, { recursive: true, force: true });

const root = workspace({ 'README.md': 'conformance workspace\n' });
const gw = await serve(editgate, root, ['--no-node']);
const proxy = await startProxy({ gatewayPort: gw.port, cookie: gw.cookie });
let code = 1;
try {
  const args = ['--import', path.join(here, 'fs-glob-register.mjs'), cli, 'server',
    '--url', `http://127.0.0.1:${proxy.port}/mcp`, ...run.select,
    '--expected-failures', path.join(here, `expected-failures-${revision}.yml`), '-o', out];
  console.log(`gateway on ${gw.port}, proxy on ${proxy.port}; node ${args.join(' ')}`);
  const child = spawn(process.execPath, args, { stdio: 'inherit' });
  code = await new Promise((resolve) => child.once('exit', (c, sig) => resolve(c ?? (sig ? 128 : 1))));
} finally {
  await proxy.close();
  await gw.stop();
  if (code !== 0) console.error(`results in ${out}\ngateway stderr:\n${gw.stderr()}`);
  fs.rmSync(root, { recursive: true, force: true });
}
process.exit(code);
