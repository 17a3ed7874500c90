// Where text found in a chat log came from. A request runs only when it
// arrives through one of the doors or as a local, uncommitted change: text
// that is part of a commit (the REPL ref's, or any other) is history, never
// instructions, however it reached the file (a pull, a checkout, a merge,
// a rebase, a reset, a stash, the user's own `git commit`).
#pragma once

#include "git/repository.hpp"
#include "repl/error.hpp"
#include "repl/format.hpp"

#include <cstddef>
#include <optional>
#include <string>

namespace repl {

struct Provenance {
  std::size_t committed = 0;  // how many leading lines of the log came with git
  std::string why;            // how, when any did
};

// Asks the workspace's repository, through a handle of its own (on the
// REPL's thread), opened at the first question.
class GitProvenance {
 public:
  explicit GitProvenance(std::string root) : root_(std::move(root)) {}

  // The log at `path` as found (`text`, split into `lines`). `saved`: the
  // change was not an agent's edit through a door, so a whole state git
  // holds, or a change while git is in the middle of an operation, came
  // with git too.
  Result<Provenance> of(const std::string& path, const std::string& text, const Lines& lines, bool saved);

 private:
  std::string root_;
  std::optional<editgit::Repository> repo_;
  std::string ref_;  // the REPL's ref (record/repl_ref.hpp)
};

}  // namespace repl
