// A text file as lines, edited in place without copying the untouched ones.
//
// Lines are compared without their terminators; each line keeps its own
// terminator ("\n", "\r\n" or none for a last line without one), and a UTF-8
// BOM is held apart, so writing the file back reproduces every untouched byte.
//
// Edits go through a piece table over line ids, and exact lookups through a
// hash index (built for the prepared lines, or for all lines on the second
// search): applying the 1000th block to a 1M-line file costs about as much
// as the first, not a full scan. Writing needs no copy: each piece is one
// run of bytes (see chunks()).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace editproto {

enum class Eol : std::uint8_t { none, lf, crlf };

class Document {
 public:
  Document() : content_(std::make_shared<const std::string>()) {}
  explicit Document(std::string content);
  Document(const Document&) = delete;
  Document& operator=(const Document&) = delete;
  Document(Document&&) = default;
  Document& operator=(Document&&) = default;

  std::size_t size() const { return size_; }
  bool has_bom() const { return bom_; }
  std::string_view line(std::size_t n) const;  // 0-based
  Eol eol(std::size_t n) const;
  // The bytes the document was made from.
  const std::string& original() const { return *content_; }
  // The same bytes, for a caller that must keep them past the document.
  std::shared_ptr<const std::string> shared_original() const { return content_; }

  // The terminator new lines get: the most common one in the file, "\n" for
  // a file without any.
  Eol dominant_eol() const { return dominant_; }

  // Indexes only the lines equal to one of `lines`, in one pass: when every
  // block for a file is known up front, lookups then cost a few probes.
  // A later search for a section none of whose lines were named falls back
  // to indexing every line.
  void prepare(std::span<const std::string_view> lines);

  // Start lines (0-based) of every place where `section` occurs as whole
  // consecutive lines, in file order. Costs at most about 2 x (lines +
  // section lines) comparisons, even when the lines repeat.
  std::vector<std::size_t> find(std::span<const std::string_view> section);

  // Replaces lines [first, first + count) by `lines`; new lines end with
  // `eol`, and the last one with `last_eol`.
  void replace(std::size_t first, std::size_t count, std::span<const std::string_view> lines, Eol eol,
               Eol last_eol);

  // Changes the terminator of one existing line (by replacing the line, so
  // the original bytes stay untouched).
  void set_eol(std::size_t n, Eol eol);

  // Lines compared by find() so far: the work searches cost, which tests and
  // benchmarks check stays linear in the file and section sizes.
  std::size_t comparisons() const { return comparisons_; }

  // All lines, in order (for diagnostics; costs one pass).
  std::vector<std::string_view> lines() const;

  // The file's bytes as consecutive pieces of memory (one per piece of the
  // piece table, plus the BOM): written with no copy, valid while the
  // document lives.
  std::vector<std::string_view> chunks() const;
  std::size_t byte_size() const;

 private:
  struct Line {
    const char* data;
    std::uint32_t length;
    Eol eol;
    std::string_view text() const { return {data, length}; }
  };
  struct Piece {
    std::uint32_t first;  // line id
    std::uint32_t count;
  };
  struct Position {
    std::size_t piece;
    std::size_t offset;
  };
  enum class Index { none, partial, full };

  Position locate(std::size_t n) const;
  std::uint32_t id_at(std::size_t n) const;
  void restart_from(std::size_t piece);
  void build_index(Index mode, std::span<const std::string_view> wanted);
  void index_line(std::uint32_t id);
  std::size_t slot_of(std::uint64_t h) const;
  bool matches_at(std::size_t start, std::span<const std::string_view> section) const;
  std::vector<std::size_t> find_by_scan(std::span<const std::string_view> section) const;
  std::vector<std::size_t> find_by_index(std::span<const std::string_view> section);
  std::vector<std::size_t> positions_of(std::vector<std::uint32_t>& ids) const;

  std::shared_ptr<const std::string> content_;  // the original bytes (stable address)
  std::deque<std::string> added_;         // storage for lines added by edits
  std::vector<Line> lines_;               // every line ever seen, by id
  std::vector<Piece> pieces_;             // the current document, in order
  std::vector<std::size_t> piece_start_;  // first line number of each piece
  std::size_t size_ = 0;
  bool bom_ = false;
  Eol dominant_ = Eol::lf;
  std::size_t searches_ = 0;
  std::size_t last_edit_piece_ = 0;  // where positions_of starts looking

  // Hash index: open addressing from a line hash (0: empty slot) to the
  // newest line id with it, chained through next_ to older ones. A partial
  // index has slots only for the prepared lines.
  Index index_ = Index::none;
  std::vector<std::uint64_t> slot_hash_;
  std::vector<std::uint32_t> slot_head_;
  std::vector<std::uint32_t> slot_count_;
  std::vector<std::uint32_t> next_;
  std::vector<std::uint64_t> filter_;  // partial index: bits of quick keys of prepared lines
  std::size_t slots_used_ = 0;
  mutable std::size_t comparisons_ = 0;
};

std::string_view eol_bytes(Eol e);

}  // namespace editproto
