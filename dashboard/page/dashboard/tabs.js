import { $ } from './dom.js';
import { scrollLogToEnd } from './log.js';
import { state } from './state.js';

// ---- tabs: arrows move between them, as the ARIA tabs pattern has it ----
const tabs = Array.from(document.querySelectorAll('[role=tab]'));

export function showView(name, focus) {
  state.view = name;
  for (const t of tabs) {
    const on = t.dataset.view === name;
    t.setAttribute('aria-selected', on ? 'true' : 'false');
    t.tabIndex = on ? 0 : -1;
    $('view-' + t.dataset.view).hidden = !on;
    if (on && focus) t.focus();
  }
  if (name === 'log') scrollLogToEnd();
}

for (const t of tabs) {
  t.addEventListener('click', () => showView(t.dataset.view, true));
  t.addEventListener('keydown', (ev) => {
    const i = tabs.indexOf(t);
    let j = -1;
    if (ev.key === 'ArrowRight') j = (i + 1) % tabs.length;
    else if (ev.key === 'ArrowLeft') j = (i + tabs.length - 1) % tabs.length;
    else if (ev.key === 'Home') j = 0;
    else if (ev.key === 'End') j = tabs.length - 1;
    if (j < 0) return;
    ev.preventDefault();
    showView(tabs[j].dataset.view, true);
  });
}
