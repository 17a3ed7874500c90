import { $ } from './dom.js';

// ---- the connection: one WebSocket, requests by id, `watch` events to `onEvent` ----
const rpc = { ws: null, next: 1, waiting: new Map(), backoff: 500, canApprove: false };

// Whether this browser's sign-in is the person's (the URL `editgate serve` printed in its terminal):
// only then do the person's decisions work, so only then are they offered.
export function canApprove() { return rpc.canApprove; }

export function call(op, params) {
  return new Promise((resolve, reject) => {
    if (!rpc.ws || rpc.ws.readyState !== WebSocket.OPEN || !rpc.ready) return reject(new Error('not connected'));
    const id = 'd' + rpc.next++;
    rpc.waiting.set(id, { resolve, reject });
    rpc.ws.send(JSON.stringify(Object.assign({ op, id }, params || {})));
  });
}

function connState(text, cls) {
  const c = $('conn');
  c.textContent = text;
  c.className = 'conn ' + (cls || '');
}

// Connects, and again whenever the socket closes. `onConnected` runs once the session has
// started (each time), `onEvent` for each `watch` event.
export function connect(onConnected, onEvent) {
  const ws = new WebSocket((location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/v1/dashboard');
  rpc.ws = ws;
  rpc.ready = false;
  ws.onmessage = (ev) => {
    let msg;
    try { msg = JSON.parse(ev.data); } catch (e) { return; }
    if (!rpc.ready) {
      if (msg.op === 'session-started') {
        rpc.ready = true;
        rpc.canApprove = msg.can_approve === true;
        rpc.backoff = 500;
        connState('live', 'ok');
        rpc.ws.send(JSON.stringify({ op: 'watch', id: 'watch' }));
        onConnected();
      }
      return;
    }
    if (msg.id === 'watch' && msg.event) return onEvent(msg.event);
    const w = rpc.waiting.get(msg.id);
    if (!w || !Array.isArray(msg.status) || !msg.status.includes('done')) return;
    rpc.waiting.delete(msg.id);
    if (msg.status.includes('error')) w.reject(Object.assign(new Error(msg.error || msg.reason || 'error'), { reason: msg.reason }));
    else w.resolve(msg);
  };
  ws.onclose = () => {
    for (const w of rpc.waiting.values()) w.reject(new Error('disconnected'));
    rpc.waiting.clear();
    rpc.ready = false;
    connState('disconnected, retrying…', 'bad');
    setTimeout(() => connect(onConnected, onEvent), rpc.backoff);
    rpc.backoff = Math.min(rpc.backoff * 2, 30000);
  };
}
