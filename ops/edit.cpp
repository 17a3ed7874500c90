// The edit ops: a whole edit in one message, a streamed edit in many (the
// WebSocket's edit-begin/-chunk/-end, or the edit op whose text a door
// streams: POST /v1/edits), and the files the agent has seen. The runs live on the worker thread (in
// ConnectionState::edits); replies come back on the door's executor.
#include "services/edit_run.hpp"
#include "services/gateway.hpp"
#include "services/worker.hpp"
#include "ops/handlers.hpp"

#include <boost/json.hpp>

namespace ops {

namespace json = boost::json;

namespace {

// What one worker step of an edit produced, carried back to the door.
struct Step {
  std::optional<services::Failure> failure;
  std::vector<editproto::BlockResult> blocks;
  std::optional<record::RunReport> report;  // set when the run ended
  // The final reply of a step that neither ended the run nor failed:
  // every request gets one, so a client waiting for `done` is answered.
  json::object answer;
};

std::vector<std::string> strings(const json::value& v) {
  std::vector<std::string> out;
  for (const json::value& e : v.get_array()) out.emplace_back(e.get_string());
  return out;
}

json::array to_array(const std::set<std::string>& s) {
  json::array a;
  for (const std::string& f : s) a.emplace_back(f);
  return a;
}

// The edit parameters of a call; the connection's context when the call
// names none.
services::EditParams params_of(const OpCall& call) {
  services::EditParams p;
  const json::object& msg = call.params;
  if (const json::value* v = msg.if_contains("dry_run")) p.dry_run = v->get_bool();
  if (const json::value* v = msg.if_contains("agent")) p.agent = std::string(v->get_string());
  if (const json::value* v = msg.if_contains("fuzz")) p.fuzz_whitespace = v->get_string() == "whitespace";
  if (const json::value* v = msg.if_contains("context")) p.context = strings(*v);
  else if (call.conn->context) p.context = std::vector<std::string>(call.conn->context->begin(), call.conn->context->end());
  p.session = call.session;
  // A door that streams the text says how its client sets the others.
  if (call.text) p.option_syntax = call.text->option_syntax();
  return p;
}

std::string edit_key(const OpCall& call) { return json::serialize(call.params.at("id")); }

// A step's block messages, and its final reply when the run ended or the
// step failed, or (with `answer`) the step's own. True when the run goes on
// and nothing final was sent. On the door's executor.
bool deliver(ConnectionState& conn, services::Replies& out, Step step, bool answer = true) {
  for (const editproto::BlockResult& b : step.blocks) out.part(services::block_message(b));
  if (step.report) {
    // Files that came back not_in_context count as seen: the retry applies.
    for (const std::string& f : step.report->files_auto_added) {
      if (!conn.context) conn.context.emplace();
      conn.context->insert(f);
    }
    json::object summary = record::report_json(*step.report, false);
    summary["text"] = record::report_text(*step.report);
    if (auto failure = run_failure(*step.report, std::move(step.failure))) out.fail(*failure, std::move(summary));
    else out.done(std::move(summary));
    return false;
  }
  if (step.failure) {
    out.fail(*step.failure);
    return false;
  }
  if (answer) out.done(std::move(step.answer));
  return true;
}

// Runs `work` (returning a Step) on the worker thread, and delivers it;
// with `more`, the step's own answer is not sent and `more` runs while the
// run goes on.
template <class Work>
void step(const OpCall& call, Work work, std::function<void()> more = {}) {
  call.gw.worker().run(call.out->executor(), std::move(work),
                       [conn = call.conn, out = call.out, more = std::move(more)](Step s) {
                         if (deliver(*conn, *out, std::move(s), !more) && more) more();
                       });
}

// The steps of a streamed run, kept in conn.edits under `key` between
// them: the WebSocket's edit-begin, -chunk and -end, and the edit op whose
// text a door streams (POST /v1/edits). `log` names the run in the log
// line and the recent runs. Worker thread only.

Step begin_run(services::Gateway& gw, ConnectionState& conn, const std::string& key, services::EditParams params,
               std::shared_ptr<services::Replies> begun) {
  Step s;
  if (conn.edits.count(key)) {
    s.failure = services::Failure{services::Error::conflict, "a streamed edit with id " + key + " is already open"};
  } else if (conn.edits.size() >= gw.limits().streamed_edits) {
    s.failure = services::Failure{services::Error::too_many_streams, "this connection already has " +
                                                                         std::to_string(conn.edits.size()) +
                                                                         " streamed edits open; end one first"};
  } else {
    auto run = gw.worker().start_run(std::move(params));
    if (run) conn.edits.emplace(key, OpenEdit{std::move(*run), std::move(begun)});
    else s.failure = run.error();
  }
  return s;
}

Step feed_run(ConnectionState& conn, const std::string& key, std::string_view text, const std::string& log) {
  Step s;
  auto it = conn.edits.find(key);
  if (it == conn.edits.end()) {
    s.failure = services::Failure{services::Error::not_found, "no streamed edit with id " + key + " is open; send edit-begin first"};
    return s;
  }
  s.blocks = it->second.run->feed(text);
  if (it->second.run->overflowed()) {
    // The parser reads no more of this text: end the run here.
    s.failure = services::Failure{services::Error::payload_too_large, "the text is over " + std::to_string(max_edit_text) +
                                                                          " bytes; the blocks before it stay applied"};
    s.report = it->second.run->commit();
    it->second.run->log(log, services::Error::payload_too_large);
    conn.edits.erase(it);
  }
  return s;
}

Step end_run(ConnectionState& conn, const std::string& key, const std::string& log) {
  Step s;
  auto it = conn.edits.find(key);
  if (it == conn.edits.end()) {
    s.failure = services::Failure{services::Error::not_found, "no streamed edit with id " + key + " is open"};
    return s;
  }
  s.blocks = it->second.run->finish();
  s.report = it->second.run->commit();
  it->second.run->log(log);
  conn.edits.erase(it);
  return s;
}

// The text broke off: what the complete blocks applied is committed; a
// block cut in half was never applied.
Step cut_run(ConnectionState& conn, const std::string& key, const std::string& log, services::Failure why) {
  Step s;
  auto it = conn.edits.find(key);
  if (it == conn.edits.end()) return s;
  s.report = it->second.run->commit();
  it->second.run->log(log, why.code);
  s.failure = std::move(why);
  conn.edits.erase(it);
  return s;
}

// The edit op with its text streamed by the door: each piece fed as it
// comes, a block message for each block it completes.
void pull(std::shared_ptr<OpCall> call, std::string log) {
  call->text->next([call, log](Piece p) {
    auto& conn = call->conn;
    if (p.cut) return step(*call, [conn, log, why = *p.cut] { return cut_run(*conn, "", log, why); });
    if (p.end) return step(*call, [conn, log] { return end_run(*conn, "", log); });
    step(*call, [conn, log, text = std::move(p.text)] { return feed_run(*conn, "", text, log); },
         [call, log] { pull(call, log); });
  });
}

void stream_edit(OpCall call) {
  std::string log = call.door;
  auto shared = std::make_shared<OpCall>(std::move(call));
  step(*shared, [&gw = shared->gw, conn = shared->conn, params = params_of(*shared), out = shared->out]() mutable {
    return begin_run(gw, *conn, "", std::move(params), std::move(out));
  }, [shared, log] { pull(shared, log); });
}

}  // namespace

void op_edit(OpCall call) {
  if (call.text) return stream_edit(std::move(call));
  std::string text(call.params.at("text").get_string());
  std::string door = std::string(call.door) + " edit";
  step(call, [&worker = call.gw.worker(), params = params_of(call), text = std::move(text), door]() mutable {
    Step s;
    auto run = worker.start_run(std::move(params));
    if (!run) {
      s.failure = run.error();
      return s;
    }
    s.blocks = (*run)->feed(text);
    for (editproto::BlockResult& b : (*run)->finish()) s.blocks.push_back(std::move(b));
    if ((*run)->overflowed())
      s.failure = services::Failure{services::Error::payload_too_large, "the text is over " + std::to_string(max_edit_text) +
                                                                            " bytes; the blocks before it stay applied"};
    s.report = (*run)->commit();
    (*run)->log(door);
    return s;
  });
}

void op_edit_begin(OpCall call) {
  step(call, [&gw = call.gw, conn = call.conn, key = edit_key(call), id = call.params.at("id"),
              params = params_of(call), begun = call.out]() mutable {
    Step s = begin_run(gw, *conn, key, std::move(params), std::move(begun));
    s.answer = {{"edit", id}};
    return s;
  });
}

void op_edit_chunk(OpCall call) {
  std::string text(call.params.at("text").get_string());
  std::string log = std::string(call.door) + " edit-begin " + edit_key(call);
  step(call, [conn = call.conn, key = edit_key(call), id = call.params.at("id"), text = std::move(text), log] {
    Step s = feed_run(*conn, key, text, log);
    s.answer = {{"edit", id}, {"completed", s.blocks.size()}};
    return s;
  });
}

void op_edit_end(OpCall call) {
  std::string log = std::string(call.door) + " edit-begin " + edit_key(call);
  step(call, [conn = call.conn, key = edit_key(call), log] { return end_run(*conn, key, log); });
}

void end_open_edits(services::Gateway& gw, const std::shared_ptr<ConnectionState>& conn, boost::asio::any_io_executor ex,
                    std::string_view door, services::Error why, bool report, std::function<void()> then) {
  using Cut = std::vector<std::pair<std::shared_ptr<services::Replies>, record::RunReport>>;
  // Streams still open were cut off: what they applied is committed; a
  // block cut in half was never applied.
  gw.worker().run(
      ex,
      [conn, why, door = std::string(door) + " edit-begin "] {
        Cut cut;
        for (auto& [key, edit] : conn->edits) {
          const record::RunReport& r = edit.run->commit();
          edit.run->log(door + key, why);
          cut.emplace_back(edit.begun, r);
        }
        conn->edits.clear();
        return cut;
      },
      [conn, why, report, then = std::move(then)](Cut cut) {
        if (report) {
          for (auto& [begun, r] : cut) {
            Step s;
            s.report = std::move(r);
            s.failure = services::Failure{why, "the stream was cut off before edit-end; the blocks it completed stay applied"};
            deliver(*conn, *begun, std::move(s));
          }
        }
        if (then) then();
      });
}

void op_context(OpCall call) {
  std::string action(call.params.at("action").get_string());
  const json::value* files = call.params.if_contains("files");
  auto& context = call.conn->context;
  if ((action == "add" || action == "remove") && !files)
    return call.out->fail({services::Error::missing_param, "context " + action + " needs \"files\""});
  if (action == "add") {
    if (!context) context.emplace();
    for (std::string& f : strings(*files)) context->insert(std::move(f));
  } else if (action == "remove") {
    if (context)
      for (const std::string& f : strings(*files)) context->erase(f);
  } else if (action == "clear") {
    context.reset();
  } else if (action != "list") {
    return call.out->fail({services::Error::bad_request, "action must be add, remove, clear or list, not \"" + action + "\""});
  }
  // "declared": whether edits are checked against the list at all.
  call.out->done({{"context", context ? to_array(*context) : json::array()}, {"declared", context.has_value()}});
}

}  // namespace ops
