// The path-line rules and the path checks behind them: which line names a
// file (extract_path), how a named path is normalised (Workspace::normalize)
// and where it resolves in a workspace whose symlinks lead in, up and out.
// A path accepted at any step never escapes the root, never holds a NUL and
// never names .git or .editgate.
#include "check.hpp"
#include "editproto/path_line.hpp"
#include "editproto/workspace.hpp"

#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

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
    FUZZ_CHECK(::strcasecmp(s.c_str(), ".git") != 0 && ::strcasecmp(s.c_str(), ".editgate") != 0);
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

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view line(reinterpret_cast<const char*>(data), size);
  const editproto::Workspace& ws = workspace();

  const std::string_view t = editproto::trim(line);
  FUZZ_CHECK(t.empty() || (!is_space(t.front()) && !is_space(t.back())));
  const std::string_view lead = editproto::leading_ws(line);
  FUZZ_CHECK(line.starts_with(lead) && lead.find_first_not_of(" \t") == std::string_view::npos);
  if (editproto::is_fence_line(line)) FUZZ_CHECK(t.starts_with("```") || t.starts_with("~~~"));

  if (std::optional<std::string> path = editproto::extract_path(line)) {
    FUZZ_CHECK(!path->empty() && path->size() < 200);
    FUZZ_CHECK(!is_space(path->front()) && !is_space(path->back()));
    FUZZ_CHECK(path->find_first_of("`<>|\"*?") == std::string::npos);
    FUZZ_CHECK(path->find("://") == std::string::npos);
    FUZZ_CHECK(line.find(*path) != std::string_view::npos);  // a piece of the line, not made up
    check_path(ws, *path);
  }
  check_path(ws, line);
  return 0;
}
