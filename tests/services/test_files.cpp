// The file ops' reads (services/files.hpp) against real files: every path
// the edit engine refuses is refused here too (the list is the engine's own,
// tests/editproto/test_paths.cpp), binary and huge files, ranges, bounds, a
// file saved while it is read, and the listing's and search's bounds.
#include "services/files.hpp"
#include "support.hpp"

#include <boost/json.hpp>
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <thread>

using Catch::Contains;
using services::Error;
using test::TempDir;
using test::write_file;
namespace json = boost::json;

namespace {

editproto::Workspace open_ws(const TempDir& d) { return editproto::Workspace::open(d.str()).value(); }

void symlink_to(const std::string& target, const test::fs::path& link) {
  test::fs::create_directories(link.parent_path());
  REQUIRE(::symlink(target.c_str(), link.c_str()) == 0);
}

json::object read(const editproto::Workspace& ws, services::ReadRequest req) {
  auto r = services::read_file(ws, req);
  INFO((r ? std::string() : r.error().message));
  REQUIRE(r.has_value());
  return *r;
}

std::string numbered_lines(std::size_t n) {
  std::string s;
  for (std::size_t i = 1; i <= n; ++i) s += "line " + std::to_string(i) + "\n";
  return s;
}

// A .gitignore stand-in, "build/" and "*.o", read as git reads it: what is
// inside an ignored folder is ignored too.
bool ignored(const std::string& path, bool folder) {
  return (folder && path == "build") || path.starts_with("build/") || path.ends_with(".o");
}

}  // namespace

TEST_CASE("file_read refuses every path the edit engine refuses, and reads nothing outside", "[files][unit]") {
  TempDir outside, d;
  write_file(outside / "secret.txt", "secret\n");
  write_file(outside / "lib/x.py", "secret = 1\n");
  write_file(d / ".git/config", "[core] secret\n");
  write_file(d / ".git/HEAD", "ref: refs/heads/main\n");
  write_file(d / "plain.txt", "p\n");
  symlink_to(outside.str(), d / "out");                        // absolute, first component
  symlink_to(outside.str() + "/lib", d / "src/deep/lib");       // absolute, middle component
  symlink_to("../../..", d / "src/up");                         // relative, climbs out
  symlink_to(outside.str() + "/secret.txt", d / "src/file.txt"); // the last component
  symlink_to(".git", d / "g");                                  // into .git
  symlink_to("loop2", d / "loop1");
  symlink_to("loop1", d / "loop2");
  const auto ws = open_ws(d);
  const std::string escape = "../" + outside.path().filename().string() + "/secret.txt";
  for (const std::string& bad :
       {escape, outside.str() + "/secret.txt", std::string("/etc/passwd"), std::string("C:\\Windows\\x.txt"),
        std::string("~/x"), std::string("../x"), std::string("a/../../x"), std::string("\\\\server\\share\\x"),
        std::string("."), std::string(""), std::string("a\0b", 3), std::string(".git/config"),
        std::string("sub/.git/hooks/pre-commit"), std::string(".GIT/HEAD"), std::string(".git/editgate/inbox/x.md"),
        std::string("out/secret.txt"), std::string("out/lib/x.py"), std::string("src/deep/lib/x.py"),
        std::string("src/up/x.py"), std::string("src/file.txt"), std::string("g/HEAD"), std::string("g/config"),
        std::string("loop1/a")}) {
    INFO(bad);
    auto r = services::read_file(ws, {.path = bad});
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == Error::path_refused);
    CHECK_THAT(r.error().message, !Contains("secret") || Contains("secret.txt"));
  }
  // What is not a file: a folder, a named pipe (never waited on), a file used as a folder, nothing.
  test::fs::create_directories(d / "dir");
  REQUIRE(::mkfifo((d / "fifo").c_str(), 0600) == 0);
  for (const char* not_file : {"dir", "fifo", "plain.txt/x", "missing.txt"}) {
    INFO(not_file);
    auto r = services::read_file(ws, {.path = not_file});
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == Error::not_found);
  }
}

TEST_CASE("file_read follows symlinks that stay inside, as the edit engine does", "[files][unit]") {
  TempDir d;
  write_file(d / "real/a.py", "a = 1\n");
  symlink_to("real", d / "alias");
  symlink_to("../real/a.py", d / "sub/rel_link.py");
  const auto ws = open_ws(d);
  CHECK(read(ws, {.path = "alias/a.py", .line_numbers = false}).at("text") == "a = 1\n");
  CHECK(read(ws, {.path = "sub/rel_link.py", .line_numbers = false}).at("text") == "a = 1\n");
  CHECK(read(ws, {.path = "./real//x/../a.py"}).at("path") == "real/a.py");
}

TEST_CASE("file_read refuses binary and non-UTF-8 files by the engine's test, and files over its limit",
          "[files][unit]") {
  TempDir d;
  write_file(d / "image.png", std::string("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16));
  write_file(d / "latin1.txt", "caf\xE9\n");
  const auto ws = open_ws(d);
  auto bin = services::read_file(ws, {.path = "image.png"});
  REQUIRE_FALSE(bin.has_value());
  CHECK(bin.error().code == Error::binary_file);
  CHECK_THAT(bin.error().message, Contains("binary:") && Contains("NUL byte"));
  auto latin = services::read_file(ws, {.path = "latin1.txt"});
  REQUIRE_FALSE(latin.has_value());
  CHECK(latin.error().code == Error::binary_file);
  CHECK_THAT(latin.error().message, Contains("encoding:") && Contains("line 1"));
  // Over the engine's 256 MiB: refused by its size, without reading it (a sparse file).
  { std::ofstream(d / "huge.log"); }
  test::fs::resize_file(d / "huge.log", (256u << 20) + 1);
  auto huge = services::read_file(ws, {.path = "huge.log"});
  REQUIRE_FALSE(huge.has_value());
  CHECK(huge.error().code == Error::file_too_large);
}

TEST_CASE("file_read numbers lines, reads ranges and says what follows", "[files][unit]") {
  TempDir d;
  write_file(d / "a.txt", "alpha\nbeta\ngamma\n");
  write_file(d / "no_newline.txt", "one\ntwo");
  write_file(d / "empty.txt", "");
  write_file(d / "long.txt", numbered_lines(5000));
  const auto ws = open_ws(d);
  json::object a = read(ws, {.path = "a.txt"});
  CHECK(a.at("text") == "     1→alpha\n     2→beta\n     3→gamma\n");
  CHECK(a.at("total_lines") == 3);
  CHECK(a.at("more") == false);
  CHECK(a.at("next_offset").is_null());
  CHECK(read(ws, {.path = "a.txt", .offset = 2, .limit = 1}).at("text") == "     2→beta\n(lines 2-2 of 3; more from offset 3)\n");
  CHECK(read(ws, {.path = "a.txt", .tail = 2, .line_numbers = false}).at("text") == "beta\ngamma\n");
  CHECK(read(ws, {.path = "no_newline.txt", .line_numbers = false}).at("text") == "one\ntwo");
  CHECK(read(ws, {.path = "empty.txt"}).at("text") == "(the file is empty)\n");
  json::object past = read(ws, {.path = "a.txt", .offset = 10});
  CHECK(past.at("lines") == 0);
  CHECK(past.at("first_line") == 0);
  CHECK(past.at("more") == false);
  CHECK(past.at("text") == "(no line 10: the file has 3 lines)\n");
  // The default range: 2000 lines, then next_offset, until the whole file came, exactly.
  json::object first = read(ws, {.path = "long.txt"});
  CHECK(first.at("lines") == 2000);
  CHECK(first.at("next_offset") == 2001);
  std::string whole;
  std::int64_t offset = 1;
  for (int calls = 0; calls < 10 && offset > 0; ++calls) {
    json::object part = read(ws, {.path = "long.txt", .offset = offset, .line_numbers = false});
    whole += part.at("text").as_string();
    offset = part.at("more").as_bool() ? part.at("next_offset").as_int64() : 0;
  }
  CHECK(whole == numbered_lines(5000));
}

TEST_CASE("file_read stops at its byte bound on a whole line, and refuses a line over it", "[files][unit]") {
  TempDir d;
  const std::string row(1000, 'x');
  std::string wide;
  for (int i = 0; i < 500; ++i) wide += row + "\n";
  write_file(d / "wide.txt", wide);
  write_file(d / "one_line.min.js", std::string(services::max_read_bytes + 10, 'y') + "\nz\n");
  const auto ws = open_ws(d);
  json::object part = read(ws, {.path = "wide.txt"});
  CHECK(part.at("text").as_string().size() <= services::max_read_bytes);
  CHECK(part.at("more") == true);
  const std::int64_t got = part.at("lines").as_int64();
  CHECK(got > 100);
  CHECK(got < 500);
  CHECK(part.at("next_offset") == got + 1);
  auto over = services::read_file(ws, {.path = "one_line.min.js"});
  REQUIRE_FALSE(over.has_value());
  CHECK(over.error().code == Error::file_too_large);
  CHECK_THAT(over.error().message, Contains("line 1 "));
  CHECK(read(ws, {.path = "one_line.min.js", .offset = 2, .line_numbers = false}).at("text") == "z\n");
}

TEST_CASE("file_read of a file an editor saves at the same moment gets one version of it", "[files][unit]") {
  TempDir d;
  const std::string a = numbered_lines(3000), b = std::string(50000, 'b') + "\n";
  write_file(d / "live.txt", a);
  const auto ws = open_ws(d);
  for (const bool in_place : {false, true}) {
    INFO((in_place ? "saved in place" : "saved by rename"));
    std::atomic<bool> stop{false};
    std::thread editor([&] {
      for (int i = 0; !stop; ++i) {
        const std::string& text = i % 2 ? a : b;
        if (in_place) {
          write_file(d / "live.txt", text);
        } else {
          write_file(d / "tmp.txt", text);
          test::fs::rename(d / "tmp.txt", d / "live.txt");
        }
      }
    });
    int read_whole = 0;
    for (int i = 0; i < 200; ++i) {
      auto r = services::read_file(ws, {.path = "live.txt", .limit = 10000, .line_numbers = false});
      if (!r) {
        // Changed under every attempt: said so, never a torn text.
        CHECK(r.error().code == Error::conflict);
        continue;
      }
      const std::string text(r->at("text").as_string());
      if (text == a || text == b) ++read_whole;
      else if (in_place) CHECK((a.starts_with(text) || b.starts_with(text)));  // the file as it was, mid-save
      else FAIL("a save by rename gave a text that is neither version: " << text.size() << " bytes");
    }
    stop = true;
    editor.join();
    CHECK(read_whole > 0);
  }
}

TEST_CASE("file_list lists depth first in name order, marks ignored folders without entering them, never .git",
          "[files][unit]") {
  TempDir d, outside;
  write_file(d / "src/main.cpp", "int main() {}\n");
  write_file(d / "src/util/str.cpp", "x\n");
  write_file(d / "src/main.o", "\x7f" "ELF");
  write_file(d / "build/out.bin", "x");
  write_file(d / "build/sub/deep.txt", "x");
  write_file(d / ".git/HEAD", "ref: refs/heads/main\n");
  write_file(d / "README.md", "# r\n");
  write_file(outside / "secret.txt", "s\n");
  symlink_to(outside.str(), d / "out");
  const auto ws = open_ws(d);
  auto r = services::list_files(ws, {.path = ""}, ignored);
  REQUIRE(r.has_value());
  CHECK(r->at("text") == "README.md\nbuild/ (ignored)\nout (symlink)\nsrc/\nsrc/main.cpp\nsrc/main.o (ignored)\nsrc/util/\n");
  CHECK(r->at("cut") == false);
  const json::object& readme = r->at("entries").as_array().at(0).as_object();
  CHECK(readme.at("kind") == "file");
  CHECK(readme.at("size") == 4);
  // An ignored folder named as path is listed; the symlink out is not entered.
  auto build = services::list_files(ws, {.path = "build"}, ignored);
  REQUIRE(build.has_value());
  CHECK(build->at("text") == "build/out.bin\nbuild/sub/\nbuild/sub/deep.txt\n");
  auto deep = services::list_files(ws, {.path = "./src", .depth = 5}, ignored);
  REQUIRE(deep.has_value());
  CHECK(deep->at("text") == "src/main.cpp\nsrc/main.o (ignored)\nsrc/util/\nsrc/util/str.cpp\n");
  for (const char* bad : {"out", "..", ".git", "/tmp"}) {
    INFO(bad);
    auto refused = services::list_files(ws, {.path = bad}, ignored);
    REQUIRE_FALSE(refused.has_value());
    CHECK(refused.error().code == Error::path_refused);
  }
  auto file = services::list_files(ws, {.path = "README.md"}, ignored);
  REQUIRE_FALSE(file.has_value());
  CHECK(file.error().code == Error::not_found);
}

TEST_CASE("file_list stops at its limit and says so", "[files][unit]") {
  TempDir d;
  for (int i = 0; i < 30; ++i) write_file(d / ("f" + std::to_string(100 + i) + ".txt"), "x\n");
  const auto ws = open_ws(d);
  auto r = services::list_files(ws, {.path = "", .depth = 1, .limit = 10}, ignored);
  REQUIRE(r.has_value());
  CHECK(r->at("entries").as_array().size() == 10);
  CHECK(r->at("cut") == true);
  CHECK_THAT(std::string(r->at("text").as_string()), Contains("f109.txt\n(cut at 10 entries"));
}

TEST_CASE("a name with a newline cannot print a line of its own in the listing's or the search's text",
          "[files][unit]") {
  TempDir d;
  write_file(d / "a\nx.cpp (ignored)", "needle\n");
  const auto ws = open_ws(d);
  auto listed = services::list_files(ws, {.path = ""}, ignored);
  REQUIRE(listed.has_value());
  CHECK(std::string(listed->at("text").as_string()) == "a\\x0ax.cpp (ignored)\n");
  CHECK(listed->at("entries").as_array().at(0).at("path") == "a\nx.cpp (ignored)");
  auto found = services::search_files(ws, {.pattern = "needle"}, ignored);
  REQUIRE(found.has_value());
  CHECK(std::string(found->at("text").as_string()) == "a\\x0ax.cpp (ignored):1: needle\n");
}

TEST_CASE("file_read of a file of many empty lines reads its range and counts them all", "[files][unit]") {
  TempDir d;
  write_file(d / "empty.txt", std::string(1u << 20, '\n') + "last");
  const auto ws = open_ws(d);
  const json::object r = read(ws, {.path = "empty.txt", .tail = 2});
  CHECK(r.at("total_lines") == (1 << 20) + 1);
  CHECK(r.at("first_line") == 1 << 20);
  CHECK(std::string(r.at("text").as_string()) == "1048576\xE2\x86\x92\n1048577\xE2\x86\x92last\n");
}

TEST_CASE("file_search finds a fixed string a line at a time, skips what it cannot read as text, and is bounded",
          "[files][unit]") {
  TempDir d;
  write_file(d / "src/a.cpp", "int x = 1;\n// TODO: x\nint y = TODO();\n");
  write_file(d / "src/b.h", "todo lower\n");
  write_file(d / "src/c.cpp", "(.*)+ literal\n");
  write_file(d / "src/main.o", "TODO in an ignored file\n");
  write_file(d / "build/gen/gen.cpp", "TODO in an ignored folder\n");
  write_file(d / "bin.dat", std::string("TODO\0\0", 6));
  write_file(d / ".git/TODO", "TODO\n");
  const auto ws = open_ws(d);
  auto r = services::search_files(ws, {.pattern = "TODO"}, ignored);
  REQUIRE(r.has_value());
  CHECK(r->at("text") == "src/a.cpp:2: // TODO: x\nsrc/a.cpp:3: int y = TODO();\n");
  CHECK(r->at("skipped") == 1);  // bin.dat
  CHECK(r->at("cut").is_null());
  auto folded = services::search_files(ws, {.pattern = "TODO", .glob = "*.h", .ignore_case = true}, ignored);
  REQUIRE(folded.has_value());
  CHECK(folded->at("text") == "src/b.h:1: todo lower\n");
  // A fixed string: what would be a runaway regular expression is text.
  auto literal = services::search_files(ws, {.pattern = "(.*)+"}, ignored);
  REQUIRE(literal.has_value());
  CHECK(literal->at("text") == "src/c.cpp:1: (.*)+ literal\n");
  // An ignored folder named as path is searched.
  auto named = services::search_files(ws, {.pattern = "TODO", .path = "build"}, ignored);
  REQUIRE(named.has_value());
  CHECK(named->at("text") == "build/gen/gen.cpp:1: TODO in an ignored folder\n");
  auto limited = services::search_files(ws, {.pattern = "TODO", .limit = 1}, ignored);
  REQUIRE(limited.has_value());
  CHECK(limited->at("matches").as_array().size() == 1);
  CHECK(limited->at("cut") == "matches");
  auto none = services::search_files(ws, {.pattern = "nowhere"}, ignored);
  REQUIRE(none.has_value());
  CHECK(none->at("text") == "(no match in 3 files)\n");
  auto refused = services::search_files(ws, {.pattern = "x", .path = "../"}, ignored);
  REQUIRE_FALSE(refused.has_value());
  CHECK(refused.error().code == Error::path_refused);
}

TEST_CASE("file_search stops at its file bound and names it", "[files][unit]") {
  TempDir d;
  // A file over the per-file bound is skipped, never read whole.
  { std::ofstream(d / "big.txt"); }
  test::fs::resize_file(d / "big.txt", services::max_search_file_bytes + 1);
  write_file(d / "small.txt", "needle\n");
  const auto ws = open_ws(d);
  auto r = services::search_files(ws, {.pattern = "needle"}, ignored);
  REQUIRE(r.has_value());
  CHECK(r->at("skipped") == 1);
  CHECK(r->at("files") == 1);
  CHECK(r->at("text") == "small.txt:1: needle\n");
}
