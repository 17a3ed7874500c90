import { $, el } from './dom.js';
import { state } from './state.js';

// ---- owned pages and their screenshots ----
// A page an agent opened in the gateway's own browser (`"owned": true`) has screenshots, workspace
// paths oldest first; their bytes come from the door's screenshot route (the same sign-in cookie).
export const ownedWords = 'opened by an agent in the gateway\'s own browser';
export const shotUrl = (path) => '/v1/dashboard/screenshot?path=' + encodeURIComponent(path);
// "debug/x-1a2b.screenshots/3.png" -> 3
const numberOf = (path) => { const m = /\/(\d+)\.png$/.exec(path); return m ? Number(m[1]) : 0; };

// Each image kept by where it is shown and its path, so that a redraw (every `pages` event) moves
// the image already loaded instead of fetching it again; those no longer listed are let go.
const images = new Map();
function image(slot, path, alt) {
  const key = slot + '\n' + path;
  let img = images.get(key);
  if (!img) {
    img = el('img', 'shot-img');
    img.src = shotUrl(path);
    img.decoding = 'async';
    images.set(key, img);
  }
  img.alt = alt;
  return img;
}
function prune() {
  const live = new Set();
  for (const p of state.pages) for (const s of p.screenshots || []) live.add(s);
  for (const key of images.keys()) if (!live.has(key.slice(key.indexOf('\n') + 1))) images.delete(key);
}

// The "owned" mark of a row in Pages.
export function ownedBadge() {
  const b = el('span', 'badge owned', 'owned');
  b.title = ownedWords;
  return b;
}

// The newest screenshot of a row in Pages, small (the row opens the page's view, where all are).
export function rowThumb(p) {
  const shots = p.screenshots || [];
  if (!shots.length) return el('span', 'muted', p.owned ? 'none yet' : '');
  const newest = shots[shots.length - 1];
  const box = el('span', 'thumb');
  box.append(image('row', newest, 'newest screenshot of ' + p.page));
  if (shots.length > 1) box.append(el('span', 'muted shot-count', String(shots.length)));
  return box;
}

// The page's view (above its log): whether it is owned, its newest screenshot as a thumbnail and
// the older ones in a strip, each a button that opens it full size.
export function renderShots() {
  prune();
  const box = $('shots');
  const p = state.pages.find((x) => x.page === state.logPage);
  const shots = (p && p.screenshots) || [];
  box.hidden = !p || (!p.owned && !shots.length);
  if (box.hidden) return box.replaceChildren();
  const head = el('p', 'shots-head');
  if (p.owned) head.append(ownedBadge(), el('span', '', ' ' + ownedWords));
  head.append(el('span', 'muted', shots.length ? ' · ' + count(shots.length) + ', newest first'
    : ' · no screenshot yet'));
  const parts = [head];
  if (shots.length) {
    const row = el('div', 'shots-row');
    const newest = shots.length - 1;
    row.append(shotButton(p.page, shots, newest, 'newest'));
    if (newest > 0) {
      const strip = el('ol', 'strip');
      strip.setAttribute('aria-label', 'Earlier screenshots');
      for (let i = newest - 1; i >= 0; i--) { const li = el('li'); li.append(shotButton(p.page, shots, i, 'older')); strip.append(li); }
      row.append(strip);
    }
    parts.push(row);
  }
  box.replaceChildren(...parts);
}
const count = (n) => n + (n === 1 ? ' screenshot' : ' screenshots');

function shotButton(page, shots, i, cls) {
  const path = shots[i];
  const b = el('button', 'shot ' + cls);
  b.type = 'button';
  b.dataset.path = path;
  b.setAttribute('aria-label', 'screenshot ' + numberOf(path) + ' of ' + page + ', open full size');
  b.title = path;
  b.append(image(cls === 'newest' ? 'view' : 'strip', path, 'screenshot ' + numberOf(path) + ' of ' + page),
    el('span', 'shot-label', '#' + numberOf(path)));
  b.addEventListener('click', () => openShot(page, shots, i));
  return b;
}

// Full size, in a dialog: Escape or Close ends it; the arrows (and its buttons) go to the
// neighbours; "open in a new tab" gives the PNG alone.
const viewer = { page: '', shots: [], i: 0 };
export function openShot(page, shots, i) {
  Object.assign(viewer, { page, shots: shots.slice(), i });
  showShot();
  const d = $('shot-dialog');
  if (!d.open) d.showModal();
}
function showShot() {
  const path = viewer.shots[viewer.i];
  const img = $('shot-full');
  img.src = shotUrl(path);
  img.alt = 'screenshot ' + numberOf(path) + ' of ' + viewer.page;
  $('shot-caption').textContent = 'screenshot ' + numberOf(path) + ' of ' + viewer.page + ' (' + (viewer.i + 1) + ' of ' +
    viewer.shots.length + ') · ' + path;
  $('shot-tab').href = shotUrl(path);
  $('shot-prev').disabled = viewer.i === 0;
  $('shot-next').disabled = viewer.i === viewer.shots.length - 1;
}
function step(by) {
  const j = viewer.i + by;
  if (j < 0 || j >= viewer.shots.length) return;
  viewer.i = j;
  showShot();
}
$('shot-prev').addEventListener('click', () => step(-1));
$('shot-next').addEventListener('click', () => step(1));
$('shot-close').addEventListener('click', () => $('shot-dialog').close());
$('shot-dialog').addEventListener('keydown', (ev) => {
  if (ev.key === 'ArrowLeft') { ev.preventDefault(); step(-1); } else if (ev.key === 'ArrowRight') { ev.preventDefault(); step(1); }
});
$('shot-dialog').addEventListener('close', () => { $('shot-full').removeAttribute('src'); });

// A log links its screenshots as `![screenshot n](<page>.screenshots/<n>.png)`, relative to the
// log's folder: shown through the screenshot route, and opened full size when clicked.
const inLog = /^([A-Za-z0-9][A-Za-z0-9._-]*)\.screenshots\/(\d+)\.png$/;
export function logImages(root, logPath) {
  const folder = (logPath || '').replace(/[^/]*$/, '');
  if (folder !== 'debug/') return;
  for (const img of root.querySelectorAll('img[src]')) {
    const m = inLog.exec(img.getAttribute('src'));
    if (!m) continue;
    img.dataset.shot = folder + m[0];
    img.loading = 'lazy';  // a long log links hundreds: only those scrolled to are asked for
    img.src = shotUrl(img.dataset.shot);
    img.className = 'log-shot';
  }
}
$('log-entries').addEventListener('click', (ev) => {
  const img = ev.target.closest('img[data-shot]');
  if (!img) return;
  const p = state.pages.find((x) => x.page === state.logPage);
  const shots = (p && p.screenshots && p.screenshots.includes(img.dataset.shot)) ? p.screenshots : [img.dataset.shot];
  openShot(state.logPage, shots, shots.indexOf(img.dataset.shot));
});
