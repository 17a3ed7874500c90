#include "repl/log_rendering.hpp"

#include "editproto/unicode.hpp"

#include <boost/json.hpp>

#include <utility>

namespace repl {

namespace json = boost::json;

LogRendering::LogRendering(std::vector<LogEntry> entries)
    : entries_(std::move(entries)), html_(entries_.size()) {}

void LogRendering::run(const std::atomic<bool>& stopping) {
  // Newest first: a person reads a log from its end, and a slow old entry
  // must not leave the new ones as plain text.
  for (std::size_t i = entries_.size(); i-- > 0;) {
    {
      std::lock_guard lock(mutex_);
      if (abandoned_ || stopping) return;
    }
    if (entries_[i].text.size() > render_entry_bytes) continue;
    std::string html = render_markdown_safe(entries_[i].text);
    std::lock_guard lock(mutex_);
    if (abandoned_) return;
    html_[i] = std::move(html);
  }
}

std::vector<std::optional<std::string>> LogRendering::take() {
  std::lock_guard lock(mutex_);
  abandoned_ = true;
  return std::move(html_);
}

json::object log_json(const LogTail& tail, const std::vector<LogEntry>& entries,
                      const std::vector<std::optional<std::string>>& html) {
  json::array out;
  for (std::size_t i = 0; i < entries.size(); ++i)
    out.push_back(entry_json(entries[i], i < html.size() ? html[i] : std::nullopt));
  json::object o{{"page", tail.page}, {"log", tail.log}, {"size", tail.size}, {"entries", std::move(out)}};
  o["next_before"] = tail.read.next_before ? json::value(*tail.read.next_before) : json::value(nullptr);
  return o;
}

}  // namespace repl
