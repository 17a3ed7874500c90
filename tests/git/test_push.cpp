// Repository::push (git/push.cpp) against local bare repositories and a
// closed port, checked with the git command line: what arrives, what a
// refusal leaves, and the named codes.
#include "git/redact.hpp"
#include "git/repository.hpp"
#include "support.hpp"

#include <catch2/catch.hpp>

#include <boost/asio/ip/tcp.hpp>

#include <dlfcn.h>

#include <string>

using test::TempDir;

namespace {

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

// A work tree with one commit on main, and an empty bare repository.
struct Pair {
  TempDir work, bare;
  Pair() {
    test::git_ok(work.path(), {"init", "-q", "-b", "main"});
    commit("a.txt", "one\n");
    test::git_ok(bare.path(), {"init", "-q", "--bare", "-b", "main"});
  }
  void commit(const std::string& file, const std::string& text) {
    test::write_file(work / file, text);
    test::git_ok(work.path(), {"add", file});
    test::git_ok(work.path(), {"commit", "-q", "-m", "add " + file});
  }
  std::string head() { return trimmed(test::git_ok(work.path(), {"rev-parse", "HEAD"})); }
  std::string bare_main() { return trimmed(test::git_ok(bare.path(), {"rev-parse", "refs/heads/main"})); }
  editgit::Result<editgit::Pushed> push(std::string remote = {}) {
    auto repo = editgit::Repository::open(work.str(), {}, false);
    REQUIRE(repo.has_value());
    return repo->push({remote.empty() ? bare.str() : remote});
  }
};

// A port nobody listens on: bound, then closed.
unsigned short closed_port() {
  boost::asio::io_context ioc;
  boost::asio::ip::tcp::acceptor a(ioc, {boost::asio::ip::make_address("127.0.0.1"), 0});
  return a.local_endpoint().port();
}

}  // namespace

TEST_CASE("push: the branch arrives in a bare repository, by path or by a configured remote's name", "[git][push]") {
  Pair p;
  auto first = p.push();
  REQUIRE(first.has_value());
  CHECK(first->ref == "refs/heads/main");
  CHECK(first->commit == p.head());
  CHECK_FALSE(first->previous);  // the push created the branch there
  CHECK_FALSE(first->up_to_date);
  CHECK(p.bare_main() == p.head());

  const std::string before = p.head();
  p.commit("b.txt", "two\n");
  test::git_ok(p.work.path(), {"remote", "add", "review", p.bare.str()});
  auto second = p.push("review");
  REQUIRE(second.has_value());
  CHECK(second->previous == before);
  CHECK(p.bare_main() == p.head());

  auto again = p.push("review");
  REQUIRE(again.has_value());
  CHECK(again->up_to_date);
  CHECK(again->commit == p.head());
}

TEST_CASE("push: a remote branch that moved on is rejected, never overwritten", "[git][push]") {
  Pair p;
  REQUIRE(p.push().has_value());
  // Someone else pushes a commit the workspace lacks.
  TempDir other;
  test::git_ok(other.path(), {"clone", "-q", p.bare.str(), "."});
  test::write_file(other / "theirs.txt", "theirs\n");
  test::git_ok(other.path(), {"add", "theirs.txt"});
  test::git_ok(other.path(), {"commit", "-q", "-m", "theirs"});
  test::git_ok(other.path(), {"push", "-q", "origin", "main"});
  const std::string theirs = p.bare_main();

  p.commit("mine.txt", "mine\n");
  auto refused = p.push();
  REQUIRE_FALSE(refused.has_value());
  CHECK(refused.error().code == editgit::Error::rejected);
  CHECK(editgit::to_string(refused.error().code) == "push_rejected");
  CHECK(p.bare_main() == theirs);
}

TEST_CASE("push: named codes for a closed port, an unknown remote and a detached HEAD", "[git][push]") {
  Pair p;
  auto dead = p.push("git://127.0.0.1:" + std::to_string(closed_port()) + "/x.git");
  REQUIRE_FALSE(dead.has_value());
  CHECK(dead.error().code == editgit::Error::unreachable);
  CHECK(editgit::to_string(dead.error().code) == "remote_unreachable");
  // libgit2's TLS and SSH are started by the first push, not by
  // git_libgit2_init (git/library_start.cpp): the streams must find them.
  auto tls = p.push("https://127.0.0.1:" + std::to_string(closed_port()) + "/x.git");
  REQUIRE_FALSE(tls.has_value());
  CHECK(tls.error().code == editgit::Error::unreachable);
  auto ssh = p.push("ssh://git@127.0.0.1:" + std::to_string(closed_port()) + "/x.git");
  REQUIRE_FALSE(ssh.has_value());
  CHECK(ssh.error().code == editgit::Error::unreachable);

  auto unknown = p.push("nosuchremote");
  REQUIRE_FALSE(unknown.has_value());
  CHECK(unknown.error().code == editgit::Error::not_found);

  test::git_ok(p.work.path(), {"checkout", "-q", "--detach"});
  auto detached = p.push();
  REQUIRE_FALSE(detached.has_value());
  CHECK(detached.error().code == editgit::Error::invalid);
  // Nothing arrived: the bare repository's branch is still unborn.
  CHECK(test::git(p.bare.path(), {"rev-parse", "--verify", "-q", "refs/heads/main"}).exit_code != 0);
}

TEST_CASE("push: Kerberos is not in the process until a GSSAPI call loads it", "[git][push]") {
  // git/gssapi_on_demand.cpp stands for libgssapi_krb5 at link time, so
  // neither starting nor pushing loads it: the push's credential callback
  // never offers the default credential that HTTP "Negotiate" needs.
  CHECK(::dlopen("libgssapi_krb5.so.2", RTLD_NOW | RTLD_NOLOAD) == nullptr);
  Pair p;
  REQUIRE(p.push().has_value());
  CHECK(::dlopen("libgssapi_krb5.so.2", RTLD_NOW | RTLD_NOLOAD) == nullptr);
}

TEST_CASE("redact_urls: the userinfo of every URL in a text is taken out, and nothing else", "[git][push]") {
  using editgit::redact_urls;
  CHECK(redact_urls("http://user:pa55@host:8080/x.git") == "http://host:8080/x.git");
  CHECK(redact_urls("https://t0ken@github.com/o/r") == "https://github.com/o/r");
  CHECK(redact_urls("ssh://git:pw@[::1]:22/r") == "ssh://[::1]:22/r");
  CHECK(redact_urls("cannot push to 'http://a:b@h/x' or http://c:d@e:1?q=1#f, see HTTP://x:y@z") ==
        "cannot push to 'http://h/x' or http://e:1?q=1#f, see HTTP://z");
  // An '@' in a password written as is: the userinfo ends at the last one.
  CHECK(redact_urls("http://u:p@ss@host/x") == "http://host/x");
  // Not userinfo: an '@' in the path, an scp-like remote, plain text.
  CHECK(redact_urls("https://host/@scope/pkg") == "https://host/@scope/pkg");
  CHECK(redact_urls("git@github.com:o/r.git") == "git@github.com:o/r.git");
  CHECK(redact_urls("origin") == "origin");
  CHECK(redact_urls("://a:b@c") == "://a:b@c");
}

TEST_CASE("carries_credentials: a password in any URL, any userinfo in http(s)", "[git][push]") {
  using editgit::carries_credentials;
  CHECK(carries_credentials("http://user:pw@host/x"));
  CHECK(carries_credentials("HTTPS://token@host/x"));
  CHECK(carries_credentials("ssh://git:pw@host/x"));
  CHECK_FALSE(carries_credentials("ssh://git@host/x"));
  CHECK_FALSE(carries_credentials("git@host:x.git"));
  CHECK_FALSE(carries_credentials("https://host/x"));
  CHECK_FALSE(carries_credentials("origin"));
  CHECK_FALSE(carries_credentials("/srv/git/x.git"));
}

TEST_CASE("push: a remote's credentials never show in the failure, whatever libgit2 says", "[git][push]") {
  Pair p;
  test::git_ok(p.work.path(), {"remote", "add", "leaky", "http://user:s3cret@127.0.0.1:" +
                                                             std::to_string(closed_port()) + "/x.git"});
  auto dead = p.push("leaky");
  REQUIRE_FALSE(dead.has_value());
  CHECK(dead.error().code == editgit::Error::unreachable);
  CHECK(dead.error().message.find("s3cret") == std::string::npos);
  // A URL that libgit2 cannot parse is quoted back by it.
  auto bad = p.push("http://user:s3cret@[bad/x.git");
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.error().message.find("s3cret") == std::string::npos);
}

TEST_CASE("push: the REPL's ref goes with the branch to the same name, fast-forward only, and a missing one is left "
          "out",
          "[git][push]") {
  Pair p;
  const std::string ref = "refs/editgate/repl/someone-0123abcd";
  auto repo = editgit::Repository::open(p.work.str(), {}, false);
  REQUIRE(repo.has_value());
  // Not there yet: the branch goes alone.
  auto alone = repo->push({p.bare.str(), {}, {}, {ref}});
  REQUIRE(alone.has_value());
  CHECK(alone->also.empty());
  // An exchange on the REPL's ref, then a second one.
  for (const char* text : {"one exchange\n", "two exchanges\n"}) {
    editgit::CommitRequest req;
    req.ref = ref;
    req.changes.push_back({"node-1.md", std::nullopt, {std::string_view(text)}, false});
    req.author = {"agent", "agent@example.com"};
    req.message = "node-1: an exchange\n";
    auto before = repo->text_at(ref, "node-1.md");
    REQUIRE(before.has_value());
    if (*before) req.changes.back().before = std::string_view(**before);
    REQUIRE(repo->commit(req).has_value());
    auto pushed = repo->push({p.bare.str(), {}, {}, {ref}});
    REQUIRE(pushed.has_value());
    CHECK(pushed->also == std::vector<std::string>{ref});
    CHECK(pushed->up_to_date);  // the branch had nothing new
    CHECK(trimmed(test::git_ok(p.bare.path(), {"rev-parse", ref})) == *repo->ref_tip(ref));
  }
  CHECK(test::git_ok(p.bare.path(), {"show", ref + ":node-1.md"}) == "two exchanges\n");
  CHECK(p.bare_main() == p.head());

  // The remote's ref of that name moved on elsewhere (a clone made again in
  // the same place): it is refused and said so, and the branch goes all the same.
  test::git_ok(p.bare.path(), {"update-ref", ref, p.head()});
  p.commit("b.txt", "two\n");
  auto refused = repo->push({p.bare.str(), {}, {}, {ref}});
  REQUIRE(refused.has_value());
  CHECK(refused->also.empty());
  CHECK(refused->also_error.find("cannot push " + ref) != std::string::npos);
  CHECK(p.bare_main() == p.head());
}
