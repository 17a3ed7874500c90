// Streaming parser for edit blocks. Bytes arrive in chunks of any size (a
// chunk may end inside a line or inside a multi-byte marker character); each
// block is emitted the moment its "»»» EDIT END" line is complete.
#pragma once

#include "editproto/block.hpp"

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace editproto {

class Parser {
 public:
  explicit Parser(Limits limits = {}) : limits_(limits) {}

  // Consumes a chunk and appends every block it completes to `out`.
  void feed(std::string_view chunk, std::vector<Block>& out);

  // End of stream: a block still open becomes incomplete_block.
  void finish(std::vector<Block>& out);

  // Stray markers seen so far that take_warnings() has not taken, in order
  // of their lines. Whatever the chunking, the same warnings.
  const std::vector<Warning>& warnings() const { return warnings_; }
  std::vector<Warning> take_warnings() { return std::exchange(warnings_, {}); }

 private:
  enum class State { scanning, reading_edit, reading_repl, overflow };
  enum class Marker { none, edit, repl, end };

  // A line kept for the path rules: a view into the chunk being fed, copied
  // into `store` only when the chunk ends. Lines over 512 bytes are not kept
  // (no path is that long), only their number.
  struct Kept {
    std::string_view text;
    std::string store;
    std::size_t line = 0;
    bool set = false, owned = false, too_long = false;
    void keep(std::string_view t, std::size_t n, bool stable);
    void own();
    void copy_from(const Kept& other);
  };

  void on_line(std::string_view line, bool stable, std::vector<Block>& out);
  void scanning_line(std::string_view line, Marker m, bool stable);
  void cut_open_block(std::vector<Block>& out);
  void begin_block(bool after_unclosed);
  void plain_lines(std::string_view text);
  void block_line(std::string_view line);
  void emit(std::vector<Block>& out);
  void fail_open_block(Reason reason, std::string detail, std::vector<Block>& out);
  void remember_candidate(std::string_view line, bool stable, std::size_t line_no);
  void own_candidates();
  void warn_stray_opener(std::string_view stopped_by, std::size_t at);
  std::string missing_path_detail(const Kept* candidate, bool after_unclosed) const;
  static Marker marker_of(std::string_view line);

  Limits limits_;
  State state_ = State::scanning;
  std::string partial_;            // an incomplete line carried across chunks
  std::size_t bytes_ = 0;
  std::size_t line_no_ = 0;
  std::size_t next_index_ = 0;
  std::string previous_path_;      // for a block right after another, without a path line
  std::string previous_path_line_; // the line previous_path_ came from
  // While scanning: the last two non-blank lines (the path line, and the one
  // before it for when the last is a fence opener), and the last one that is
  // not a fence: any such line stands between the previous block and the
  // next, and stops the next from reusing the previous block's path.
  Kept candidate_[2];
  Kept prose_;
  std::vector<Warning> warnings_;
  Block block_;                    // the block being read
  bool own_path_ = false;          // its path came from its own path line
  std::size_t unclosed_line_ = 0;  // the line of the unclosed block a new opener cut off
  std::string text_;               // its lines, back to back
  std::vector<std::pair<std::size_t, std::size_t>> edit_at_, repl_at_;  // (offset, length) in text_
  // Its last two non-blank lines (offset in text_, length, response line),
  // for the path of a block whose opener cuts this one off.
  struct Inner {
    std::size_t at = 0, length = 0, line = 0;
  };
  Inner inner_[2];
  std::size_t inner_count_ = 0;
  std::size_t block_bytes_ = 0;
  bool block_too_large_ = false;
  bool block_malformed_ = false;
  std::string malformed_detail_;
};

}  // namespace editproto
