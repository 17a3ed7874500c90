import { $, ago, el, keepRoving, listNav } from './dom.js';
import { fillLogPicker, openLog } from './log.js';
import { ownedBadge, ownedWords, renderShots, rowThumb } from './shots.js';
import { state } from './state.js';
import { showView } from './tabs.js';

// ---- Pages ----
export function renderPages(pages) {
  state.pages = pages;
  const body = $('pages-body');
  const focused = document.activeElement && body.contains(document.activeElement) ? document.activeElement.dataset.key : null;
  const rows = pages.slice().sort((a, b) => (a.state === 'disconnected') - (b.state === 'disconnected'));
  body.replaceChildren(...rows.map((p) => {
    const tr = el('tr', 'page state-' + p.state);
    tr.setAttribute('role', 'option');
    tr.dataset.key = p.page;
    const name = el('td', 'name');
    name.append(el('span', 'mono', p.page));
    if (p.title) name.append(el('span', 'sub', p.title));
    const running = el('td', 'running');
    // Held by its own dialog: what it asks, which only the person can answer.
    if (p.dialog) running.append(el('code', 'code', p.dialog.kind + ': ' + p.dialog.message));
    else if (p.running) {
      const since = el('span', 'elapsed');
      since.dataset.since = String(p.running.since_ms);
      since.textContent = ago(Date.now() - p.running.since_ms);
      running.append(since, el('code', 'code', p.running.code));
    } else running.append(el('span', 'muted', '—'));
    const kind = cell('kind', el('span', 'badge kind-' + p.kind, p.kind));
    if (p.owned) kind.append(' ', ownedBadge());
    tr.append(name, kind,
      cell('url', el('span', 'clip mono' + (p.origin ? '' : ' muted'), p.origin || p.url || '')),
      cell('', el('span', 'badge st-' + p.state, p.state)),
      cell('num', String(p.queued || 0)), running, cell('shot', rowThumb(p)), cell('muted', p.last_seen || ''));
    if (p.owned) tr.classList.add('owned');
    tr.setAttribute('aria-label', p.page + ', ' + p.kind + (p.owned ? ' (owned: ' + ownedWords + ')' : '') + ', ' + p.state +
      ((p.screenshots || []).length ? ', ' + p.screenshots.length + ' screenshots' : ''));
    return tr;
  }));
  const cur = keepRoving(body, focused);
  if (focused && cur && cur.dataset.key === focused) cur.focus();
  $('pages-empty').hidden = pages.length > 0;
  $('count-pages').textContent = String(pages.filter((p) => p.state !== 'disconnected').length);
  fillLogPicker();
  renderShots();
}

function cell(cls, content) {
  const td = el('td', cls);
  if (typeof content === 'string') td.textContent = content; else td.append(content);
  return td;
}

setInterval(() => {
  for (const s of document.querySelectorAll('.elapsed[data-since]')) s.textContent = ago(Date.now() - Number(s.dataset.since));
}, 1000);
listNav($('pages-body'), (tr) => { showView('log', false); openLog(tr.dataset.key); $('log-scroll').focus(); });
