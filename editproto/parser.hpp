// Streaming parser for edit blocks. Bytes arrive in chunks of any size (a
// chunk may end inside a line or inside a multi-byte marker character); each
// block is emitted the moment its "»»» EDIT END" line is complete.
#pragma once

#include "editproto/block.hpp"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace editproto {

class Parser {
 public:
  explicit Parser(Limits limits = {}) : limits_(limits) {}

  // Consumes a chunk and appends every block it completes to `out`.
  void feed(std::string_view chunk, std::vector<Block>& out);

  // End of stream: a block still open becomes incomplete_block.
  void finish(std::vector<Block>& out);

 private:
  enum class State { scanning, reading_edit, reading_repl, overflow };
  enum class Marker { none, edit, repl, end };

  void on_line(std::string_view line, bool stable, std::vector<Block>& out);
  void begin_block();
  void plain_lines(std::string_view text);
  void block_line(std::string_view line);
  void emit(std::vector<Block>& out);
  void fail_open_block(Reason reason, std::string detail, std::vector<Block>& out);
  void remember_candidate(std::string_view line, bool stable);
  void own_candidates();
  static Marker marker_of(std::string_view line);

  Limits limits_;
  State state_ = State::scanning;
  std::string partial_;            // an incomplete line carried across chunks
  std::size_t bytes_ = 0;
  std::size_t line_no_ = 0;
  std::size_t next_index_ = 0;
  std::string previous_path_;      // for blocks without a path line
  std::string previous_path_line_; // the line previous_path_ came from
  // The last two non-blank lines seen while scanning: the path line, and the
  // one before it for when the last is a fence opener. They are views into
  // the chunk being fed, copied into store_ only when the chunk ends.
  std::string_view candidate_[2];
  std::string store_[2];
  bool candidate_set_[2] = {false, false};
  bool candidate_owned_[2] = {false, false};
  Block block_;                    // the block being read
  std::string text_;               // its lines, back to back
  std::vector<std::pair<std::size_t, std::size_t>> edit_at_, repl_at_;  // (offset, length) in text_
  std::size_t block_bytes_ = 0;
  bool block_too_large_ = false;
  bool block_malformed_ = false;
  std::string malformed_detail_;
};

}  // namespace editproto
