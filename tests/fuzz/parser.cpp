// The streamed edit parser under random chunking: the input's first byte
// says how many of the next bytes are chunk sizes (used in turn, cyclically),
// the rest is the response. Whatever the chunking, the blocks must be those
// of one feed of the whole response. Small limits so the too_large paths are
// reached by small inputs.
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

std::vector<Block> parse(std::string_view text, const editproto::Limits& limits, std::string_view sizes) {
  editproto::Parser parser(limits);
  std::vector<Block> out;
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
  }
  parser.finish(out);
  return out;
}

bool same_lines(std::span<const std::string_view> a, std::span<const std::string_view> b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end());
}

void check_block(const Block& b, std::size_t i) {
  FUZZ_CHECK(b.index == i);
  FUZZ_CHECK(b.line >= 1);
  if (b.ok()) {
    FUZZ_CHECK(!b.path.empty());
    FUZZ_CHECK(b.parse_error.detail.empty());
  } else {
    FUZZ_CHECK(!b.parse_error.detail.empty());
  }
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
  const std::vector<Block> whole = parse(text, limits, {});
  const std::vector<Block> chunked = parse(text, limits, sizes);

  FUZZ_CHECK(whole.size() == chunked.size());
  for (std::size_t i = 0; i < whole.size(); ++i) {
    const Block& a = whole[i];
    const Block& b = chunked[i];
    check_block(a, i);
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
