#include "cli/lint_command.hpp"

#include "repl/lint.hpp"

#include <CLI/CLI.hpp>
#include <boost/json.hpp>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <ostream>

namespace cli {

namespace {

std::string count_of(std::size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

}  // namespace

// Without files: every chat log under debug/ (the event logs are not), and
// debug.md when it holds exchanges (the single-file log; the gateway's
// registry holds none). Exit 2 when a file cannot be read, else 1 on problems.
int run_lint(const LintArgs& a, std::ostream& out, std::ostream& err) {
  namespace fs = std::filesystem;
  struct Target {
    std::string shown;
    fs::path file;
    bool only_with_headers = false;
  };
  std::vector<Target> targets;
  if (a.files.empty()) {
    const fs::path root(a.root);
    std::vector<std::string> names;
    std::error_code ec;
    for (fs::directory_iterator it(root / "debug", ec), end; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (name.ends_with(".md") && !name.ends_with(".events.log") && it->is_regular_file(ec)) names.push_back(name);
    }
    std::sort(names.begin(), names.end());
    for (const std::string& name : names) targets.push_back({"debug/" + name, root / "debug" / name});
    if (fs::is_regular_file(root / "debug.md", ec)) targets.push_back({"debug.md", root / "debug.md", true});
  } else {
    for (const std::string& f : a.files) targets.push_back({f, f});
  }

  int unreadable = 0;
  std::size_t files = 0, requests = 0, replies = 0, problems = 0;
  boost::json::array reports;
  for (const Target& t : targets) {
    struct stat st {};
    std::string why;
    if (::stat(t.file.c_str(), &st) != 0) why = std::strerror(errno);
    else if (!S_ISREG(st.st_mode)) why = "not a regular file";
    std::string text;
    if (why.empty()) {
      std::ifstream in(t.file, std::ios::binary);
      text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
      if (!in.is_open() || in.bad()) why = std::strerror(errno);
    }
    if (!why.empty()) {
      err << "editgate lint: cannot read " << t.shown << ": " << why << '\n';
      unreadable = 2;
      continue;
    }
    using std::chrono::system_clock;
    const system_clock::time_point mtime(std::chrono::duration_cast<system_clock::duration>(
        std::chrono::seconds(st.st_mtim.tv_sec) + std::chrono::nanoseconds(st.st_mtim.tv_nsec)));
    repl::LintReport r = repl::lint_log(t.shown, text, mtime);
    if (t.only_with_headers && r.headers == 0) continue;
    ++files;
    requests += r.requests;
    replies += r.replies;
    problems += r.problems.size();
    if (a.format == "json") reports.push_back(repl::lint_json(r));
    else out << repl::lint_text(r);
  }
  if (a.format == "json")
    out << boost::json::serialize(boost::json::object{{"files", std::move(reports)}, {"problems", problems}}) << '\n';
  else
    out << count_of(files, "file", "files") << ", " << count_of(requests, "request", "requests") << ", "
        << count_of(replies, "reply", "replies") << ", " << count_of(problems, "problem", "problems") << '\n';
  if (unreadable) return unreadable;
  return problems ? 1 : 0;
}

CLI::App* add_lint(CLI::App& app, LintArgs& a) {
  CLI::App* lintc = app.add_subcommand("lint", "Check chat logs: every request answered, every reply owned, fences "
                                               "closed, headers well formed (exit 1 on any problem)");
  lintc->add_option("FILE", a.files, "Chat logs to check (default: debug/*.md under --root, and debug.md "
                                     "when it holds requests)");
  lintc->add_option("--root", a.root, "Workspace root whose logs are checked when no FILE is given "
                                      "(default: the current folder)")
      ->check(CLI::ExistingDirectory);
  lintc->add_option("--format", a.format, "Output: text (default) or json")->check(CLI::IsMember({"text", "json"}));
  return lintc;
}

}  // namespace cli
