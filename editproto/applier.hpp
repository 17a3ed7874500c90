// Applies parsed blocks to a workspace, in order, each on the file as the
// previous ones left it. A failed block stops nothing and nothing is rolled
// back. Files change only in flush(): one atomic write per changed file.
#pragma once

#include "editproto/block.hpp"
#include "editproto/document.hpp"
#include "editproto/option_names.hpp"
#include "editproto/reason.hpp"
#include "editproto/workspace.hpp"

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string_view>
#include <memory>
#include <string>
#include <vector>

namespace editproto {

struct Options {
  bool dry_run = true;                             // check: validate only
  std::optional<std::vector<std::string>> context; // files the agent has seen; nullopt: no check
  bool fuzz_whitespace = false;                    // apply unique whitespace-tolerant matches
  OptionSyntax option_syntax = OptionSyntax::command_line;  // how diagnostics name the options (--fuzz)
  // Off for blocks a program makes (the REPL's replies), whose new lines
  // are page output, where a lone "..." is data and not elided code.
  bool check_placeholders = true;
  Limits limits;
  // Runs just before a changed file is compared with the disk and written
  // (tests use it to change the file under the applier).
  std::function<void(const std::string& path)> before_write;
  // Runs before each attempt to write a changed file, with the content its
  // edits started from (null: no file) and the bytes about to be written:
  // the edit-run journal records them, so a run killed before its commit
  // can still be recorded as its own.
  std::function<void(const std::string& path, const std::string* base, std::span<const std::string_view> bytes)>
      on_write;
};

// A file this applier wrote, for the commit that records it.
struct FileChange {
  std::string path;                           // real path, relative to the root
  std::shared_ptr<const std::string> before;  // what the edits started from; null: no file
  std::vector<std::string_view> after;        // the bytes written, valid until the next submit
};

struct BlockResult {
  std::size_t index = 0;
  std::size_t block_line = 0;          // line of "««« EDIT" in the response
  std::string path;                    // normalised when the path was valid
  bool path_reused = false;            // taken from the previous block (no path line of its own)
  Status status = Status::failed;
  Reason reason = Reason::none;
  std::optional<std::size_t> line;     // 1-based line in the file
  std::string diagnostic;
  std::optional<std::string> tolerance;  // "whitespace" when --fuzz matched
  std::size_t lines_removed = 0;
  std::size_t lines_added = 0;
};

class Applier {
 public:
  Applier(const Workspace& workspace, Options options);

  // Optional: names the blocks that will be submitted, so each file is
  // indexed for exactly their lines in one pass when it is first read.
  void prepare(std::span<const Block> blocks);

  // Validates the block and applies it to the in-memory file.
  void submit(const Block& block);

  // Writes every changed file (not in dry run) and returns the final results
  // of the blocks submitted since the last flush, in order.
  std::vector<BlockResult> flush();

  const std::vector<std::string>& files_auto_added() const { return auto_added_; }
  // Paths written by this applier, in the order first written.
  const std::vector<std::string>& files_written() const { return written_; }

  // The files written since the last call, each with the content its edits
  // started from (read before the applier's first write to it, or committed
  // by the previous call). Call after flush(); the next changes start here.
  std::vector<FileChange> take_changes();

 private:
  struct File {
    std::string path;            // real path inside the root
    Stamp stamp;                 // as read or last written
    std::vector<std::string_view> written;  // the bytes last written (views into doc)
    bool has_written = false;
    // The content the uncommitted edits started from; set on each read until
    // the first write, then kept until take_changes().
    std::shared_ptr<const std::string> base;
    bool base_fixed = false;
    bool changed = false;  // written since take_changes()
    std::optional<Document> doc; // nullopt: the file does not exist
    std::optional<Failure> unusable;  // binary, encoding, too large
    bool dirty = false;
    std::vector<std::size_t> attempts;  // pending blocks that reached this file
  };
  struct Pending {
    Block block;
    BlockResult result;
    File* file = nullptr;
  };

  Outcome<File*> open(const std::string& real);
  void load(File& f, FileContent content);
  void attempt(File& f, Pending& p);
  void apply_at(File& f, Pending& p, std::size_t start, bool tolerant);
  void rebase(File& f, FileContent fresh);
  bool in_context(const std::string& path) const;
  const Outcome<std::string>& resolve(const std::string& normal);
  // Whether `fresh` is what the file held when last read or written.
  bool unchanged(const File& f, std::string_view fresh) const;

  const Workspace& ws_;
  Options opt_;
  std::set<std::string> context_;
  std::vector<std::string> auto_added_;
  std::vector<std::string> written_;
  std::map<std::string, File> files_;
  // Normalised path -> real path, resolved once per applier. Writes resolve
  // again (with O_NOFOLLOW), so a link swapped meanwhile is still caught.
  std::map<std::string, Outcome<std::string>> resolved_;
  std::map<std::string, std::vector<std::string_view>> hints_;  // real path -> lines blocks look for
  std::vector<std::shared_ptr<const std::string_view[]>> hint_text_;  // keeps those lines alive
  std::vector<Pending> pending_;
  std::set<std::string> cleaned_;  // folders whose leftover temp files were looked for
  // Rebases on a file another writer keeps changing, before its blocks fail.
  static constexpr int kMaxWriteRounds = 16;
};

}  // namespace editproto
