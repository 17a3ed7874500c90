// What every view builds with: elements by id, elements with text (never HTML), times as
// people read them, and the keyboard of a listbox (one item in the Tab order).
export const $ = (id) => document.getElementById(id);

export function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = String(text);
  return e;
}

export function ago(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return s + 's';
  if (s < 3600) return Math.floor(s / 60) + 'm ' + (s % 60) + 's';
  return Math.floor(s / 3600) + 'h ' + Math.floor((s % 3600) / 60) + 'm';
}

export function timeOf(t) {
  if (typeof t === 'number') return t < 1e12 ? t * 1000 : t;
  const v = Date.parse(t || '');
  return Number.isNaN(v) ? 0 : v;
}

export function clock(t) {
  const ms = timeOf(t);
  return ms ? new Date(ms).toLocaleString(undefined, { hour12: false }) : String(t || '');
}

export function shortClock(t) {
  const d = new Date(timeOf(t));
  if (!timeOf(t)) return '';
  const today = new Date().toDateString() === d.toDateString();
  return today ? d.toLocaleTimeString(undefined, { hour12: false }) : d.toLocaleDateString();
}

// ---- lists: one focusable item at a time; arrows move, Enter (or a click) selects ----
export function listNav(container, onSelect) {
  const items = () => Array.from(container.querySelectorAll('[role=option]'));
  container.addEventListener('keydown', (ev) => {
    const all = items();
    if (!all.length) return;
    let i = all.indexOf(document.activeElement);
    if (ev.key === 'ArrowDown') i = Math.min(all.length - 1, i + 1);
    else if (ev.key === 'ArrowUp') i = Math.max(0, i - 1);
    else if (ev.key === 'Home') i = 0;
    else if (ev.key === 'End') i = all.length - 1;
    else if (ev.key === 'Enter' || ev.key === ' ') {
      if (i >= 0) { ev.preventDefault(); onSelect(all[i]); }
      return;
    } else return;
    ev.preventDefault();
    for (const o of all) o.tabIndex = -1;
    all[i].tabIndex = 0;
    all[i].focus();
  });
  container.addEventListener('click', (ev) => {
    const o = ev.target.closest('[role=option]');
    if (o && container.contains(o)) onSelect(o);
  });
  container.addEventListener('focus', () => {
    const all = items();
    const cur = all.find((o) => o.tabIndex === 0) || all[0];
    if (cur) cur.focus();
  });
}

export function keepRoving(container, key) {
  // After a re-render, the item that had focus (or the first) is the one Tab reaches.
  const all = Array.from(container.querySelectorAll('[role=option]'));
  const cur = all.find((o) => o.dataset.key === key) || all[0];
  for (const o of all) o.tabIndex = o === cur ? 0 : -1;
  container.tabIndex = all.length ? -1 : 0;
  return cur;
}
