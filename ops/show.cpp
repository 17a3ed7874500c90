// What the dashboard's history shows: show (one commit: its metadata, the
// blocks its message lists, its diff) and runs (the recent edit runs,
// committed or not, with each block's diagnostic). Both on the worker
// thread, which owns the repository handle for reading and the runs.
#include "services/gateway.hpp"
#include "ops/handlers.hpp"
#include "record/commit_show.hpp"

#include <boost/json.hpp>

namespace ops {

namespace json = boost::json;

namespace {

// A commit as an agent names it: 7 to 40 hex digits (git's own short ids
// have at least 7, so a shorter prefix is too often ambiguous).
bool commit_prefix(std::string_view s) {
  return s.size() >= 7 && s.size() <= 40 && s.find_first_not_of("0123456789abcdefABCDEF") == std::string_view::npos;
}

// Each block's diagnostic from the run that made the commit, while the
// gateway still remembers it (same index); null otherwise.
void fill_diagnostics(json::object& shown, const services::RunRing& runs) {
  const json::object* run = runs.made(shown.at("commit").as_string());
  shown["run"] = run ? run->at("id") : json::value(nullptr);
  if (!run) return;
  for (json::value& b : shown["blocks"].as_array()) {
    json::object& block = b.as_object();
    for (const json::value& r : run->at("blocks").as_array())
      if (r.at("index") == block.at("index")) block["diagnostic"] = r.at("diagnostic");
  }
}

services::Result<json::object> show_on_worker(services::Worker& worker, const std::string& prefix) {
  editgit::Repository& repo = worker.repository();
  auto commit = repo.find_commit(prefix);
  if (!commit) {
    const editgit::Error e = commit.error().code;
    return services::Failure{e == editgit::Error::not_found ? services::Error::not_found
                   : e == editgit::Error::invalid ? services::Error::bad_request
                                                  : services::Error::io,
                   commit.error().message};
  }
  const editgit::DiffBounds bounds;
  auto patch = repo.patch(commit->id, bounds);
  if (!patch) return services::Failure{services::Error::io, patch.error().message};
  json::object shown = record::show_json(*commit, *patch, bounds);
  fill_diagnostics(shown, worker.runs());
  return shown;
}

}  // namespace

void op_show(OpCall call) {
  std::string prefix(call.params.at("commit").get_string());
  if (!commit_prefix(prefix))
    return call.out->fail({services::Error::bad_request, "commit must be 7 to 40 hex digits (a commit id or its prefix)"});
  services::Worker& worker = call.gw.worker();
  worker.run(
      call.out->executor(), [&worker, prefix = std::move(prefix)] { return show_on_worker(worker, prefix); },
      [out = call.out](services::Result<json::object> r) {
        if (!r) return out->fail(r.error());
        out->done(std::move(*r));
      });
}

void op_runs(OpCall call) {
  std::size_t limit = 50;
  if (const json::value* v = call.params.if_contains("limit")) limit = static_cast<std::size_t>(v->get_int64());
  services::Worker& worker = call.gw.worker();
  worker.run(
      call.out->executor(), [&worker, limit] { return worker.runs().newest(limit); },
      [out = call.out](json::array runs) { out->done({{"runs", std::move(runs)}}); });
}

}  // namespace ops
