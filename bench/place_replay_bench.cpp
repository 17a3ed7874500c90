// place_replay_bench: real commits replayed as damaged edit blocks, counting
// the blocks whose diagnostic points at the wrong place. Each modified hunk
// of a commit becomes a block (EDIT: the hunk's old lines, context included;
// REPL: its new lines), which must occur exactly once in the pre-image file;
// the block is damaged (one EDIT line dropped, or a one-character typo in one
// EDIT line) and diagnosed as the applier does. See README.md.
#include "editproto/diagnose.hpp"

#include <git2.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace {

struct Args {
  std::string repo = ".";
  std::string from = "HEAD";
  std::size_t commits = 300;
  std::uint64_t seed = 36;
  std::size_t show = 0;  // wrong places printed in full
  bool no_anchor = false;  // diagnose as if EDIT and REPL began differently: every block reaches the closest place
};

[[noreturn]] void usage(int code) {
  std::cout << "usage: place_replay_bench [--repo PATH] [--from REV] [--commits N] [--seed N] [--show N]\n"
               "                          [--no-anchor]\n"
               "  --repo PATH  the git repository replayed (default: the current folder)\n"
               "  --from REV   the newest commit walked (default HEAD)\n"
               "  --commits N  commits walked, newest first, merges skipped (default 300)\n"
               "  --seed N     seed of the damage (default 36)\n"
               "  --show N     print the first N wrong places of each damage in full (default 0)\n"
               "  --no-anchor  diagnose with no anchor (as if EDIT and REPL began differently), so that\n"
               "               no block is explained by its anchor and each reaches the closest place\n";
  std::exit(code);
}

Args parse_args(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    if (k == "--help" || k == "-h") usage(0);
    if (k == "--no-anchor") {
      a.no_anchor = true;
      continue;
    }
    if (i + 1 >= argc) usage(2);
    const std::string v = argv[++i];
    if (k == "--repo") a.repo = v;
    else if (k == "--from") a.from = v;
    else if (k == "--commits") a.commits = std::stoul(v);
    else if (k == "--seed") a.seed = std::stoull(v);
    else if (k == "--show") a.show = std::stoul(v);
    else usage(2);
  }
  return a;
}

void check(int rc, const char* what) {
  if (rc >= 0) return;
  const git_error* e = git_error_last();
  std::cerr << what << ": " << (e ? e->message : "libgit2 error") << "\n";
  std::exit(1);
}

// SplitMix64: the same damage on every platform and standard library.
struct Rng {
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(next() % n); }
};

std::vector<std::string> split_lines(std::string_view text) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t nl = text.find('\n', at);
    std::string_view line = text.substr(at, nl == std::string_view::npos ? std::string_view::npos : nl - at);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    out.emplace_back(line);
    if (nl == std::string_view::npos) break;
    at = nl + 1;
  }
  return out;
}

// One hunk as a block, on its pre-image.
struct Hunk {
  std::string commit, path;
  std::size_t start = 0;  // 1-based first old line
  std::vector<std::string> edit, repl;
};

bool blank(std::string_view s) { return s.find_first_not_of(" \t") == std::string_view::npos; }

// Drops one EDIT line.
std::vector<std::string> drop_line(const std::vector<std::string>& edit, Rng& rng) {
  std::vector<std::string> out = edit;
  out.erase(out.begin() + static_cast<long>(rng.below(out.size())));
  return out;
}

// Changes one character that is not white space, in one non-blank EDIT line,
// to another printable ASCII character (a letter for a letter).
std::optional<std::vector<std::string>> typo(const std::vector<std::string>& edit, Rng& rng) {
  std::vector<std::size_t> lines;
  for (std::size_t j = 0; j < edit.size(); ++j)
    if (!blank(edit[j])) lines.push_back(j);
  if (lines.empty()) return std::nullopt;
  std::vector<std::string> out = edit;
  std::string& line = out[lines[rng.below(lines.size())]];
  std::vector<std::size_t> at;
  for (std::size_t c = 0; c < line.size(); ++c)
    if (line[c] != ' ' && line[c] != '\t' && static_cast<unsigned char>(line[c]) < 0x80) at.push_back(c);
  if (at.empty()) return std::nullopt;
  char& ch = line[at[rng.below(at.size())]];
  const bool letter = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
  const char was = ch;
  do {
    ch = letter ? static_cast<char>('a' + rng.below(26)) : static_cast<char>('!' + rng.below(94));
  } while (ch == was);
  return out;
}

std::vector<std::string_view> views(const std::vector<std::string>& v) { return {v.begin(), v.end()}; }

std::size_t common_prefix(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
  return n;
}

struct Tally {
  std::size_t damaged = 0;      // blocks that fail after damage
  std::size_t still_apply = 0;  // not counted: the damage left a section that occurs once
  std::size_t ambiguous = 0;    // not counted: it occurs more than once (every place is listed)
  std::size_t several = 0;     // of the damaged: a tolerant match at several places, all listed
  std::size_t wrong = 0;
  std::map<std::string, std::size_t> by_reason, wrong_by_reason;
  std::size_t shown = 0;
};

// Diagnoses the damaged block as Applier::submit does, and counts it.
void replay(const Hunk& h, const std::vector<std::string>& edit, const std::vector<std::string_view>& file,
            const Args& args, const char* damage, Tally& t) {
  const std::vector<std::string_view> section = views(edit);
  const std::vector<std::size_t> hits = editproto::find_tolerant(file, section, editproto::Tolerance::exact);
  if (hits.size() == 1) return void(++t.still_apply);
  if (hits.size() > 1) return void(++t.ambiguous);
  ++t.damaged;
  // A match that forgives white space (or look-alikes too) at several
  // places: the diagnostic lists them, as for an ambiguous block.
  for (editproto::Tolerance tol : {editproto::Tolerance::whitespace, editproto::Tolerance::lookalike}) {
    const std::size_t places = editproto::find_tolerant(file, section, tol).size();
    if (places > 1) return void(++t.several);
    if (places == 1) break;
  }
  const editproto::Mismatch m =
      editproto::diagnose_missing(file, section, args.no_anchor ? 0 : common_prefix(edit, h.repl), h.path);
  const std::string reason(editproto::to_string(m.reason));
  ++t.by_reason[reason];
  // Wrong: no line named, or one outside the hunk's old lines.
  if (m.line && *m.line >= h.start && *m.line < h.start + h.edit.size()) return;
  ++t.wrong;
  ++t.wrong_by_reason[reason];
  if (t.shown++ >= args.show) return;
  std::cout << "--- wrong place (" << damage << "): " << h.commit.substr(0, 12) << " " << h.path << " lines "
            << h.start << "-" << h.start + h.edit.size() - 1 << ", reported "
            << (m.line ? std::to_string(*m.line) : std::string("none")) << " (" << reason << ")\n";
  for (const std::string& l : edit) std::cout << "  | " << l << "\n";
  std::cout << m.diagnostic << "\n";
}

// The modified hunks of a commit against its parent, 3 lines of context.
void hunks_of(git_repository* repo, git_commit* c, const std::function<void(const Hunk&, std::string_view)>& each) {
  if (git_commit_parentcount(c) != 1) return;
  git_commit* parent = nullptr;
  git_tree *old_tree = nullptr, *new_tree = nullptr;
  check(git_commit_parent(&parent, c, 0), "parent");
  check(git_commit_tree(&old_tree, parent), "tree");
  check(git_commit_tree(&new_tree, c), "tree");
  git_diff_options opts = GIT_DIFF_OPTIONS_INIT;
  opts.context_lines = 3;
  git_diff* diff = nullptr;
  check(git_diff_tree_to_tree(&diff, repo, old_tree, new_tree, &opts), "diff");
  char id[GIT_OID_HEXSZ + 1];
  git_oid_tostr(id, sizeof id, git_commit_id(c));
  for (std::size_t d = 0; d < git_diff_num_deltas(diff); ++d) {
    const git_diff_delta* delta = git_diff_get_delta(diff, d);
    if (delta->status != GIT_DELTA_MODIFIED) continue;
    git_patch* patch = nullptr;
    check(git_patch_from_diff(&patch, diff, d), "patch");
    git_blob* blob = nullptr;
    if (patch && !(delta->flags & GIT_DIFF_FLAG_BINARY) && git_blob_lookup(&blob, repo, &delta->old_file.id) == 0) {
      const std::string_view text(static_cast<const char*>(git_blob_rawcontent(blob)),
                                  static_cast<std::size_t>(git_blob_rawsize(blob)));
      for (std::size_t k = 0; k < git_patch_num_hunks(patch); ++k) {
        const git_diff_hunk* gh = nullptr;
        std::size_t n = 0;
        check(git_patch_get_hunk(&gh, &n, patch, k), "hunk");
        Hunk h{id, delta->old_file.path, static_cast<std::size_t>(gh->old_start), {}, {}};
        for (std::size_t l = 0; l < n; ++l) {
          const git_diff_line* gl = nullptr;
          check(git_patch_get_line_in_hunk(&gl, patch, k, l), "line");
          std::string line(gl->content, gl->content_len);
          if (!line.empty() && line.back() == '\n') line.pop_back();
          if (!line.empty() && line.back() == '\r') line.pop_back();
          if (gl->origin == GIT_DIFF_LINE_CONTEXT || gl->origin == GIT_DIFF_LINE_DELETION) h.edit.push_back(line);
          if (gl->origin == GIT_DIFF_LINE_CONTEXT || gl->origin == GIT_DIFF_LINE_ADDITION) h.repl.push_back(line);
        }
        each(h, text);
      }
    }
    git_blob_free(blob);
    git_patch_free(patch);
  }
  git_diff_free(diff);
  git_tree_free(old_tree);
  git_tree_free(new_tree);
  git_commit_free(parent);
}

void print(const char* damage, const Tally& t) {
  std::cout << damage << ": " << t.damaged << " damaged blocks fail, " << t.wrong << " point at the wrong place, "
            << t.several << " match at several places when white space is ignored (" << t.still_apply
            << " still apply, " << t.ambiguous << " ambiguous: not counted)\n  one place named, by reason:";
  for (const auto& [r, n] : t.by_reason) {
    std::cout << " " << r << " " << n;
    if (auto w = t.wrong_by_reason.find(r); w != t.wrong_by_reason.end()) std::cout << " (" << w->second << " wrong)";
  }
  std::cout << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  const Args args = parse_args(argc, argv);
  git_libgit2_init();
  git_repository* repo = nullptr;
  check(git_repository_open(&repo, args.repo.c_str()), args.repo.c_str());
  git_object* from = nullptr;
  check(git_revparse_single(&from, repo, args.from.c_str()), args.from.c_str());
  git_revwalk* walk = nullptr;
  check(git_revwalk_new(&walk, repo), "revwalk");
  git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_TIME);
  check(git_revwalk_push(walk, git_object_id(from)), "push");
  char from_id[GIT_OID_HEXSZ + 1];
  git_oid_tostr(from_id, sizeof from_id, git_object_id(from));

  Rng rng{args.seed};
  Tally dropped, typed;
  std::size_t commits = 0, hunks = 0;
  git_oid oid;
  while (commits < args.commits && git_revwalk_next(&oid, walk) == 0) {
    git_commit* c = nullptr;
    check(git_commit_lookup(&c, repo, &oid), "commit");
    if (git_commit_parentcount(c) == 1) ++commits;
    hunks_of(repo, c, [&](const Hunk& h, std::string_view text) {
      if (h.edit.size() < 2) return;
      const std::vector<std::string> file_lines = split_lines(text);
      const std::vector<std::string_view> file = views(file_lines);
      // The undamaged block must apply, at the hunk's place.
      const std::vector<std::size_t> at = editproto::find_tolerant(file, views(h.edit), editproto::Tolerance::exact);
      if (at.size() != 1 || at[0] + 1 != h.start) return;
      ++hunks;
      replay(h, drop_line(h.edit, rng), file, args, "one line dropped", dropped);
      if (auto t = typo(h.edit, rng)) replay(h, *t, file, args, "one-character typo", typed);
    });
    git_commit_free(c);
  }
  std::cout << "place_replay: " << args.repo << " from " << std::string(from_id).substr(0, 12) << ", " << commits
            << " commits, " << hunks << " hunks that apply undamaged, seed " << args.seed
            << (args.no_anchor ? ", no anchor" : "") << "\n";
  print("one line dropped", dropped);
  print("one-character typo", typed);
  git_revwalk_free(walk);
  git_object_free(from);
  git_repository_free(repo);
  git_libgit2_shutdown();
  return 0;
}
