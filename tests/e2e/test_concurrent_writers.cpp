// An editor saving the file editgate is editing, at the same time: no save
// of the editor may be lost. The editor reads the file, appends a line of its
// own ("save N") and saves, N = 1, 2, ...; so every save holds all earlier
// ones, and a save is lost exactly when editgate wrote over it content read
// before it (a later save then starts from that content and the line is gone
// for good). At the end, every line the editor saved must be in the file.
#include "support.hpp"

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

using test::TempDir;

namespace {

std::string read_whole(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  std::string out;
  char buf[65536];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) out.append(buf, static_cast<std::size_t>(n));
  ::close(fd);
  return out;
}

bool write_whole(int fd, const std::string& bytes) {
  for (std::size_t at = 0; at < bytes.size();) {
    ssize_t n = ::write(fd, bytes.data() + at, bytes.size() - at);
    if (n <= 0) return false;
    at += static_cast<std::size_t>(n);
  }
  return true;
}

// Bounds the file (each save reads and writes all of it) and the test's time.
constexpr unsigned kMaxSaves = 4000;

enum class Saves { by_rename, in_place };

// One save: what is there now plus the editor's line, written to a temp file
// renamed over the file, or into the file itself (O_TRUNC, then write).
bool save(Saves how, const std::string& dir, const std::string& path, unsigned n) {
  const std::string content = read_whole(path) + "save " + std::to_string(n) + "\n";
  const std::string target = how == Saves::by_rename ? dir + "/.notes.txt.editor~" : path;
  int fd = ::open(target.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  // In two writes with a pause between, as editors write large files: a
  // write into a file that is swapped out meanwhile is lost.
  const std::size_t half = content.size() / 2;
  bool ok = write_whole(fd, content.substr(0, half));
  std::this_thread::sleep_for(std::chrono::microseconds(100));
  ok = ok && write_whole(fd, content.substr(half));
  ::close(fd);
  return ok && (how == Saves::in_place || ::rename(target.c_str(), path.c_str()) == 0);
}

struct Outcome {
  unsigned saves = 0;     // saves the editor completed
  unsigned lost = 0;      // of those, not in the final file
  unsigned applied = 0;   // edits editgate applied meanwhile
};

// editgate toggles the first line, `rounds` times, each as a run of its own
// (as `editgate apply` does), while the editor saves in a loop.
Outcome race(Saves how, unsigned rounds) {
  TempDir d;
  const std::string path = (d / "notes.txt").string();
  test::write_file(d / "notes.txt", "mode = a\n");
  std::atomic<bool> stop{false};
  std::atomic<unsigned> saved{0};
  std::thread editor([&] {
    for (unsigned n = 1; !stop.load() && n <= kMaxSaves; ++n) {
      if (!save(how, d.str(), path, n)) break;
      saved.store(n);
      // An in-place save leaves the file half-written for a while; a pause
      // after it lets editgate read whole files too, and apply.
      if (how == Saves::in_place) std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  });
  Outcome out;
  for (unsigned i = 0; i < rounds; ++i) {
    // Whichever way the first line is now, turn it the other way.
    const bool is_a = read_whole(path).starts_with("mode = a\n");
    auto r = test::apply_response(d.str(), test::block("notes.txt", {is_a ? "mode = a" : "mode = b"},
                                                       {is_a ? "mode = b" : "mode = a"}));
    if (!r.results.empty() && r.results[0].status == editproto::Status::applied) ++out.applied;
  }
  stop.store(true);
  editor.join();
  out.saves = saved.load();
  const std::string final_text = read_whole(path);
  for (unsigned n = 1; n <= out.saves; ++n)
    if (final_text.find("\nsave " + std::to_string(n) + "\n") == std::string::npos) ++out.lost;
  return out;
}

void check_none_lost(Saves how) {
  Outcome o = race(how, 1500);
  INFO("editor saves: " << o.saves << ", lost: " << o.lost << ", editgate edits applied: " << o.applied);
  CHECK(o.saves > 0);
  CHECK(o.applied > 0);
  CHECK(o.lost == 0);
}

}  // namespace

// Before the swap-and-check write, about 40% of the saves by rename were lost
// here (808 of 1820), and with the swap but without leases 10 of 2151: the
// editor read editgate's file in the microseconds it was in place before
// being swapped back. With the leases but swapping the save's file back,
// a loaded machine lost 2-4 saves in one run of 5 or 10: the editor read that
// older save in the instant it stood again, after newer ones. A race, so a
// passing run proves little alone: scripts/writers_soak.sh runs it many
// times under load. docs/decisions/edit-protocol.md ("Concurrent writers")
// says how the leases and taking the save over close these.
TEST_CASE("concurrent writers: an editor saving by temp file and rename loses no save to editgate") {
  check_none_lost(Saves::by_rename);
}

// An in-place save that opened the file before editgate's swap writes into
// the file swapped out; the read lease makes it wait and puts the file back.
TEST_CASE("concurrent writers: an editor saving in place loses no save to editgate") {
  check_none_lost(Saves::in_place);
}
