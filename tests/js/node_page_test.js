// The built-in Node page (repl/js/node_page.js), built and run as `editgate serve` does, driven
// over its fd 3 with the page protocol of repl/README.md.
const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const WAIT_MS = 5000;
const js = (name) => fs.readFileSync(path.join(__dirname, '..', '..', 'repl', 'js', name), 'utf8');

// A running page: messages it sent, waited for with a deadline so a hang fails the test.
class Page {
  constructor(cwd) {
    this.dir = fs.mkdtempSync(path.join(os.tmpdir(), 'editgate-node-page-'));
    this.file = path.join(this.dir, 'node_page.js');
    fs.writeFileSync(this.file, "'use strict';\n" + ['serialize.js', 'lookup.js', 'protocol.js', 'node_page.js'].map(js).join('\n'));
    this.child = spawn(process.execPath, [this.file], {
      cwd, stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'pipe'], env: { ...process.env, EDITGATE_PAGE_NAME: 'node' },
    });
    this.stdout = '';
    this.stderr = '';
    this.child.stdout.setEncoding('utf8').on('data', (d) => { this.stdout += d; });
    this.child.stderr.setEncoding('utf8').on('data', (d) => { this.stderr += d; });
    this.exited = new Promise((resolve) => this.child.on('exit', (code, signal) => resolve({ code, signal })));
    this.channel = this.child.stdio[3];
    this.inbox = [];
    this.waiters = [];
    let pending = '';
    this.channel.setEncoding('utf8');
    this.channel.on('data', (chunk) => {
      pending += chunk;
      let nl;
      while ((nl = pending.indexOf('\n')) >= 0) {
        this.inbox.push(JSON.parse(pending.slice(0, nl)));
        pending = pending.slice(nl + 1);
      }
      this.deliver();
    });
  }

  deliver() {
    for (const w of [...this.waiters]) {
      const i = this.inbox.findIndex(w.match);
      if (i >= 0) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        clearTimeout(w.timer);
        w.resolve(this.inbox.splice(i, 1)[0]);
      }
    }
  }

  // The first message that matches, taken out of the inbox.
  next(match, what) {
    return new Promise((resolve, reject) => {
      const w = { match, resolve };
      w.timer = setTimeout(() => {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        reject(new Error(`no ${what} within ${WAIT_MS} ms; inbox: ${JSON.stringify(this.inbox)}; stderr: ${this.stderr}`));
      }, WAIT_MS);
      this.waiters.push(w);
      this.deliver();
    });
  }

  send(msg) { this.channel.write(JSON.stringify(msg) + '\n'); }

  // The gateway's interrupt channel (fd 4): stop `job` if its code runs synchronously.
  stop(job) { this.child.stdio[4].write(job + '\n'); }

  reply(type, job) { return this.next((m) => m.type === type && m.job === job, `${type} for ${job}`); }

  event(match, what) { return this.next((m) => m.type === 'event' && match(m), what); }

  async eval(job, code, timeout_ms = 10000) {
    this.send({ type: 'eval', job, code, timeout_ms });
    return this.reply('result', job);
  }
}

describe('the Node page', () => {
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'editgate-workspace-'));
  let page;

  before(async () => {
    fs.writeFileSync(path.join(workspace, 'local.js'), 'module.exports = "from the workspace";\n');
    page = new Page(workspace);
  });

  after(async () => {
    page.child.kill('SIGKILL');
    fs.rmSync(page.dir, { recursive: true, force: true });
    fs.rmSync(workspace, { recursive: true, force: true });
  });

  it('says hello', async () => {
    const hello = await page.next((m) => m.type === 'hello', 'hello');
    assert.deepEqual(hello, {
      type: 'hello', id: null, name: 'node', url: 'node:' + fs.realpathSync(workspace),
      title: 'Node ' + process.version, kind: 'node', user_agent: 'node/' + process.version,
    });
    page.send({ type: 'welcome', id: 'i1', name: 'node', log: 'debug/node.md' });
  });

  it('evaluates an expression', async () => {
    const r = await page.eval('e1', '12+13');
    assert.equal(r.ok, true);
    assert.equal(r.value, 25);
    assert.equal(typeof r.duration_ms, 'number');
    assert.ok(r.duration_ms >= 0);
  });

  it('reads braces as an object literal', async () => {
    assert.deepEqual((await page.eval('e2', '{a:1}')).value, { a: 1 });
  });

  it('keeps top-level let between evals', async () => {
    assert.equal((await page.eval('e3', 'let x = 5; x * 2')).value, 10);
    assert.equal((await page.eval('e4', 'x')).value, 5);
    assert.deepEqual((await page.eval('e4b', 'function twice(n) { return 2 * n }')).value, { $undefined: true });
    assert.equal((await page.eval('e4c', 'twice(x)')).value, 10);
  });

  it('reports an error with its stack', async () => {
    const r = await page.eval('e5', 'null.x');
    assert.equal(r.ok, false);
    assert.equal(r.error.name, 'TypeError');
    assert.match(r.error.message, /null/);
    assert.match(r.error.stack, /^TypeError: .*\n\s+at editgate-eval:1:/);
    assert.ok(!r.error.stack.includes(page.file), 'the page program is cut from the stack');
    const thrown = await page.eval('e5b', 'throw "plain"');
    assert.deepEqual(thrown.error, { name: 'Uncaught', message: 'plain', stack: '' });
  });

  it('awaits a top-level await', async () => {
    const r = await page.eval('e6', 'await new Promise(r => setTimeout(() => r(7), 10))');
    assert.deepEqual([r.ok, r.value], [true, 7]);
  });

  it('returns the last expression of statements with await', async () => {
    const r = await page.eval('e7', 'const a = await Promise.resolve(2);\nconst b = 3;\na * b;\n');
    assert.deepEqual([r.ok, r.value], [true, 6]);
    const rejected = await page.eval('e7b', 'await Promise.reject(new RangeError("no"))');
    assert.equal(rejected.ok, false);
    assert.equal(rejected.error.name, 'RangeError');
  });

  it('offers require from the workspace', async () => {
    assert.equal((await page.eval('e8', 'require("./local.js")')).value, 'from the workspace');
    assert.equal((await page.eval('e8b', 'require("path").basename("/a/b")')).value, 'b');
  });

  it('captures console output as events', async () => {
    const r = await page.eval('e9', 'console.log("hi"); console.log({a:1}); console.error(new Error("bad")); console.dir([1]); 1');
    assert.equal(r.value, 1);
    const text = await page.event((m) => m.source === 'console.log' && m.lang === 'Text', 'a Text event');
    assert.equal(text.text, 'hi');
    assert.equal(text.job, 'e9');
    assert.ok(Math.abs(text.ts - Date.now()) < 60000);
    const json = await page.event((m) => m.source === 'console.log' && m.text === '{"a":1}', 'a JSON event');
    assert.equal(json.lang, 'JSON');
    const error = await page.event((m) => m.source === 'console.error', 'a console.error event');
    assert.equal(error.lang, 'Error');
    assert.match(error.text, /^Error: bad\n/);
    const dir = await page.event((m) => m.source === 'console.log' && m.text === '[1]', 'the console.dir event');
    assert.equal(dir.lang, 'JSON');
  });

  it('captures process.stdout.write and process.stderr.write as events', async () => {
    const r = await page.eval('e9b', 'process.stdout.write("to stdout\\n"); process.stderr.write(Buffer.from("to stderr")); ' +
      'process.stdout.write("6869", "hex", () => {}); 3');
    assert.equal(r.value, 3);
    const out = await page.event((m) => m.source === 'process.stdout' && m.text === 'to stdout', 'the stdout event');
    assert.equal(out.job, 'e9b');
    assert.equal(out.lang, 'Text');
    await page.event((m) => m.source === 'process.stderr' && m.text === 'to stderr', 'the stderr event');
    await page.event((m) => m.source === 'process.stdout' && m.text === 'hi', 'the hex-encoded write');
    assert.equal(page.stdout, '');
    assert.equal(page.stderr, '');
  });

  it('stops a synchronous loop at timeout_ms', async () => {
    const r = await page.eval('e10', 'while (true) {}', 200);
    assert.equal(r.ok, false);
    assert.deepEqual(r.error, { name: 'Timeout', message: 'script ran longer than 200 ms', stack: '' });
    assert.equal((await page.eval('e10b', '"alive"')).value, 'alive');
  });

  it('breaks a synchronous loop on SIGINT and confirms the interrupt', async () => {
    page.send({ type: 'eval', job: 'e11', code: 'console.log("looping"); while (true) {}', timeout_ms: 60000 });
    await page.reply('started', 'e11');
    await new Promise((r) => setTimeout(r, 100));
    page.child.kill('SIGINT');
    page.send({ type: 'interrupt', job: 'e11' });
    const r = await page.reply('result', 'e11');
    assert.equal(r.ok, false);
    assert.equal(r.error.name, 'Interrupted');
    // What the run wrote came at its end, with its result.
    assert.equal((await page.event((m) => m.job === 'e11', 'what the loop wrote')).text, 'looping');
    const answer = await page.reply('interrupted', 'e11');
    assert.equal(answer.status, 'interrupted');
    assert.equal((await page.eval('e12', '1 + 1')).value, 2);
  });

  // A SIGINT that lands in the socket's native write is lost to the run: a loop that logs could not be
  // stopped (59 SIGINTs in 60 were lost) while the page wrote during the run.
  it('breaks a loop that logs on SIGINT; the writes past the bound are counted', async () => {
    page.send({ type: 'eval', job: 'e11l', timeout_ms: 60000,
      code: 'for (let i = 0; i < 1500; i++) console.log("line " + i); for (;;) console.log("more")' });
    await page.reply('started', 'e11l');
    await new Promise((r) => setTimeout(r, 100));
    page.child.kill('SIGINT');
    const first = await page.event((m) => m.job === 'e11l', 'the first line');
    assert.equal(first.text, 'line 0');
    const dropped = await page.reply('dropped', 'e11l');
    assert.ok(Number.isSafeInteger(dropped.count) && dropped.count >= 500, JSON.stringify(dropped));
    const r = await page.reply('result', 'e11l');
    assert.equal(page.inbox.filter((m) => m.job === 'e11l').length, 999);
    assert.equal(r.error.name, 'Interrupted');
    page.inbox = page.inbox.filter((m) => m.job !== 'e11l');
    // Stopped inside console.log (its finally never ran), the console still works.
    assert.equal((await page.eval('e11m', 'console.log("after"); 1')).value, 1);
    assert.equal((await page.event((m) => m.job === 'e11m', 'the write after')).text, 'after');
  });

  // The same in a realm: its console marks the realm as the one speaking, and a stopped run must
  // not leave the main page's messages labelled as the realm's.
  it("breaks a realm's loop that logs; the main page speaks for itself after", async () => {
    page.send({ type: 'realm-open', realm: 1 });
    await page.next((m) => m.realm === 1 && m.type === 'hello', "the realm's hello");
    page.send({ realm: 1, type: 'eval', job: 'r1', timeout_ms: 60000, code: 'for (;;) console.log("realm")' });
    await page.reply('started', 'r1');
    await new Promise((r) => setTimeout(r, 100));
    page.child.kill('SIGINT');
    const r = await page.reply('result', 'r1');
    assert.equal(r.realm, 1);
    assert.equal(r.error.name, 'Interrupted');
    page.inbox = page.inbox.filter((m) => m.job !== 'r1');
    const main = await page.eval('r2', 'console.log("main"); 2');
    assert.equal(main.value, 2);
    assert.equal(main.realm, undefined);
    assert.equal((await page.event((m) => m.job === 'r2', 'the main page write')).realm, undefined);
    page.send({ type: 'realm-close', realm: 1 });
  });

  // Every answer about a realm's job goes to that realm: the interrupt's too, after the result.
  it("answers an interrupt of a realm's awaiting job on the realm", async () => {
    page.send({ type: 'realm-open', realm: 2 });
    await page.next((m) => m.realm === 2 && m.type === 'hello', "the realm's hello");
    page.send({ realm: 2, type: 'eval', job: 'r3', timeout_ms: 60000, code: 'await new Promise(() => {})' });
    await page.reply('started', 'r3');
    page.send({ realm: 2, type: 'interrupt', job: 'r3' });
    assert.equal((await page.reply('result', 'r3')).realm, 2);
    const answer = await page.reply('interrupted', 'r3');
    assert.deepEqual([answer.realm, answer.status], [2, 'interrupted']);
    page.send({ type: 'realm-close', realm: 2 });
  });

  // The page's own thread sends the SIGINT, only while the job asked about runs synchronously.
  it('stops by the interrupt channel the job named, never another', async () => {
    page.send({ type: 'eval', job: 101, code: 'while (true) {}', timeout_ms: 60000 });
    await page.reply('started', 101);
    page.stop(999);  // another job: the loop goes on
    page.stop('garbage');
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(page.inbox.some((m) => m.type === 'result' && m.job === 101), false);
    page.stop(101);
    const r = await page.reply('result', 101);
    assert.equal(r.error.name, 'Interrupted');
    // A loop that logs, where a single SIGINT is mostly lost in the write: the page repeats it.
    page.send({ type: 'eval', job: 102, code: 'for (;;) console.log("x")', timeout_ms: 60000 });
    await page.reply('started', 102);
    page.stop(102);
    assert.equal((await page.reply('result', 102)).error.name, 'Interrupted');
    page.inbox = page.inbox.filter((m) => m.job !== 102);
    // Asked before it ran: it does not run.
    page.stop(103);
    await new Promise((r) => setTimeout(r, 100));
    const before = await page.eval(103, 'globalThis.ran103 = true');
    assert.equal(before.error.message, 'interrupted before it ran');
    assert.equal((await page.eval(104, 'typeof ran103')).value, 'undefined');
  });

  it('ignores SIGINT between evals', async () => {
    page.child.kill('SIGINT');
    await new Promise((r) => setTimeout(r, 100));
    assert.equal((await page.eval('e12b', '"still here"')).value, 'still here');
  });

  // With a process SIGINT listener, vm takes it off and puts it back around each run: a signal
  // in between was Node's default exit (exit 130 within a few hundred of these runs).
  it('lives through SIGINT at any moment, runs starting and ending around it', async () => {
    const spam = setInterval(() => page.child.kill('SIGINT'), 1);
    try {
      for (let i = 0; i < 300; i++) {
        const r = await page.eval('s' + i, '(() => { let x = 0; for (let j = 0; j < 20000; j++) x += j; return x; })()');
        assert.ok(r.ok || r.error.name === 'Interrupted', JSON.stringify(r));
      }
    } finally {
      clearInterval(spam);
    }
    assert.equal(page.child.exitCode, null);
    assert.equal(page.child.signalCode, null);
  });

  it('says when a job starts', async () => {
    page.send({ type: 'eval', job: 'p1', code: 'await new Promise((r) => setTimeout(r, 50)); 7', timeout_ms: 5000 });
    await page.reply('started', 'p1');
    assert.equal((await page.reply('result', 'p1')).value, 7);
    page.send({ type: 'eval', job: 'p2', code: '8', timeout_ms: 5000 });
    await page.reply('started', 'p2');
    assert.equal((await page.reply('result', 'p2')).value, 8);
    // Code that does not compile never starts.
    assert.equal((await page.eval('p3', '(')).error.name, 'SyntaxError');
    assert.equal(page.inbox.some((m) => m.type === 'started' && m.job === 'p3'), false);
  });

  it('abandons an awaiting job on interrupt', async () => {
    page.send({ type: 'eval', job: 'e13', code: 'await new Promise(() => {})', timeout_ms: 60000 });
    page.send({ type: 'interrupt', job: 'e13' });
    const r = await page.reply('result', 'e13');
    assert.equal(r.ok, false);
    assert.equal(r.error.name, 'Interrupted');
    const answer = await page.reply('interrupted', 'e13');
    assert.equal(answer.status, 'interrupted');
    assert.match(answer.message, /abandoned/);
  });

  it('answers idle to an interrupt when nothing runs', async () => {
    page.send({ type: 'interrupt', job: 'nothing' });
    assert.equal((await page.reply('interrupted', 'nothing')).status, 'idle');
  });

  it('asks for input with prompt', async () => {
    page.send({ type: 'eval', job: 'e14', code: 'const answer = await prompt("name?");\nanswer.toUpperCase()', timeout_ms: 60000 });
    const need = await page.reply('need-input', 'e14');
    assert.equal(need.prompt, 'name?');
    page.send({ type: 'stdin', job: 'e14', text: 'bob' });
    const r = await page.reply('result', 'e14');
    assert.deepEqual([r.ok, r.value], [true, 'BOB']);

    page.send({ type: 'eval', job: 'e15', code: 'await editgate.prompt("again?")', timeout_ms: 60000 });
    await page.reply('need-input', 'e15');
    page.send({ type: 'stdin', job: 'e15', text: 'yes' });
    assert.equal((await page.reply('result', 'e15')).value, 'yes');

    // The end of input: the prompt resolves to null.
    page.send({ type: 'eval', job: 'e15b', code: 'await prompt("more?")', timeout_ms: 60000 });
    await page.reply('need-input', 'e15b');
    page.send({ type: 'stdin', job: 'e15b', eof: true });
    assert.equal((await page.reply('result', 'e15b')).value, null);
  });

  it('completes property names', async () => {
    page.send({ type: 'complete', job: 'c1', code: 'process.ver' });
    const c = await page.reply('completions', 'c1');
    assert.ok(c.items.includes('version'));
    assert.ok(c.items.includes('versions'));
    assert.ok(c.items.every((n) => n.startsWith('ver')));

    await page.eval('e16', 'const local = { shape: 1, size: 2 }');
    page.send({ type: 'complete', job: 'c2', code: 'x = local.s' });
    assert.deepEqual((await page.reply('completions', 'c2')).items, ['shape', 'size']);

    page.send({ type: 'complete', job: 'c3', code: 'setTim' });
    assert.deepEqual((await page.reply('completions', 'c3')).items, ['setTimeout']);
  });

  it('tells about a symbol without running it', async () => {
    await page.eval('e16b', 'globalThis.calls = 0; Object.defineProperty(globalThis, "counter", { get() { return ++calls; } });\n' +
      'class Shape { constructor(w, h) { this.w = w; } }\nasync function area(w, h = 1) {\n  return w * h;\n}');
    page.send({ type: 'lookup', job: 'i1', what: 'info', symbol: 'area' });
    const area = (await page.reply('looked-up', 'i1')).info;
    assert.deepEqual([area.found, area.kind, area.signature], [true, 'function', 'async area(w, h = 1)']);
    page.send({ type: 'lookup', job: 'i2', what: 'info', symbol: 'Shape' });
    const shape = (await page.reply('looked-up', 'i2')).info;
    assert.deepEqual([shape.kind, shape.constructor], ['class', 'new Shape(w, h)']);
    page.send({ type: 'lookup', job: 'i3', what: 'info', symbol: 'counter' });
    assert.equal((await page.reply('looked-up', 'i3')).info.kind, 'accessor');
    page.send({ type: 'lookup', job: 'i4', what: 'docs', symbol: 'area' });
    const docs = (await page.reply('looked-up', 'i4')).info;
    assert.deepEqual([docs.source_head, docs.native], ['async function area(w, h = 1) {', false]);
    page.send({ type: 'lookup', job: 'i5', what: 'info', symbol: 'process.exit()' });
    assert.equal((await page.reply('looked-up', 'i5')).info.found, false);  // never run
    page.send({ type: 'lookup', job: 'i6', what: 'info', symbol: 'process.version' });
    assert.equal((await page.reply('looked-up', 'i6')).info.kind, 'string');
    assert.equal((await page.eval('e16c', 'calls')).value, 0);  // the page's getter did not run
  });

  it('reports background errors without dying', async () => {
    assert.equal((await page.eval('e17', 'Promise.reject(new Error("boom")); 1')).value, 1);
    const rejection = await page.event((m) => m.source === 'unhandledrejection', 'the unhandledrejection event');
    assert.equal(rejection.lang, 'Error');
    assert.match(rejection.text, /^Error: boom/);

    await page.eval('e18', 'setTimeout(() => { throw new TypeError("late") }, 0); 2');
    const uncaught = await page.event((m) => m.source === 'uncaughtException', 'the uncaughtException event');
    assert.equal(uncaught.lang, 'Error');
    assert.match(uncaught.text, /^TypeError: late/);

    await page.eval('e18b', 'process.emitWarning("careful", "DeprecationWarning")');
    const warning = await page.event((m) => m.source === 'console.warn', 'the warning event');
    assert.equal(warning.text, 'DeprecationWarning: careful');

    assert.equal((await page.eval('e19', '"survived"')).value, 'survived');
  });

  it('writes nothing to stdout and exits when fd 3 ends', async () => {
    assert.equal(page.stdout, '');
    page.channel.end();
    let timer;
    const exit = await Promise.race([page.exited, new Promise((r) => { timer = setTimeout(() => r('hung'), WAIT_MS); })]);
    clearTimeout(timer);
    assert.deepEqual(exit, { code: 0, signal: null });
    assert.equal(page.stdout, '');
    assert.equal(page.stderr, '');
  });
});
