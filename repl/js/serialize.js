// Page-side helpers shared by the browser adapter (adapter.js) and the Node page (node_page.js):
// the tagged-value format of repl/README.md, console formatting, error records, how a piece of
// code is run (expression, statements, top-level await) and property-name completion.
// A plain script: the gateway concatenates it in front of each page's program.

var editgateSerialize, editgateFormatConsole, editgateErrorOf, editgatePlan, editgateCompletions, editgateCompletionStart;

// What the file's parts share; no prototype, so nothing a page puts on Object.prototype is
// read or run through it.
var editgateSerializeParts = Object.create(null);

// --- the bounds, the intrinsics (taken before page code runs) and the output's small pieces ------
(function (P) {
  'use strict';

  var MAX_DEPTH = 6;
  var MAX_ITEMS = 100;
  var MAX_STRING = 10000;
  var MAX_PARAMS = 60;
  var IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
  var ELLIPSIS = '\u2026';  // escaped: the page may decode this script in its own charset

  // Intrinsics are taken now, so page code that patches prototypes later cannot reach into the
  // serializer. The getters double as brand checks: they throw unless `this` is the real thing,
  // which also works across realms and never runs a Proxy trap.
  var getPrototypeOf = Object.getPrototypeOf;
  var getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
  var getOwnPropertyNames = Object.getOwnPropertyNames;
  var getOwnPropertySymbols = Object.getOwnPropertySymbols;
  var objectKeys = Object.keys;
  var defineProperty = Object.defineProperty;
  var isArray = Array.isArray;
  var hasOwn = Object.prototype.hasOwnProperty;
  var isEnumerable = Object.prototype.propertyIsEnumerable;
  var objectToString = Object.prototype.toString;
  var functionToString = Function.prototype.toString;
  var symbolToString = Symbol.prototype.toString;
  var dateGetTime = Date.prototype.getTime;
  var dateToISOString = Date.prototype.toISOString;
  var regexpToString = RegExp.prototype.toString;
  var TypedArrayPrototype = getPrototypeOf(Uint8Array.prototype);
  function getter(object, key) { return getOwnPropertyDescriptor(object, key).get; }
  var regexpSource = getter(RegExp.prototype, 'source');
  var mapSize = getter(Map.prototype, 'size');
  var setSize = getter(Set.prototype, 'size');
  var arrayBufferLength = getter(ArrayBuffer.prototype, 'byteLength');
  var typedArrayName = getter(TypedArrayPrototype, Symbol.toStringTag);  // undefined for non-typed-arrays
  var typedArrayLength = getter(TypedArrayPrototype, 'length');
  var mapEntries = Map.prototype.entries;
  var mapIteratorNext = getPrototypeOf(new Map().entries()).next;
  var setValues = Set.prototype.values;
  var setIteratorNext = getPrototypeOf(new Set().values()).next;
  var weakMapHas = WeakMap.prototype.has;
  var weakSetHas = WeakSet.prototype.has;

  function branded(check, v) {
    try { check.call(v); return true; } catch (e) { return false; }
  }

  function put(object, key, value) {  // plain assignment would turn a "__proto__" key into a prototype
    defineProperty(object, key, { value: value, enumerable: true, writable: true, configurable: true });
  }

  function omitted(n) { return { $truncated: { omitted: n } }; }

  // JSONPath of a key inside the written JSON.
  function member(path, key) {
    return IDENTIFIER.test(key) ? path + '.' + key : path + '[' + JSON.stringify(key) + ']';
  }

  // At most `n` UTF-16 units, without splitting a surrogate pair.
  function clip(s, n) {
    if (s.length <= n) return s;
    var code = s.charCodeAt(n - 1);
    return s.slice(0, code >= 0xd800 && code <= 0xdbff ? n - 1 : n);
  }

  P.ELLIPSIS = ELLIPSIS; P.IDENTIFIER = IDENTIFIER; P.MAX_DEPTH = MAX_DEPTH; P.MAX_ITEMS = MAX_ITEMS;
  P.MAX_PARAMS = MAX_PARAMS; P.MAX_STRING = MAX_STRING; P.arrayBufferLength = arrayBufferLength;
  P.branded = branded; P.clip = clip; P.dateGetTime = dateGetTime; P.dateToISOString = dateToISOString;
  P.functionToString = functionToString; P.getOwnPropertyDescriptor = getOwnPropertyDescriptor;
  P.getOwnPropertyNames = getOwnPropertyNames; P.getOwnPropertySymbols = getOwnPropertySymbols;
  P.getPrototypeOf = getPrototypeOf; P.hasOwn = hasOwn; P.isArray = isArray; P.isEnumerable = isEnumerable;
  P.mapEntries = mapEntries; P.mapIteratorNext = mapIteratorNext; P.mapSize = mapSize; P.member = member;
  P.objectKeys = objectKeys; P.objectToString = objectToString; P.omitted = omitted; P.put = put;
  P.regexpSource = regexpSource; P.regexpToString = regexpToString; P.setIteratorNext = setIteratorNext;
  P.setSize = setSize; P.setValues = setValues; P.symbolToString = symbolToString;
  P.typedArrayLength = typedArrayLength; P.typedArrayName = typedArrayName; P.weakMapHas = weakMapHas;
  P.weakSetHas = weakSetHas;
}(editgateSerializeParts));

// --- primitives and names, read without running anything of the value ----------------------------
(function (P) {
  'use strict';

  var MAX_STRING = P.MAX_STRING, clip = P.clip, getOwnPropertyDescriptor = P.getOwnPropertyDescriptor,
    getPrototypeOf = P.getPrototypeOf, hasOwn = P.hasOwn, objectToString = P.objectToString;

  function number(v) {
    if (v !== v) return { $number: 'NaN' };
    if (v === Infinity) return { $number: 'Infinity' };
    if (v === -Infinity) return { $number: '-Infinity' };
    if (v === 0 && 1 / v < 0) return { $number: '-0' };
    return v;
  }

  function string(v) {
    if (v.length <= MAX_STRING) return v;
    return { $truncated: { type: 'string', length: v.length, head: clip(v, MAX_STRING) } };
  }

  // Why a value could not be written, without serializing anything (the value may be what threw).
  function reason(e) {
    if (typeof e === 'string') return e;
    try {
      if (e instanceof Error) return text(e.name) + ': ' + text(e.message);
    } catch (ignored) { /* a Proxy that throws again */ }
    return 'threw a value of type ' + typeof e;
  }

  // A primitive as String() renders it; an object as its tag, without calling its toString.
  function text(v) {
    if (typeof v === 'string') return v;
    if (v === null || (typeof v !== 'object' && typeof v !== 'function')) return String(v);
    try { return objectToString.call(v); } catch (e) { return '[object]'; }
  }

  // The data property `key` of `object`, or undefined: getters are never called.
  function dataValue(object, key) {
    var d = getOwnPropertyDescriptor(object, key);
    return d && hasOwn.call(d, 'value') ? d.value : undefined;
  }

  function functionName(fn) {
    var name = dataValue(fn, 'name');
    return typeof name === 'string' ? name : '';
  }

  // The name of the nearest constructor on the prototype chain, or '' for plain objects.
  function className(v) {
    for (var proto = getPrototypeOf(v), hops = 0; proto !== null && hops < 100; proto = getPrototypeOf(proto), hops++) {
      var ctor = dataValue(proto, 'constructor');
      if (typeof ctor === 'function') {
        var name = functionName(ctor);
        return name === 'Object' ? '' : name;
      }
    }
    return '';
  }

  P.className = className; P.dataValue = dataValue; P.functionName = functionName; P.number = number;
  P.reason = reason; P.string = string; P.text = text;
}(editgateSerializeParts));

// --- functions: `name(params)` from the source text -------------------------------------------
(function (P) {
  'use strict';

  var ELLIPSIS = P.ELLIPSIS, MAX_PARAMS = P.MAX_PARAMS, clip = P.clip, functionToString = P.functionToString,
    objectToString = P.objectToString, dataValue = P.dataValue, functionName = P.functionName, text = P.text;

  // Index past a comment starting at i, or i itself.
  function skipComment(src, i) {
    if (src[i] !== '/') return i;
    if (src[i + 1] === '/') { var nl = src.indexOf('\n', i); return nl < 0 ? src.length : nl; }
    if (src[i + 1] === '*') { var end = src.indexOf('*/', i + 2); return end < 0 ? src.length : end + 2; }
    return i;
  }

  // Index past the bracket that closes the one at `open`, or -1; strings, templates and comments
  // are skipped (regular expression literals are not: a default value rarely holds one).
  function closeOf(src, open) {
    var stack = [];
    for (var i = open; i < src.length; i++) {
      var c = src[i];
      if (stack[stack.length - 1] === '`') {
        if (c === '\\') i++;
        else if (c === '`') stack.pop();
        else if (c === '$' && src[i + 1] === '{') { stack.push('}'); i++; }
        continue;
      }
      var after = skipComment(src, i);
      if (after !== i) { i = after - 1; continue; }
      if (c === '"' || c === "'") {
        for (i++; i < src.length && src[i] !== c; i++) if (src[i] === '\\') i++;
      } else if (c === '`') stack.push('`');
      else if (c === '(') stack.push(')');
      else if (c === '[') stack.push(']');
      else if (c === '{') stack.push('}');
      else if (c === ')' || c === ']' || c === '}') {
        if (stack.pop() !== c) return -1;
        if (stack.length === 0) return i + 1;
      }
    }
    return -1;
  }

  // The parameter list of a function's source text, and whether it is an arrow function.
  function paramsOf(src) {
    for (var i = 0; i < src.length; i++) {
      var after = skipComment(src, i);
      if (after !== i) { i = after - 1; continue; }
      var c = src[i];
      if (c === '[') {  // a computed method name
        var close = closeOf(src, i);
        if (close < 0) break;
        i = close - 1;
      } else if (c === '=' && src[i + 1] === '>') {
        return { text: src.slice(0, i).replace(/^async\s+/, ''), arrow: true };
      } else if (c === '(') {
        var end = closeOf(src, i);
        if (end < 0) return { text: ELLIPSIS, arrow: false };
        return { text: src.slice(i + 1, end - 1), arrow: /^\s*=>/.test(src.slice(end, end + 100)) };
      }
    }
    return { text: '', arrow: false };
  }

  function describeFunction(fn) {
    var src = '';
    var kind = '';
    try { src = functionToString.call(fn); } catch (e) { /* a revoked Proxy */ }
    try { kind = objectToString.call(fn); } catch (e) { /* a Proxy whose trap throws */ }
    var name = functionName(fn);
    if (/^class(?:\s+[\w$]|\s*\{)/.test(src)) return 'class ' + (name || '(anonymous)');
    var isAsync = kind.indexOf('Async') >= 0;
    var star = kind.indexOf('Generator') >= 0 ? '*' : '';
    var params;
    if (/\{\s*\[native code\]\s*\}\s*$/.test(src)) {  // the source does not show the parameters
      params = { text: dataValue(fn, 'length') > 0 ? ELLIPSIS : '', arrow: false };
    } else {
      params = paramsOf(src);
    }
    var list = params.text.replace(/\s+/g, ' ').trim();
    if (list.length > MAX_PARAMS) list = clip(list, MAX_PARAMS - 1) + ELLIPSIS;
    var prefix = isAsync ? 'async ' : '';
    if (name) return prefix + star + name + '(' + list + ')';
    if (params.arrow) return prefix + '(' + list + ') => ' + ELLIPSIS;
    return prefix + 'function' + star + ' (' + list + ')';
  }

  P.describeFunction = describeFunction;
}(editgateSerializeParts));

// --- DOM ----------------------------------------------------------------------------------------
(function (P) {
  'use strict';

  var clip = P.clip;

  function attribute(value) {
    return /^[^\s"'=<>`]+$/.test(value) ? value : JSON.stringify(value);
  }

  function children(n) {
    return n === 0 ? '' : n === 1 ? ' (1 child)' : ' (' + n + ' children)';
  }

  function describeNode(node) {
    switch (node.nodeType) {
      case 1: {  // element
        var s = '<' + String(node.nodeName).toLowerCase();
        var id = node.getAttribute('id');
        var cls = node.getAttribute('class');
        if (id) s += ' id=' + attribute(id);
        if (cls) s += ' class=' + attribute(cls);
        return s + '>' + children(node.childElementCount);
      }
      case 3: return '#text ' + JSON.stringify(clip(node.data, 80));
      case 8: return '#comment ' + JSON.stringify(clip(node.data, 80));
      case 9: return '#document ' + node.URL;
      case 10: return '<!DOCTYPE ' + node.name + '>';
      default: return node.nodeName + children(node.childNodes.length);
    }
  }

  function describeWindow(w) {
    try { return 'window ' + w.location.href; } catch (e) { return 'window (cross-origin)'; }
  }

  P.describeNode = describeNode; P.describeWindow = describeWindow;
}(editgateSerializeParts));

// --- the walk -----------------------------------------------------------------------------------
(function (P) {
  'use strict';

  var arrayBufferLength = P.arrayBufferLength, branded = P.branded, dateGetTime = P.dateGetTime,
    dateToISOString = P.dateToISOString, isArray = P.isArray, mapSize = P.mapSize,
    regexpSource = P.regexpSource, regexpToString = P.regexpToString, setSize = P.setSize,
    symbolToString = P.symbolToString, typedArrayName = P.typedArrayName, weakMapHas = P.weakMapHas,
    weakSetHas = P.weakSetHas, number = P.number, reason = P.reason, string = P.string,
    describeFunction = P.describeFunction, describeNode = P.describeNode, describeWindow = P.describeWindow;

  // `path` is where v is written (for $ref), `depth` how many containers hold it, `seen` maps each
  // container already written to its path.
  function write(v, path, depth, seen) {
    switch (typeof v) {
      case 'undefined': return { $undefined: true };
      case 'boolean': return v;
      case 'number': return number(v);
      case 'bigint': return { $bigint: String(v) };
      case 'string': return string(v);
      case 'symbol': return { $symbol: symbolToString.call(v) };
    }
    if (v === null) return null;
    try {
      return typeof v === 'function' ? { $function: describeFunction(v) } : object(v, path, depth, seen);
    } catch (e) {  // a Proxy trap threw, or a host object refused to be read
      return { $unserializable: reason(e) };
    }
  }

  function object(v, path, depth, seen) {
    if (seen.has(v)) return { $ref: seen.get(v) };
    if (isArray(v)) return P.array(v, path, depth, seen);
    if (branded(dateGetTime, v)) {
      return { $date: dateGetTime.call(v) !== dateGetTime.call(v) ? 'Invalid Date' : dateToISOString.call(v) };
    }
    if (branded(regexpSource, v)) return { $regexp: regexpToString.call(v) };
    if (branded(mapSize, v)) return P.map(v, path, depth, seen);
    if (branded(setSize, v)) return P.set(v, path, depth, seen);
    if (branded(weakMapHas, v)) return { $weakmap: true };
    if (branded(weakSetHas, v)) return { $weakset: true };
    if (branded(arrayBufferLength, v)) return { $arraybuffer: { byteLength: arrayBufferLength.call(v) } };
    var typedName = typedArrayName.call(v);
    if (typedName !== undefined) return P.typedArray(v, typedName);
    if (P.isError(v)) return { $error: editgateErrorOf(v) };
    if (v instanceof Promise) return { $promise: 'pending' };  // its state cannot be read synchronously
    if (typeof Node !== 'undefined' && v instanceof Node) return { $node: describeNode(v) };
    if (typeof Window !== 'undefined' && v instanceof Window) return { $node: describeWindow(v) };
    return P.plainObject(v, path, depth, seen);
  }

  P.write = write;
}(editgateSerializeParts));

(function (P) {
  'use strict';

  var MAX_DEPTH = P.MAX_DEPTH, MAX_ITEMS = P.MAX_ITEMS,
    getOwnPropertyDescriptor = P.getOwnPropertyDescriptor, getOwnPropertySymbols = P.getOwnPropertySymbols,
    hasOwn = P.hasOwn, isEnumerable = P.isEnumerable, mapEntries = P.mapEntries,
    mapIteratorNext = P.mapIteratorNext, mapSize = P.mapSize, member = P.member, objectKeys = P.objectKeys,
    omitted = P.omitted, put = P.put, setIteratorNext = P.setIteratorNext, setSize = P.setSize,
    setValues = P.setValues, symbolToString = P.symbolToString, typedArrayLength = P.typedArrayLength,
    className = P.className, number = P.number, reason = P.reason, write = P.write;

  function cut(type, keys) { return { $truncated: { type: type, keys: keys } }; }

  // An own property as written: accessors are not called, a hole reads as undefined.
  function property(v, key, path, depth, seen) {
    var d = getOwnPropertyDescriptor(v, key);
    if (!d) return { $undefined: true };
    if (!hasOwn.call(d, 'value')) return { $getter: true };
    return write(d.value, path, depth + 1, seen);
  }

  function array(v, path, depth, seen) {
    var length = v.length;
    if (depth > MAX_DEPTH) return cut('Array', length);
    seen.set(v, path);
    var n = Math.min(length, MAX_ITEMS);
    var out = [];
    for (var i = 0; i < n; i++) out.push(property(v, String(i), path + '[' + i + ']', depth, seen));
    if (length > n) out.push(omitted(length - n));
    return out;
  }

  function map(v, path, depth, seen) {
    var size = mapSize.call(v);
    if (depth > MAX_DEPTH) return cut('Map', size);
    seen.set(v, path);
    var out = [];
    var it = mapEntries.call(v);
    for (var i = 0, step; i < MAX_ITEMS && !(step = mapIteratorNext.call(it)).done; i++) {
      var at = path + '.$map[' + i + ']';
      out.push([write(step.value[0], at + '[0]', depth + 1, seen), write(step.value[1], at + '[1]', depth + 1, seen)]);
    }
    if (size > out.length) out.push(omitted(size - out.length));
    return { $map: out };
  }

  function set(v, path, depth, seen) {
    var size = setSize.call(v);
    if (depth > MAX_DEPTH) return cut('Set', size);
    seen.set(v, path);
    var out = [];
    var it = setValues.call(v);
    for (var i = 0, step; i < MAX_ITEMS && !(step = setIteratorNext.call(it)).done; i++) {
      out.push(write(step.value, path + '.$set[' + i + ']', depth + 1, seen));
    }
    if (size > out.length) out.push(omitted(size - out.length));
    return { $set: out };
  }

  function typedArray(v, name) {
    var length = typedArrayLength.call(v);
    var n = Math.min(length, MAX_ITEMS);
    var items = [];
    for (var i = 0; i < n; i++) items.push(typeof v[i] === 'bigint' ? { $bigint: String(v[i]) } : number(v[i]));
    if (length > n) items.push(omitted(length - n));
    return { $typedarray: { type: className(v) || name, length: length, items: items } };
  }

  function plainObject(v, path, depth, seen) {
    var cls = className(v);
    var keys = objectKeys(v).concat(getOwnPropertySymbols(v).filter(function (s) { return isEnumerable.call(v, s); }));
    if (depth > MAX_DEPTH) return cut(cls || 'Object', keys.length);
    seen.set(v, path);
    var out = {};
    if (cls) out.$class = cls;
    var n = Math.min(keys.length, MAX_ITEMS);
    for (var i = 0; i < n; i++) {
      var key = keys[i];
      var name = typeof key === 'symbol' ? '[' + symbolToString.call(key) + ']' : key;
      if (name.charAt(0) === '$') name = '$' + name;
      put(out, name, property(v, key, member(path, name), depth, seen));
    }
    if (keys.length > n) out.$truncated = { omitted: keys.length - n };
    return out;
  }

  editgateSerialize = function (value) {
    try {
      return write(value, '$', 0, new Map());
    } catch (e) {  // nothing above should throw; a stack overflow from a deep Proxy chain might
      return { $unserializable: reason(e) };
    }
  };

  P.array = array; P.map = map; P.plainObject = plainObject; P.set = set; P.typedArray = typedArray;
}(editgateSerializeParts));

// --- errors and console -------------------------------------------------------------------------
(function (P) {
  'use strict';

  var objectToString = P.objectToString, text = P.text;

  function isError(v) {
    try {
      return v instanceof Error || objectToString.call(v) === '[object Error]';
    } catch (e) {
      return false;
    }
  }

  function field(e, key) {
    try {
      var v = e[key];
      return v === undefined || v === null ? '' : text(v);
    } catch (x) {
      return '';
    }
  }

  function compact(v) { return JSON.stringify(editgateSerialize(v)); }

  // A value inside a line of text: primitives as String() writes them, errors as their stack,
  // objects as compact tagged JSON.
  function plain(v) {
    if (typeof v === 'number' && v === 0 && 1 / v < 0) return '-0';
    if (typeof v === 'bigint') return v + 'n';
    if (v === null || (typeof v !== 'object' && typeof v !== 'function')) return String(v);
    return isError(v) ? errorText(v) : compact(v);
  }

  // The stack, headed by "Name: message" when the engine does not put it there (Firefox, Safari).
  function errorText(e) {
    var info = editgateErrorOf(e);
    var head = info.message ? info.name + ': ' + info.message : info.name;
    if (!info.stack) return head;
    return info.stack.indexOf(head) === 0 ? info.stack : head + '\n' + info.stack;
  }

  editgateErrorOf = function (e) {
    if (isError(e)) return { name: field(e, 'name') || 'Error', message: field(e, 'message'), stack: field(e, 'stack') };
    return { name: 'Uncaught', message: plain(e), stack: '' };
  };

  // util.format's specifiers, simply: no argument is converted by calling its methods.
  function substitute(format, args) {
    var used = 0;
    var out = format.replace(/%([sdifoOjc%])/g, function (match, c) {
      if (c === '%') return '%';
      if (used >= args.length) return match;
      var a = args[used++];
      switch (c) {
        case 's': return plain(a);
        case 'd': return typeof a === 'bigint' ? a + 'n' : plain(typeof a === 'number' || typeof a === 'string' || typeof a === 'boolean' ? Number(a) : NaN);
        case 'i': return typeof a === 'bigint' ? a + 'n' : plain(typeof a === 'number' || typeof a === 'string' ? parseInt(a, 10) : NaN);
        case 'f': return plain(typeof a === 'number' || typeof a === 'string' ? parseFloat(a) : NaN);
        case 'c': return '';  // CSS for the browser console
        default: return compact(a);  // %o %O %j
      }
    });
    return { text: out, rest: args.slice(used) };
  }

  editgateFormatConsole = function (args) {
    args = Array.prototype.slice.call(args);
    if (args.length === 1) {
      var only = args[0];
      if (typeof only === 'string') return { lang: 'Text', text: only };
      if (isError(only)) return { lang: 'Error', text: errorText(only) };
      return { lang: 'JSON', text: compact(only) };
    }
    var parts = [];
    if (typeof args[0] === 'string') {
      var formatted = substitute(args[0], args.slice(1));
      parts.push(formatted.text);
      args = formatted.rest;
    }
    for (var i = 0; i < args.length; i++) parts.push(typeof args[i] === 'string' ? args[i] : plain(args[i]));
    return { lang: 'Text', text: parts.join(' ') };
  };

  P.isError = isError;
}(editgateSerializeParts));

// --- running code ---------------------------------------------------------------------------------
(function (P) {
  'use strict';

  var IDENTIFIER = P.IDENTIFIER, getOwnPropertyNames = P.getOwnPropertyNames,
    getPrototypeOf = P.getPrototypeOf;

  // How to run `code`, given a page's compile-only checks: parses(source) for a global script,
  // parsesAsync(body) for the body of an async function. Returns {async: false, source} to run
  // as a global script, or {async: true, body} for code with a top-level await.
  editgatePlan = function (code, parses, parsesAsync) {
    // `await` in a class static block is a syntax error unless it sits inside a nested function,
    // so this tells a top-level await from one inside `async function f() {...}`.
    var topLevelAwait = /\bawait\b/.test(code) && !parses('class EditgateAwaitProbe { static {\n' + code + '\n} }');
    if (!topLevelAwait) {
      // Expression first, so `{a: 1}` is an object rather than a block; a function or class
      // declaration stays a declaration so its name is bound for later code.
      var expression = '(' + code + '\n)';
      if (!/^\s*(?:(?:async\s+)?function\b|class\b)/.test(code) && parses(expression)) return { async: false, source: expression };
      return { async: false, source: code };
    }
    var body = 'return (' + code + '\n)';
    if (parsesAsync(body)) return { async: true, body: body };
    // Statements: return the last one if it is an expression, split at the last ';' or line break.
    var trimmed = code.replace(/[\s;]+$/, '');
    var cuts = [trimmed.lastIndexOf(';'), trimmed.lastIndexOf('\n')].sort(function (a, b) { return b - a; });
    for (var i = 0; i < cuts.length; i++) {
      if (cuts[i] < 0) continue;
      var head = trimmed.slice(0, cuts[i] + 1);
      var tail = 'return (' + trimmed.slice(cuts[i] + 1) + '\n)';
      var joined = head + (trimmed[cuts[i]] === '\n' ? '' : ' ') + tail;  // line numbers stay the code's
      // Both halves must stand alone, so `while (x)\n  step()` is not turned into a return.
      if (parsesAsync(head) && parsesAsync(tail) && parsesAsync(joined)) return { async: true, body: joined };
    }
    return { async: true, body: code };
  };

  // Property names that complete `code`, the text before the cursor: for `document.bo`, the names
  // of `document` starting with "bo"; without a dot, global names. Only a plain dotted path is
  // looked at, so nothing is called but getters; lookup(name) reads a global binding.
  // Where the word completions replace starts in `code`, in UTF-16 units: after the last `.`
  // of its trailing dotted path (the word is ASCII, as IDENTIFIER is).
  editgateCompletionStart = function (code) {
    return code.length - /[\w$]*$/.exec(code)[0].length;
  };

  editgateCompletions = function (code, lookup) {
    try {
      var tail = /[\w$.]*$/.exec(code)[0];
      var dot = tail.lastIndexOf('.');
      var prefix = tail.slice(dot + 1);
      var target = globalThis;
      if (dot >= 0) {
        var path = tail.slice(0, dot).split('.');
        for (var i = 0; i < path.length; i++) if (!IDENTIFIER.test(path[i])) return [];
        target = lookup(path[0]);
        for (var j = 1; j < path.length && target !== undefined && target !== null; j++) target = target[path[j]];
      }
      if (target === undefined || target === null) return [];
      var names = new Set();
      for (var o = Object(target), hops = 0; o !== null && hops < 100; o = getPrototypeOf(o), hops++) {
        getOwnPropertyNames(o).forEach(function (name) {
          if (name.indexOf(prefix) === 0 && IDENTIFIER.test(name)) names.add(name);
        });
      }
      return Array.from(names).sort().slice(0, 200);
    } catch (e) {
      return [];
    }
  };
}(editgateSerializeParts));
