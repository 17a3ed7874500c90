// The page protocol of repl/README.md as both pages speak it: jobs (eval, result, interrupt,
// prompts and stdin), console events, completion, lookup and bindings. Loaded after serialize.js
// and lookup.js in both pages. What differs between a browser tab and the Node page is its host's
// (adapter.js, node_page.js): the transport, how code runs and where its globals live.

var editgateProtocol;
// What the file's parts share (a job's run, what a page writes, the protocol's messages); no prototype,
// so nothing a page puts on Object.prototype is read or run through it.
var editgateProtocolParts = Object.create(null);

// ---- jobs: an eval's run, its result, and an interrupt for it ----
(function (parts) {
  'use strict';

  var ABANDONED = 'abandoned the await; async work the code started may still run';

  function thenOf(v) {
    if (v === null || (typeof v !== 'object' && typeof v !== 'function')) return null;
    var then = v.then;
    return typeof then === 'function' ? then : null;
  }

  // `s`: the state a page's protocol keeps (editgateProtocol below); `output`: parts.output's.
  parts.jobs = function (host, s, output) {
    var errorOf = output.errorOf;

    // A run stopped by SIGINT or its timeout skips every finally block, the console's among them.
    function evaluate(request) {
      try {
        return host.evaluate(typeof request.code === 'string' ? request.code : '', request);
      } finally {
        s.capturing = false;
      }
    }

    function drop(entry) {
      s.jobs.delete(entry.job);
      if (s.current === entry) s.current = null;
      s.prompts = s.prompts.filter(function (p) { return p.job !== entry.job; });
    }

    function run(request) {
      var job = request.job;
      var started = performance.now();
      var entry = { job: job, request: request, abandon: null };
      s.jobs.set(job, entry);
      s.current = entry;

      function finish(fields) {
        if (s.jobs.get(job) !== entry) return;  // already abandoned
        drop(entry);
        host.send(Object.assign({ type: 'result', job: job }, fields, { duration_ms: performance.now() - started }), request);
      }
      function succeed(v) { finish({ ok: true, value: editgateSerialize(v) }); }
      function fail(e) { finish({ ok: false, error: (host.stopped && host.stopped(e, request)) || errorOf(e) }); }

      var value;
      var then;
      try {
        value = evaluate(request);
        then = thenOf(value);
      } catch (e) {
        fail(e);
        return;
      }
      if (!then) {
        succeed(value);
        return;
      }
      // Only the synchronous part had a timeout; an await that never settles is the gateway's to end.
      entry.abandon = function () {
        finish({ ok: false, error: { name: 'Interrupted', message: ABANDONED, stack: '' } });
      };
      try {
        then.call(value, succeed, fail);
      } catch (e) {
        fail(e);
      }
    }

    // A message cannot stop synchronous code (it is not even read until that code ends), so a job
    // that awaits is interrupted by no longer waiting for it.
    function interrupt(request) {
      var job = request.job;
      var entry = s.jobs.get(job);
      var message = null;
      if (entry && entry.abandon) {
        entry.abandon();
        message = ABANDONED;
      } else if (host.interrupted) {
        message = host.interrupted(job);
      }
      host.send({ type: 'interrupted', job: job, status: message === null ? 'idle' : 'interrupted',
        message: message === null ? 'job ' + job + ' is not running' : message }, request);
    }

    return { run: run, interrupt: interrupt, drop: drop };
  };
}(editgateProtocolParts));

// ---- what a page writes: console calls as events of the job that runs, errors as records ----
(function (parts) {
  'use strict';

  parts.output = function (host, s) {
    // The stack up to the evaluated code: the page's frames below it, and the runner's, are noise.
    function trimStack(stack) {
      var lines = stack.split('\n');
      var end = lines.findIndex(host.ownFrame);
      if (end < 0) return stack;
      while (end > 0 && host.runnerFrame.test(lines[end - 1])) end--;
      return lines.slice(0, end).join('\n');
    }

    function errorOf(e) {
      var error = editgateErrorOf(e);
      error.stack = trimStack(error.stack);
      return error;
    }

    // `end`: the line end the write had, which `text` goes without ('\n' or ''): a console call ends
    // its line, a stream write may not.
    function emit(source, lang, text, end) {
      host.send({ type: 'event', job: s.current && s.current.job, source: source, lang: lang, text: text,
        end: end === undefined ? '\n' : end, ts: Date.now() }, s.current ? s.current.request : undefined);
    }

    // passThrough: the console's own method is called too (a tab's devtools still show the call).
    function captureConsole(passThrough) {
      ['log', 'info', 'warn', 'error', 'debug'].forEach(function (level) {
        var own = console[level];
        console[level] = function () {
          if (!s.capturing) {
            s.capturing = true;
            try {
              var f = editgateFormatConsole(arguments);
              emit('console.' + level, f.lang, f.text);
            } catch (e) {
              /* not captured; the code that called goes on */
            } finally {
              s.capturing = false;
            }
          }
          return passThrough ? own.apply(console, arguments) : undefined;
        };
      });
    }

    return { emit: emit, captureConsole: captureConsole, trimStack: trimStack, errorOf: errorOf };
  };
}(editgateProtocolParts));

// ---- the protocol a page hosts ----
(function (parts) {
  'use strict';

  var BINDINGS_MAX = 200;  // names a bindings answer lists; the rest are counted

  // The host:
  //   send(msg, request)       the transport; request: the gateway's message msg answers, or the
  //                            eval of the job msg belongs to (none for a background event)
  //   evaluate(code, request)  runs the code; returns its completion value or throws
  //   stopped(e, request)      optional: the error record of a run the page stopped itself, else null
  //   interrupted(job)         optional: the message for a job whose run the page stopped itself
  //                            before the gateway's interrupt for it came, else null
  //   ownFrame(line)           whether a stack line is the page's own code, under the evaluated code
  //   runnerFrame              a RegExp of the stack lines between them (the native eval, node:vm)
  //   errorText(e)             an error as an event's text
  //   globals(request)         {lookup(name), root}: the global scope the request is for
  //   bindings(request)        {names, read(name)}: the globals evaluations made there
  //   clear(request)           removes them; returns the names it could not remove
  //   promptName               how code calls prompt, for its error
  editgateProtocol = function (host) {
    var s = {
      jobs: new Map(),  // job id -> {job, request, abandon} while it runs; abandon is set while it awaits
      current: null,  // the entry of the job whose code runs now, for console attribution
      prompts: [],  // {job, resolve} waiting for stdin
      capturing: false,  // a console call made while formatting one is not captured again
    };
    var output = parts.output(host, s);
    var jobs = parts.jobs(host, s, output);

    function prompt(text) {
      var entry = s.current;
      if (entry === null) return Promise.reject(new Error(host.promptName + ': no job is running, so nobody can answer'));
      return new Promise(function (resolve) {
        s.prompts.push({ job: entry.job, resolve: resolve });
        host.send({ type: 'need-input', job: entry.job, prompt: text === undefined ? '' : String(text) }, entry.request);
      });
    }

    function answer(request) {
      var i = s.prompts.findIndex(function (p) { return p.job === request.job; });
      // eof: the end of input
      if (i >= 0) s.prompts.splice(i, 1)[0].resolve(request.eof === true ? null : typeof request.text === 'string' ? request.text : '');
    }

    function complete(request) {
      var code = typeof request.code === 'string' ? request.code : '';
      host.send({ type: 'completions', job: request.job, items: editgateCompletions(code, host.globals(request).lookup),
        start: editgateCompletionStart(code) }, request);
    }

    function lookup(request) {
      var scope = host.globals(request);
      host.send({ type: 'looked-up', job: request.job, info: editgateLookup(request.what, request.symbol, scope.lookup, scope.root) },
        request);
    }

    function listBindings(request) {
      var found = host.bindings(request);
      var bindings = {};
      found.names.slice(0, BINDINGS_MAX).forEach(function (n) {
        try { bindings[n] = editgateSerialize(found.read(n)); } catch (e) { bindings[n] = { $error: host.errorText(e) }; }
      });
      host.send({ type: 'bindings', job: request.job, bindings: bindings, more: Math.max(0, found.names.length - BINDINGS_MAX) },
        request);
    }

    return {
      // A message of the gateway's that both pages answer alike; other types are the host's.
      handle: function (msg) {
        switch (msg.type) {
          case 'eval': jobs.run(msg); break;
          case 'interrupt': jobs.interrupt(msg); break;
          case 'stdin': answer(msg); break;
          case 'complete': complete(msg); break;
          case 'lookup': lookup(msg); break;
          case 'bindings': listBindings(msg); break;
          case 'clear': host.send({ type: 'cleared', job: msg.job, kept: host.clear(msg) }, msg); break;
        }
      },
      // Drops the jobs whose eval `which` selects (every job without it) and their prompts: what
      // they finish later is not sent.
      forget: function (which) {
        s.jobs.forEach(function (entry) { if (!which || which(entry.request)) jobs.drop(entry); });
      },
      prompt: prompt,
      // The eval of the job that runs now, from its start until its promise settles; null between jobs.
      running: function () { return s.current ? s.current.request : null; },
      emit: output.emit,
      captureConsole: output.captureConsole,
      trimStack: output.trimStack
    };
  };
}(editgateProtocolParts));
