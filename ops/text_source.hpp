// A parameter's text as a door reads it, piece by piece: the body of
// POST /v1/edits is the edit op's `text`, applied while it still arrives.
// The door owns the transport; the op pulls. No Beast here.
#pragma once

#include "editproto/option_names.hpp"
#include "services/error.hpp"

#include <functional>
#include <optional>
#include <string>
#include <utility>

namespace ops {

// What one read gave: more text, the end of it, or why it stopped short.
struct Piece {
  std::string text;
  bool end = false;
  std::optional<services::Failure> cut = std::nullopt;  // the text broke off (a timeout, a lost peer)

  static Piece more(std::string text) { return {std::move(text)}; }
  static Piece last() { return {"", true}; }
  static Piece broken(services::Failure why) { return {"", false, std::move(why)}; }
};

class TextSource {
 public:
  virtual ~TextSource() = default;
  // Reads the next piece and calls `got` with it on the door's executor.
  // The op calls it again only after `got` ran, and not after an end or a
  // cut. The first call says the op has started: a door may answer its
  // head then (HTTP's 200 and Expect: 100-continue).
  virtual void next(std::function<void(Piece)> got) = 0;
  // How the door's client sets the op's other parameters, for the
  // diagnostics that name one: POST /v1/edits' query by default.
  virtual editproto::OptionSyntax option_syntax() const { return editproto::OptionSyntax::query; }
};

}  // namespace ops
