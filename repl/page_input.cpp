#include "repl/page_input.hpp"

#include "editproto/unicode.hpp"

#include <boost/json/array.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/string.hpp>
#include <boost/json/value.hpp>

#include <cmath>
#include <cstdio>

namespace repl {

namespace json = boost::json;

namespace {

// The length of the UTF-8 sequence that starts with `lead` (valid input).
std::size_t sequence_length(unsigned char lead) {
  return lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
}

std::uint32_t code_point(std::string_view s) {
  const auto b = [&](std::size_t i) { return static_cast<std::uint32_t>(static_cast<unsigned char>(s[i])); };
  switch (s.size()) {
    case 1: return b(0);
    case 2: return ((b(0) & 0x1F) << 6) | (b(1) & 0x3F);
    case 3: return ((b(0) & 0x0F) << 12) | ((b(1) & 0x3F) << 6) | (b(2) & 0x3F);
    default: return ((b(0) & 0x07) << 18) | ((b(1) & 0x3F) << 12) | ((b(2) & 0x3F) << 6) | (b(3) & 0x3F);
  }
}

// Characters that break a line, drive a terminal or reorder what is shown.
bool escaped(std::uint32_t c) {
  return c < 0x20 || (c >= 0x7F && c <= 0x9F) || c == 0x2028 || c == 0x2029 || (c >= 0x202A && c <= 0x202E) ||
         (c >= 0x2066 && c <= 0x2069) || c == 0x200E || c == 0x200F || c == 0x061C;
}

// `s` cut to at most `max_bytes` on a character boundary, "…" ending a cut.
std::string cut(std::string s, std::size_t max_bytes) {
  if (s.size() <= max_bytes) return s;
  static constexpr std::string_view ellipsis = "…";
  std::size_t keep = max_bytes > ellipsis.size() ? max_bytes - ellipsis.size() : 0;
  while (keep > 0 && (static_cast<unsigned char>(s[keep]) & 0xC0) == 0x80) --keep;
  s.resize(keep);
  if (max_bytes >= ellipsis.size()) s += ellipsis;
  return s;
}

std::string string_field(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

// An answer to info or docs: the fields the protocol names, each of its
// type and bounded; nothing else.
json::object clean_info(const json::object& raw) {
  json::object out;
  for (std::string_view key : {"found", "native"})
    if (const json::value* v = raw.if_contains(key); v && v->is_bool()) out[key] = v->get_bool();
  if (const json::value* v = raw.if_contains("kind"); v && v->is_string()) out["kind"] = page_line(v->get_string(), page_bounds::word);
  for (std::string_view key : {"signature", "constructor", "description"})
    if (const json::value* v = raw.if_contains(key); v && v->is_string()) out[key] = page_line(v->get_string(), page_bounds::line);
  if (const json::value* v = raw.if_contains("source_head"); v && v->is_string())
    out["source_head"] = page_text(v->get_string(), page_bounds::line);
  if (const json::value* v = raw.if_contains("source_length")) {
    if (v->is_uint64()) out["source_length"] = v->get_uint64();
    if (v->is_int64() && v->get_int64() >= 0) out["source_length"] = static_cast<std::uint64_t>(v->get_int64());
  }
  return out;
}

}  // namespace

std::string page_line(std::string_view raw, std::size_t max_bytes) {
  // Nothing past what can be kept is read: the bound holds for the work too.
  const std::string text = editproto::unicode::to_valid_utf8(raw.substr(0, std::min(raw.size(), 4 * max_bytes + 4)));
  std::string out;
  out.reserve(std::min(text.size(), max_bytes + 8));
  for (std::size_t i = 0; i < text.size() && out.size() <= max_bytes;) {
    const std::size_t n = std::min(sequence_length(static_cast<unsigned char>(text[i])), text.size() - i);
    const std::uint32_t c = code_point(std::string_view(text).substr(i, n));
    if (escaped(c)) {
      char buf[12];
      std::snprintf(buf, sizeof buf, c < 0x100 ? "\\x%02x" : "\\u%04x", static_cast<unsigned>(c));
      out += buf;
    } else {
      out.append(text, i, n);
    }
    i += n;
  }
  return cut(std::move(out), max_bytes);
}

std::string page_text(std::string_view raw, std::size_t max_bytes) {
  return cut(editproto::unicode::to_valid_utf8(raw.substr(0, std::min(raw.size(), max_bytes + 4))), max_bytes);
}

std::optional<std::int64_t> page_time(const json::value& v) {
  if (!v.is_number()) return std::nullopt;
  const double ms = v.is_double() ? v.get_double() : v.is_int64() ? static_cast<double>(v.get_int64())
                                                                   : static_cast<double>(v.get_uint64());
  // Checked as a double: a cast of an out-of-range double is undefined.
  if (!std::isfinite(ms) || ms < 0 || ms > page_bounds::latest_ms) return std::nullopt;
  return static_cast<std::int64_t>(ms);
}

// A bindings answer's names with their tagged values (a value over
// page_bounds::binding_bytes is named, not carried), and a clear's names it
// could not delete.
static void clean_bindings(const json::object& raw, json::object& out) {
  if (const json::value* v = raw.if_contains("bindings"); v && v->is_object()) {
    json::object bindings;
    for (const auto& kv : v->get_object()) {
      if (bindings.size() >= page_bounds::bindings) break;
      const std::size_t bytes = json::serialize(kv.value()).size();
      bindings[page_line(kv.key(), page_bounds::name)] =
          bytes <= page_bounds::binding_bytes ? kv.value() : json::value(json::object{{"$cut", bytes}});
    }
    out["bindings"] = std::move(bindings);
  }
  if (const json::value* v = raw.if_contains("more"); v && v->is_number()) out["more"] = v->to_number<double>();
  if (const json::value* v = raw.if_contains("kept"); v && v->is_array()) {
    json::array kept;
    for (const json::value& name : v->get_array())
      if (name.is_string() && kept.size() < page_bounds::bindings)
        kept.push_back(json::string(page_line(name.get_string(), page_bounds::name)));
    out["kept"] = std::move(kept);
  }
}

json::object clean_page_message(json::object raw) {
  json::object out;
  auto line = [&](std::string_view key, std::size_t max) {
    if (const json::value* v = raw.if_contains(key); v && v->is_string()) out[key] = page_line(v->get_string(), max);
  };
  line("type", page_bounds::word);
  line("source", page_bounds::word);
  line("lang", page_bounds::word);
  line("status", page_bounds::word);
  line("message", page_bounds::line);
  line("prompt", page_bounds::line);
  line("kind", page_bounds::word);     // a dialog's
  line("answer", page_bounds::word);   // a dialog's
  line("default", page_bounds::line);  // a prompt dialog's default value
  for (std::string_view key : {"job", "start", "count"}) {
    const json::value* v = raw.if_contains(key);
    if (!v) continue;
    if (v->is_uint64()) out[key] = v->get_uint64();
    if (v->is_int64() && v->get_int64() >= 0) out[key] = static_cast<std::uint64_t>(v->get_int64());
  }
  if (const json::value* v = raw.if_contains("ts"))
    if (auto t = page_time(*v)) out["ts"] = *t;
  if (const json::value* v = raw.if_contains("duration_ms"); v && v->is_number()) {
    const double ms = v->to_number<double>();
    if (std::isfinite(ms) && ms >= 0) out["duration_ms"] = ms;
  }
  for (std::string_view key : {"ok", "open"})
    if (const json::value* v = raw.if_contains(key); v && v->is_bool()) out[key] = v->get_bool();
  // An event's line end: only a newline or none.
  if (const json::value* v = raw.if_contains("end"); v && v->is_string() && (v->get_string() == "\n" || v->get_string().empty()))
    out["end"] = v->get_string();
  if (const json::value* v = raw.if_contains("text"); v && v->is_string())
    out["text"] = page_text(v->get_string(), page_bounds::text);
  if (json::value* v = raw.if_contains("value")) out["value"] = std::move(*v);
  if (const json::value* v = raw.if_contains("error"); v && v->is_object()) {
    const json::object& e = v->get_object();
    json::object error;
    if (e.contains("name")) error["name"] = page_line(string_field(e, "name"), page_bounds::word);
    if (e.contains("message")) error["message"] = page_text(string_field(e, "message"), page_bounds::text);
    if (e.contains("stack")) error["stack"] = page_text(string_field(e, "stack"), page_bounds::text);
    out["error"] = std::move(error);
  }
  if (const json::value* v = raw.if_contains("info"); v && v->is_object()) out["info"] = clean_info(v->get_object());
  if (const json::value* v = raw.if_contains("items"); v && v->is_array()) {
    json::array items;
    for (const json::value& item : v->get_array()) {
      if (items.size() >= page_bounds::items) break;
      if (item.is_string()) items.push_back(json::string(page_line(item.get_string(), page_bounds::line)));
    }
    out["items"] = std::move(items);
  }
  clean_bindings(raw, out);
  return out;
}

}  // namespace repl
