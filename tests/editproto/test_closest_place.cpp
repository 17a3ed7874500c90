// The closest place of an EDIT section that does not occur: ranked by how
// much of each line matches there, not only by how many lines are equal,
// and never by position alone.
#include "editproto/diagnose.hpp"
#include "editproto/document.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <string_view>
#include <vector>

using Catch::Contains;
using editproto::Reason;

namespace {

editproto::Mismatch diagnose(const std::string& text, const std::vector<std::string_view>& section) {
  editproto::Document doc(text);
  return editproto::diagnose_missing(doc.lines(), section, 0, "w.cpp");
}

std::string numbered(std::string_view stem, std::size_t from, std::size_t to) {
  std::string out;
  for (std::size_t i = from; i <= to; ++i) out += std::string(stem) + std::to_string(i) + ";\n";
  return out;
}

}  // namespace

TEST_CASE("closest place: a typo in the first line, one line equal at two places / the place whose lines nearly "
          "match wins, not the earlier") {
  // The constructor (lines 11-13) shares "  reset();" with resize (214-216);
  // the block's first line has a typo and its second differs by a character.
  std::string text = numbered("int filler_a", 1, 10);
  text += "Widget::Widget(int size)\n    : size_(size) {\n  reset();\n";  // 11-13
  text += numbered("int filler_b", 14, 213);
  text += "void Widget::resize(int size) {\n  size_ = size;\n  reset();\n}\n";  // 214-217
  const editproto::Mismatch m = diagnose(text, {"void Widget::resise(int size) {", "  size_ = sizes;", "  reset();"});
  CHECK(m.reason == Reason::anchor_not_found);
  CHECK(m.line.value_or(0) == 214);
  // The count is still of equal lines.
  CHECK_THAT(m.diagnostic, Contains("The closest place is lines 214-216, where 1 of its 3 non-blank lines match"));
  CHECK_THAT(m.diagnostic, Contains("line 214: the line differs from column 18"));
}

TEST_CASE("closest place: more tied places than are aligned by default / the one whose lines nearly match") {
  // 30 functions end with "}", as the target does: 31 places with one equal line each.
  std::string text;
  for (int f = 0; f < 30; ++f)
    text += "int f" + std::to_string(f) + "(int a) {\n  return a * " + std::to_string(f) + ";\n}\n";
  text += "int total(int a, int b) {\n  return a + b;\n}\n";  // 91-93
  const editproto::Mismatch m = diagnose(text, {"int totl(int a, int b) {", "  return a + c;", "}"});
  CHECK(m.line.value_or(0) == 91);
  CHECK_THAT(m.diagnostic, Contains("The closest place is lines 91-93, where 1 of its 3 non-blank lines match"));
}

TEST_CASE("closest place: fewer equal lines win when more of every line matches") {
  const std::string text =
      "void setup() {\n  open_files();\n  log(\"ready\");\n}\n"                   // 1-4
      "\n"                                                                          // 5
      "void teardown() {\n  log(\"done\");\n  close_files(handles);\n}\n";        // 6-9
  // At 1-4, "}" and log("ready") are equal and the rest is unlike; at 6-9
  // only "}" is, but the other three lines differ by a character or a word.
  const editproto::Mismatch m =
      diagnose(text, {"void tear_down() {", "  log(\"ready\");", "  close_file(handles);", "}"});
  CHECK(m.line.value_or(0) == 6);
  CHECK_THAT(m.diagnostic, Contains("The closest place is lines 6-9, where 1 of its 4 non-blank lines match"));
}

TEST_CASE("closest place: thousands of tied places are ranked within the bound / beyond it, the work stays "
          "linear") {
  const std::vector<std::string_view> section = {"int totl() {", "  return 2;", "}"};
  const std::string target = "int total() {\n  return 1;\n}\n";
  SECTION("20,000 lines of \"}\" before the place: all are ranked") {
    std::string text;
    for (int i = 0; i < 20'000; ++i) text += "}\n";
    const editproto::Mismatch m = diagnose(text + target, section);
    CHECK(m.line.value_or(0) == 20'001);
  }
  SECTION("300,000 lines of \"}\": the alignments stay within their steps") {
    std::string text;
    for (int i = 0; i < 300'000; ++i) text += "}\n";
    const editproto::Mismatch m = diagnose(text + target, section);
    // Votes and keys (about 10 steps a file line) and 4,000,000 steps of alignments and shares.
    CHECK(m.comparisons <= 10 * 300'003 + 4'000'000);
    CHECK(m.line.has_value());
  }
}

TEST_CASE("closest place: a tie nothing in the lines breaks / the other places as close are named") {
  // With the middle line dropped, the block fits f and g alike: its two
  // lines equal at both, one file line left out at both.
  const std::string text = "int f() {\n  begin();\n  step_one();\n  end();\n}\n"    // 1-5
                           "int g() {\n  begin();\n  step_two();\n  end();\n}\n";   // 6-10
  const editproto::Mismatch m = diagnose(text, {"  begin();", "  end();"});
  CHECK(m.line.value_or(0) == 2);
  CHECK_THAT(m.diagnostic, Contains("The closest place is lines 2-4, where 2 of its 2 non-blank lines match; as much "
                                    "of it matches at 1 other place, starting at line 7:\n"));
  SECTION("three places: the others are listed") {
    const editproto::Mismatch three =
        diagnose(text + "int h() {\n  begin();\n  step_three();\n  end();\n}\n", {"  begin();", "  end();"});
    CHECK_THAT(three.diagnostic, Contains("as much of it matches at 2 other places, starting at lines 7, 12:\n"));
  }
  SECTION("no tie: nothing more is said") {
    const editproto::Mismatch one = diagnose(text, {"  begin();", "  end();", "}", "int g() {"});
    CHECK_THAT(one.diagnostic, !Contains("as much of it matches"));
  }
}
