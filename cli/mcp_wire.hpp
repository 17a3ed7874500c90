// What `editgate mcp` needs to know of the JSON-RPC messages it carries
// between a stdio client and the gateway's POST /mcp, without knowing MCP:
// a message's id, method and revision (for the HTTP headers), the lines it
// writes, and the server-sent events it unwraps. No Beast here.
#pragma once

#include <boost/json/value.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace cli::bridge {

// The longest message either way: a stdin line, a JSON answer, one SSE event.
constexpr std::size_t max_message_bytes = 16u << 20;

// JSON-RPC error codes the bridge itself answers with.
constexpr int parse_error = -32700;
constexpr int invalid_request = -32600;
constexpr int internal_error = -32603;

// The meta key that marks a 2026-07-28 (stateless) request.
constexpr std::string_view version_key = "io.modelcontextprotocol/protocolVersion";

struct Facts {
  boost::json::value id;        // null when the message has none
  bool has_id = false;          // a request (or a response): something may answer it
  std::string method;           // empty for a response
  std::string modern_version;   // params._meta's protocol version; empty: a 2025-11-25 message
  std::optional<std::string> name;  // Mcp-Name: params.name (tools/call, prompts/get), params.uri (resources/read)
  boost::json::value cancels;   // notifications/cancelled: params.requestId, else null
};

Facts facts_of(const boost::json::value& message);

// A header value as the 2026-07-28 revision carries a name: itself when it
// is plain (visible ASCII and inner spaces or tabs), else `=?base64?…?=` of
// its UTF-8 (also when it looks like that sentinel itself).
std::string header_value(std::string_view s);

// `{"jsonrpc":"2.0","id":<id>,"error":{"code":…,"message":…}}` and its
// line end.
std::string error_line(const boost::json::value& id, int code, std::string_view message);

// Whether `v` is a JSON-RPC message (an object with "jsonrpc": "2.0").
bool is_jsonrpc(const boost::json::value& v);

// One message as one line (its line end added): the text itself when it
// holds no line break, else serialized again (a raw line break in JSON can
// only be white space between tokens). nullopt when it is not JSON.
std::optional<std::string> as_line(std::string_view json_text, boost::json::value* parsed = nullptr);

// The `data` of server-sent events, in the order they complete (the SSE
// rules: lines end in LF, CR or CRLF; `data:` lines of one event joined by
// LF; a blank line ends the event; other fields and comments ignored).
class SseReader {
 public:
  // Feeds bytes; `on_event(data)` for each completed event with data. False
  // (and nothing more is read) when an event or a line is over
  // max_message_bytes.
  template <class F>
  bool feed(std::string_view bytes, F&& on_event) {
    while (!bytes.empty()) {
      if (after_cr_ && bytes.front() == '\n') bytes.remove_prefix(1);
      after_cr_ = false;
      const std::size_t end = bytes.find_first_of("\r\n");
      const std::string_view piece = bytes.substr(0, end);
      if (line_.size() + piece.size() > max_message_bytes) return false;
      line_.append(piece);
      if (end == std::string_view::npos) break;
      after_cr_ = bytes[end] == '\r';
      bytes.remove_prefix(end + 1);
      if (std::optional<std::string> data = end_line()) on_event(std::move(*data));
      if (data_.size() > max_message_bytes) return false;
    }
    return true;
  }

 private:
  std::optional<std::string> end_line();

  std::string line_;
  std::string data_;
  bool has_data_ = false;
  bool after_cr_ = false;
};

}  // namespace cli::bridge
