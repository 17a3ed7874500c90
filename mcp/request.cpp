// One POST /mcp: which revision it speaks, whether it is well formed for
// that revision, and the method it calls. Tool calls go to the server's
// calls (mcp/server.cpp); everything else is answered here at once.
#include "mcp/client_name.hpp"
#include "mcp/result_text.hpp"
#include "services/base64.hpp"
#include "mcp/rpc.hpp"
#include "mcp/server.hpp"
#include "mcp/tools.hpp"

#include <boost/json.hpp>

#include <array>

namespace mcp {

namespace json = boost::json;

namespace {

constexpr std::string_view version_key = "io.modelcontextprotocol/protocolVersion";
constexpr std::string_view capabilities_key = "io.modelcontextprotocol/clientCapabilities";
constexpr std::string_view client_info_key = "io.modelcontextprotocol/clientInfo";
constexpr std::array session_versions{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"};

bool is_legacy(std::string_view v) {
  for (std::string_view l : session_versions)
    if (v == l) return true;
  return false;
}

// A header value as compared: surrounding white space dropped, and the
// `=?base64?…?=` form (a name that is not plain ASCII) decoded; nullopt
// when that form does not decode.
std::optional<std::string> header_value(std::string_view v) {
  while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
  while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.remove_suffix(1);
  constexpr std::string_view open = "=?base64?", close = "?=";
  if (!v.starts_with(open) || !v.ends_with(close) || v.size() < open.size() + close.size()) return std::string(v);
  return services::base64_decode(v.substr(open.size(), v.size() - open.size() - close.size()));
}

// The cache hints 2026-07-28 asks of list and discover results: the answer
// depends on who asks (the cookie), so it is private.
json::object cached(json::object result) {
  result["ttlMs"] = 300'000;
  result["cacheScope"] = "private";
  return result;
}

json::object capabilities(bool modern) {
  json::object c{{"tools", json::object{}}, {"resources", json::object{}}, {"prompts", json::object{}}};
  if (!modern) c["logging"] = json::object{};  // setLevel is accepted; editgate sends no log messages
  return c;
}

constexpr std::string_view instructions =
    "editgate changes this git workspace through anchored edit blocks (edit_check, then edit_apply; every change "
    "is a commit, edit_undo reverts the last) and runs JavaScript in its live pages (page_list, page_eval; "
    "realm_open for a context of your own; page_open to load a URL in the gateway's own browser, page_screenshot "
    "to see it). history shows what was done.";

}  // namespace

class McpRequest {
 public:
  McpRequest(McpServer& server, const McpHeaders& headers, std::shared_ptr<McpStream> out)
      : server_(server), headers_(headers), out_(std::move(out)) {}

  std::shared_ptr<McpPending> serve(std::string_view body) {
    boost::system::error_code ec;
    json::value v = json::parse(body, ec);
    if (ec) return error(400, RpcCode::parse_error, "the body is not JSON: " + ec.message());
    if (v.is_array()) return error(400, RpcCode::invalid_request, "batches are not accepted: one message per POST");
    if (!v.is_object()) return error(400, RpcCode::invalid_request, "a JSON-RPC message is an object");
    json::object& msg = v.get_object();
    const json::value* jsonrpc = msg.if_contains("jsonrpc");
    if (!jsonrpc || *jsonrpc != "2.0") return error(400, RpcCode::invalid_request, "\"jsonrpc\" must be \"2.0\"");
    if (const json::value* id = msg.if_contains("id")) {
      if (!id->is_string() && !id->is_int64() && !id->is_uint64())
        return error(400, RpcCode::invalid_request, "\"id\" must be a string or an integer");
      id_ = *id;
    }
    const json::value* method = msg.if_contains("method");
    if (!method) {
      // A response to a request of the server's: editgate sends none.
      if (!id_.is_null() && (msg.contains("result") || msg.contains("error"))) return accepted();
      return error(400, RpcCode::invalid_request, "a message needs \"method\" (or is a response)");
    }
    if (!method->is_string()) return error(400, RpcCode::invalid_request, "\"method\" must be a string");
    method_ = std::string(method->get_string());
    if (const json::value* p = msg.if_contains("params")) {
      if (!p->is_object()) return error(400, RpcCode::invalid_params, "\"params\" must be an object");
      params_ = p->get_object();
    }
    const json::value* meta = params_.if_contains("_meta");
    meta_ = meta && meta->is_object() ? &meta->get_object() : nullptr;
    modern_ = (meta_ && meta_->contains(version_key)) ||
              (headers_.protocol_version && !is_legacy(*headers_.protocol_version));
    if (id_.is_null()) return notification();
    return modern_ ? serve_modern() : serve_with_session();
  }

 private:
  using Pending = std::shared_ptr<McpPending>;

  Pending answer(unsigned status, std::string message, std::string session = "") {
    out_->answer(status, std::move(message), std::move(session));
    return nullptr;
  }
  Pending accepted() { return answer(202, ""); }
  Pending error(unsigned status, RpcCode code, std::string_view message, json::value data = nullptr) {
    return answer(status, rpc_error(id_, code, message, std::move(data)));
  }
  Pending result(json::object r) { return answer(200, rpc_result(id_, std::move(r), modern_)); }

  Pending notification() {
    // 2025-11-25 cancels by notification; 2026-07-28 by closing the
    // request's stream, so its notifications/cancelled has nothing to do.
    if (!modern_ && method_ == "notifications/cancelled" && headers_.session)
      if (const json::value* r = params_.if_contains("requestId"); r && (r->is_string() || r->is_number()))
        server_.cancel(*headers_.session, *r);
    return accepted();
  }

  Pending serve_with_session() {
    if (method_ == "initialize") {
      auto s = server_.open_session();
      if (!s) return error(503, RpcCode::session, "every MCP session the gateway keeps is busy; try again later");
      s->client = author_from_client_info(params_.if_contains("clientInfo"));
      // A client asking for another revision is told the one spoken here.
      json::object r{{"protocolVersion", mcp_session_version},
                     {"capabilities", capabilities(false)},
                     {"serverInfo", mcp_server_info()},
                     {"instructions", instructions}};
      return answer(200, rpc_result(id_, std::move(r), false), s->id);
    }
    if (method_ == "ping") return result({});
    if (!headers_.session)
      return error(400, RpcCode::session,
                   "no Mcp-Session-Id: send initialize first (2025-11-25), or the 2026-07-28 _meta");
    session_ = server_.session(*headers_.session);
    if (!session_) return error(404, RpcCode::session_not_found, "session not found: initialize again");
    if (headers_.protocol_version && !is_legacy(*headers_.protocol_version))
      return error(400, RpcCode::invalid_request, "MCP-Protocol-Version " + *headers_.protocol_version + " is not supported");
    if (method_ == "logging/setLevel") {
      const json::value* level = params_.if_contains("level");
      if (!level || !level->is_string()) return error(200, RpcCode::invalid_params, "setLevel needs \"level\"");
      return result({});
    }
    return common();
  }

  Pending serve_modern() {
    const json::value* version = meta_ ? meta_->if_contains(version_key) : nullptr;
    if (!version || !version->is_string())
      return error(400, RpcCode::invalid_params, "params._meta must carry " + std::string(version_key));
    const std::string requested(version->get_string());
    if (!headers_.protocol_version || header_value(*headers_.protocol_version) != requested)
      return error(400, RpcCode::header_mismatch, "the MCP-Protocol-Version header must equal _meta's " + requested);
    if (!headers_.method || header_value(*headers_.method) != method_)
      return error(400, RpcCode::header_mismatch, "the Mcp-Method header must equal the method, " + method_);
    if (auto named = name_param()) {
      if (!headers_.name || header_value(*headers_.name) != *named)
        return error(400, RpcCode::header_mismatch, "the Mcp-Name header must equal the request's name, " + *named);
    }
    if (requested != mcp_modern_version)
      return error(400, RpcCode::unsupported_version, "protocol version " + requested + " is not supported",
                   json::object{{"supported", json::array{mcp_modern_version, mcp_session_version}},
                                {"requested", requested}});
    const json::value* caps = meta_->if_contains(capabilities_key);
    if (!caps || !caps->is_object())
      return error(400, RpcCode::invalid_params, "params._meta must carry " + std::string(capabilities_key));
    if (method_ == "server/discover") {
      return result(cached({{"supportedVersions", json::array{mcp_modern_version, mcp_session_version}},
                            {"capabilities", capabilities(true)},
                            {"instructions", instructions}}));
    }
    return common();
  }

  // The name a 2026-07-28 request repeats in its Mcp-Name header.
  std::optional<std::string> name_param() const {
    std::string_view key = method_ == "tools/call" || method_ == "prompts/get" ? "name"
                           : method_ == "resources/read"                     ? "uri"
                                                                              : "";
    if (key.empty()) return std::nullopt;
    const json::value* v = params_.if_contains(key);
    return v && v->is_string() ? std::string(v->get_string()) : std::string();
  }

  // The methods both revisions share.
  Pending common() {
    if (method_ == "tools/list" || method_ == "prompts/list" || method_ == "resources/list" ||
        method_ == "resources/templates/list") {
      // One page holds each list: a cursor is never issued, so none is valid.
      if (params_.contains("cursor")) return error(200, RpcCode::invalid_params, "invalid cursor: no list has pages");
      std::string_view key = method_ == "tools/list"       ? "tools"
                             : method_ == "prompts/list"   ? "prompts"
                             : method_ == "resources/list" ? "resources"
                                                           : "resourceTemplates";
      json::object r{{key, method_ == "tools/list" ? tools_listed() : json::array{}}};
      return result(modern_ ? cached(std::move(r)) : std::move(r));
    }
    if (method_ == "resources/read") return read();
    if (method_ == "prompts/get") return error(200, RpcCode::invalid_params, "no such prompt: editgate has none");
    if (method_ == "tools/call") return call();
    // 2026-07-28 tells an unknown method by its status too.
    return error(modern_ ? 404 : 200, RpcCode::method_not_found, "no method " + method_);
  }

  Pending read() {
    const json::value* uri = params_.if_contains("uri");
    if (!uri || !uri->is_string()) return error(200, RpcCode::invalid_params, "resources/read needs \"uri\"");
    const std::string u(uri->get_string());
    auto text = server_.kept_result(u);
    if (!text)
      return error(200, modern_ ? RpcCode::invalid_params : RpcCode::resource_not_found,
                   "resource not found: " + u + " (results are kept while the gateway runs, the newest only)",
                   json::object{{"uri", u}});
    json::object r{{"contents", json::array{json::object{{"uri", u}, {"mimeType", "application/json"}, {"text", *text}}}}};
    return result(modern_ ? cached(std::move(r)) : std::move(r));
  }

  Pending call() {
    const json::value* name = params_.if_contains("name");
    if (!name || !name->is_string()) return error(200, RpcCode::invalid_params, "tools/call needs \"name\"");
    const auto tool = find_tool(name->get_string());
    if (!tool) return error(200, RpcCode::invalid_params, "Unknown tool: " + std::string(name->get_string()));
    // Arguments the model got wrong are a tool result it can act on.
    auto args = tool_params(*tool, params_.if_contains("arguments"));
    if (!args) {
      json::object failed{{"error", to_string(args.error().code)}, {"message", args.error().message}};
      json::object r{{"content", json::array{json::object{{"type", "text"}, {"text", result_text(failed, TextStyle::reply)}}}},
                     {"structuredContent", std::move(failed)},
                     {"isError", true}};
      return result(std::move(r));
    }
    std::string client =
        modern_ ? author_from_client_info(meta_ ? meta_->if_contains(client_info_key) : nullptr) : session_->client;
    McpServer::CallContext ctx{session_, id_, std::nullopt, modern_, out_, std::move(client)};
    if (meta_)
      if (const json::value* t = meta_->if_contains("progressToken"); t && (t->is_string() || t->is_number()))
        ctx.progress_token = *t;
    return server_.call_tool(*tool, std::move(*args), ctx);
  }

  McpServer& server_;
  const McpHeaders& headers_;
  std::shared_ptr<McpStream> out_;
  json::value id_;  // null for a notification
  std::string method_;
  json::object params_;
  const json::object* meta_ = nullptr;
  bool modern_ = false;
  std::shared_ptr<McpServer::McpSession> session_;
};

std::shared_ptr<McpPending> McpServer::post(const McpHeaders& headers, std::string_view body,
                                            std::shared_ptr<McpStream> out) {
  return McpRequest(*this, headers, std::move(out)).serve(body);
}

}  // namespace mcp
