// `editgate lint`: one chat log read back, its requests paired with their
// replies, and what is wrong with it, each with a line and a message an LLM
// can act on. Two forms: the gateway's per-instance logs (debug/<page>-<id>.md,
// one page, paired by order) and the single debug.md (several pages,
// paired by names and clocks).
#pragma once

#include <boost/json/object.hpp>

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace repl {

enum class LintCode {
  unanswered,        // a runnable block no reply answers
  orphan_reply,      // a reply no request can own
  unclosed_fence,    // a fence that runs to the end of the file
  duplicate_footer,  // the footer line more than once
  malformed_header,  // looks like a header, does not parse
  executing,         // the reply is still the "executing" placeholder
};
std::string_view to_string(LintCode c);

// Why a pair is worth a look; none of these is a problem.
enum class PairFlag {
  ambiguous,           // same-second requests: taken first come, first served
  heuristic,           // no request before the reply's time: clock skew?
  fallback_timestamp,  // the reply has no time: the file's was used
  late,                // a reply after the request's timeout, or in the late form
};
std::string_view to_string(PairFlag f);

enum class LogForm { per_instance, single_file };
std::string_view to_string(LogForm f);  // "per-instance", "single-file"

struct LintProblem {
  std::size_t line = 0;  // 1-based
  LintCode code{};
  std::string message;
};

struct LintPair {
  std::size_t request_line = 0;  // its header, or its block's fence when it has no header of its own
  std::size_t reply_line = 0;
  std::vector<PairFlag> flags;
  std::string note;  // why it is flagged; empty when it is not
};

struct LintReport {
  std::string path;
  LogForm form = LogForm::per_instance;
  std::size_t requests = 0;  // runnable blocks: each one is run and answered on its own
  std::size_t replies = 0;   // reply headers
  std::size_t headers = 0;   // request and reply headers, with or without a block
  std::vector<LintPair> pairs;         // in the order of their replies
  std::vector<LintProblem> problems;   // by line
};

// Reads `text`, the chat log at `path` (its name picks the form: debug.md is
// the single file). `mtime` stands in for a reply's missing time in the
// single-file form; without it such a reply is later than every request.
LintReport lint_log(std::string_view path, std::string_view text,
                    std::optional<std::chrono::system_clock::time_point> mtime);

// "path:line: code: message" per problem and "path:line: note: ..." per
// flagged pair, by line.
std::string lint_text(const LintReport& r);
// {"path","form","requests","replies","pairs":[{"request_line","reply_line","flags","note"?}],
//  "problems":[{"line","code","message"}]}
boost::json::object lint_json(const LintReport& r);

}  // namespace repl
