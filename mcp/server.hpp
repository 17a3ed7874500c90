// The Model Context Protocol door, without the socket: JSON-RPC messages in,
// JSON-RPC messages out, each tool call one op of the op table (mcp/tools.hpp).
// It serves both revisions in use on one endpoint, choosing per request:
// 2025-11-25 (an `initialize` opens a session, named by Mcp-Session-Id) and
// 2026-07-28 (stateless: each request carries its version and capabilities
// in `params._meta`, and its method and tool in headers). The HTTP door
// (http_connection.cpp) reads a POST /mcp and hands it here; `editgate mcp`
// bridges stdio to that same POST, so this is the one MCP implementation.
#pragma once

#include "mcp/tools.hpp"
#include "ops/table.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/json/object.hpp>

#include <chrono>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace services {
class Gateway;
}

namespace mcp {

inline constexpr std::string_view mcp_session_version = "2025-11-25";
inline constexpr std::string_view mcp_modern_version = "2026-07-28";

// What the door read of one POST besides its body.
struct McpHeaders {
  std::optional<std::string> protocol_version;  // MCP-Protocol-Version
  std::optional<std::string> session;           // Mcp-Session-Id
  std::optional<std::string> method;            // Mcp-Method
  std::optional<std::string> name;              // Mcp-Name
};

// Where one POST's answer goes: the door's side. Called from any thread
// (the door posts to its own strand); event() any number of times, then one
// of answer() or drop().
class McpStream {
 public:
  virtual ~McpStream() = default;
  // A message before the answer (a progress notification): the door turns
  // the response into an event stream at the first one.
  virtual void event(std::string message) = 0;
  // The answer: an HTTP status and one JSON-RPC message ("" for none: 202),
  // with the Mcp-Session-Id to set ("" none).
  virtual void answer(unsigned status, std::string message, std::string session = "") = 0;
  // The request was cancelled: no answer; the door ends the response.
  virtual void drop() = 0;
};

// A POST in flight, for the door: the client went away.
class McpPending {
 public:
  virtual ~McpPending() = default;
  // The client closed the response: a 2026-07-28 request is cancelled by
  // that (its job interrupted); a 2025-11-25 one goes on (its revision
  // cancels by notification only).
  virtual void disconnected() = 0;
};

struct McpLimits {
  std::size_t sessions = 64;  // 2025-11-25 sessions kept; the idle longest goes first past it
  std::chrono::minutes session_idle{60};
  std::size_t calls_per_session = 64;  // tool calls running at once in one session
  std::size_t results_kept = 32;       // large results kept for resources/read
  std::size_t result_bytes_kept = 32u << 20;
  // A call's parts (a block's result, what a page prints) kept for its
  // result, as JSON bytes: past them a part is sent as progress only and
  // counted in the result's last part ({"parts_dropped", "bytes_dropped"}).
  std::size_t output_bytes_kept = 1u << 20;
};

class McpServer {
 public:
  McpServer(services::Gateway& gw, boost::asio::any_io_executor ex, McpLimits limits = {});
  ~McpServer();

  // One POST /mcp: `body` is its text. The answer goes to `out`; the
  // result is what the door tells when the client leaves before it (null
  // when nothing is in flight any more).
  std::shared_ptr<McpPending> post(const McpHeaders& headers, std::string_view body, std::shared_ptr<McpStream> out);

  // DELETE /mcp: ends a 2025-11-25 session; false for an unknown one.
  bool end_session(const std::string& id);

  // A large tool result kept aside, by its resource URI; nullopt when it
  // is not (or no longer) kept.
  std::optional<std::string> kept_result(const std::string& uri) const;

  struct Call;
  // A 2025-11-25 session: where its calls run, and what they share (the
  // connection state an op keeps between requests).
  struct McpSession {
    std::string id;  // Mcp-Session-Id
    boost::asio::any_io_executor strand;  // its calls' replies run there: its ConnectionState is touched there only
    std::shared_ptr<ops::ConnectionState> conn;
    std::chrono::steady_clock::time_point last_used;
    std::map<std::string, std::weak_ptr<Call>> calls;  // running, by Call::key
    std::string client;  // the author its clientInfo names (author_from_client); "" none
  };

 private:
  friend class McpRequest;
  friend struct Call;

  // What a tools/call brings besides the tool and its arguments.
  struct CallContext {
    std::shared_ptr<McpSession> session;  // null for a 2026-07-28 call (they share stateless_)
    boost::json::value id;
    std::optional<boost::json::value> progress_token;
    bool modern = false;
    std::shared_ptr<McpStream> out;
    std::string client;  // the author the client's name gives; "" none
  };

  std::shared_ptr<McpSession> session(const std::string& id);
  // A new 2025-11-25 session; null when every one kept is busy.
  std::shared_ptr<McpSession> open_session();
  std::shared_ptr<McpPending> call_tool(const McpTool& tool, ToolCall args, const CallContext& ctx);
  void cancel(const std::string& session_id, const boost::json::value& request_id);
  void interrupt(Call& call);
  void call_ended(Call& call);
  std::string keep_result(std::string json);

  services::Gateway& gw_;
  boost::asio::any_io_executor ex_;
  McpLimits limits_;
  // The sessions, the calls and the kept results are the network thread's:
  // the HTTP door calls in on it, and every session's strand runs on it (the
  // one io_context's one thread), so they take no lock.
  std::map<std::string, std::shared_ptr<McpSession>> sessions_;
  std::shared_ptr<McpSession> stateless_;  // what 2026-07-28 calls share
  std::uint64_t calls_made_ = 0;
  std::deque<std::pair<std::string, std::string>> results_;  // uri, JSON; oldest first
  std::size_t result_bytes_ = 0;
};

}  // namespace mcp
