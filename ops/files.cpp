// The ops that read the workspace for an agent: file-read, file-list and
// file-search (services/files.hpp). On the worker thread, between edits,
// which owns the repository handle .gitignore is read through.
#include "services/files.hpp"
#include "services/gateway.hpp"
#include "ops/handlers.hpp"

#include <boost/json.hpp>

namespace ops {

namespace json = boost::json;

namespace {

std::string string_param(const OpCall& call, std::string_view name) {
  const json::value* v = call.params.if_contains(name);
  return v ? std::string(v->get_string()) : std::string();
}

std::optional<std::int64_t> int_param(const OpCall& call, std::string_view name) {
  const json::value* v = call.params.if_contains(name);
  return v ? std::optional<std::int64_t>(v->get_int64()) : std::nullopt;
}

// Runs `read` on the worker and answers with what it gives.
template <class Read>
void on_worker(const OpCall& call, Read read) {
  services::Worker& worker = call.gw.worker();
  worker.run(
      call.out->executor(), [&worker, read = std::move(read)] { return read(worker); },
      [out = call.out](services::Result<json::object> r) {
        if (!r) return out->fail(r.error());
        out->done(std::move(*r));
      });
}

// .gitignore's rules through the worker's repository; a path git cannot
// judge is not ignored.
services::IgnoreTest ignore_test(services::Worker& worker) {
  return [&repo = worker.repository()](const std::string& path, bool folder) {
    auto r = repo.ignored(path, folder);
    return r && *r;
  };
}

}  // namespace

void op_file_read(OpCall call) {
  services::ReadRequest req;
  req.path = string_param(call, "path");
  req.offset = int_param(call, "offset").value_or(1);
  req.limit = int_param(call, "limit");
  req.tail = int_param(call, "tail");
  if (const json::value* v = call.params.if_contains("line_numbers")) req.line_numbers = v->get_bool();
  if (req.tail && call.params.contains("offset"))
    return call.out->fail({services::Error::bad_request, "give offset or tail, not both"});
  on_worker(call, [req = std::move(req)](services::Worker& w) { return services::read_file(w.workspace(), req); });
}

void op_file_list(OpCall call) {
  services::ListRequest req;
  req.path = string_param(call, "path");
  if (auto d = int_param(call, "depth")) req.depth = static_cast<std::size_t>(*d);
  if (auto l = int_param(call, "limit")) req.limit = static_cast<std::size_t>(*l);
  on_worker(call, [req = std::move(req)](services::Worker& w) {
    return services::list_files(w.workspace(), req, ignore_test(w));
  });
}

void op_file_search(OpCall call) {
  services::SearchRequest req;
  req.pattern = string_param(call, "pattern");
  req.path = string_param(call, "path");
  req.glob = string_param(call, "glob");
  if (const json::value* v = call.params.if_contains("ignore_case")) req.ignore_case = v->get_bool();
  if (auto l = int_param(call, "limit")) req.limit = static_cast<std::size_t>(*l);
  on_worker(call, [req = std::move(req)](services::Worker& w) {
    return services::search_files(w.workspace(), req, ignore_test(w));
  });
}

}  // namespace ops
