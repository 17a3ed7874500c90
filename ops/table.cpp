#include "ops/table.hpp"

#include "services/edit_run.hpp"
#include "services/worker.hpp"
#include "ops/handlers.hpp"
#include "services/target.hpp"
#include "editproto/unicode.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <charconv>

namespace ops {

namespace json = boost::json;

namespace {

using T = ParamType;

// Parameters several ops take with one meaning. A parameter's doc is the
// op's: the same name may mean another thing elsewhere (history's agent is
// a filter, eval's the author).
const Param author{"agent", T::name, false, "your name: the commit's author and its Agent trailer"};
const Param run_page{"page", T::string, false,
                     "the page to run in (its name, from pages); default the built-in Node page"};
const Param ask_page{"page", T::string, false, "the page to ask (its name, from pages); default the built-in Node page"};
const Param wait{"timeout", T::millis, false, "milliseconds to wait for the page's answer"};
const Param edit_text{"text", T::string, true,
                      "the edit blocks: a file path line, then ««« EDIT, the exact lines to find, ═══════ REPL, "
                      "their replacement, »»» EDIT END"};
const Param stream_id{"id", T::string, true, "the streamed edit's id: its edit-begin, chunks and end carry it"};

// The edit parameters, taken by edit and edit-begin alike.
std::vector<Param> edit_params_with(Param first) {
  return {first,
          {"dry_run", T::flag, false, "check every block and write nothing"},
          author,
          {"context", T::paths, false, "the workspace files you have read; a block on another file fails not_in_context"},
          {"fuzz", T::fuzz, false, "\"whitespace\" accepts a block that differs from the file only in indentation"}};
}

const Param symbol{"symbol", T::symbol, true, "a global's dotted path (Math.max)"};

// Final replies several ops give, or long enough to read apart from their row.
constexpr unsigned str = json_string, integer = json_integer, boolean = json_boolean, object = json_object,
                   array = json_array, null = json_null;
// An edit run's report (record::report_json, without its blocks: they came as messages).
const std::vector<ReplyField> run_report{
    {"ok", boolean},            {"counts", object},      {"summary", str},            {"warnings", array},
    {"files_auto_added", array}, {"commit", str | null}, {"commits", array},          {"earlier_commit", str | null},
    {"interrupted", array},     {"files_not_committed", array}, {"commit_error", str | null},
    {"commit_warning", str | null}, {"session", str | null}, {"dry_run", boolean}, {"text", str}};
// What code run in a page answered (an eval's reply, repl's Answer).
const std::vector<ReplyField> eval_reply{
    {"value", json_any},      {"page", str},           {"job", integer},           {"log", str, false},
    {"duration_ms", integer}, {"output", str, false},  {"output_truncated", boolean, false},
    {"log_error", str, false}, {"events_dropped", integer, false}, {"exception", object, false},
    {"interrupted", boolean, false}, {"status", array, false}, {"dialogs", array, false},
    {"dialogs_dropped", integer, false}};
// What page-open and page-go answer once the page has loaded and connected.
const std::vector<ReplyField> owned_reply{{"page", str}, {"url", str},    {"title", str},
                                          {"log", str},  {"owned", boolean}, {"opened", boolean}};
const std::vector<ReplyField> events_reply{{"page", str},          {"events_log", str},
                                           {"events", array},      {"next_before", integer | null},
                                           {"cut", str, false},    {"unlogged", integer, false}};
const std::vector<ReplyField> interrupt_reply{
    {"result", str}, {"message", str, false}, {"job", integer, false}, {"status", array, false},
    {"dialog", object, false}};

const Param* param_of(const OpSpec& op, std::string_view name) {
  for (const Param& p : op.params)
    if (p.name == name) return &p;
  return nullptr;
}

// A query value as its parameter's type; as it came when it is not one, so
// that check_params names the problem as it does for a JSON value.
json::value query_value(ParamType type, const std::string& v) {
  if (type == T::flag) {
    if (auto f = services::parse_flag(v)) return *f;
  } else if (type == T::count || type == T::millis || type == T::offset || type == T::bytes) {
    std::int64_t n = 0;
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (ec == std::errc() && end == v.data() + v.size()) return n;
  }
  return json::string(v);
}

}  // namespace

// Longer than a function should be: it is the table itself, one entry per
// op, kept in one place so that every door and describe read the same list.
const std::vector<OpSpec>& op_table() {
  static const std::vector<OpSpec> table = {
      {"describe", {}, "the ops, their parameters and the protocol version", false, std::nullopt, &op_describe},
      {"health", {}, "workspace id and a nonce new at every gateway start", false,
       HttpRoute{"/v1/health", false}, &op_health},
      {"edit", edit_params_with(edit_text),
       "apply the edit blocks in text: a block message each, then done with the commit", true,
       HttpRoute{"/v1/edits", true, {}, "text"}, &op_edit, Effect::destroys, Role::agent, false, text_params, run_report,
       {{"edit_apply", "Apply edit blocks",
         "Apply the edit blocks in `text` to the workspace and commit them. Each block names its file on the line "
         "before it, then ««« EDIT, the exact lines to find (whole lines, copied from the file as it is now, unique "
         "in it), ═══════ REPL, their replacement, »»» EDIT END. Each block applies or fails on its own; a failed "
         "block's diagnostic says what did not match and where: fix it and send that block again.",
         {"dry_run"}},
        {"edit_check", "Check edit blocks",
         "Check the edit blocks in `text` against the workspace as edit_apply would apply them, and write nothing: "
         "each block's result, with the diagnostic of those that would fail.",
         {"dry_run"}, std::pair<std::string_view, bool>{"dry_run", true}, SessionArg::none, true}}},
      {"edit-begin", edit_params_with(stream_id),
       "open a streamed edit; its chunks and end carry the same id", true, std::nullopt, &op_edit_begin, Effect::destroys,
       Role::agent, false, text_params},
      {"edit-chunk", {stream_id, {"text", T::string, true, "more of the edit's text, cut anywhere"}},
       "more text of a streamed edit; a block message for each block it completes", true, std::nullopt,
       &op_edit_chunk, Effect::destroys, Role::agent, false, text_params},
      {"edit-end", {stream_id}, "end a streamed edit: done with the commit", true, std::nullopt,
       &op_edit_end, Effect::destroys},
      {"context", {{"action", T::string, true, "add, remove, clear or list"},
        {"files", T::paths, false, "the files to add or remove"}},
       "add, remove, clear or list the files this session has seen (not_in_context)", false, std::nullopt,
       &op_context, Effect::writes, Role::agent, false, text_params},
      {"undo", {{"agent", T::name, false, "your name: the undo commit's author"}},
       "revert the newest editgate edit not undone yet, as a new commit (as `editgate undo`): undone, summary, "
       "commit; conflict naming the file when it changed since, not_found when there is nothing to undo",
       false, HttpRoute{"/v1/undo", true}, &op_undo, Effect::destroys, Role::agent, false, small_params,
       {{"undone", str}, {"summary", str}, {"commit", str | null}, {"paths", array}, {"session", str}},
       {{"edit_undo", "Undo the last edit",
         "Revert the newest editgate edit that is not undone yet, as a new commit; refused (naming the file) when a "
         "file it changed has changed since."}}},
      {"history",
       {{"limit", T::count, false, "how many commits (default 20)"},
        {"brief", T::flag, false, "each commit as commit, kind, agent, time and summary only (no blocks, authors, "
         "parents or trailers)"},
        {"agent", T::name, false, "only the commits by this agent"},
        {"of_session", T::name, false, "only the commits of this session"},
        {"kind", T::name, false,
         "only the commits of this kind: edit, undo, earlier-state (the branch); exchange, request, reply, page, "
         "repl (the REPL's ref)"},
        {"repl", T::flag, false,
         "the REPL's history (every request and reply, on its own ref) instead of the branch's code changes"},
        {"before", T::string, false, "the cursor of the previous answer (next_before), for older commits"}},
       "editgate's commits, newest first, as `editgate log --format json`: the branch's code changes, or with "
       "repl the REPL's exchanges (its own ref); next_before continues with older ones", false,
       HttpRoute{"/v1/history", true, {{"session", "of_session"}}}, &op_history, Effect::reads, Role::agent, false,
       small_params, {{"ref", str}, {"commits", array}, {"next_before", str | null}},
       {{"history", "Edit and REPL history",
         "editgate's commits, newest first: the branch's code changes (edit runs with their blocks, undos); with "
         "`repl: true` the REPL's history instead (every request and reply with its page and job). `limit` "
         "commits (default 20), `brief: true` for each one's commit, kind, agent, time and summary only; "
         "`next_before` continues with older ones."}}},
      {"show", {{"commit", T::string, true, "a commit id, or its first 7 or more hex digits"}},
       "one commit (commit: 7 to 40 hex digits): its author, time, summary, editgate's kind, agent, session and "
       "page, the blocks its message lists with their diagnostics while the gateway remembers the run, and its "
       "diff against its first parent, bounded (cut)",
       false, std::nullopt, &op_show},
      {"runs", {{"limit", T::count, false, "how many runs"}},
       "the gateway's recent edit runs (the newest 200, kept in memory), newest first, committed or not: door, "
       "agent, session, summary, commit, dry_run and each block's status, reason and diagnostic",
       false, std::nullopt, &op_runs},
      {"file-read",
       {{"path", T::string, true, "the file, relative to the workspace root"},
        {"offset", T::offset, false, "the first line to read, 1 for the first (the default); next_offset goes on"},
        {"limit", T::count, false, "how many lines at most (default 2000)"},
        {"tail", T::count, false, "the file's last lines, this many, in place of offset"},
        {"line_numbers", T::flag, false,
         "number each line \"    12→\" (the default); false: the file's exact text, for an EDIT section"}},
       "lines of a workspace file, by the edit engine's path rules: text (numbered unless line_numbers is false), "
       "first_line, lines, total_lines, more, next_offset; at most 128 KiB a reply; path_refused, not_found, "
       "binary_file, file_too_large",
       false, HttpRoute{"/v1/files/read", true}, &op_file_read, Effect::reads, Role::agent, false, small_params,
       {{"path", str}, {"text", str}, {"first_line", integer}, {"lines", integer}, {"total_lines", integer},
        {"more", boolean}, {"next_offset", integer | null}, {"line_numbers", boolean}, {"bytes", integer}},
       {{"file_read", "Read a file",
         "Read a workspace file's lines, each numbered as `    12→text` (the number, then →: what follows the "
         "first → is the line), 2000 lines unless `limit` says (up to 10000), at most 128 KiB a call. When `more` is true, call again with "
         "`offset` set to `next_offset`; `tail` reads the last lines. Copy EDIT lines without the numbers, or ask "
         "`line_numbers: false` for the exact text. Paths follow the edit rules: relative, inside the workspace, "
         "not under .git/; binary and non-UTF-8 files are refused.",
         {}, std::nullopt, SessionArg::none, true}}},
      {"file-list",
       {{"path", T::string, false, "the folder, relative to the workspace root; default the root"},
        {"depth", T::count, false, "how many levels: 1 the folder's own entries, 2 (the default) theirs too"},
        {"limit", T::count, false, "how many entries at most (default 500)"}},
       "a workspace folder's entries, depth first in name order: entries (path, kind, size, ignored), cut, text "
       "(a path a line, folders ending in /); a folder .gitignore ignores is listed, marked, and not entered; .git "
       "never",
       false, HttpRoute{"/v1/files/list", true}, &op_file_list, Effect::reads, Role::agent, false, small_params,
       {{"path", str}, {"entries", array}, {"cut", boolean}, {"text", str}},
       {{"file_list", "List a folder",
         "List a workspace folder (default the root) to `depth` levels (default 2), a path a line, folders ending "
         "in /, symlinks and ignored entries marked; folders .gitignore ignores (node_modules, build) are not "
         "entered: name one as `path` to list it. At most `limit` entries (500).",
         {}, std::nullopt, SessionArg::none, true}}},
      {"file-search",
       {{"pattern", T::string, true, "the text to find, as it is written (a fixed string, not a regular expression)"},
        {"path", T::string, false, "the folder (or file) to search, relative to the workspace root; default the root"},
        {"glob", T::string, false, "only files whose name matches (*.cpp), or, when it has a /, whose path from the workspace root does (* also matches /)"},
        {"ignore_case", T::flag, false, "match ASCII letters in either case"},
        {"limit", T::count, false, "how many matching lines at most (default 100)"}},
       "the lines of workspace files that hold pattern (a fixed string), a line each as path:line: text; "
       "files .gitignore ignores (unless path names them), binary ones (a NUL byte) and ones over 4 MiB left out; "
       "stops at limit matches, 20000 files, 64 MiB read or 200000 entries looked at (cut names which)",
       false, HttpRoute{"/v1/files/search", true}, &op_file_search, Effect::reads, Role::agent, false, small_params,
       {{"pattern", str}, {"matches", array}, {"files", integer}, {"skipped", integer}, {"cut", str | null},
        {"text", str}},
       {{"file_search", "Search files",
         "Find the lines that hold `pattern`, a fixed string (not a regular expression), in the workspace's "
         "files that are not binary (or under `path`, those matching `glob`), one `path:line: text` a line; what "
         ".gitignore ignores is left out unless `path` names it. At most `limit` lines (100); `cut` says when a bound stopped the search.",
         {}, std::nullopt, SessionArg::none, true}}},
      {"pages", {}, "the pages with their state and log", false, HttpRoute{"/v1/pages", true}, &op_pages, Effect::reads, Role::agent, false,
       small_params, {{"pages", array}},
       {{"page_list", "List pages",
         "The live pages (the built-in Node page, its realms, browser tabs) with their kind, state, queue and chat "
         "log."}}},
      {"page-open",
       {{"url", T::string, true, "the http or https URL to load (at most 8 KiB); its origin must be one pages may connect from"},
        {"page", T::string, false, "a page page-open opened: load the URL in it (one page, one log) instead of a new one"},
        {"name", T::string, false, "the new page's name, before its id in the log's name (default the URL's host)"},
        {"timeout", T::millis, false, "milliseconds to wait for the page to load and connect (default 30000)"},
        author},
       "open a URL in the gateway's own headless browser (or load it in a page it opened): a page like a tab, with "
       "its chat log, once it has loaded and connected",
       false, HttpRoute{"/v1/pages/open", true}, &op_page_open, Effect::writes, Role::agent, false, small_params,
       owned_reply,
       {{"page_open", "Open a page in the gateway's browser",
         "Load `url` in a headless browser the gateway runs (a fresh profile per page: no person's cookies) and "
         "return the page's name once it has loaded and connected; run code in it with page_eval (`page`: that "
         "name), see it with page_screenshot. With `page`, load the URL in that page instead (one page, one log). "
         "Only origins pages may connect from: localhost, or those serve was started with (--allow-origin).",
         {}, std::nullopt, SessionArg::none, false, true}}},
      {"page-go",
       {{"page", T::string, true, "a page page-open opened"},
        {"to", T::navigation, true, "back, forward or reload"},
        {"timeout", T::millis, false, "milliseconds to wait for the page to load and connect (default 30000)"}},
       "go back, forward or reload in a page page-open opened, once it has loaded and connected again",
       false, HttpRoute{"/v1/pages/go", true}, &op_page_go, Effect::writes, Role::agent, false, small_params,
       owned_reply,
       {{"page_go", "Back, forward or reload a page",
         "Go back, forward or reload in a page page_open opened, and return once it has loaded and connected "
         "again. Its globals are gone (a new document); its chat log goes on."}}},
      {"page-screenshot",
       {{"page", T::string, true, "a page page-open opened"},
        {"selector", T::string, false, "a CSS selector: that element only"},
        {"full_page", T::flag, false, "the whole page, not the viewport (cut at 4096 x 16384 CSS pixels)"},
        author},
       "a PNG of a page page-open opened (its viewport, the full page or one element), saved beside its chat log "
       "(debug/<page>.screenshots/<n>.png), linked from it and committed; at most 8 MiB",
       false, HttpRoute{"/v1/pages/screenshot", true}, &op_page_screenshot, Effect::writes, Role::agent, false,
       small_params,
       {{"page", str}, {"path", str}, {"width", integer}, {"height", integer}, {"bytes", integer}, {"cut", boolean},
        {"png", str, false}},
       {{"page_screenshot", "Screenshot a page",
         "See a page page_open opened: its viewport as a PNG image (or the full page, or the element `selector` "
         "matches). The image is saved beside the page's chat log, linked from it and committed, so a reviewer "
         "sees what you saw."}}},
      {"page-close",
       {{"page", T::string, true, "a page page-open opened"}, author},
       "close a page page-open opened: its browser context ends; its chat log stays", false,
       HttpRoute{"/v1/pages/close", true}, &op_page_close, Effect::destroys, Role::agent, false, small_params,
       {{"page", str}, {"closed", boolean}},
       {{"page_close", "Close a page",
         "Close a page page_open opened (its cookies and storage end with it); its chat log and screenshots stay "
         "in the history."}}},
      {"eval",
       {{"code", T::string, true, "JavaScript to run; top-level await allowed; its last expression is the value"},
        run_page, wait, author, {"silent", T::flag, false, "neither logged nor committed"},
        {"dialog", T::dialog, false,
         "how the code's alert, confirm and prompt are answered in a browser tab, at once and never shown: accept or "
         "dismiss (the default); each is in the reply's dialogs"},
        {"prompt_text", T::string, false,
         "what an accepted prompt() returns (default: the prompt's own default value)"}},
       "run code in a page (the built-in Node page when none is named): out messages while it runs, then its value "
       "or error; logged and committed unless silent",
       true, HttpRoute{"/v1/eval", true}, &op_eval, Effect::destroys, Role::agent, true, text_params, eval_reply,
       {{"page_eval", "Run JavaScript in a page",
         "Run JavaScript in a page (the built-in Node page unless `page` or `session` names another) and return its "
         "value or error; what it prints comes too. The request and reply are written to the page's chat log and "
         "committed. Browser tabs are a person's logged-in pages: run only what the task needs.",
         {"silent"}, std::nullopt, SessionArg::optional, false, true}}},
      {"events",
       {{"page", T::string, false, "the page whose events to read; default the built-in Node page"},
        {"before", T::offset, false, "the cursor of the previous answer (next_before), for older events"},
        {"limit", T::count, false, "how many events (default 100)"}},
       "a page's console and background events from its events log (the built-in Node page when none is named), "
       "the newest limit (default 100) that end before the cursor before, oldest first; next_before pages back",
       false, std::nullopt, &op_events, Effect::reads, Role::agent, false, small_params, events_reply,
       {{"page_events", "A page's events",
         "A page's console and background events from its events log (what it printed, in evals and outside "
         "them): the newest `limit` (default 100), listed oldest first; pass `next_before` as `before` for the "
         "ones before them.",
         {}, std::nullopt, SessionArg::optional, true}}},
      {"interrupt",
       {{"page", T::string, false, "the page whose job to stop; default the built-in Node page"},
        {"interrupt-id", T::request_id, false, "the id of the eval to stop, as it was sent: nothing else is stopped"}},
       "stop the running job of the page (the built-in Node page when none is named), or the eval whose id is "
       "interrupt-id: result interrupted, idle (session-idle) or not-interruptible; interrupt-id-mismatch when "
       "that eval is not running",
       false, std::nullopt, &op_interrupt, Effect::writes, Role::agent, false, small_params, interrupt_reply,
       {{"page_interrupt", "Interrupt a page",
         "Stop the job a page (or the session's realm) is running: interrupted, or idle when nothing runs.",
         {"interrupt-id"}, std::nullopt, SessionArg::optional, true}}},
      {"complete",
       {{"code", T::string, true, "the code to complete"}, ask_page,
        {"cursor_pos", T::offset, false, "where to complete, in UTF-16 units; default the end of code"}},
       "property names that complete code at cursor_pos (UTF-16 units, default its end), from the page (the "
       "built-in Node page when none is named), with the range they replace",
       false, std::nullopt, &op_complete, Effect::reads, Role::agent, false, text_params},
      {"stdin",
       {{"value", T::string, true, "the input; \"eof\" ends it"},
        {"page", T::string, false, "the page whose eval waits for input; default the eval under this request's id"}},
       "input for the eval waiting on it (need-input), sent under that eval's id (or to the eval a page runs); "
       "\"eof\" ends the input",
       false, std::nullopt, &op_stdin, Effect::writes, Role::agent, false, text_params},
      {"info", {symbol, ask_page},
       "what the page can tell about a global symbol (a dotted path): found, kind, signature or constructor, a "
       "description; nothing of it runs, nothing is logged",
       false, std::nullopt, &op_info},
      {"docs",
       {{"class", T::symbol, true, "the class (or function) to document: a global's dotted path (Map, app.Store)",
         "symbol"},
        {"selector", T::symbol, false, "a method of class: its prototype's, else its own (static) property"},
        {"symbol", T::symbol, false, "the older name: any global's dotted path, in place of class"}, ask_page},
       "a class's, function's or method's source head and length, from the page: class (or symbol, its older "
       "name) and an optional selector, its method; nothing is logged",
       false, std::nullopt, &op_docs},
      {"load-file", {{"path", T::string, true, "a JavaScript file of the workspace"}, run_page, author, wait},
       "run a workspace JavaScript file in the page, logged as an eval of its text; the page lists it in modules",
       true, std::nullopt, &op_load_file, Effect::destroys, Role::agent, true},
      {"load-source", {{"source", T::string, true, "JavaScript source text"}, run_page, author, wait},
       "run source text in the page: an eval", true, std::nullopt, &op_load_source, Effect::destroys, Role::agent, true,
       text_params},
      {"reload",
       {{"module", T::string, false, "a loaded module, as modules lists it"},
        {"path", T::string, false, "a JavaScript file of the workspace"}, run_page, author, wait},
       "run a loaded module's file again (module), or the file at path", true, std::nullopt, &op_reload, Effect::destroys, Role::agent, true},
      {"modules", {{"page", T::string, false, "the page whose modules to list; default the built-in Node page"}}, "the files load-file ran in the page since it connected", false,
       std::nullopt, &op_modules},
      {"unload",
       {{"module", T::string, true, "a loaded module, as modules lists it"},
        {"page", T::string, false, "the page that loaded it; default the built-in Node page"}},
       "forget a loaded module (what it defined stays until clear)", false, std::nullopt, &op_unload, Effect::writes},
      {"actors", {},
       "the live pages as actors: pid (the page's name), class (node or browser), module (its URL or log), "
       "spawned_at",
       false, std::nullopt, &op_actors},
      {"inspect", {{"actor", T::string, true, "the page (its pid, from actors)"}},
       "a page's state: its queue, the job it runs, its recent events", false, std::nullopt, &op_inspect},
      {"log",
       {{"page", T::string, false, "the page whose chat log to read; default the built-in Node page"},
        {"before", T::offset, false, "the cursor of the previous answer (next_before), for older entries"},
        {"limit_bytes", T::bytes, false, "how many bytes of the log one answer reads at most"}},
       "a page's chat log for people (the built-in Node page when none is named): the entries (request, reply, "
       "error, event, note) that end before the cursor before, from its last limit_bytes (default 262144), each "
       "rendered to safe HTML off the worker thread within a time budget (an entry not rendered in it, or over 64 KiB, "
       "comes as escaped plain text with rendered false), oldest first; next_before pages back; too_many_requests "
       "when 8 reads wait to be rendered",
       false, std::nullopt, &op_log},
      {"kill", {{"actor", T::string, true, "the page to stop (its pid, from actors)"}},
       "stop a page: the Node page's process is restarted, a tab's connection dropped (it reconnects)", false,
       std::nullopt, &op_kill, Effect::destroys},
      {"sessions", {}, "the sessions: id, page, agent, created, last active, whether a connection holds it", false,
       std::nullopt, &op_sessions},
      {"use", {{"page", T::string, true, "the page to bind the session to (its name, from pages)"}},
       "bind the session to a page (a browser tab, a realm, the Node page): its requests that name no page go there",
       false, std::nullopt, &op_use, Effect::writes},
      {"clone", {}, "a new realm (a fresh context in the Node page, a page of its own) and a session bound to it: "
       "value is the new session's id", false, std::nullopt, &op_clone, Effect::writes, Role::agent, false,
       small_params, {{"value", str}, {"page", str}},
       {{"realm_open", "Open a realm",
         "A fresh JavaScript context in the built-in Node page, a page of its own with its own chat log: `value` is "
         "its session (pass it as `session` to page_eval and realm_close), `page` its name."}}},
      {"close", {}, "end the session (the request's session, else the connection's) and the realm its clone made",
       false, std::nullopt, &op_close, Effect::destroys, Role::agent, false, small_params, {{"value", str}},
       {{"realm_close", "Close a realm",
         "Close the realm realm_open made (its session); its chat log stays in the history. The session ends "
         "with it: a second close is refused not_found.", {}, std::nullopt, SessionArg::required}}},
      {"bindings", {{"page", T::string, false, "the page whose globals to list; default the session's page"}},
       "the globals evaluations made in the session's page (or the one named): name to tagged value, at most 200",
       false, std::nullopt, &op_bindings},
      {"clear", {{"page", T::string, false, "the page whose globals to remove; default the session's page"}},
       "remove them: a realm gets a fresh context; a tab or the Node page deletes what it can, kept names the rest",
       false, std::nullopt, &op_clear, Effect::destroys},
      {"shutdown", {{"cookie", T::string, true, "the gateway's cookie (editgate where cookie names its file)"}},
       "stop the gateway cleanly (`editgate stop`)", false, HttpRoute{"/v1/shutdown", true}, &op_shutdown, Effect::destroys},
      {"watch", {},
       "the gateway's live events, as they happen, until the connection closes (no final reply): pages, exchange "
       "(a page's log grew), commit, run (an edit run ended), origins",
       true, std::nullopt, &op_watch},
      {"origins", {}, "the origins whose pages asked to connect without being allowed: pending, allowed, refused",
       false, std::nullopt, &op_origins},
      {"approve",
       {{"origin", T::string, true, "http(s)://host[:port]: a pending one as origins lists it, or one typed before its page asks"},
        {"allow", T::flag, true, "true allows its pages, false refuses them"}},
       "allow or refuse an origin's pages, for this gateway's life: the person's, on a dashboard signed in with the "
       "URL serve printed on its terminal; never an agent's, nor a dashboard's signed in through the API "
       "(person_only)",
       false,
       std::nullopt, &op_approve, Effect::writes, Role::person},
      {"dashboard", {}, "a new one-time sign-in URL for the dashboard that looks but cannot approve (a viewer's)", false,
       HttpRoute{"/v1/dashboard-url", true}, &op_dashboard, Effect::writes},
      {"push", {},
       "push the branch to the remote `serve --push` names, now, fast-forward only: remote, ref, commit, previous, "
       "up_to_date; push_rejected when the remote's branch moved on (nothing forced), remote_unreachable, "
       "remote_timeout (it went silent past --push-timeout), remote_auth_failed, no_remote without --push",
       false, HttpRoute{"/v1/push", true}, &op_push, Effect::writes},
  };
  return table;
}

std::string_view http_method(const OpSpec& op) { return op.effect == Effect::reads ? "GET" : "POST"; }

std::vector<std::string_view> type_names(unsigned types) {
  std::vector<std::string_view> names;
  for (const auto& [bit, name] : {std::pair{json_string, "string"}, {json_integer, "integer"}, {json_boolean, "boolean"},
                                  {json_object, "object"}, {json_array, "array"}, {json_null, "null"}})
    if (types & bit) names.emplace_back(name);
  return names;
}

const OpSpec* find_op(std::string_view name) {
  for (const OpSpec& op : op_table())
    if (op.name == name) return &op;
  return nullptr;
}

const OpSpec* find_route(std::string_view path) {
  for (const OpSpec& op : op_table())
    if (op.http && op.http->path == path) return &op;
  return nullptr;
}

std::string route_list() {
  std::string list;
  for (const OpSpec& op : op_table())
    if (op.http) list += std::string(http_method(op)) + " " + std::string(op.http->path) + ", ";
  return list + "POST /mcp, /v1/ws (or /ws), /v1/page, /adapter.js, GET / (the dashboard), /v1/dashboard";
}

json::object describe_ops() {
  json::object ops;
  for (const OpSpec& op : op_table()) {
    json::array params, optional;
    for (const Param& p : op.params) (p.required ? params : optional).emplace_back(p.name);
    json::object o{{"params", std::move(params)}, {"doc", op.doc}};
    if (!optional.empty()) o["optional"] = std::move(optional);
    if (op.streams) o["streams"] = true;
    if (op.http) o["http"] = std::string(http_method(op)) + " " + std::string(op.http->path);
    ops[op.name] = std::move(o);
  }
  return {{"ops", std::move(ops)},
          {"versions", json::object{{"protocol", protocol_version}, {"editgate", EDITGATE_VERSION}}}};
}

services::Result<std::vector<std::string>> check_params(const OpSpec& op, json::object& params) {
  const std::string name(op.name);
  for (const Param& p : op.params)
    if (p.required && !params.contains(p.name) && !(!p.or_else.empty() && params.contains(p.or_else)))
      return services::Failure{services::Error::missing_param, name + " needs \"" + std::string(p.name) + "\""};
  std::vector<std::string> unknown;
  for (const auto& kv : params) {
    const Param* p = param_of(op, kv.key());
    if (!p) unknown.emplace_back(kv.key());
    else if (auto bad = check_value(p->type, p->name, kv.value())) return services::Failure{services::Error::bad_request, *bad};
  }
  for (const std::string& u : unknown) params.erase(u);
  return unknown;
}

namespace {

// Another door's replies, with the unknown parameters in the final one.
class NamingUnknown final : public services::Replies {
 public:
  NamingUnknown(std::shared_ptr<services::Replies> out, const std::vector<std::string>& unknown) : out_(std::move(out)) {
    name_unknown(named_, unknown);
  }
  boost::asio::any_io_executor executor() const override { return out_->executor(); }
  void part(json::object body) override { out_->part(std::move(body)); }
  void done(json::object body) override { out_->done(named(std::move(body))); }
  void fail(services::Failure failure, json::object body) override { out_->fail(std::move(failure), named(std::move(body))); }

 private:
  json::object named(json::object body) const {
    for (const auto& kv : named_) body[kv.key()] = kv.value();
    return body;
  }
  std::shared_ptr<services::Replies> out_;
  json::object named_;  // "unknown", and "unknown_more"
};

}  // namespace

void name_unknown(json::object& body, const std::vector<std::string>& unknown) {
  constexpr std::size_t most = 32;
  json::array names;
  for (std::size_t i = 0; i < unknown.size() && i < most; ++i)
    names.emplace_back(editproto::unicode::to_valid_utf8(unknown[i].substr(0, 256)));
  body["unknown"] = std::move(names);
  if (unknown.size() > most) body["unknown_more"] = unknown.size() - most;
}

std::shared_ptr<services::Replies> naming_unknown(std::shared_ptr<services::Replies> out, const std::vector<std::string>& unknown) {
  if (unknown.empty()) return out;
  return std::make_shared<NamingUnknown>(std::move(out), unknown);
}

services::Result<json::object> params_from_query(const OpSpec& op, const std::vector<std::pair<std::string, std::string>>& query) {
  json::object params;
  for (const auto& [given, value] : query) {
    std::string key = given;
    if (op.http)
      for (const auto& [from, to] : op.http->renamed)
        if (from == given) key = to;
    const Param* p = param_of(op, key);
    if (p && p->type == T::paths) {
      if (value.empty()) return services::Failure{services::Error::bad_request, key + " needs a file path"};
      json::value& list = params[key];
      if (!list.is_array()) list = json::array();
      list.get_array().emplace_back(value);
    } else if (params.contains(key)) {
      // An unknown name given twice is left to dispatch, which names every
      // unknown one at once; only a parameter the op takes is ambiguous.
      if (p) return services::Failure{services::Error::bad_request, given + " is given twice"};
    } else {
      params[key] = query_value(p ? p->type : T::string, value);
    }
  }
  return params;
}

ConnectionState::ConnectionState(services::Worker& worker, std::string id) : worker(worker), id(std::move(id)) {}

ConnectionState::~ConnectionState() {
  // Edit runs belong to the worker thread, even in their last moment.
  if (!edits.empty()) worker.post([edits = std::move(edits)] {});
}

}  // namespace ops
