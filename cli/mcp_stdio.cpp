#include "cli/mcp_stdio.hpp"

#include "cli/mcp_wire.hpp"

#include <unistd.h>

#include <cerrno>
#include <thread>
#include <vector>

namespace cli::bridge {

void InputGate::enter() {
  std::unique_lock lock(m_);
  cv_.wait(lock, [this] { return pending_ < max_; });
  ++pending_;
}

void InputGate::leave() {
  {
    std::lock_guard lock(m_);
    --pending_;
  }
  cv_.notify_one();
}

namespace {

void read_lines(int fd, const std::shared_ptr<InputGate>& gate, const std::function<void(InputEvent)>& deliver) {
  auto hand = [&](InputEvent e) {
    gate->enter();
    deliver(std::move(e));
  };
  std::vector<char> buf(1 << 16);
  std::string line;
  bool skipping = false;  // the rest of a line already refused as too long
  for (;;) {
    const ssize_t n = ::read(fd, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    std::string_view in(buf.data(), static_cast<std::size_t>(n));
    while (!in.empty()) {
      const std::size_t nl = in.find('\n');
      const std::string_view piece = in.substr(0, nl);
      if (!skipping) {
        if (line.size() + piece.size() > max_message_bytes) {
          hand({InputEvent::too_long, {}});
          line.clear();
          line.shrink_to_fit();
          skipping = true;
        } else {
          line.append(piece);
        }
      }
      if (nl == std::string_view::npos) break;
      in.remove_prefix(nl + 1);
      if (!skipping) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        hand({InputEvent::line, std::move(line)});
      }
      line.clear();
      skipping = false;
    }
  }
  // A last line without its line end is a line all the same.
  if (!skipping && !line.empty()) hand({InputEvent::line, std::move(line)});
  hand({InputEvent::end, {}});
}

}  // namespace

void start_reader(int fd, std::shared_ptr<InputGate> gate, std::function<void(InputEvent)> deliver) {
  std::thread([fd, gate = std::move(gate), deliver = std::move(deliver)] { read_lines(fd, gate, deliver); }).detach();
}

bool write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

}  // namespace cli::bridge
