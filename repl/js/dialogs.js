// A tab's dialogs: alert, confirm and prompt. A native one blocks the page's only thread until a
// person (or a browser driver) closes it, and nothing the gateway sends is read meanwhile. So while
// a job runs (from its eval until its promise settles) a dialog is never shown: it is answered at
// once as the eval asked (`dialog`: accept or dismiss, by default dismiss; `prompt_text`) and
// reported. Outside jobs the page's own dialog is shown as always, reported before it blocks (a
// socket's send made before the thread blocks still leaves) and again when it is closed. Loaded in
// the tab only, before adapter.js, which calls it once with the window, the running job's eval
// (null between jobs) and its transport.

var DIALOG_TEXT_MAX = 4096;  // the most characters of a message or a value the report carries

function editgateDialogs(win, running, send) {
  'use strict';

  function text(v) {
    try {
      return v === undefined ? '' : String(v).slice(0, DIALOG_TEXT_MAX);
    } catch (e) {
      return '';  // a Symbol, or an object whose toString throws
    }
  }

  // kind's report: what it said, how it was answered and what the call returned.
  function report(kind, args, accepted, value) {
    var r = { kind: kind, message: text(args[0]), answer: accepted ? 'accept' : 'dismiss' };
    if (kind === 'prompt') r.default = text(args[1]);
    if (kind !== 'alert') r.value = typeof value === 'string' ? text(value) : value;
    return r;
  }

  // An agent's dialog: what the eval asked for, at once.
  function answer(kind, args, request) {
    var accepted = request.dialog === 'accept';
    var value;
    if (kind === 'confirm') value = accepted;
    if (kind === 'prompt') {
      value = !accepted ? null : typeof request.prompt_text === 'string' ? request.prompt_text : args.length > 1 ? text(args[1]) : '';
    }
    send(Object.assign({ type: 'dialog', job: request.job, ts: Date.now() }, report(kind, args, accepted, value)), request);
    return value;
  }

  // The page's own dialog: shown, and the gateway told while it holds the page.
  function show(own, kind, args) {
    var r = report(kind, args, true, undefined);
    delete r.answer;
    delete r.value;
    send(Object.assign({ type: 'dialog', job: null, open: true, ts: Date.now() }, r));
    var value;
    var closed = false;
    try {
      value = own.apply(win, args);
      closed = true;
      return value;
    } finally {
      // An alert has one button: its answer reads accept. A prompt that returns a string was accepted.
      var accepted = !closed ? false : kind === 'alert' || (kind === 'confirm' ? value === true : value !== null);
      send(Object.assign({ type: 'dialog', job: null, open: false, ts: Date.now() }, report(kind, args, accepted, value)));
    }
  }

  ['alert', 'confirm', 'prompt'].forEach(function (kind) {
    var own = win[kind];
    if (typeof own !== 'function') return;
    win[kind] = function () {
      var request = running();
      return request ? answer(kind, arguments, request) : show(own, kind, arguments);
    };
  });
}
