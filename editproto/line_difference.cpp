// The exact difference between a file line and the block's line, in words:
// indentation, trailing white space, look-alike, invisible and decomposed
// characters, or the text itself.
#include "editproto/diagnose.hpp"

#include "editproto/diagnostic_text.hpp"
#include "editproto/path_line.hpp"
#include "editproto/unicode.hpp"

#include <algorithm>

namespace editproto {

using namespace detail;

namespace {

std::string_view trailing_ws(std::string_view s) {
  std::size_t i = s.size();
  while (i > 0 && (s[i - 1] == ' ' || s[i - 1] == '\t')) --i;
  return s.substr(i);
}

// "1 tab and 2 spaces", "4 spaces", "nothing".
std::string describe_ws(std::string_view ws) {
  std::size_t tabs = std::count(ws.begin(), ws.end(), '\t');
  std::size_t spaces = ws.size() - tabs;
  if (tabs == 0 && spaces == 0) return "nothing";
  if (tabs == 0) return plural(spaces, "space");
  if (spaces == 0) return plural(tabs, "tab");
  return plural(tabs, "tab") + " and " + plural(spaces, "space");
}

std::string excerpt(std::string_view s, std::size_t pos) {
  std::string_view rest = s.substr(pos);
  std::size_t cut = 0, cps = 0;
  while (cut < rest.size() && cps < 20) {
    cut += unicode::decode(rest, cut).length;
    ++cps;
  }
  std::string out = "\"" + std::string(rest.substr(0, cut)) + "\"";
  if (cut < rest.size()) out += "...";
  return out;
}

// Walks the two cores code point by code point and names what differs.
// True when the first difference it names is plain text (no look-alike,
// invisible or normalisation difference): the caller then names the line.
bool describe_core(std::string_view f, std::string_view b, std::size_t col0, std::vector<std::string>& parts) {
  const std::size_t before = parts.size();
  std::size_t i = 0, j = 0, col = col0;
  int reported = 0;
  while ((i < f.size() || j < b.size()) && reported < 4) {
    if (i >= f.size()) {
      parts.push_back("your block's line goes on at column " + std::to_string(col) + " with " + excerpt(b, j) +
                      ", which the file's line does not have");
      return false;
    }
    if (j >= b.size()) {
      parts.push_back("the file's line goes on at column " + std::to_string(col) + " with " + excerpt(f, i) +
                      ", which your block's line does not have");
      return false;
    }
    unicode::CodePoint cf = unicode::decode(f, i), cb = unicode::decode(b, j);
    if (cf.valid == cb.valid && cf.value == cb.value) {
      i += cf.length;
      j += cb.length;
      ++col;
      continue;
    }
    ++reported;
    const std::string where = " at column " + std::to_string(col);
    if (unicode::is_zero_width(cf.value)) {
      parts.push_back("the file has an invisible " + unicode::describe(cf.value) + where + " that your block lacks");
      i += cf.length;
      ++col;
      continue;
    }
    if (unicode::is_zero_width(cb.value)) {
      parts.push_back("your block has an invisible " + unicode::describe(cb.value) + where +
                      " that the file's line lacks");
      j += cb.length;
      continue;
    }
    if (i + cf.length < f.size()) {
      unicode::CodePoint mark = unicode::decode(f, i + cf.length);
      if (unicode::is_combining_mark(mark.value) && unicode::compose(cf.value, mark.value) == cb.value) {
        parts.push_back("the file writes " + unicode::describe(cf.value) + " + " + unicode::describe(mark.value) +
                        " (decomposed, NFD)" + where + " where your block has the single " +
                        unicode::describe(cb.value) + " (NFC)");
        i += cf.length + mark.length;
        j += cb.length;
        col += 2;
        continue;
      }
    }
    if (j + cb.length < b.size()) {
      unicode::CodePoint mark = unicode::decode(b, j + cb.length);
      if (unicode::is_combining_mark(mark.value) && unicode::compose(cb.value, mark.value) == cf.value) {
        parts.push_back("the file has the single " + unicode::describe(cf.value) + " (NFC)" + where +
                        " where your block writes " + unicode::describe(cb.value) + " + " +
                        unicode::describe(mark.value) + " (decomposed, NFD)");
        i += cf.length;
        j += cb.length + mark.length;
        ++col;
        continue;
      }
    }
    if (unicode::ascii_lookalike(cf.value) == unicode::ascii_lookalike(cb.value)) {
      parts.push_back(unicode::describe(cf.value) + " in the file vs " + unicode::describe(cb.value) +
                      " in your block" + where);
      i += cf.length;
      j += cb.length;
      ++col;
      continue;
    }
    parts.push_back("the text differs from column " + std::to_string(col) + ": the file has " + excerpt(f, i) +
                    " where your block has " + excerpt(b, j));
    return parts.size() == before + 1;
  }
  return false;
}

}  // namespace

std::string describe_difference(std::string_view file_line, std::string_view block_line) {
  if (file_line == block_line) return {};
  std::vector<std::string> parts;
  std::string_view fi = leading_ws(file_line), bi = leading_ws(block_line);
  std::string_view fcore = file_line.substr(fi.size()), bcore = block_line.substr(bi.size());
  std::string_view ft = trailing_ws(fcore), bt = trailing_ws(bcore);
  if (ft.size() == fcore.size()) ft = {};  // an all-blank line has indentation only
  if (bt.size() == bcore.size()) bt = {};
  fcore.remove_suffix(ft.size());
  bcore.remove_suffix(bt.size());

  // When the words themselves differ, white space is noise: name the text.
  if (fcore != bcore) {
    std::vector<std::string> core;
    if (describe_core(fcore, bcore, unicode::count_code_points(fi) + 1, core)) {
      std::size_t col = 1;
      std::size_t i = 0;
      while (i < file_line.size() && i < block_line.size() && file_line[i] == block_line[i]) ++i;
      while (i > 0 && (static_cast<unsigned char>(file_line[i]) & 0xC0) == 0x80) --i;  // a whole character
      col = unicode::count_code_points(file_line.substr(0, i)) + 1;
      return "the line differs from column " + std::to_string(col) + ": the file has " + excerpt(file_line, i) +
             " where your block has " + excerpt(block_line, i);
    }
  }
  if (fi != bi) {
    bool ftab = fi.find('\t') != std::string_view::npos, btab = bi.find('\t') != std::string_view::npos;
    std::string what = ftab != btab ? "tabs vs spaces" : "indentation";
    parts.push_back(what + ": the file's line is indented with " + describe_ws(fi) + ", your block's with " +
                    describe_ws(bi));
  }
  if (ft != bt)
    parts.push_back("trailing white space: the file's line ends with " + describe_ws(ft) + ", your block's with " +
                    describe_ws(bt));
  if (fcore != bcore) describe_core(fcore, bcore, unicode::count_code_points(fi) + 1, parts);
  std::string out;
  for (const std::string& p : parts) {
    if (!out.empty()) out += "; ";
    out += p;
  }
  return out;
}

}  // namespace editproto
