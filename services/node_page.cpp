#include "services/node_page.hpp"
#include "services/program_path.hpp"

#include "repl/assets.hpp"
#include "repl/log.hpp"
#include "repl/repl.hpp"

#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/streambuf.hpp>
#include <boost/asio/write.hpp>
#include <boost/json.hpp>

#include <charconv>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <fcntl.h>
#include <fstream>
#include <future>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace services {

namespace net = boost::asio;
using local = net::local::stream_protocol;

std::string find_node() { return find_on_path({"node", "nodejs"}); }

// Lives on the worker thread, with the REPL: a page message is handled
// where it is read and an eval is written where it is made, with no thread
// hop in between (each hop costs a wake-up, 0.1 ms or more on a busy machine).
class NodePage : public RealmHost, public std::enable_shared_from_this<NodePage> {
 public:
  NodePage(Worker& worker, repl::Repl& repl, std::string root, std::string program, std::string node)
      : ex_(worker.executor()), repl_(repl), root_(std::move(root)), program_(std::move(program)),
        node_(std::move(node)), restart_(ex_) {}

  ~NodePage() {
    if (stops_ >= 0) ::close(stops_);
  }

  std::string id_file() const { return program_.substr(0, program_.rfind('/')) + "/node-page.id"; }

  void start() {
    if (id_.empty()) std::ifstream(id_file()) >> id_ >> secret_;
    int fds[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
      repl::log_line("the Node page cannot start: socketpair failed");
      return;
    }
    // Interrupts go on a channel of their own (fd 4), which a thread of the
    // page reads while its code holds the main thread. A socket, not a
    // pipe: a write to a dead child's is an error, not a SIGPIPE.
    int stops[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, stops) != 0) {
      ::close(fds[0]);
      ::close(fds[1]);
      repl::log_line("the Node page cannot start: socketpair failed");
      return;
    }
    ::shutdown(stops[1], SHUT_RD);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, 2, 1);  // code that writes to stdout reaches the terminal's stderr
    posix_spawn_file_actions_adddup2(&actions, fds[1], 3);
    posix_spawn_file_actions_adddup2(&actions, stops[0], 4);
    posix_spawn_file_actions_addchdir_np(&actions, root_.c_str());
    // The child gets stdio and the page's socket, nothing else: whatever the
    // gateway holds open at this moment (a connection accepted a moment ago
    // on another thread, a file a stream has open) stays the gateway's.
    posix_spawn_file_actions_addclosefrom_np(&actions, 5);
    std::vector<std::string> env_strings;
    for (char** e = environ; *e; ++e)
      if (std::string_view(*e).substr(0, 9) != "EDITGATE_") env_strings.emplace_back(*e);
    env_strings.push_back("EDITGATE_PAGE_NAME=node");
    if (!id_.empty()) env_strings.push_back("EDITGATE_PAGE_ID=" + id_);
    std::vector<char*> env;
    for (auto& s : env_strings) env.push_back(s.data());
    env.push_back(nullptr);
    std::string arg0 = node_, arg1 = program_;
    char* argv[] = {arg0.data(), arg1.data(), nullptr};
    pid_t pid = 0;
    const int rc = ::posix_spawn(&pid, node_.c_str(), &actions, nullptr, argv, env.data());
    posix_spawn_file_actions_destroy(&actions);
    ::close(fds[1]);
    ::close(stops[0]);
    if (stops_ >= 0) ::close(stops_);
    stops_ = stops[1];
    if (rc != 0) {
      ::close(fds[0]);
      repl::log_line("the Node page cannot start: " + node_ + ": " + std::strerror(rc));
      return;
    }
    pid_ = pid;
    socket_ = std::make_unique<local::socket>(ex_);
    socket_->assign(local(), fds[0]);
    buffer_ = std::make_unique<net::streambuf>(16u << 20);
    generation_++;
    auto link = std::make_shared<Link>();
    link->page = weak_from_this();
    link->generation = generation_;
    link_ = link;
    do_read();
    reopen_realms();
  }

  // RealmHost: a realm is opened by a message on the channel; it is a page
  // once its hello is in. On the worker thread.
  void open(std::function<void(Result<std::string>)> done) override {
    if (stopping_ || !hello_ || !socket_ || !socket_->is_open())
      return done(Failure{Error::not_found, "the built-in Node page is not running now (a dead one restarts within seconds)"});
    if (realms_.size() >= max_realms)
      return done(Failure{Error::too_many_pages, "the Node page hosts " + std::to_string(realms_.size()) +
                                                     " realms, the most it may; close some (op close)"});
    const std::uint64_t n = ++realms_made_;
    Realm& r = realms_[n];
    r.opening = std::move(done);
    open_realm(n, r);
    // A Node page busy with synchronous code reads no realm-open: the
    // clone fails by name rather than waiting with it.
    auto timer = std::make_shared<net::steady_timer>(ex_, realm_open_within);
    timer->async_wait([self = shared_from_this(), n, timer](boost::system::error_code ec) {
      auto it = self->realms_.find(n);
      if (ec || it == self->realms_.end() || !it->second.opening) return;
      auto opening = std::move(it->second.opening);
      self->send(self->generation_, boost::json::serialize(boost::json::object{{"type", "realm-close"}, {"realm", n}}));
      self->realms_.erase(it);
      opening(Failure{Error::page_timeout, "the Node page did not make the realm within " +
                                               std::to_string(realm_open_within.count()) +
                                               " s (busy with synchronous code?)"});
    });
  }

  void close(const std::string& page) override {
    for (auto it = realms_.begin(); it != realms_.end(); ++it) {
      Realm& r = it->second;
      if (r.name != page) continue;
      send(generation_, boost::json::serialize(boost::json::object{{"type", "realm-close"}, {"realm", it->first}}));
      if (r.welcomed) repl_.disconnect(r.id, r.link.get());
      realms_.erase(it);
      return;
    }
  }

  // From another thread: done on the worker's, waited for.
  void stop() {
    std::promise<void> done;
    net::post(ex_, [self = shared_from_this(), &done] {
      self->stopping_ = true;
      self->restart_.cancel();
      boost::system::error_code ignored;
      if (self->socket_) self->socket_->close(ignored);
      self->reap(true);
      done.set_value();
    });
    done.get_future().wait();
  }

 private:
  static constexpr std::string_view realm_prefix = R"({"realm":)";
  static constexpr std::chrono::seconds realm_open_within{5};

  // A realm's page as the REPL holds it: its messages go out with its
  // number first, over the Node page's channel; stale with its child.
  struct RealmLink : repl::PageLink {
    std::weak_ptr<NodePage> page;
    std::uint64_t realm = 0;
    unsigned generation = 0;
    void send(std::string message) override {
      auto p = page.lock();
      if (!p || message.empty() || message.front() != '{') return;
      message.replace(0, 1, std::string(realm_prefix) + std::to_string(realm) + (message.size() > 2 ? "," : ""));
      p->send(generation, std::move(message));
    }
    void close() override {
      if (auto p = page.lock())
        p->send(generation, boost::json::serialize(boost::json::object{{"type", "realm-close"}, {"realm", realm}}));
    }
    // Synchronous code holds the one thread every realm shares: SIGINT
    // stops it, as in the Node page itself, when it is this job's. The
    // process is not restarted for one realm: the others would go with it.
    bool interrupt_hard(std::uint64_t job) override {
      auto p = page.lock();
      return p && generation == p->generation_ && p->ask_to_stop(job);
    }
    // A fresh context under the same number: the same page and log. Posted,
    // as the REPL that asks holds this link until it returns.
    bool restart() override {
      auto p = page.lock();
      if (!p || generation != p->generation_) return false;
      net::post(p->ex_, [p, n = realm, g = generation] { p->renew_realm(n, g); });
      return true;
    }
  };

  // The realm's page goes away (its jobs fail context_destroyed) and comes
  // back with the id and secret the gateway keeps for it, a new context.
  void renew_realm(std::uint64_t n, unsigned generation) {
    auto it = realms_.find(n);
    if (generation != generation_ || it == realms_.end()) return;
    Realm& r = it->second;
    send(generation_, boost::json::serialize(boost::json::object{{"type", "realm-close"}, {"realm", n}}));
    if (r.welcomed) repl_.disconnect(r.id, r.link.get());
    r.welcomed = false;
    open_realm(n, r);
  }

  struct Realm {
    std::string id, secret, name;  // its page's, once the REPL took it in
    std::shared_ptr<RealmLink> link;
    bool welcomed = false;  // connected to the REPL, through this child
    std::function<void(Result<std::string>)> opening;  // the clone waiting for it
  };

  void open_realm(std::uint64_t n, Realm& r) {
    auto link = std::make_shared<RealmLink>();
    link->page = weak_from_this();
    link->realm = n;
    link->generation = generation_;
    r.link = std::move(link);
    send(generation_, boost::json::serialize(boost::json::object{{"type", "realm-open"}, {"realm", n}}));
  }

  // A new child: each realm comes back as a fresh context, to its own log.
  void reopen_realms() {
    for (auto& [n, r] : realms_) open_realm(n, r);
  }

  // The child is gone, and every realm's context with it.
  void realms_lost() {
    for (auto it = realms_.begin(); it != realms_.end();) {
      Realm& r = it->second;
      if (r.welcomed) repl_.disconnect(r.id, r.link.get());
      r.welcomed = false;
      if (r.opening) {
        auto opening = std::move(r.opening);
        it = realms_.erase(it);
        opening(Failure{Error::context_destroyed, "the Node page died while the realm was being made"});
      } else {
        ++it;
      }
    }
  }

  // A line of a realm: {"realm":<n>,...}. Its first is its hello, which
  // the gateway answers with the id and secret it keeps for the realm:
  // nothing the child says picks the page it speaks for.
  void from_realm(const std::string& line) {
    std::uint64_t n = 0;
    const char* first = line.data() + realm_prefix.size();
    auto [end, ec] = std::from_chars(first, line.data() + line.size(), n);
    auto it = realms_.find(n);
    if (ec != std::errc() || it == realms_.end()) return;
    Realm& r = it->second;
    if (r.welcomed) return repl_.from_page(r.id, line);
    boost::system::error_code jec;
    boost::json::value v = boost::json::parse(line, jec);
    if (jec || !v.is_object() || v.get_object().if_contains("type") == nullptr || v.get_object().at("type") != "hello")
      return;
    auto field = [&](std::string_view k) {
      const boost::json::value* f = v.get_object().if_contains(k);
      return f && f->is_string() ? std::string(f->get_string()) : std::string();
    };
    repl::Hello h{r.id, r.secret, "node-" + std::to_string(n), field("url"), field("title"), "realm", "",
                  field("user_agent")};
    auto got = repl_.connect(h, r.link);
    auto opening = std::move(r.opening);
    if (!got) {
      realms_.erase(it);
      if (opening) opening(Failure{Error::internal, "the realm's page was refused: " + got.error().message});
      return;
    }
    r.id = got->id;
    if (!got->secret.empty()) r.secret = got->secret;
    auto name = repl_.page_name(r.id);
    r.name = name ? *name : r.id;
    r.welcomed = true;
    if (opening) opening(r.name);
  }

  // What the REPL holds (and calls on this same thread); stale once the
  // child it spoke for is gone.
  struct Link : repl::PageLink {
    std::weak_ptr<NodePage> page;
    unsigned generation = 0;
    void send(std::string message) override {
      if (auto p = page.lock()) p->send(generation, std::move(message));
    }
    void close() override {
      auto p = page.lock();
      boost::system::error_code ignored;
      if (p && generation == p->generation_ && p->socket_) p->socket_->close(ignored);
    }
    bool interrupt_hard(std::uint64_t job) override {
      auto p = page.lock();
      return p && generation == p->generation_ && p->ask_to_stop(job);
    }
    // The socket's end then fails the running job (context_destroyed) and
    // the child is started again, back to the same log.
    bool restart() override {
      auto p = page.lock();
      if (!p || p->pid_ <= 0 || generation != p->generation_) return false;
      return ::kill(p->pid_, SIGKILL) == 0;
    }
  };

  void send(unsigned generation, std::string message) {
    if (generation != generation_ || !socket_ || !socket_->is_open()) return;
    writes_.push_back(std::move(message) + "\n");
    if (writes_.size() == 1) do_write();
  }

  void do_write() {
    net::async_write(*socket_, net::buffer(writes_.front()),
                     [self = shared_from_this(), g = generation_](boost::system::error_code ec, std::size_t) {
                       if (g != self->generation_) return;
                       if (ec) {
                         self->writes_.clear();
                         return;
                       }
                       self->writes_.pop_front();
                       if (!self->writes_.empty()) self->do_write();
                     });
  }

  void do_read() {
    net::async_read_until(*socket_, *buffer_, '\n',
                          [self = shared_from_this(), g = generation_](boost::system::error_code ec, std::size_t n) {
                            if (g == self->generation_) self->on_line(ec, n);
                          });
  }

  void on_line(boost::system::error_code ec, std::size_t n) {
    if (ec) return gone();
    std::string line(net::buffers_begin(buffer_->data()), net::buffers_begin(buffer_->data()) + static_cast<std::ptrdiff_t>(n));
    buffer_->consume(n);
    if (!line.empty() && line.back() == '\n') line.pop_back();
    if (line.starts_with(realm_prefix)) {
      from_realm(line);
    } else if (!hello_) {
      hello_ = true;
      boost::system::error_code jec;
      boost::json::value v = boost::json::parse(line, jec);
      repl::Hello h;
      if (!jec && v.is_object()) {
        auto& o = v.get_object();
        auto field = [&](std::string_view k) {
          const boost::json::value* f = o.if_contains(k);
          return f && f->is_string() ? std::string(f->get_string()) : std::string();
        };
        h = repl::Hello{"", "", field("name"), field("url"), field("title"), "node", "", field("user_agent")};
      }
      h.kind = "node";
      h.origin = "";  // no web origin: the page door never admits an empty one
      // A restarted child comes back to its log with the instance's secret,
      // which stays in the gateway (its welcome leaves it out): the child proves itself by holding the
      // other end of the socket pair made for it, which nothing else can reach.
      h.id = id_;
      h.secret = secret_;
      if (auto got = repl_.connect(h, link_)) {
        // Kept across gateway restarts too (mode 0600 in the state folder): the next
        // gateway's Node page comes back to this log, where file-driven agents write.
        if (id_ != got->id) {
          const std::string line = got->id + ' ' + got->secret + '\n';
          const int fd = ::open(id_file().c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
          if (fd < 0 || ::write(fd, line.data(), line.size()) != static_cast<ssize_t>(line.size()))
            repl::log_line("cannot write " + id_file() + "; the next gateway's Node page gets a new log");
          if (fd >= 0) ::close(fd);
          secret_ = got->secret;
        }
        id_ = got->id;
      }
    } else if (!id_.empty()) {
      repl_.from_page(id_, line);
    }
    do_read();  // on a socket the REPL closed meanwhile, it fails at once: gone()
  }

  // The child closed its end: it exited or crashed.
  void gone() {
    boost::system::error_code ignored;
    if (socket_) socket_->close(ignored);
    if (!id_.empty()) repl_.disconnect(id_, link_.get());
    realms_lost();
    reap(false);
    hello_ = false;
    if (stopping_) return;
    const auto now = std::chrono::steady_clock::now();
    if (now - window_start_ > std::chrono::minutes(1)) {
      window_start_ = now;
      restarts_ = 0;
    }
    if (++restarts_ > 5) {
      repl::log_line("the Node page died 5 times within a minute; it is not restarted again");
      return;
    }
    restart_.expires_after(std::chrono::seconds(1));
    restart_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
      if (ec || self->stopping_) return;
      self->start();
    });
  }

  // The page's own thread sends the SIGINT, and only while `job` runs
  // synchronously: the gateway cannot know which realm's code holds the
  // thread at the moment the signal lands. A full channel (requests nobody
  // read) drops the request; the interrupt message still goes.
  bool ask_to_stop(std::uint64_t job) {
    if (stops_ < 0) return false;
    const std::string line = std::to_string(job) + "\n";
    return ::send(stops_, line.data(), line.size(), MSG_NOSIGNAL | MSG_DONTWAIT) == static_cast<ssize_t>(line.size());
  }

  void reap(bool stop) {
    if (pid_ <= 0) return;
    int status = 0;
    if (stop) {
      ::kill(pid_, SIGTERM);
      for (int i = 0; i < 100 && ::waitpid(pid_, &status, WNOHANG) == 0; ++i) ::usleep(10'000);
      if (::waitpid(pid_, &status, WNOHANG) == 0) {
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, &status, 0);
      }
    } else if (::waitpid(pid_, &status, WNOHANG) == 0) {
      // Its end of the socket is gone, so it is on its way out.
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &status, 0);
    }
    pid_ = -1;
  }

  net::any_io_executor ex_;
  repl::Repl& repl_;
  std::string root_, program_, node_;
  std::string id_;      // the instance id, once welcomed; kept for the next child
  std::string secret_;  // and its secret, which the child never sees
  std::unique_ptr<local::socket> socket_;
  std::unique_ptr<net::streambuf> buffer_;
  std::shared_ptr<Link> link_;
  std::deque<std::string> writes_;
  unsigned generation_ = 0;
  pid_t pid_ = -1;
  int stops_ = -1;  // the gateway's end of the child's interrupt channel (its fd 4)
  bool hello_ = false;
  bool stopping_ = false;
  net::steady_timer restart_;
  std::map<std::uint64_t, Realm> realms_;  // by number; at most max_realms
  std::uint64_t realms_made_ = 0;
  std::chrono::steady_clock::time_point window_start_ = std::chrono::steady_clock::now();
  int restarts_ = 0;
};

std::shared_ptr<NodePage> start_node_page(Worker& worker, repl::Repl& repl, const std::string& root,
                                          const std::string& state_dir, const std::string& node) {
  const std::string program = state_dir + "/node-page.cjs";
  const std::string text = repl::node_page_js();
  const int fd = ::open(program.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  const bool written = fd >= 0 && ::fchmod(fd, 0600) == 0 &&
                       ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  if (fd >= 0) ::close(fd);
  if (!written) {
    repl::log_line("cannot write " + program + "; the Node page is off");
    return nullptr;
  }
  auto page = std::make_shared<NodePage>(worker, repl, root, program, node);
  net::post(worker.executor(), [page] { page->start(); });
  return page;
}

void stop_node_page(NodePage& page) { page.stop(); }

RealmHost* realm_host(NodePage* page) { return page; }

}  // namespace services
