// Applying blocks: every operation, line endings, partial failure and the
// edit-protocol validation and application tests.
#include "support.hpp"

#include <catch2/catch.hpp>

#include <sys/resource.h>
#include <sys/stat.h>

#include <csignal>
#include <random>

using editproto::Reason;
using editproto::Status;
using test::apply_response;
using test::block;
using test::read_file;
using test::check_response;
using test::TempDir;
using test::write_file;

TEST_CASE("modify: anchor plus old lines become new lines / the rest is untouched") {
  TempDir d;
  write_file(d / "src/math.py", "import os\n\ndef multiply(a, b):\n    return a + b  # BUG\n\nprint(1)\n");
  auto r = apply_response(d.str(), block("src/math.py", {"def multiply(a, b):", "    return a + b  # BUG"},
                                {"def multiply(a, b):", "    return a * b"}));
  REQUIRE(r.results.size() == 1);
  CHECK(r.results[0].status == Status::applied);
  CHECK(r.results[0].reason == Reason::none);
  CHECK(r.results[0].line.value_or(0) == 3);
  CHECK(r.results[0].lines_removed == 1);
  CHECK(r.results[0].lines_added == 1);
  CHECK(read_file(d / "src/math.py") == "import os\n\ndef multiply(a, b):\n    return a * b\n\nprint(1)\n");
}

TEST_CASE("insert after the anchor / delete lines / create a file with its parents") {
  TempDir d;
  write_file(d / "u.py", "import os\nimport deprecated\nimport sys\n");
  auto r = apply_response(d.str(), block("u.py", {"import os", "import deprecated", "import sys"}, {"import os", "import sys"}) +
                              block("u.py", {"import os"}, {"import os", "import re"}) +
                              block("pkg/sub/new.py", {}, {"def hello():", "    print('hi')"}));
  REQUIRE(r.results.size() == 3);
  for (const auto& x : r.results) CHECK(x.status == Status::applied);
  CHECK(read_file(d / "u.py") == "import os\nimport re\nimport sys\n");
  CHECK(read_file(d / "pkg/sub/new.py") == "def hello():\n    print('hi')\n");
}

TEST_CASE("create never overwrites: file_exists") {
  TempDir d;
  write_file(d / "a.txt", "keep me\n");
  auto r = apply_response(d.str(), block("a.txt", {}, {"new"}));
  CHECK(r.results[0].status == Status::failed);
  CHECK(r.results[0].reason == Reason::file_exists);
  CHECK_THAT(r.results[0].diagnostic, Catch::Contains("already exists (1 line)"));
  CHECK(read_file(d / "a.txt") == "keep me\n");
}

TEST_CASE("identical sections are skipped with no_change") {
  TempDir d;
  write_file(d / "a.txt", "x\n");
  auto r = apply_response(d.str(), block("a.txt", {"x"}, {"x"}));
  CHECK(r.results[0].status == Status::skipped);
  CHECK(r.results[0].reason == Reason::no_change);
}

TEST_CASE("dry run validates without writing") {
  TempDir d;
  write_file(d / "a.txt", "one\ntwo\n");
  auto r = check_response(d.str(), block("a.txt", {"one", "two"}, {"one", "2"}) + block("b/new.txt", {}, {"n"}));
  CHECK(r.results[0].status == Status::validated);
  CHECK(r.results[1].status == Status::validated);
  CHECK(read_file(d / "a.txt") == "one\ntwo\n");
  CHECK_FALSE(test::fs::exists(d / "b"));
}

TEST_CASE("blocks apply in order / each on the file as the previous left it") {
  TempDir d;
  write_file(d / "app.py", "def process():\n    step_one()\n    step_two()\n");
  SECTION("a dependent second block matches the first block's result") {
    auto r = apply_response(d.str(), block("app.py", {"def process():", "    step_one()"}, {"def process():", "    step_one_updated()"}) +
                                block("app.py", {"    step_one_updated()", "    step_two()"},
                                      {"    step_one_updated()", "    step_two_updated()"}));
    CHECK(r.results[0].status == Status::applied);
    CHECK(r.results[1].status == Status::applied);
    CHECK(read_file(d / "app.py") == "def process():\n    step_one_updated()\n    step_two_updated()\n");
  }
  SECTION("the WRONG example: the second block's anchor was changed by the first") {
    auto r = apply_response(d.str(), block("app.py", {"def process():", "    step_one()"}, {"def process():", "    step_one_updated()"}) +
                                block("app.py", {"    step_one()", "    step_two()"}, {"    step_one()", "    step_two_updated()"}));
    CHECK(r.results[0].status == Status::applied);
    CHECK(r.results[1].status == Status::failed);
    CHECK(read_file(d / "app.py") == "def process():\n    step_one_updated()\n    step_two()\n");
  }
}

TEST_CASE("partial failure: failed blocks change nothing / the others still apply / nothing is rolled back") {
  TempDir d;
  write_file(d / "a.txt", "a1\na2\n");
  write_file(d / "b.txt", "b1\nb2\n");
  auto r = apply_response(d.str(), block("a.txt", {"a1"}, {"A1"}) + block("b.txt", {"nope"}, {"x"}) +
                              block("missing.txt", {"q"}, {"r"}) + block("b.txt", {"b2"}, {"B2"}));
  REQUIRE(r.results.size() == 4);
  CHECK(r.results[0].status == Status::applied);
  CHECK(r.results[1].reason == Reason::anchor_not_found);
  CHECK(r.results[2].reason == Reason::file_not_found);
  CHECK(r.results[3].status == Status::applied);
  CHECK(read_file(d / "a.txt") == "A1\na2\n");
  CHECK(read_file(d / "b.txt") == "b1\nB2\n");
}

TEST_CASE("the whole EDIT section must occur once - a unique section is fine where the anchor repeats") {
  TempDir d;
  write_file(d / "c.py", "def f():\n    return 1\n\ndef g():\n    return 1\n");
  SECTION("ambiguous: every line number is listed") {
    auto r = apply_response(d.str(), block("c.py", {"    return 1"}, {"    return 2"}));
    CHECK(r.results[0].reason == Reason::ambiguous);
    CHECK(r.results[0].status == Status::failed);
    CHECK(r.results[0].line.value_or(0) == 2);
    CHECK_THAT(r.results[0].diagnostic, Catch::Contains("occurs 2 times, starting at lines 2, 5"));
    CHECK(read_file(d / "c.py") == "def f():\n    return 1\n\ndef g():\n    return 1\n");
  }
  SECTION("unique with more context") {
    auto r = apply_response(d.str(), block("c.py", {"def g():", "    return 1"}, {"def g():", "    return 2"}));
    CHECK(r.results[0].status == Status::applied);
    CHECK(read_file(d / "c.py") == "def f():\n    return 1\n\ndef g():\n    return 2\n");
  }
}

TEST_CASE("line endings / BOM and final newline are preserved byte for byte") {
  TempDir d;
  SECTION("CRLF file edited by an LF block keeps CRLF") {
    write_file(d / "w.txt", "one\r\ntwo\r\nthree\r\n");
    apply_response(d.str(), block("w.txt", {"one", "two"}, {"one", "2", "2b"}));
    CHECK(read_file(d / "w.txt") == "one\r\n2\r\n2b\r\nthree\r\n");
  }
  SECTION("mixed endings: untouched lines keep theirs, new lines take their neighbours' when both agree") {
    write_file(d / "m.txt", "a\r\nb\nc\r\nd\n");
    apply_response(d.str(), block("m.txt", {"b", "c"}, {"b", "C", "C2"}));
    CHECK(read_file(d / "m.txt") == "a\r\nb\nC\nC2\nd\n");
  }
  SECTION("a missing final newline stays missing") {
    write_file(d / "n.txt", "a\nb");
    apply_response(d.str(), block("n.txt", {"a", "b"}, {"a", "B"}));
    CHECK(read_file(d / "n.txt") == "a\nB");
    apply_response(d.str(), block("n.txt", {"B"}, {"B", "c"}));  // append after the last line
    CHECK(read_file(d / "n.txt") == "a\nB\nc");
    apply_response(d.str(), block("n.txt", {"B", "c"}, {"B"}));  // delete the last line
    CHECK(read_file(d / "n.txt") == "a\nB");
  }
  SECTION("a UTF-8 BOM is kept and does not stop the first line matching") {
    write_file(d / "b.txt", "\xEF\xBB\xBF" "first\nsecond\n");
    auto r = apply_response(d.str(), block("b.txt", {"first"}, {"FIRST"}));
    CHECK(r.results[0].status == Status::applied);
    CHECK(read_file(d / "b.txt") == "\xEF\xBB\xBF" "FIRST\nsecond\n");
  }
  SECTION("blank lines and trailing spaces inside sections are matched exactly") {
    write_file(d / "s.txt", "a\n\n  b  \nc\n");
    auto r = apply_response(d.str(), block("s.txt", {"a", "", "  b  "}, {"a", "", "  B  "}));
    CHECK(r.results[0].status == Status::applied);
    CHECK(read_file(d / "s.txt") == "a\n\n  B  \nc\n");
  }
}

TEST_CASE("the file's mode is kept / including the executable bit") {
  TempDir d;
  write_file(d / "run.sh", "#!/bin/sh\necho a\n");
  ::chmod((d / "run.sh").c_str(), 0751);
  apply_response(d.str(), block("run.sh", {"echo a"}, {"echo b"}));
  struct stat st;
  REQUIRE(::stat((d / "run.sh").c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0751);
  CHECK(read_file(d / "run.sh") == "#!/bin/sh\necho b\n");
}

TEST_CASE("placeholders that would delete code are refused") {
  TempDir d;
  const std::string original = "def f():\n    a = 1\n    b = 2\n    return a + b\n";
  write_file(d / "p.py", original);
  for (const char* ph : {"    # ... existing code ...", "    ...", "    // rest of the code", "    # \xE2\x80\xA6"}) {
    auto r = apply_response(d.str(), block("p.py", {"def f():", "    a = 1", "    b = 2", "    return a + b"},
                                           {"def f():", "    a = 10", ph}));
    CHECK(r.results[0].status == Status::failed);
    CHECK(r.results[0].reason == Reason::placeholder);
    CHECK_THAT(r.results[0].diagnostic, Catch::Contains("REPL line 3"));
  }
  CHECK(read_file(d / "p.py") == original);
  // The same line is fine when it is already in the file (and the EDIT section).
  write_file(d / "q.py", "class A:\n    ...\n");
  auto r = apply_response(d.str(), block("q.py", {"class A:", "    ..."}, {"class B:", "    ..."}));
  CHECK(r.results[0].status == Status::applied);
  // And an insertion deletes nothing, so it is not refused.
  r = apply_response(d.str(), block("q.py", {"class B:"}, {"class B:", "    # ... more to come"}));
  CHECK(r.results[0].status == Status::applied);
}

TEST_CASE("binary and non-UTF-8 files are skipped untouched") {
  TempDir d;
  std::string bin = std::string("abc\n\0def\n", 9);
  write_file(d / "x.bin", bin);
  write_file(d / "latin1.txt", "caf\xE9\nline\n");
  auto r = apply_response(d.str(), block("x.bin", {"abc"}, {"xyz"}) + block("latin1.txt", {"line"}, {"LINE"}));
  CHECK(r.results[0].status == Status::skipped);
  CHECK(r.results[0].reason == Reason::binary);
  CHECK(r.results[1].status == Status::skipped);
  CHECK(r.results[1].reason == Reason::encoding);
  CHECK_THAT(r.results[1].diagnostic, Catch::Contains("byte 0xE9 at line 1, byte 4"));
  CHECK(read_file(d / "x.bin") == bin);
  CHECK(read_file(d / "latin1.txt") == "caf\xE9\nline\n");
}

TEST_CASE("file size limits: too_large for files read and written") {
  TempDir d;
  write_file(d / "big.txt", std::string(2000, 'x') + "\nend\n");
  editproto::Options small;
  small.limits.max_file_bytes = 1000;
  auto r = apply_response(d.str(), block("big.txt", {"end"}, {"END"}), small);
  CHECK(r.results[0].reason == Reason::too_large);
  write_file(d / "s.txt", "a\n");
  r = apply_response(d.str(), block("s.txt", {"a"}, {std::string(1500, 'y')}), small);
  CHECK(r.results[0].status == Status::failed);
  CHECK(r.results[0].reason == Reason::too_large);
  CHECK(read_file(d / "s.txt") == "a\n");
}

TEST_CASE("missing path / malformed and incomplete blocks fail and change nothing") {
  TempDir d;
  write_file(d / "a.txt", "a\n");
  const std::string E = "\xC2\xAB\xC2\xAB\xC2\xAB EDIT\n";
  auto r = apply_response(d.str(), E + "a\n\xE2\x95\x90\xE2\x95\x90\xE2\x95\x90 REPL\nb\n\xC2\xBB\xC2\xBB\xC2\xBB EDIT END\n" +
                              "a.txt\n" + E + "a\n\xC2\xBB\xC2\xBB\xC2\xBB EDIT END\n" + "a.txt\n" + E + "a\n");
  REQUIRE(r.results.size() == 3);
  CHECK(r.results[0].reason == Reason::missing_path);
  CHECK(r.results[1].reason == Reason::malformed_block);
  CHECK(r.results[2].reason == Reason::incomplete_block);
  for (const auto& x : r.results) CHECK(x.status == Status::failed);
  CHECK(read_file(d / "a.txt") == "a\n");
}

TEST_CASE("not in context: blocks for unseen files are not attempted and the files are auto-added") {
  TempDir d;
  write_file(d / "seen.py", "a = 1\n");
  write_file(d / "unseen.py", "b = 1\n");
  editproto::Options o;
  o.context = std::vector<std::string>{"./seen.py"};
  auto r = apply_response(d.str(), block("seen.py", {"a = 1"}, {"a = 2"}) + block("unseen.py", {"b = 1"}, {"b = 2"}) +
                              block("fresh.py", {}, {"c = 1"}) + block("unseen.py", {"b = 1"}, {"b = 3"}) +
                              block("fresh.py", {"c = 1"}, {"c = 2"}),
                 o);
  REQUIRE(r.results.size() == 5);
  CHECK(r.results[0].status == Status::applied);
  CHECK(r.results[1].status == Status::not_in_context);
  CHECK(r.results[1].reason == Reason::not_in_context);
  CHECK(r.results[2].status == Status::applied);      // create blocks are always attempted
  CHECK(r.results[3].status == Status::not_in_context);
  CHECK(r.results[4].status == Status::applied);      // what the agent created, it has seen
  CHECK(r.auto_added == std::vector<std::string>{"unseen.py"});
  CHECK(read_file(d / "unseen.py") == "b = 1\n");
  CHECK(read_file(d / "fresh.py") == "c = 2\n");
  // Without declared context the check is off.
  auto r2 = apply_response(d.str(), block("unseen.py", {"b = 1"}, {"b = 4"}));
  CHECK(r2.results[0].status == Status::applied);
  CHECK(r2.auto_added.empty());
}

TEST_CASE("many blocks on one large file: index lookups agree with the file's content") {
  TempDir d;
  std::string content;
  for (int i = 0; i < 5000; ++i) content += "line " + std::to_string(i) + "\n}\n\n";
  write_file(d / "big.txt", content);
  std::string response;
  std::string expected = content;
  for (int i = 4900; i >= 0; i -= 100) {  // bottom-up order, then an insert that repeats a line
    response += block("big.txt", {"line " + std::to_string(i), "}"}, {"line " + std::to_string(i), "} // " + std::to_string(i)});
    std::string from = "line " + std::to_string(i) + "\n}\n";
    expected.replace(expected.find(from), from.size(), "line " + std::to_string(i) + "\n} // " + std::to_string(i) + "\n");
  }
  response += block("big.txt", {"line 7"}, {"line 7", "line 8"});  // now "line 8" occurs twice
  expected.replace(expected.find("line 7\n"), 7, "line 7\nline 8\n");
  response += block("big.txt", {"line 8"}, {"LINE 8"});
  auto r = apply_response(d.str(), response);
  for (std::size_t i = 0; i + 1 < r.results.size(); ++i) CHECK(r.results[i].status == Status::applied);
  CHECK(r.results.back().reason == Reason::ambiguous);
  CHECK_THAT(r.results.back().diagnostic, Catch::Contains("lines 23, 26"));
  CHECK(read_file(d / "big.txt") == expected);
}

TEST_CASE("a file changed on disk between read and write: the block is re-applied to the new content") {
  TempDir d;
  write_file(d / "r.txt", "header\nvalue = 1\nfooter\n");
  SECTION("still matches: applied on top of the other change") {
    editproto::Options o;
    o.before_write = [&](const std::string&) { write_file(d / "r.txt", "header\nNEW LINE\nvalue = 1\nfooter\n"); };
    auto r = apply_response(d.str(), block("r.txt", {"value = 1"}, {"value = 2"}), o);
    CHECK(r.results[0].status == Status::applied);
    CHECK(r.results[0].line.value_or(0) == 3);
    CHECK_THAT(r.results[0].diagnostic, Catch::Contains("changed on disk"));
    CHECK(read_file(d / "r.txt") == "header\nNEW LINE\nvalue = 2\nfooter\n");
  }
  SECTION("no longer matches: fails, and the other writer's content stays") {
    editproto::Options o;
    o.before_write = [&](const std::string&) { write_file(d / "r.txt", "header\nvalue = 9\nfooter\n"); };
    auto r = apply_response(d.str(), block("r.txt", {"value = 1"}, {"value = 2"}), o);
    CHECK(r.results[0].status == Status::failed);
    CHECK_THAT(r.results[0].diagnostic, Catch::Contains("no longer applies"));
    CHECK(read_file(d / "r.txt") == "header\nvalue = 9\nfooter\n");
  }
  SECTION("a file created meanwhile is not overwritten by a create block") {
    editproto::Options o;
    o.before_write = [&](const std::string&) { write_file(d / "c.txt", "theirs\n"); };
    auto r = apply_response(d.str(), block("c.txt", {}, {"ours"}), o);
    CHECK(r.results[0].reason == Reason::file_exists);
    CHECK(read_file(d / "c.txt") == "theirs\n");
  }
}

TEST_CASE("writes are atomic: no temp files are left and the inode is replaced") {
  TempDir d;
  write_file(d / "a.txt", "a\n");
  struct stat before, after;
  ::stat((d / "a.txt").c_str(), &before);
  apply_response(d.str(), block("a.txt", {"a"}, {"b"}));
  ::stat((d / "a.txt").c_str(), &after);
  CHECK(before.st_ino != after.st_ino);  // renamed over, never rewritten in place
  CHECK(test::count_entries(d.path()) == 1);
}

TEST_CASE("an OS error while writing is io_error with the OS's message, and the old file stays") {
  TempDir d;
  write_file(d / "w.txt", "small\n");
  // Root ignores permissions, so make the write itself fail: a file-size
  // limit turns the temp file's write into EFBIG.
  struct sigaction ignore {}, old {};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGXFSZ, &ignore, &old);
  struct rlimit saved;
  ::getrlimit(RLIMIT_FSIZE, &saved);
  struct rlimit tiny = saved;
  tiny.rlim_cur = 64;
  ::setrlimit(RLIMIT_FSIZE, &tiny);
  auto r = apply_response(d.str(), block("w.txt", {"small"}, {std::string(200, 'x')}) + block("w.txt", {"nothing"}, {"y"}));
  ::setrlimit(RLIMIT_FSIZE, &saved);
  ::sigaction(SIGXFSZ, &old, nullptr);
  REQUIRE(r.results.size() == 2);
  CHECK(r.results[0].status == Status::failed);
  CHECK(r.results[0].reason == Reason::io_error);
  CHECK_THAT(r.results[0].diagnostic, Catch::Contains("cannot write w.txt: File too large"));
  CHECK(r.results[1].reason == Reason::anchor_not_found);
  CHECK(read_file(d / "w.txt") == "small\n");
  CHECK(test::count_entries(d.path()) == 1);  // the temp file was removed
}

TEST_CASE("Windows separators in a block's path reach the same file") {
  TempDir d;
  write_file(d / "src/win/a.py", "a = 1\n");
  auto r = apply_response(d.str(), block("src\\win\\a.py", {"a = 1"}, {"a = 2"}));
  CHECK(r.results[0].status == Status::applied);
  CHECK(r.results[0].path == "src/win/a.py");
  CHECK(read_file(d / "src/win/a.py") == "a = 2\n");
}

TEST_CASE("a prepared (partial) line index gives exactly the results of scanning and of the full index") {
  // Edits in random order over a file with many repeated lines, including
  // blocks that match lines added by earlier blocks and blocks that fail.
  std::string content;
  for (int i = 0; i < 3000; ++i) content += "item " + std::to_string(i % 700) + "\n{\n  v" + std::to_string(i) + "\n}\n";
  std::mt19937 rng(7);
  std::string response;
  for (int n = 0; n < 300; ++n) {
    int i = static_cast<int>(rng() % 3000);
    std::string v = "  v" + std::to_string(i);
    switch (n % 4) {
      case 0: response += block("f.txt", {v}, {v + " changed"}); break;             // unique
      case 1: response += block("f.txt", {"{", v}, {"{", v, "  added " + std::to_string(n)}); break;
      case 2: response += block("f.txt", {"item " + std::to_string(i % 700)}, {"x"}); break;  // ambiguous
      case 3: response += block("f.txt", {"  added " + std::to_string(n - 2)}, {"  added again"}); break;
    }
  }
  std::vector<std::vector<editproto::BlockResult>> results;
  std::vector<std::string> files;
  for (std::size_t prepared : {std::size_t{0}, std::size_t{150}, std::size_t{300}}) {
    TempDir d;
    write_file(d / "f.txt", content);
    results.push_back(apply_response(d.str(), response, {}, prepared).results);
    files.push_back(read_file(d / "f.txt"));
  }
  std::size_t applied = 0;
  for (std::size_t k = 1; k < results.size(); ++k) {
    CHECK(files[k] == files[0]);
    REQUIRE(results[k].size() == results[0].size());
    for (std::size_t i = 0; i < results[0].size(); ++i) {
      CHECK(results[k][i].status == results[0][i].status);
      CHECK(results[k][i].reason == results[0][i].reason);
      CHECK(results[k][i].line == results[0][i].line);
      CHECK(results[k][i].diagnostic == results[0][i].diagnostic);
    }
  }
  for (const auto& r : results[0]) applied += r.status == Status::applied;
  CHECK(applied > 100);  // the corpus really exercises applied blocks
  CHECK(files[0] != content);
}

TEST_CASE("a declared but empty context puts every existing file out of context") {
  TempDir d;
  write_file(d / "a.py", "a = 1\n");
  editproto::Options o;
  o.context = std::vector<std::string>{};
  auto r = apply_response(d.str(), block("a.py", {"a = 1"}, {"a = 2"}) + block("b.py", {}, {"b = 1"}), o);
  CHECK(r.results[0].status == Status::not_in_context);
  CHECK(r.results[1].status == Status::applied);
  CHECK(r.auto_added == std::vector<std::string>{"a.py"});
  CHECK(read_file(d / "a.py") == "a = 1\n");
}

TEST_CASE("a block never lands in a file it did not name: root files without an extension are paths") {
  TempDir d;
  // Two files that share their text: a block for wscript must not be applied to README.txt.
  write_file(d / "README.txt", "a\nb\n");
  write_file(d / "wscript", "a\nb\n");
  write_file(d / "COPYING", "GPL\n");
  auto r = apply_response(d.str(), block("README.txt", {"a"}, {"A"}) + block("wscript", {"b"}, {"B"}) +
                                        block("COPYING", {"GPL"}, {"MIT"}));
  REQUIRE(r.results.size() == 3);
  for (const auto& x : r.results) CHECK(x.status == Status::applied);
  CHECK(r.results[1].path == "wscript");
  CHECK(read_file(d / "README.txt") == "A\nb\n");
  CHECK(read_file(d / "wscript") == "a\nB\n");
  CHECK(read_file(d / "COPYING") == "MIT\n");
}

TEST_CASE("a prose line between two blocks stops the path from being reused: nothing lands in the first file") {
  TempDir d;
  write_file(d / "README.txt", "a\nb\n");
  const std::string E = "\xC2\xAB\xC2\xAB\xC2\xAB EDIT\n";
  auto r = apply_response(d.str(), block("README.txt", {"a"}, {"A"}) + "\nThen the build script:\n" + E + "b\n" +
                                        "\xE2\x95\x90\xE2\x95\x90\xE2\x95\x90 REPL\nB\n\xC2\xBB\xC2\xBB\xC2\xBB EDIT END\n");
  REQUIRE(r.results.size() == 2);
  CHECK(r.results[0].status == Status::applied);
  CHECK(r.results[1].status == Status::failed);
  CHECK(r.results[1].reason == Reason::missing_path);
  CHECK_THAT(r.results[1].diagnostic, Catch::Contains("\"Then the build script:\", is not a path"));
  CHECK(read_file(d / "README.txt") == "A\nb\n");
}

TEST_CASE("a path with spaces names its file") {
  TempDir d;
  write_file(d / "docs/release notes.md", "# 1.0\n");
  write_file(d / "docs/a.md", "# 1.0\n");
  auto r = apply_response(d.str(), block("docs/a.md", {"# 1.0"}, {"# 1.0", "x"}) +
                                        block("docs/release notes.md", {"# 1.0"}, {"# 1.1"}));
  REQUIRE(r.results.size() == 2);
  CHECK(r.results[1].status == Status::applied);
  CHECK(r.results[1].path == "docs/release notes.md");
  CHECK(read_file(d / "docs/release notes.md") == "# 1.1\n");
  CHECK(read_file(d / "docs/a.md") == "# 1.0\nx\n");
}

TEST_CASE("the placeholder guard refuses only placeholders, and only when lines would really be dropped") {
  TempDir d;
  SECTION("a real comment that contains a phrase, inserted while every old line is kept") {
    const std::string original = "int f() {\n  a();\n  b();\n}\n";
    for (const char* comment : {"  /* And then the write out rest of the file */",
                                "  // Not quite the same as before which would \xE2\x80\xA6"}) {
      write_file(d / "c.c", original);
      auto r = apply_response(d.str(), block("c.c", {"int f() {", "  a();", "  b();", "}"},
                                             {"int f() {", "  a();", comment, "  b();", "}"}));
      CHECK(r.results[0].status == Status::applied);
      CHECK(read_file(d / "c.c") == "int f() {\n  a();\n" + std::string(comment) + "\n  b();\n}\n");
    }
  }
  SECTION("pass -> ... in a Python stub") {
    write_file(d / "stub.py", "def f():\n    pass\n");
    auto r = apply_response(d.str(), block("stub.py", {"def f():", "    pass"}, {"def f():", "    ..."}));
    CHECK(r.results[0].status == Status::applied);
    CHECK(read_file(d / "stub.py") == "def f():\n    ...\n");
  }
  SECTION("a placeholder that would drop lines is still refused") {
    const std::string original = "def f():\n    a = 1\n    b = 2\n    c = 3\n    return a + b\n";
    write_file(d / "p.py", original);
    for (const char* ph : {"    ...", "    # ... existing code ...", "    // rest of the code unchanged"}) {
      auto r = apply_response(d.str(), block("p.py", {"def f():", "    a = 1", "    b = 2", "    c = 3"},
                                             {"def f():", "    a = 10", ph}));
      CHECK(r.results[0].reason == Reason::placeholder);
    }
    // A phrase placeholder refuses the block even when the block adds as many lines as it drops.
    auto r = apply_response(d.str(), block("p.py", {"def f():", "    a = 1", "    b = 2"},
                                           {"def f():", "    a = 10", "    # ... existing code ..."}));
    CHECK(r.results[0].reason == Reason::placeholder);
    CHECK(read_file(d / "p.py") == original);
  }
}

TEST_CASE("a placeholder in the EDIT section fails as placeholder: the EDIT section must quote the real lines") {
  TempDir d;
  const std::string original = "def f(x):\n    a = x\n    b = a * 2\n    return b\n";
  write_file(d / "f.py", original);
  auto r = check_response(d.str(), block("f.py", {"def f(x):", "    # ... existing code ...", "    return b"},
                                         {"def f(x):", "    # ... existing code ...", "    return b + 1"}));
  CHECK(r.results[0].status == Status::failed);
  CHECK(r.results[0].reason == Reason::placeholder);
  CHECK_THAT(r.results[0].diagnostic, Catch::Contains("EDIT line 2") &&
                                          Catch::Contains("the EDIT section must quote the real lines"));
}

TEST_CASE("new lines in a mixed-ending file take the file's dominant ending unless their neighbours agree") {
  TempDir d;
  // Nine CRLF lines and one LF line; lines inserted right after the LF line.
  std::string text;
  for (int i = 1; i <= 10; ++i) text += "l" + std::to_string(i) + (i == 5 ? "\n" : "\r\n");
  write_file(d / "m.txt", text);
  apply_response(d.str(), block("m.txt", {"l5"}, {"l5", "n1", "n2"}));
  CHECK_THAT(read_file(d / "m.txt"), Catch::Contains("l4\r\nl5\nn1\r\nn2\r\nl6\r\n"));
  // Between two LF lines of a CRLF file the neighbours agree: LF.
  write_file(d / "r.txt", "a\r\nb\r\nc\nd\ne\r\nf\r\ng\r\n");
  apply_response(d.str(), block("r.txt", {"c"}, {"c", "new"}));
  CHECK(read_file(d / "r.txt") == "a\r\nb\r\nc\nnew\nd\ne\r\nf\r\ng\r\n");
  // A line replaced at the end of a mostly CRLF file whose last line is LF: the file's ending.
  write_file(d / "e.txt", "a\r\nb\r\nc\r\nd\n");
  apply_response(d.str(), block("e.txt", {"d"}, {"d", "tail"}));
  CHECK(read_file(d / "e.txt") == "a\r\nb\r\nc\r\nd\ntail\r\n");
}
