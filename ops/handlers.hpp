// The ops' implementations, one handler each, listed in ops/table.cpp. A
// handler reads its checked parameters, does the work (on the worker's
// thread when it touches the workspace, git or the pages) and answers
// through its Replies on the door's executor. No door knowledge, no Beast.
#pragma once

#include "ops/table.hpp"

#include <functional>
#include <string>
#include <vector>

namespace repl {
struct Answer;
struct EvalRequest;
struct Failure;
}


namespace ops {

// ops/gateway.cpp: the gateway itself.
void op_describe(OpCall call);
void op_health(OpCall call);
void op_history(OpCall call);
void op_shutdown(OpCall call);

// ops/edit.cpp: edits, and the files the agent has seen.
void op_edit(OpCall call);
void op_edit_begin(OpCall call);
void op_edit_chunk(OpCall call);
void op_edit_end(OpCall call);
void op_context(OpCall call);

// The connection of `conn` is ending: each streamed edit still open commits
// the blocks it applied; with `report`, its edit-begin gets a final error
// reply naming `why`. Then `then` runs on `ex`.
void end_open_edits(services::Gateway& gw, const std::shared_ptr<ConnectionState>& conn, boost::asio::any_io_executor ex,
                    std::string_view door, services::Error why, bool report, std::function<void()> then);

// ops/pages.cpp: the live pages (the REPL).
void op_eval(OpCall call);
// The gateway's own browser's pages (owned.cpp).
void op_page_open(OpCall call);
void op_page_go(OpCall call);
void op_page_screenshot(OpCall call);
void op_page_close(OpCall call);
void op_pages(OpCall call);
void op_interrupt(OpCall call);
void op_complete(OpCall call);
void op_stdin(OpCall call);
// A REPL failure as the gateway's: its code mapped, its message kept.
services::Failure from_repl(repl::Failure f);
// Runs `req` (on the worker) and answers as eval does: out messages, then
// the final reply. What every op that runs code in a page goes through.
// `key`: the request's id on `conn`, by which stdin and interrupt-id find
// the eval while it runs ("" without one).
void run_eval(services::Gateway& gw, std::shared_ptr<services::Replies> out, repl::EvalRequest req, std::string key = {},
              std::weak_ptr<ConnectionState> conn = {});
// The page an op names, or its session's page (session_page below).
std::string page_of(const OpCall& call);

// ops/modules.cpp: workspace files run in a page.
void op_load_file(OpCall call);
void op_load_source(OpCall call);
void op_reload(OpCall call);
void op_modules(OpCall call);
void op_unload(OpCall call);

// ops/history.cpp: the newest edit undone; a page's events log, paged.
void op_undo(OpCall call);
void op_events(OpCall call);

// ops/show.cpp: one commit with its diff and blocks; the recent edit runs.
void op_show(OpCall call);
void op_runs(OpCall call);

// ops/files.cpp: a workspace file's lines, a folder's entries, a text's lines.
void op_file_read(OpCall call);
void op_file_list(OpCall call);
void op_file_search(OpCall call);

// ops/log.cpp: a page's chat log, rendered for people, paged back from its end.
void op_log(OpCall call);

// ops/dashboard.cpp: the live events, origin approvals, a sign-in URL.
void op_watch(OpCall call);
void op_origins(OpCall call);
void op_approve(OpCall call);
void op_dashboard(OpCall call);

// ops/push.cpp: the branch pushed to serve's --push remote, now.
void op_push(OpCall call);

// ops/actors.cpp: the pages as the gateway's actors.
void op_actors(OpCall call);
void op_inspect(OpCall call);
void op_kill(OpCall call);

// A REPL answer (made on the worker thread) carried to the door's executor
// as the final reply, its codes the gateway's.
std::function<void(repl::Answer)> final_from_repl(std::shared_ptr<services::Replies> out);

// ops/symbols.cpp: what a page can tell about a symbol, without running it.
void op_info(OpCall call);
void op_docs(OpCall call);

// ops/sessions.cpp: the agents' sessions and the Node page's realms.
void op_sessions(OpCall call);
void op_use(OpCall call);
void op_clone(OpCall call);
void op_close(OpCall call);
void op_bindings(OpCall call);
void op_clear(OpCall call);

// The page a request that names none goes to: its session's (use, clone);
// "" for the default page (the built-in Node page, or the only page).
std::string session_page(const OpCall& call);
// Closes these realms (expired or closed sessions') on the worker thread.
void close_realms(services::Gateway& gw, std::vector<std::string> realms);

}  // namespace ops
