// The chat-log reader and lint: a log's text as an agent or editor may
// leave it. Fences and requests stay inside the text's lines; lint answers
// both log forms with problems on real lines; page text written into a log
// stays inside its one fence. All of it in memory: the gateway's writes to
// a log are the chatlog_writer target.
#include "check.hpp"
#include "repl/format.hpp"
#include "repl/lint.hpp"
#include "repl/markdown.hpp"

#include <boost/json/serialize.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace {

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

// Each input is linted in one of the four forms a log can take, picked by
// its length (the fuzzer varies lengths all the time): linting each input in
// all four cost four times the time for the same coverage.
void check_lint(std::string_view text) {
  const std::size_t n = repl::split_lines(text).size();
  using When = std::optional<std::chrono::system_clock::time_point>;
  const When mtime = std::chrono::system_clock::time_point(std::chrono::seconds(1'700'000'000));
  const std::pair<std::string_view, When> forms[] = {
      {"debug/page-1a2b.md", mtime}, {"debug/notes.md", mtime}, {"debug.md", mtime}, {"debug.md", std::nullopt}};
  const auto& [path, when] = forms[text.size() % std::size(forms)];
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

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  check_reader(text);
  check_lint(text);
  check_page_text(text);
  for (const std::string& l : repl::split_lines(text)) (void)repl::parse_header(l);
  return 0;
}
