#include "repl/tail_journal.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

namespace repl {

namespace {

constexpr std::string_view magic = "editgate tail journal 1\n";
constexpr std::size_t max_path = 4096;

// FNV-1a, 64 bits: enough to tell a record the crash cut short from a whole one.
std::uint64_t fnv(std::string_view bytes, std::uint64_t h = 14695981039346656037ull) {
  for (unsigned char c : bytes) h = (h ^ c) * 1099511628211ull;
  return h;
}

void put(std::string& out, std::uint64_t v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); }

bool take(std::string_view& in, std::uint64_t& v) {
  if (in.size() < sizeof v) return false;
  std::memcpy(&v, in.data(), sizeof v);
  in.remove_prefix(sizeof v);
  return true;
}

struct Record {
  std::string path;
  std::size_t offset = 0;
  std::string old_tail, new_tail;
};

// The record in `bytes`, or nullopt when there is none or it is not whole.
std::optional<Record> parse(std::string_view bytes) {
  if (!bytes.starts_with(magic)) return std::nullopt;
  bytes.remove_prefix(magic.size());
  std::uint64_t path_len, offset, old_len, new_len, sum;
  if (!take(bytes, path_len) || !take(bytes, offset) || !take(bytes, old_len) || !take(bytes, new_len) ||
      !take(bytes, sum))
    return std::nullopt;
  if (path_len > max_path || old_len + new_len > TailJournal::max_record_bytes ||
      bytes.size() < path_len + old_len + new_len)
    return std::nullopt;
  Record r{std::string(bytes.substr(0, path_len)), offset, std::string(bytes.substr(path_len, old_len)),
           std::string(bytes.substr(path_len + old_len, new_len))};
  std::string numbers;
  for (std::uint64_t v : {path_len, offset, old_len, new_len}) put(numbers, v);
  if (fnv(r.new_tail, fnv(r.old_tail, fnv(r.path, fnv(numbers)))) != sum) return std::nullopt;
  return r;
}

Failure io(const std::string& what, int err) { return Failure{Error::io, what + ": " + std::strerror(err)}; }

}  // namespace

Result<TailJournal> TailJournal::open(const std::string& path) {
  editproto::Fd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (!fd) return io("cannot open the tail journal " + path, errno);
  return TailJournal(std::move(fd));
}

Result<void> TailJournal::record(const std::string& rel, std::size_t offset, std::string_view old_tail,
                                 std::string_view new_tail) {
  if (rel.size() > max_path || old_tail.size() + new_tail.size() > max_record_bytes)
    return Failure{Error::io, "a tail write of " + rel + " too large for the journal"};
  std::string numbers;
  for (std::uint64_t v : {std::uint64_t{rel.size()}, std::uint64_t{offset}, std::uint64_t{old_tail.size()},
                          std::uint64_t{new_tail.size()}})
    put(numbers, v);
  std::string out(magic);
  out += numbers;
  put(out, fnv(new_tail, fnv(old_tail, fnv(rel, fnv(numbers)))));
  out += rel;
  out += old_tail;
  out += new_tail;
  for (std::size_t at = 0; at < out.size();) {
    ssize_t n = ::pwrite(fd_.get(), out.data() + at, out.size() - at, static_cast<off_t>(at));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return io("cannot write the tail journal", errno);
    at += static_cast<std::size_t>(n);
  }
  return {};
}

Result<TailJournal::Recovery> TailJournal::recover(const editproto::Workspace& ws) {
  std::string bytes(magic.size() + 5 * 8 + max_path + max_record_bytes, '\0');
  std::size_t got = 0;
  for (;;) {
    ssize_t n = ::pread(fd_.get(), bytes.data() + got, bytes.size() - got, static_cast<off_t>(got));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return io("cannot read the tail journal", errno);
    if (n == 0 || (got += static_cast<std::size_t>(n)) == bytes.size()) break;
  }
  bytes.resize(got);
  Recovery out;
  auto clear = [&]() -> Result<Recovery> {
    if (::ftruncate(fd_.get(), 0) != 0) return io("cannot clear the tail journal", errno);
    return out;
  };
  auto r = parse(bytes);
  if (!r) return clear();
  out.path = r->path;
  // Read, then closed: the write below needs nobody to have the file open.
  std::size_t size = 0, read = 0;
  std::string tail;
  {
    auto opened = ws.open_read(r->path);
    if (!opened || !opened->fd) {
      out.found = Found::changed_since;
      return clear();
    }
    size = static_cast<std::size_t>(opened->stamp.size);
    tail.assign(size >= r->offset ? size - r->offset : 0, '\0');
    while (size >= r->offset && read < tail.size()) {
      ssize_t n = ::pread(opened->fd.get(), tail.data() + read, tail.size() - read, static_cast<off_t>(r->offset + read));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      read += static_cast<std::size_t>(n);
    }
  }
  if (size < r->offset || read != tail.size()) {
    out.found = Found::changed_since;
    return clear();
  }
  if (tail == r->new_tail || tail == r->old_tail) {
    out.found = Found::complete;
    return clear();
  }
  // Torn: the new tail's first m bytes over the old tail, whose rest is
  // still there (or, past the old end, nothing).
  std::size_t m = 0;
  while (m < tail.size() && m < r->new_tail.size() && tail[m] == r->new_tail[m]) ++m;
  std::string torn = r->new_tail.substr(0, m);
  if (m < r->old_tail.size()) torn += std::string_view(r->old_tail).substr(m);
  if (tail != torn) {
    out.found = Found::changed_since;
    return clear();
  }
  auto w = ws.write_tail(r->path, r->offset, tail, r->new_tail);
  if (!w) return Failure{Error::io, "cannot finish the torn write of " + r->path + ": " + w.error().detail};
  if (w->outcome == editproto::Workspace::Tail::unavailable)  // kept for the next start
    return Failure{Error::io, "cannot finish the torn write of " + r->path + ": another program has it open"};
  out.found = w->outcome == editproto::Workspace::Tail::written ? Found::repaired : Found::changed_since;
  return clear();
}

}  // namespace repl
