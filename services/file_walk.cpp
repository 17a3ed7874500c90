// file_list and file_search: a walk of the workspace's folders, through the
// edit engine's rules, that never follows a symlink, never enters .git or a
// folder .gitignore ignores (unless the request names it), and stops at its
// bounds, saying which.
#include "services/files.hpp"

#include "editproto/text_file.hpp"
#include "editproto/unicode.hpp"

#include <boost/json.hpp>

#include <dirent.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <string_view>
#include <vector>

namespace services {

namespace json = boost::json;

namespace {

// How deep a search goes: far past any real project, short of a loop.
constexpr std::size_t max_search_depth = 64;

// "", ".", "./" and the like: the workspace root, which normalize refuses
// as naming no file.
bool names_root(std::string_view raw) {
  return std::all_of(raw.begin(), raw.end(), [](char c) { return c == '.' || c == '/' || c == '\\'; }) &&
         raw.find("..") == std::string_view::npos;
}

// A request's folder (or file) as its real path, through the engine's rules.
Result<std::string> start_of(const editproto::Workspace& ws, const std::string& raw) {
  if (names_root(raw)) return std::string();
  auto normal = ws.normalize(raw);
  if (!normal) return from_engine(normal.error());
  auto real = ws.resolve(*normal);
  if (!real) return from_engine(real.error());
  return std::move(*real);
}

// The ignore test a walk from `start` uses: none inside a folder that is
// itself ignored (everything under it is, as git reads the rules), so a
// request that names an ignored folder sees it as any other.
IgnoreTest ignore_below(const std::string& start, const IgnoreTest& ignored) {
  if (!ignored || (!start.empty() && ignored(start, true))) return {};
  return ignored;
}

struct Entry {
  std::string name;
  std::string kind;  // file, folder, symlink, other
  std::int64_t size = 0;
};

// A folder's entries in name order, .git left out; nothing followed.
Result<std::vector<Entry>> entries_of(const editproto::Workspace& ws, const std::string& folder) {
  auto fd = ws.open_folder(folder);
  if (!fd) return from_engine(fd.error());
  DIR* dir = ::fdopendir(fd->get());
  if (!dir) return Failure{Error::io, "cannot list " + (folder.empty() ? std::string(".") : folder)};
  const int dfd = fd->release();
  std::vector<Entry> out;
  while (const dirent* e = ::readdir(dir)) {
    const std::string_view name = e->d_name;
    if (name == "." || name == ".." || editproto::Workspace::protected_name(name)) continue;
    struct stat st;
    if (::fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;  // gone meanwhile
    Entry& entry = out.emplace_back();
    entry.name = name;
    entry.kind = S_ISREG(st.st_mode) ? "file" : S_ISDIR(st.st_mode) ? "folder" : S_ISLNK(st.st_mode) ? "symlink" : "other";
    entry.size = S_ISREG(st.st_mode) ? static_cast<std::int64_t>(st.st_size) : 0;
  }
  ::closedir(dir);
  std::sort(out.begin(), out.end(), [](const Entry& a, const Entry& b) { return a.name < b.name; });
  return out;
}

std::string joined(const std::string& folder, const std::string& name) {
  return folder.empty() ? name : folder + "/" + name;
}

// A name as a text line shows it: a control character (a newline in a
// file's name) would print a line of its own that reads as another entry.
std::string printable(const std::string& path) {
  std::string out;
  for (const char c : editproto::unicode::to_valid_utf8(path)) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u != 0x7f) {
      out += c;
      continue;
    }
    static constexpr char hex[] = "0123456789abcdef";
    out += "\\x";
    out += hex[u >> 4];
    out += hex[u & 0xf];
  }
  return out;
}

struct Lister {
  const editproto::Workspace& ws;
  const ListRequest& req;
  const IgnoreTest& ignored;
  json::array entries{};
  std::string text{};
  bool cut = false;
  std::size_t visited = 0;

  Result<void> walk(const std::string& folder, std::size_t depth) {
    auto list = entries_of(ws, folder);
    if (!list) return list.error();
    for (const Entry& e : *list) {
      if (entries.size() >= req.limit || ++visited > max_walk_entries) {
        cut = true;
        return {};
      }
      const std::string path = joined(folder, e.name);
      const bool is_folder = e.kind == "folder";
      const bool skip = ignored && ignored(path, is_folder);
      json::object o{{"path", editproto::unicode::to_valid_utf8(path)}, {"kind", e.kind}};
      if (e.kind == "file") o["size"] = e.size;
      if (skip) o["ignored"] = true;
      entries.emplace_back(std::move(o));
      text += printable(path) + (is_folder ? "/" : "") +
              (e.kind == "symlink" ? " (symlink)" : "") + (skip ? " (ignored)" : "") + "\n";
      if (is_folder && !skip && depth > 1)
        if (auto r = walk(path, depth - 1); !r) return r;
    }
    return {};
  }
};

bool glob_matches(const std::string& glob, const std::string& path) {
  if (glob.empty()) return true;
  const bool whole = glob.find('/') != std::string::npos;
  const std::string name = whole ? path : path.substr(path.rfind('/') + 1);
  return ::fnmatch(glob.c_str(), name.c_str(), 0) == 0;
}

void lower(std::string& s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
}

struct Searcher {
  const editproto::Workspace& ws;
  const SearchRequest& req;
  const IgnoreTest& ignored;
  std::string needle;
  json::array matches{};
  std::string text{};
  std::size_t files = 0, skipped = 0, bytes = 0, visited = 0;
  std::string cut{};  // the bound that stopped the search: matches, files, bytes, entries

  bool stopped() const { return !cut.empty(); }

  void file(const std::string& path, std::int64_t size) {
    if (!glob_matches(req.glob, path)) return;
    if (static_cast<std::size_t>(size) > max_search_file_bytes) return void(++skipped);
    if (files >= max_search_files) return void(cut = "files");
    if (bytes + static_cast<std::size_t>(size) > max_search_bytes) return void(cut = "bytes");
    auto content = ws.read(path, max_search_file_bytes);
    if (!content || !content->stamp.exists || editproto::looks_binary(content->bytes)) return void(++skipped);
    ++files;
    bytes += content->bytes.size();
    std::string hay = content->bytes;
    if (req.ignore_case) lower(hay);
    const std::string shown_path = editproto::unicode::to_valid_utf8(path);
    std::size_t line = 1, counted = 0, at = 0;
    while ((at = hay.find(needle, at)) != std::string::npos) {
      if (matches.size() >= req.limit) return void(cut = "matches");
      line += static_cast<std::size_t>(std::count(hay.begin() + counted, hay.begin() + at, '\n'));
      counted = at;
      const std::size_t nl = at == 0 ? std::string::npos : hay.rfind('\n', at - 1);
      const std::size_t begin = nl == std::string::npos ? 0 : nl + 1;
      const std::size_t end = std::min(hay.find('\n', at), hay.size());
      std::string shown = editproto::unicode::to_valid_utf8(
          std::string_view(content->bytes).substr(begin, std::min(end - begin, max_match_text)));
      text += printable(path) + ":" + std::to_string(line) + ": " + shown + "\n";
      matches.emplace_back(json::object{{"path", shown_path}, {"line", static_cast<std::int64_t>(line)}, {"text", std::move(shown)}});
      at = std::max(end, at + 1);  // the next line: one match a line
    }
  }

  Result<void> walk(const std::string& folder, std::size_t depth) {
    auto list = entries_of(ws, folder);
    if (!list) return list.error();
    for (const Entry& e : *list) {
      if (stopped()) return {};
      if (++visited > max_walk_entries) {
        cut = "entries";
        return {};
      }
      const std::string path = joined(folder, e.name);
      if (e.kind != "file" && e.kind != "folder") continue;
      if (ignored && ignored(path, e.kind == "folder")) continue;
      if (e.kind == "file") file(path, e.size);
      else if (depth > 1)
        if (auto r = walk(path, depth - 1); !r) return r;
    }
    return {};
  }
};

}  // namespace

Result<json::object> list_files(const editproto::Workspace& ws, const ListRequest& req, const IgnoreTest& ignored) {
  auto start = start_of(ws, req.path);
  if (!start) return start.error();
  const IgnoreTest below = ignore_below(*start, ignored);
  Lister lister{.ws = ws, .req = req, .ignored = below};
  if (auto r = lister.walk(*start, std::max<std::size_t>(req.depth, 1)); !r) return r.error();
  if (lister.entries.empty()) lister.text = "(the folder is empty)\n";
  if (lister.cut)
    lister.text += "(cut at " + std::to_string(std::min(req.limit, max_walk_entries)) +
                   " entries: name a folder as path, or ask a smaller depth)\n";
  return json::object{{"path", *start}, {"entries", std::move(lister.entries)}, {"cut", lister.cut},
                      {"text", std::move(lister.text)}};
}

Result<json::object> search_files(const editproto::Workspace& ws, const SearchRequest& req, const IgnoreTest& ignored) {
  if (req.pattern.empty()) return Failure{Error::bad_request, "pattern must not be empty"};
  auto start = start_of(ws, req.path);
  if (!start) return start.error();
  const IgnoreTest below = ignore_below(*start, ignored);
  Searcher s{.ws = ws, .req = req, .ignored = below, .needle = req.pattern};
  if (req.ignore_case) lower(s.needle);
  auto stat = start->empty() ? editproto::Outcome<editproto::Stamp>(editproto::Stamp{}) : ws.stat(*start);
  if (!stat) return from_engine(stat.error());
  if (stat->exists && S_ISREG(stat->mode)) {
    s.file(*start, stat->size);
  } else if (auto r = s.walk(*start, max_search_depth); !r) {
    return r.error();
  }
  if (s.matches.empty()) s.text = "(no match in " + std::to_string(s.files) + " files)\n";
  if (s.cut == "matches")
    s.text += "(stopped at " + std::to_string(req.limit) + " matches: narrow path or glob, or raise limit)\n";
  else if (!s.cut.empty())
    s.text += "(stopped after " + std::to_string(s.files) + " files, " + std::to_string(s.bytes) +
              " bytes read: narrow path or glob)\n";
  return json::object{{"pattern", req.pattern}, {"matches", std::move(s.matches)}, {"files", static_cast<std::int64_t>(s.files)},
                      {"skipped", static_cast<std::int64_t>(s.skipped)}, {"cut", s.cut.empty() ? json::value(nullptr) : json::value(s.cut)},
                      {"text", std::move(s.text)}};
}

}  // namespace services
