// The ops that run workspace files in a page: load-file, load-source,
// reload, modules, unload. A file runs as an eval of its text (logged and
// committed like any request), with a last line naming the file, so the
// log shows what ran and stacks name the file; the page lists the files it
// ran (repl/modules.hpp).
#include "services/gateway.hpp"
#include "ops/handlers.hpp"
#include "editproto/unicode.hpp"
#include "git/repository.hpp"
#include "repl/repl.hpp"

#include <boost/asio/post.hpp>
#include <boost/json.hpp>

#include <cstdio>

namespace ops {

namespace json = boost::json;

namespace {

// A file load-file runs is at most this large: it is written into the
// page's chat log whole, like the code of an eval.
constexpr std::size_t max_file_bytes = 1u << 20;

const services::Failure no_pages{services::Error::not_found, "this gateway runs no pages"};

// The file's text, checked as an edit's path is (inside the workspace, not
// under .git), and as code: text in UTF-8.
struct ModuleFile {
  std::string rel;  // the path, normalised
  std::string text;
};

services::Result<ModuleFile> read_module(const editproto::Workspace& ws, const std::string& raw) {
  auto refused = [&](const editproto::Failure& f) {
    return services::Failure{f.reason == editproto::Reason::file_not_found ? services::Error::not_found
                   : f.reason == editproto::Reason::too_large    ? services::Error::payload_too_large
                                                                  : services::Error::bad_request,
                   std::string(editproto::to_string(f.reason)) + ": " + f.detail};
  };
  auto rel = ws.normalize(raw);
  if (!rel) return refused(rel.error());
  auto real = ws.resolve(*rel);
  if (!real) return refused(real.error());
  auto file = ws.read(*real, max_file_bytes);
  if (!file) return refused(file.error());
  if (!file->stamp.exists) return services::Failure{services::Error::not_found, *rel + " does not exist"};
  std::string& text = file->bytes;
  const std::string& rel_path = *rel;
  if (text.find('\0') != std::string::npos) return services::Failure{services::Error::bad_request, *rel + " is binary, not JavaScript"};
  if (const std::size_t bad = editproto::unicode::find_invalid_utf8(text); bad != std::string::npos)
    return services::Failure{services::Error::bad_request, *rel + " is not UTF-8 (byte " + std::to_string(bad) + ")"};
  return ModuleFile{rel_path, std::move(text)};
}

// The line that names the file: its path with control characters escaped,
// so that no path ends the comment and becomes code.
std::string source_url(std::string_view path) {
  std::string line = "//# sourceURL=";
  for (char c : path) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      char hex[4];
      std::snprintf(hex, sizeof hex, "%%%02X", static_cast<unsigned char>(c));
      line += hex;
    } else {
      line += c;
    }
  }
  return line;
}

// The eval of a load: the agent and timeout as eval takes them.
repl::EvalRequest load_request(const OpCall& call) {
  repl::EvalRequest req;
  req.page = page_of(call);
  if (const json::value* v = call.params.if_contains("timeout")) req.timeout = std::chrono::milliseconds(v->get_int64());
  if (const json::value* v = call.params.if_contains("agent")) req.agent = v->get_string();
  return req;
}

// Where a load answers: the op's door, and the request's id there (stdin
// and interrupt-id find the load by it, as any eval).
struct Door {
  services::Gateway& gw;
  std::shared_ptr<services::Replies> out;
  std::string key;
  std::weak_ptr<ConnectionState> conn;
};

Door door_of(const OpCall& call) { return {call.gw, call.out, call.request_id, call.conn}; }

// Reads `path` on the worker and runs it in the page as a module.
void load(Door door, repl::EvalRequest req, std::string path) {
  door.gw.worker().post([door = std::move(door), req = std::move(req), path = std::move(path)]() mutable {
    services::Gateway& gw = door.gw;
    const std::shared_ptr<services::Replies>& out = door.out;
    auto file = read_module(gw.worker().workspace(), path);
    if (!file) return boost::asio::post(out->executor(), [out, f = file.error()] { out->fail(f); });
    req.module = repl::LoadedModule{file->rel, editgit::blob_id(file->text), {}, 0};
    req.code = std::move(file->text);
    if (!req.code.empty() && req.code.back() != '\n') req.code += '\n';
    req.code += source_url(file->rel);
    run_eval(gw, out, std::move(req), std::move(door.key), std::move(door.conn));
  });
}

}  // namespace

void op_load_file(OpCall call) {
  if (!call.gw.repl()) return call.out->fail(no_pages);
  load(door_of(call), load_request(call), std::string(call.params.at("path").get_string()));
}

void op_load_source(OpCall call) {
  repl::EvalRequest req = load_request(call);
  req.code = call.params.at("source").get_string();
  run_eval(call.gw, call.out, std::move(req));
}

void op_reload(OpCall call) {
  repl::Repl* repl = call.gw.repl();
  if (!repl) return call.out->fail(no_pages);
  const json::value* path = call.params.if_contains("path");
  const json::value* module = call.params.if_contains("module");
  if (path) return load(door_of(call), load_request(call), std::string(path->get_string()));
  if (!module) return call.out->fail({services::Error::missing_param, "reload needs \"module\" or \"path\""});
  // The module's own file, as the page loaded it.
  const std::string name(module->get_string());
  repl::EvalRequest req = load_request(call);
  std::string page = req.page;  // the arguments below are evaluated in any order
  call.gw.worker().run(
      call.out->executor(), [repl, page = std::move(page), name] { return repl->module_path(page, name); },
      [door = door_of(call), req = std::move(req), name](repl::Result<std::optional<std::string>> found) mutable {
        if (!found) return door.out->fail(from_repl(found.error()));
        if (!*found) return door.out->fail({services::Error::module_not_loaded, name + " (load-file loads it by its path)"});
        load(std::move(door), std::move(req), **found);
      });
}

void op_modules(OpCall call) {
  repl::Repl* repl = call.gw.repl();
  if (!repl) return call.out->fail(no_pages);
  call.gw.worker().run(
      call.out->executor(), [repl, page = page_of(call)] { return repl->modules(page); },
      [out = call.out](repl::Result<json::object> listed) {
        if (!listed) return out->fail(from_repl(listed.error()));
        out->done(std::move(*listed));
      });
}

void op_unload(OpCall call) {
  repl::Repl* repl = call.gw.repl();
  if (!repl) return call.out->fail(no_pages);
  const std::string name(call.params.at("module").get_string());
  call.gw.worker().run(
      call.out->executor(), [repl, page = page_of(call), name] { return repl->unload(page, name); },
      [out = call.out, name](repl::Result<bool> unloaded) {
        if (!unloaded) return out->fail(from_repl(unloaded.error()));
        if (!*unloaded) return out->fail({services::Error::module_not_loaded, name});
        out->done({{"value", "ok"}});
      });
}

}  // namespace ops
