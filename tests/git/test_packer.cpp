// The packer (git/packer.hpp): a side ref's loose objects moved into packs
// and those packs merged, checked with the git command line, which reads the
// store independently: count-objects for what is still loose, cat-file -e
// for every object the ref reaches, fsck for the whole store.
#include "support.hpp"

#include "git/pack_thread.hpp"
#include "git/packer.hpp"

#include <catch2/catch.hpp>
#include <git2.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <string>
#include <thread>
#include <vector>

using test::git_ok;
using test::TempDir;

namespace {

namespace fs = std::filesystem;

constexpr const char* side = "refs/editgate/repl/t";

std::vector<std::string> lines(const std::string& s) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at < s.size()) {
    const std::size_t nl = s.find('\n', at);
    out.push_back(s.substr(at, nl - at));
    at = nl == std::string::npos ? s.size() : nl + 1;
  }
  return out;
}

// A repository with a branch, and commits made on the side ref as the REPL
// makes them: no index, no work tree, the folder of logs as the tree.
struct Repo {
  TempDir dir;
  git_repository* repo = nullptr;
  std::string log;
  int exchanges = 0;

  Repo() {
    git_ok(dir.path(), {"init", "-q", "-b", "main"});
    git_ok(dir.path(), {"config", "user.name", "Repo User"});
    git_ok(dir.path(), {"config", "user.email", "user@example.com"});
    git_ok(dir.path(), {"config", "gc.auto", "0"});
    git_libgit2_init();
    REQUIRE(git_repository_open(&repo, (dir.str() + "/.git").c_str()) == 0);
  }
  ~Repo() {
    git_repository_free(repo);
    git_libgit2_shutdown();
  }
  std::string gitdir() const { return dir.str() + "/.git"; }
  std::string git(std::vector<std::string> args) const { return git_ok(dir.path(), std::move(args)); }

  std::size_t loose() const {
    for (const auto& l : lines(git({"count-objects", "-v"})))
      if (l.rfind("count: ", 0) == 0) return std::stoul(l.substr(7));
    FAIL("no count in git count-objects -v");
    return 0;
  }
  std::vector<std::string> packs() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir / ".git/objects/pack"))
      if (e.path().extension() == ".pack") out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }
  // Every object the ref reaches is there, and the store is whole.
  void check_whole(const std::string& ref = side) const {
    for (const auto& l : lines(git({"rev-list", "--objects", ref})))
      git({"cat-file", "-e", l.substr(0, 40)});
    git({"fsck", "--full", "--no-dangling"});
  }

  // One exchange appended to the log and committed on the side ref, with
  // `extra` files beside it (a path with '/' makes a subfolder).
  void exchange(const std::map<std::string, std::string>& extra = {}) {
    ++exchanges;
    log += "### request " + std::to_string(exchanges) + "\n\n```js\n" + std::to_string(exchanges * 7) +
           " * 3\n```\n\n" + std::to_string(exchanges * 21) + "\n\n";
    std::vector<git_tree_update> ups;
    std::vector<std::string> paths;
    std::map<std::string, std::string> files = extra;
    files["page-1.md"] = log;
    for (const auto& [path, bytes] : files) {
      git_oid blob;
      REQUIRE(git_blob_create_from_buffer(&blob, repo, bytes.data(), bytes.size()) == 0);
      paths.push_back(path);
      ups.push_back({GIT_TREE_UPDATE_UPSERT, blob, GIT_FILEMODE_BLOB, nullptr});
    }
    for (std::size_t i = 0; i < ups.size(); ++i) ups[i].path = paths[i].c_str();
    git_oid parent_id;
    git_commit* parent = nullptr;
    git_tree* base = nullptr;
    if (git_reference_name_to_id(&parent_id, repo, side) == 0) {
      REQUIRE(git_commit_lookup(&parent, repo, &parent_id) == 0);
      REQUIRE(git_commit_tree(&base, parent) == 0);
    }
    git_oid tree_id, id;
    REQUIRE(git_tree_create_updated(&tree_id, repo, base, ups.size(), ups.data()) == 0);
    git_tree* tree = nullptr;
    REQUIRE(git_tree_lookup(&tree, repo, &tree_id) == 0);
    git_signature* sig = nullptr;
    REQUIRE(git_signature_now(&sig, "editgate", "editgate@editgate.invalid") == 0);
    const git_commit* parents[1] = {parent};
    const std::string message = "exchange " + std::to_string(exchanges) + "\n";
    REQUIRE(git_commit_create(&id, repo, nullptr, sig, sig, nullptr, message.c_str(), tree, parent ? 1 : 0,
                              parents) == 0);
    git_reference* ref = nullptr;
    REQUIRE(git_reference_create(&ref, repo, side, &id, 1, "exchange") == 0);
    git_reference_free(ref);
    git_signature_free(sig);
    git_tree_free(tree);
    git_tree_free(base);
    git_commit_free(parent);
  }
};

editgit::Packer open_packer(const Repo& r, editgit::PackerOptions options = {}) {
  auto p = editgit::Packer::open(r.gitdir(), options);
  REQUIRE(p.has_value());
  return std::move(*p);
}

}  // namespace

TEST_CASE("pack_new moves a side ref's loose objects into one pack; every object stays readable",
          "[unit][packer]") {
  Repo r;
  for (int i = 0; i < 20; ++i) r.exchange({{"archive/old.md", "an old log\n"}});
  REQUIRE(r.loose() == 20 * 3 + 2);  // commit, tree, log per exchange; the archive's tree and blob once
  auto packer = open_packer(r);

  auto first = packer.pack_new(side);
  REQUIRE(first.has_value());
  CHECK(first->objects == 62);
  CHECK(first->loose_removed == 62);
  CHECK(first->pack_bytes > 0);
  CHECK(r.loose() == 0);
  CHECK(r.packs().size() == 1);
  r.check_whole();

  // Only what is new goes into the next pack: the archive's tree is packed.
  for (int i = 0; i < 5; ++i) r.exchange({{"archive/old.md", "an old log\n"}});
  auto second = packer.pack_new(side);
  REQUIRE(second.has_value());
  CHECK(second->objects == 15);
  CHECK(r.loose() == 0);
  CHECK(packer.pack_count().value() == 2);
  r.check_whole();

  auto none = packer.pack_new(side);
  REQUIRE(none.has_value());
  CHECK(none->objects == 0);
  CHECK(none->loose_removed == 0);
  CHECK(r.packs().size() == 2);

  // A packer opened afresh (a restart) finds the new loose objects by their
  // files and stops at the packed commit.
  r.exchange();
  auto restarted = open_packer(r).pack_new(side);
  REQUIRE(restarted.has_value());
  CHECK(restarted->objects == 3);
  CHECK(r.loose() == 0);
  r.check_whole();

  CHECK(packer.pack_new("refs/editgate/repl/none").error().code == editgit::Error::not_found);
}

TEST_CASE("pack_new takes a blob the branch shares, and the branch still reads it", "[unit][packer]") {
  Repo r;
  r.exchange();
  // The branch commits the same bytes as the log: one blob, loose, for both.
  test::write_file(r.dir / "page-1.md", r.log);
  r.git({"add", "page-1.md"});
  r.git({"commit", "-q", "-m", "the log on the branch"});
  const std::string blob = lines(r.git({"rev-parse", "HEAD:page-1.md"}))[0];
  CHECK(blob == lines(r.git({"rev-parse", std::string(side) + ":page-1.md"}))[0]);
  const std::size_t before = r.loose();  // side: 3; the branch: its commit and tree

  auto stats = open_packer(r).pack_new(side);
  REQUIRE(stats.has_value());
  CHECK(stats->objects == 3);
  CHECK(r.loose() == before - 3);  // the branch's own commit and tree stay loose, untouched
  r.git({"cat-file", "-e", blob});
  r.check_whole("HEAD");
  r.check_whole();
  CHECK(r.git({"show", "HEAD:page-1.md"}) == r.log);
}

TEST_CASE("a pack_new killed after its pack and before the unlinks leaves only duplicates", "[unit][packer]") {
  Repo r;
  for (int i = 0; i < 10; ++i) r.exchange();
  // The loose files as they were, put back after the pack: what a kill
  // between the pack's rename and the first unlink leaves.
  const fs::path objects = r.dir / ".git/objects";
  const fs::path saved = r.dir / "saved";
  fs::create_directories(saved);
  for (const auto& e : fs::directory_iterator(objects))
    if (e.path().filename().string().size() == 2) fs::copy(e.path(), saved / e.path().filename(), fs::copy_options::recursive);
  {
    auto packed = open_packer(r).pack_new(side);
    REQUIRE(packed.has_value());
    CHECK(packed->objects == 30);
  }
  for (const auto& e : fs::directory_iterator(saved))
    fs::copy(e.path(), objects / e.path().filename(), fs::copy_options::recursive | fs::copy_options::skip_existing);
  CHECK(r.loose() == 30);
  r.check_whole();

  // A restarted packer unlinks them without a second pack.
  auto again = open_packer(r).pack_new(side);
  REQUIRE(again.has_value());
  CHECK(again->objects == 0);
  CHECK(again->loose_removed == 30);
  CHECK(r.loose() == 0);
  CHECK(r.packs().size() == 1);
  r.check_whole();

  // Forgotten by the list too (killed before listing it): still only unlinks.
  fs::remove(r.dir / ".git/editgate/packer/packs");
  for (const auto& e : fs::directory_iterator(saved))
    fs::copy(e.path(), objects / e.path().filename(), fs::copy_options::recursive | fs::copy_options::skip_existing);
  auto forgotten = open_packer(r).pack_new(side);
  REQUIRE(forgotten.has_value());
  CHECK(forgotten->objects == 0);
  CHECK(r.loose() == 0);
  CHECK(r.packs().size() == 1);
  r.check_whole();
}

TEST_CASE("merge rolls the packer's small packs into one and keeps every object", "[unit][packer]") {
  Repo r;
  auto packer = open_packer(r, {.factor = 2, .min_packs = 2});
  for (int round = 0; round < 6; ++round) {
    for (int i = 0; i < 3; ++i) r.exchange();
    REQUIRE(packer.pack_new(side).has_value());
  }
  CHECK(packer.pack_count().value() == 6);
  CHECK(r.packs().size() == 6);

  auto merged = packer.merge();
  REQUIRE(merged.has_value());
  CHECK(merged->packs_merged == 6);  // six equal packs: none is twice another, all roll up
  CHECK(merged->objects == 54);
  CHECK(packer.pack_count().value() == 1);
  CHECK(r.packs().size() == 1);
  CHECK(r.loose() == 0);
  r.check_whole();

  // One small pack beside a big one is a progression already.
  for (int i = 0; i < 3; ++i) r.exchange();
  REQUIRE(packer.pack_new(side).has_value());
  for (int i = 0; i < 3; ++i) r.exchange();
  REQUIRE(packer.pack_new(side).has_value());
  auto again = packer.merge();
  REQUIRE(again.has_value());
  CHECK(again->packs_merged == 2);  // the two small ones: 9 + 9 < 2 * 54 stays apart
  CHECK(packer.pack_count().value() == 2);
  CHECK(packer.merge().value().packs_merged == 0);
  r.check_whole();
}

TEST_CASE("packs git made are never merged nor deleted; packs git gc took are forgotten", "[unit][packer]") {
  Repo r;
  for (int i = 0; i < 3; ++i) {
    test::write_file(r.dir / ("f" + std::to_string(i)), std::to_string(i) + "\n");
    r.git({"add", "."});
    r.git({"commit", "-q", "-m", "branch " + std::to_string(i)});
    r.git({"repack", "-q", "-d"});  // one small pack of git's each time
  }
  const auto gits = r.packs();
  REQUIRE(gits.size() == 3);
  std::map<std::string, fs::file_time_type> times;
  for (const auto& p : gits) times[p] = fs::last_write_time(r.dir / ".git/objects/pack" / p);

  auto packer = open_packer(r, {.factor = 2, .min_packs = 1});
  for (int round = 0; round < 3; ++round) {
    r.exchange();
    REQUIRE(packer.pack_new(side).has_value());
  }
  REQUIRE(packer.merge().value().packs_merged == 3);
  const auto after = r.packs();
  CHECK(after.size() == 4);
  for (const auto& p : gits) {
    CHECK(std::find(after.begin(), after.end(), p) != after.end());
    CHECK(fs::last_write_time(r.dir / ".git/objects/pack" / p) == times[p]);
  }
  r.check_whole();
  r.check_whole("HEAD");

  // git gc packs everything into a pack of its own and deletes the packer's.
  r.git({"gc", "-q"});
  CHECK(packer.pack_count().value() == 0);
  r.exchange();
  REQUIRE(packer.pack_new(side).value().objects == 3);
  CHECK(packer.merge().value().packs_merged == 0);
  r.check_whole();
}

TEST_CASE("a packer asked to stop gives up its pack and removes nothing", "[unit][packer]") {
  Repo r;
  for (int i = 0; i < 30; ++i) r.exchange();
  const std::size_t loose = r.loose();
  std::atomic<bool> stop{true};
  editgit::PackerOptions options;
  options.stop = &stop;
  auto packer = open_packer(r, options);
  auto packed = packer.pack_new(side);
  REQUIRE_FALSE(packed.has_value());
  CHECK(packed.error().code == editgit::Error::stopped);
  CHECK(r.loose() == loose);
  CHECK(r.packs().empty());
  r.check_whole();

  stop = false;  // the next call takes what is loose
  REQUIRE(packer.pack_new(side).has_value());
  CHECK(r.loose() == 0);
  r.check_whole();
}

TEST_CASE("the pack thread packs a ref every few commits and when its commits pause", "[unit][packer]") {
  Repo r;
  editgit::PackThreadOptions options;
  options.every = 8;
  options.idle = std::chrono::milliseconds(50);
  std::vector<std::string> reports;
  options.report = [&](std::string_view line) { reports.emplace_back(line); };
  auto thread = editgit::PackThread::start(r.gitdir(), options);
  REQUIRE(thread.has_value());
  for (int i = 0; i < 20; ++i) {
    r.exchange();
    (*thread)->committed(side);
  }
  (*thread)->drain();
  CHECK(r.loose() == 0);
  CHECK((*thread)->totals().calls >= 2);  // 8, 16, then what was left
  r.check_whole();

  // Three commits, fewer than `every`: packed once they pause.
  for (int i = 0; i < 3; ++i) {
    r.exchange();
    (*thread)->committed(side);
  }
  for (int tries = 0; tries < 400 && r.loose() != 0; ++tries)
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  CHECK(r.loose() == 0);
  (*thread)->stop();
  CHECK((*thread)->totals().failures == 0);
  CHECK(reports.empty());
  r.check_whole();
}

TEST_CASE("a pack under way gives up when asked to stop: no pack, no temporary file, nothing removed",
          "[unit][packer]") {
  Repo r;
  // Logs of up to 2 MB: zlib and the delta search take well over the
  // 100 ms before the stop.
  for (int i = 0; i < 40; ++i) r.exchange({{"big.md", std::string(static_cast<std::size_t>(i + 1) * 50'000, 'a' + i % 26)}});
  const std::size_t loose = r.loose();
  std::atomic<bool> stop{false};
  editgit::PackerOptions options;
  options.stop = &stop;
  auto packer = open_packer(r, options);
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    stop = true;
  });
  auto packed = packer.pack_new(side);
  stopper.join();
  REQUIRE_FALSE(packed.has_value());
  CHECK(packed.error().code == editgit::Error::stopped);
  CHECK(r.loose() == loose);
  CHECK(r.packs().empty());
  for (const auto& e : fs::directory_iterator(r.dir / ".git/objects/pack"))
    CHECK(e.path().filename().string().rfind("pack_git2_", 0) != 0);
  r.check_whole();
}
