#include "repl/read_at.hpp"

#include <cerrno>
#include <cstring>
#include <unistd.h>

namespace repl {

Result<std::string> read_at(int fd, std::uint64_t at, std::size_t n, std::string_view what) {
  std::string out(n, '\0');
  std::size_t got = 0;
  while (got < n) {
    const ssize_t r = ::pread(fd, out.data() + got, n - got, static_cast<off_t>(at + got));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return Failure{Error::io, "cannot read " + std::string(what) + ": " + std::strerror(errno)};
    if (r == 0) break;
    got += static_cast<std::size_t>(r);
  }
  out.resize(got);
  return out;
}

}  // namespace repl
