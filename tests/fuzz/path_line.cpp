// The path-line rules and the path checks behind them: which line names a
// file (read_path_line: a path, or why not; a path with spaces never reads
// as a sentence), how a named path is normalised (Workspace::normalize)
// and where it resolves in a workspace whose symlinks lead in, up and out.
// A path accepted at any step never escapes the root, never holds a NUL and
// never names .git.
#include "check.hpp"
#include "editproto/path_line.hpp"
#include "editproto/workspace.hpp"

#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <strings.h>

namespace {

std::string g_root;

int remove_entry(const char* path, const struct stat*, int, struct FTW*) { return ::remove(path); }

void remove_root() {
  if (!g_root.empty()) ::nftw(g_root.c_str(), remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

// A workspace with folders, a file, .git, and symlinks that stay inside,
// climb out, point outside by absolute path and loop.
const editproto::Workspace& workspace() {
  static const editproto::Workspace ws = [] {
    char tmpl[] = "/tmp/editgate-fuzz-paths-XXXXXX";
    FUZZ_CHECK(::mkdtemp(tmpl) != nullptr);
    g_root = tmpl;
    std::atexit(remove_root);
    const std::string r = g_root + "/";
    FUZZ_CHECK(::mkdir((r + "a").c_str(), 0755) == 0);
    FUZZ_CHECK(::mkdir((r + "a/b").c_str(), 0755) == 0);
    FUZZ_CHECK(::mkdir((r + ".git").c_str(), 0755) == 0);
    std::ofstream(r + "a/f.txt") << "x\n";
    const char* links[][2] = {{"in", "a"},          {"up", ".."},        {"a/back", "../a"},
                              {"a/escape", "../../x"}, {"abs_out", "/etc"}, {"loop", "loop"},
                              {"dotgit", ".git"},      {"a/b/top", "../.."}};
    for (auto& l : links) FUZZ_CHECK(::symlink(l[1], (r + l[0]).c_str()) == 0);
    char* real = ::realpath(g_root.c_str(), nullptr);
    FUZZ_CHECK(real != nullptr);
    FUZZ_CHECK(::symlink((std::string(real) + "/a").c_str(), (r + "abs_in").c_str()) == 0);
    std::free(real);
    auto opened = editproto::Workspace::open(g_root);
    FUZZ_CHECK(opened.has_value());
    return std::move(*opened);
  }();
  return ws;
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

// A relative path inside the root: components that are not empty, ".",
// ".." or protected; no NUL, no backslash, not absolute.
void check_inside(std::string_view p) {
  FUZZ_CHECK(!p.empty());
  FUZZ_CHECK(p.find('\0') == std::string_view::npos);
  FUZZ_CHECK(p.find('\\') == std::string_view::npos);
  FUZZ_CHECK(p.front() != '/');
  std::size_t from = 0;
  while (true) {
    const std::size_t slash = p.find('/', from);
    const std::string_view c = p.substr(from, slash == std::string_view::npos ? std::string_view::npos : slash - from);
    FUZZ_CHECK(!c.empty() && c != "." && c != "..");
    const std::string s(c);
    FUZZ_CHECK(::strcasecmp(s.c_str(), ".git") != 0);
    if (slash == std::string_view::npos) break;
    from = slash + 1;
  }
}

void check_path(const editproto::Workspace& ws, std::string_view raw) {
  auto norm = ws.normalize(raw);
  if (raw.find('\0') != std::string_view::npos) FUZZ_CHECK(!norm);
  if (!norm) {
    FUZZ_CHECK(norm.error().reason == editproto::Reason::path_escape ||
               norm.error().reason == editproto::Reason::protected_path);
    return;
  }
  check_inside(*norm);
  // A normal path is its own normal form; "./~x" and "./c:x" are names
  // inside the root, though "~x" and "c:x" are refused as absolute.
  const bool looks_absolute =
      norm->front() == '~' || (norm->size() >= 2 && std::isalpha(static_cast<unsigned char>((*norm)[0])) && (*norm)[1] == ':');
  auto again = ws.normalize(*norm);
  if (!looks_absolute) FUZZ_CHECK(again && *again == *norm);
  if (auto real = ws.resolve(*norm)) {
    check_inside(*real);
  } else {
    const editproto::Reason r = real.error().reason;
    FUZZ_CHECK(r == editproto::Reason::path_escape || r == editproto::Reason::protected_path ||
               r == editproto::Reason::file_not_found || r == editproto::Reason::io_error);
  }
}

// A path with white space comes from backticks, or it cannot be a sentence:
// it has a separator with no white space next to it, no word of it ends with
// , ; : ! or ., and it ends in a file name with an extension.
void check_prose_rule(std::string_view line, std::string_view path) {
  if (std::none_of(path.begin(), path.end(), is_space)) {
    if (path.find_first_of("/\\") == std::string_view::npos) FUZZ_CHECK(path.back() != '.');
    return;
  }
  if (line.find('`') != std::string_view::npos) return;
  const std::size_t last = path.find_last_of("/\\");
  FUZZ_CHECK(last != std::string_view::npos);
  for (std::size_t i = 0; i < path.size(); ++i) {
    const bool word_end = i + 1 == path.size() || is_space(path[i + 1]);
    if (word_end) FUZZ_CHECK(std::string_view(",;:!.").find(path[i]) == std::string_view::npos);
    if (path[i] == '/' || path[i] == '\\')
      FUZZ_CHECK((i == 0 || !is_space(path[i - 1])) && (i + 1 == path.size() || !is_space(path[i + 1])));
  }
  const std::string_view name = path.substr(last + 1);
  const std::size_t dot = name.rfind('.');
  FUZZ_CHECK(dot != std::string_view::npos && dot + 1 < name.size());
  for (char c : name.substr(dot + 1)) FUZZ_CHECK(std::isalnum(static_cast<unsigned char>(c)));
  // A line that ended with a colon (outside backticks) is prose.
  FUZZ_CHECK(editproto::trim(line).back() != ':');
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view line(reinterpret_cast<const char*>(data), size);
  const editproto::Workspace& ws = workspace();

  const std::string_view t = editproto::trim(line);
  FUZZ_CHECK(t.empty() || (!is_space(t.front()) && !is_space(t.back())));
  const std::string_view lead = editproto::leading_ws(line);
  FUZZ_CHECK(line.starts_with(lead) && lead.find_first_not_of(" \t") == std::string_view::npos);
  if (editproto::is_fence_line(line)) FUZZ_CHECK(t.starts_with("```") || t.starts_with("~~~"));

  const editproto::PathLine verdict = editproto::read_path_line(line);
  FUZZ_CHECK(verdict.path.has_value() == verdict.why_not.empty());
  FUZZ_CHECK(verdict.path == editproto::extract_path(line));
  if (const std::optional<std::string>& path = verdict.path) {
    FUZZ_CHECK(!path->empty() && path->size() < 200);
    FUZZ_CHECK(!is_space(path->front()) && !is_space(path->back()));
    FUZZ_CHECK(path->find_first_of("`<>|\"*?") == std::string::npos);
    FUZZ_CHECK(path->find("://") == std::string::npos);
    for (std::string_view bad : {"#", "//", "*", "-", ">"}) FUZZ_CHECK(!path->starts_with(bad));
    FUZZ_CHECK(line.find(*path) != std::string_view::npos);  // a piece of the line, not made up
    FUZZ_CHECK(std::any_of(path->begin(), path->end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) != 0 || static_cast<unsigned char>(c) >= 0x80;
    }));
    check_prose_rule(line, *path);
    check_path(ws, *path);
  }
  check_path(ws, line);
  return 0;
}
