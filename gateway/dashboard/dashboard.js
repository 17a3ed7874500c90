'use strict';
// The dashboard's client: the agents' protocol over /v1/dashboard (signed in by the session
// cookie at the handshake), live from the `watch` op's events. Everything a page or an agent
// wrote (titles, URLs, origins, diagnostics, diffs) goes in as text; only a log entry's `html`,
// which the gateway renders with cmark-gfm's safe output, is inserted as HTML.
(function () {
  const $ = (id) => document.getElementById(id);
  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function ago(ms) {
    const s = Math.max(0, Math.floor(ms / 1000));
    if (s < 60) return s + 's';
    if (s < 3600) return Math.floor(s / 60) + 'm ' + (s % 60) + 's';
    return Math.floor(s / 3600) + 'h ' + Math.floor((s % 3600) / 60) + 'm';
  }
  function timeOf(t) {
    if (typeof t === 'number') return t < 1e12 ? t * 1000 : t;
    const v = Date.parse(t || '');
    return Number.isNaN(v) ? 0 : v;
  }
  function clock(t) {
    const ms = timeOf(t);
    return ms ? new Date(ms).toLocaleString(undefined, { hour12: false }) : String(t || '');
  }

  function shortClock(t) {
    const d = new Date(timeOf(t));
    if (!timeOf(t)) return '';
    const today = new Date().toDateString() === d.toDateString();
    return today ? d.toLocaleTimeString(undefined, { hour12: false }) : d.toLocaleDateString();
  }

  // ---- the connection: one WebSocket, requests by id, `watch` events to `onEvent` ----
  const rpc = { ws: null, next: 1, waiting: new Map(), backoff: 500 };
  function call(op, params) {
    return new Promise((resolve, reject) => {
      if (!rpc.ws || rpc.ws.readyState !== WebSocket.OPEN || !rpc.ready) return reject(new Error('not connected'));
      const id = 'd' + rpc.next++;
      rpc.waiting.set(id, { resolve, reject });
      rpc.ws.send(JSON.stringify(Object.assign({ op, id }, params || {})));
    });
  }
  function connState(text, cls) {
    const c = $('conn');
    c.textContent = text;
    c.className = 'conn ' + (cls || '');
  }
  function connect() {
    const ws = new WebSocket((location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/v1/dashboard');
    rpc.ws = ws;
    rpc.ready = false;
    ws.onmessage = (ev) => {
      let msg;
      try { msg = JSON.parse(ev.data); } catch (e) { return; }
      if (!rpc.ready) {
        if (msg.op === 'session-started') {
          rpc.ready = true;
          rpc.backoff = 500;
          connState('live', 'ok');
          onConnected();
        }
        return;
      }
      if (msg.id === 'watch' && msg.event) return onEvent(msg.event);
      const w = rpc.waiting.get(msg.id);
      if (!w || !Array.isArray(msg.status) || !msg.status.includes('done')) return;
      rpc.waiting.delete(msg.id);
      if (msg.status.includes('error')) w.reject(Object.assign(new Error(msg.error || msg.reason || 'error'), { reason: msg.reason }));
      else w.resolve(msg);
    };
    ws.onclose = () => {
      for (const w of rpc.waiting.values()) w.reject(new Error('disconnected'));
      rpc.waiting.clear();
      rpc.ready = false;
      connState('disconnected, retrying…', 'bad');
      setTimeout(connect, rpc.backoff);
      rpc.backoff = Math.min(rpc.backoff * 2, 30000);
    };
  }
  function onConnected() {
    rpc.ws.send(JSON.stringify({ op: 'watch', id: 'watch' }));
    loadHistory();
    if (state.logPage) openLog(state.logPage);
  }
  function onEvent(e) {
    if (e.type === 'pages') renderPages(e.pages || []);
    else if (e.type === 'exchange') { if (e.page === state.logPage) followLog(); }
    else if (e.type === 'commit' || e.type === 'run') scheduleHistory();
    else if (e.type === 'origins') renderOrigins(e);
  }

  const state = { view: 'pages', pages: [], logPage: null, selectedCommit: null, diffMode: 'unified' };

  // ---- tabs: arrows move between them, as the ARIA tabs pattern has it ----
  const tabs = Array.from(document.querySelectorAll('[role=tab]'));
  function showView(name, focus) {
    state.view = name;
    for (const t of tabs) {
      const on = t.dataset.view === name;
      t.setAttribute('aria-selected', on ? 'true' : 'false');
      t.tabIndex = on ? 0 : -1;
      $('view-' + t.dataset.view).hidden = !on;
      if (on && focus) t.focus();
    }
    if (name === 'log') scrollLogToEnd();
  }
  for (const t of tabs) {
    t.addEventListener('click', () => showView(t.dataset.view, true));
    t.addEventListener('keydown', (ev) => {
      const i = tabs.indexOf(t);
      let j = -1;
      if (ev.key === 'ArrowRight') j = (i + 1) % tabs.length;
      else if (ev.key === 'ArrowLeft') j = (i + tabs.length - 1) % tabs.length;
      else if (ev.key === 'Home') j = 0;
      else if (ev.key === 'End') j = tabs.length - 1;
      if (j < 0) return;
      ev.preventDefault();
      showView(tabs[j].dataset.view, true);
    });
  }

  // ---- lists: one focusable item at a time; arrows move, Enter (or a click) selects ----
  function listNav(container, onSelect) {
    const items = () => Array.from(container.querySelectorAll('[role=option]'));
    container.addEventListener('keydown', (ev) => {
      const all = items();
      if (!all.length) return;
      let i = all.indexOf(document.activeElement);
      if (ev.key === 'ArrowDown') i = Math.min(all.length - 1, i + 1);
      else if (ev.key === 'ArrowUp') i = Math.max(0, i - 1);
      else if (ev.key === 'Home') i = 0;
      else if (ev.key === 'End') i = all.length - 1;
      else if (ev.key === 'Enter' || ev.key === ' ') {
        if (i >= 0) { ev.preventDefault(); onSelect(all[i]); }
        return;
      } else return;
      ev.preventDefault();
      for (const o of all) o.tabIndex = -1;
      all[i].tabIndex = 0;
      all[i].focus();
    });
    container.addEventListener('click', (ev) => {
      const o = ev.target.closest('[role=option]');
      if (o && container.contains(o)) onSelect(o);
    });
    container.addEventListener('focus', () => {
      const all = items();
      const cur = all.find((o) => o.tabIndex === 0) || all[0];
      if (cur) cur.focus();
    });
  }
  function keepRoving(container, key) {
    // After a re-render, the item that had focus (or the first) is the one Tab reaches.
    const all = Array.from(container.querySelectorAll('[role=option]'));
    const cur = all.find((o) => o.dataset.key === key) || all[0];
    for (const o of all) o.tabIndex = o === cur ? 0 : -1;
    container.tabIndex = all.length ? -1 : 0;
    return cur;
  }

  // ---- Pages ----
  function renderPages(pages) {
    state.pages = pages;
    const body = $('pages-body');
    const focused = document.activeElement && body.contains(document.activeElement) ? document.activeElement.dataset.key : null;
    const rows = pages.slice().sort((a, b) => (a.state === 'disconnected') - (b.state === 'disconnected'));
    body.replaceChildren(...rows.map((p) => {
      const tr = el('tr', 'page state-' + p.state);
      tr.setAttribute('role', 'option');
      tr.dataset.key = p.page;
      const name = el('td', 'name');
      name.append(el('span', 'mono', p.page));
      if (p.title) name.append(el('span', 'sub', p.title));
      const running = el('td', 'running');
      if (p.running) {
        const since = el('span', 'elapsed');
        since.dataset.since = String(p.running.since_ms);
        since.textContent = ago(Date.now() - p.running.since_ms);
        running.append(since, el('code', 'code', p.running.code));
      } else running.append(el('span', 'muted', '—'));
      tr.append(name, cell('kind', el('span', 'badge kind-' + p.kind, p.kind)),
        cell('url', el('span', 'clip mono' + (p.origin ? '' : ' muted'), p.origin || p.url || '')),
        cell('', el('span', 'badge st-' + p.state, p.state)),
        cell('num', String(p.queued || 0)), running, cell('muted', p.last_seen || ''));
      tr.setAttribute('aria-label', p.page + ', ' + p.kind + ', ' + p.state);
      return tr;
    }));
    const cur = keepRoving(body, focused);
    if (focused && cur && cur.dataset.key === focused) cur.focus();
    $('pages-empty').hidden = pages.length > 0;
    $('count-pages').textContent = String(pages.filter((p) => p.state !== 'disconnected').length);
    fillLogPicker();
  }
  function cell(cls, content) {
    const td = el('td', cls);
    if (typeof content === 'string') td.textContent = content; else td.append(content);
    return td;
  }
  setInterval(() => {
    for (const s of document.querySelectorAll('.elapsed[data-since]')) s.textContent = ago(Date.now() - Number(s.dataset.since));
  }, 1000);
  listNav($('pages-body'), (tr) => { showView('log', false); openLog(tr.dataset.key); $('log-scroll').focus(); });

  // ---- a page's Log: the tail first, earlier pages on demand, following `exchange` events ----
  const log = { page: null, first: null, last: -1, nodes: new Map(), busy: false, again: false, gen: 0 };
  function fillLogPicker() {
    const sel = $('log-page');
    const names = state.pages.map((p) => p.page);
    if (state.logPage && !names.includes(state.logPage)) names.push(state.logPage);
    if (Array.from(sel.options).map((o) => o.value).join('\n') !== names.join('\n')) {
      sel.replaceChildren(...names.map((n) => { const o = el('option', '', n); o.value = n; return o; }));
    }
    if (!state.logPage && names.length) openLog(state.pages.find((p) => p.kind === 'node') ? state.pages.find((p) => p.kind === 'node').page : names[0]);
    sel.value = state.logPage || '';
  }
  $('log-page').addEventListener('change', (ev) => openLog(ev.target.value));
  function entryNode(e) {
    const d = el('div', 'entry kind-' + (e.kind || 'note'));
    d.dataset.offset = String(e.offset);
    const h = el('div', 'entry-head');
    h.append(el('span', 'tag', e.kind || 'note'));
    if (e.from || e.to) h.append(el('span', 'who', [e.from, e.to].filter(Boolean).join(' → ')));
    if (e.clock) h.append(el('span', 'clock', e.clock));
    const body = el('div', 'md');
    body.innerHTML = e.html || '';  // cmark-gfm's safe HTML, rendered by the gateway
    d.append(h, body);
    return d;
  }
  function atBottom(s) { return s.scrollHeight - s.scrollTop - s.clientHeight < 24; }
  function scrollLogToEnd() {
    const s = $('log-scroll');
    if ($('log-follow').checked) s.scrollTop = s.scrollHeight;
  }
  function openLog(page) {
    if (!page) return;
    state.logPage = page;
    log.page = page; log.first = null; log.last = -1; log.nodes.clear(); log.gen++;
    $('log-entries').replaceChildren();
    $('log-page').value = page;
    $('log-earlier').hidden = true;
    $('log-start').hidden = true;
    const gen = log.gen;
    call('log', { page }).then((r) => {
      if (gen !== log.gen) return;
      $('log-path').textContent = r.log || '';
      addEntries(r.entries || [], false);
      setEarlier(r.next_before);
      $('log-scroll').scrollTop = $('log-scroll').scrollHeight;
    }).catch((e) => { if (gen === log.gen) $('log-entries').replaceChildren(el('p', 'error', 'log: ' + e.message)); });
  }
  function setEarlier(nb) {
    log.first = nb;
    $('log-earlier').hidden = nb === null || nb === undefined;
    $('log-start').hidden = !(nb === null || nb === undefined) || log.nodes.size === 0;
  }
  function addEntries(entries, prepend) {
    const box = $('log-entries');
    const frag = document.createDocumentFragment();
    for (const e of entries) {
      const old = log.nodes.get(e.offset);
      const n = entryNode(e);
      if (old) { old.replaceWith(n); log.nodes.set(e.offset, n); continue; }
      if (!prepend && e.offset <= log.last) continue;
      log.nodes.set(e.offset, n);
      frag.append(n);
      if (e.offset > log.last) log.last = e.offset;
    }
    if (prepend) box.prepend(frag); else box.append(frag);
  }
  $('log-earlier').addEventListener('click', () => {
    if (log.first === null || log.first === undefined) return;
    const s = $('log-scroll');
    const gen = log.gen;
    const before = s.scrollHeight;
    call('log', { page: log.page, before: log.first }).then((r) => {
      if (gen !== log.gen) return;
      addEntries(r.entries || [], true);
      setEarlier(r.next_before);
      s.scrollTop += s.scrollHeight - before;  // what was on screen stays where it was
    }).catch(() => {});
  });
  function followLog() {
    if (log.busy) { log.again = true; return; }
    log.busy = true;
    const gen = log.gen;
    const s = $('log-scroll');
    const stick = $('log-follow').checked || atBottom(s);
    fetchSince(log.page, gen, null, [], 0).then((entries) => {
      if (gen !== log.gen) return;
      addEntries(entries, false);
      if (stick) s.scrollTop = s.scrollHeight;
    }).catch(() => {}).finally(() => {
      log.busy = false;
      if (log.again) { log.again = false; followLog(); }
    });
  }
  // The tail back to the newest entry already shown, page by page (a burst can outgrow one tail).
  function fetchSince(page, gen, before, acc, n) {
    const params = { page, limit_bytes: 65536 };
    if (before !== null) params.before = before;
    return call('log', params).then((r) => {
      const got = (r.entries || []).concat(acc);
      const reached = r.next_before === null || (r.entries || []).some((e) => e.offset <= log.last) || log.last < 0;
      if (reached || gen !== log.gen) return got;
      if (n >= 16) { openLog(page); return []; }
      return fetchSince(page, gen, r.next_before, got, n + 1);
    });
  }

  // ---- History: commits from git and the gateway's recent edit runs, newest first ----
  let historyTimer = null;
  function scheduleHistory() {
    if (historyTimer) return;
    historyTimer = setTimeout(() => { historyTimer = null; loadHistory(); }, 150);
  }
  function loadHistory() {
    Promise.all([call('history', { limit: 200 }), call('runs', { limit: 100 }).catch(() => ({ runs: [] }))])
      .then(([h, r]) => renderHistory(h.commits || [], r.runs || [])).catch(() => {});
  }
  function blocksStatus(blocks) {
    if (!blocks || !blocks.length) return null;
    const bad = blocks.filter((b) => b.status === 'failed' || b.status === 'not_in_context').length;
    if (!bad) return 'ok';
    return bad === blocks.length ? 'failed' : 'partial';
  }
  function renderHistory(commits, runs) {
    const byCommit = new Map();
    for (const r of runs) if (r.commit) byCommit.set(r.commit, r);
    const items = commits.map((c) => {
      const run = byCommit.get(c.commit);
      const tr = c.trailers || {};
      return {
        key: c.commit, commit: c.commit, time: timeOf(c.time), summary: c.summary, agent: c.agent || (c.author && c.author.name),
        page: tr['Editgate-Page'] || '', kind: c.kind || 'commit', duration: tr['Editgate-Duration'] || '',
        status: blocksStatus(run ? run.blocks : c.blocks) || (c.kind === 'repl' ? 'repl' : 'ok'), run,
      };
    });
    for (const r of runs) {
      if (r.commit && commits.some((c) => c.commit === r.commit)) continue;
      items.push({ key: 'run-' + r.id, commit: r.commit, time: timeOf(r.time), summary: r.summary || 'edit run', agent: r.agent,
        page: '', kind: r.dry_run ? 'check' : 'edit', duration: '', status: blocksStatus(r.blocks) || 'failed', run: r });
    }
    items.sort((a, b) => b.time - a.time);
    state.history = new Map(items.map((i) => [i.key, i]));
    const list = $('history-list');
    const focused = list.contains(document.activeElement) ? document.activeElement.dataset.key : null;
    list.replaceChildren(...items.map((i) => {
      const li = el('li', 'item st-' + i.status);
      li.setAttribute('role', 'option');
      li.dataset.key = i.key;
      li.setAttribute('aria-selected', i.key === state.selectedCommit ? 'true' : 'false');
      const top = el('div', 'line');
      top.append(el('span', 'dot'), el('span', 'summary', i.summary), el('span', 'when', shortClock(i.time)));
      const meta = el('div', 'meta');
      meta.append(el('span', 'badge', i.kind), el('span', '', i.agent || ''));
      if (i.page && i.page !== i.agent) meta.append(el('span', 'mono', i.page));
      if (i.duration) meta.append(el('span', '', i.duration));
      if (!i.commit) meta.append(el('span', 'warn', 'not committed'));
      li.append(top, meta);
      return li;
    }));
    const cur = keepRoving(list, focused || state.selectedCommit);
    if (focused && cur) cur.focus();
    if (!items.length) list.replaceChildren(el('li', 'empty', 'Nothing in the history yet.'));
  }
  listNav($('history-list'), (li) => selectHistory(li.dataset.key));
  function selectHistory(key) {
    const item = state.history && state.history.get(key);
    if (!item) return;
    state.selectedCommit = key;
    for (const li of $('history-list').querySelectorAll('[role=option]')) li.setAttribute('aria-selected', li.dataset.key === key ? 'true' : 'false');
    const d = $('history-detail');
    if (!item.commit) return renderDetail(d, { summary: item.summary, agent: item.agent, time: item.time, files: [], blocks: item.run.blocks || [] }, item);
    d.replaceChildren(el('p', 'muted', 'loading ' + item.commit.slice(0, 12) + '…'));
    call('show', { commit: item.commit }).then((s) => {
      if (state.selectedCommit === key) renderDetail(d, s, item);
    }).catch((e) => d.replaceChildren(el('p', 'error', 'show: ' + e.message)));
  }
  function renderDetail(d, s, item) {
    const head = el('header', 'detail-head');
    head.append(el('h2', '', s.summary || item.summary));
    const meta = el('div', 'meta');
    if (s.commit) meta.append(el('span', 'mono', s.commit.slice(0, 12)));
    meta.append(el('span', '', s.agent || s.author || item.agent || ''));
    if (s.page || item.page) meta.append(el('span', 'mono', s.page || item.page));
    meta.append(el('span', 'muted', clock(s.time || item.time)));
    if (!s.commit) meta.append(el('span', 'warn', 'not committed'));
    head.append(meta);
    const parts = [head];
    const blocks = (s.blocks && s.blocks.length ? s.blocks : (item.run && item.run.blocks)) || [];
    if (blocks.length) parts.push(renderBlocks(blocks));
    if (s.files && s.files.length) {
      const bar = el('div', 'toolbar');
      bar.setAttribute('role', 'group');
      bar.setAttribute('aria-label', 'Diff layout');
      for (const [mode, label] of [['unified', 'unified'], ['split', 'side by side']]) {
        const b = el('button', 'toggle', label);
        b.setAttribute('aria-pressed', state.diffMode === mode ? 'true' : 'false');
        b.addEventListener('click', () => { state.diffMode = mode; renderDetail(d, s, item); });
        bar.append(b);
      }
      parts.push(bar);
      for (const f of s.files) parts.push(renderFile(f));
    }
    if (s.cut) parts.push(el('p', 'warn', 'cut: ' + (typeof s.cut === 'string' ? s.cut : JSON.stringify(s.cut))));
    d.replaceChildren(...parts);
  }
  function renderBlocks(blocks) {
    const ul = el('ul', 'blocks');
    ul.setAttribute('aria-label', 'Blocks');
    for (const b of blocks) {
      const bad = b.status === 'failed' || b.status === 'not_in_context';
      const li = el('li', 'block ' + (bad ? 'failed' : 'st-' + b.status));
      const top = el('div', 'line');
      top.append(el('span', 'badge', 'block ' + (b.index + 1)), el('span', 'status', b.status));
      if (b.path) top.append(el('span', 'mono', b.path + (b.line ? ':' + b.line : '')));
      if (b.reason) top.append(el('span', 'reason', b.reason));
      li.append(top);
      if (b.diagnostic) li.append(el('pre', 'diagnostic', b.diagnostic));
      ul.append(li);
    }
    return ul;
  }
  function renderFile(f) {
    const box = el('section', 'file');
    const h = el('div', 'file-head');
    h.append(el('span', 'badge fs-' + f.status, f.status),
      el('span', 'mono', f.old_path && f.old_path !== f.path ? f.old_path + ' → ' + f.path : f.path));
    box.append(h);
    if (f.binary) { box.append(el('p', 'muted', 'binary file')); return box; }
    const t = el('table', 'diff ' + state.diffMode);
    for (const hunk of f.hunks || []) {
      const hr = el('tr', 'hunk');
      const td = el('td', '', hunk.header);
      td.colSpan = state.diffMode === 'split' ? 4 : 3;
      hr.append(td);
      t.append(hr);
      if (state.diffMode === 'split') splitRows(t, hunk.lines || []); else unifiedRows(t, hunk.lines || []);
    }
    box.append(t);
    return box;
  }
  const lineCls = { '+': 'add', '-': 'del', ' ': 'ctx' };
  function unifiedRows(t, lines) {
    for (const l of lines) {
      const tr = el('tr', lineCls[l.t] || 'ctx');
      tr.append(el('td', 'ln', l.old), el('td', 'ln', l.new), el('td', 'text', (l.t || ' ') + l.text));
      t.append(tr);
    }
  }
  function splitRows(t, lines) {
    // A run of removed lines and the added lines after it sit side by side, row by row.
    let i = 0;
    while (i < lines.length) {
      if (lines[i].t === ' ') { pair(t, lines[i], lines[i]); i++; continue; }
      const del = [], add = [];
      while (i < lines.length && lines[i].t === '-') del.push(lines[i++]);
      while (i < lines.length && lines[i].t === '+') add.push(lines[i++]);
      for (let k = 0; k < Math.max(del.length, add.length); k++) pair(t, del[k], add[k]);
    }
  }
  function pair(t, a, b) {
    const tr = el('tr', a === b ? 'ctx' : 'chg');
    tr.append(el('td', 'ln', a ? a.old : ''), el('td', 'text ' + (a && a !== b ? 'del' : a ? '' : 'none'), a ? a.text : ''),
      el('td', 'ln', b ? b.new : ''), el('td', 'text ' + (b && a !== b ? 'add' : b ? '' : 'none'), b ? b.text : ''));
    t.append(tr);
  }

  // ---- Approvals ----
  function renderOrigins(o) {
    const pending = o.pending || [];
    $('count-approvals').textContent = pending.length ? String(pending.length) : '';
    $('origins-none').hidden = pending.length > 0;
    $('origins-pending').replaceChildren(...pending.map((p) => {
      const li = el('li', 'origin pending');
      li.append(el('span', 'mono', p.origin), el('span', 'muted', 'asked ' + (p.attempts || 1) + '× since ' + clock(p.first_seen_ms)));
      const allow = el('button', 'allow', 'Allow');
      const refuse = el('button', 'refuse', 'Refuse');
      allow.setAttribute('aria-label', 'Allow ' + p.origin);
      refuse.setAttribute('aria-label', 'Refuse ' + p.origin);
      const decide = (yes) => () => {
        allow.disabled = refuse.disabled = true;
        call('approve', { origin: p.origin, allow: yes }).catch((e) => {
          allow.disabled = refuse.disabled = false;
          li.append(el('span', 'error', e.message));
        });
      };
      allow.addEventListener('click', decide(true));
      refuse.addEventListener('click', decide(false));
      li.append(el('span', 'spacer'), allow, refuse);
      return li;
    }));
    const decided = (o.allowed || []).map((p) => [p, 'allowed']).concat((o.refused || []).map((p) => [p, 'refused']));
    $('decided-head').hidden = !decided.length;
    $('origins-decided').replaceChildren(...decided.map(([p, how]) => {
      const li = el('li', 'origin ' + how);
      li.append(el('span', 'badge st-' + how, how), el('span', 'mono', p.origin));
      return li;
    }));
  }

  connect();
})();
