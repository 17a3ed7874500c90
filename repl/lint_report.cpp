// A lint report as `editgate lint` prints it: the names of its codes and
// flags, one line per problem and flagged pair, or one JSON object.
#include "repl/lint.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <utility>

namespace repl {

std::string_view to_string(LintCode c) {
  switch (c) {
    case LintCode::unanswered: return "unanswered";
    case LintCode::orphan_reply: return "orphan_reply";
    case LintCode::unclosed_fence: return "unclosed_fence";
    case LintCode::duplicate_footer: return "duplicate_footer";
    case LintCode::malformed_header: return "malformed_header";
    case LintCode::executing: return "executing";
  }
  return "unanswered";
}

std::string_view to_string(PairFlag f) {
  switch (f) {
    case PairFlag::ambiguous: return "ambiguous";
    case PairFlag::heuristic: return "heuristic";
    case PairFlag::fallback_timestamp: return "fallback_timestamp";
    case PairFlag::late: return "late";
  }
  return "ambiguous";
}

std::string_view to_string(LogForm f) { return f == LogForm::single_file ? "single-file" : "per-instance"; }

std::string lint_text(const LintReport& r) {
  std::vector<std::pair<std::size_t, std::string>> rows;
  for (const LintProblem& p : r.problems)
    rows.emplace_back(p.line, r.path + ":" + std::to_string(p.line) + ": " + std::string(to_string(p.code)) + ": " +
                                  p.message + "\n");
  for (const LintPair& p : r.pairs)
    if (!p.flags.empty())
      rows.emplace_back(p.reply_line, r.path + ":" + std::to_string(p.reply_line) + ": note: " + p.note + "\n");
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string out;
  for (const auto& row : rows) out += row.second;
  return out;
}

boost::json::object lint_json(const LintReport& r) {
  boost::json::array pairs, problems;
  for (const LintPair& p : r.pairs) {
    boost::json::array flags;
    for (PairFlag f : p.flags) flags.emplace_back(to_string(f));
    boost::json::object o{{"request_line", p.request_line}, {"reply_line", p.reply_line}, {"flags", std::move(flags)}};
    if (!p.note.empty()) o["note"] = p.note;
    pairs.push_back(std::move(o));
  }
  for (const LintProblem& p : r.problems)
    problems.push_back(boost::json::object{{"line", p.line}, {"code", to_string(p.code)}, {"message", p.message}});
  return {{"path", r.path},
          {"form", to_string(r.form)},
          {"requests", r.requests},
          {"replies", r.replies},
          {"pairs", std::move(pairs)},
          {"problems", std::move(problems)}};
}

}  // namespace repl
