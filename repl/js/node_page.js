// The built-in Node page: protocol.js's host in Node. `editgate serve` writes "'use strict';",
// serialize.js, lookup.js, protocol.js and this file to a file and runs it with node, the workspace
// as cwd, a socket on fd 3 that carries the page protocol of repl/README.md, one JSON message per
// line, and one on fd 4 that carries the gateway's interrupts (a job number per line). Nothing is
// written to stdout; stderr is for fatal problems only.

const net = require('net');
const vm = require('vm');
const { createRequire } = require('module');

const FILENAME = 'editgate-eval';  // how evaluated code appears in stacks
const SIGINT_STOPPED = 'SIGINT stopped the running code';

const channel = new net.Socket({ fd: 3, readable: true, writable: true });
let brokenBySigint = null;  // the job SIGINT stopped, until the gateway's interrupt for it arrives
let speakingRealm = null;  // the realm whose console writes now, outside any job of its own
const rejections = new WeakMap();  // promise -> reason, for 'rejectionHandled', which gets no reason

// What evaluated code writes while it runs synchronously waits for the run's end, as a browser
// tab's socket sends it then too: SIGINT breaks a run in JavaScript only, and one that lands in
// the socket's native write is lost (a loop that logs could not be interrupted). Bounded: past
// HELD_MAX lines or HELD_MAX_BYTES the writes are counted, and the count sent at the end.
// The gateway's interrupts reach a thread of the page's own (the worker at the end of this file),
// which sends SIGINT only while the job asked about runs synchronously: which realm's code holds
// the thread at that instant is known here alone. Shared with it: that job, and the job the
// gateway last asked to stop (0n: none).
const stopShared = new SharedArrayBuffer(16);
const runningJob = new BigInt64Array(stopShared, 0, 1);
const stopJob = new BigInt64Array(stopShared, 8, 1);
const jobKey = (job) => (Number.isSafeInteger(job) && job > 0 ? BigInt(job) : 0n);
class StoppedBeforeRun {}

const HELD_MAX = 1000;
const HELD_MAX_BYTES = 4 << 20;
let held = null;  // {lines, bytes, dropped} during a synchronous run, else null

// A realm's messages name it first, so the gateway routes them without parsing: the realm whose
// console speaks, else the realm of the request.
function send(msg, request) {
  const realm = speakingRealm !== null ? speakingRealm : request?.realm;
  const line = JSON.stringify(realm === undefined ? msg : { realm, ...msg }) + '\n';
  if (held === null) return void channel.write(line);
  // Only writes are dropped past the bound; a prompt (bounded by the gateway) always goes.
  const fits = held.lines.length < HELD_MAX && held.bytes + line.length <= HELD_MAX_BYTES;
  if (!fits && msg.type === 'event') return void held.dropped++;
  held.lines.push(line);
  held.bytes += line.length;
}

function hold() {
  held = { lines: [], bytes: 0, dropped: 0 };
}

// Also after a run SIGINT or its timeout stopped, which skips every finally block: the realm a
// realm's console call had set is reset here (the protocol resets its own console flag).
function release(request) {
  speakingRealm = null;
  Atomics.store(runningJob, 0, 0n);
  if (held === null) return;
  const { lines, dropped } = held;
  held = null;
  if (lines.length > 0) channel.write(lines.join(''));
  if (dropped > 0) send({ type: 'dropped', job: request.job, count: dropped }, request);
}

const page = editgateProtocol({
  send,
  evaluate,
  stopped,
  // SIGINT ended the job's run before the gateway's interrupt for it came (the result is sent).
  interrupted(job) {
    if (job !== brokenBySigint) return null;
    brokenBySigint = null;
    return SIGINT_STOPPED;
  },
  ownFrame: (line) => line.includes(__filename),
  runnerFrame: /\(node:(?:internal\/)?vm[:)]/,
  errorText,
  // A first name is read as code reads it, so a top-level let or const counts.
  globals(request) {
    const context = realmContext(request.realm);
    return { lookup: (name) => runIn('(' + name + ')', context), root: context ? runIn('globalThis', context) : globalThis };
  },
  bindings,
  clear: clearBindings,
  promptName: 'prompt',
});

// --- globals for evaluated code -------------------------------------------------------------------

globalThis.require = createRequire(process.cwd() + '/');
globalThis.prompt = page.prompt;
globalThis.editgate = { prompt: page.prompt, version: '1' };

page.captureConsole(false);
// console.dir writes to stdout itself; the other methods (table, trace, assert, time...) go
// through the ones above.
console.dir = (value) => console.log(value);

// The page's own last words (refused, a broken channel) go to the real stderr; everything the code
// writes to process.stdout / process.stderr is output like the console's, one event per write
// (a trailing newline dropped from the text and sent as its `end`), and never reaches the gateway's own streams.
const fatal = process.stderr.write.bind(process.stderr);
for (const stream of [process.stdout, process.stderr]) {
  const source = stream === process.stdout ? 'process.stdout' : 'process.stderr';
  stream.write = (chunk, encoding, callback) => {
    if (typeof encoding === 'function') [callback, encoding] = [encoding, undefined];
    let text;
    try {
      text = typeof chunk === 'string' ? Buffer.from(chunk, Buffer.isEncoding(encoding) ? encoding : 'utf8').toString('utf8')
        : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('utf8');
    } catch {
      text = String(chunk);
    }
    const ended = text.endsWith('\n');
    page.emit(source, 'Text', ended ? text.slice(0, -1) : text, ended ? '\n' : '');
    if (typeof callback === 'function') process.nextTick(callback);
    return true;
  };
}

function errorText(e) {
  return editgateFormatConsole([e]).text;
}

// Node prints warnings (deprecations, MaxListenersExceeded...) to stderr; they are the code's output.
process.removeAllListeners('warning');
process.on('warning', (w) => page.emit('console.warn', 'Text', String(w.name) + ': ' + String(w.message)));
// SIGINT stops synchronous code (vm's breakOnSigint). Node's SIGINT watchdog, held started for the
// life of the process, owns the signal: outside a run a SIGINT is dropped. A process listener would
// not do: vm takes it off and puts it back around every run, and a SIGINT in between (or between
// the watchdog's end and the listener's return) is Node's default exit, taking every global along.
const sigintHeld = (() => {
  try {
    return process.binding('contextify').startSigintWatchdog() === true;
  } catch {
    return false;
  }
})();
if (!sigintHeld) process.on('SIGINT', () => {});  // a Node without it: the racy way, better than none
process.on('uncaughtException', (e) => page.emit('uncaughtException', 'Error', errorText(e)));
process.on('unhandledRejection', (reason, promise) => {
  rejections.set(promise, reason);
  page.emit('unhandledrejection', 'Error', errorText(reason));
});
process.on('rejectionHandled', (promise) => page.emit('rejectionhandled', 'Error', errorText(rejections.get(promise))));

// --- jobs ------------------------------------------------------------------------------------------

function parses(source) {
  try {
    new vm.Script(source, { filename: FILENAME });  // compiles, never runs
    return true;
  } catch {
    return false;
  }
}

// An async arrow keeps `this` the global object, as at the top level.
const asyncWrapper = (body) => '(async () => {' + body + '\n})()';

function runOptions(timeoutMs) {
  const options = { breakOnSigint: true, displayErrors: false };
  if (Number.isFinite(timeoutMs) && timeoutMs > 0) options.timeout = Math.ceil(timeoutMs);
  return options;
}

function runIn(source, context) {
  return context ? vm.runInContext(source, context) : vm.runInThisContext(source);
}

// runInThisContext, so a top-level let/const persists into later evals as in the Node REPL. What
// the code writes while it runs synchronously is held until it ends (see hold).
function evaluate(code, request) {
  try {
    const plan = editgatePlan(code, parses, (body) => parses(asyncWrapper(body)));
    const script = new vm.Script(plan.async ? asyncWrapper(plan.body) : plan.source, { filename: FILENAME });
    const context = realmContext(request.realm);
    const options = runOptions(request.timeout_ms);
    start(request);
    return context ? script.runInContext(context, options) : script.runInThisContext(options);
  } finally {
    release(request);
  }
}

// Once the code is compiled, just before it runs. `started` tells the gateway the job is not
// waiting behind another realm's code. The running job goes first, then the stop is read:
// whichever of this and the worker acts second sees the other.
function start(request) {
  send({ type: 'started', job: request.job }, request);
  hold();
  const key = jobKey(request.job);
  Atomics.store(runningJob, 0, key);
  if (key !== 0n && Atomics.load(stopJob, 0) === key) throw new StoppedBeforeRun();
}

// vm marks its errors for the timeout and for SIGINT with a code.
function vmErrorCode(e) {
  try {
    // Not instanceof Error: a realm's errors are made by its own context's Error.
    return e !== null && typeof e === 'object' ? e.code : undefined;
  } catch {
    return undefined;  // a getter or Proxy trap threw
  }
}

// The error of a run the page stopped: its timeout, or SIGINT (the page's thread sent it for a
// job running synchronously, breakOnSigint ended the run, and the interrupt message follows).
function stopped(e, request) {
  const code = vmErrorCode(e);
  if (code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') {
    return { name: 'Timeout', message: 'script ran longer than ' + request.timeout_ms + ' ms', stack: '' };
  }
  const before = e instanceof StoppedBeforeRun;
  if (!before && code !== 'ERR_SCRIPT_EXECUTION_INTERRUPTED') return null;
  brokenBySigint = request.job;
  return { name: 'Interrupted', message: before ? 'interrupted before it ran' : SIGINT_STOPPED, stack: '' };
}

function receive(line) {
  try {
    const msg = JSON.parse(line);
    if (!msg || typeof msg !== 'object') return;
    if (msg.type === 'realm-open') return openRealm(msg.realm);
    if (msg.type === 'realm-close') return closeRealm(msg.realm);
    // A realm that is gone (closed, or lost with a process the gateway restarted) answers
    // nothing: the gateway's own bounds act.
    if (msg.realm !== undefined && !realms.has(msg.realm)) return;
    if (msg.type === 'refused') fatal('editgate node page: refused (' + msg.error + '): ' + msg.message + '\n');
    else page.handle(msg);
  } catch (e) {
    fatal('editgate node page: failed to handle a gateway message: ' + e + '\n');
  }
}

// --- realms ----------------------------------------------------------------------------------------
// A realm is a fresh vm context with globals of its own, a page of its own to the gateway: its
// messages carry "realm" both ways. The gateway opens and closes them (and bounds their number).

const realms = new Map();  // realm number -> {context, baseline: names its globals had when made}

// What code in a realm finds besides JavaScript's own globals.
function realmGlobals(realm) {
  const realmConsole = {};
  for (const level of ['log', 'info', 'warn', 'error', 'debug', 'dir', 'table', 'trace', 'assert', 'count', 'time',
    'timeEnd', 'group', 'groupEnd']) {
    realmConsole[level] = (...args) => {
      const before = speakingRealm;
      speakingRealm = realm;
      try {
        console[level](...args);
      } finally {
        speakingRealm = before;
      }
    };
  }
  const g = { console: realmConsole, prompt: page.prompt, editgate: { prompt: page.prompt, version: '1', realm } };
  g.require = createRequire(process.cwd() + '/');
  for (const name of ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'setImmediate', 'clearImmediate',
    'queueMicrotask', 'structuredClone', 'URL', 'URLSearchParams', 'TextEncoder', 'TextDecoder', 'Buffer', 'process',
    'performance', 'fetch', 'AbortController', 'AbortSignal', 'atob', 'btoa', 'Blob', 'Event', 'EventTarget'])
    if (globalThis[name] !== undefined) g[name] = globalThis[name];
  return g;
}

let contextsMade = 0;
// Each context's name is its own, so the inspector finds it by that name (lexicalNames).
function makeRealm(realm) {
  const name = 'editgate realm ' + realm + ' #' + ++contextsMade;
  const context = vm.createContext(realmGlobals(realm), { name });
  const baseline = new Set(vm.runInContext('Object.getOwnPropertyNames(globalThis)', context));
  return { context, baseline, name };
}

function openRealm(realm) {
  if (!Number.isSafeInteger(realm) || realm < 1) return;
  realms.set(realm, makeRealm(realm));
  send({ type: 'hello', name: 'node-' + realm, url: 'node:' + process.cwd() + '#realm-' + realm,
    title: 'Node ' + process.version + ' realm ' + realm, kind: 'node', user_agent: 'node/' + process.version }, { realm });
}

// Its running code is abandoned: the gateway fails its jobs as the realm's page goes away.
function closeRealm(realm) {
  realms.delete(realm);
  page.forget((request) => request.realm === realm);
}

function realmContext(realm) {
  const r = realm === undefined ? undefined : realms.get(realm);
  return r ? r.context : undefined;
}

// The globals code created: names the context did not start with. Top-level let/const live in
// the script scope, which V8 does not list; they go with the context on clear.
const mainBaseline = new Set();
function globalNames(realm) {
  const r = realm === undefined ? undefined : realms.get(realm);
  const names = r ? vm.runInContext('Object.getOwnPropertyNames(globalThis)', r.context) : Object.getOwnPropertyNames(globalThis);
  const baseline = r ? r.baseline : mainBaseline;
  return names.filter((n) => !baseline.has(n));
}

// A top-level let, const or class of evaluated code is no property of the global object; the
// inspector names them (this file's own declarations are its module's, none of the global
// scope's). A realm's context is found by the name makeRealm gave it.
let inspectorSession = null;
function lexicalNames(realm) {
  try {
    if (inspectorSession === null) {
      inspectorSession = new (require('inspector').Session)();
      inspectorSession.connect();
    }
    const params = {};
    if (realm !== undefined) {
      const r = realms.get(realm);
      if (r === undefined) return [];
      let id;
      const created = (m) => {
        if (m.params.context.name === r.name) id = m.params.context.id;
      };
      inspectorSession.on('Runtime.executionContextCreated', created);
      try {
        inspectorSession.post('Runtime.enable');  // names every context there is, at once
        inspectorSession.post('Runtime.disable');
      } finally {
        inspectorSession.off('Runtime.executionContextCreated', created);
      }
      if (id === undefined) return [];
      params.executionContextId = id;
    }
    let names = [];
    inspectorSession.post('Runtime.globalLexicalScopeNames', params, (e, r) => {
      if (!e && r && Array.isArray(r.names)) names = r.names;
    });
    return names;
  } catch {
    return [];  // a Node without the inspector: the global object's names alone
  }
}

function bindings(request) {
  const lexical = lexicalNames(request.realm);
  const context = realmContext(request.realm);
  const global = context ? runIn('globalThis', context) : globalThis;
  return {
    names: [...new Set([...globalNames(request.realm), ...lexical])],
    // A lexical binding is read by its name, as code reads it (in its TDZ it throws).
    read: (name) => (lexical.includes(name) ? runIn(name, context) : global[name]),
  };
}

// A realm is replaced outright by a fresh context; the main page deletes what it can and names
// the rest (a non-configurable global; a top-level let, const or class, which nothing deletes).
function clearBindings(request) {
  const realm = request.realm;
  if (realm !== undefined && realms.has(realm)) {
    realms.set(realm, makeRealm(realm));
    return [];
  }
  const kept = lexicalNames(undefined);
  for (const name of globalNames(undefined)) {
    try {
      if (!delete globalThis[name]) kept.push(name);
    } catch {
      kept.push(name);
    }
  }
  return kept;
}

// --- the channel -----------------------------------------------------------------------------------

let pending = '';
channel.setEncoding('utf8');
channel.on('data', (chunk) => {
  pending += chunk;
  let nl;
  while ((nl = pending.indexOf('\n')) >= 0) {
    const line = pending.slice(0, nl);
    pending = pending.slice(nl + 1);
    if (line.trim() !== '') receive(line);
  }
});
// The page ends with its gateway. The channel's end says so, but only to a main thread that is
// free: code spinning in a synchronous loop never hears it, and a gateway killed then (SIGKILL
// gives it no chance to stop its page) left the loop running for good. A thread of its own
// watches for this process being handed to another parent, which happens only when the
// gateway is gone.
// The page's own thread. It ends the page once the gateway is gone (the channel's end reaches
// only a main thread that is free: code spinning in a synchronous loop never hears it, and a
// gateway killed then left the loop running for good; this process being handed to another
// parent happens only when the gateway is gone). And it reads the gateway's interrupts on fd 4,
// a job number per line, sending SIGINT while that job runs synchronously, again every 50 ms
// for 2 s (a SIGINT that lands in a native call is lost to the run).
new (require('worker_threads').Worker)(`
  const { workerData } = require('worker_threads');
  const parent = ${process.ppid};
  setInterval(() => { if (process.ppid !== parent) process.kill(process.pid, 'SIGKILL'); }, 250);
  const running = new BigInt64Array(workerData, 0, 1);
  const stop = new BigInt64Array(workerData, 8, 1);
  const stopIt = (job) => {
    Atomics.store(stop, 0, job);
    let tries = 0;
    const poke = () => {
      if (Atomics.load(running, 0) !== job || ++tries > 40) return;
      process.kill(process.pid, 'SIGINT');
      setTimeout(poke, 50);
    };
    poke();
  };
  let requests;
  try {
    requests = new (require('net').Socket)({ fd: 4, readable: true, writable: false });
  } catch {
    requests = null;  // started without the channel (a test): SIGINT from outside still works
  }
  if (requests) {
    let pending = '';
    requests.setEncoding('utf8');
    requests.on('error', () => {});
    requests.on('data', (chunk) => {
      pending += chunk;
      let nl;
      while ((nl = pending.indexOf('\\n')) >= 0) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        if (/^[1-9][0-9]{0,15}$/.test(line)) stopIt(BigInt(line));
      }
      if (pending.length > 64) pending = '';  // no job number is that long
    });
  }
`, { eval: true, workerData: stopShared }).unref();
channel.on('end', () => process.exit(0));
channel.on('close', () => process.exit(0));
channel.on('error', (e) => {
  fatal('editgate node page: fd 3: ' + e.message + '\n');
  process.exit(1);
});

for (const name of Object.getOwnPropertyNames(globalThis)) mainBaseline.add(name);

send({
  type: 'hello', id: process.env.EDITGATE_PAGE_ID || null, name: process.env.EDITGATE_PAGE_NAME || 'node', url: 'node:' + process.cwd(),
  title: 'Node ' + process.version, kind: 'node', user_agent: 'node/' + process.version
});
