#include "mcp/result_text.hpp"

#include "repl/format.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <initializer_list>
#include <utility>

namespace mcp {

namespace json = boost::json;

namespace {

bool says_nothing(const json::value& v) {
  return v.is_null() || (v.is_string() && v.get_string().empty()) || (v.is_array() && v.get_array().empty()) ||
         (v.is_object() && v.get_object().empty());
}

bool several_lines(const json::value& v) { return v.is_string() && v.get_string().find('\n') != json::string::npos; }

bool scalar(const json::value& v) { return !v.is_object() && !v.is_array(); }

std::string scalar_text(const json::value& v) {
  return v.is_string() ? std::string(v.get_string()) : json::serialize(v);
}

// `text`'s lines, each after `pad`, the last one ended.
void block(std::string& out, std::string_view text, const std::string& pad) {
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    out += pad;
    out += text.substr(0, end);
    out += '\n';
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
  }
}

void value_at(std::string& out, const json::value& v, std::size_t indent);

void fields(std::string& out, const json::object& o, std::size_t indent,
            std::initializer_list<std::string_view> shown = {}) {
  const std::string pad(indent, ' ');
  for (const auto& kv : o) {
    const std::string_view key(kv.key().data(), kv.key().size());
    if (says_nothing(kv.value()) || std::find(shown.begin(), shown.end(), key) != shown.end()) continue;
    const json::value& v = kv.value();
    out += pad + std::string(kv.key()) + ":";
    const bool short_list = v.is_array() && std::all_of(v.get_array().begin(), v.get_array().end(), [](auto& e) {
      return scalar(e) && !several_lines(e);
    });
    if (short_list) {
      std::string sep = " ";
      for (const json::value& e : v.get_array()) out += std::exchange(sep, ", ") + scalar_text(e);
      out += '\n';
    } else if (scalar(v) && !several_lines(v)) {
      out += " " + scalar_text(v) + "\n";
    } else {
      out += '\n';
      value_at(out, v, indent + 2);
    }
  }
}

// A value on lines of its own, at `indent`.
void value_at(std::string& out, const json::value& v, std::size_t indent) {
  const std::string pad(indent, ' ');
  if (v.is_object()) return fields(out, v.get_object(), indent);
  if (!v.is_array()) return block(out, scalar_text(v), pad);
  for (const json::value& e : v.get_array()) {
    // An item's first line carries its dash; the rest line up after it.
    std::string item;
    value_at(item, e, indent + 2);
    if (item.empty()) item = pad + "  " + scalar_text(e) + "\n";
    item.replace(indent, 2, "- ");
    out += item;
  }
}

std::string str(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

// What code run in a page answered: its output as printed, then its error
// (with the stack when the page gave one) or its value, then the rest.
void eval_text(std::string& out, const json::object& o) {
  std::string printed = str(o, "output");
  if (printed.empty())
    if (const json::value* lines = o.if_contains("out"); lines && lines->is_array())
      for (const json::value& m : lines->get_array())
        if (m.is_object()) printed += str(m.get_object(), "out");
  if (!printed.empty() && printed.back() != '\n') printed += '\n';
  out += printed;
  if (const json::value* e = o.if_contains("exception"); e && e->is_object()) {
    // A stack begins with the error's own "Name: message", which the error line said.
    const std::string whole = str(e->get_object(), "stack");
    std::string_view stack = whole;
    const std::string said = str(o, "message");
    if (!said.empty() && stack.starts_with(said + "\n")) stack.remove_prefix(said.size() + 1);
    if (!stack.empty()) block(out, stack, "");
  } else if (const json::value* v = o.if_contains("value"); v && !o.contains("error")) {
    out += repl::pretty_json(*v) + "\n";
  }
  fields(out, o, 0, {"error", "message", "output", "out", "exception", "value"});
}

}  // namespace

std::string outline(const json::value& v) {
  std::string out;
  value_at(out, v, 0);
  return out;
}

std::string result_text(const json::object& o, TextStyle style) {
  std::string out;
  if (const std::string code = str(o, "error"); !code.empty()) {
    const std::string message = str(o, "message");
    out += "error " + code + (message.empty() ? "" : ": " + message) + "\n";
  }
  if (style == TextStyle::eval) {
    eval_text(out, o);
  } else if (const std::string text = str(o, "text"); !text.empty()) {
    // The report already says every block's result and the commit; the
    // fields beside it repeat it for programs.
    out += text;
    if (out.back() != '\n') out += '\n';
    json::object named;
    for (std::string_view k : {"unknown", "unknown_more"})
      if (const json::value* v = o.if_contains(k)) named[k] = *v;
    fields(out, named, 0);
  } else {
    fields(out, o, 0, {"error", "message"});
  }
  if (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

}  // namespace mcp
