// The built-in Node page. `editgate serve` writes "'use strict';" + serialize.js + this file to a
// file and runs it with node, the workspace as cwd, a socket on fd 3 that carries the page
// protocol of repl/README.md, one JSON message per line, and one on fd 4 that carries the
// gateway's interrupts (a job number per line). Nothing is written to stdout; stderr is for fatal
// problems only.

const net = require('net');
const vm = require('vm');
const { createRequire } = require('module');

const FILENAME = 'editgate-eval';  // how evaluated code appears in stacks
const ABANDONED = 'abandoned the await; async work the code started may still run';

const channel = new net.Socket({ fd: 3, readable: true, writable: true });
const jobs = new Map();  // job id -> {abandon} while it runs; abandon is set while it awaits
let current = null;  // the job whose code runs now, for console attribution
let brokenBySigint = null;  // the job SIGINT stopped, until the gateway's interrupt for it arrives
const prompts = [];  // {job, resolve} waiting for stdin
const jobRealm = new Map();  // job id -> the realm it runs in, while the gateway may still hear of it
let speakingRealm = null;  // the realm whose console writes now, outside any job of its own
const rejections = new WeakMap();  // promise -> reason, for 'rejectionHandled', which gets no reason
let capturing = false;  // a console call made while formatting one is not captured again

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

function send(msg) {
  const realm = speakingRealm !== null ? speakingRealm : jobRealm.get(msg.job);
  // A realm's messages name it first, so the gateway routes them without parsing.
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

// Also after a run SIGINT or its timeout stopped, which skips every finally block: the console
// flags the code's last write had set are reset here.
function release() {
  capturing = false;
  speakingRealm = null;
  Atomics.store(runningJob, 0, 0n);
  if (held === null) return;
  const { lines, dropped } = held;
  held = null;
  if (lines.length > 0) channel.write(lines.join(''));
  if (dropped > 0) send({ type: 'dropped', job: current, count: dropped });
}

// --- globals for evaluated code -------------------------------------------------------------------

function prompt(text) {
  const job = current;
  if (job === null) return Promise.reject(new Error('prompt: no job is running, so nobody can answer'));
  return new Promise((resolve) => {
    prompts.push({ job, resolve });
    send({ type: 'need-input', job, prompt: text === undefined ? '' : String(text) });
  });
}

globalThis.require = createRequire(process.cwd() + '/');
globalThis.prompt = prompt;
globalThis.editgate = { prompt, version: '1' };

// `end`: the line end the write had, which `text` goes without ('\n' or ''): a console call ends
// its line, a stream write may not.
function emit(source, lang, text, end = '\n') {
  send({ type: 'event', job: current, source, lang, text, end, ts: Date.now() });
}

for (const level of ['log', 'info', 'warn', 'error', 'debug']) {
  console[level] = (...args) => {
    if (capturing) return;
    capturing = true;
    try {
      const f = editgateFormatConsole(args);
      emit('console.' + level, f.lang, f.text);
    } finally {
      capturing = false;
    }
  };
}
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
    emit(source, 'Text', ended ? text.slice(0, -1) : text, ended ? '\n' : '');
    if (typeof callback === 'function') process.nextTick(callback);
    return true;
  };
}

function errorText(e) {
  return editgateFormatConsole([e]).text;
}

// Node prints warnings (deprecations, MaxListenersExceeded...) to stderr; they are the code's output.
process.removeAllListeners('warning');
process.on('warning', (w) => emit('console.warn', 'Text', String(w.name) + ': ' + String(w.message)));
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
process.on('uncaughtException', (e) => emit('uncaughtException', 'Error', errorText(e)));
process.on('unhandledRejection', (reason, promise) => {
  rejections.set(promise, reason);
  emit('unhandledrejection', 'Error', errorText(reason));
});
process.on('rejectionHandled', (promise) => emit('rejectionhandled', 'Error', errorText(rejections.get(promise))));

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

// runInThisContext, so a top-level let/const persists into later evals as in the Node REPL.
// `started` is called once the code is compiled, just before it runs.
function evaluate(code, timeoutMs, context, started) {
  const plan = editgatePlan(code, parses, (body) => parses(asyncWrapper(body)));
  const source = plan.async ? asyncWrapper(plan.body) : plan.source;
  const script = new vm.Script(source, { filename: FILENAME });
  started();
  return context ? script.runInContext(context, runOptions(timeoutMs)) : script.runInThisContext(runOptions(timeoutMs));
}

// The stack up to the evaluated code: this file's frames and node:vm's below it are noise.
function trimStack(stack) {
  const lines = stack.split('\n');
  let end = lines.findIndex((line) => line.includes(__filename));
  if (end < 0) return stack;
  while (end > 0 && /\(node:(?:internal\/)?vm[:)]/.test(lines[end - 1])) end--;
  return lines.slice(0, end).join('\n');
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

function failure(e, job, timeoutMs) {
  const code = vmErrorCode(e);
  if (code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') {
    return { name: 'Timeout', message: 'script ran longer than ' + timeoutMs + ' ms', stack: '' };
  }
  if (e instanceof StoppedBeforeRun) {
    brokenBySigint = job;
    return { name: 'Interrupted', message: 'interrupted before it ran', stack: '' };
  }
  if (code === 'ERR_SCRIPT_EXECUTION_INTERRUPTED') {
    brokenBySigint = job;
    return { name: 'Interrupted', message: 'SIGINT stopped the running code', stack: '' };
  }
  const error = editgateErrorOf(e);
  error.stack = trimStack(error.stack);
  return error;
}

function thenOf(v) {
  if (v === null || (typeof v !== 'object' && typeof v !== 'function')) return null;
  const then = v.then;
  return typeof then === 'function' ? then : null;
}

function run(msg) {
  const job = msg.job;
  const started = performance.now();
  const entry = { abandon: null };
  jobs.set(job, entry);
  current = job;

  const finish = (fields) => {
    if (jobs.get(job) !== entry) return;  // already abandoned
    jobs.delete(job);
    if (current === job) current = null;
    for (let i = prompts.length - 1; i >= 0; i--) if (prompts[i].job === job) prompts.splice(i, 1);
    send({ type: 'result', job, ...fields, duration_ms: performance.now() - started });
    jobRealm.delete(job);
  };
  const succeed = (v) => finish({ ok: true, value: editgateSerialize(v) });
  const fail = (e) => finish({ ok: false, error: failure(e, job, msg.timeout_ms) });

  let value;
  let then;
  // `started` tells the gateway the job is not waiting behind another realm's code. The running
  // job goes first, then the stop is read: whichever of this and the worker acts second sees
  // the other.
  const start = () => {
    send({ type: 'started', job });
    hold();
    const key = jobKey(job);
    Atomics.store(runningJob, 0, key);
    if (key !== 0n && Atomics.load(stopJob, 0) === key) throw new StoppedBeforeRun();
  };
  try {
    value = evaluate(typeof msg.code === 'string' ? msg.code : '', msg.timeout_ms, realmContext(msg.realm), start);
    then = thenOf(value);
  } catch (e) {
    release();
    fail(e);
    return;
  }
  release();
  if (!then) {
    succeed(value);
    return;
  }
  // Only the synchronous part had the timeout; an await that never settles is the gateway's to end.
  entry.abandon = () => finish({ ok: false, error: { name: 'Interrupted', message: ABANDONED, stack: '' } });
  try {
    then.call(value, succeed, fail);
  } catch (e) {
    fail(e);
  }
}

// The page's own thread sent SIGINT for a job running synchronously before this message came:
// breakOnSigint ended the run (its result is sent already).
function interrupt(job) {
  const entry = jobs.get(job);
  if (entry && entry.abandon) {
    entry.abandon();
    send({ type: 'interrupted', job, status: 'interrupted', message: ABANDONED });
  } else if (job === brokenBySigint) {
    brokenBySigint = null;
    send({ type: 'interrupted', job, status: 'interrupted', message: 'SIGINT stopped the running code' });
  } else {
    send({ type: 'interrupted', job, status: 'idle', message: 'job ' + job + ' is not running' });
  }
}

function answer(msg) {
  const i = prompts.findIndex((p) => p.job === msg.job);
  if (i >= 0) prompts.splice(i, 1)[0].resolve(msg.eof === true ? null : typeof msg.text === 'string' ? msg.text : '');
}

function lookupGlobal(name, context) {
  const source = '(' + name + ')';  // sees top-level let/const, unlike globalThis
  return context ? vm.runInContext(source, context) : vm.runInThisContext(source);
}

// info and docs in the realm the message is for: its own global object and bindings.
function realmLookup(msg) {
  const context = realmContext(msg.realm);
  const root = context ? vm.runInContext('globalThis', context) : globalThis;
  return editgateLookup(msg.what, msg.symbol, (name) => lookupGlobal(name, context), root);
}

function receive(line) {
  try {
    const msg = JSON.parse(line);
    if (!msg || typeof msg !== 'object') return;
    if (msg.realm !== undefined && !routeRealm(msg)) return;
    switch (msg.type) {
      case 'realm-open': openRealm(msg.realm); break;
      case 'realm-close': closeRealm(msg.realm); break;
      case 'bindings': send({ type: 'bindings', job: msg.job, ...listBindings(msg.realm) }); break;
      case 'clear': send({ type: 'cleared', job: msg.job, ...clearBindings(msg.realm) }); break;
      case 'refused':
        fatal('editgate node page: refused (' + msg.error + '): ' + msg.message + '\n');
        break;
      case 'eval': run(msg); break;
      case 'interrupt': interrupt(msg.job); break;
      case 'complete':
        var code = typeof msg.code === 'string' ? msg.code : '';
        send({ type: 'completions', job: msg.job, items: editgateCompletions(code, (name) => lookupGlobal(name, realmContext(msg.realm))),
          start: editgateCompletionStart(code) });
        break;
      case 'stdin': answer(msg); break;
      case 'lookup':
        send({ type: 'looked-up', job: msg.job, info: realmLookup(msg) });
        break;
    }
    if (msg.type !== 'eval' && !jobs.has(msg.job)) jobRealm.delete(msg.job);
  } catch (e) {
    fatal('editgate node page: failed to handle a gateway message: ' + e + '\n');
  }
}

// --- realms ----------------------------------------------------------------------------------------
// A realm is a fresh vm context with globals of its own, a page of its own to the gateway: its
// messages carry "realm" both ways. The gateway opens and closes them (and bounds their number).

const realms = new Map();  // realm number -> {context, baseline: names its globals had when made}
const BINDINGS_MAX = 200;  // names a bindings answer lists; the rest are counted

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
  const g = { console: realmConsole, prompt, editgate: { prompt, version: '1', realm } };
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
  send({ realm, type: 'hello', name: 'node-' + realm, url: 'node:' + process.cwd() + '#realm-' + realm,
    title: 'Node ' + process.version + ' realm ' + realm, kind: 'node', user_agent: 'node/' + process.version });
}

// Its running code is abandoned: the gateway fails its jobs as the realm's page goes away.
function closeRealm(realm) {
  realms.delete(realm);
  for (const [job, r] of jobRealm) if (r === realm) jobRealm.delete(job);
}

function realmContext(realm) {
  const r = realm === undefined ? undefined : realms.get(realm);
  return r ? r.context : undefined;
}

// A message for a realm: its job is that realm's until answered. A realm that is gone (closed,
// or lost with a process the gateway restarted) answers nothing: the gateway's own bounds act.
function routeRealm(msg) {
  if (msg.type === 'realm-open' || msg.type === 'realm-close') return true;
  if (!realms.has(msg.realm)) return false;
  if (msg.job !== undefined) jobRealm.set(msg.job, msg.realm);
  return true;
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

function listBindings(realm) {
  const lexical = lexicalNames(realm);
  const names = [...new Set([...globalNames(realm), ...lexical])];
  const context = realmContext(realm);
  const global = realm === undefined ? globalThis : vm.runInContext('globalThis', context);
  const bindings = {};
  for (const name of names.slice(0, BINDINGS_MAX)) {
    let value;
    try {
      // A lexical binding is read by its name, as code reads it (in its TDZ it throws).
      const v = lexical.includes(name) ? (context ? vm.runInContext(name, context) : vm.runInThisContext(name)) : global[name];
      value = editgateSerialize(v);
    } catch (e) {
      value = { $error: errorText(e) };
    }
    bindings[name] = value;
  }
  return { bindings, more: Math.max(0, names.length - BINDINGS_MAX) };
}

// A realm is replaced outright by a fresh context; the main page deletes what it can and names
// the rest (a non-configurable global; a top-level let, const or class, which nothing deletes).
function clearBindings(realm) {
  if (realm !== undefined && realms.has(realm)) {
    realms.set(realm, makeRealm(realm));
    return { kept: [] };
  }
  const kept = lexicalNames(undefined);
  for (const name of globalNames(undefined)) {
    try {
      if (!delete globalThis[name]) kept.push(name);
    } catch {
      kept.push(name);
    }
  }
  return { kept };
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
