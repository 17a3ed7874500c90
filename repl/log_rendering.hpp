// A log read's entries rendered off the worker thread (on a RenderThread),
// within a time budget: the reply takes what is rendered when the rendering
// ends or the budget passes, and every other entry as escaped plain text
// ("rendered": false). cmark-gfm 0.29.0.gfm.6 takes time quadratic in some
// inputs (a wide table header, runs of "![[]()"), so no entry over
// render_entry_bytes is handed to it, and a rendering abandoned at the
// budget stops at the end of the entry it is in.
#pragma once

#include "repl/log_render.hpp"

#include <atomic>
#include <boost/json/object.hpp>

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace repl {

// The larger entries are sent as plain text, never rendered.
inline constexpr std::size_t render_entry_bytes = 64 * 1024;

// A log read, its entries not yet rendered (Repl::log_tail).
struct LogTail {
  std::string page, log;
  std::uint64_t size = 0;
  LogRead read;
};

class LogRendering {
 public:
  explicit LogRendering(std::vector<LogEntry> entries);

  // On the render thread: each entry's HTML, the newest first, until
  // abandoned or `stopping` (the render thread's end).
  void run(const std::atomic<bool>& stopping);
  // Abandons the rendering: each entry's HTML, nullopt for those not
  // rendered (yet, or ever). Any thread.
  std::vector<std::optional<std::string>> take();
  const std::vector<LogEntry>& entries() const { return entries_; }

 private:
  const std::vector<LogEntry> entries_;
  std::mutex mutex_;
  std::vector<std::optional<std::string>> html_;
  bool abandoned_ = false;
};

// The log op's reply: {"page", "log", "size", "entries", "next_before"},
// an entry with no HTML (nullopt) as plain text.
boost::json::object log_json(const LogTail& tail, const std::vector<LogEntry>& entries,
                             const std::vector<std::optional<std::string>>& html);

}  // namespace repl
