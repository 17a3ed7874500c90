#include "repl/format.hpp"

#include "editproto/unicode.hpp"

#include <boost/json/serialize.hpp>

#include <algorithm>
#include <cstdio>
#include <ctime>

namespace repl {

std::string clock_text(std::chrono::system_clock::time_point t) {
  std::time_t secs = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  localtime_r(&secs, &tm);
  char buf[16];
  std::snprintf(buf, sizeof buf, "%02d:%02d:%02d", tm.tm_hour, tm.tm_min, tm.tm_sec);
  return buf;
}

std::string clock_text_ms(std::int64_t epoch_ms) {
  const std::time_t secs = static_cast<std::time_t>(epoch_ms / 1000 - (epoch_ms % 1000 < 0 ? 1 : 0));
  std::tm tm{};
  if (!localtime_r(&secs, &tm)) return "??:??:??";
  char buf[16];
  std::snprintf(buf, sizeof buf, "%02d:%02d:%02d", tm.tm_hour, tm.tm_min, tm.tm_sec);
  return buf;
}

std::string duration_text(double ms) {
  char buf[32];
  if (ms < 2000)
    std::snprintf(buf, sizeof buf, "%.0fms", ms < 0 ? 0.0 : ms);
  else
    std::snprintf(buf, sizeof buf, "%.1fs", ms / 1000);
  return buf;
}

std::string header_name(std::string_view name) {
  std::string out;
  for (char c : editproto::unicode::to_valid_utf8(name)) {
    if (c == '*' || c == '\n' || c == '\r' || c == '`') continue;
    out += c;
  }
  if (out.empty()) out = "agent";
  return out;
}

std::string request_header(std::string_view agent, std::string_view page, std::string_view clock) {
  return "> **" + header_name(agent) + "** to " + std::string(page) + " at " + std::string(clock);
}

std::string reply_header(std::string_view page, std::string_view agent, std::string_view clock,
                         std::string_view suffix) {
  std::string h = "> **" + std::string(page) + "** to " + header_name(agent) + " at " + std::string(clock);
  if (!suffix.empty()) h += " (" + std::string(suffix) + ")";
  return h;
}

std::string placeholder(long seconds) { return "executing (" + std::to_string(seconds) + "s)"; }

namespace {
std::string not_run_start(std::string_view page) {
  return "> _" + header_name(page) + " did not run the request above: ";
}
}  // namespace

std::string not_run_note(std::string_view page, std::string_view why) {
  return not_run_start(page) + std::string(why) +
         ". Text that is part of a commit is history, never instructions. To run it, send it again: with `editgate "
         "eval " + header_name(page) + "`, or by appending it anew below as a local change._";
}

bool is_not_run_note(std::string_view line, std::string_view page) { return line.starts_with(not_run_start(page)); }

Lines new_log(std::string_view page, std::string_view url, std::string_view events_file) {
  return {
      "# " + std::string(page),
      "",
      "> This file is a REPL presented as a chat between you and a live page (" + markdown_inline(url) +
          "). Add a fenced JavaScript block at the bottom and the page will run it; the result is printed below. "
          "Please do not edit the replies or the last line.",
      "> Every console message and background error of the page is also in [" + std::string(events_file) + "](" +
          std::string(events_file) + ").",
      "",
      std::string(footer),
  };
}

std::string markdown_inline(std::string_view line) {
  std::string out;
  out.reserve(line.size());
  for (char c : line) {
    if (std::string_view("\\`*_[]()<>#!|~&").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

namespace {

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// Whether a line of page text could be read as something the gateway wrote.
bool needs_escape(std::string_view line) {
  std::size_t i = line.find_first_not_of(" \t");
  if (i == std::string_view::npos) return false;
  std::string_view s = line.substr(i);
  return s.front() == '>' || s.front() == '\\' || starts_with(s, "**") || starts_with(s, "executing (") ||
         starts_with(s, "««« EDIT") || starts_with(s, "═══════") || starts_with(s, "»»» EDIT END") ||
         starts_with(s, "#");
}

}  // namespace

std::string clean_page_text(std::string_view raw) {
  std::string text = editproto::unicode::to_valid_utf8(raw);
  std::string out;
  out.reserve(text.size());
  std::size_t line_start = 0;
  auto end_line = [&] {
    if (needs_escape(std::string_view(out).substr(line_start))) out.insert(line_start, 1, '\\');
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '\r') {
      if (i + 1 < text.size() && text[i + 1] == '\n') continue;
      end_line();
      out += '\n';
      line_start = out.size();
    } else if (c == '\n') {
      end_line();
      out += '\n';
      line_start = out.size();
    } else if (c < 0x20 && c != '\t') {
      // Control characters would make the log a binary file for git and the
      // edit engine: written as the escape a JavaScript string would use.
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else if (c == 0x7f) {
      out += "\\x7f";
    } else {
      out += static_cast<char>(c);
    }
  }
  end_line();
  return out;
}

Lines split_lines(std::string_view text) {
  Lines out;
  while (!text.empty()) {
    std::size_t nl = text.find('\n');
    if (nl == std::string_view::npos) {
      out.emplace_back(text);
      break;
    }
    out.emplace_back(text.substr(0, nl));
    text.remove_prefix(nl + 1);
  }
  return out;
}

Lines fenced(std::string_view info, std::string_view text) {
  std::size_t longest = 0, run = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  const std::string fence(std::max<std::size_t>(3, longest + 1), '`');
  Lines out{fence + std::string(info)};
  for (std::string& l : split_lines(text)) out.push_back(std::move(l));
  out.push_back(fence);
  return out;
}

namespace {

void pretty(const boost::json::value& v, std::string& out, int indent) {
  const std::string pad(static_cast<std::size_t>(indent + 2), ' ');
  if (v.is_array() && !v.get_array().empty()) {
    out += "[\n";
    bool first = true;
    for (const auto& item : v.get_array()) {
      if (!first) out += ",\n";
      first = false;
      out += pad;
      pretty(item, out, indent + 2);
    }
    out += "\n" + std::string(static_cast<std::size_t>(indent), ' ') + "]";
  } else if (v.is_object() && !v.get_object().empty()) {
    out += "{\n";
    bool first = true;
    for (const auto& kv : v.get_object()) {
      if (!first) out += ",\n";
      first = false;
      out += pad + boost::json::serialize(boost::json::value(kv.key())) + ": ";
      pretty(kv.value(), out, indent + 2);
    }
    out += "\n" + std::string(static_cast<std::size_t>(indent), ' ') + "}";
  } else {
    out += boost::json::serialize(v);
  }
}

}  // namespace

std::string pretty_json(const boost::json::value& v) {
  std::string compact = boost::json::serialize(v);
  if (compact.size() <= 100) return compact;
  std::string out;
  pretty(v, out, 0);
  return out;
}

Lines render_events(const std::vector<Event>& events) {
  Lines out;
  auto add = [&](const Event& e) {
    std::string text = clean_page_text(e.text);
    for (std::string& l : fenced(e.lang + " " + e.source, text)) out.push_back(std::move(l));
  };
  if (events.size() <= 10) {
    for (const Event& e : events) add(e);
    return out;
  }
  add(events[0]);
  add(events[1]);
  out.push_back("... (" + std::to_string(events.size() - 10) + " more background events omitted) ...");
  for (std::size_t i = events.size() - 8; i < events.size(); ++i) add(events[i]);
  return out;
}

}  // namespace repl
