// One edit block as the parser emits it.
#pragma once

#include "editproto/reason.hpp"

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace editproto {

struct Block {
  std::size_t index = 0;           // 0-based, in order of appearance
  std::size_t line = 0;            // 1-based line of "««« EDIT" in the response
  std::string path;                // as written, after the path-line rules
  // No path line, and nothing but blank lines and code fences between this
  // block and the previous one: the previous block's path.
  bool path_reused = false;
  // The two sections, lines without terminators. The views and the bytes
  // they point to live in `storage`, one allocation the block shares with
  // its copies, so copying a block is cheap.
  std::shared_ptr<const std::string_view[]> storage;
  std::span<const std::string_view> edit;  // EDIT section
  std::span<const std::string_view> repl;  // REPL section
  // A block the parser already knows is bad (missing_path, malformed_block,
  // incomplete_block, too_large) carries that failure; the applier reports it.
  Failure parse_error;

  bool ok() const { return parse_error.reason == Reason::none; }
};

// Something in a response that is not a block but that the agent should
// hear about. Warnings never count as blocks and never change an exit code.
enum class WarningCode {
  stray_marker,  // a marker line outside any block, or an opener that starts no block
};
std::string_view to_string(WarningCode c);

struct Warning {
  std::size_t line = 0;  // 1-based line in the response
  WarningCode code = WarningCode::stray_marker;
  std::string message;
};

// Byte limits. Defaults suit LLM answers and source trees; all configurable.
struct Limits {
  std::size_t max_response_bytes = 64u << 20;  // a whole response fed to one parser
  std::size_t max_block_bytes = 4u << 20;      // one block's EDIT + REPL text
  std::size_t max_file_bytes = 256u << 20;     // a file read or written
};

}  // namespace editproto

namespace editproto {

// A block made by a program rather than parsed (the REPL's own edits): the
// same engine applies it, with the same anchoring and the same checks.
Block make_block(std::string path, std::span<const std::string> edit, std::span<const std::string> repl);

}  // namespace editproto
