#include "repl/headlines.hpp"

#include <boost/json/serialize.hpp>

namespace repl {

namespace {
constexpr std::size_t max_chars = 48;

// At most max_chars characters of `text` on one line, escaped; true when cut.
bool shorten(std::string_view text, std::string& out) {
  std::size_t chars = 0;
  for (unsigned char c : text) {
    const bool starts = (c & 0xc0) != 0x80;  // the first byte of a character
    if (starts && chars == max_chars) return true;
    if (starts) ++chars;
    if (c < 0x20 || c == 0x7f) {
      static const char* hex = "0123456789abcdef";
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += c == '`' ? '\'' : static_cast<char>(c);
    }
  }
  return false;
}
}  // namespace

std::string code_headline(const std::string& code) {
  std::string_view first = code;
  auto blank = [](char c) { return c == '\n' || c == '\r' || c == ' ' || c == '\t'; };
  while (!first.empty() && blank(first.front())) first.remove_prefix(1);
  while (!first.empty() && blank(first.back())) first.remove_suffix(1);
  bool cut = first.find('\n') != std::string_view::npos;
  first = first.substr(0, first.find('\n'));
  std::string out;
  if (shorten(first, out)) cut = true;
  return "`" + out + (cut ? "…" : "") + "`";
}


std::string outcome_headline(const Answer& done) {
  if (done.failure) {
    if (const auto* ex = done.body.if_contains("exception"); ex && ex->is_object())
      if (const auto* name = ex->as_object().if_contains("name"); name && name->is_string() && !name->as_string().empty()) {
        std::string out;
        shorten(std::string_view(name->as_string()), out);
        return out;
      }
    return std::string(to_string(done.failure->code));
  }
  const auto* v = done.body.if_contains("value");
  if (!v) return "→ done";
  if (v->is_object() && v->as_object().contains("$undefined")) return "→ undefined";
  std::string out = "→ ";
  if (shorten(boost::json::serialize(*v), out)) out += "…";
  return out;
}

}  // namespace repl
