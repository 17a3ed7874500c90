import { $, el, keepRoving, listNav, shortClock, timeOf } from './dom.js';
import { linkOf, selectHistory } from './detail.js';
import { call } from './socket.js';
import { state } from './state.js';

// ---- History: the branch's code changes (with the gateway's recent edit runs) or the REPL's
// exchanges (its own ref), newest first, a page at a time; "load earlier" continues from the
// oldest one shown (the op's next_before) down to the first commit ----
const HISTORY_PAGE = 50;
const hist = {
  which: 'branch',  // or 'repl'
  branch: { commits: [], next: null, ref: '' },
  repl: { commits: [], next: null, ref: '' },
  runs: [],
  chain: Promise.resolve(),  // one history call at a time: a reload and "load earlier" never interleave
};
let historyTimer = null;
export function scheduleHistory() {
  if (historyTimer) return;
  historyTimer = setTimeout(() => { historyTimer = null; loadHistory(); }, 150);
}
function historyCall(which, before) {
  const params = { limit: HISTORY_PAGE };
  if (which === 'repl') params.repl = true;
  if (before) params.before = before;
  return call('history', params);
}
function queueHistory(task) {
  hist.chain = hist.chain.then(task).catch((e) => {
    if (e && e.message !== 'not connected' && e.message !== 'disconnected')
      $('history-list').replaceChildren(el('li', 'empty error', 'history: ' + e.message));
  });
  return hist.chain;
}
// The newest page again; what was paged in below it stays when that page reaches it.
export function loadHistory() {
  const which = hist.which;
  return queueHistory(() => Promise.all([historyCall(which, null),
    which === 'branch' ? call('runs', { limit: 100 }).catch(() => ({ runs: [] })) : Promise.resolve(null)])
    .then(([h, r]) => {
      const cur = hist[which];
      const page = h.commits || [];
      const last = page.length ? page[page.length - 1].commit : null;
      const j = last && h.next_before ? cur.commits.findIndex((c) => c.commit === last) : -1;
      if (j >= 0) cur.commits = page.concat(cur.commits.slice(j + 1));
      else { cur.commits = page; cur.next = h.next_before || null; }
      cur.ref = h.ref || '';
      if (r) hist.runs = r.runs || [];
      if (hist.which === which) renderHistory();
    }));
}
function loadEarlier() {
  const which = hist.which;
  return queueHistory(() => {
    const cur = hist[which];
    if (!cur.next) return null;
    return historyCall(which, cur.next).then((h) => {
      const seen = new Set(cur.commits.map((c) => c.commit));
      cur.commits = cur.commits.concat((h.commits || []).filter((c) => !seen.has(c.commit)));
      cur.next = h.next_before || null;
      if (hist.which === which) renderHistory();
    });
  });
}
function setWhich(which, focus) {
  for (const b of document.querySelectorAll('#history-which [role=radio]')) {
    const on = b.dataset.which === which;
    b.setAttribute('aria-checked', on ? 'true' : 'false');
    b.tabIndex = on ? 0 : -1;
    if (on && focus) b.focus();
  }
  if (hist.which === which) return;
  hist.which = which;
  renderHistory();  // what was loaded before, at once; then the newest page again
  loadHistory();
}
{
  const radios = Array.from(document.querySelectorAll('#history-which [role=radio]'));
  for (const b of radios) {
    b.addEventListener('click', () => setWhich(b.dataset.which, true));
    b.addEventListener('keydown', (ev) => {
      const i = radios.indexOf(b);
      let j = -1;
      if (ev.key === 'ArrowRight' || ev.key === 'ArrowDown') j = (i + 1) % radios.length;
      else if (ev.key === 'ArrowLeft' || ev.key === 'ArrowUp') j = (i + radios.length - 1) % radios.length;
      if (j < 0) return;
      ev.preventDefault();
      setWhich(radios[j].dataset.which, true);
    });
  }
}
$('history-earlier').addEventListener('click', () => { loadEarlier(); });
function blocksStatus(blocks) {
  if (!blocks || !blocks.length) return null;
  const bad = blocks.filter((b) => b.status === 'failed' || b.status === 'not_in_context').length;
  if (!bad) return 'ok';
  return bad === blocks.length ? 'failed' : 'partial';
}
function itemOf(c, run, repl) {
  const tr = c.trailers || {};
  return {
    key: c.commit, commit: c.commit, time: timeOf(c.time), summary: c.summary, agent: c.agent || (c.author && c.author.name),
    page: tr['Editgate-Page'] || '', kind: c.kind || 'commit', duration: tr['Editgate-Duration'] || '',
    // On the REPL's ref, blue; a run it records is coloured by its blocks as an edit is.
    status: (repl && c.kind !== 'run') || c.kind === 'repl' ? 'repl' : blocksStatus(run ? run.blocks : c.blocks) || (repl ? 'repl' : 'ok'),
    run, link: linkOf(tr),
  };
}
function renderHistory() {
  const which = hist.which;
  const cur = hist[which];
  const commits = cur.commits;
  let items;
  if (which === 'repl') items = commits.map((c) => itemOf(c, null, true));
  else {
    const byCommit = new Map();
    for (const r of hist.runs) if (r.commit) byCommit.set(r.commit, r);
    items = commits.map((c) => itemOf(c, byCommit.get(c.commit), false));
    // A run that committed nothing is an entry of its own, where its time puts it among the
    // commits shown (one older than the oldest shown waits for the page that reaches it).
    const oldest = commits.length && cur.next ? timeOf(commits[commits.length - 1].time) : -Infinity;
    for (const r of hist.runs) {
      if (r.commit || timeOf(r.time) < oldest) continue;
      items.push({ key: 'run-' + r.id, commit: null, time: timeOf(r.time), summary: r.summary || 'edit run', agent: r.agent,
        page: '', kind: r.dry_run ? 'check' : 'edit', duration: '', status: blocksStatus(r.blocks) || 'failed', run: r, link: null });
    }
    items.sort((a, b) => b.time - a.time);  // stable: commits of one second keep git's order
  }
  state.history = new Map(items.map((i) => [i.key, i]));
  const list = $('history-list');
  list.setAttribute('aria-label', which === 'repl' ? 'REPL history' : 'Code changes');
  $('history-ref').textContent = cur.ref && cur.ref !== 'HEAD' ? cur.ref : '';
  const focused = list.contains(document.activeElement) ? document.activeElement.dataset.key : null;
  list.replaceChildren(...items.map((i) => {
    const li = el('li', 'item st-' + i.status);
    li.setAttribute('role', 'option');
    li.dataset.key = i.key;
    li.dataset.kind = i.kind;
    li.setAttribute('aria-selected', i.key === state.selectedCommit ? 'true' : 'false');
    const top = el('div', 'line');
    top.append(el('span', 'dot'), el('span', 'summary', i.summary), el('span', 'when', shortClock(i.time)));
    const meta = el('div', 'meta');
    meta.append(el('span', 'badge', i.kind), el('span', '', i.agent || ''));
    if (i.page && i.page !== i.agent) meta.append(el('span', 'mono', i.page));
    if (i.duration) meta.append(el('span', '', i.duration));
    if (!i.commit) meta.append(el('span', 'warn', 'not committed'));
    if (i.link) meta.append(el('span', 'mono muted link-id', (i.link.where === 'repl' ? 'REPL ' : 'branch ') + i.link.commit.slice(0, 7)));
    li.append(top, meta);
    return li;
  }));
  const cur2 = keepRoving(list, focused || state.selectedCommit);
  if (focused && cur2) cur2.focus();
  if (!items.length) list.replaceChildren(el('li', 'empty', which === 'repl' ? 'No REPL exchange yet.' : 'No code change yet.'));
  $('history-earlier').hidden = !cur.next;
  $('history-start').hidden = !!cur.next || !commits.length;
}
listNav($('history-list'), (li) => selectHistory(li.dataset.key));
