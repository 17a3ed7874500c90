#include "repl/registry_file.hpp"

#include "repl/log.hpp"

#include <span>
#include <string>
#include <string_view>

namespace repl {

RegistryFile::RegistryFile(const editproto::Workspace& ws, boost::asio::any_io_executor ex, std::size_t max_disconnected,
                           Source source, std::chrono::milliseconds delay)
    : ws_(ws), max_disconnected_(max_disconnected), source_(std::move(source)), delay_(delay), timer_(std::move(ex)) {}

void RegistryFile::changed() {
  if (pending_) return;
  pending_ = true;
  timer_.expires_after(delay_);
  timer_.async_wait([this](boost::system::error_code ec) {
    if (ec) return;
    pending_ = false;
    write();
  });
}

void RegistryFile::write() {
  const std::string text = registry_text(source_(), max_live, max_disconnected_);
  const std::string_view bytes = text;
  if (auto w = ws_.write_atomic("debug.md", std::span<const std::string_view>(&bytes, 1)); !w)
    log_line("cannot write debug.md: " + w.error().detail);
}

void RegistryFile::stop() {
  timer_.cancel();
}

}  // namespace repl
