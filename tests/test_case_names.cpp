// ctest learns the unit and e2e cases from the binaries' listing
// (catch_discover_tests), which becomes a CMake list: a bracket in one
// case's name unbalances that list, and every case after it silently stops
// running in ctest (130 once did). So no name holds one.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

TEST_CASE("no test case's name holds a bracket, which would hide the cases after it from ctest",
          "[unit][meta]") {
  const std::regex test_case(R"re(TEST_CASE(?:_METHOD)?\s*\(\s*(?:[A-Za-z_:]+\s*,\s*)?"((?:[^"\\]|\\.)*)")re");
  std::vector<std::string> bad;
  std::size_t names = 0;
  for (const auto& entry : fs::recursive_directory_iterator(fs::path(SOURCE_DIR) / "tests")) {
    if (entry.path().extension() != ".cpp") continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    const std::string s = text.str();
    for (auto it = std::sregex_iterator(s.begin(), s.end(), test_case); it != std::sregex_iterator(); ++it) {
      ++names;
      const std::string name = (*it)[1];
      if (name.find_first_of("[]") != std::string::npos) bad.push_back(entry.path().filename().string() + ": " + name);
    }
  }
  CHECK(names > 400);
  CHECK(bad == std::vector<std::string>{});
}
