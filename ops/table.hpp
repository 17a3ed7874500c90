// The operations every door offers, declared once: name, parameters (each
// with its type, required or optional), a doc line, whether replies stream,
// the HTTP route when the op has one, what it does and for whom, the most
// bytes its parameters take, its final reply's shape and its MCP faces. Each op is implemented once, as a
// handler (ops/handlers.hpp) that gets checked parameters and a reply sink
// and knows nothing of the transport. A door only maps its bytes to op
// calls and the replies back: the WebSocket (ops/dispatcher.hpp) and the
// HTTP routes (http_connection.cpp). No Beast here.
#pragma once

#include "editproto/block.hpp"
#include "ops/param_rules.hpp"
#include "services/error.hpp"
#include "services/replies.hpp"
#include "ops/text_source.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/json/object.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace services {
class EditRun;
class Worker;
class Gateway;
}  // namespace services

namespace ops {

struct Param {
  std::string_view name;
  ParamType type;
  bool required = false;
  std::string_view doc = {};  // what it means to this op
  // Another parameter of the op that may be given in its place (an older
  // name): a required parameter is not missing when that one is there.
  std::string_view or_else = {};
};

// An op's HTTP route: an op that only reads is a GET taking its parameters
// from the query, any other a POST taking them from a JSON object body
// (http_method).
struct HttpRoute {
  std::string_view path;
  bool bearer = true;  // needs Authorization: Bearer <cookie>
  // Query names that are not the op's: history's `session` is the op's
  // `of_session` (on the WebSocket `session` is the envelope's).
  std::vector<std::pair<std::string_view, std::string_view>> renamed = {};
  // The parameter the request's body is, read as it arrives (a TextSource),
  // the others then coming from the query and `session` being the
  // envelope's; the answer is NDJSON, a line per reply. Empty: a POST's
  // parameters are a JSON object body.
  std::string_view body = {};
};

// What an op does: from it follow its HTTP method and its MCP hints.
enum class Effect {
  reads,     // changes nothing (GET; readOnlyHint)
  writes,    // adds: a log entry, a realm, a push (POST)
  destroys,  // changes or removes what was there: files, a session, whatever code does (POST; destructiveHint)
};

// Who may call an op: any agent, or only the person on the dashboard.
enum class Role { agent, person };

// Whether an MCP tool takes the agents' session as an argument (the
// envelope's `session` on the WebSocket): the realm a `realm_open` made.
enum class SessionArg { none, optional, required };

// An op as an MCP tool, under the name every MCP client sees. Its input
// schema is the op's parameters less `hidden`, plus `session`.
struct McpFace {
  std::string_view tool;
  std::string_view title;
  std::string_view description;
  std::vector<std::string_view> hidden = {};  // op parameters the tool does not offer
  // A flag the tool sets; dry_run set true makes the tool read-only (edit_check).
  std::optional<std::pair<std::string_view, bool>> fixed = std::nullopt;
  SessionArg session = SessionArg::none;
  bool idempotent = false;  // a second call with the same arguments changes nothing more
  bool open_world = false;  // reaches outside the workspace: a person's browser tab
};

// The most bytes of parameters an op takes: names, ids and numbers; the
// text of an edit or of code, or a list of files.
inline constexpr std::size_t small_params = 64 * 1024;
inline constexpr std::size_t text_params = 16u << 20;

// The JSON types a reply field may have, combined with | (a commit or
// null); json_any: any value (an eval's).
enum JsonType : unsigned {
  json_any = 0,
  json_string = 1,
  json_integer = 2,
  json_boolean = 4,
  json_object = 8,
  json_array = 16,
  json_null = 32,
};

// A field of an op's final reply.
struct ReplyField {
  std::string_view name;
  unsigned types;       // JsonType bits
  bool always = true;   // in every final reply that succeeds
};

// The JSON Schema names of a field's types ("string", "null"), in
// JsonType's order; none for json_any.
std::vector<std::string_view> type_names(unsigned types);

// A streamed edit left open between requests. Worker thread only.
struct OpenEdit {
  std::unique_ptr<services::EditRun> run;
  std::shared_ptr<services::Replies> begun;  // where its edit-begin's replies went
};

// What a connection keeps between its requests. A WebSocket has one for its
// life; each HTTP request gets a fresh one.
struct ConnectionState {
  // Out of line, as is the destructor (open edits are destroyed on the
  // worker thread): EditRun is complete only there.
  ConnectionState(services::Worker& worker, std::string id);
  ~ConnectionState();
  ConnectionState(const ConnectionState&) = delete;
  ConnectionState& operator=(const ConnectionState&) = delete;

  services::Worker& worker;
  std::string id;  // the session id its commits carry; "" a new one per run
  // The dashboard's socket (signed in by its cookie, not an agent's auth).
  bool dashboard = false;
  // A dashboard signed in with the URL serve printed on its terminal: the
  // person who started the gateway. Only such a connection may approve
  // origins; a dashboard signed in by a URL minted through the API (which
  // any agent with the bearer cookie can do) only looks.
  bool person = false;
  // The files the agent has seen (the context op, and files added by
  // not_in_context); nullopt until it declares any. The door's executor only.
  std::optional<std::set<std::string>> context;
  std::map<std::string, OpenEdit> edits;  // by the streamed edit's id; worker thread only
  // The running evals' job numbers, by their request's id (serialized), so
  // stdin finds an eval by its id alone. Worker thread only; bounded by the
  // requests in flight (the dispatcher's running set).
  std::map<std::string, std::uint64_t> evals;
};

struct OpSpec;

// One call of an op: its parameters, checked against the table.
struct OpCall {
  services::Gateway& gw;
  const OpSpec& op;
  boost::json::object params;
  std::string session;  // the commits' session: the request's, or the connection's id
  // For the log line: "WebSocket", "HTTP"; a door that streams the text
  // names the run whole ("POST /v1/edits", "inbox fix.md").
  std::string door;
  std::shared_ptr<ConnectionState> conn;
  std::shared_ptr<services::Replies> out;
  std::string request_id = {};  // the envelope's id, serialized; "" without one (and over HTTP)
  // The op's HttpRoute::body parameter as the door reads it; it is not in
  // `params`. Null on every other call.
  std::shared_ptr<TextSource> text = nullptr;
};


using OpHandler = void (*)(OpCall call);

struct OpSpec {
  std::string_view name;
  std::vector<Param> params;
  std::string_view doc;
  bool streams = false;  // intermediate replies come before the final one
  std::optional<HttpRoute> http;
  OpHandler handler = nullptr;
  Effect effect = Effect::reads;
  Role role = Role::agent;
  bool interruptible = false;  // runs code in a page: a cancelled call interrupts it
  // The most bytes its parameters take, as JSON: dispatch refuses more
  // (payload_too_large) on every door. A door's own bound comes first.
  std::size_t size_limit = small_params;
  std::vector<ReplyField> reply = {};  // its final reply when it succeeds; empty: not declared
  std::vector<McpFace> mcp = {};
};

// "GET" for an op that only reads, else "POST".
std::string_view http_method(const OpSpec& op);

// The most bytes of edit text one run takes, on every door: a whole
// message (the edit op) and a streamed one (a POST /v1/edits body, an inbox
// message, edit-chunks). The parser's own bound, named once.
inline constexpr std::size_t max_edit_text = editproto::Limits{}.max_response_bytes;

// The version of the agents' protocol, in `describe` and server.json.
inline constexpr std::string_view protocol_version = "1.0";

// The table, in the order `describe` lists it.
const std::vector<OpSpec>& op_table();
const OpSpec* find_op(std::string_view name);
const OpSpec* find_route(std::string_view path);
// Every route of the HTTP door, for the answer to a path it does not have:
// the op table's, then the door's own.
std::string route_list();

// The op table as `describe` reports it: {"ops": {...}, "versions": {...}}.
boost::json::object describe_ops();

// Every required parameter is there and each known one has its type:
// missing_param or bad_request otherwise, on every door. Parameters the op
// does not take are taken out of `params` and returned, as the reply names
// them ("unknown"): a newer client's extras are ignored, as nREPL does.
services::Result<std::vector<std::string>> check_params(const OpSpec& op, boost::json::object& params);

// A request's replies that name its unknown parameters in the final one
// (`"unknown": [...]`, at most 32 names, the rest counted in
// "unknown_more"); `out` itself when there are none. Every door uses it.
std::shared_ptr<services::Replies> naming_unknown(std::shared_ptr<services::Replies> out, const std::vector<std::string>& unknown);
// The same names in `body`: "unknown" and, past 32, "unknown_more".
void name_unknown(boost::json::object& body, const std::vector<std::string>& unknown);

// The parameters of a GET route, from its query: each value read as its
// parameter's type (a number, a flag; a path list from repeats), names
// renamed; unknown names kept, so check_params names them.
services::Result<boost::json::object> params_from_query(const OpSpec& op,
                                              const std::vector<std::pair<std::string, std::string>>& query);

}  // namespace ops
