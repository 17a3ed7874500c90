import { el } from './dom.js';
import { state } from './state.js';

// A run's blocks and a commit's files, as `show` and `runs` give them.
export function renderBlocks(blocks) {
  const ul = el('ul', 'blocks');
  ul.setAttribute('aria-label', 'Blocks');
  for (const b of blocks) {
    const bad = b.status === 'failed' || b.status === 'not_in_context';
    const li = el('li', 'block ' + (bad ? 'failed' : 'st-' + b.status));
    const top = el('div', 'line');
    top.append(el('span', 'badge', 'block ' + (b.index + 1)), el('span', 'status', b.status));
    if (b.path) top.append(el('span', 'mono', b.path + (b.line ? ':' + b.line : '')));
    if (b.reason) top.append(el('span', 'reason', b.reason));
    li.append(top);
    if (b.diagnostic) li.append(el('pre', 'diagnostic', b.diagnostic));
    ul.append(li);
  }
  return ul;
}
export function renderFile(f) {
  const box = el('section', 'file');
  const h = el('div', 'file-head');
  h.append(el('span', 'badge fs-' + f.status, f.status),
    el('span', 'mono', f.old_path && f.old_path !== f.path ? f.old_path + ' → ' + f.path : f.path));
  box.append(h);
  if (f.binary) { box.append(el('p', 'muted', 'binary file')); return box; }
  // The columns' widths come from the <colgroup> (table-layout: fixed would take them from the
  // first row, a hunk header spanning them all): line numbers as wide as the largest has
  // digits, the code the rest.
  let widest = 1;
  for (const hunk of f.hunks || []) for (const l of hunk.lines || []) widest = Math.max(widest, l.old || 0, l.new || 0);
  const digits = Math.min(7, Math.max(3, String(widest).length));
  const split = state.diffMode === 'split';
  const t = el('table', 'diff ' + state.diffMode + ' digits-' + digits);
  const cols = el('colgroup');
  for (const c of split ? ['ln', 'text', 'ln', 'text'] : ['ln', 'ln', 'text']) cols.append(el('col', c));
  t.append(cols);
  const body = el('tbody');
  for (const hunk of f.hunks || []) {
    const hr = el('tr', 'hunk');
    const td = el('td', '', hunk.header);
    td.colSpan = split ? 4 : 3;
    hr.append(td);
    body.append(hr);
    if (split) splitRows(body, hunk.lines || []); else unifiedRows(body, hunk.lines || []);
  }
  t.append(body);
  box.append(t);
  return box;
}
const lineCls = { '+': 'add', '-': 'del', ' ': 'ctx' };
function unifiedRows(t, lines) {
  for (const l of lines) {
    const tr = el('tr', lineCls[l.t] || 'ctx');
    tr.append(el('td', 'ln', l.old), el('td', 'ln', l.new), el('td', 'text', (l.t || ' ') + l.text));
    t.append(tr);
  }
}
function splitRows(t, lines) {
  // A run of removed lines and the added lines after it sit side by side, row by row.
  let i = 0;
  while (i < lines.length) {
    if (lines[i].t === ' ') { pair(t, lines[i], lines[i]); i++; continue; }
    const del = [], add = [];
    while (i < lines.length && lines[i].t === '-') del.push(lines[i++]);
    while (i < lines.length && lines[i].t === '+') add.push(lines[i++]);
    for (let k = 0; k < Math.max(del.length, add.length); k++) pair(t, del[k], add[k]);
  }
}
function pair(t, a, b) {
  const tr = el('tr', a === b ? 'ctx' : 'chg');
  tr.append(el('td', 'ln', a ? a.old : ''), el('td', 'text ' + (a && a !== b ? 'del' : a ? '' : 'none'), a ? a.text : ''),
    el('td', 'ln', b ? b.new : ''), el('td', 'text ' + (b && a !== b ? 'add' : b ? '' : 'none'), b ? b.text : ''));
  t.append(tr);
}
