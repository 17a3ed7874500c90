// The browser adapter: connects this page to the editgate gateway over the WebSocket /v1/page and
// speaks the page protocol of repl/README.md as protocol.js's host: the socket, the tab's globals,
// its errors, dialogs and navigation. The gateway serves it as /adapter.js, inside one function
// after serialize.js, lookup.js, protocol.js and dialogs.js; a page loads it with the tag
// `editgate serve` prints, which loads http://127.0.0.1:PORT/adapter.js?workspace=ID (and again
// until a gateway answers). The workspace is how a tab reaches its own project's gateway or is
// refused, never another's.

var INSTANCE_KEY = 'editgate.instance';  // {"id","secret"} as JSON: the secret takes the id back
var IN_USE_PATIENCE_MS = 3000;  // a reload's new socket can arrive before the old one has closed
var FIRST_DELAY_MS = 250;
var MAX_DELAY_MS = 5000;
var MAX_BUFFERED = 1000;
var AsyncFunction = Object.getPrototypeOf(async function () {}).constructor;
// A page the gateway's own browser opened gets this file injected with `editgateOwned` ({src, id,
// secret}: where a tag would have loaded it from, and the instance reserved for the page), so every
// document of the page, whatever its origin, is that one instance; a tag's copy gets null.
var script = editgateOwned ? { src: editgateOwned.src, crossOrigin: 'anonymous' } : document.currentScript;
var ownWarn = console.warn;  // the page's own, for the adapter's warnings (not captured as events)
var workspace = script && script.src ? new URL(script.src).searchParams.get('workspace') : null;
var lastRefusal = '';  // the gateway's last refusal, warned once until another comes

var socket = null;
var welcomed = false;
var hidden = false;  // the document was left (pagehide): no socket until it is shown again
var retry = null;  // the pending reconnect's timer
var delay = FIRST_DELAY_MS;
var inUseSince = 0;  // when the gateway first refused our id as in use, 0 when it has not
var instance = editgateOwned ? { id: editgateOwned.id, secret: editgateOwned.secret } : readInstance();
var buffered = [];  // events while the socket is down
var dropped = 0;
var created = new Set();  // the globals evaluations made (see noteGlobals)
var page = editgateProtocol({
  send: send,
  evaluate: evaluate,
  // A frame of evaluated code names the adapter too, but not as its location.
  ownFrame: function (line) {
    var at = line.lastIndexOf(script.src + ':');
    return at >= 0 && /^:\d+:\d+\)?$/.test(line.slice(at + script.src.length));
  },
  runnerFrame: /\(<anonymous>\)$|\[native code\]$/,
  errorText: errorText,
  globals: function () { return { lookup: lookupGlobal, root: window }; },
  bindings: function () {
    return {
      names: Array.from(created).filter(function (n) { return Object.prototype.hasOwnProperty.call(window, n); }),
      read: function (n) { return window[n]; }
    };
  },
  clear: clearBindings,
  promptName: 'editgate.prompt'
});

if (window.editgate) {
  // Included twice: the first copy already has the connection.
} else if (editgateOwned && window.top !== window) {
  // A frame of an owned page: the page is its top document.
} else if (!script || !script.src) {
  console.warn('editgate: load adapter.js with the tag `editgate serve` prints');
} else if (!workspace) {
  // Without it, a tab would join whichever project's gateway holds the port.
  console.warn('editgate: this tag names no workspace, so the tab does not connect; paste the tag ' +
               '`editgate serve` prints in your project (it loads adapter.js?workspace=ID)');
} else if (errorsMuted()) {
  loadWithCors();
} else {
  start();
}

function start() {
  window.editgate = { prompt: page.prompt, version: '1' };
  page.captureConsole(true);
  editgateDialogs(window, page.running, send);  // dialogs.js
  captureErrors();
  followNavigation();
  connect();
}

// A script fetched from another origin without CORS has its errors muted by the browser, and so
// has all code it evaluates: an error thrown later by an agent's code reaches window.onerror as
// "Script error." with no detail, and its unhandled rejections are not reported at all. The gateway
// serves this file with CORS headers, so a tag without the crossorigin attribute has it loaded
// again with it, and only that copy runs.
function errorsMuted() {
  return script.crossOrigin === null && new URL(script.src, location.href).origin !== location.origin;
}

function loadWithCors() {
  var again = document.createElement('script');
  again.src = script.src;
  again.crossOrigin = 'anonymous';
  (document.head || document.documentElement).appendChild(again);
}

function readInstance() {
  try {
    var kept = JSON.parse(sessionStorage.getItem(INSTANCE_KEY));
    return kept && typeof kept.id === 'string' && typeof kept.secret === 'string' ? kept : null;
  } catch (e) { return null; }  // storage can be blocked; an id of an older adapter has no secret
}

function writeInstance(kept) {
  instance = kept;
  try {
    if (kept === null) sessionStorage.removeItem(INSTANCE_KEY);
    else sessionStorage.setItem(INSTANCE_KEY, JSON.stringify(kept));
  } catch (e) { /* kept for this document only */ }
}

function warn(message) {
  ownWarn.call(console, 'editgate: ' + message);
}

// --- the connection -------------------------------------------------------------------------------

function endpoint() {
  var src = new URL(script.src);
  // The workspace in the URL too: a gateway of another never puts this tab's origin before its person.
  return (src.protocol === 'https:' ? 'wss:' : 'ws:') + '//' + src.host + '/v1/page?workspace=' +
         encodeURIComponent(workspace);
}

function connect() {
  retry = null;
  if (hidden) return;
  var ws;
  try {
    ws = new WebSocket(endpoint());
  } catch (e) {
    warn('cannot open the gateway socket: ' + e.message);
    reconnectLater();
    return;
  }
  socket = ws;
  ws.onopen = function () {
    ws.send(JSON.stringify({
      type: 'hello', workspace: workspace, id: instance && instance.id, secret: instance && instance.secret,
      name: document.title || location.pathname, url: location.href, title: document.title, kind: 'browser',
      user_agent: navigator.userAgent
    }));
  };
  ws.onmessage = function (ev) {
    if (socket === ws) receive(ev.data);
  };
  ws.onclose = function () {
    if (socket !== ws) return;
    socket = null;
    welcomed = false;
    reconnectLater();
  };
}

function reconnectLater() {
  var wait = delay * (0.75 + Math.random() / 2);  // jitter, so tabs of a restarted gateway spread out
  delay = Math.min(delay * 2, MAX_DELAY_MS);
  retry = setTimeout(connect, wait);
}

// A tab is one instance. A navigation keeps the document it leaves in the back/forward cache,
// alive but frozen: with its socket open the gateway would keep the instance for it, and the new
// document (which comes back with the id and secret in sessionStorage, as after a reload) would be
// refused as in_use. So the document hangs up when it is left, and connects again if the cache
// shows it again. Its jobs end with the socket that asked for them (the gateway fails a running
// one as context_destroyed), so nothing they finish later is sent.
function followNavigation() {
  window.addEventListener('pagehide', function () {
    hidden = true;
    if (retry !== null) clearTimeout(retry);
    retry = null;
    page.forget();
    var ws = socket;
    socket = null;
    welcomed = false;
    if (ws) ws.close();
  });
  window.addEventListener('pageshow', function (ev) {
    if (!ev.persisted || !hidden) return;
    hidden = false;
    // The tab's instance: another document of the tab may have been given a new one meanwhile.
    var kept = readInstance();
    if (kept) instance = kept;
    delay = FIRST_DELAY_MS;
    inUseSince = 0;
    connect();
  });
}

function welcome(msg) {
  welcomed = true;
  lastRefusal = '';
  delay = FIRST_DELAY_MS;
  inUseSince = 0;
  // A new instance comes with its secret; a page that came back keeps the one it has.
  if (typeof msg.id === 'string' && typeof msg.secret === 'string') writeInstance({ id: msg.id, secret: msg.secret });
  var queue = buffered;
  buffered = [];
  queue.forEach(send);
  if (dropped > 0) {
    send({ type: 'event', job: null, source: 'console.warn', lang: 'Text', ts: Date.now(),
      text: 'editgate: ' + dropped + ' more events were dropped while the gateway was unreachable' });
    dropped = 0;
  }
}

function refused(msg) {
  socket.close();  // the gateway closes it too; onclose reconnects
  if (msg.error !== 'in_use') {
    // Tried again with back-off (another project's gateway may leave the port to this one's):
    // said once, not at every try.
    var said = msg.error + ': ' + msg.message;
    if (said !== lastRefusal) warn('the gateway refused this page (' + said + ')');
    lastRefusal = said;
    return;
  }
  if (editgateOwned) return;  // its instance is the page's: the document it replaced lets go of it soon
  if (!inUseSince) {
    inUseSince = Date.now();
  } else if (Date.now() - inUseSince >= IN_USE_PATIENCE_MS) {
    // Still in use: another tab holds this id (a duplicated tab copies sessionStorage).
    writeInstance(null);
    inUseSince = 0;
    delay = FIRST_DELAY_MS;
  }
}

// Replies belong to the connection that asked for them and are dropped with it; events wait for
// the next connection.
function send(msg) {
  if (welcomed && socket && socket.readyState === WebSocket.OPEN) {
    socket.send(JSON.stringify(msg));
  } else if (msg.type === 'event') {
    if (buffered.length < MAX_BUFFERED) buffered.push(msg);
    else dropped++;
  }
}

function receive(data) {
  try {
    var msg = JSON.parse(data);
    if (!msg || typeof msg !== 'object') return;
    if (msg.type === 'welcome') welcome(msg);
    else if (msg.type === 'refused') refused(msg);
    else if (msg.type === 'eval') noteGlobals(function () { page.handle(msg); });
    else page.handle(msg);
  } catch (e) {
    warn('failed to handle a gateway message: ' + e);
  }
}

// --- running code -----------------------------------------------------------------------------------

function parsesWith(Ctor) {
  return function (source) {
    try { new Ctor(source); return true; } catch (e) { return false; }  // compiles, never runs
  };
}
var parses = parsesWith(Function);
var parsesAsync = parsesWith(AsyncFunction);

// Indirect eval runs in the global scope, like the console; a top-level let/const/class stays local
// to one eval (only a real <script> could keep it, and a script has no completion value).
function evaluate(code) {
  var plan = editgatePlan(code, parses, parsesAsync);
  return plan.async ? new AsyncFunction(plan.body)() : (0, eval)(plan.source);
}

// The first name of a completion path: a global binding, which may be a top-level let of a page script.
function lookupGlobal(name) {
  try { return (0, eval)('(' + name + ')'); } catch (e) { return window[name]; }  // eval can be forbidden by CSP
}

// --- bindings -------------------------------------------------------------------------------------------
// The globals evaluations made: names that appeared on window while an eval's synchronous part ran
// (the page's own scripts add globals too, and those are not the agent's to list or clear).

function noteGlobals(runIt) {
  var before = new Set(Object.getOwnPropertyNames(window));
  try {
    runIt();
  } finally {
    Object.getOwnPropertyNames(window).forEach(function (n) { if (!before.has(n)) created.add(n); });
  }
}

// A tab cannot be given a fresh global object: what can be deleted is, the rest is named (a
// non-configurable global, as Object.defineProperty makes by default; an eval's var is deletable).
function clearBindings() {
  var kept = [];
  created.forEach(function (n) {
    var gone = false;
    try { gone = delete window[n] && !Object.prototype.hasOwnProperty.call(window, n); } catch (e) { gone = false; }
    if (gone) created.delete(n);
    else kept.push(n);
  });
  return kept;
}

// --- events ---------------------------------------------------------------------------------------------

// An error as an event's text: the stack when there is one, without the adapter's frames under
// an agent's code (as in a result).
function errorText(e) {
  return page.trimStack(editgateFormatConsole([e]).text);
}

function captureErrors() {
  window.addEventListener('error', function (ev) {
    var text = ev.error instanceof Error
      ? errorText(ev.error)
      : (ev.message || 'error') + ' at ' + ev.filename + ':' + ev.lineno + ':' + ev.colno;
    page.emit('window.onerror', 'Error', text);
  });
  window.addEventListener('unhandledrejection', function (ev) {
    page.emit('unhandledrejection', 'Error', errorText(ev.reason));
  });
  window.addEventListener('rejectionhandled', function (ev) {
    page.emit('rejectionhandled', 'Error', errorText(ev.reason));
  });
}
