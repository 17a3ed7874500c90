'use strict';
// The dashboard's client: the agents' protocol over /v1/dashboard, signed in by its cookie.
(function () {
  const status = document.getElementById('status');
  const ws = new WebSocket((location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/v1/dashboard');
  ws.onopen = () => ws.send(JSON.stringify({ op: 'watch', id: 'watch' }));
  ws.onmessage = (ev) => {
    const msg = JSON.parse(ev.data);
    if (msg.event && msg.event.type === 'pages') status.textContent = msg.event.pages.length + ' pages';
  };
  ws.onclose = () => { status.textContent = 'disconnected'; };
})();
