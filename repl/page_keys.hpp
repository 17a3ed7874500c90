// The secrets that let a page take its instance back (a reload, a lost
// connection, a restarted gateway). The gateway gives a new instance a
// secret in its first welcome; the page keeps it beside its id and sends
// both in every later hello. Only a SHA-256 hash of each secret is kept,
// with the kind of page it was issued to, one line per instance
// ("<id> <kind> <hash>") appended to a file in the per-user state folder (never
// committed), so an instance keeps its id across gateway restarts.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>

namespace repl {

class PageKeys {
 public:
  // `file` "" keeps the hashes in memory only. Keys whose id `keep` says
  // no (an instance whose log is gone) are dropped from the file, so it
  // holds no more lines than there are logs.
  explicit PageKeys(std::string file = "", const std::function<bool(const std::string& id)>& keep = {});

  // A new instance's secret: 128 random bits as 32 hex digits. Its hash is
  // on disk when this returns (if the file can be written).
  std::string issue(const std::string& id, const std::string& kind);

  // Whether `secret` is the one issued to `id` for a page of `kind`. The
  // hashes are compared in constant time, and an unknown id costs the same.
  bool check(const std::string& id, const std::string& kind, std::string_view secret) const;

 private:
  struct Key {
    std::string kind, hash;
  };
  std::string file_;
  std::map<std::string, Key> keys_;  // by instance id
};

}  // namespace repl
