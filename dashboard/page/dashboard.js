// The dashboard's client: the agents' protocol over /v1/dashboard (signed in by the session
// cookie at the handshake), live from the `watch` op's events. Everything a page or an agent
// wrote (titles, URLs, origins, diagnostics, diffs) goes in as text; only a log entry's `html`,
// which the gateway renders with cmark-gfm's safe output, is inserted as HTML.
// An ES module: its views are the modules of dashboard/ (docs/decisions/dashboard.md).
import { renderOrigins } from './dashboard/approvals.js';
import { loadHistory, scheduleHistory } from './dashboard/history.js';
import { followLog, openLog } from './dashboard/log.js';
import { renderPages } from './dashboard/pages.js';
import { connect } from './dashboard/socket.js';
import { state } from './dashboard/state.js';
import './dashboard/tabs.js';

function onConnected() {
  loadHistory();
  if (state.logPage) openLog(state.logPage);
}

function onEvent(e) {
  if (e.type === 'pages') renderPages(e.pages || []);
  else if (e.type === 'exchange') { if (e.page === state.logPage) followLog(); }
  else if (e.type === 'commit' || e.type === 'run') scheduleHistory();
  else if (e.type === 'origins') renderOrigins(e);
}

connect(onConnected, onEvent);
