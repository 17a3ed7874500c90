// The request intake from a saved log (repl/intake): the log as the gateway
// knew it, as it was saved, and an unfinished draft, separated by NUL bytes.
// A saved part that starts with '+' is appended to the known text, the
// common case. What is accepted comes only from the appended lines, each
// request's segments are the tail's own lines in order (a header naming
// another page rewritten to name the log's), the rewritten text is the kept
// context, the tail and the headers written in, and the notes on headers
// that start nothing are neither headers nor requests.
#include "check.hpp"
#include "repl/format.hpp"
#include "repl/intake.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace {

std::string_view next_part(std::string_view& in) {
  const std::size_t nul = in.find('\0');
  std::string_view part = in.substr(0, nul);
  in = nul == std::string_view::npos ? std::string_view() : in.substr(nul + 1);
  return part;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  const std::string seen(next_part(in));
  const std::string_view saved = next_part(in);
  const std::string found = saved.starts_with('+') ? seen + std::string(saved.substr(1)) : std::string(saved);
  const repl::Lines draft = repl::split_lines(in);

  const repl::Appended a = repl::read_appended(seen, found, draft);
  if (a.edited_above) {
    FUZZ_CHECK(a.tail.empty() && a.old.empty() && a.before.empty() && a.scan.requests.empty());
    return 0;
  }
  const repl::Lines fresh = repl::split_lines(found);
  for (const std::string& l : a.tail) FUZZ_CHECK(l != repl::footer);
  FUZZ_CHECK(a.tail.empty() || !a.tail.back().empty());
  FUZZ_CHECK(a.tail.size() <= fresh.size() && a.old.size() <= fresh.size());
  // The lines an accepting edit replaces are the saved log's last lines.
  repl::Lines trimmed = fresh;
  while (!trimmed.empty() && trimmed.back().empty()) trimmed.pop_back();
  FUZZ_CHECK(a.old.size() <= trimmed.size());
  FUZZ_CHECK(std::equal(a.old.begin(), a.old.end(), trimmed.end() - static_cast<std::ptrdiff_t>(a.old.size())));
  if (a.tail.empty()) FUZZ_CHECK(a.scan.requests.empty());
  if (a.scan.draft) return 0;

  // Headers that start nothing are header lines of the tail, outside its
  // fences, and none of them starts a request that runs.
  const std::vector<repl::Unrun> unrun = repl::unrun_headers(a);
  for (const repl::Unrun& u : unrun) {
    FUZZ_CHECK(u.line < a.tail.size());
    for (const repl::Request& r : a.scan.requests)
      if (r.header_line == u.line) FUZZ_CHECK(r.header && !r.header->suffix.empty());
  }
  const repl::Lines notes = repl::unrun_notes(unrun);
  FUZZ_CHECK(notes.size() <= 2 && notes.empty() == unrun.empty());
  for (const std::string& n : notes) {
    FUZZ_CHECK(!repl::parse_header(n) && n != repl::footer);
    FUZZ_CHECK(repl::scan_requests(n + "\n").requests.empty());
  }

  std::size_t calls = 0;
  const repl::Accepted acc = repl::accept_requests(a, "agent", "page", [&](const std::string& who, const std::string&) {
    ++calls;
    FUZZ_CHECK(!who.empty());
    return repl::request_header(who, "page", "12:00:00");
  });
  FUZZ_CHECK(calls == acc.written + acc.renamed);
  if (acc.requests.empty()) {
    FUZZ_CHECK(acc.normal.empty());
    return 0;
  }
  // Every accepted request's header names the log's page.
  for (const repl::AcceptedRequest& r : acc.requests) {
    const auto h = repl::parse_header(r.segments.front().front());
    FUZZ_CHECK(h && h->to == "page");
  }
  FUZZ_CHECK(acc.normal.size() == a.before.size() + a.tail.size() + acc.written);
  FUZZ_CHECK(std::equal(a.before.begin(), a.before.end(), acc.normal.begin()));
  // Without the written headers, the rest of the new text is the tail, and
  // the segments are consecutive runs of it.
  std::size_t at = 0;
  for (const repl::AcceptedRequest& r : acc.requests) {
    FUZZ_CHECK(!r.agent.empty());
    FUZZ_CHECK(!r.segments.empty() && r.segments.size() == r.codes.size());
    for (std::size_t k = 0; k < r.segments.size(); ++k) {
      const repl::Lines& seg = r.segments[k];
      FUZZ_CHECK(!seg.empty());
      // The segment's own lines (after a written header) are a run of the
      // tail at or after `at`.
      auto run = [&](std::size_t skip) {
        return std::search(a.tail.begin() + static_cast<std::ptrdiff_t>(at), a.tail.end(),
                           seg.begin() + static_cast<std::ptrdiff_t>(skip), seg.end());
      };
      // A first segment may start with a header written in (or rewritten),
      // which is not a tail line; the same text may also stand later in the
      // tail, so the earlier of the two readings is the segment's place.
      std::size_t end = a.tail.size() + 1;
      for (std::size_t skip = 0; skip <= (k == 0 ? 1u : 0u) && skip < seg.size(); ++skip) {
        const auto it = run(skip);
        if (it != a.tail.end())
          end = std::min(end, static_cast<std::size_t>(it - a.tail.begin()) + (seg.size() - skip));
      }
      FUZZ_CHECK(end <= a.tail.size());
      at = end;
    }
  }
  return 0;
}
