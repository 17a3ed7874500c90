// The streamed edit parser under random chunking: the input's first byte
// says how many of the next bytes are chunk sizes (used in turn, cyclically),
// the rest is the response. Whatever the chunking, the blocks must be those
// of one feed of the whole response. Small limits so the too_large paths are
// reached by small inputs. Warnings (stray markers) must be the same too.
#include "check.hpp"
#include "editproto/parser.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace {

using editproto::Block;

struct Parsed {
  std::vector<Block> blocks;
  std::vector<editproto::Warning> warnings;
};

Parsed parse(std::string_view text, const editproto::Limits& limits, std::string_view sizes) {
  editproto::Parser parser(limits);
  Parsed parsed;
  std::vector<Block>& out = parsed.blocks;
  std::size_t at = 0, k = 0;
  while (at < text.size()) {
    std::size_t n = text.size() - at;
    if (!sizes.empty()) {
      n = static_cast<unsigned char>(sizes[k++ % sizes.size()]) % 64;
      if (n == 0) {  // an empty chunk, then one byte
        parser.feed({}, out);
        n = 1;
      }
    }
    n = std::min(n, text.size() - at);
    parser.feed(text.substr(at, n), out);
    at += n;
    // Taking warnings as they come gives, in all, the warnings of one feed.
    if (k % 3 == 1)
      for (editproto::Warning& w : parser.take_warnings()) parsed.warnings.push_back(std::move(w));
  }
  parser.finish(out);
  for (editproto::Warning& w : parser.take_warnings()) parsed.warnings.push_back(std::move(w));
  return parsed;
}

bool same_lines(std::span<const std::string_view> a, std::span<const std::string_view> b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end());
}

// A block's path is named by a line of the response, or reused from the
// block right before it; a block without one failed missing_path.
void check_block(const std::vector<Block>& blocks, std::size_t i, std::string_view text) {
  const Block& b = blocks[i];
  FUZZ_CHECK(b.index == i);
  FUZZ_CHECK(b.line >= 1);
  if (i > 0) FUZZ_CHECK(b.line > blocks[i - 1].line);
  if (b.ok()) {
    FUZZ_CHECK(!b.path.empty());
    FUZZ_CHECK(b.parse_error.detail.empty());
  } else {
    FUZZ_CHECK(!b.parse_error.detail.empty());
  }
  if (b.path_reused) {
    FUZZ_CHECK(i > 0 && !b.path.empty() && b.path == blocks[i - 1].path);
  } else if (!b.path.empty() && b.parse_error.reason != editproto::Reason::too_large) {
    FUZZ_CHECK(text.find(b.path) != std::string_view::npos);
  }
  if (b.parse_error.reason == editproto::Reason::missing_path) FUZZ_CHECK(b.path.empty() && !b.path_reused);
  for (std::string_view l : b.edit) FUZZ_CHECK(l.find('\n') == std::string_view::npos);
  for (std::string_view l : b.repl) FUZZ_CHECK(l.find('\n') == std::string_view::npos);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  if (in.empty()) return 0;
  const std::size_t n_sizes = std::min<std::size_t>(static_cast<unsigned char>(in[0]) % 16, in.size() - 1);
  const std::string_view sizes = in.substr(1, n_sizes);
  const std::string_view text = in.substr(1 + n_sizes);

  editproto::Limits limits;
  limits.max_response_bytes = 8192;
  limits.max_block_bytes = 1024;
  const Parsed whole_parse = parse(text, limits, {});
  const Parsed chunked_parse = parse(text, limits, sizes);
  const std::vector<Block>& whole = whole_parse.blocks;
  const std::vector<Block>& chunked = chunked_parse.blocks;

  // Warnings: the same whatever the chunking, in order, on lines no block is on.
  FUZZ_CHECK(whole_parse.warnings.size() == chunked_parse.warnings.size());
  for (std::size_t i = 0; i < whole_parse.warnings.size(); ++i) {
    const editproto::Warning& w = whole_parse.warnings[i];
    FUZZ_CHECK(w.line == chunked_parse.warnings[i].line);
    FUZZ_CHECK(w.code == chunked_parse.warnings[i].code);
    FUZZ_CHECK(w.message == chunked_parse.warnings[i].message);
    FUZZ_CHECK(w.line >= 1 && !w.message.empty());
    if (i > 0) FUZZ_CHECK(w.line > whole_parse.warnings[i - 1].line);
    for (const Block& b : whole) FUZZ_CHECK(b.line != w.line);
  }

  FUZZ_CHECK(whole.size() == chunked.size());
  for (std::size_t i = 0; i < whole.size(); ++i) {
    const Block& a = whole[i];
    const Block& b = chunked[i];
    check_block(whole, i, text);
    FUZZ_CHECK(a.index == b.index);
    FUZZ_CHECK(a.line == b.line);
    FUZZ_CHECK(a.path == b.path);
    FUZZ_CHECK(a.path_reused == b.path_reused);
    FUZZ_CHECK(a.parse_error.reason == b.parse_error.reason);
    FUZZ_CHECK(a.parse_error.detail == b.parse_error.detail);
    FUZZ_CHECK(same_lines(a.edit, b.edit));
    FUZZ_CHECK(same_lines(a.repl, b.repl));
  }
  return 0;
}
