#include "cli/mcp_wire.hpp"

#include <boost/json.hpp>

namespace cli::bridge {

namespace json = boost::json;

namespace {

const json::object* object_at(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v && v->is_object() ? &v->get_object() : nullptr;
}

std::optional<std::string> string_at(const json::object* o, std::string_view key) {
  if (!o) return std::nullopt;
  const json::value* v = o->if_contains(key);
  if (!v || !v->is_string()) return std::nullopt;
  return std::string(v->get_string());
}

std::string base64(std::string_view in) {
  static constexpr char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 3 <= in.size(); i += 3) {
    const unsigned n = static_cast<unsigned char>(in[i]) << 16 | static_cast<unsigned char>(in[i + 1]) << 8 |
                       static_cast<unsigned char>(in[i + 2]);
    for (int shift : {18, 12, 6, 0}) out += alphabet[(n >> shift) & 63];
  }
  if (const std::size_t rest = in.size() - i; rest > 0) {
    unsigned n = static_cast<unsigned char>(in[i]) << 16;
    if (rest == 2) n |= static_cast<unsigned char>(in[i + 1]) << 8;
    out += alphabet[(n >> 18) & 63];
    out += alphabet[(n >> 12) & 63];
    out += rest == 2 ? alphabet[(n >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

}  // namespace

Facts facts_of(const json::value& message) {
  Facts f;
  const json::object* o = message.if_object();
  if (!o) return f;
  if (const json::value* id = o->if_contains("id")) {
    f.id = *id;
    f.has_id = true;
  }
  if (const json::value* m = o->if_contains("method"); m && m->is_string()) f.method = m->get_string();
  const json::object* params = object_at(*o, "params");
  if (params) {
    if (auto v = string_at(object_at(*params, "_meta"), version_key)) f.modern_version = std::move(*v);
    if (f.method == "tools/call" || f.method == "prompts/get") f.name = string_at(params, "name");
    else if (f.method == "resources/read") f.name = string_at(params, "uri");
    if (f.method == "notifications/cancelled")
      if (const json::value* r = params->if_contains("requestId")) f.cancels = *r;
  }
  return f;
}

std::string header_value(std::string_view s) {
  bool plain = !s.empty() && s.front() != ' ' && s.front() != '\t' && s.back() != ' ' && s.back() != '\t' &&
               !(s.starts_with("=?base64?") && s.ends_with("?="));
  for (char c : s)
    if (!(c == '\t' || (c >= 0x20 && c <= 0x7e))) plain = false;
  if (plain || s.empty()) return std::string(s);
  return "=?base64?" + base64(s) + "?=";
}

std::string error_line(const json::value& id, int code, std::string_view message) {
  json::object o{{"jsonrpc", "2.0"},
                 {"id", id},
                 {"error", json::object{{"code", code}, {"message", json::string(message)}}}};
  return json::serialize(o) + "\n";
}

bool is_jsonrpc(const json::value& v) {
  const json::object* o = v.if_object();
  if (!o) return false;
  const json::value* j = o->if_contains("jsonrpc");
  return j && j->is_string() && j->get_string() == "2.0";
}

std::optional<std::string> as_line(std::string_view text, json::value* parsed) {
  boost::system::error_code ec;
  json::value v = json::parse(text, ec);
  if (ec) return std::nullopt;
  std::string line = text.find_first_of("\r\n") == std::string_view::npos ? std::string(text) : json::serialize(v);
  // Leading and trailing white space is allowed around JSON, not in a line.
  while (!line.empty() && (line.back() == ' ' || line.back() == '\t')) line.pop_back();
  line.erase(0, line.find_first_not_of(" \t"));
  line += '\n';
  if (parsed) *parsed = std::move(v);
  return line;
}

std::optional<std::string> SseReader::end_line() {
  std::string line = std::move(line_);
  line_.clear();
  if (line.empty()) {
    if (!has_data_) return std::nullopt;
    std::string data = std::move(data_);
    data_.clear();
    has_data_ = false;
    if (!data.empty() && data.back() == '\n') data.pop_back();
    return data;
  }
  if (line.front() == ':') return std::nullopt;  // a comment (a keep-alive)
  const std::size_t colon = line.find(':');
  const std::string_view field = std::string_view(line).substr(0, colon);
  if (field != "data") return std::nullopt;  // event, id, retry: nothing the bridge uses
  std::string_view value = colon == std::string::npos ? std::string_view() : std::string_view(line).substr(colon + 1);
  if (value.starts_with(' ')) value.remove_prefix(1);
  data_.append(value);
  data_ += '\n';
  has_data_ = true;
  return std::nullopt;
}

}  // namespace cli::bridge
