#include "gateway/serve.hpp"

#include "gateway/dir_watch.hpp"
#include "gateway/worker.hpp"
#include "gateway/gateway.hpp"
#include "gateway/inbox.hpp"
#include "gateway/node_page.hpp"
#include "gateway/http_connection.hpp"
#include "repl/agent_files.hpp"
#include "repl/committer.hpp"
#include "repl/log.hpp"
#include "repl/repl.hpp"
#include "gateway/state_dir.hpp"
#include "gateway/op_table.hpp"

#include <boost/json.hpp>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/strand.hpp>

#include <fcntl.h>

#include <condition_variable>
#include <csignal>
#include <filesystem>
#include <cstdint>
#include <iostream>
#include <mutex>
#include <thread>

#include <unistd.h>

#ifndef EDITGATE_VERSION
#define EDITGATE_VERSION "0.0.0"
#endif

namespace gateway {

namespace net = boost::asio;
using tcp = net::ip::tcp;

namespace {

// Asio opens and accepts sockets without close-on-exec: set here, so a
// child the gateway starts never holds the listening socket or a client's.
void close_on_exec(int fd) { ::fcntl(fd, F_SETFD, ::fcntl(fd, F_GETFD) | FD_CLOEXEC); }

// Accepts connections, each onto a strand of its own, until closed.
class listener : public std::enable_shared_from_this<listener> {
 public:
  listener(net::io_context& ioc, tcp::acceptor& acceptor, Gateway& gw) : ioc_(ioc), acceptor_(acceptor), gw_(gw) {}

  void do_accept() {
    acceptor_.async_accept(net::make_strand(ioc_), [self = shared_from_this()](boost::system::error_code ec,
                                                                                tcp::socket socket) {
      self->on_accept(ec, std::move(socket));
    });
  }

 private:
  void on_accept(boost::system::error_code ec, tcp::socket socket) {
    if (ec == net::error::operation_aborted || !acceptor_.is_open()) return;
    if (!ec) {
      close_on_exec(socket.native_handle());
      start_http_connection(std::move(socket), gw_);
    }
    // Out of descriptors and the like: keep serving the others.
    do_accept();
  }

  net::io_context& ioc_;
  tcp::acceptor& acceptor_;
  Gateway& gw_;
};

std::string workspace_id(const std::string& root) {
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a: stable for one root, nothing secret
  for (unsigned char c : root) h = (h ^ c) * 1099511628211ull;
  static constexpr char digits[] = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i, h >>= 4) out[static_cast<std::size_t>(i)] = digits[h & 15];
  return out;
}

// .editgate/server.json: what a client needs to connect, and to tell a stale
// file (its pid is gone; its nonce is not the one `health` answers).
std::string server_json(const Gateway& gw, const std::string& host, const std::string& root) {
  const std::string port = std::to_string(gw.binding().port);
  return boost::json::serialize(boost::json::object{
      {"protocol", protocol_version},
      {"editgate", EDITGATE_VERSION},
      {"pid", ::getpid()},
      {"port", gw.binding().port},
      {"http", "http://" + host + ":" + port + "/"},
      {"ws", "ws://" + host + ":" + port + "/ws"},
      {"workspace_root", root},
      {"workspace_id", gw.workspace_id()},
      {"nonce", gw.nonce()},
      {"started_ms", std::chrono::duration_cast<std::chrono::milliseconds>(
                         std::chrono::system_clock::now().time_since_epoch()).count()}});
}

// Cuts what is still open once the grace period after a stop has passed.
class Watchdog {
 public:
  void start(net::io_context& ioc, std::chrono::milliseconds grace) {
    thread_ = std::thread([this, &ioc, grace] {
      std::unique_lock lock(mutex_);
      if (!cv_.wait_for(lock, grace, [this] { return done_; })) ioc.stop();
    });
  }
  ~Watchdog() {
    {
      std::lock_guard lock(mutex_);
      done_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;
};

}  // namespace

int run_serve(const ServeArgs& args, std::ostream& out, std::ostream& err) {
  // What the REPL has to tell the person watching goes to `err`, while this
  // gateway runs; the stream is not the REPL's to keep.
  repl::set_log_sink([&err](std::string_view line) { err << "editgate: " << line << '\n' << std::flush; });
  struct Unhook {
    ~Unhook() { repl::set_log_sink({}); }
  } unhook;
  auto ws = editproto::Workspace::open(args.root);
  if (!ws) {
    err << "editgate serve: " << ws.error().detail << '\n';
    return 2;
  }
  std::error_code fs_ec;
  const std::string root = std::filesystem::canonical(ws->root(), fs_ec).string();
  if (fs_ec) {
    err << "editgate serve: " << ws->root() << ": " << fs_ec.message() << '\n';
    return 2;
  }

  Binding binding;
  binding.address = args.bind;
  for (const std::string& o : args.allow_origins) {
    auto n = normalize_origin(o);
    if (!n) {
      err << "editgate serve: --allow-origin '" << o << "' is not an origin such as http://localhost:3000\n";
      return 2;
    }
    binding.allowed_origins.push_back(*n);
  }
  boost::system::error_code ec;
  auto address = net::ip::make_address(args.bind, ec);
  if (ec) {
    err << "editgate serve: --bind '" << args.bind << "' is not an IP address\n";
    return 2;
  }

  // The lock first: a second gateway stops here, before touching anything.
  auto state = StateDir::open(root);
  if (!state) {
    err << "editgate serve: " << state.error().message << '\n';
    return 2;
  }
  auto worker = Worker::open(root);
  if (!worker) {
    err << "editgate serve: " << worker.error().message << '\n';
    return 2;
  }

  net::io_context ioc{1};
  tcp::acceptor acceptor(ioc);
  tcp::endpoint endpoint(address, args.port);
  if (acceptor.open(endpoint.protocol(), ec); !ec) {
    close_on_exec(acceptor.native_handle());
    acceptor.set_option(net::socket_base::reuse_address(true), ec);
  }
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(net::socket_base::max_listen_connections, ec);
  if (ec) {
    err << "editgate serve: cannot listen on " << args.bind << ":" << args.port << ": " << ec.message();
    if (ec == net::error::address_in_use) err << " (another program has the port; choose --port N, or --port 0 for any)";
    err << '\n';
    return 2;
  }
  binding.port = acceptor.local_endpoint().port();
  const std::string host = address.is_v6() ? "[" + args.bind + "]" : args.bind;
  const std::string url = "http://" + host + ":" + std::to_string(binding.port) + "/";

  ServeLimits limits;
  limits.header_timeout = std::chrono::milliseconds(args.header_timeout_ms);
  limits.body_timeout = std::chrono::milliseconds(args.body_timeout_ms);
  limits.auth_timeout = std::chrono::milliseconds(args.auth_timeout_ms);
  Gateway gw(binding, state->cookie(), **worker, limits, workspace_id(root));

  // The live pages: their logs are written on the worker thread and
  // committed on the workspace's one commit queue, as the edit runs are.
  Worker& eng = **worker;
  repl::Committer committer(eng.commits());
  repl::Options repl_options;
  repl_options.timeout = std::chrono::milliseconds(args.job_timeout_ms);
  repl_options.keys_file = state->path() + "/page-keys";
  repl_options.max_pages_per_origin = args.pages_per_origin;
  repl_options.max_pages_kept = args.pages_kept;
  repl_options.registry_disconnected = args.registry_disconnected;
  repl::Repl pages(eng.workspace(), committer, eng.executor(), repl_options);
  pages.before_write = [&eng](const std::string& path) {
    // An agent's run with uncommitted edits in this log commits them first,
    // so each commit holds one writer's work. (The REPL's own commits need
    // no such step before a run writes: the queue keeps them in order.)
    if (auto it = eng.owners().find(path); it != eng.owners().end()) it->second->release();
  };
  eng.hooks().written = [&pages](const std::string& path, const std::string& agent) { pages.written(path, agent); };
  gw.set_repl(&pages);

  // Agents that only read and write files: status and markers per page,
  // saves of the logs, and the inbox. All on the worker thread.
  repl::AgentFiles agent_files(state->path());
  pages.set_files(&agent_files);
  eng.post([&pages] { pages.mark_interrupted(); });
  auto watch = [&](std::string dir, bool logs, std::function<void(const std::string&)> saved) {
    // Logs: debug/ is not made before a page needs it; plain writes count
    // (a debounced draft does not run anyway). The inbox: whole files only.
    auto w = DirWatch::open(eng.executor(),
                            {std::move(dir), !logs, ".md", std::chrono::milliseconds(args.settle_ms), logs},
                            std::move(saved));
    if (!w) err << "editgate: " << w.error().message << "; saved files are not seen\n";
    return w ? std::move(*w) : nullptr;
  };
  std::unique_ptr<DirWatch> log_watch = watch(root + "/debug", true, [&pages](const std::string& name) {
    pages.saved("debug/" + name);
  });
  std::unique_ptr<DirWatch> inbox_watch =
      watch(state->path() + "/inbox", false, [&eng, &pages, dir = state->path()](const std::string& name) {
        apply_inbox(eng, dir, name, [&pages] { return pages.next_sequence(); });
      });

  net::signal_set signals(ioc, SIGINT, SIGTERM);
  signals.async_wait([&gw](boost::system::error_code e, int) {
    if (!e) gw.request_stop();
  });
  Watchdog watchdog;
  std::shared_ptr<NodePage> node_page;
  gw.on_stop([&] {
    net::post(ioc, [&] {
      err << "editgate: stopping\n";
      boost::system::error_code ignored;
      acceptor.close(ignored);
      signals.cancel(ignored);
      gw.stop_connections();
      gw.worker().post([&] {
        if (log_watch) log_watch->close();
        if (inbox_watch) inbox_watch->close();
        pages.shutdown();
      });
      if (node_page) stop_node_page(*node_page);
      watchdog.start(ioc, gw.limits().shutdown_grace);
    });
  });

  std::make_shared<listener>(ioc, acceptor, gw)->do_accept();
  out << "editgate serving " << root << " at " << url << '\n'
      << "  agents: POST " << url << "v1/edits and " << url << "v1/ws, with the cookie in "
      << state->path() << "/cookie\n";
  if (!address.is_loopback())
    out << "  warning: --bind " << args.bind << " is not loopback: other machines can reach this gateway\n";
  if (args.node) {
    const std::string node = find_node();
    if (node.empty())
      err << "editgate: no Node.js on PATH (node or nodejs): the built-in Node page is off; install nodejs, "
             "or pass --no-node to say so\n";
    else
      node_page = start_node_page(eng, pages, root, state->path(), node);
  }
  out << "  pages: include <script src=\"" << url << "adapter.js\" crossorigin></script>; logs in debug/\n";
  out.flush();
  // The port file last: a client that finds it finds a gateway that listens.
  if (auto p = state->publish(binding.port, url, server_json(gw, host, root)); !p) {
    err << "editgate serve: " << p.error().message << '\n';
    return 2;
  }

  ioc.run();
  if (node_page) stop_node_page(*node_page);
  // Jobs end (shutting_down) before the worker thread does, and the
  // commit queue makes the commits they left before it stops.
  gw.worker().post([&pages] { pages.shutdown(); });
  (*worker)->join();
  err << "editgate: stopped\n";
  return 0;
}

}  // namespace gateway
