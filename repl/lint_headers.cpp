#include "repl/lint_headers.hpp"

#include "repl/markdown.hpp"
#include "repl/names.hpp"

#include <algorithm>
#include <cctype>

namespace repl::lint {

namespace {

bool digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// Whether `s` holds something like a time ("25:61", "12:00:00").
bool clock_like(std::string_view s) {
  for (std::size_t i = 1; i + 1 < s.size(); ++i)
    if (s[i] == ':' && digit(s[i - 1]) && digit(s[i + 1])) return true;
  return false;
}

// Only digits and colons, with a colon: a clock, right or wrong.
bool only_clock(std::string_view s) {
  return clock_like(s) && std::all_of(s.begin(), s.end(), [](char c) { return digit(c) || c == ':'; });
}

// Why `c` is not a time of day as HH:MM:SS; empty when it is one.
std::string clock_problem(std::string_view c) {
  if (!(c.size() == 8 && digit(c[0]) && digit(c[1]) && c[2] == ':' && digit(c[3]) && digit(c[4]) && c[5] == ':' &&
        digit(c[6]) && digit(c[7])))
    return "'" + std::string(c) + "' is not a time written HH:MM:SS";
  const int h = (c[0] - '0') * 10 + (c[1] - '0'), m = (c[3] - '0') * 10 + (c[4] - '0'),
            s = (c[6] - '0') * 10 + (c[7] - '0');
  if (h > 23 || m > 59 || s > 59)
    return std::string(c) + " is not a time of day (hours 00-23, minutes and seconds 00-59)";
  return {};
}

HeadParse bad(std::string why) { return HeadParse{std::nullopt, std::move(why)}; }

// What follows "**name** to " in `r`: the addressee, then nothing (a
// header without a time), a "(...)" suffix or the late form's clock, or
// " at HH:MM:SS" with an optional suffix.
HeadParse read_to(Head h, std::string_view r) {
  const std::size_t end = r.find_first_of(" (");
  const std::string_view to = r.substr(0, end);
  const std::string_view after = trim(end == npos ? std::string_view() : r.substr(end));
  if (to.empty()) return clock_like(r) ? bad("there is no name after ' to '") : HeadParse{};
  h.to = std::string(to);
  if (after.empty()) {
    h.bare = true;
    return {h, {}};
  }
  if (after.front() == '(') {
    if (after.back() != ')')
      return clock_like(after) ? bad("the '(' after '" + h.to + "' is never closed") : HeadParse{};
    const std::string_view inner = trim(after.substr(1, after.size() - 2));
    if (only_clock(inner)) {  // the late form
      if (std::string why = clock_problem(inner); !why.empty()) return bad(why);
      h.clock = std::string(inner);
      h.time = seconds_of(inner);
      h.late_form = true;
      return {h, {}};
    }
    h.suffix = std::string(inner);
    h.bare = true;
    return {h, {}};
  }
  if (starts_with(after, "at ") || after == "at") {
    const std::string_view c = trim(after.substr(2));
    const std::size_t ce = c.find_first_of(" (");
    const std::string_view clock = c.substr(0, ce);
    const std::string_view tail = trim(ce == npos ? std::string_view() : c.substr(ce));
    if (clock.empty()) return bad("there is no time after ' at '");
    if (std::string why = clock_problem(clock); !why.empty()) return bad(why);
    if (!tail.empty() && !(tail.front() == '(' && tail.back() == ')'))
      return bad("'" + std::string(tail) + "' after the time is not a '(...)' suffix such as '(17ms)'");
    h.clock = std::string(clock);
    h.time = seconds_of(clock);
    if (!tail.empty()) h.suffix = std::string(tail.substr(1, tail.size() - 2));
    return {h, {}};
  }
  const std::size_t at = r.find(" at ");
  if (at != npos || clock_like(r))
    return bad("'" + std::string(r.substr(0, at)) +
               "' after ' to ' is not one name: page and agent names hold no spaces");
  return {};  // "**Tip** to avoid this, ..."
}

}  // namespace

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

int seconds_of(std::string_view c) {
  return ((c[0] - '0') * 10 + (c[1] - '0')) * 3600 + ((c[3] - '0') * 10 + (c[4] - '0')) * 60 + (c[6] - '0') * 10 +
         (c[7] - '0');
}

std::string lines_list(const std::vector<std::size_t>& lines) {
  std::string out;
  for (std::size_t l : lines) out += (out.empty() ? "" : ", ") + std::to_string(l + 1);
  return out;
}

bool names_instance(std::string_view file) {
  if (!file.ends_with(".md")) return false;
  file.remove_suffix(3);
  const std::size_t dash = file.rfind('-');
  return dash != npos && dash > 0 && valid_id(file.substr(dash + 1));
}

bool same_page(std::string_view a, std::string_view b) {
  if (a.empty() || b.empty()) return false;
  if (a.size() > b.size()) std::swap(a, b);
  return a == b || (starts_with(b, a) && b[a.size()] == '-');
}

HeadParse read_header(std::string_view raw) {
  std::string_view s = trim(raw);
  if (starts_with(s, ">")) s = trim(s.substr(1));
  if (!starts_with(s, "**")) return {};
  const std::size_t close = s.find("**", 2);
  if (close == npos || close == 2) return {};
  const std::string name(s.substr(2, close - 2));
  const std::string_view rest = s.substr(close + 2);

  Head h;
  h.from = name;
  if (auto p = parse_header(raw)) {  // the form the gateway writes and reads
    if (std::string why = clock_problem(p->clock); !why.empty()) return bad(why);
    h.to = p->to;
    h.clock = p->clock;
    h.suffix = p->suffix;
    h.time = seconds_of(p->clock);
    return {h, {}};
  }
  if (starts_with(rest, " background")) {
    std::string_view r = rest.substr(11);
    if (!starts_with(r, " at ")) return bad("'background' is not followed by ' at HH:MM:SS'");
    std::string_view c = trim(r.substr(4));
    if (std::string why = clock_problem(c); !why.empty()) return bad(why);
    h.background = true;
    h.clock = std::string(c);
    h.time = seconds_of(c);
    return {h, {}};
  }
  if (!starts_with(rest, " to ")) {
    if (clock_like(rest)) return bad("there is no ' to <name>' after **" + name + "**");
    return {};  // bold text in prose
  }
  return read_to(std::move(h), trim(rest.substr(4)));
}

bool is_placeholder(std::string_view line) {
  line = trim(line);
  if (!starts_with(line, "executing")) return false;
  return line.size() == 9 || line[9] == ' ' || line[9] == '(' || line[9] == '.';
}

bool is_omitted(std::string_view line) {
  line = trim(line);
  return starts_with(line, "... (") && line.find("omitted) ...") != npos;
}

}  // namespace repl::lint
