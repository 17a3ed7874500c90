#include "repl/log.hpp"

#include <mutex>

namespace repl {

namespace {
LogSink& sink() {
  static LogSink s;
  return s;
}
std::mutex& lock() {
  static std::mutex m;
  return m;
}
}  // namespace

void set_log_sink(LogSink s) {
  const std::lock_guard<std::mutex> hold(lock());
  sink() = std::move(s);
}

void log_line(std::string_view line) {
  const std::lock_guard<std::mutex> hold(lock());
  if (sink()) sink()(line);
}

}  // namespace repl
