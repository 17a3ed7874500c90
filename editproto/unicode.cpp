#include "editproto/unicode.hpp"

#include <cstdio>
#include <cstdint>
#include <cstring>

namespace editproto::unicode {

CodePoint decode(std::string_view s, std::size_t pos) {
  auto byte = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
  unsigned char c = byte(pos);
  if (c < 0x80) return {c, 1, true};
  std::size_t len;
  char32_t cp;
  char32_t min;
  if ((c & 0xE0) == 0xC0) { len = 2; cp = c & 0x1F; min = 0x80; }
  else if ((c & 0xF0) == 0xE0) { len = 3; cp = c & 0x0F; min = 0x800; }
  else if ((c & 0xF8) == 0xF0) { len = 4; cp = c & 0x07; min = 0x10000; }
  else return {c, 1, false};
  if (pos + len > s.size()) return {c, 1, false};
  for (std::size_t i = 1; i < len; ++i) {
    unsigned char cc = byte(pos + i);
    if ((cc & 0xC0) != 0x80) return {c, 1, false};
    cp = (cp << 6) | (cc & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return {c, 1, false};
  return {cp, len, true};
}

bool is_ascii(std::string_view s) {
  for (char c : s)
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  return true;
}

std::size_t count_code_points(std::string_view s) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < s.size();) {
    i += decode(s, i).length;
    ++n;
  }
  return n;
}

std::size_t find_invalid_utf8(std::string_view s) {
  std::size_t i = 0;
  const std::size_t n = s.size();
  while (i < n) {
    // ASCII fast path, eight bytes at a time.
    while (i + 8 <= n) {
      std::uint64_t w;
      std::memcpy(&w, s.data() + i, 8);
      if (w & 0x8080808080808080ull) break;
      i += 8;
    }
    if (i >= n) break;
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      ++i;
      continue;
    }
    CodePoint cp = decode(s, i);
    if (!cp.valid) return i;
    i += cp.length;
  }
  return std::string_view::npos;
}

namespace {
struct Named {
  char32_t cp;
  const char* name;
  char32_t ascii;  // what it looks like, 0 when nothing (zero-width)
};
constexpr Named kNamed[] = {
    {0x0009, "CHARACTER TABULATION (tab)", 0},
    {0x0020, "SPACE", 0},
    {0x0022, "QUOTATION MARK", 0},
    {0x0027, "APOSTROPHE", 0},
    {0x002D, "HYPHEN-MINUS", 0},
    {0x00A0, "NO-BREAK SPACE", ' '},
    {0x00AD, "SOFT HYPHEN", 0},
    {0x2002, "EN SPACE", ' '},
    {0x2003, "EM SPACE", ' '},
    {0x2007, "FIGURE SPACE", ' '},
    {0x2009, "THIN SPACE", ' '},
    {0x200A, "HAIR SPACE", ' '},
    {0x200B, "ZERO WIDTH SPACE", 0},
    {0x200C, "ZERO WIDTH NON-JOINER", 0},
    {0x200D, "ZERO WIDTH JOINER", 0},
    {0x2010, "HYPHEN", '-'},
    {0x2011, "NON-BREAKING HYPHEN", '-'},
    {0x2012, "FIGURE DASH", '-'},
    {0x2013, "EN DASH", '-'},
    {0x2014, "EM DASH", '-'},
    {0x2018, "LEFT SINGLE QUOTATION MARK", '\''},
    {0x2019, "RIGHT SINGLE QUOTATION MARK", '\''},
    {0x201A, "SINGLE LOW-9 QUOTATION MARK", '\''},
    {0x201B, "SINGLE HIGH-REVERSED-9 QUOTATION MARK", '\''},
    {0x201C, "LEFT DOUBLE QUOTATION MARK", '"'},
    {0x201D, "RIGHT DOUBLE QUOTATION MARK", '"'},
    {0x201E, "DOUBLE LOW-9 QUOTATION MARK", '"'},
    {0x2032, "PRIME", '\''},
    {0x2033, "DOUBLE PRIME", '"'},
    {0x2060, "WORD JOINER", 0},
    {0x202F, "NARROW NO-BREAK SPACE", ' '},
    {0x2212, "MINUS SIGN", '-'},
    {0xFEFF, "ZERO WIDTH NO-BREAK SPACE (BOM)", 0},
    {0xFF02, "FULLWIDTH QUOTATION MARK", '"'},
    {0xFF07, "FULLWIDTH APOSTROPHE", '\''},
};

const Named* find_named(char32_t cp) {
  for (const Named& n : kNamed)
    if (n.cp == cp) return &n;
  return nullptr;
}

// Latin letters with the combining marks models and editors produce most.
struct Composition {
  char32_t base, mark, composed;
};
constexpr Composition kCompositions[] = {
    {'A', 0x300, 0xC0}, {'A', 0x301, 0xC1}, {'A', 0x302, 0xC2}, {'A', 0x303, 0xC3}, {'A', 0x308, 0xC4},
    {'A', 0x30A, 0xC5}, {'C', 0x327, 0xC7}, {'E', 0x300, 0xC8}, {'E', 0x301, 0xC9}, {'E', 0x302, 0xCA},
    {'E', 0x308, 0xCB}, {'I', 0x300, 0xCC}, {'I', 0x301, 0xCD}, {'I', 0x302, 0xCE}, {'I', 0x308, 0xCF},
    {'N', 0x303, 0xD1}, {'O', 0x300, 0xD2}, {'O', 0x301, 0xD3}, {'O', 0x302, 0xD4}, {'O', 0x303, 0xD5},
    {'O', 0x308, 0xD6}, {'U', 0x300, 0xD9}, {'U', 0x301, 0xDA}, {'U', 0x302, 0xDB}, {'U', 0x308, 0xDC},
    {'Y', 0x301, 0xDD}, {'a', 0x300, 0xE0}, {'a', 0x301, 0xE1}, {'a', 0x302, 0xE2}, {'a', 0x303, 0xE3},
    {'a', 0x308, 0xE4}, {'a', 0x30A, 0xE5}, {'c', 0x327, 0xE7}, {'e', 0x300, 0xE8}, {'e', 0x301, 0xE9},
    {'e', 0x302, 0xEA}, {'e', 0x308, 0xEB}, {'i', 0x300, 0xEC}, {'i', 0x301, 0xED}, {'i', 0x302, 0xEE},
    {'i', 0x308, 0xEF}, {'n', 0x303, 0xF1}, {'o', 0x300, 0xF2}, {'o', 0x301, 0xF3}, {'o', 0x302, 0xF4},
    {'o', 0x303, 0xF5}, {'o', 0x308, 0xF6}, {'u', 0x300, 0xF9}, {'u', 0x301, 0xFA}, {'u', 0x302, 0xFB},
    {'u', 0x308, 0xFC}, {'y', 0x301, 0xFD}, {'y', 0x308, 0xFF}, {'C', 0x30C, 0x10C}, {'c', 0x30C, 0x10D},
    {'E', 0x30C, 0x11A}, {'e', 0x30C, 0x11B}, {'N', 0x30C, 0x147}, {'n', 0x30C, 0x148}, {'R', 0x30C, 0x158},
    {'r', 0x30C, 0x159}, {'S', 0x30C, 0x160}, {'s', 0x30C, 0x161}, {'Z', 0x30C, 0x17D}, {'z', 0x30C, 0x17E},
    {'S', 0x301, 0x15A}, {'s', 0x301, 0x15B}, {'Z', 0x301, 0x179}, {'z', 0x301, 0x17A}, {'L', 0x301, 0x139},
    {'l', 0x301, 0x13A}, {'G', 0x306, 0x11E}, {'g', 0x306, 0x11F}, {'S', 0x327, 0x15E}, {'s', 0x327, 0x15F},
    {'U', 0x30A, 0x16E}, {'u', 0x30A, 0x16F}, {'O', 0x30B, 0x150}, {'o', 0x30B, 0x151},
};

constexpr const char* kMarkNames[] = {
    "COMBINING GRAVE ACCENT", "COMBINING ACUTE ACCENT", "COMBINING CIRCUMFLEX ACCENT", "COMBINING TILDE",
    nullptr, nullptr, "COMBINING BREVE", nullptr, "COMBINING DIAERESIS", nullptr, "COMBINING RING ABOVE",
    "COMBINING DOUBLE ACUTE ACCENT", "COMBINING CARON"};
}  // namespace

bool is_zero_width(char32_t cp) {
  return cp == 0x200B || cp == 0x200C || cp == 0x200D || cp == 0x2060 || cp == 0xFEFF || cp == 0x00AD;
}

bool is_combining_mark(char32_t cp) { return cp >= 0x300 && cp <= 0x36F; }

char32_t ascii_lookalike(char32_t cp) {
  const Named* n = find_named(cp);
  return (n && n->ascii) ? n->ascii : cp;
}

char32_t compose(char32_t base, char32_t mark) {
  for (const Composition& c : kCompositions)
    if (c.base == base && c.mark == mark) return c.composed;
  return 0;
}

std::string describe(char32_t cp) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "U+%04X", static_cast<unsigned>(cp));
  std::string out = buf;
  const char* name = nullptr;
  if (const Named* n = find_named(cp)) name = n->name;
  else if (cp >= 0x300 && cp <= 0x30C) name = kMarkNames[cp - 0x300];
  if (name) {
    out += ' ';
    out += name;
  } else if (cp >= 0x21 && cp < 0x7F) {
    out += " '";
    out += static_cast<char>(cp);
    out += '\'';
  } else if (cp >= 0xA0) {
    out += " '";
    append_utf8(out, cp);
    out += '\'';
  }
  return out;
}

void append_utf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

std::string to_valid_utf8(std::string_view s) {
  std::size_t bad = find_invalid_utf8(s);
  if (bad == std::string_view::npos) return std::string(s);
  std::string out(s.substr(0, bad));
  for (std::size_t i = bad; i < s.size();) {
    CodePoint cp = decode(s, i);
    if (cp.valid) out.append(s.substr(i, cp.length));
    else out += "\xEF\xBF\xBD";
    i += cp.length;
  }
  return out;
}

std::string fold(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  char32_t pending = 0;  // last code point, held back so a mark can compose with it
  bool have_pending = false;
  auto flush = [&] {
    if (have_pending) append_utf8(out, pending);
    have_pending = false;
  };
  for (std::size_t i = 0; i < s.size();) {
    CodePoint cp = decode(s, i);
    i += cp.length;
    if (!cp.valid) {
      flush();
      out += s[i - 1];
      continue;
    }
    if (is_zero_width(cp.value)) continue;
    if (have_pending && is_combining_mark(cp.value)) {
      if (char32_t c = compose(pending, cp.value)) {
        pending = c;
        continue;
      }
    }
    flush();
    pending = ascii_lookalike(cp.value);
    have_pending = true;
  }
  flush();
  return out;
}

}  // namespace editproto::unicode
