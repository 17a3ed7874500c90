// The ops' implementations, one handler each, listed in op_table.cpp. A
// handler reads its checked parameters, does the work (on the worker's
// thread when it touches the workspace, git or the pages) and answers
// through its Replies on the door's executor. No door knowledge, no Beast.
#pragma once

#include "gateway/op_table.hpp"

#include <functional>
#include <string>
#include <vector>

namespace gateway {

// ops_gateway.cpp: the gateway itself.
void op_describe(OpCall call);
void op_health(OpCall call);
void op_history(OpCall call);
void op_shutdown(OpCall call);

// ops_edit.cpp: edits, and the files the agent has seen.
void op_edit(OpCall call);
void op_edit_begin(OpCall call);
void op_edit_chunk(OpCall call);
void op_edit_end(OpCall call);
void op_context(OpCall call);

// The connection of `conn` is ending: each streamed edit still open commits
// the blocks it applied; with `report`, its edit-begin gets a final error
// reply naming `why`. Then `then` runs on `ex`.
void end_open_edits(Gateway& gw, const std::shared_ptr<ConnectionState>& conn, boost::asio::any_io_executor ex,
                    std::string_view door, Error why, bool report, std::function<void()> then);

// ops_pages.cpp: the live pages (the REPL).
void op_eval(OpCall call);
void op_pages(OpCall call);
void op_interrupt(OpCall call);
void op_complete(OpCall call);
void op_stdin(OpCall call);

// ops_sessions.cpp: the agents' sessions and the Node page's realms.
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
void close_realms(Gateway& gw, std::vector<std::string> realms);

}  // namespace gateway
