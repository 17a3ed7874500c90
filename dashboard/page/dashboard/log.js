import { $, el } from './dom.js';
import { logImages, renderShots } from './shots.js';
import { call } from './socket.js';
import { state } from './state.js';

// ---- a page's Log: the tail first, earlier pages on demand, following `exchange` events ----
const log = { page: null, path: '', first: null, last: -1, nodes: new Map(), busy: false, again: false, gen: 0 };
export function fillLogPicker() {
  const sel = $('log-page');
  const names = state.pages.map((p) => p.page);
  if (state.logPage && !names.includes(state.logPage)) names.push(state.logPage);
  if (Array.from(sel.options).map((o) => o.value).join('\n') !== names.join('\n')) {
    sel.replaceChildren(...names.map((n) => { const o = el('option', '', n); o.value = n; return o; }));
  }
  if (!state.logPage && names.length) openLog(state.pages.find((p) => p.kind === 'node') ? state.pages.find((p) => p.kind === 'node').page : names[0]);
  sel.value = state.logPage || '';
}
$('log-page').addEventListener('change', (ev) => openLog(ev.target.value));
function entryNode(e) {
  const d = el('div', 'entry kind-' + (e.kind || 'note'));
  d.dataset.offset = String(e.offset);
  const h = el('div', 'entry-head');
  h.append(el('span', 'tag', e.kind || 'note'));
  if (e.from || e.to) h.append(el('span', 'who', [e.from, e.to].filter(Boolean).join(' → ')));
  if (e.clock) h.append(el('span', 'clock', e.clock));
  const body = el('div', 'md');
  // cmark-gfm's safe HTML, rendered by the gateway, parsed inert first: its screenshots' links
  // are the log's, relative to its folder, and are pointed at the door before anything loads.
  const t = document.createElement('template');
  t.innerHTML = e.html || '';
  logImages(t.content, log.path);
  body.append(t.content);
  d.append(h, body);
  return d;
}
function atBottom(s) { return s.scrollHeight - s.scrollTop - s.clientHeight < 24; }
export function scrollLogToEnd() {
  const s = $('log-scroll');
  if ($('log-follow').checked) s.scrollTop = s.scrollHeight;
}
export function openLog(page) {
  if (!page) return;
  state.logPage = page;
  log.page = page; log.path = ''; log.first = null; log.last = -1; log.nodes.clear(); log.gen++;
  $('log-entries').replaceChildren();
  $('log-path').textContent = '';
  $('log-page').value = page;
  renderShots();
  $('log-earlier').hidden = true;
  $('log-start').hidden = true;
  const gen = log.gen;
  call('log', { page }).then((r) => {
    if (gen !== log.gen) return;
    log.path = r.log || '';
    $('log-path').textContent = log.path;
    addEntries(r.entries || [], false);
    setEarlier(r.next_before);
    $('log-scroll').scrollTop = $('log-scroll').scrollHeight;
  }).catch((e) => { if (gen === log.gen) $('log-entries').replaceChildren(el('p', 'error', 'log: ' + e.message)); });
}
function setEarlier(nb) {
  log.first = nb;
  $('log-earlier').hidden = nb === null || nb === undefined;
  $('log-start').hidden = !(nb === null || nb === undefined) || log.nodes.size === 0;
}
function addEntries(entries, prepend) {
  const box = $('log-entries');
  const frag = document.createDocumentFragment();
  for (const e of entries) {
    const old = log.nodes.get(e.offset);
    const n = entryNode(e);
    if (old) { old.replaceWith(n); log.nodes.set(e.offset, n); continue; }
    if (!prepend && e.offset <= log.last) continue;
    log.nodes.set(e.offset, n);
    frag.append(n);
    if (e.offset > log.last) log.last = e.offset;
  }
  if (prepend) box.prepend(frag); else box.append(frag);
}
$('log-earlier').addEventListener('click', () => {
  if (log.first === null || log.first === undefined) return;
  const s = $('log-scroll');
  const gen = log.gen;
  const before = s.scrollHeight;
  call('log', { page: log.page, before: log.first }).then((r) => {
    if (gen !== log.gen) return;
    addEntries(r.entries || [], true);
    setEarlier(r.next_before);
    s.scrollTop += s.scrollHeight - before;  // what was on screen stays where it was
  }).catch(() => {});
});
export function followLog() {
  if (log.busy) { log.again = true; return; }
  log.busy = true;
  const gen = log.gen;
  const s = $('log-scroll');
  const stick = $('log-follow').checked || atBottom(s);
  fetchSince(log.page, gen, null, [], 0).then((entries) => {
    if (gen !== log.gen) return;
    addEntries(entries, false);
    if (stick) s.scrollTop = s.scrollHeight;
  }).catch(() => {}).finally(() => {
    log.busy = false;
    if (log.again) { log.again = false; followLog(); }
  });
}
// The tail back to the newest entry already shown, page by page (a burst can outgrow one tail).
function fetchSince(page, gen, before, acc, n) {
  const params = { page, limit_bytes: 65536 };
  if (before !== null) params.before = before;
  return call('log', params).then((r) => {
    const got = (r.entries || []).concat(acc);
    const reached = r.next_before === null || (r.entries || []).some((e) => e.offset <= log.last) || log.last < 0;
    if (reached || gen !== log.gen) return got;
    if (n >= 16) { openLog(page); return []; }
    return fetchSince(page, gen, r.next_before, got, n + 1);
  });
}
