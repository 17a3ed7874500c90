// Packs the loose objects of a side ref that gets a commit per REPL exchange
// (refs/editgate/repl/<name>), so the object store grows with the log, not
// with its square: each commit writes the whole log as a new loose blob.
//
// pack_new() moves the ref's new loose objects into one pack; merge() folds
// the packer's packs together geometrically, so each object is rewritten
// about log2(packs) times over a session instead of at every full repack.
//
// Safe for readers in other threads and processes, and if killed at any
// point: a loose file is unlinked only once the pack holding its object is
// complete with its .idx, renamed into place, synced, and shown to hold it;
// a pack is deleted only once a newer one is shown to hold all its objects.
// What a kill leaves is at worst duplicates (a loose object also packed,
// which the next pack_new unlinks; a pack the packer lost track of, which
// it never touches again and git gc takes as its own).
//
// Which packs are the packer's: their names are listed in
// <common dir>/editgate/packer/packs (objects/pack has no room for a marker
// git would not count as garbage). Packs git made are never in the list, so
// never merged nor deleted; a listed pack git gc removed is dropped from the
// list when next read. Two packers on one repository (two workspaces of it)
// take turns through <common dir>/editgate/packer/lock; a call that finds it
// held does nothing.
//
// Not thread-safe: one Packer per thread (the commit queue's).
#pragma once

#include "git/error.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>

struct git_repository;

namespace editgit {

struct PackStats {
  std::size_t objects = 0;        // objects written into the new pack (0: none written)
  std::size_t loose_removed = 0;  // loose files unlinked (their objects are in a pack)
  std::size_t packs_merged = 0;   // the packer's packs the new one replaced
  std::uint64_t pack_bytes = 0;   // bytes of the new .pack and .idx
};

struct PackerOptions {
  // merge() rolls packs up until, sorted by object count, each is at least
  // `factor` times the next smaller: at most log_factor(objects) + 1 packs.
  std::size_t factor = 2;
  // Packs the packer keeps listed before merge() does anything: a few small
  // packs cost readers less than rewriting them after every pack_new.
  std::size_t min_packs = 4;
  // When it turns true, a call under way gives up within about half a
  // second (the packbuilder's progress calls) with Error::stopped, having
  // removed nothing: a merge of many objects takes tens of seconds.
  const std::atomic<bool>* stop = nullptr;
};

class Packer {
 public:
  // Its own libgit2 handle on the repository whose git folder is `gitdir`
  // (a linked worktree's or the common one: objects and the list live in
  // the common one).
  static Result<Packer> open(const std::string& gitdir, PackerOptions options = {});

  Packer(Packer&& other) noexcept;
  Packer& operator=(Packer&& other) noexcept;
  Packer(const Packer&) = delete;
  Packer& operator=(const Packer&) = delete;
  ~Packer();

  // Packs the objects reachable from `ref`'s tip that are still loose into
  // one new pack in objects/pack, then unlinks their loose files (loose
  // objects a pack already holds, as a killed call leaves them, are only
  // unlinked). The walk stops at the tip the last call packed, and at any
  // commit or tree that is not loose (packed before, by this packer or by
  // git), so its cost is the new objects', plus one stat per entry of each
  // new tree. Nothing when nothing is loose; Error::not_found when the ref
  // does not exist. Bounds: memory and the pack grow with the loose objects
  // found (a call every K commits: 3K objects).
  Result<PackStats> pack_new(const std::string& ref);

  // When the packer's packs number more than min_packs, rewrites the
  // smallest of them (by object count) into one, as few as keep the rest a
  // geometric progression (git repack --geometric's rule), and deletes
  // them. Every object of a merged pack goes into the new one, reachable
  // or not: a blob the branch shares with the ref may live only there.
  // Amortized, each object is rewritten O(log objects) times.
  Result<PackStats> merge();

  // How many packs the packer lists that still exist (tests, the bench).
  Result<std::size_t> pack_count() const;

 private:
  Packer(git_repository* repo, std::string objects, std::string home, PackerOptions options);

  git_repository* repo_ = nullptr;
  std::string objects_;  // <common dir>/objects/
  std::string home_;     // <common dir>/editgate/packer/
  PackerOptions opt_;
  std::map<std::string, std::string> last_tip_;  // ref -> the tip (40 hex) its last pack_new left packed
};

}  // namespace editgit
