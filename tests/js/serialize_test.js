// repl/js/serialize.js against the tagged-value format of repl/README.md.
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');

const source = fs.readFileSync(path.join(__dirname, '..', '..', 'repl', 'js', 'serialize.js'), 'utf8');
const {
  editgateSerialize: serialize, editgateFormatConsole: formatConsole, editgateErrorOf: errorOf,
  editgatePlan: plan, editgateCompletions: completions,
} = new Function(source + '\nreturn { editgateSerialize, editgateFormatConsole, editgateErrorOf, editgatePlan, editgateCompletions };')();

// The serializer's output must survive JSON unchanged.
function S(v) {
  const out = serialize(v);
  assert.deepEqual(JSON.parse(JSON.stringify(out)), out);
  return out;
}

test('primitives', () => {
  assert.deepEqual(S(undefined), { $undefined: true });
  assert.equal(S(null), null);
  assert.equal(S(true), true);
  assert.equal(S(25), 25);
  assert.equal(S(1.5), 1.5);
  assert.equal(S('a'), 'a');
  assert.deepEqual(S(NaN), { $number: 'NaN' });
  assert.deepEqual(S(Infinity), { $number: 'Infinity' });
  assert.deepEqual(S(-Infinity), { $number: '-Infinity' });
  assert.deepEqual(S(-0), { $number: '-0' });
  assert.equal(S(0), 0);
  assert.deepEqual(S(123n), { $bigint: '123' });
  assert.deepEqual(S(Symbol('x')), { $symbol: 'Symbol(x)' });
});

test('dates and regular expressions', () => {
  assert.deepEqual(S(new Date('2024-01-02T03:04:05Z')), { $date: '2024-01-02T03:04:05.000Z' });
  assert.deepEqual(S(new Date(NaN)), { $date: 'Invalid Date' });
  assert.deepEqual(S(/a+/g), { $regexp: '/a+/g' });
});

test('plain JSON stays bare', () => {
  assert.deepEqual(S({ a: 1, b: [1, 'x', null, { c: true }] }), { a: 1, b: [1, 'x', null, { c: true }] });
  assert.deepEqual(S([]), []);
  assert.deepEqual(S({}), {});
});

test('maps and sets', () => {
  assert.deepEqual(S(new Map([['k', 1], [{ o: 1 }, [2]]])), { $map: [['k', 1], [{ o: 1 }, [2]]] });
  assert.deepEqual(S(new Set([1, 'a', { b: 2 }])), { $set: [1, 'a', { b: 2 }] });
  assert.deepEqual(S({ m: new Map(), s: new Set() }), { m: { $map: [] }, s: { $set: [] } });
});

test('a repeated object is a $ref to where it was first written', () => {
  const shared = { v: 1 };
  assert.deepEqual(S({ a: shared, b: [shared], c: { d: shared } }), {
    a: { v: 1 }, b: [{ $ref: '$.a' }], c: { d: { $ref: '$.a' } },
  });
  assert.deepEqual(S([shared, shared]), [{ v: 1 }, { $ref: '$[0]' }]);
  const m = new Map([['k', shared]]);
  assert.deepEqual(S([m, shared, m]), [{ $map: [['k', { v: 1 }]] }, { $ref: '$[0].$map[0][1]' }, { $ref: '$[0]' }]);
  assert.deepEqual(S({ 'odd key': shared, x: shared }), { 'odd key': { v: 1 }, x: { $ref: '$["odd key"]' } });
});

test('a cycle is a $ref', () => {
  const a = { name: 'a', list: [] };
  a.list.push(a);
  a.self = a;
  assert.deepEqual(S(a), { name: 'a', list: [{ $ref: '$' }], self: { $ref: '$' } });
  const arr = [];
  arr.push({ back: arr });
  assert.deepEqual(S({ x: arr }), { x: [{ back: { $ref: '$.x' } }] });
});

test('functions', () => {
  assert.deepEqual(S(function add(a, b) { return a + b; }), { $function: 'add(a, b)' });
  assert.deepEqual(S(async function f(a, b) {}), { $function: 'async f(a, b)' });
  assert.deepEqual(S(function* gen(n) {}), { $function: '*gen(n)' });
  assert.deepEqual(S(async function* agen() {}), { $function: 'async *agen()' });
  assert.deepEqual(S(class Point {}), { $function: 'class Point' });
  assert.deepEqual(S(class extends Array {}), { $function: 'class (anonymous)' });
  assert.deepEqual(S([(a) => a]), [{ $function: '(a) => …' }]);
  assert.deepEqual(S([x => x]), [{ $function: '(x) => …' }]);
  assert.deepEqual(S([async (a, { b }) => b]), [{ $function: 'async (a, { b }) => …' }]);
  assert.deepEqual(S([function (a) {}]), [{ $function: 'function (a)' }]);
  const named = (q) => q;
  assert.deepEqual(S(named), { $function: 'named(q)' });
  assert.deepEqual(S({ m(a, b = f(')'), /* ) */ c) {} }.m), { $function: 'm(a, b = f(\')\'), /* ) */ c)' });
  assert.deepEqual(S(Math.max), { $function: 'max(…)' });
  assert.deepEqual(S(Array.prototype.push), { $function: 'push(…)' });
  const long = new Function('a'.repeat(100), 'b', '');
  assert.ok(S(long).$function.endsWith('…)'));
  assert.ok(S(long).$function.length < 80);
});

test('errors', () => {
  const e = new TypeError('bad thing');
  const out = S(e);
  assert.equal(out.$error.name, 'TypeError');
  assert.equal(out.$error.message, 'bad thing');
  assert.match(out.$error.stack, /^TypeError: bad thing\n\s+at /);
  assert.deepEqual(S({ inner: new RangeError('r') }).inner.$error.name, 'RangeError');
});

test('typed arrays, buffers and other builtins', () => {
  assert.deepEqual(S(new Uint8Array([1, 2, 3])), { $typedarray: { type: 'Uint8Array', length: 3, items: [1, 2, 3] } });
  assert.deepEqual(S(new Float64Array([NaN, -0])), { $typedarray: { type: 'Float64Array', length: 2, items: [{ $number: 'NaN' }, { $number: '-0' }] } });
  assert.deepEqual(S(new BigInt64Array([5n])), { $typedarray: { type: 'BigInt64Array', length: 1, items: [{ $bigint: '5' }] } });
  const big = S(new Uint16Array(150));
  assert.equal(big.$typedarray.items.length, 101);
  assert.deepEqual(big.$typedarray.items[100], { $truncated: { omitted: 50 } });
  assert.deepEqual(S(new ArrayBuffer(8)), { $arraybuffer: { byteLength: 8 } });
  assert.deepEqual(S(Promise.resolve(1)), { $promise: 'pending' });
  assert.deepEqual(S(new WeakMap()), { $weakmap: true });
  assert.deepEqual(S(new WeakSet()), { $weakset: true });
});

test('keys that start with $ get one more $', () => {
  assert.deepEqual(S({ $ref: 1, $$x: 2, a$: 3 }), { $$ref: 1, $$$x: 2, a$: 3 });
  const shared = {};
  assert.deepEqual(S({ $k: shared, again: shared }), { $$k: {}, again: { $ref: '$.$$k' } });
});

test('class instances carry $class', () => {
  class Point { constructor() { this.x = 1; this.y = 2; } }
  assert.deepEqual(S(new Point()), { $class: 'Point', x: 1, y: 2 });
  class Empty {}
  assert.deepEqual(S([new Empty()]), [{ $class: 'Empty' }]);
  assert.deepEqual(S(Object.create(null)), {});
  assert.deepEqual(S({ ['__proto__']: 1 }), { ['__proto__']: 1 });
  assert.equal(Object.keys(S(JSON.parse('{"__proto__": 1}')))[0], '__proto__');
});

test('accessors are not called', () => {
  let calls = 0;
  const o = {
    plain: 1,
    get counted() { calls++; return 2; },
    get throws() { throw new Error('no'); },
    set onlySet(v) {},
  };
  assert.deepEqual(S(o), { plain: 1, counted: { $getter: true }, throws: { $getter: true }, onlySet: { $getter: true } });
  const arr = [1];
  Object.defineProperty(arr, 0, { get() { calls++; return 1; }, enumerable: true });
  assert.deepEqual(S(arr), [{ $getter: true }]);
  assert.equal(calls, 0);
});

test('symbol keys and holes', () => {
  assert.deepEqual(S({ [Symbol('s')]: 1 }), { '[Symbol(s)]': 1 });
  assert.deepEqual(S([1, , 3]), [1, { $undefined: true }, 3]);  // eslint-disable-line no-sparse-arrays
});

test('depth bound', () => {
  const deep = { l1: { l2: { l3: { l4: { l5: { l6: { l7: { l8: 1 } } } } } } } };
  const out = S(deep);
  assert.deepEqual(out.l1.l2.l3.l4.l5.l6, { l7: { $truncated: { type: 'Object', keys: 1 } } });
  assert.deepEqual(S([[[[[[[[1, 2]]]]]]]])[0][0][0][0][0][0], [{ $truncated: { type: 'Array', keys: 2 } }]);
  class Point { constructor() { this.x = 1; } }
  assert.deepEqual(S({ a: { b: { c: { d: { e: { f: { p: new Point() } } } } } } }).a.b.c.d.e.f.p,
    { $truncated: { type: 'Point', keys: 1 } });
  assert.deepEqual(S([[[[[[[new Map([[1, 2]])]]]]]]])[0][0][0][0][0][0][0], { $truncated: { type: 'Map', keys: 1 } });
});

test('item bounds', () => {
  const arr = Array.from({ length: 150 }, (_, i) => i);
  const a = S(arr);
  assert.equal(a.length, 101);
  assert.equal(a[99], 99);
  assert.deepEqual(a[100], { $truncated: { omitted: 50 } });

  const obj = {};
  for (let i = 0; i < 150; i++) obj['k' + i] = i;
  const o = S(obj);
  assert.equal(Object.keys(o).length, 101);
  assert.equal(o.k99, 99);
  assert.equal(o.k100, undefined);
  assert.deepEqual(o.$truncated, { omitted: 50 });

  const m = S(new Map(arr.map((i) => [i, i])));
  assert.equal(m.$map.length, 101);
  assert.deepEqual(m.$map[100], { $truncated: { omitted: 50 } });
  const s = S(new Set(arr));
  assert.equal(s.$set.length, 101);
  assert.deepEqual(s.$set[100], { $truncated: { omitted: 50 } });
});

test('string bound', () => {
  assert.equal(S('x'.repeat(10000)), 'x'.repeat(10000));
  assert.deepEqual(S('y'.repeat(20000)), { $truncated: { type: 'string', length: 20000, head: 'y'.repeat(10000) } });
  const head = S('a'.repeat(9999) + '😀' + 'b'.repeat(10)).$truncated.head;
  assert.equal(head, 'a'.repeat(9999));  // the pair is not split
});

test('a throwing Proxy is $unserializable and nothing throws', () => {
  const hostile = new Proxy({}, {
    ownKeys() { throw new Error('trap'); },
    getPrototypeOf() { throw new Error('proto trap'); },
  });
  const out = S({ ok: 1, bad: hostile });
  assert.equal(out.ok, 1);
  assert.match(out.bad.$unserializable, /trap/);
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  assert.match(S(proxy).$unserializable, /TypeError/);
  const throwsItself = new Proxy({}, { getPrototypeOf() { throw throwsItself; } });
  assert.deepEqual(S(throwsItself), { $unserializable: 'threw a value of type object' });
  assert.deepEqual(S(new Proxy(function f(a) {}, {})), { $function: 'f(…)' });
  const hostileFunction = new Proxy(function g() {}, { getOwnPropertyDescriptor() { throw new Error('fn trap'); } });
  assert.deepEqual(S([hostileFunction, 1]), [{ $unserializable: 'Error: fn trap' }, 1]);
});

test('errorOf', () => {
  const e = new Error('boom');
  const info = errorOf(e);
  assert.equal(info.name, 'Error');
  assert.equal(info.message, 'boom');
  assert.match(info.stack, /^Error: boom\n/);
  assert.deepEqual(errorOf('plain'), { name: 'Uncaught', message: 'plain', stack: '' });
  assert.deepEqual(errorOf(42), { name: 'Uncaught', message: '42', stack: '' });
  assert.deepEqual(errorOf(undefined), { name: 'Uncaught', message: 'undefined', stack: '' });
  assert.deepEqual(errorOf({ code: 7 }), { name: 'Uncaught', message: '{"code":7}', stack: '' });
  const foreign = vm.runInNewContext('new RangeError("elsewhere")');
  assert.equal(errorOf(foreign).name, 'RangeError');
  const odd = new Error('x');
  odd.message = { self: odd };  // must not recurse
  assert.equal(errorOf(odd).message, '[object Object]');
});

test('formatConsole', () => {
  assert.deepEqual(formatConsole(['hi']), { lang: 'Text', text: 'hi' });
  assert.deepEqual(formatConsole(['100%']), { lang: 'Text', text: '100%' });
  assert.deepEqual(formatConsole([{ a: 1 }]), { lang: 'JSON', text: '{"a":1}' });
  assert.deepEqual(formatConsole([42]), { lang: 'JSON', text: '42' });
  assert.deepEqual(formatConsole([undefined]), { lang: 'JSON', text: '{"$undefined":true}' });
  assert.deepEqual(formatConsole([]), { lang: 'Text', text: '' });
  assert.deepEqual(formatConsole(['a', 1, { b: 2 }, undefined, NaN, 5n]), { lang: 'Text', text: 'a 1 {"b":2} undefined NaN 5n' });
  assert.deepEqual(formatConsole(['%s is %d years', 'Bob', 42]), { lang: 'Text', text: 'Bob is 42 years' });
  assert.deepEqual(formatConsole(['%i %f %d', '42.9px', '1.5', {}]), { lang: 'Text', text: '42 1.5 NaN' });
  assert.deepEqual(formatConsole(['%o and %O and %j', [1], { a: 1 }, 'x']), { lang: 'Text', text: '[1] and {"a":1} and "x"' });
  assert.deepEqual(formatConsole(['%cstyled', 'color: red']), { lang: 'Text', text: 'styled' });
  assert.deepEqual(formatConsole(['100%% %s', 'sure']), { lang: 'Text', text: '100% sure' });
  assert.deepEqual(formatConsole(['%s %s', 'only']), { lang: 'Text', text: 'only %s' });
  assert.deepEqual(formatConsole([1, 2]), { lang: 'Text', text: '1 2' });
  (function () { assert.deepEqual(formatConsole(arguments), { lang: 'Text', text: 'from arguments' }); })('from arguments');

  const e = new TypeError('bad');
  const only = formatConsole([e]);
  assert.equal(only.lang, 'Error');
  assert.match(only.text, /^TypeError: bad\n\s+at /);
  const mixed = formatConsole(['failed:', e]);
  assert.equal(mixed.lang, 'Text');
  assert.match(mixed.text, /^failed: TypeError: bad\n\s+at /);
  const noStack = new Error('quiet');
  noStack.stack = '';
  assert.deepEqual(formatConsole([noStack]), { lang: 'Error', text: 'Error: quiet' });
  const frames = new Error('firefox');
  frames.stack = 'f@file.js:1:2\n';  // Firefox and Safari leave the message out of the stack
  assert.equal(formatConsole([frames]).text, 'Error: firefox\nf@file.js:1:2\n');
});

test('plan: expression first, statements next, top-level await in an async function', () => {
  const parses = (s) => { try { new vm.Script(s); return true; } catch { return false; } };
  const AsyncFunction = (async () => {}).constructor;
  const parsesAsync = (s) => { try { new AsyncFunction(s); return true; } catch { return false; } };
  const p = (code) => plan(code, parses, parsesAsync);

  assert.deepEqual(p('12+13'), { async: false, source: '(12+13\n)' });
  assert.deepEqual(p('{a: 1}'), { async: false, source: '({a: 1}\n)' });
  assert.deepEqual(p('let x = 5; x * 2'), { async: false, source: 'let x = 5; x * 2' });
  assert.deepEqual(p('function f() {}'), { async: false, source: 'function f() {}' });
  assert.deepEqual(p('class A {}'), { async: false, source: 'class A {}' });
  // await inside a function is not top-level: the declaration must persist.
  assert.deepEqual(p('const g = async () => { await 1 }'), { async: false, source: 'const g = async () => { await 1 }' });
  assert.deepEqual(p('async function h() { await 1 }'), { async: false, source: 'async function h() { await 1 }' });

  assert.deepEqual(p('await f()'), { async: true, body: 'return (await f()\n)' });
  assert.deepEqual(p('const a = await f();\nconst b = 2;\na + b;'), { async: true, body: 'const a = await f();\nconst b = 2;\nreturn (a + b\n)' });
  assert.deepEqual(p('const r = await f(); r * 2'), { async: true, body: 'const r = await f(); return ( r * 2\n)' });
  assert.deepEqual(p('while (await more())\n  step()'), { async: true, body: 'while (await more())\n  step()' });
  assert.deepEqual(p('await f(); g() // a; b'), { async: true, body: 'await f(); g() // a; b' });  // no cut inside a comment
  assert.deepEqual(p('for (const x of xs) await x;'), { async: true, body: 'for (const x of xs) await x;' });
});

test('completions', () => {
  const scope = { obj: { alpha: 1, beta: { gamma: 2 }, also: 3 } };
  const lookup = (name) => scope[name];
  assert.deepEqual(completions('obj.al', lookup), ['alpha', 'also']);
  assert.deepEqual(completions('x = obj.beta.g', lookup), ['gamma']);
  assert.ok(completions('obj.', lookup).includes('hasOwnProperty'));  // the prototype chain
  assert.ok(completions('obj.', lookup).includes('beta'));
  assert.deepEqual(completions('obj.zz', lookup), []);
  assert.deepEqual(completions('nothing.a', lookup), []);
  assert.deepEqual(completions('f().a', lookup), []);  // never calls anything
  assert.deepEqual(completions('1.5', lookup), []);
  assert.ok(completions('parseF', lookup).includes('parseFloat'));  // globals
  const many = completions('', lookup);
  assert.ok(many.length <= 200);
  assert.deepEqual(many, [...many].sort());
  assert.deepEqual(completions('obj.x', () => { throw new Error('no'); }), []);
});
