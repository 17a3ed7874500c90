#include "repl/log.hpp"
#include "repl/page_keys.hpp"

#include "repl/names.hpp"
#include "repl/secrets.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <fstream>
#include <iostream>
#include <sstream>

namespace repl {

PageKeys::PageKeys(std::string file, const std::function<bool(const std::string& id)>& keep) : file_(std::move(file)) {
  if (file_.empty()) return;
  std::ifstream in(file_);
  std::string line;
  std::size_t lines = 0;
  while (std::getline(in, line)) {
    ++lines;
    std::istringstream fields(line);
    std::string id, kind, hash;
    if (fields >> id >> kind >> hash && valid_id(id) && hash.size() == 64 && (!keep || keep(id)))
      keys_[id] = Key{kind, hash};
  }
  if (lines == keys_.size()) return;
  // Rewritten without the dropped lines: a temp file renamed over it.
  std::string text;
  for (const auto& [id, key] : keys_) text += id + " " + key.kind + " " + key.hash + "\n";
  const std::string temp = file_ + ".tmp";
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  const bool ok = fd >= 0 && ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()) &&
                  ::fsync(fd) == 0;
  if (fd >= 0) ::close(fd);
  if (!ok || ::rename(temp.c_str(), file_.c_str()) != 0) ::unlink(temp.c_str());
}

std::string PageKeys::issue(const std::string& id, const std::string& kind) {
  std::string secret = random_hex(32);
  Key key{kind, sha256_hex(secret)};
  if (!file_.empty()) {
    const std::string line = id + " " + kind + " " + key.hash + "\n";
    const int fd = ::open(file_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    const bool ok = fd >= 0 && ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size()) &&
                    ::fsync(fd) == 0;
    if (fd >= 0) ::close(fd);
    // The page still gets its id; it just cannot come back to it after a restart.
    if (!ok) log_line("cannot write " + file_ + "; page " + id + " keeps its id until the gateway stops");
  }
  keys_[id] = std::move(key);
  return secret;
}

bool PageKeys::check(const std::string& id, const std::string& kind, std::string_view secret) const {
  // An unknown id is compared with a hash no secret has, so it takes as long.
  static const std::string none(64, '-');
  auto it = keys_.find(id);
  const bool known = it != keys_.end() && it->second.kind == kind;
  const bool same = constant_time_equal(sha256_hex(secret), known ? it->second.hash : none);
  return known && same;
}

}  // namespace repl
