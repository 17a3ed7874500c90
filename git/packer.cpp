#include "git/packer.hpp"

#include "git/handle.hpp"

#include <git2/odb_backend.h>
#include <git2/sys/odb_backend.h>

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <unordered_set>
#include <utility>
#include <vector>

namespace editgit {

using namespace detail;

namespace {

using PackbuilderPtr = Handle<git_packbuilder, git_packbuilder_free>;
using RepoPtr = Handle<git_repository, git_repository_free>;
using ObjectPtr = Handle<git_object, git_object_free>;

Failure os_failure(const std::string& what) { return {Error::io, what + ": " + std::strerror(errno)}; }

bool exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

std::uint64_t file_size(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 ? static_cast<std::uint64_t>(st.st_size) : 0;
}

struct OidHash {
  std::size_t operator()(const git_oid& id) const {
    std::size_t h;
    std::memcpy(&h, id.id, sizeof h);
    return h;
  }
};
struct OidEq {
  bool operator()(const git_oid& a, const git_oid& b) const { return git_oid_equal(&a, &b); }
};
using OidSet = std::unordered_set<git_oid, OidHash, OidEq>;

// Flushes a written file, or a folder's entries, to the disk: a loose file
// is unlinked, or a pack deleted, only after what replaces it would survive
// a power cut (libgit2 does not sync by default).
Result<void> sync_path(const std::string& path, bool folder = false) {
  int fd = ::open(path.c_str(), (folder ? O_RDONLY | O_DIRECTORY : O_RDONLY) | O_CLOEXEC);
  if (fd < 0) return os_failure("cannot open " + path + " to sync it");
  int rc = ::fsync(fd);
  int saved = errno;
  ::close(fd);
  errno = saved;
  if (rc != 0) return os_failure("cannot sync " + path);
  return {};
}

// Held for a whole call; the kernel drops it when the process dies, so a
// killed packer never blocks the next one.
class CallLock {
 public:
  // nullopt-like: held() false when another packer holds it.
  static Result<CallLock> take(const std::string& path) {
    int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return os_failure("cannot open the packer's lock " + path);
    CallLock lock(fd);
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) lock.held_ = true;
    else if (errno != EWOULDBLOCK) return os_failure("cannot lock " + path);
    return lock;
  }
  CallLock(CallLock&& o) noexcept : fd_(std::exchange(o.fd_, -1)), held_(o.held_) {}
  CallLock& operator=(CallLock&&) = delete;
  ~CallLock() {
    if (fd_ >= 0) ::close(fd_);
  }
  bool held() const { return held_; }

 private:
  explicit CallLock(int fd) : fd_(fd) {}
  int fd_ = -1;
  bool held_ = false;
};

// The object count of a pack, from its .idx's fan-out table (version 2:
// after the 8-byte header; version 1: at the start).
std::size_t idx_objects(const std::string& idx) {
  std::ifstream in(idx, std::ios::binary);
  unsigned char head[8];
  if (!in.read(reinterpret_cast<char*>(head), 8)) return 0;
  const bool v2 = std::memcmp(head, "\377tOc", 4) == 0;
  in.seekg(static_cast<std::streamoff>((v2 ? 8 : 0) + 255 * 4));
  unsigned char n[4];
  if (!in.read(reinterpret_cast<char*>(n), 4)) return 0;
  return (std::size_t(n[0]) << 24) | (std::size_t(n[1]) << 16) | (std::size_t(n[2]) << 8) | n[3];
}

// An object database over one pack alone: what it holds, asked without
// the rest of the store answering.
Result<OdbPtr> one_pack_odb(const std::string& idx) {
  git_odb* raw = nullptr;
  if (int rc = git_odb_new(&raw); rc < 0) return failure(rc, "cannot make an object database");
  OdbPtr odb(raw);
  git_odb_backend* backend = nullptr;
  if (int rc = git_odb_backend_one_pack(&backend, idx.c_str()); rc < 0) return failure(rc, "cannot open " + idx);
  if (int rc = git_odb_add_backend(odb.get(), backend, 1); rc < 0) {
    backend->free(backend);
    return failure(rc, "cannot open " + idx);
  }
  return odb;
}

// Every pack in objects/pack as it is now, git's and the packer's alike.
Result<OdbPtr> packs_odb(const std::string& objects) {
  git_odb* raw = nullptr;
  if (int rc = git_odb_new(&raw); rc < 0) return failure(rc, "cannot make an object database");
  OdbPtr odb(raw);
  git_odb_backend* backend = nullptr;
  if (int rc = git_odb_backend_pack(&backend, objects.c_str()); rc < 0)
    return failure(rc, "cannot read the packs of " + objects);
  if (int rc = git_odb_add_backend(odb.get(), backend, 1); rc < 0) {
    backend->free(backend);
    return failure(rc, "cannot read the packs of " + objects);
  }
  return odb;
}

// Whether a pack holds `id` readably: its .idx names it and its .pack is
// there to read (an .idx renamed into place before its .pack, as libgit2's
// indexer does, is not enough).
bool packed(git_odb* packs, const git_oid& id) {
  if (!git_odb_exists_ext(packs, &id, GIT_ODB_LOOKUP_NO_REFRESH)) return false;
  std::size_t len = 0;
  git_object_t type = GIT_OBJECT_INVALID;
  bool ok = git_odb_read_header(&len, &type, packs, &id) == 0;
  git_error_clear();
  return ok;
}

// The packbuilder's and the indexer's progress: a non-zero answer makes
// libgit2 give up the pack it builds or writes (GIT_EUSER).
int stop_asked(const std::atomic<bool>* stop) { return stop && stop->load() ? GIT_EUSER : 0; }
int build_progress(int, std::uint32_t, std::uint32_t, void* stop) {
  return stop_asked(static_cast<const std::atomic<bool>*>(stop));
}
int write_progress(const git_indexer_progress*, void* stop) {
  return stop_asked(static_cast<const std::atomic<bool>*>(stop));
}

Failure stopped(const std::string& what) {
  return {Error::stopped, what + ": stopped (the packer's owner stops); nothing removed"};
}

Failure pack_failure(int rc, const std::atomic<bool>* stop, const std::string& what) {
  if (stop_asked(stop)) {
    git_error_clear();
    return stopped(what);
  }
  return failure(rc, what);
}

// The indexer's temporary files in the pack folder (pack_git2_<random>).
std::set<std::string> temp_packs(const std::string& dir) {
  std::set<std::string> out;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (const dirent* e = ::readdir(d))
      if (std::strncmp(e->d_name, "pack_git2_", 10) == 0) out.insert(e->d_name);
    ::closedir(d);
  }
  return out;
}

struct Written {
  std::string name;  // "pack-<hex>"
  std::uint64_t bytes = 0;
};

// Writes the packbuilder's objects as a pack in objects/pack (libgit2's
// indexer writes it under a temporary name, then renames the .idx and the
// .pack into place), syncs both and the folder, and checks that the new pack
// holds every one of `ids`: only then may anything it replaces go.
Result<Written> write_pack(git_packbuilder* pb, const std::string& objects, const std::vector<git_oid>& ids,
                           const std::atomic<bool>* stop) {
  const std::string dir = objects + "pack";
  git_packbuilder_set_callbacks(pb, build_progress, const_cast<std::atomic<bool>*>(stop));
  const auto temps_before = temp_packs(dir);
  if (int rc = git_packbuilder_write(pb, dir.c_str(), 0, write_progress, const_cast<std::atomic<bool>*>(stop)); rc < 0) {
    // libgit2's indexer leaves its temporary file when a write gives up:
    // the ones this write made go (another libgit2 user's stay).
    for (const std::string& t : temp_packs(dir))
      if (!temps_before.count(t)) ::unlink((dir + "/" + t).c_str());
    return pack_failure(rc, stop, "cannot write a pack into " + dir);
  }
  Written w;
  w.name = std::string("pack-") + git_packbuilder_name(pb);
  const std::string base = dir + "/" + w.name;
  for (const char* ext : {".pack", ".idx"})
    if (auto s = sync_path(base + ext); !s) return s.error();
  if (auto s = sync_path(dir, true); !s) return s.error();
  w.bytes = file_size(base + ".pack") + file_size(base + ".idx");
  auto odb = one_pack_odb(base + ".idx");
  if (!odb) return odb.error();
  for (const git_oid& id : ids)
    if (!git_odb_exists_ext(odb->get(), &id, GIT_ODB_LOOKUP_NO_REFRESH))
      return Failure{Error::internal, "the new pack " + w.name + " lacks " + hex(id) + "; nothing removed"};
  return w;
}

}  // namespace

Result<Packer> Packer::open(const std::string& gitdir, PackerOptions options) {
  init_library();
  git_repository* raw = nullptr;
  if (int rc = git_repository_open_ext(&raw, gitdir.c_str(), GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr); rc < 0)
    return failure(rc, "cannot open the git repository " + gitdir);
  RepoPtr repo(raw);
  std::string common = git_repository_commondir(raw);
  if (common.empty() || common.back() != '/') common += '/';
  std::string home = common + "editgate/packer/";
  if (::mkdir((common + "editgate").c_str(), 0755) != 0 && errno != EEXIST)
    return os_failure("cannot make " + common + "editgate");
  if (::mkdir(home.c_str(), 0755) != 0 && errno != EEXIST) return os_failure("cannot make " + home);
  if (options.factor < 2) options.factor = 2;
  return Packer(repo.release(), common + "objects/", std::move(home), options);
}

Packer::Packer(git_repository* repo, std::string objects, std::string home, PackerOptions options)
    : repo_(repo), objects_(std::move(objects)), home_(std::move(home)), opt_(options) {}

Packer::Packer(Packer&& o) noexcept
    : repo_(std::exchange(o.repo_, nullptr)),
      objects_(std::move(o.objects_)),
      home_(std::move(o.home_)),
      opt_(o.opt_),
      last_tip_(std::move(o.last_tip_)) {}

Packer& Packer::operator=(Packer&& o) noexcept {
  if (this != &o) {
    if (repo_) git_repository_free(repo_);
    repo_ = std::exchange(o.repo_, nullptr);
    objects_ = std::move(o.objects_);
    home_ = std::move(o.home_);
    opt_ = o.opt_;
    last_tip_ = std::move(o.last_tip_);
  }
  return *this;
}

Packer::~Packer() {
  if (repo_) git_repository_free(repo_);
}

namespace {

// The packer's list: pack names, one a line, replaced whole by a rename so
// a reader (another packer) sees the old list or the new one.
std::vector<std::string> read_list(const std::string& path) {
  std::vector<std::string> names;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);)
    if (line.size() == 45 && line.compare(0, 5, "pack-") == 0) names.push_back(line);
  return names;
}

Result<void> write_list(const std::string& path, const std::vector<std::string>& names) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    for (const auto& n : names) out << n << '\n';
    out.flush();
    if (!out) return os_failure("cannot write " + tmp);
  }
  if (auto s = sync_path(tmp); !s) return s.error();
  if (::rename(tmp.c_str(), path.c_str()) != 0) return os_failure("cannot rename " + tmp);
  return {};
}

// The listed packs that are still there (git gc may have taken some).
std::vector<std::string> existing(const std::string& objects, const std::vector<std::string>& names) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const auto& n : names) {
    const std::string base = objects + "pack/" + n;
    if (seen.insert(n).second && exists(base + ".idx") && exists(base + ".pack")) out.push_back(n);
  }
  return out;
}

// A loose object found on the walk, in the order found: each after the
// object the walk reached it through.
struct Found {
  git_oid id;
  std::string name;  // the path, for the packbuilder's delta heuristics; "" for commits
  bool already = false;  // a pack already holds it: only its loose file goes
};

}  // namespace

Result<std::size_t> Packer::pack_count() const {
  return existing(objects_, read_list(home_ + "packs")).size();
}

Result<PackStats> Packer::pack_new(const std::string& ref) {
  if (stop_asked(opt_.stop)) return stopped("no pack of " + ref);
  PackStats stats;
  auto lock = CallLock::take(home_ + "lock");
  if (!lock) return lock.error();
  if (!lock->held()) return stats;  // another packer is at work; the next call takes what is left

  git_oid tip;
  if (int rc = git_reference_name_to_id(&tip, repo_, ref.c_str()); rc < 0) return failure(rc, "cannot resolve " + ref);
  const std::string tip_hex = hex(tip);
  const auto last = last_tip_.find(ref);
  if (last != last_tip_.end() && last->second == tip_hex) return stats;

  auto loose_path = [&](const git_oid& id) {
    const std::string h = hex(id);
    return objects_ + h.substr(0, 2) + "/" + h.substr(2);
  };
  auto is_loose = [&](const git_oid& id) { return exists(loose_path(id)); };

  // The walk: commits from the tip back to the last tip packed or the first
  // commit that is not loose (what is behind it was packed with it); in each
  // commit's tree, only loose trees are entered (a packed tree's entries were
  // packed with it, or by git).
  std::vector<Found> found;
  OidSet seen;
  git_oid stop{};
  const bool has_stop = last != last_tip_.end() && git_oid_fromstr(&stop, last->second.c_str()) == 0;

  std::vector<std::pair<git_oid, std::string>> trees;  // explicit stack: trees may nest deep
  auto visit_tree = [&](const git_oid& root) -> Result<void> {
    trees.clear();
    trees.emplace_back(root, "");
    while (!trees.empty()) {
      auto [id, prefix] = std::move(trees.back());
      trees.pop_back();
      if (!seen.insert(id).second || !is_loose(id)) continue;
      found.push_back({id, prefix, false});
      git_tree* raw = nullptr;
      if (int rc = git_tree_lookup(&raw, repo_, &id); rc < 0) return failure(rc, "cannot read tree " + hex(id));
      TreePtr tree(raw);
      const std::size_t n = git_tree_entrycount(raw);
      for (std::size_t i = 0; i < n; ++i) {
        const git_tree_entry* e = git_tree_entry_byindex(raw, i);
        const git_oid* eid = git_tree_entry_id(e);
        const std::string path = prefix + git_tree_entry_name(e);
        switch (git_tree_entry_type(e)) {
          case GIT_OBJECT_TREE: trees.emplace_back(*eid, path + "/"); break;
          case GIT_OBJECT_BLOB:
            if (seen.insert(*eid).second && is_loose(*eid)) found.push_back({*eid, path, false});
            break;
          default: break;  // a submodule's commit is not in this store
        }
      }
    }
    return {};
  };

  std::vector<git_oid> commits{tip};
  while (!commits.empty()) {
    git_oid id = commits.back();
    commits.pop_back();
    if ((has_stop && git_oid_equal(&id, &stop)) || !seen.insert(id).second || !is_loose(id)) continue;
    found.push_back({id, "", false});
    git_commit* raw = nullptr;
    if (int rc = git_commit_lookup(&raw, repo_, &id); rc < 0) return failure(rc, "cannot read commit " + hex(id));
    CommitPtr commit(raw);
    if (auto v = visit_tree(*git_commit_tree_id(raw)); !v) return v.error();
    for (unsigned i = git_commit_parentcount(raw); i-- > 0;) commits.push_back(*git_commit_parent_id(raw, i));
  }

  if (!found.empty()) {
    auto packs = packs_odb(objects_);
    if (!packs) return packs.error();
    std::vector<git_oid> fresh;
    for (auto& f : found) {
      f.already = packed(packs->get(), f.id);
      if (!f.already) fresh.push_back(f.id);
    }
    if (!fresh.empty()) {
      git_packbuilder* raw = nullptr;
      if (int rc = git_packbuilder_new(&raw, repo_); rc < 0) return failure(rc, "cannot start a pack");
      PackbuilderPtr pb(raw);
      git_packbuilder_set_threads(raw, 1);  // the commit queue's thread; the machine is shared
      for (const auto& f : found)
        if (!f.already)
          if (int rc = git_packbuilder_insert(raw, &f.id, f.name.empty() ? nullptr : f.name.c_str()); rc < 0)
            return failure(rc, "cannot add " + hex(f.id) + " to a pack");
      auto written = write_pack(raw, objects_, fresh, opt_.stop);
      if (!written) return written.error();
      // Listed before any loose file goes: killed between the pack and the
      // list, the pack is git's to manage (a duplicate), never lost.
      auto names = existing(objects_, read_list(home_ + "packs"));
      if (std::find(names.begin(), names.end(), written->name) == names.end()) names.push_back(written->name);
      if (auto w = write_list(home_ + "packs", names); !w) return w.error();
      stats.objects = fresh.size();
      stats.pack_bytes = written->bytes;
    }
    if (git_odb* odb = nullptr; git_repository_odb(&odb, repo_) == 0) {
      git_odb_refresh(odb);
      git_odb_free(odb);
    }
    // Newest found last, so a kill midway leaves every remaining loose
    // object reachable, through loose objects only, from the tip: the next
    // walk finds it.
    for (auto it = found.rbegin(); it != found.rend(); ++it) {
      if (::unlink(loose_path(it->id).c_str()) == 0) ++stats.loose_removed;
      else if (errno != ENOENT) return os_failure("cannot remove the loose object " + hex(it->id));
    }
  }
  last_tip_[ref] = tip_hex;
  return stats;
}

Result<PackStats> Packer::merge() {
  if (stop_asked(opt_.stop)) return stopped("no merge of the packer's packs");
  PackStats stats;
  auto lock = CallLock::take(home_ + "lock");
  if (!lock) return lock.error();
  if (!lock->held()) return stats;

  const std::string list = home_ + "packs";
  const auto listed = read_list(list);
  auto names = existing(objects_, listed);
  if (names.size() != listed.size())
    if (auto w = write_list(list, names); !w) return w.error();
  if (names.size() <= opt_.min_packs) return stats;

  struct Pack {
    std::string name;
    std::size_t objects;
  };
  std::vector<Pack> packs;
  for (const auto& n : names) packs.push_back({n, idx_objects(objects_ + "pack/" + n + ".idx")});
  std::sort(packs.begin(), packs.end(), [](const Pack& a, const Pack& b) { return a.objects < b.objects; });

  // git repack --geometric's split: the largest packs that already form a
  // progression stay; what is below them is rolled up, with any of them the
  // rolled-up pack would be too big beside.
  const std::size_t f = opt_.factor;
  std::size_t split = packs.size() - 1;
  for (; split > 0; --split)
    if (packs[split].objects < f * packs[split - 1].objects) break;
  if (split > 0) ++split;
  std::size_t total = 0;
  for (std::size_t i = 0; i < split; ++i) total += packs[i].objects;
  for (; split < packs.size() && packs[split].objects < f * total; ++split) total += packs[split].objects;
  if (split < 2) return stats;

  // Every object of the rolled-up packs, reachable or not.
  std::vector<git_oid> ids;
  for (std::size_t i = 0; i < split; ++i) {
    auto odb = one_pack_odb(objects_ + "pack/" + packs[i].name + ".idx");
    if (!odb) return odb.error();
    auto add = [](const git_oid* id, void* payload) {
      static_cast<std::vector<git_oid>*>(payload)->push_back(*id);
      return 0;
    };
    if (int rc = git_odb_foreach(odb->get(), add, &ids); rc < 0)
      return failure(rc, "cannot list the objects of " + packs[i].name);
  }
  std::sort(ids.begin(), ids.end(), [](const git_oid& a, const git_oid& b) { return git_oid_cmp(&a, &b) < 0; });
  ids.erase(std::unique(ids.begin(), ids.end(), [](const git_oid& a, const git_oid& b) { return git_oid_equal(&a, &b); }),
            ids.end());

  git_packbuilder* raw = nullptr;
  if (int rc = git_packbuilder_new(&raw, repo_); rc < 0) return failure(rc, "cannot start a pack");
  PackbuilderPtr pb(raw);
  git_packbuilder_set_threads(raw, 1);
  // No paths are known here; the packbuilder then orders blobs by size,
  // which puts a growing log's versions side by side for its deltas.
  for (const auto& id : ids)
    if (int rc = git_packbuilder_insert(raw, &id, nullptr); rc < 0)
      return failure(rc, "cannot add " + hex(id) + " to a pack");
  auto written = write_pack(raw, objects_, ids, opt_.stop);
  if (!written) return written.error();

  // Listed with the old ones first: killed before they are deleted, the
  // next merge takes them all again (duplicates, no loss).
  names.push_back(written->name);
  if (auto w = write_list(list, names); !w) return w.error();
  if (git_odb* odb = nullptr; git_repository_odb(&odb, repo_) == 0) {
    git_odb_refresh(odb);
    git_odb_free(odb);
  }
  std::vector<std::string> kept;
  for (std::size_t i = 0; i < split; ++i) {
    if (packs[i].name == written->name) continue;  // the same objects made the same pack again
    // The .idx first: no new reader finds the pack; one that has it open
    // keeps reading it (and libgit2 and git look again on a miss).
    const std::string base = objects_ + "pack/" + packs[i].name;
    for (const char* ext : {".idx", ".pack", ".rev", ".bitmap"})
      if (::unlink((base + ext).c_str()) != 0 && errno != ENOENT) return os_failure("cannot remove " + base + ext);
    ++stats.packs_merged;
  }
  kept = existing(objects_, names);
  if (auto w = write_list(list, kept); !w) return w.error();
  stats.objects = ids.size();
  stats.pack_bytes = written->bytes;
  return stats;
}

}  // namespace editgit
