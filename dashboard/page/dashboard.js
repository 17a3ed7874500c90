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

  // ---- History: the branch's code changes (with the gateway's recent edit runs) or the REPL's
  // exchanges (its own ref), newest first, a page at a time; "load earlier" continues from the
  // oldest one shown (the op's next_before) down to the first commit ----
  const HISTORY_PAGE = 50;
  const hist = {
    which: 'branch',  // or 'repl'
    branch: { commits: [], next: null, ref: '' },
    repl: { commits: [], next: null, ref: '' },
    runs: [],
    chain: Promise.resolve(),  // one history call at a time: a reload and "load earlier" never interleave
    back: [],  // the commits shown before, when a link was followed
  };
  let historyTimer = null;
  function scheduleHistory() {
    if (historyTimer) return;
    historyTimer = setTimeout(() => { historyTimer = null; loadHistory(); }, 150);
  }
  function historyCall(which, before) {
    const params = { limit: HISTORY_PAGE };
    if (which === 'repl') params.repl = true;
    if (before) params.before = before;
    return call('history', params);
  }
  function queueHistory(task) {
    hist.chain = hist.chain.then(task).catch((e) => {
      if (e && e.message !== 'not connected' && e.message !== 'disconnected')
        $('history-list').replaceChildren(el('li', 'empty error', 'history: ' + e.message));
    });
    return hist.chain;
  }
  // The newest page again; what was paged in below it stays when that page reaches it.
  function loadHistory() {
    const which = hist.which;
    return queueHistory(() => Promise.all([historyCall(which, null),
      which === 'branch' ? call('runs', { limit: 100 }).catch(() => ({ runs: [] })) : Promise.resolve(null)])
      .then(([h, r]) => {
        const cur = hist[which];
        const page = h.commits || [];
        const last = page.length ? page[page.length - 1].commit : null;
        const j = last && h.next_before ? cur.commits.findIndex((c) => c.commit === last) : -1;
        if (j >= 0) cur.commits = page.concat(cur.commits.slice(j + 1));
        else { cur.commits = page; cur.next = h.next_before || null; }
        cur.ref = h.ref || '';
        if (r) hist.runs = r.runs || [];
        if (hist.which === which) renderHistory();
      }));
  }
  function loadEarlier() {
    const which = hist.which;
    return queueHistory(() => {
      const cur = hist[which];
      if (!cur.next) return null;
      return historyCall(which, cur.next).then((h) => {
        const seen = new Set(cur.commits.map((c) => c.commit));
        cur.commits = cur.commits.concat((h.commits || []).filter((c) => !seen.has(c.commit)));
        cur.next = h.next_before || null;
        if (hist.which === which) renderHistory();
      });
    });
  }
  function setWhich(which, focus) {
    for (const b of document.querySelectorAll('#history-which [role=radio]')) {
      const on = b.dataset.which === which;
      b.setAttribute('aria-checked', on ? 'true' : 'false');
      b.tabIndex = on ? 0 : -1;
      if (on && focus) b.focus();
    }
    if (hist.which === which) return;
    hist.which = which;
    renderHistory();  // what was loaded before, at once; then the newest page again
    loadHistory();
  }
  {
    const radios = Array.from(document.querySelectorAll('#history-which [role=radio]'));
    for (const b of radios) {
      b.addEventListener('click', () => setWhich(b.dataset.which, true));
      b.addEventListener('keydown', (ev) => {
        const i = radios.indexOf(b);
        let j = -1;
        if (ev.key === 'ArrowRight' || ev.key === 'ArrowDown') j = (i + 1) % radios.length;
        else if (ev.key === 'ArrowLeft' || ev.key === 'ArrowUp') j = (i + radios.length - 1) % radios.length;
        if (j < 0) return;
        ev.preventDefault();
        setWhich(radios[j].dataset.which, true);
      });
    }
  }
  $('history-earlier').addEventListener('click', () => { loadEarlier(); });
  function blocksStatus(blocks) {
    if (!blocks || !blocks.length) return null;
    const bad = blocks.filter((b) => b.status === 'failed' || b.status === 'not_in_context').length;
    if (!bad) return 'ok';
    return bad === blocks.length ? 'failed' : 'partial';
  }
  const shortId = (id) => String(id || '').slice(0, 10);
  // The commit on the other side a commit names: the REPL's tip when an edit was made, the
  // branch's commit a REPL exchange saw.
  function linkOf(trailers) {
    const t = trailers || {};
    if (t['Editgate-Repl']) return { label: 'REPL then', commit: t['Editgate-Repl'], where: 'repl' };
    if (t['Editgate-Branch']) return { label: 'branch then', commit: t['Editgate-Branch'], where: 'branch' };
    return null;
  }
  function itemOf(c, run, repl) {
    const tr = c.trailers || {};
    return {
      key: c.commit, commit: c.commit, time: timeOf(c.time), summary: c.summary, agent: c.agent || (c.author && c.author.name),
      page: tr['Editgate-Page'] || '', kind: c.kind || 'commit', duration: tr['Editgate-Duration'] || '',
      // On the REPL's ref, blue; a run it records is coloured by its blocks as an edit is.
      status: (repl && c.kind !== 'run') || c.kind === 'repl' ? 'repl' : blocksStatus(run ? run.blocks : c.blocks) || (repl ? 'repl' : 'ok'),
      run, link: linkOf(tr),
    };
  }
  function renderHistory() {
    const which = hist.which;
    const cur = hist[which];
    const commits = cur.commits;
    let items;
    if (which === 'repl') items = commits.map((c) => itemOf(c, null, true));
    else {
      const byCommit = new Map();
      for (const r of hist.runs) if (r.commit) byCommit.set(r.commit, r);
      items = commits.map((c) => itemOf(c, byCommit.get(c.commit), false));
      // A run that committed nothing is an entry of its own, where its time puts it among the
      // commits shown (one older than the oldest shown waits for the page that reaches it).
      const oldest = commits.length && cur.next ? timeOf(commits[commits.length - 1].time) : -Infinity;
      for (const r of hist.runs) {
        if (r.commit || timeOf(r.time) < oldest) continue;
        items.push({ key: 'run-' + r.id, commit: null, time: timeOf(r.time), summary: r.summary || 'edit run', agent: r.agent,
          page: '', kind: r.dry_run ? 'check' : 'edit', duration: '', status: blocksStatus(r.blocks) || 'failed', run: r, link: null });
      }
      items.sort((a, b) => b.time - a.time);  // stable: commits of one second keep git's order
    }
    state.history = new Map(items.map((i) => [i.key, i]));
    const list = $('history-list');
    list.setAttribute('aria-label', which === 'repl' ? 'REPL history' : 'Code changes');
    $('history-ref').textContent = cur.ref && cur.ref !== 'HEAD' ? cur.ref : '';
    const focused = list.contains(document.activeElement) ? document.activeElement.dataset.key : null;
    list.replaceChildren(...items.map((i) => {
      const li = el('li', 'item st-' + i.status);
      li.setAttribute('role', 'option');
      li.dataset.key = i.key;
      li.dataset.kind = i.kind;
      li.setAttribute('aria-selected', i.key === state.selectedCommit ? 'true' : 'false');
      const top = el('div', 'line');
      top.append(el('span', 'dot'), el('span', 'summary', i.summary), el('span', 'when', shortClock(i.time)));
      const meta = el('div', 'meta');
      meta.append(el('span', 'badge', i.kind), el('span', '', i.agent || ''));
      if (i.page && i.page !== i.agent) meta.append(el('span', 'mono', i.page));
      if (i.duration) meta.append(el('span', '', i.duration));
      if (!i.commit) meta.append(el('span', 'warn', 'not committed'));
      if (i.link) meta.append(el('span', 'mono muted link-id', (i.link.where === 'repl' ? 'REPL ' : 'branch ') + i.link.commit.slice(0, 7)));
      li.append(top, meta);
      return li;
    }));
    const cur2 = keepRoving(list, focused || state.selectedCommit);
    if (focused && cur2) cur2.focus();
    if (!items.length) list.replaceChildren(el('li', 'empty', which === 'repl' ? 'No REPL exchange yet.' : 'No code change yet.'));
    $('history-earlier').hidden = !cur.next;
    $('history-start').hidden = !!cur.next || !commits.length;
  }
  listNav($('history-list'), (li) => selectHistory(li.dataset.key));
  function markSelected(key) {
    state.selectedCommit = key;
    for (const li of $('history-list').querySelectorAll('[role=option]')) li.setAttribute('aria-selected', li.dataset.key === key ? 'true' : 'false');
  }
  function selectHistory(key) {
    const item = state.history && state.history.get(key);
    if (!item) return;
    hist.back = [];
    markSelected(key);
    const d = $('history-detail');
    if (!item.commit) return renderDetail(d, { summary: item.summary, agent: item.agent, time: item.time, files: [], blocks: item.run.blocks || [] }, item);
    showCommit(item.commit, item, key);
  }
  function showCommit(commit, item, key) {
    const d = $('history-detail');
    d.replaceChildren(el('p', 'muted', 'loading ' + shortId(commit) + '…'));
    d.dataset.commit = commit;
    call('show', { commit }).then((s) => {
      if (d.dataset.commit === commit && state.selectedCommit === key) renderDetail(d, s, item);
    }).catch((e) => { if (d.dataset.commit === commit) d.replaceChildren(el('p', 'error', 'show: ' + e.message)); });
  }
  // A link followed: that commit in the detail (and selected, when it is in the list shown),
  // with the way back to the one it came from.
  function followLink(commit, from) {
    hist.back.push(from);
    openLinked(commit);
  }
  function openLinked(commit) {
    const item = state.history && state.history.get(commit);
    const key = item ? commit : 'linked-' + commit;
    markSelected(key);
    showCommit(commit, item || { summary: '', agent: '', time: 0, page: '' }, key);
  }
  function renderDetail(d, s, item) {
    const head = el('header', 'detail-head');
    if (hist.back.length) {
      const prev = hist.back[hist.back.length - 1];
      const b = el('button', 'link back', '← back to ' + shortId(prev));
      b.addEventListener('click', () => { hist.back.pop(); openLinked(prev); });
      head.append(b);
    }
    head.append(el('h2', '', s.summary || item.summary));
    const meta = el('div', 'meta');
    if (s.kind || item.kind) meta.append(el('span', 'badge', s.kind || item.kind));
    if (s.commit) meta.append(el('span', 'mono commit-id', s.commit.slice(0, 12)));
    meta.append(el('span', '', s.agent || (s.author && s.author.name) || item.agent || ''));
    if (s.page || item.page) meta.append(el('span', 'mono', s.page || item.page));
    meta.append(el('span', 'muted', clock(s.time || item.time)));
    if (!s.commit) meta.append(el('span', 'warn', 'not committed'));
    head.append(meta);
    const link = s.commit ? linkOf(s.trailers) : null;
    if (link) {
      const p = el('div', 'meta links');
      p.append(el('span', 'muted', link.label));
      const b = el('button', 'link mono commit-link', shortId(link.commit));
      b.dataset.commit = link.commit;
      b.dataset.where = link.where;
      b.title = (link.where === 'repl' ? 'the REPL\'s commit when this edit was made: ' : 'the branch\'s commit this exchange saw: ') + link.commit;
      b.setAttribute('aria-label', 'show ' + (link.where === 'repl' ? 'the REPL commit ' : 'the branch commit ') + shortId(link.commit));
      b.addEventListener('click', () => followLink(link.commit, s.commit));
      p.append(b);
      head.append(p);
    }
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
    // The columns' widths come from the <colgroup> (table-layout: fixed would take them from the
    // first row, a hunk header spanning them all): line numbers as wide as the largest has
    // digits, the code the rest.
    let widest = 1;
    for (const hunk of f.hunks || []) for (const l of hunk.lines || []) widest = Math.max(widest, l.old || 0, l.new || 0);
    const digits = Math.min(7, Math.max(3, String(widest).length));
    const split = state.diffMode === 'split';
    const t = el('table', 'diff ' + state.diffMode + ' digits-' + digits);
    const cols = el('colgroup');
    for (const c of split ? ['ln', 'text', 'ln', 'text'] : ['ln', 'ln', 'text']) cols.append(el('col', c));
    t.append(cols);
    const body = el('tbody');
    for (const hunk of f.hunks || []) {
      const hr = el('tr', 'hunk');
      const td = el('td', '', hunk.header);
      td.colSpan = split ? 4 : 3;
      hr.append(td);
      body.append(hr);
      if (split) splitRows(body, hunk.lines || []); else unifiedRows(body, hunk.lines || []);
    }
    t.append(body);
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
