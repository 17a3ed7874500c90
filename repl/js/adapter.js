// The browser adapter: connects this page to the editgate gateway over the WebSocket /v1/page and
// speaks the page protocol of repl/README.md. The gateway serves it as /adapter.js, inside one
// function after serialize.js; a page loads it with
// <script src="http://127.0.0.1:PORT/adapter.js" crossorigin></script>.

var INSTANCE_KEY = 'editgate.instance';  // {"id","secret"} as JSON: the secret takes the id back
var IN_USE_PATIENCE_MS = 3000;  // a reload's new socket can arrive before the old one has closed
var FIRST_DELAY_MS = 250;
var MAX_DELAY_MS = 5000;
var MAX_BUFFERED = 1000;
var ABANDONED = 'abandoned the await; async work the code started may still run';
var AsyncFunction = Object.getPrototypeOf(async function () {}).constructor;
var script = document.currentScript;  // only set while this script first runs
var original = {};  // the console's own methods, for the adapter's warnings and for pass-through

var socket = null;
var welcomed = false;
var hidden = false;  // the document was left (pagehide): no socket until it is shown again
var retry = null;  // the pending reconnect's timer
var delay = FIRST_DELAY_MS;
var inUseSince = 0;  // when the gateway first refused our id as in use, 0 when it has not
var instance = readInstance();  // {id, secret} or null
var buffered = [];  // events while the socket is down
var dropped = 0;
var jobs = new Map();  // job id -> {abandon} while it runs; abandon is set while it awaits
var current = null;  // the job whose code runs now, for console attribution
var prompts = [];  // {job, resolve} waiting for stdin
var capturing = false;  // a console call made while formatting one is not captured again

if (window.editgate) {
  // Included twice: the first copy already has the connection.
} else if (!script || !script.src) {
  console.warn('editgate: load adapter.js with <script src="http://127.0.0.1:PORT/adapter.js" crossorigin>');
} else if (errorsMuted()) {
  loadWithCors();
} else {
  start();
}

function start() {
  window.editgate = { prompt: prompt, version: '1' };
  captureConsole();
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
  original.warn.call(console, 'editgate: ' + message);
}

// --- the connection -------------------------------------------------------------------------------

function endpoint() {
  var src = new URL(script.src);
  return (src.protocol === 'https:' ? 'wss:' : 'ws:') + '//' + src.host + '/v1/page';
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
      type: 'hello', id: instance && instance.id, secret: instance && instance.secret,
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
    jobs.clear();
    prompts = [];
    current = null;
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
    warn('the gateway refused this page (' + msg.error + '): ' + msg.message);
    return;
  }
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
    switch (msg.type) {
      case 'welcome': welcome(msg); break;
      case 'refused': refused(msg); break;
      case 'eval': noteGlobals(function () { run(msg); }); break;
      case 'bindings': send(listBindings(msg.job)); break;
      case 'clear': send(clearBindings(msg.job)); break;
      case 'interrupt': interrupt(msg.job); break;
      case 'complete':
        var code = typeof msg.code === 'string' ? msg.code : '';
        send({ type: 'completions', job: msg.job, items: editgateCompletions(code, lookupGlobal), start: editgateCompletionStart(code) });
        break;
      case 'stdin': answer(msg); break;
      case 'lookup':
        send({ type: 'looked-up', job: msg.job, info: editgateLookup(msg.what, msg.symbol, lookupGlobal) });
        break;
    }
  } catch (e) {
    warn('failed to handle a gateway message: ' + e);
  }
}

// --- jobs ---------------------------------------------------------------------------------------------

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

// The stack up to the evaluated code: the adapter's frames below it, and the native eval frame
// between them, are noise. A frame of evaluated code names the adapter too, but not as its location.
function trimStack(stack) {
  var lines = stack.split('\n');
  var end = lines.findIndex(function (line) {
    var at = line.lastIndexOf(script.src + ':');
    return at >= 0 && /^:\d+:\d+\)?$/.test(line.slice(at + script.src.length));
  });
  if (end < 0) return stack;
  while (end > 0 && /\(<anonymous>\)$|\[native code\]$/.test(lines[end - 1])) end--;
  return lines.slice(0, end).join('\n');
}

function thenOf(v) {
  if (v === null || (typeof v !== 'object' && typeof v !== 'function')) return null;
  var then = v.then;
  return typeof then === 'function' ? then : null;
}

function run(msg) {
  var job = msg.job;
  var started = performance.now();
  var entry = { abandon: null };
  jobs.set(job, entry);
  current = job;

  function finish(fields) {
    if (jobs.get(job) !== entry) return;  // already abandoned
    jobs.delete(job);
    if (current === job) current = null;
    prompts = prompts.filter(function (p) { return p.job !== job; });
    fields.type = 'result';
    fields.job = job;
    fields.duration_ms = performance.now() - started;
    send(fields);
  }
  function succeed(v) { finish({ ok: true, value: editgateSerialize(v) }); }
  function fail(e) {
    var error = editgateErrorOf(e);
    error.stack = trimStack(error.stack);
    finish({ ok: false, error: error });
  }

  var value;
  var then;
  try {
    value = evaluate(typeof msg.code === 'string' ? msg.code : '');
    then = thenOf(value);
  } catch (e) {
    fail(e);
    return;
  }
  if (!then) {
    succeed(value);
    return;
  }
  entry.abandon = function () {
    finish({ ok: false, error: { name: 'Interrupted', message: ABANDONED, stack: '' } });
  };
  try {
    then.call(value, succeed, fail);
  } catch (e) {
    fail(e);
  }
}

// Synchronous code cannot be stopped (this message is not even read until it ends), so only a job
// that awaits can be interrupted, by no longer waiting for it.
function interrupt(job) {
  var entry = jobs.get(job);
  if (entry && entry.abandon) {
    entry.abandon();
    send({ type: 'interrupted', job: job, status: 'interrupted', message: ABANDONED });
  } else {
    send({ type: 'interrupted', job: job, status: 'idle', message: 'job ' + job + ' is not running' });
  }
}

function prompt(text) {
  var job = current;
  if (job === null) return Promise.reject(new Error('editgate.prompt: no job is running, so nobody can answer'));
  return new Promise(function (resolve) {
    prompts.push({ job: job, resolve: resolve });
    send({ type: 'need-input', job: job, prompt: text === undefined ? '' : String(text) });
  });
}

function answer(msg) {
  for (var i = 0; i < prompts.length; i++) {
    if (prompts[i].job === msg.job) {
      var p = prompts.splice(i, 1)[0];
      p.resolve(msg.eof === true ? null : typeof msg.text === 'string' ? msg.text : '');  // eof: end of input
      return;
    }
  }
}

// The first name of a completion path: a global binding, which may be a top-level let of a page script.
function lookupGlobal(name) {
  try { return (0, eval)('(' + name + ')'); } catch (e) { return window[name]; }  // eval can be forbidden by CSP
}

// --- bindings -------------------------------------------------------------------------------------------
// The globals evaluations made: names that appeared on window while an eval's synchronous part ran
// (the page's own scripts add globals too, and those are not the agent's to list or clear).

var created = new Set();
var BINDINGS_MAX = 200;  // names a bindings answer lists; the rest are counted

function noteGlobals(runIt) {
  var before = new Set(Object.getOwnPropertyNames(window));
  try {
    runIt();
  } finally {
    Object.getOwnPropertyNames(window).forEach(function (n) { if (!before.has(n)) created.add(n); });
  }
}

function listBindings(job) {
  var names = Array.from(created).filter(function (n) { return Object.prototype.hasOwnProperty.call(window, n); });
  var bindings = {};
  names.slice(0, BINDINGS_MAX).forEach(function (n) {
    try { bindings[n] = editgateSerialize(window[n]); } catch (e) { bindings[n] = { $error: errorText(e) }; }
  });
  return { type: 'bindings', job: job, bindings: bindings, more: Math.max(0, names.length - BINDINGS_MAX) };
}

// A tab cannot be given a fresh global object: what can be deleted is, the rest is named (a
// non-configurable global, as Object.defineProperty makes by default; an eval's var is deletable).
function clearBindings(job) {
  var kept = [];
  created.forEach(function (n) {
    var gone = false;
    try { gone = delete window[n] && !Object.prototype.hasOwnProperty.call(window, n); } catch (e) { gone = false; }
    if (gone) created.delete(n);
    else kept.push(n);
  });
  return { type: 'cleared', job: job, kept: kept };
}

// --- events ---------------------------------------------------------------------------------------------

// Every event of a tab is a whole line (a console call, an error): its `end` is '\n'.
function emit(source, lang, text) {
  send({ type: 'event', job: current, source: source, lang: lang, text: text, end: '\n', ts: Date.now() });
}

function captureConsole() {
  ['log', 'info', 'warn', 'error', 'debug'].forEach(function (level) {
    var own = console[level];
    original[level] = own;
    console[level] = function () {
      if (!capturing) {
        capturing = true;
        try {
          var f = editgateFormatConsole(arguments);
          emit('console.' + level, f.lang, f.text);
        } catch (e) {
          /* the page's own console still gets the call below */
        } finally {
          capturing = false;
        }
      }
      return own.apply(console, arguments);
    };
  });
}

// An error as an event's text: the stack when there is one, without the adapter's frames under
// an agent's code (as in a result).
function errorText(e) {
  return trimStack(editgateFormatConsole([e]).text);
}

function captureErrors() {
  window.addEventListener('error', function (ev) {
    var text = ev.error instanceof Error
      ? errorText(ev.error)
      : (ev.message || 'error') + ' at ' + ev.filename + ':' + ev.lineno + ':' + ev.colno;
    emit('window.onerror', 'Error', text);
  });
  window.addEventListener('unhandledrejection', function (ev) {
    emit('unhandledrejection', 'Error', errorText(ev.reason));
  });
  window.addEventListener('rejectionhandled', function (ev) {
    emit('rejectionhandled', 'Error', errorText(ev.reason));
  });
}
