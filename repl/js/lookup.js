// What a page can tell about a global symbol without running anything of it (the info and docs
// requests of repl/README.md). Loaded after serialize.js in both pages; uses editgateSerialize for
// a function's signature and a primitive's text.

var editgateLookup;
// What the file's two parts share (finding a symbol, describing it); no prototype, so nothing a
// page puts on Object.prototype is read or run through it.
var editgateLookupParts = Object.create(null);

// ---- finding a symbol: along its path, calling no getter but the platform's ----
(function (parts) {
  'use strict';

  var getPrototypeOf = Object.getPrototypeOf;
  var getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
  var functionToString = Function.prototype.toString;
  var call = Function.prototype.call;

  // The property `key` as its descriptor, along the prototype chain: nothing is called (a getter
  // is reported, not run; a Proxy's own traps are the one exception: they run as for any read).
  function descriptor(o, key) {
    for (var hops = 0; o !== null && o !== undefined && hops < 100; o = getPrototypeOf(o), hops++) {
      var d = getOwnPropertyDescriptor(o, key);
      if (d) return d;
    }
    return undefined;
  }

  // The global object's getters before any code was sent are the platform's (Node's `process` is
  // one, written in JavaScript).
  var platformGetters = new Set();
  try {
    Object.getOwnPropertyNames(globalThis).forEach(function (key) {
      var d = getOwnPropertyDescriptor(globalThis, key);
      if (d && d.get) platformGetters.add(d.get);
    });
  } catch (e) { /* none taken */ }

  // A getter of the platform's own (the DOM's are accessors: `document`, `body`): one of those,
  // or native source and a name `get x` (a bound function, whose source is native too, is
  // `bound f`).
  function builtInGetter(get) {
    if (platformGetters.has(get)) return true;
    var name = getOwnPropertyDescriptor(get, 'name');
    return /\[native code\]\s*\}\s*$/.test(source(get)) && !!name && typeof name.value === 'string' &&
      name.value.indexOf('get ') === 0;
  }

  // {value} or {accessor} for the dotted path, or null when it names nothing. The first name is a
  // property of the global object, or else a global binding (a top-level let), read by `lookup`
  // with the name alone, which PATH has made an identifier. A built-in getter is read; one the
  // page's code defined is reported and never run.
  function resolve(parts, lookup, root) {
    var value = root;
    for (var i = 0; i < parts.length; i++) {
      if (value === null || value === undefined) return null;
      var d = descriptor(Object(value), parts[i]);
      if (!d && i === 0) {
        try { value = lookup(parts[0]); } catch (e) { return null; }
        continue;
      }
      if (!d) return null;
      if ('value' in d) {
        value = d.value;
      } else if (d.get && builtInGetter(d.get)) {
        value = call.call(d.get, value);
      } else {
        return i === parts.length - 1 ? { accessor: d } : null;
      }
    }
    return { value: value };
  }

  function source(f) {
    try { return functionToString.call(f); } catch (e) { return ''; }
  }

  parts.descriptor = descriptor;
  parts.resolve = resolve;
  parts.source = source;
}(editgateLookupParts));

// ---- describing what was found ----
(function (parts) {
  'use strict';

  var PATH = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$/;
  var HEAD_LINES = 5;  // a source head: up to the line that opens the body, at most 5 lines
  var HEAD_CHARS = 500;
  var TEXT_CHARS = 200;  // a description
  var getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor, objectKeys = Object.keys, isArray = Array.isArray;
  var descriptor = parts.descriptor, resolve = parts.resolve, source = parts.source;

  function cut(text, n) { return text.length > n ? text.slice(0, n - 1) + '\u2026' : text; }

  function own(o, key) {
    var d = getOwnPropertyDescriptor(o, key);
    return d && 'value' in d ? d.value : undefined;
  }

  function kindOf(v, text) {
    if (v === null) return 'null';
    if (typeof v === 'function') return /^class\b/.test(text) ? 'class' : 'function';
    if (typeof v === 'object') return isArray(v) ? 'array' : 'object';
    return typeof v;
  }

  // The source's first lines: through the one that opens the body.
  function head(text) {
    var lines = text.split('\n');
    var end = 0;
    while (end < lines.length - 1 && end < HEAD_LINES - 1 && !/[{]|=>/.test(lines[end])) end++;
    return cut(lines.slice(0, end + 1).join('\n'), HEAD_CHARS);
  }

  function constructorOf(v, text) {
    var name = own(v, 'name');
    name = typeof name === 'string' && name ? name : '(anonymous)';
    var params = /\bconstructor\s*\(([^)]*)\)/.exec(text);
    if (params) return cut('new ' + name + '(' + params[1].replace(/\s+/g, ' ').trim() + ')', TEXT_CHARS);
    return 'new ' + name + (/^class\b[^{]*\bextends\b/.test(text) ? '(\u2026)' : '()');
  }

  function describe(v, kind, text) {
    if (kind === 'class') return cut(text.slice(0, text.indexOf('{') >= 0 ? text.indexOf('{') : text.length).replace(/\s+/g, ' ').trim(), TEXT_CHARS);
    if (kind === 'function') {
      var n = own(v, 'length');
      var sig = editgateSerialize(v).$function;
      return cut((sig.indexOf('async ') === 0 ? 'async function ' + sig.slice(6) : 'function ' + sig) + (typeof n === 'number' ? ', ' + n + ' declared parameters' : '') +
        (/\[native code\]\s*\}\s*$/.test(text) ? ', built in' : ''), TEXT_CHARS);
    }
    if (kind === 'array') return 'array of ' + own(v, 'length') + ' items';
    if (kind === 'object') {
      var ctor = descriptor(v, 'constructor');
      var cls = ctor && typeof ctor.value === 'function' ? own(ctor.value, 'name') : '';
      var keys;
      try { keys = objectKeys(v).length; } catch (e) { keys = 0; }
      return (typeof cls === 'string' && cls ? cls : 'Object') + ' with ' + keys + ' own enumerable keys';
    }
    return cut(kind + ' ' + JSON.stringify(editgateSerialize(v)), TEXT_CHARS);
  }

  // what: 'info' (found, symbol, kind, signature or constructor, description) or 'docs' (found,
  // symbol, kind, source_head and source_length for a function or class, native, description).
  // `root`: the global object the path starts from (a Node realm's own; this one's by default).
  editgateLookup = function (what, symbol, lookup, root) {
    var info = { found: false, symbol: symbol };
    try {
      if (typeof symbol !== 'string' || symbol.length > 256 || !PATH.test(symbol)) return info;
      var found = resolve(symbol.split('.'), lookup, root === undefined ? globalThis : root);
      if (!found) return info;
      info.found = true;
      if (found.accessor) {
        info.kind = 'accessor';
        info.description = (found.accessor.get ? 'a getter' : 'a setter only') + (found.accessor.set && found.accessor.get ? ' and setter' : '') + ', not called';
        return info;
      }
      var v = found.value;
      var text = typeof v === 'function' ? source(v) : '';
      info.kind = kindOf(v, text);
      info.description = describe(v, info.kind, text);
      if (info.kind === 'function') info.signature = editgateSerialize(v).$function;
      if (info.kind === 'class') info.constructor = constructorOf(v, text);
      if (what === 'docs' && typeof v === 'function') {
        info.source_head = head(text);
        info.source_length = text.length;
        info.native = /\[native code\]\s*\}\s*$/.test(text);
      }
    } catch (e) {
      /* what was found so far */
    }
    return info;
  };
}(editgateLookupParts));
