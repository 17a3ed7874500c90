// The chat-log reader, lint and writer: a log's text as an agent or editor
// may leave it. Fences and requests stay inside the text's lines; lint
// answers both log forms with problems on real lines; page text written
// into a log stays inside its one fence; the gateway's appends and
// replacements (ChatLog, through the edit engine) land as asked or fail
// with a named error, and what they report is what is on disk.
#include "check.hpp"
#include "repl/chatlog.hpp"
#include "repl/format.hpp"
#include "repl/lint.hpp"
#include "repl/markdown.hpp"

#include <boost/json/serialize.hpp>

#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

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

std::string joined(const repl::Lines& lines) {
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

void check_reader(std::string_view text) {
  const repl::Lines lines = repl::split_lines(text);
  std::size_t after = 0;
  for (const repl::Fence& f : repl::fences(text, lines)) {
    FUZZ_CHECK(f.first >= after && f.first <= f.last && f.last < lines.size());
    FUZZ_CHECK(f.marker.size() >= 3);
    after = f.last + 1;
  }
  const repl::Scan scan = repl::scan_requests(text);
  if (scan.draft) FUZZ_CHECK(scan.requests.empty());
  std::size_t from = 0;
  for (const repl::Request& r : scan.requests) {
    FUZZ_CHECK(!r.blocks.empty());
    FUZZ_CHECK(r.first >= from && r.first <= r.end && r.end <= lines.size());
    FUZZ_CHECK(r.header.has_value() == r.header_line.has_value());
    if (r.header_line) FUZZ_CHECK(*r.header_line == r.first);
    for (const repl::CodeBlock& b : r.blocks) {
      FUZZ_CHECK(b.first >= r.first && b.first < b.last && b.last < r.end);
      FUZZ_CHECK(repl::runnable(b.lang));
    }
    from = r.end;
  }
}

void check_lint(std::string_view text) {
  const std::size_t n = repl::split_lines(text).size();
  using When = std::optional<std::chrono::system_clock::time_point>;
  const When mtime = std::chrono::system_clock::time_point(std::chrono::seconds(1'700'000'000));
  const std::pair<std::string_view, When> forms[] = {
      {"debug/page-1a2b.md", mtime}, {"debug.md", mtime}, {"debug.md", std::nullopt}};
  for (const auto& [path, when] : forms) {
    const repl::LintReport r = repl::lint_log(path, text, when);
    for (const repl::LintProblem& p : r.problems) FUZZ_CHECK(p.line >= 1 && p.line <= n + 1);
    for (const repl::LintPair& p : r.pairs) {
      FUZZ_CHECK(p.request_line >= 1 && p.request_line <= n);
      FUZZ_CHECK(p.reply_line >= 1 && p.reply_line <= n);
    }
    FUZZ_CHECK(r.pairs.size() <= r.replies);
    (void)repl::lint_text(r);
    (void)boost::json::serialize(repl::lint_json(r));
  }
}

// Page text as the gateway writes it into a log: one fence, closed on the
// last line, and no line of it a header.
void check_page_text(std::string_view text) {
  const std::string clean = repl::clean_page_text(text);
  for (const std::string& l : repl::split_lines(clean)) {
    FUZZ_CHECK(!repl::parse_header(l));
    FUZZ_CHECK(l != repl::footer);
  }
  const repl::Lines block = repl::fenced("Text", clean);
  const std::string log = joined(block);
  const repl::Lines lines = repl::split_lines(log);
  const std::vector<repl::Fence> fs = repl::fences(log, lines);
  FUZZ_CHECK(fs.size() == 1);
  FUZZ_CHECK(fs[0].first == 0 && fs[0].last == lines.size() - 1 && fs[0].closed);
  FUZZ_CHECK(repl::scan_requests(log).requests.empty());
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
  check_reader(text);
  check_lint(text);
  check_page_text(text);
  for (const std::string& l : repl::split_lines(text)) (void)repl::parse_header(l);
  check_writer(text, size == 0 ? 0 : data[size / 2]);
  return 0;
}
