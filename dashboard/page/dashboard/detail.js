import { $, clock, el } from './dom.js';
import { renderBlocks, renderFile } from './diff.js';
import { call } from './socket.js';
import { state } from './state.js';

// ---- a history entry's detail: its blocks and diff, the commit it links to, the way back ----

// The commits shown before, when a link was followed: the way back.
const back = [];

const shortId = (id) => String(id || '').slice(0, 10);
// The commit on the other side a commit names: the REPL's tip when an edit was made, the
// branch's commit a REPL exchange saw.
export function linkOf(trailers) {
  const t = trailers || {};
  if (t['Editgate-Repl']) return { label: 'REPL then', commit: t['Editgate-Repl'], where: 'repl' };
  if (t['Editgate-Branch']) return { label: 'branch then', commit: t['Editgate-Branch'], where: 'branch' };
  return null;
}
function markSelected(key) {
  state.selectedCommit = key;
  for (const li of $('history-list').querySelectorAll('[role=option]')) li.setAttribute('aria-selected', li.dataset.key === key ? 'true' : 'false');
}
export function selectHistory(key) {
  const item = state.history && state.history.get(key);
  if (!item) return;
  back.length = 0;
  markSelected(key);
  const d = $('history-detail');
  if (!item.commit) return renderDetail(d, { summary: item.summary, agent: item.agent, time: item.time, files: [], blocks: item.run.blocks || [] }, item);
  showCommit(item.commit, item, key);
}
function showCommit(commit, item, key) {
  const d = $('history-detail');
  d.replaceChildren(el('p', 'muted', 'loading ' + shortId(commit) + '…'));
  d.dataset.commit = commit;
  call('show', { commit }).then((s) => {
    if (d.dataset.commit === commit && state.selectedCommit === key) renderDetail(d, s, item);
  }).catch((e) => { if (d.dataset.commit === commit) d.replaceChildren(el('p', 'error', 'show: ' + e.message)); });
}
// A link followed: that commit in the detail (and selected, when it is in the list shown),
// with the way back to the one it came from.
function followLink(commit, from) {
  back.push(from);
  openLinked(commit);
}
function openLinked(commit) {
  const item = state.history && state.history.get(commit);
  const key = item ? commit : 'linked-' + commit;
  markSelected(key);
  showCommit(commit, item || { summary: '', agent: '', time: 0, page: '' }, key);
}
function renderDetail(d, s, item) {
  const head = el('header', 'detail-head');
  if (back.length) {
    const prev = back[back.length - 1];
    const b = el('button', 'link back', '← back to ' + shortId(prev));
    b.addEventListener('click', () => { back.pop(); openLinked(prev); });
    head.append(b);
  }
  head.append(el('h2', '', s.summary || item.summary));
  const meta = el('div', 'meta');
  if (s.kind || item.kind) meta.append(el('span', 'badge', s.kind || item.kind));
  if (s.commit) meta.append(el('span', 'mono commit-id', s.commit.slice(0, 12)));
  meta.append(el('span', '', s.agent || (s.author && s.author.name) || item.agent || ''));
  if (s.page || item.page) meta.append(el('span', 'mono', s.page || item.page));
  meta.append(el('span', 'muted', clock(s.time || item.time)));
  if (!s.commit) meta.append(el('span', 'warn', 'not committed'));
  head.append(meta);
  const link = s.commit ? linkOf(s.trailers) : null;
  if (link) {
    const p = el('div', 'meta links');
    p.append(el('span', 'muted', link.label));
    const b = el('button', 'link mono commit-link', shortId(link.commit));
    b.dataset.commit = link.commit;
    b.dataset.where = link.where;
    b.title = (link.where === 'repl' ? 'the REPL\'s commit when this edit was made: ' : 'the branch\'s commit this exchange saw: ') + link.commit;
    b.setAttribute('aria-label', 'show ' + (link.where === 'repl' ? 'the REPL commit ' : 'the branch commit ') + shortId(link.commit));
    b.addEventListener('click', () => followLink(link.commit, s.commit));
    p.append(b);
    head.append(p);
  }
  const parts = [head];
  const blocks = (s.blocks && s.blocks.length ? s.blocks : (item.run && item.run.blocks)) || [];
  if (blocks.length) parts.push(renderBlocks(blocks));
  if (s.files && s.files.length) {
    const bar = el('div', 'toolbar');
    bar.setAttribute('role', 'group');
    bar.setAttribute('aria-label', 'Diff layout');
    for (const [mode, label] of [['unified', 'unified'], ['split', 'side by side']]) {
      const b = el('button', 'toggle', label);
      b.setAttribute('aria-pressed', state.diffMode === mode ? 'true' : 'false');
      b.addEventListener('click', () => { state.diffMode = mode; renderDetail(d, s, item); });
      bar.append(b);
    }
    parts.push(bar);
    for (const f of s.files) parts.push(renderFile(f));
  }
  if (s.cut) parts.push(el('p', 'warn', 'cut: ' + (typeof s.cut === 'string' ? s.cut : JSON.stringify(s.cut))));
  d.replaceChildren(...parts);
}
