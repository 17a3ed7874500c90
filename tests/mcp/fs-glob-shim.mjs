// node:fs as it is, plus `globSync` where Node lacks it (Node 20). The
// conformance bundle calls it once, as globSync('**/checks.json', { cwd }), to
// find result files; this covers patterns of `**`, `*` and literal segments
// relative to `cwd`, returning relative paths as Node 22's globSync does.
import fs from 'node:fs';
import path from 'node:path';

export * from 'node:fs';
export default fs;

function segmentRegex(segment) {
  const escaped = segment.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]');
  return new RegExp('^' + escaped + '$');
}

function walk(dir, rel, segments, out) {
  if (segments.length === 0) {
    out.add(rel);
    return;
  }
  const [head, ...rest] = segments;
  let entries;
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  if (head === '**') {
    walk(dir, rel, rest, out);  // ** matches no folder at all, too
    for (const e of entries) {
      if (e.isDirectory()) walk(path.join(dir, e.name), rel ? path.join(rel, e.name) : e.name, segments, out);
    }
    return;
  }
  const re = segmentRegex(head);
  for (const e of entries) {
    if (!re.test(e.name)) continue;
    if (rest.length > 0 && !e.isDirectory()) continue;
    walk(path.join(dir, e.name), rel ? path.join(rel, e.name) : e.name, rest, out);
  }
}

function globSyncShim(pattern, options = {}) {
  const cwd = options.cwd ? String(options.cwd) : process.cwd();
  const out = new Set();
  for (const p of Array.isArray(pattern) ? pattern : [pattern]) {
    walk(cwd, '', p.split('/').filter((s) => s !== ''), out);
  }
  return [...out];
}

export const globSync = fs.globSync ?? globSyncShim;
