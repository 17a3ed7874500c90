// One commit as the show op gives it: its metadata, editgate's entry read
// back from its message (record/edit_log.hpp) and its patch
// (git/diff.hpp), as JSON with every text made valid UTF-8.
#pragma once

#include "git/diff.hpp"
#include "git/repository.hpp"

#include <boost/json/object.hpp>

namespace record {

// {"commit","parents","author","time","summary","kind","agent","session",
// "page","trailers","files":[...],"blocks":[...],"cut"}. The blocks'
// "diagnostic" is null: a commit message does not hold it (the gateway
// fills it from its recent runs when it still has the run).
boost::json::object show_json(const editgit::CommitInfo& commit, const editgit::CommitPatch& patch,
                              const editgit::DiffBounds& bounds);

}  // namespace record
