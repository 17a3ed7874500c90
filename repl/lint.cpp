// lint_log: the Linter's steps in order. The log is read as requests and
// replies (lint_read.cpp), its form decided, the two paired
// (lint_pairing.cpp), and what is left unanswered reported.
#include "repl/linter.hpp"

#include "editproto/unicode.hpp"

#include <algorithm>

namespace repl {

namespace lint {

Linter::Linter(std::string_view path, std::string_view text,
               std::optional<std::chrono::system_clock::time_point> mtime)
    : text_(text), lines_(split_lines(text)), mtime_(mtime) {
  report_.path = std::string(path);
}

LintReport Linter::run() {
  fences_ = fences(text_, lines_);
  fence_at_.assign(lines_.size(), nullptr);
  in_fence_.assign(lines_.size(), false);
  for (const Fence& f : fences_) {
    fence_at_[f.first] = &f;
    for (std::size_t i = f.first; i <= f.last; ++i) in_fence_[i] = true;
  }
  read();
  decide_form();
  if (report_.form == LogForm::per_instance)
    pair_by_order();
  else
    pair_by_time();
  for (const Req& q : requests_)
    if (!q.reply && !q.timeout_reply) unanswered(q);
  std::stable_sort(report_.problems.begin(), report_.problems.end(),
                   [](const LintProblem& a, const LintProblem& b) { return a.line < b.line; });
  // Messages quote the file: kept valid UTF-8 for the JSON output.
  for (LintProblem& p : report_.problems) p.message = editproto::unicode::to_valid_utf8(p.message);
  for (LintPair& p : report_.pairs) p.note = editproto::unicode::to_valid_utf8(p.note);
  report_.requests = requests_.size();
  report_.replies = replies_.size();
  return std::move(report_);
}

void Linter::problem(std::size_t line, LintCode code, std::string message) {
  report_.problems.push_back({line + 1, code, std::move(message)});
}

// A line as a message shows it: short, cut between characters.
std::string Linter::quote(std::size_t line) const {
  std::string s(trim(lines_[line]));
  if (s.size() > 80) {
    std::size_t cut = 77;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
    s = s.substr(0, cut) + "...";
  }
  return "'" + s + "'";
}

// debug.md: the single-file log. A file named for a page instance
// (<name>-<id>.md, as the gateway names its logs) is that page's, so
// its requests run there whatever page their headers name: paired by
// order, as the gateway answers them. Any other file holding headers that
// name more than one page is a single-file log too.
void Linter::decide_form() {
  std::string_view name = report_.path;
  if (const std::size_t slash = name.find_last_of('/'); slash != npos) name.remove_prefix(slash + 1);
  if (name != "debug.md" && names_instance(name)) {
    report_.form = LogForm::per_instance;
    return;
  }
  std::vector<std::string> groups;
  for (const std::string& p : pages_)
    if (std::none_of(groups.begin(), groups.end(), [&](const std::string& g) { return same_page(g, p); }))
      groups.push_back(p);
  report_.form = name == "debug.md" || groups.size() > 1 ? LogForm::single_file : LogForm::per_instance;
}

}  // namespace lint

LintReport lint_log(std::string_view path, std::string_view text,
                    std::optional<std::chrono::system_clock::time_point> mtime) {
  return lint::Linter(path, text, mtime).run();
}

}  // namespace repl
