// The streaming parser: the edit protocol's parsing tests, the path-line rules,
// malformed and incomplete blocks, and chunking that must not matter.
#include "support.hpp"

#include <catch2/catch.hpp>

#include <random>

using editproto::Block;
using editproto::Parser;
using editproto::Reason;
using test::block;
using test::parse;

namespace {
const std::string E = "\xC2\xAB\xC2\xAB\xC2\xAB EDIT";
const std::string R = "\xE2\x95\x90\xE2\x95\x90\xE2\x95\x90\xE2\x95\x90\xE2\x95\x90\xE2\x95\x90\xE2\x95\x90 REPL";
const std::string X = "\xC2\xBB\xC2\xBB\xC2\xBB EDIT END";

std::string path_of(const std::string& path_line) {
  auto blocks = parse(path_line + "\n" + E + "\na\n" + R + "\nb\n" + X + "\n");
  REQUIRE(blocks.size() == 1);
  return blocks[0].ok() ? blocks[0].path : "<" + std::string(editproto::to_string(blocks[0].parse_error.reason)) + ">";
}
}  // namespace

TEST_CASE("parser extracts a block from prose: path / anchor / old and new lines") {
  auto blocks = parse("I found the bug.\n\nsrc/math.py\n" + E + "\ndef multiply(a, b):\n    return a + b  # BUG\n" +
                      R + "\ndef multiply(a, b):\n    return a * b\n" + X + "\n\nThat fixes it.\n");
  REQUIRE(blocks.size() == 1);
  const Block& b = blocks[0];
  CHECK(b.ok());
  CHECK(b.path == "src/math.py");
  CHECK(b.index == 0);
  CHECK(b.line == 4);
  CHECK(test::strings(b.edit) == std::vector<std::string>{"def multiply(a, b):", "    return a + b  # BUG"});
  CHECK(test::strings(b.repl) == std::vector<std::string>{"def multiply(a, b):", "    return a * b"});
}

TEST_CASE("parser handles create / insert and delete blocks and several blocks in one response") {
  auto blocks = parse(block("src/new.py", {}, {"def hello():", "    print('hi')"}) + "text\n" +
                      block("src/utils.py", {"import os"}, {"import os", "import sys"}) +
                      block("src/utils.py", {"import os", "import deprecated", "import sys"}, {"import os", "import sys"}));
  REQUIRE(blocks.size() == 3);
  CHECK(blocks[0].edit.empty());
  CHECK(blocks[0].repl.size() == 2);
  CHECK(blocks[1].repl.size() == 2);
  CHECK(blocks[2].edit.size() == 3);
  CHECK(blocks[2].index == 2);
}

TEST_CASE("path line rules") {
  CHECK(path_of("src/a.py") == "src/a.py");
  CHECK(path_of("CMakeLists.txt") == "CMakeLists.txt");   // bare file name
  CHECK(path_of("Makefile") == "Makefile");
  CHECK(path_of(".gitignore") == ".gitignore");
  CHECK(path_of("`src/a.py`") == "src/a.py");
  CHECK(path_of("**src/a.py**") == "src/a.py");
  CHECK(path_of("__src/a.py__") == "src/a.py");
  CHECK(path_of("### src/a.py") == "src/a.py");
  CHECK(path_of("src/a.py:") == "src/a.py");
  CHECK(path_of("**`src/a.py`**:") == "src/a.py");
  CHECK(path_of("   src/a.py   ") == "src/a.py");
  CHECK(path_of("`docs/my notes.md`") == "docs/my notes.md");  // spaces only when quoted
  CHECK(path_of("src\\win\\a.py") == "src\\win\\a.py");          // normalised later, by the workspace
  // Not paths: comments, list items, quotes, prose, URLs.
  CHECK(path_of("// src/a.js") == "<missing_path>");
  CHECK(path_of("# see src/a.py for details") == "<missing_path>");
  CHECK(path_of("- src/a.py") == "<missing_path>");
  CHECK(path_of("> src/a.py") == "<missing_path>");
  CHECK(path_of("* src/a.py") == "<missing_path>");
  CHECK(path_of("Here is the change:") == "<missing_path>");
  CHECK(path_of("https://example.com/a.py") == "<missing_path>");
  CHECK(path_of("See the end.") == "<missing_path>");
  CHECK(path_of(std::string(250, 'a') + "/b.py") == "<missing_path>");
}

TEST_CASE("the path line is found behind a code fence opener") {
  auto blocks = parse("src/a.py\n```python\n" + E + "\nx = 1\n" + R + "\nx = 2\n" + X + "\n```\n");
  REQUIRE(blocks.size() == 1);
  CHECK(blocks[0].path == "src/a.py");
  // Blocks inside fences are blocks; the next fence opener is looked past too.
  blocks = parse("```\nsrc/a.py\n" + E + "\na\n" + R + "\nb\n" + X + "\n```\n\nsrc/b.py\n```js\n" + E + "\nc\n" + R +
                 "\nd\n" + X + "\n```\n");
  REQUIRE(blocks.size() == 2);
  CHECK(blocks[0].path == "src/a.py");
  CHECK(blocks[1].path == "src/b.py");
}

TEST_CASE("a block right after another reuses its path - the first one fails missing_path") {
  auto blocks = parse(E + "\na\n" + R + "\nb\n" + X + "\n" + block("src/a.py", {"c"}, {"d"}) + "\n\n" +
                      E + "\ne\n" + R + "\nf\n" + X + "\n");
  REQUIRE(blocks.size() == 3);
  CHECK(blocks[0].parse_error.reason == Reason::missing_path);
  CHECK_THAT(blocks[0].parse_error.detail, Catch::Contains("line 1"));
  CHECK(blocks[1].path == "src/a.py");
  CHECK_FALSE(blocks[1].path_reused);
  CHECK(blocks[2].path == "src/a.py");
  CHECK(blocks[2].path_reused);
  CHECK(blocks[2].ok());
}

TEST_CASE("marker lines are recognised after trimming - content lines keep their white space") {
  auto blocks = parse("1. First:\n   src/a.py\n   " + E + "  \n    indented\n\tTab\n  \xE2\x95\x90\xE2\x95\x90\xE2\x95\x90 REPL\n"
                      "    changed\n   " + X + "\t\n");
  REQUIRE(blocks.size() == 1);
  CHECK(blocks[0].ok());
  CHECK(test::strings(blocks[0].edit) == std::vector<std::string>{"    indented", "\tTab"});
  CHECK(test::strings(blocks[0].repl) == std::vector<std::string>{"    changed"});
}

TEST_CASE("CRLF responses parse like LF ones") {
  std::string lf = block("src/a.py", {"a", "b"}, {"a", "c"});
  std::string crlf;
  for (char c : lf) {
    if (c == '\n') crlf += '\r';
    crlf += c;
  }
  auto x = parse(lf), y = parse(crlf);
  REQUIRE(y.size() == 1);
  CHECK(test::strings(y[0].edit) == test::strings(x[0].edit));
  CHECK(test::strings(y[0].repl) == test::strings(x[0].repl));
  CHECK(y[0].path == "src/a.py");
}

TEST_CASE("malformed blocks are reported with the line that broke them") {
  SECTION("END without a REPL separator") {
    auto blocks = parse("src/a.py\n" + E + "\na\n" + X + "\n");
    REQUIRE(blocks.size() == 1);
    CHECK(blocks[0].parse_error.reason == Reason::malformed_block);
    CHECK_THAT(blocks[0].parse_error.detail, Catch::Contains("REPL"));
  }
  SECTION("a second REPL separator") {
    auto blocks = parse("src/a.py\n" + E + "\na\n" + R + "\nb\n" + R + "\nc\n" + X + "\n");
    REQUIRE(blocks.size() == 1);
    CHECK(blocks[0].parse_error.reason == Reason::malformed_block);
    CHECK_THAT(blocks[0].parse_error.detail, Catch::Contains("line 6"));
  }
  SECTION("a new EDIT before END: the open block fails, the new one is read") {
    auto blocks = parse("src/a.py\n" + E + "\na\n" + R + "\nb\n" + block("src/b.py", {"c"}, {"d"}));
    REQUIRE(blocks.size() == 2);
    CHECK(blocks[0].parse_error.reason == Reason::malformed_block);
    CHECK(blocks[0].path == "src/a.py");
    CHECK(blocks[1].ok());
    CHECK(blocks[1].path == "src/b.py");  // the line before the new opener names its file, even inside the open block
  }
  SECTION("an unclosed block followed by a prose line and an opener: no path is reused") {
    auto blocks = parse("src/a.py\n" + E + "\na\n" + R + "\n    return b\n\n" + E + "\nc\n" + R + "\nd\n" + X + "\n");
    REQUIRE(blocks.size() == 2);
    CHECK(blocks[0].parse_error.reason == Reason::malformed_block);
    CHECK(blocks[1].parse_error.reason == Reason::missing_path);
    CHECK_THAT(blocks[1].parse_error.detail, Catch::Contains("line 5, \"return b\", is not a path") &&
                                                 Catch::Contains("the block at line 2 was not closed"));
  }
}

TEST_CASE("a block still open at end of stream is incomplete_block") {
  auto blocks = parse("src/a.py\n" + E + "\na\n" + R + "\nb\n");
  REQUIRE(blocks.size() == 1);
  CHECK(blocks[0].parse_error.reason == Reason::incomplete_block);
  CHECK(blocks[0].edit.empty());  // nothing partial survives
  blocks = parse("src/a.py\n" + E + "\na\n");
  REQUIRE(blocks.size() == 1);
  CHECK(blocks[0].parse_error.reason == Reason::incomplete_block);
}

TEST_CASE("a block comes out the moment its END line is complete") {
  Parser p;
  std::vector<Block> out;
  p.feed("src/a.py\n" + E + "\na\n" + R + "\nb\n" + X, out);
  CHECK(out.empty());  // END seen, but its line may still go on
  p.feed("\r", out);
  CHECK(out.empty());
  p.feed("\nafter", out);
  REQUIRE(out.size() == 1);
  CHECK(out[0].ok());
  // END on the very last line without a newline still closes the block.
  Parser q;
  out.clear();
  q.feed("src/a.py\n" + E + "\na\n" + R + "\nb\n" + X, out);
  q.finish(out);
  REQUIRE(out.size() == 1);
  CHECK(out[0].ok());
}

TEST_CASE("size limits: a block or a response over the limit fails too_large") {
  editproto::Limits limits;
  limits.max_block_bytes = 100;
  auto blocks = parse(block("src/a.py", {std::string(80, 'x')}, {std::string(80, 'y')}) + block("src/a.py", {"a"}, {"b"}),
                      limits);
  REQUIRE(blocks.size() == 2);
  CHECK(blocks[0].parse_error.reason == Reason::too_large);
  CHECK(blocks[0].edit.empty());
  CHECK(blocks[1].ok());

  editproto::Limits small;
  small.max_response_bytes = 60;
  blocks = parse(block("src/a.py", {"a"}, {"b"}) + block("src/a.py", {"c"}, {"d"}), small);
  REQUIRE(blocks.size() == 1);
  CHECK(blocks[0].parse_error.reason == Reason::too_large);
  CHECK_THAT(blocks[0].parse_error.detail, Catch::Contains("60 bytes"));
}

// Property: for any chunking, the blocks are exactly those of one whole feed.
TEST_CASE("streaming: random chunk sizes give exactly the blocks of feeding the response whole") {
  std::vector<std::string> corpus = {
      "Intro\n\nsrc/a.py\n" + E + "\ndef f():\n    return '\xE2\x80\x99quoted\xE2\x80\x99'\n" + R +
          "\ndef f():\n    return \"\xC3\xA9t\xC3\xA9\"\n" + X + "\n",
      block("src/new.py", {}, {"x = 1"}) + block("src/b.c", {"int a;"}, {"int a;", "int b;"}) + "Bye\n",
      "```\n**src/c.md**\n" + E + "\n# Title\n" + R + "\n# \xF0\x9F\x98\x80 Title\n" + X + "\n```\n" + E + "\nq\n" + R +
          "\nr\n" + X + "\n",
      "src/a.py\n" + E + "\na\n" + R + "\nb\n" + R + "\nc\n" + X + "\nsrc/b.py\n" + E + "\nunfinished\n",
      "CMakeLists.txt\r\n" + E + "\r\nproject(x)\r\n" + R + "\r\nproject(y)\r\n" + X + "\r\n\r\n" + X + "\r\n",
  };
  std::string all;
  for (const std::string& c : corpus) all += c;
  corpus.push_back(all);

  std::mt19937 rng(12345);
  for (const std::string& response : corpus) {
    const std::vector<Block> whole = parse(response);
    for (int round = 0; round < 60; ++round) {
      Parser p;
      std::vector<Block> got;
      std::size_t max_chunk = round < 5 ? 1 : 1 + rng() % (round < 30 ? 4 : 40);
      for (std::size_t at = 0; at < response.size();) {
        std::size_t n = std::min<std::size_t>(1 + rng() % max_chunk, response.size() - at);
        p.feed(std::string_view(response).substr(at, n), got);
        at += n;
      }
      p.finish(got);
      REQUIRE(got.size() == whole.size());
      for (std::size_t i = 0; i < got.size(); ++i) {
        CHECK(got[i].index == whole[i].index);
        CHECK(got[i].line == whole[i].line);
        CHECK(got[i].path == whole[i].path);
        CHECK(got[i].path_reused == whole[i].path_reused);
        CHECK(test::strings(got[i].edit) == test::strings(whole[i].edit));
        CHECK(test::strings(got[i].repl) == test::strings(whole[i].repl));
        CHECK(got[i].parse_error.reason == whole[i].parse_error.reason);
        CHECK(got[i].parse_error.detail == whole[i].parse_error.detail);
      }
    }
    // Splits at every byte boundary, one at a time: inside "\r\n" and inside
    // every multi-byte marker character.
    for (std::size_t cut = 1; cut < response.size(); ++cut) {
      Parser p;
      std::vector<Block> got;
      p.feed(std::string_view(response).substr(0, cut), got);
      p.feed(std::string_view(response).substr(cut), got);
      p.finish(got);
      REQUIRE(got.size() == whole.size());
      for (std::size_t i = 0; i < got.size(); ++i) {
        REQUIRE(test::strings(got[i].edit) == test::strings(whole[i].edit));
        REQUIRE(test::strings(got[i].repl) == test::strings(whole[i].repl));
        REQUIRE(got[i].path == whole[i].path);
      }
    }
  }
}

TEST_CASE("a root file without an extension on the line before the opener is a path") {
  CHECK(path_of("COPYING") == "COPYING");
  CHECK(path_of("AUTHORS") == "AUTHORS");
  CHECK(path_of("wscript") == "wscript");
  CHECK(path_of("**wscript**") == "wscript");
  CHECK(path_of("`COPYING`") == "COPYING");
  // A single word that ends with a colon is a label, not a file.
  CHECK(path_of("Here:") == "<missing_path>");
  CHECK(path_of("**Fix:**") == "<missing_path>");
  // Nor is a word without a letter or a digit, or one that ends a sentence.
  CHECK(path_of("}") == "<missing_path>");
  CHECK(path_of("Done.") == "<missing_path>");
}

TEST_CASE("paths may contain spaces - prose with a separator stays prose") {
  // A path: a separator, a file name with an extension at the end, no sentence punctuation.
  CHECK(path_of("docs/release notes.md") == "docs/release notes.md");
  CHECK(path_of("My Documents/notes 2024.txt") == "My Documents/notes 2024.txt");
  CHECK(path_of("**docs/release notes.md**") == "docs/release notes.md");
  CHECK(path_of("`docs/release notes`") == "docs/release notes");  // backticks: any path
  // Prose: ends with a colon, a word ends with punctuation, or the last part is no file name.
  CHECK(path_of("Now edit src/a.py:") == "<missing_path>");
  CHECK(path_of("In src/a.py, change the loop") == "<missing_path>");
  CHECK(path_of("Update the input/output code") == "<missing_path>");
  CHECK(path_of("See src/a.py for details.") == "<missing_path>");
  CHECK(path_of("Is src/a.py right?") == "<missing_path>");
  CHECK(path_of("src/a.py (new file)") == "<missing_path>");
  CHECK(path_of("docs/release notes") == "<missing_path>");
}

TEST_CASE("the previous path is reused only when nothing stands between the blocks") {
  SECTION("blank lines and code fences between two blocks: reused") {
    auto blocks = parse(block("src/a.py", {"a"}, {"b"}) + "\n```\n\n```python\n" + E + "\nc\n" + R + "\nd\n" + X + "\n");
    REQUIRE(blocks.size() == 2);
    CHECK(blocks[1].ok());
    CHECK(blocks[1].path == "src/a.py");
    CHECK(blocks[1].path_reused);
  }
  SECTION("a prose line between: the block fails and says why that line is not a path") {
    auto blocks = parse(block("README.txt", {"a"}, {"b"}) + "\nNow the other change:\n\n" + E + "\nc\n" + R + "\nd\n" + X + "\n");
    REQUIRE(blocks.size() == 2);
    CHECK(blocks[1].parse_error.reason == Reason::missing_path);
    CHECK_FALSE(blocks[1].path_reused);
    CHECK_THAT(blocks[1].parse_error.detail, Catch::Contains("line 8, \"Now the other change:\", is not a path") &&
                                                 Catch::Contains("no / or \\") &&
                                                 Catch::Contains("the previous block's path is reused only when"));
  }
  SECTION("prose further up, fences right before: still fails") {
    auto blocks = parse(block("a.txt", {"a"}, {"b"}) + "Some words.\n```\n```js\n" + E + "\nc\n" + R + "\nd\n" + X + "\n");
    REQUIRE(blocks.size() == 2);
    CHECK(blocks[1].parse_error.reason == Reason::missing_path);
    CHECK_THAT(blocks[1].parse_error.detail, Catch::Contains("line 7, \"Some words.\""));
  }
  SECTION("after a block that failed missing_path, nothing is reused from further back") {
    auto blocks = parse(block("a.txt", {"a"}, {"b"}) + "Words\nmore words\n" + E + "\nc\n" + R + "\nd\n" + X + "\n" + E + "\ne\n" + R +
                        "\nf\n" + X + "\n");
    REQUIRE(blocks.size() == 3);
    CHECK(blocks[1].parse_error.reason == Reason::missing_path);
    CHECK(blocks[2].parse_error.reason == Reason::missing_path);
  }
}


TEST_CASE("stray markers are warnings, not blocks") {
  SECTION("a REPL or END line outside any block") {
    Parser p;
    std::vector<Block> blocks;
    p.feed("text\n" + R + "\nmore\n" + X + "\n" + block("src/a.py", {"a"}, {"b"}), blocks);
    p.finish(blocks);
    REQUIRE(blocks.size() == 1);
    CHECK(blocks[0].ok());
    CHECK(blocks[0].index == 0);
    const auto& w = p.warnings();
    REQUIRE(w.size() == 2);
    CHECK(w[0].line == 2);
    CHECK(w[0].code == editproto::WarningCode::stray_marker);
    CHECK_THAT(w[0].message, Catch::Contains("REPL line outside any block"));
    CHECK(w[1].line == 4);
    CHECK_THAT(w[1].message, Catch::Contains("EDIT END line outside any block"));
  }
  SECTION("an opener quoted in prose, with no path line and no REPL line before the next opener") {
    Parser p;
    std::vector<Block> blocks;
    p.feed("Each block starts with\n" + E + "\nand its path goes on the line before.\n\nsrc/a.py\n" + E + "\na\n" + R + "\nb\n" +
               X + "\n",
           blocks);
    p.finish(blocks);
    REQUIRE(blocks.size() == 1);
    CHECK(blocks[0].ok());
    CHECK(blocks[0].index == 0);
    CHECK(blocks[0].path == "src/a.py");
    REQUIRE(p.warnings().size() == 1);
    CHECK(p.warnings()[0].line == 2);
    CHECK_THAT(p.warnings()[0].message, Catch::Contains("line 6"));
  }
}
