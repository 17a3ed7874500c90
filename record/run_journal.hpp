// Edit runs write files before they commit them. A run killed in between
// (or whose commit failed) would leave those files to pass for the user's
// own changes at the next commit. The journal closes that gap: from its
// first write to the commit that records it, a run names in
// <gitdir>/editgate-runs/ what it wrote (path, the blob id of the content
// its edits started from, the blob id of the bytes written), under an flock
// held for as long as the run lives. The next run finds journals no live
// process holds and commits the files they name as their agent's, marked
// as left by an interrupted run — when the file still holds exactly what
// the run wrote; a file changed since is left as it is.
#pragma once

#include "editproto/workspace.hpp"
#include "git/repository.hpp"

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace record {

class RunJournal {
 public:
  // Nothing is created until the first write. `gitdir` as
  // Repository::gitdir() gives it.
  RunJournal(std::string gitdir, std::string agent, std::string session);
  // Lets go of the journal; it stays on disk while what it names is not
  // committed, for the next run to commit.
  ~RunJournal();
  RunJournal(const RunJournal&) = delete;
  RunJournal& operator=(const RunJournal&) = delete;

  // Before each write of a file (editproto::Options::on_write). A journal
  // that cannot be written loses only this protection: the write goes on.
  void writing(const std::string& path, const std::string* base, std::span<const std::string_view> bytes);
  // Everything written so far is in a commit: the journal goes.
  void committed();

  // The journal's file while one is open, for tests.
  const std::string& file() const { return file_; }

 private:
  bool open_file();

  std::string dir_;
  std::string agent_;
  std::string session_;
  std::string file_;
  int fd_ = -1;
};

// What the next run did with the files an interrupted run left.
struct Interrupted {
  std::string agent;
  std::string session;
  std::vector<std::string> paths;          // committed as the run left them
  std::vector<std::string> changed_since;  // changed (or gone) after the run wrote them: left alone
  std::optional<std::string> commit;
};

// Commits, one commit per journal and as its agent's, the files of runs
// that stopped between writing and committing, and removes their journals.
// Journals a live process holds are left alone. An error is the first
// commit that failed; that journal stays for the next try.
editgit::Result<std::vector<Interrupted>> commit_interrupted(const editproto::Workspace& ws,
                                                             editgit::Repository& repo);

}  // namespace record
