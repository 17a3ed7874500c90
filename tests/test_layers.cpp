// The rule of docs/architecture.md, read from the code: each top-level
// folder is a layer, and a file includes only its own layer's headers and
// those of the layers the table below lets it use. A new folder fails here
// until it has its row.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

// Lowest first; each layer and the layers it may include.
const std::map<std::string, std::set<std::string>>& layers() {
  static const std::map<std::string, std::set<std::string>> table{
      {"base", {}},
      {"editproto", {"base"}},
      {"git", {"base"}},
      {"record", {"base", "editproto", "git"}},
      {"repl", {"base", "editproto", "git", "record"}},
      {"services", {"base", "editproto", "git", "record", "repl"}},
      {"ops", {"base", "editproto", "git", "record", "repl", "services"}},
      {"mcp", {"base", "editproto", "git", "record", "repl", "services", "ops"}},
      {"dashboard", {"base", "editproto", "git", "record", "repl", "services", "ops"}},
      {"gateway", {"base", "editproto", "git", "record", "repl", "services", "ops", "mcp", "dashboard"}},
      {"cli", {"base", "editproto", "git", "record", "repl", "services", "ops", "mcp", "dashboard", "gateway"}},
  };
  return table;
}

struct Arrow {
  std::string file;  // relative to the source tree
  std::string to;    // the included layer
};

// Every `#include "<folder>/..."` of the layer's C++ files whose folder is
// another top-level folder of the source tree.
std::vector<Arrow> arrows_of(const fs::path& root, const std::string& layer) {
  static const std::regex include(R"(^\s*#\s*include\s*"([A-Za-z0-9_]+)/)");
  std::vector<Arrow> out;
  for (const auto& entry : fs::recursive_directory_iterator(root / layer)) {
    const auto ext = entry.path().extension();
    if (!entry.is_regular_file() || (ext != ".cpp" && ext != ".hpp")) continue;
    std::ifstream in(entry.path());
    std::string line;
    std::smatch m;
    while (std::getline(in, line))
      if (std::regex_search(line, m, include) && m[1] != layer && fs::is_directory(root / m[1].str()))
        out.push_back({fs::relative(entry.path(), root).string(), m[1].str()});
  }
  return out;
}

}  // namespace

TEST_CASE("every include points down the layers of docs/architecture.md", "[layers]") {
  const fs::path root = SOURCE_DIR;
  std::size_t seen = 0;
  for (const auto& [layer, allowed] : layers()) {
    REQUIRE(fs::is_directory(root / layer));
    for (const Arrow& a : arrows_of(root, layer)) {
      ++seen;
      INFO(a.file << " includes " << a.to << "/: " << layer << "/ may include only its own folder and "
                  << (allowed.empty() ? std::string("none") : [&] {
                       std::string s;
                       for (const auto& l : allowed) s += (s.empty() ? "" : ", ") + l;
                       return s;
                     }()));
      CHECK(allowed.count(a.to) == 1);
    }
  }
  CHECK(seen > 100);  // the reader found the includes at all
}

TEST_CASE("every folder with C++ sources is a layer of the table", "[layers]") {
  const fs::path root = SOURCE_DIR;
  const std::set<std::string> not_layers{"tests", "bench", "build", "cmake", "docs", "fixtures", "scripts", "skills"};
  for (const auto& entry : fs::directory_iterator(root)) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_directory() || name.starts_with(".") || name.starts_with("build") || not_layers.count(name))
      continue;
    bool has_cpp = false;
    for (const auto& f : fs::recursive_directory_iterator(entry.path()))
      if (f.path().extension() == ".cpp") has_cpp = true;
    INFO(name << "/ holds C++ sources but has no row in the layer table (tests/test_layers.cpp)");
    CHECK((!has_cpp || layers().count(name) == 1));
  }
}

namespace {

// Each layer's namespace: its folder's name, but git/'s (libgit2 owns `git_`).
std::string namespace_of(const std::string& layer) { return layer == "git" ? "editgit" : layer; }

}  // namespace

TEST_CASE("every layer's code is in its own namespace", "[layers]") {
  // A top-level `namespace X {` of another layer may only forward-declare
  // (`class Y;`): a definition there would be that layer's code in the wrong folder.
  const fs::path root = SOURCE_DIR;
  std::set<std::string> names;
  for (const auto& [layer, allowed] : layers()) names.insert(namespace_of(layer));
  static const std::regex opens(R"(^namespace ([A-Za-z0-9_]+)(::[A-Za-z0-9_:]+)? \{\s*$)");
  static const std::regex forward(R"(^\s*(class|struct|enum class) [A-Za-z0-9_]+;\s*$)");
  std::size_t own = 0;
  for (const auto& [layer, allowed] : layers()) {
    const std::string mine = namespace_of(layer);
    for (const auto& entry : fs::recursive_directory_iterator(root / layer)) {
      const auto ext = entry.path().extension();
      if (!entry.is_regular_file() || (ext != ".cpp" && ext != ".hpp")) continue;
      const std::string file = fs::relative(entry.path(), root).string();
      std::ifstream in(entry.path());
      std::string line, inside;  // inside: the other layer's namespace open now
      std::smatch m;
      while (std::getline(in, line)) {
        if (!inside.empty()) {
          if (line.starts_with("}")) inside.clear();
          else if (!line.empty() && !std::regex_match(line, forward)) {
            INFO(file << " defines in namespace " << inside << " (another layer's): " << line);
            CHECK(false);
          }
        } else if (std::regex_match(line, m, opens)) {
          if (m[1] == mine) ++own;
          else if (names.count(m[1].str())) inside = m[1].str();
        }
      }
    }
  }
  CHECK(own > 100);  // the reader found the layers' own namespaces at all
}
