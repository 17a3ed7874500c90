#include "repl/transcript.hpp"

#include "repl/names.hpp"
#include "repl/page_input.hpp"
#include "repl/page_state.hpp"

#include <boost/json/value.hpp>

#include <algorithm>

namespace repl {

namespace json = boost::json;

std::string dropped_note(std::size_t n, const Options& o) {
  return "(" + std::to_string(n) + " more events were not kept: past " + std::to_string(o.max_events_kept) +
         " events or " + std::to_string(o.max_event_bytes_kept / 1024) + " KiB of output they are only counted)";
}

Lines reply_block(std::string header, Lines body, const std::vector<Event>& events, std::size_t dropped,
                  const Options& bounds) {
  Lines out{std::move(header)};
  for (std::string& l : body) out.push_back(std::move(l));
  for (std::string& l : render_events(events)) out.push_back(std::move(l));
  if (dropped) out.push_back(dropped_note(dropped, bounds));
  return out;
}

std::string result_text(const json::object& msg) {
  const json::value* v = msg.if_contains("value");
  return pretty_json(v ? *v : json::value(json::object{{"$undefined", true}}));
}

Lines error_block(const json::object& msg) {
  const json::object* err =
      msg.if_contains("error") && msg.at("error").is_object() ? &msg.at("error").get_object() : nullptr;
  std::string name = err ? str(*err, "name") : "", message = err ? str(*err, "message") : "",
              stack = err ? str(*err, "stack") : "";
  std::string text = !stack.empty() ? stack : (name.empty() ? "Error" : name) + ": " + message;
  if (!stack.empty() && stack.find(message) == std::string::npos) text = name + ": " + message + "\n" + stack;
  return fenced("Error", clean_page_text(text));
}

Lines archived_value(const std::string& text, const std::string& file) {
  std::string head = text.substr(0, 1000);
  while (!head.empty() && (static_cast<unsigned char>(head.back()) & 0xC0) == 0x80) head.pop_back();
  if (!head.empty() && static_cast<unsigned char>(head.back()) >= 0xC0) head.pop_back();
  Lines out{"The result is " + std::to_string(text.size()) + " bytes of JSON, in [" + file + "](../" + file +
            "); it begins:"};
  for (std::string& l : fenced("Text", clean_page_text(head + "\n…"))) out.push_back(std::move(l));
  return out;
}

std::string late_header(std::string_view page, std::string_view agent, std::string_view clock, bool ok,
                        std::int64_t after_ms) {
  return reply_header(page, agent, clock,
                      std::string(ok ? "" : "**ERROR** ") + "late, " + duration_text(static_cast<double>(after_ms)) +
                          " after the request");
}

Lines interrupted_reply(const Header& h, std::string_view now) {
  Lines out{reply_header(h.from, h.to, h.clock, "**ERROR** interrupted")};
  for (std::string& l : fenced("Error", "interrupted: the gateway stopped while this job ran (found when it started "
                                        "again at " + std::string(now) +
                                            "); a result the page sent after that was not recorded"))
    out.push_back(std::move(l));
  return out;
}

bool is_placeholder(std::string_view l) {
  if (!l.starts_with("executing (") || l.size() < 14 || !l.ends_with("s)")) return false;
  return std::all_of(l.begin() + 11, l.end() - 2, [](char c) { return c >= '0' && c <= '9'; });
}

std::string events_log_text(const std::vector<Event>& events) {
  std::string out;
  for (const Event& e : events) {
    out += clock_text_ms(e.ts) + " " + e.source + ": ";
    Lines lines = split_lines(clean_page_text(e.text));
    for (std::size_t i = 0; i < lines.size(); ++i) out += (i ? "    " : "") + lines[i] + "\n";
    if (lines.empty()) out += "\n";
  }
  return out;
}

}  // namespace repl
