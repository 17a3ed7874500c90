#include "services/places.hpp"

#include "repl/secrets.hpp"

#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace services {

namespace fs = std::filesystem;

namespace {

// The folder's name for people: the workspace's own name, in letters a
// shell and a file name take as they are.
std::string readable(const std::string& root) {
  std::string name = fs::path(root).filename().string();
  std::string out;
  for (char c : name) {
    if (out.size() >= 32) break;
    out += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' ? c : '_';
  }
  if (out.empty() || out.front() == '.') out.insert(0, "ws");
  return out;
}

bool exists_nofollow(const fs::path& p) {
  struct stat st {};
  return ::lstat(p.c_str(), &st) == 0;
}

}  // namespace

Result<std::string> state_home() {
  if (const char* xdg = std::getenv("XDG_STATE_HOME"); xdg && xdg[0] == '/')
    return std::string(xdg) + "/editgate/workspaces";
  std::string home;
  if (const char* h = std::getenv("HOME"); h && h[0] == '/') home = h;
  if (home.empty())
    if (const passwd* pw = ::getpwuid(::geteuid()); pw && pw->pw_dir && pw->pw_dir[0] == '/') home = pw->pw_dir;
  if (home.empty())
    return Failure{Error::io, "cannot tell where to keep editgate's state: set XDG_STATE_HOME or HOME"};
  return home + "/.local/state/editgate/workspaces";
}

GitFolder git_folder_of(const std::string& dir) {
  std::error_code ec;
  for (fs::path d = fs::path(dir);; d = d.parent_path()) {
    const fs::path dot = d / ".git";
    struct stat st {};
    // stat, not lstat: a .git that is a link to the git folder is one, as git takes it.
    if (::stat(dot.c_str(), &st) == 0) {
      if (S_ISDIR(st.st_mode)) return {fs::canonical(dot, ec).string(), d.string()};
      if (S_ISREG(st.st_mode)) {
        // A linked work tree or a submodule: "gitdir: <path>", relative to d.
        std::ifstream in(dot);
        std::string line;
        std::getline(in, line);
        while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
        if (!line.starts_with("gitdir: ")) return {};
        fs::path target = line.substr(8);
        if (target.is_relative()) target = d / target;
        return {fs::weakly_canonical(target, ec).string(), d.string()};
      }
    }
    if (!d.has_relative_path()) return {};
  }
}

unsigned short default_port(const std::string& workspace_id) {
  unsigned long bits = 0;
  for (char c : workspace_id.substr(0, 8)) bits = bits * 16 + static_cast<unsigned long>(std::isdigit(c) ? c - '0' : (c | 0x20) - 'a' + 10);
  return static_cast<unsigned short>(8400 + bits % 400);
}

std::string page_tag(const std::string& url, const std::string& workspace_id) {
  return "<script>(function load(){var s=document.createElement('script');s.src='" + url +
         "adapter.js?workspace=" + workspace_id +
         "';s.crossOrigin='anonymous';s.onerror=function(){s.remove();setTimeout(load,2000)};"
         "(document.head||document.documentElement).appendChild(s)})()</script>";
}

Result<Places> places_of(const std::string& root) {
  std::error_code ec;
  const fs::path canonical = fs::canonical(root, ec);
  if (ec) return Failure{Error::not_found, "the workspace " + root + " does not exist (" + ec.message() + ")"};
  auto home = state_home();
  if (!home) return home.error();
  Places p;
  p.root = canonical.string();
  p.id = repl::sha256_hex(p.root).substr(0, 16);
  p.state = *home + "/" + readable(p.root) + "-" + p.id;
  // A workspace below its repository's top has a folder of its own there.
  const GitFolder git = git_folder_of(p.root);
  if (!git.gitdir.empty())
    p.agents = git.gitdir + "/editgate" + (git.top == p.root ? "" : "/" + readable(p.root) + "-" + p.id);
  return p;
}

Result<std::string> find_workspace(const std::string& given) {
  if (!given.empty()) return given;
  std::error_code ec;
  const fs::path here = fs::current_path(ec);
  if (ec) return Failure{Error::io, "cannot tell the current folder (" + ec.message() + "); give --root"};
  auto home = state_home();
  for (fs::path dir = here;; dir = dir.parent_path()) {
    if (home) {
      // A folder a gateway served before, below the repository's top.
      auto p = places_of(dir.string());
      if (p && exists_nofollow(p->state + "/root")) return p->root;
    }
    if (exists_nofollow(dir / ".git")) return dir.string();
    if (!dir.has_relative_path()) break;  // "/" was the last
  }
  return Failure{Error::not_found, here.string() + " is in no git repository, and editgate creates nothing outside "
                                                   "one: run it in your project's folder, or give --root DIR (a "
                                                   "folder with no repository gets one)"};
}

Result<void> private_folder(const std::string& path) {
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  if (::mkdir(path.c_str(), 0700) != 0 && errno != EEXIST)
    return Failure{Error::io, "cannot create " + path + ": " + std::strerror(errno)};
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return Failure{Error::io, "cannot read " + path + ": " + std::strerror(errno)};
  if (!S_ISDIR(st.st_mode))
    return Failure{Error::io, path + " is not a folder (a symlink or a file stands there): editgate keeps nothing "
                                     "where it could be led elsewhere; remove it"};
  if (st.st_uid != ::geteuid()) return Failure{Error::io, path + " belongs to another user; remove it"};
  if ((st.st_mode & 077) != 0 && ::chmod(path.c_str(), 0700) != 0)
    return Failure{Error::io, "cannot make " + path + " private: " + std::strerror(errno)};
  return {};
}

Result<void> make_state_folder(const Places& places) {
  const fs::path leaf = places.state;
  // Whoever may rename a folder above it may swap the whole state for
  // their own: every folder above must be this user's or root's, and
  // writable by others only when sticky (as /tmp is).
  std::error_code ec;
  fs::path above = leaf.parent_path().parent_path().parent_path();
  fs::create_directories(above, ec);
  above = fs::canonical(above, ec);
  if (ec) return Failure{Error::io, "cannot make " + above.string() + ": " + ec.message()};
  for (fs::path d = above;; d = d.parent_path()) {
    struct stat st {};
    if (::lstat(d.c_str(), &st) != 0) return Failure{Error::io, "cannot read " + d.string() + ": " + std::strerror(errno)};
    if ((st.st_uid != ::geteuid() && st.st_uid != 0) || ((st.st_mode & 022) != 0 && (st.st_mode & S_ISVTX) == 0))
      return Failure{Error::io, d.string() + " can be changed by another user, so editgate keeps no secret below it; "
                                               "set XDG_STATE_HOME to a folder of your own"};
    if (!d.has_relative_path()) break;
  }
  for (const fs::path& d : {leaf.parent_path().parent_path(), leaf.parent_path(), leaf})
    if (auto made = private_folder(d.string()); !made) return made.error();
  return {};
}

}  // namespace services
