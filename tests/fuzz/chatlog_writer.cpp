// The gateway's own changes to a chat log someone left as the input's text:
// ChatLog's appends and replacements (through the edit engine, on disk in a
// tmpfs workspace) land as asked or fail with a named error, what they
// report is what is on disk, and a failed one changes nothing. Slow by
// nature (files are written per input); the reader and lint are the
// chatlog target.
#include "check.hpp"
#include "repl/chatlog.hpp"
#include "repl/format.hpp"

#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>

namespace {

std::string g_root;

int remove_entry(const char* path, const struct stat*, int, struct FTW*) { return ::remove(path); }
void remove_root() {
  if (!g_root.empty()) ::nftw(g_root.c_str(), remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

const editproto::Workspace& workspace() {
  static const editproto::Workspace ws = [] {
    // tmpfs when there is one: every input writes a log.
    std::string tmpl = (::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp") + std::string("/editgate-fuzz-log-XXXXXX");
    FUZZ_CHECK(::mkdtemp(tmpl.data()) != nullptr);
    g_root = tmpl;
    std::atexit(remove_root);
    FUZZ_CHECK(::mkdir((g_root + "/debug").c_str(), 0755) == 0);
    auto opened = editproto::Workspace::open(g_root);
    FUZZ_CHECK(opened.has_value());
    return std::move(*opened);
  }();
  return ws;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The gateway's own changes to a log someone left as `text`.
void check_writer(std::string_view text, std::size_t pick) {
  const editproto::Workspace& ws = workspace();
  const std::string path = "debug/page-1a2b.md";
  const std::string full = g_root + "/" + path;
  {
    std::ofstream out(full, std::ios::binary | std::ios::trunc);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
  }
  repl::ChatLog log(ws, path);
  auto read = log.read();
  FUZZ_CHECK(read && *read && **read == text);
  log.set_known(std::string(text));

  const repl::Lines added{"", "> **page** to agent at 12:00:00 (1ms)", "```JSON", "1", "```"};
  if (auto done = log.append(added)) {
    FUZZ_CHECK(done->after == read_file(full));
    FUZZ_CHECK(done->before && *done->before == text);
    repl::Lines now = repl::split_lines(done->after);
    for (std::string& l : now)
      if (!l.empty() && l.back() == '\r') l.pop_back();
    FUZZ_CHECK(now.size() >= added.size());
    FUZZ_CHECK(std::equal(added.begin(), added.end(), now.end() - static_cast<std::ptrdiff_t>(added.size())));
    FUZZ_CHECK(log.known() == done->after);
  }

  // Replace a run of the text's own lines.
  repl::Lines lines = repl::split_lines(read_file(full));
  for (std::string& l : lines)
    if (!l.empty() && l.back() == '\r') l.pop_back();
  if (lines.empty()) return;
  const std::size_t first = pick % lines.size();
  const std::size_t count = 1 + (pick / lines.size()) % std::min<std::size_t>(3, lines.size() - first);
  const repl::Lines old(lines.begin() + static_cast<std::ptrdiff_t>(first),
                        lines.begin() + static_cast<std::ptrdiff_t>(first + count));
  const std::string before = read_file(full);
  if (auto done = log.replace(old, {"replaced"})) {
    FUZZ_CHECK(done->after == read_file(full));
    FUZZ_CHECK(done->before && *done->before == before);
  } else {
    FUZZ_CHECK(read_file(full) == before);  // a failed edit changes nothing
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  check_writer(text, size == 0 ? 0 : data[size / 2]);
  return 0;
}
