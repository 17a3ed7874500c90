// What is behind the workspace and its pages: undo (the newest editgate edit
// reverted, as `editgate undo` does) and events (a page's events log, read
// backwards a page at a time). Both on the worker thread; the undo's writes
// and commit on the workspace's one commit queue.
#include "services/gateway.hpp"
#include "ops/handlers.hpp"
#include "record/commit_messages.hpp"
#include "record/run_commit.hpp"
#include "repl/log.hpp"
#include "repl/repl.hpp"

#include <boost/json.hpp>

namespace ops {

namespace json = boost::json;

namespace {

json::object undone_json(const record::Undone& u, const std::string& session) {
  json::array paths;
  for (const std::string& p : u.commit.paths) paths.emplace_back(p);
  return {{"undone", u.reverted},
          {"summary", u.summary},
          {"commit", u.commit.id ? json::value(*u.commit.id) : json::value(nullptr)},
          {"paths", std::move(paths)},
          {"session", session}};
}

// Runs on the worker thread, which owns the workspace's files: the undo
// itself runs as one piece of work on the commit queue, behind every commit
// queued before it (so it sees HEAD as they leave it), while this thread
// waits, so no other writer touches the files between its checks, its
// writes and its commit.
services::Result<json::object> undo_on_worker(services::Worker& worker, const std::string& agent, const std::string& session,
                                    std::string_view door) {
  if (!worker.hooks().commit) return services::Failure{services::Error::internal, "this gateway has no commit queue"};
  editgit::Result<record::Undone> undone = editgit::Failure{editgit::Error::internal, "the undo did not run"};
  auto queued = worker.hooks().commit([&](editgit::Repository& repo) {
    undone = record::undo_last(worker.workspace(), repo, agent, session);
  });
  if (!queued)
    return services::Failure{services::from_git(queued.error().code), "nothing was undone: " + queued.error().message};
  if (!undone) return services::Failure{services::from_git(undone.error().code), undone.error().message};
  std::string line = std::string(door) + ", agent " + agent + ", session " + session + ": undid " +
                     undone->reverted.substr(0, 12) + " (" + undone->summary + ")";
  if (undone->commit.id) line += ", committed " + undone->commit.id->substr(0, 12);
  repl::log_line(line);
  return undone_json(*undone, session);
}

}  // namespace

void op_undo(OpCall call) {
  // An agent's undo is authored as its edits are: "agent" unless it names itself.
  std::string agent = "agent";
  if (const json::value* v = call.params.if_contains("agent")) agent = v->get_string();
  std::string session = call.session.empty() ? record::new_session_id() : call.session;
  services::Worker& worker = call.gw.worker();
  worker.run(
      call.out->executor(),
      [&worker, agent = std::move(agent), session = std::move(session), door = std::string(call.door)] {
        return undo_on_worker(worker, agent, session, door);
      },
      [out = call.out](services::Result<json::object> r) {
        if (!r) return out->fail(r.error());
        out->done(std::move(*r));
      });
}

void op_events(OpCall call) {
  repl::Repl* repl = call.gw.repl();
  if (!repl) return call.out->fail({services::Error::not_found, "this gateway runs no pages"});
  std::optional<std::uint64_t> before;
  if (const json::value* v = call.params.if_contains("before")) before = static_cast<std::uint64_t>(v->get_int64());
  std::size_t limit = 100;
  if (const json::value* v = call.params.if_contains("limit")) limit = static_cast<std::size_t>(v->get_int64());
  call.gw.worker().run(
      call.out->executor(), [repl, page = page_of(call), before, limit] { return repl->events(page, before, limit); },
      [out = call.out](repl::Result<json::object> r) {
        if (!r) return out->fail(from_repl(r.error()));
        out->done(std::move(*r));
      });
}

}  // namespace ops
