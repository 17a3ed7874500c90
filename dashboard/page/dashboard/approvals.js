import { $, clock, el } from './dom.js';
import { call } from './socket.js';

// ---- Approvals ----
export function renderOrigins(o) {
  const pending = o.pending || [];
  $('count-approvals').textContent = pending.length ? String(pending.length) : '';
  $('origins-none').hidden = pending.length > 0;
  $('origins-pending').replaceChildren(...pending.map((p) => {
    const li = el('li', 'origin pending');
    li.append(el('span', 'mono', p.origin), el('span', 'muted', 'asked ' + (p.attempts || 1) + '× since ' + clock(p.first_seen_ms)));
    const allow = el('button', 'allow', 'Allow');
    const refuse = el('button', 'refuse', 'Refuse');
    allow.setAttribute('aria-label', 'Allow ' + p.origin);
    refuse.setAttribute('aria-label', 'Refuse ' + p.origin);
    const decide = (yes) => () => {
      allow.disabled = refuse.disabled = true;
      call('approve', { origin: p.origin, allow: yes }).catch((e) => {
        allow.disabled = refuse.disabled = false;
        li.append(el('span', 'error', e.message));
      });
    };
    allow.addEventListener('click', decide(true));
    refuse.addEventListener('click', decide(false));
    li.append(el('span', 'spacer'), allow, refuse);
    return li;
  }));
  const decided = (o.allowed || []).map((p) => [p, 'allowed']).concat((o.refused || []).map((p) => [p, 'refused']));
  $('decided-head').hidden = !decided.length;
  $('origins-decided').replaceChildren(...decided.map(([p, how]) => {
    const li = el('li', 'origin ' + how);
    li.append(el('span', 'badge st-' + how, how), el('span', 'mono', p.origin));
    return li;
  }));
}
