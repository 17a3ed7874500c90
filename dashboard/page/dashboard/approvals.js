import { $, clock, el } from './dom.js';
import { call, canApprove } from './socket.js';

// ---- Approvals ----
// Deciding is the person's: a browser signed in through the API (`editgate dashboard`) sees the
// lists, and is told where the person decides instead of being offered buttons that would fail.
export function renderOrigins(o) {
  const pending = o.pending || [];
  const person = canApprove();
  $('viewer-note').hidden = person;
  $('allow-typed').hidden = !person;
  $('count-approvals').textContent = pending.length ? String(pending.length) : '';
  $('origins-none').hidden = pending.length > 0;
  $('origins-pending').replaceChildren(...pending.map((p) => {
    const li = el('li', 'origin pending');
    li.append(el('span', 'mono', p.origin), el('span', 'muted', 'asked ' + (p.attempts || 1) + '× since ' + clock(p.first_seen_ms)));
    if (!person) return li;
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

// The person allows an origin by typing it, whether or not its page asked yet (a flood of other
// origins never stands in the way). The gateway checks it is exactly http(s)://host[:port].
$('allow-typed').addEventListener('submit', (ev) => {
  ev.preventDefault();
  const input = $('allow-origin');
  const status = $('allow-typed-status');
  status.textContent = '';
  call('approve', { origin: input.value.trim(), allow: true })
    .then((r) => { status.textContent = 'allowed ' + r.origin; input.value = ''; })
    .catch((e) => { status.textContent = e.message; });
});
