// The gateway's own changes to a chat log someone left as the input's text:
// ChatLog's appends and replacements (on disk in a tmpfs workspace) land as
// asked or fail with a named error, what they report is what is on disk, a
// failed one changes nothing, and the in-place way (write_tail) leaves the
// very bytes the edit engine's way leaves. Slow by
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

void write_file(const std::string& path, std::string_view text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
}

repl::TailJournal& journal() {
  static repl::TailJournal j = [] {
    auto opened = repl::TailJournal::open(workspace().root() + "/tail-journal");
    FUZZ_CHECK(opened.has_value());
    return std::move(*opened);
  }();
  return j;
}

// One of the gateway's changes made twice: on `a`, whose log may write in
// place, and on `b`, whose log always goes through the edit engine. Both
// must succeed or fail alike and leave the same bytes.
template <class Change>
void both(repl::ChatLog& a, repl::ChatLog& b, const std::string& full_a, const std::string& full_b, Change change) {
  const std::string before = read_file(full_a);
  auto da = change(a);
  auto db = change(b);
  FUZZ_CHECK(da.has_value() == db.has_value());
  FUZZ_CHECK(read_file(full_a) == read_file(full_b));
  if (da) {
    const auto after_a = repl::whole_text(*da, da->after_head, *da->after);
    const auto after_b = repl::whole_text(*db, db->after_head, *db->after);
    FUZZ_CHECK(after_a && *after_a == read_file(full_a));
    FUZZ_CHECK(after_b && *after_a == *after_b);
    const auto before_a = da->before ? repl::whole_text(*da, da->before_head, *da->before) : std::nullopt;
    FUZZ_CHECK(before_a && *before_a == before);
    FUZZ_CHECK(a.is_known(*after_a));
  } else {
    FUZZ_CHECK(read_file(full_a) == before);  // a failed edit changes nothing
  }
}

// The gateway's own changes to a log someone left as `text`.
void check_writer(std::string_view text, std::size_t pick) {
  const editproto::Workspace& ws = workspace();
  const std::string path_a = "debug/page-1a2b.md", path_b = "debug/page-3c4d.md";
  const std::string full_a = g_root + "/" + path_a, full_b = g_root + "/" + path_b;
  write_file(full_a, text);
  write_file(full_b, text);
  repl::ChatLog a(ws, path_a, &journal()), b(ws, path_b);
  auto read = a.read();
  FUZZ_CHECK(read && *read && **read == text);
  a.set_known(std::string(text));
  b.set_known(std::string(text));

  const repl::Lines added{"", "> **page** to agent at 12:00:00 (1ms)", "```JSON", "1", "```"};
  both(a, b, full_a, full_b, [&](repl::ChatLog& log) { return log.append(added); });
  repl::Lines now = repl::split_lines(read_file(full_a));
  for (std::string& l : now)
    if (!l.empty() && l.back() == '\r') l.pop_back();
  if (now.empty()) return;

  // Replace a run of the text's own lines, then the lines just added by
  // others (the reply under its request), with a blank line after.
  const std::size_t first = pick % now.size();
  const std::size_t count = 1 + (pick / now.size()) % std::min<std::size_t>(3, now.size() - first);
  const repl::Lines old(now.begin() + static_cast<std::ptrdiff_t>(first),
                        now.begin() + static_cast<std::ptrdiff_t>(first + count));
  both(a, b, full_a, full_b, [&](repl::ChatLog& log) { return log.replace(old, {"replaced"}, pick % 2 == 0); });
  both(a, b, full_a, full_b, [&](repl::ChatLog& log) { return log.replace({"```JSON", "1"}, {"```JSON", "2", ""}, true); });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  check_writer(text, size == 0 ? 0 : data[size / 2]);
  return 0;
}
