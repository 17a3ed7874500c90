// Diagnostics an LLM must be able to fix its block from: the reason, the
// real lines with numbers, the exact difference, and a diff.
#include "editproto/diagnose.hpp"
#include "support.hpp"

#include <catch2/catch.hpp>

using Catch::Contains;
using editproto::describe_difference;
using editproto::Reason;
using editproto::Status;
using test::apply_response;
using test::block;
using test::check_response;
using test::read_file;
using test::TempDir;
using test::write_file;

TEST_CASE("describe_difference names the exact difference") {
  CHECK(describe_difference("same", "same").empty());
  CHECK(describe_difference("x = 1  ", "x = 1") ==
        "trailing white space: the file's line ends with 2 spaces, your block's with nothing");
  CHECK(describe_difference("\treturn x", "    return x") ==
        "tabs vs spaces: the file's line is indented with 1 tab, your block's with 4 spaces");
  CHECK(describe_difference("        return x", "    return x") ==
        "indentation: the file's line is indented with 8 spaces, your block's with 4 spaces");
  // U+2019 at column 12 (code points, 1-based).
  CHECK(describe_difference("print('it\xE2\x80\x99s')", "print('it's')") ==
        "U+2019 RIGHT SINGLE QUOTATION MARK in the file vs U+0027 APOSTROPHE in your block at column 10");
  CHECK_THAT(describe_difference("    s = \xE2\x80\x9Chi\xE2\x80\x9D", "    s = \"hi\""),
             Contains("U+201C LEFT DOUBLE QUOTATION MARK in the file vs U+0022 QUOTATION MARK in your block at column 9") &&
                 Contains("U+201D RIGHT DOUBLE QUOTATION MARK in the file vs U+0022 QUOTATION MARK in your block at column 12"));
  CHECK(describe_difference("a\xE2\x80\x8B" "b", "ab") ==
        "the file has an invisible U+200B ZERO WIDTH SPACE at column 2 that your block lacks");
  CHECK(describe_difference("ab", "a\xEF\xBB\xBF" "b") ==
        "your block has an invisible U+FEFF ZERO WIDTH NO-BREAK SPACE (BOM) at column 2 that the file's line lacks");
  CHECK(describe_difference("caf" "e\xCC\x81", "caf\xC3\xA9") ==
        "the file writes U+0065 'e' + U+0301 COMBINING ACUTE ACCENT (decomposed, NFD) at column 4 where your block "
        "has the single U+00E9 '\xC3\xA9' (NFC)");
  CHECK_THAT(describe_difference("caf\xC3\xA9", "cafe\xCC\x81"), Contains("(NFC) at column 4 where your block writes"));
  CHECK(describe_difference("a\xC2\xA0" "b", "a b") ==
        "U+00A0 NO-BREAK SPACE in the file vs U+0020 SPACE in your block at column 2");
  CHECK(describe_difference("return total", "return sum") ==
        "the line differs from column 8: the file has \"total\" where your block has \"sum\"");
}

TEST_CASE("whitespace: quoted lines with numbers / the difference and a diff - nothing written") {
  TempDir d;
  const std::string original = "def f():\n\treturn 1\n\ndef g():\n\treturn 2\n";
  write_file(d / "t.py", original);
  auto r = apply_response(d.str(), block("t.py", {"def g():", "    return 2"}, {"def g():", "    return 3"}));
  const auto& x = r.results[0];
  CHECK(x.status == Status::failed);
  CHECK(x.reason == Reason::whitespace);
  CHECK(x.line.value_or(0) == 4);
  CHECK_THAT(x.diagnostic, Contains("matches lines 4-5 when white space"));
  CHECK_THAT(x.diagnostic, Contains("line 5: tabs vs spaces: the file's line is indented with 1 tab, your block's with 4 spaces"));
  CHECK_THAT(x.diagnostic, Contains("  5 | \treturn 2"));
  CHECK_THAT(x.diagnostic, Contains("--- your EDIT section\n+++ t.py (lines 4-5)\n@@ -1,2 +4,2 @@\n def g():\n-    return 2\n+\treturn 2\n"));
  CHECK_THAT(x.diagnostic, Contains("--fuzz whitespace"));
  CHECK(read_file(d / "t.py") == original);
}

TEST_CASE("a diagnostic names --fuzz as the run takes its options: command line, JSON or query") {
  TempDir d;
  write_file(d / "t.py", "def g():\n\treturn 2\n");
  const std::string b = block("t.py", {"def g():", "    return 2"}, {"def g():", "    return 3"});
  editproto::Options o;
  CHECK_THAT(apply_response(d.str(), b, o).results[0].diagnostic, Contains("(or run with --fuzz whitespace to accept"));
  o.option_syntax = editproto::OptionSyntax::json;
  const std::string json = apply_response(d.str(), b, o).results[0].diagnostic;
  CHECK_THAT(json, Contains("(or run with fuzz: \"whitespace\" to accept"));
  CHECK(json.find("--fuzz") == std::string::npos);
  o.option_syntax = editproto::OptionSyntax::query;
  CHECK_THAT(apply_response(d.str(), b, o).results[0].diagnostic, Contains("(or run with fuzz=whitespace to accept"));
  o.option_syntax = editproto::OptionSyntax::none;
  const std::string none = apply_response(d.str(), b, o).results[0].diagnostic;
  CHECK_THAT(none, Contains("Copy those lines exactly as the file has them."));
  CHECK(none.find("fuzz") == std::string::npos);
  // Applied with the tolerance, the block's diagnostic says how it was asked for.
  o.fuzz_whitespace = true;
  o.option_syntax = editproto::OptionSyntax::json;
  CHECK_THAT(apply_response(d.str(), b, o).results[0].diagnostic, Contains("applied with fuzz: \"whitespace\": "));
}

TEST_CASE("fuzz whitespace applies a unique tolerant match / says so / and keeps the file's indentation") {
  TempDir d;
  write_file(d / "t.py", "class A:\n\tdef g(self):  \n\t\treturn 2\n");
  editproto::Options o;
  o.fuzz_whitespace = true;
  auto r = apply_response(d.str(), block("t.py", {"def g(self):", "    return 2"}, {"def g(self):", "    x = 2", "    return x"}), o);
  const auto& x = r.results[0];
  CHECK(x.status == Status::applied);
  CHECK(x.tolerance.value_or("") == "whitespace");
  CHECK_THAT(x.diagnostic, Contains("applied with --fuzz whitespace"));
  CHECK_THAT(x.diagnostic, Contains("trailing white space"));
  CHECK(read_file(d / "t.py") == "class A:\n\tdef g(self):  \n\t\tx = 2\n\t\treturn x\n");
  // Look-alike characters are never tolerated, fuzz or not.
  write_file(d / "q.py", "s = \xE2\x80\x98" "a\xE2\x80\x99\n");
  r = apply_response(d.str(), block("q.py", {"s = 'a'"}, {"s = 'b'"}), o);
  CHECK(r.results[0].status == Status::failed);
  CHECK(r.results[0].reason == Reason::near_match);
  CHECK_THAT(r.results[0].diagnostic, Contains("U+2018 LEFT SINGLE QUOTATION MARK in the file vs U+0027 APOSTROPHE in your block at column 5"));
}

TEST_CASE("near_match: look-alike characters / NFD / zero-width") {
  TempDir d;
  write_file(d / "n.md", "# Caf" "e\xCC\x81 menu\nIt\xE2\x80\x99s open\nzero\xE2\x80\x8Bwidth\n");
  auto r = check_response(d.str(), block("n.md", {"# Caf\xC3\xA9 menu", "It's open", "zerowidth"}, {"# Menu", "Open", "x"}));
  const auto& x = r.results[0];
  CHECK(x.reason == Reason::near_match);
  CHECK(x.line.value_or(0) == 1);
  CHECK_THAT(x.diagnostic, Contains("look-alike characters"));
  CHECK_THAT(x.diagnostic, Contains("line 1: the file writes U+0065 'e' + U+0301 COMBINING ACUTE ACCENT (decomposed, NFD) at column 6"));
  CHECK_THAT(x.diagnostic, Contains("line 2: U+2019 RIGHT SINGLE QUOTATION MARK in the file vs U+0027 APOSTROPHE in your block at column 3"));
  CHECK_THAT(x.diagnostic, Contains("line 3: the file has an invisible U+200B ZERO WIDTH SPACE at column 5"));
}

TEST_CASE("old_mismatch: the anchor occurs once but the old lines differ / with a diff") {
  TempDir d;
  write_file(d / "m.py", "def f(x):\n    y = x + 1\n    return y\n");
  auto r = check_response(d.str(), block("m.py", {"def f(x):", "    y = x + 2", "    return y"}, {"def f(x):", "    return x + 3"}));
  const auto& x = r.results[0];
  CHECK(x.reason == Reason::old_mismatch);
  CHECK(x.status == Status::failed);
  CHECK(x.line.value_or(0) == 2);
  CHECK_THAT(x.diagnostic, Contains("the anchor (the first 1 line, the same in EDIT and REPL) occurs once, at line 1"));
  CHECK_THAT(x.diagnostic, Contains("line 2: the line differs from column 13: the file has \"1\" where your block has \"2\""));
  CHECK_THAT(x.diagnostic, Contains("-    y = x + 2\n+    y = x + 1\n"));
}

TEST_CASE("anchor_not_found: the closest place / or the most similar line") {
  TempDir d;
  write_file(d / "a.py", "import os\n\ndef compute_total(items):\n    return sum(items)\n");
  SECTION("some lines match: the closest window is shown with a diff") {
    auto r = check_response(d.str(), block("a.py", {"def compute_total(items):", "    total = 0", "    for i in items:", "        total += i"},
                                           {"def compute_total(items):", "    return 0"}));
    // The anchor "def compute_total(items):" occurs once, so this is old_mismatch.
    CHECK(r.results[0].reason == Reason::old_mismatch);
  }
  SECTION("no anchor: the closest window") {
    auto r = check_response(d.str(), block("a.py", {"import sys", "", "def compute_total(items):"}, {"import json", "", "def compute_total(items):"}));
    CHECK(r.results[0].reason == Reason::near_match);  // 1 of 2 non-blank lines, at the right place
    CHECK(r.results[0].line.value_or(0) == 1);
    CHECK_THAT(r.results[0].diagnostic, Contains("1 of its 2 non-blank lines match"));
  }
  SECTION("no line occurs: the most similar line is quoted") {
    auto r = check_response(d.str(), block("a.py", {"def compute_totals(item):"}, {"def x():"}));
    CHECK(r.results[0].reason == Reason::anchor_not_found);
    CHECK(r.results[0].line.value_or(0) == 3);
    CHECK_THAT(r.results[0].diagnostic, Contains("The line most like your first line is:\n  3 | def compute_total(items):"));
  }
  SECTION("nothing alike at all") {
    auto r = check_response(d.str(), block("a.py", {"zzzz qqqq"}, {"y"}));
    CHECK(r.results[0].reason == Reason::anchor_not_found);
    CHECK_FALSE(r.results[0].line.has_value());
    CHECK_THAT(r.results[0].diagnostic, Contains("no line of the EDIT section (1 line) occurs in the file (4 lines)"));
  }
}

TEST_CASE("file_not_found tells how to create the file") {
  TempDir d;
  auto r = check_response(d.str(), block("nope/x.py", {"a"}, {"b"}));
  CHECK(r.results[0].reason == Reason::file_not_found);
  CHECK_THAT(r.results[0].diagnostic, Contains("leave the EDIT section empty"));
}

// A crafted block against a large file: searching and diagnosing must cost
// about file + block line steps, never file x block (which kept the engine
// busy for tens of seconds). Asserted on the work counters, not on time.
namespace {

constexpr std::size_t kFileLines = 300'000;
constexpr std::size_t kBlockLines = 3'000;

std::string repeated(std::string_view line, std::size_t n) {
  std::string out;
  out.reserve((line.size() + 1) * n);
  for (std::size_t i = 0; i < n; ++i) (out += line) += '\n';
  return out;
}

// The linear bound the tests hold the counters to.
std::size_t linear(std::size_t file, std::size_t section) { return 20 * (file + section); }

}  // namespace

TEST_CASE("exact search: linear for a section that almost occurs everywhere / or occurs everywhere") {
  editproto::Document doc(repeated("x", kFileLines));
  std::vector<std::string_view> section(kBlockLines, "x");
  SECTION("3,000 x lines and a z: nowhere, by a scan and then by the index") {
    section.push_back("z");
    CHECK(doc.find(section).empty());
    CHECK(doc.find(section).empty());
  }
  SECTION("3,000 x lines: at every place, by a scan and then by the index") {
    CHECK(doc.find(section).size() == kFileLines - kBlockLines + 1);
    CHECK(doc.find(section).size() == kFileLines - kBlockLines + 1);
  }
  CHECK(doc.comparisons() <= 2 * linear(kFileLines, section.size()));
}

TEST_CASE("diagnosis: linear for a section of lines that occur everywhere / the closest place is still found") {
  const std::string x = repeated("x", kFileLines), x_space = repeated("x ", kFileLines);
  std::vector<std::string_view> section(kBlockLines, "x");
  section.push_back("z");
  // x lines exactly; "x " lines, which only the tolerant passes match.
  for (const std::string* text : {&x, &x_space}) {
    editproto::Document doc(*text);
    for (std::size_t anchor : {std::size_t{0}, kBlockLines}) {
      editproto::Mismatch m = editproto::diagnose_missing(doc.lines(), section, anchor, "big.txt");
      CAPTURE(text == &x, anchor);
      CHECK(m.comparisons <= linear(kFileLines, section.size()));
      CHECK(m.reason == Reason::near_match);
      CHECK(m.line.value_or(0) == 1);
      CHECK_THAT(m.diagnostic, Contains("The closest place is lines 1-3001, where 3000 of its 3001 non-blank lines "
                                        "match"));
      CHECK_THAT(m.diagnostic, Contains(text == &x ? "line 3001: the line differs from column 1"
                                                   : "line 1: trailing white space: the file's line ends with 1 "
                                                     "space, your block's with nothing"));
      // What the budget left out is said.
      CHECK_THAT(m.diagnostic, Contains("(to bound the work, the 3000 lines of your EDIT section that occur 300000 or "
                                        "more times in the file were not used to find this place; the count "
                                        "includes them)"));
    }
  }
}

TEST_CASE("diagnosis: with a rare line, the budgeted vote finds the place the full vote would") {
  // 300,000 x lines with a u at line 150,001; the section has the u in its
  // middle. Only u votes (x is left out), and the place is the same.
  std::string text = repeated("x", 150'000) + "u\n" + repeated("x", kFileLines - 150'001);
  editproto::Document doc(text);
  std::vector<std::string_view> section(kBlockLines / 2, "x");
  section.push_back("u");
  section.insert(section.end(), kBlockLines / 2, "x");
  section.push_back("z");
  editproto::Mismatch m = editproto::diagnose_missing(doc.lines(), section, 0, "big.txt");
  CHECK(m.comparisons <= linear(kFileLines, section.size()));
  CHECK(m.reason == Reason::near_match);
  CHECK(m.line.value_or(0) == 148'501);
  CHECK_THAT(m.diagnostic, Contains("The closest place is lines 148501-151502, where 3001 of its 3002 non-blank "
                                    "lines match (to bound the work, the 3000 lines"));
}

TEST_CASE("a section that occurs everywhere: its places are listed up to 20") {
  TempDir d;
  write_file(d / "big.txt", repeated("x", kFileLines));
  auto r = check_response(d.str(), block("big.txt", std::vector<std::string>(kBlockLines, "x"), {"y"}));
  CHECK(r.results[0].reason == Reason::ambiguous);
  CHECK(r.results[0].line.value_or(0) == 1);
  CHECK_THAT(r.results[0].diagnostic,
             Contains("occurs 297001 times, starting at lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, "
                      "17, 18, 19, 20 and 296981 more. Add the lines"));
}

TEST_CASE("the diff of the closest place is bounded: past its budget it covers 200 lines") {
  // Every other line differs: the whole diff would cost about 12,000 x 3,000 steps.
  std::vector<std::string> file_text, block_text;
  for (std::size_t i = 0; i < 6'000; ++i) {
    file_text.push_back("line " + std::to_string(i));
    block_text.push_back(i % 2 ? "other " + std::to_string(i) : file_text.back());
  }
  std::vector<std::string_view> file(file_text.begin(), file_text.end()), section(block_text.begin(), block_text.end());
  editproto::Mismatch m = editproto::diagnose_missing(file, section, 0, "big.txt");
  CHECK(m.reason == Reason::near_match);
  CHECK(m.line.value_or(0) == 1);
  CHECK_THAT(m.diagnostic, Contains("(the diff covers lines 1-200 of your EDIT section only: the whole diff would "
                                    "cost too much)\n--- your EDIT section\n+++ big.txt (lines 1-200)\n@@ -1,"));
  CHECK(m.diagnostic.size() < 20'000);
}

TEST_CASE("a line of the EDIT section missing from the file is named, at the real place") {
  TempDir d;
  // other() lines up four of the section's common lines on one diagonal; the
  // real place, target(), splits its lines around the missing one.
  write_file(d / "t.c", "void other() {\n"       // 1
                        "  int i = 0;\n"         // 2
                        "  a();\n"               // 3
                        "  b();\n"               // 4
                        "  c();\n"               // 5
                        "  i++;\n"               // 6
                        "  return i;\n"          // 7
                        "}\n"                    // 8
                        "\n"                     // 9
                        "int target() {\n"       // 10
                        "  int i = 0;\n"         // 11
                        "  step_one();\n"        // 12
                        "  step_two();\n"        // 13
                        "  i++;\n"               // 14
                        "  return i;\n"          // 15
                        "}\n");                  // 16
  const std::vector<std::string> section = {"int target() {", "  int i = 0;", "  step_one();", "  invented();",
                                            "  step_two();", "  i++;", "  return i;", "}"};
  SECTION("no anchor: the closest place") {
    auto r = check_response(d.str(), block("t.c", section, {"int target(void) {", "  return 0;", "}"}));
    const auto& x = r.results[0];
    CHECK(x.reason == Reason::near_match);
    CHECK(x.line.value_or(0) == 10);
    CHECK_THAT(x.diagnostic, Contains("The closest place is lines 10-16, where 7 of its 8 non-blank lines match"));
    CHECK_THAT(x.diagnostic, Contains("line 4 of your EDIT section is not in the file (between lines 12 and 13):\n"
                                      "  block:   4 |   invented();"));
    CHECK_THAT(x.diagnostic, Contains("   step_one();\n-  invented();\n   step_two();\n"));
  }
  SECTION("an anchor that occurs once: the old lines are aligned with the file's") {
    auto r = check_response(d.str(), block("t.c", section, {"int target() {", "  int i = 0;", "  return 0;", "}"}));
    const auto& x = r.results[0];
    CHECK(x.reason == Reason::old_mismatch);
    CHECK(x.line.value_or(0) == 13);
    CHECK_THAT(x.diagnostic, Contains("line 4 of your EDIT section is not in the file (between lines 12 and 13)"));
    CHECK_THAT(x.diagnostic, Contains("   step_one();\n-  invented();\n   step_two();\n"));
  }
  SECTION("a file line the EDIT section leaves out") {
    std::vector<std::string> skipped = {"int target() {", "  int i = 0;", "  step_one();", "  i++;", "  return i;", "}"};
    auto r = check_response(d.str(), block("t.c", skipped, {"int target(void) {", "  return 0;", "}"}));
    const auto& x = r.results[0];
    CHECK(x.line.value_or(0) == 10);
    CHECK_THAT(x.diagnostic, Contains("The closest place is lines 10-16"));
    CHECK_THAT(x.diagnostic, Contains("line 13 of the file is not in your EDIT section (between its lines 3 and 4):\n"
                                      "  file:    13 |   step_two();"));
  }
}
