#include "gateway/serve.hpp"
#include "services/event_hub.hpp"

#include "services/dir_watch.hpp"
#include "services/worker.hpp"
#include "services/gateway.hpp"
#include "gateway/inbox.hpp"
#include "services/node_page.hpp"
#include "services/owned_pages.hpp"
#include "gateway/http_connection.hpp"
#include "mcp/server.hpp"
#include "repl/agent_files.hpp"
#include "repl/committer.hpp"
#include "repl/log.hpp"
#include "repl/repl.hpp"
#include "services/state_dir.hpp"
#include "ops/handlers.hpp"
#include "ops/table.hpp"
#include "services/pusher.hpp"

#include <boost/json.hpp>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <condition_variable>
#include <csignal>
#include <filesystem>
#include <cstdint>
#include <iostream>
#include <mutex>
#include <optional>
#include <thread>

#include <unistd.h>

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
  listener(net::io_context& ioc, tcp::acceptor& acceptor, services::Gateway& gw, mcp::McpServer& mcp)
      : ioc_(ioc), acceptor_(acceptor), gw_(gw), mcp_(mcp) {}

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
      start_http_connection(std::move(socket), gw_, mcp_);
    }
    // Out of descriptors and the like: keep serving the others.
    do_accept();
  }

  net::io_context& ioc_;
  tcp::acceptor& acceptor_;
  services::Gateway& gw_;
  mcp::McpServer& mcp_;
};

// server.json: what a client needs to connect, and to tell a stale
// file (its pid is gone; its nonce is not the one `health` answers).
std::string server_json(const services::Gateway& gw, const std::string& host, const std::string& root) {
  const std::string port = std::to_string(gw.binding().port);
  return boost::json::serialize(boost::json::object{
      {"protocol", ops::protocol_version},
      {"editgate", EDITGATE_VERSION},
      {"pid", ::getpid()},
      {"port", gw.binding().port},
      {"http", "http://" + host + ":" + port + "/"},
      {"ws", "ws://" + host + ":" + port + "/ws"},
      {"mcp", "http://" + host + ":" + port + "/mcp"},
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
  // Guards done_: serve's thread ends the watchdog thread's wait early.
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;
};

// The workspace's root as the gateway names it (canonical); nullopt, with
// the reason on `err`, when it is no workspace.
std::optional<std::string> workspace_root(const std::string& given, std::ostream& err) {
  auto found = services::find_workspace(given);
  if (!found) {
    err << "editgate serve: " << found.error().message << '\n';
    return std::nullopt;
  }
  auto ws = editproto::Workspace::open(*found);
  if (!ws) {
    err << "editgate serve: " << ws.error().detail << '\n';
    return std::nullopt;
  }
  std::error_code fs_ec;
  std::string root = std::filesystem::canonical(ws->root(), fs_ec).string();
  if (fs_ec) {
    err << "editgate serve: " << ws->root() << ": " << fs_ec.message() << '\n';
    return std::nullopt;
  }
  return root;
}

// Where to listen and whom to let in, as the flags say; nullopt, with the
// reason on `err`, when a flag is not what it must be.
struct Address {
  services::Binding binding;
  net::ip::address ip;
};

std::optional<Address> address_of(const ServeArgs& args, std::ostream& err) {
  Address a;
  a.binding.address = args.bind;
  for (const std::string& o : args.allow_origins) {
    auto n = services::normalize_origin(o);
    if (!n) {
      err << "editgate serve: --allow-origin '" << o << "' is not an origin such as http://localhost:3000\n";
      return std::nullopt;
    }
    a.binding.allowed_origins.push_back(*n);
  }
  boost::system::error_code ec;
  a.ip = net::ip::make_address(args.bind, ec);
  if (ec) {
    err << "editgate serve: --bind '" << args.bind << "' is not an IP address\n";
    return std::nullopt;
  }
  return a;
}

// What the gateway holds from its lock to its stop, taken in this order:
// the workspace, the lock and cookie (a second gateway stops there, before
// touching anything), the worker thread and its repository.
struct Held {
  services::Places places;
  Address address;
  services::StateDir state;
  std::unique_ptr<services::Worker> worker;
};

// A .editgate/ in the workspace is what an earlier editgate kept there, or
// what a commit brought: said once, never read.
void note_old_state(const std::string& root, std::ostream& err) {
  struct stat st {};
  if (::lstat((root + "/.editgate").c_str(), &st) != 0) return;
  err << "editgate: " << root << "/.editgate is not read: editgate keeps nothing in the working tree, where "
         "commits and dev servers reach (an earlier version kept its state there, or a commit brought it); "
         "`editgate where` lists what is kept where; delete the folder when you like\n";
}

std::optional<Held> hold_workspace(const ServeArgs& args, std::ostream& err) {
  std::optional<std::string> root = workspace_root(args.root, err);
  if (!root) return std::nullopt;
  std::optional<Address> address = address_of(args, err);
  if (!address) return std::nullopt;
  auto places = services::places_of(*root);
  if (!places) {
    err << "editgate serve: " << places.error().message << '\n';
    return std::nullopt;
  }
  auto state = services::StateDir::open(*places);
  if (!state) {
    err << "editgate serve: " << state.error().message << '\n';
    return std::nullopt;
  }
  auto worker = services::Worker::open(*root);
  if (!worker) {
    err << "editgate serve: " << worker.error().message << '\n';
    return std::nullopt;
  }
  // The repository exists now (Worker::open made it when there was none):
  // its git folder holds the agents' files.
  auto found = services::places_of(places->root);
  if (!found || found->agents.empty()) {
    err << "editgate serve: cannot find the git folder of " << places->root << '\n';
    return std::nullopt;
  }
  places->agents = found->agents;
  if (auto held = state->hold_agents(places->agents); !held) {
    err << "editgate serve: " << held.error().message << '\n';
    return std::nullopt;
  }
  note_old_state(places->root, err);
  return Held{std::move(*places), std::move(*address), std::move(*state), std::move(*worker)};
}

// Opens, binds and listens; false, with the reason on `err`, when the port
// cannot be had.
bool listen(tcp::acceptor& acceptor, const net::ip::address& ip, unsigned short port, const ServeArgs& args,
            std::ostream& err) {
  boost::system::error_code ec;
  tcp::endpoint endpoint(ip, port);
  if (acceptor.open(endpoint.protocol(), ec); !ec) {
    close_on_exec(acceptor.native_handle());
    acceptor.set_option(net::socket_base::reuse_address(true), ec);
  }
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(net::socket_base::max_listen_connections, ec);
  if (!ec) return true;
  err << "editgate serve: cannot listen on " << args.bind << ":" << port << ": " << ec.message();
  if (ec == net::error::address_in_use)
    err << " (another program has the port" << (args.port ? "" : ", this workspace's own") <<
        "; choose --port N, or --port 0 for any: the tag the gateway prints then names that port)";
  err << '\n';
  return false;
}

services::ServeLimits limits_of(const ServeArgs& args) {
  services::ServeLimits limits;
  limits.sessions.realm_idle = std::chrono::seconds(args.realm_idle_s);
  limits.header_timeout = std::chrono::milliseconds(args.header_timeout_ms);
  limits.body_timeout = std::chrono::milliseconds(args.body_timeout_ms);
  limits.auth_timeout = std::chrono::milliseconds(args.auth_timeout_ms);
  // Half an origin's instances may be connected at once (32 of the default
  // 64, never fewer): the rest is room for its tabs closed and opened again.
  limits.page_sockets_per_origin =
      std::clamp<std::size_t>(args.pages_per_origin / 2, limits.page_sockets_per_origin, limits.page_sockets);
  return limits;
}

repl::Options repl_options_of(const ServeArgs& args, const services::StateDir& state) {
  repl::Options o;
  o.timeout = std::chrono::milliseconds(args.job_timeout_ms);
  o.keys_file = state.path() + "/page-keys";
  o.tail_journal = state.path() + "/tail-journal";
  o.max_pages_per_origin = args.pages_per_origin;
  o.max_pages_kept = args.pages_kept;
  o.registry_disconnected = args.registry_disconnected;
  return o;
}

// The live pages and the edit runs share the worker thread, the workspace's
// files and its commit queue: each tells the other when it writes.
void connect_pages(repl::Repl& pages, services::Worker& eng, services::Gateway& gw) {
  pages.before_write = [&eng](const std::string& path) {
    // An agent's run with uncommitted edits in this log commits them first,
    // so each commit holds one writer's work. (The REPL's own commits need
    // no such step before a run writes: the queue keeps them in order.)
    if (auto it = eng.owners().find(path); it != eng.owners().end()) it->second->release();
  };
  eng.hooks().written = [&pages](const std::string& path, const std::string& agent) { pages.written(path, agent); };
  gw.set_repl(&pages);
}

// The dashboard's live events: what the pages, the approvals, the edit runs
// and the commit queue tell, into the hub. Unfollow takes the commit
// queue's hook back before the hub is gone (the runs' hook is the worker
// thread's, which has ended by then).
struct Unfollow {
  editgit::CommitQueue& commits;
  std::size_t observer;
  ~Unfollow() { commits.forget(observer); }
};

Unfollow follow(services::EventHub& events, repl::Repl& pages, services::Gateway& gw, services::Worker& eng) {
  events.set_snapshots([&pages] { return pages.pages(); }, [&gw] { return gw.approvals().snapshot(); });
  pages.pages_changed = [&events] { events.pages_changed(); };
  pages.log_changed = [&events](const std::string& page, const std::string& log) { events.log_changed(page, log); };
  gw.approvals().on_change([&events] { events.origins_changed(); });
  // Set before any run can start (the listener and the inbox come later).
  eng.runs().on_run = [&events](const boost::json::object& run) { events.run_finished(run); };
  const std::size_t observer = eng.commits().after_each([&events](editgit::Repository& repo) {
    if (!events.watched()) return;
    auto head = repo.history([](const editgit::CommitInfo&) { return true; }, 1);
    if (head && !head->empty()) events.committed(head->front().id);
  });
  return Unfollow{eng.commits(), observer};
}

void log_push(const services::PushOutcome& o) {
  const std::string remote(o.body.at("remote").get_string());
  std::string line;
  if (o.failure) {
    line = "push to " + remote + " failed: " + std::string(to_string(o.failure->code)) + ": " + o.failure->message;
    if (const auto* retry = o.body.if_contains("retry_in_ms"))
      line += "; trying again in " + std::to_string(retry->as_int64()) + " ms";
    else
      line += "; not tried again until the next commit or push op";
  } else if (o.body.at("up_to_date").as_bool()) {
    line = "push: " + remote + " has " + std::string(o.body.at("commit").get_string()) + " already";
  } else {
    const auto* previous = o.body.if_contains("previous");
    line = "pushed " + std::string(o.body.at("ref").get_string()) + " to " + remote + ": " +
           (previous ? std::string(previous->get_string()).substr(0, 12) + ".." : std::string("new branch at ")) +
           std::string(o.body.at("commit").get_string()).substr(0, 12);
  }
  repl::log_line(line);
}

// `--push REMOTE`: a pusher whose outcomes go to the log and the watchers
// (null without --push; nullopt, with the reason on `err`, when it cannot
// start). A path is made absolute here (libgit2 would read it against the
// gateway's working folder at each push); a name without '/' or ':' is the
// repository's remote.
std::optional<std::unique_ptr<services::Pusher>> start_pusher(const ServeArgs& args, const std::string& root,
                                                    services::EventHub& events, std::ostream& err) {
  if (args.push.empty()) return std::unique_ptr<services::Pusher>();
  std::string remote = args.push;
  std::error_code fs_ec;
  if (remote.find_first_of("/:") != std::string::npos && std::filesystem::exists(remote, fs_ec))
    remote = std::filesystem::absolute(remote, fs_ec).lexically_normal().string();
  services::Pusher::Schedule schedule;
  schedule.timeout = std::chrono::seconds(args.push_timeout_s);
  auto pusher = services::Pusher::open(root, remote, [&events](const services::PushOutcome& o) {
    log_push(o);
    boost::json::object event = o.body;
    event["ok"] = !o.failure;
    if (o.failure) {
      event["error"] = to_string(o.failure->code);
      event["message"] = o.failure->message;
    }
    events.pushed(std::move(event));
  }, schedule);
  if (!pusher) {
    err << "editgate serve: --push: " << pusher.error().message << '\n';
    return std::nullopt;
  }
  return std::move(*pusher);
}

// The folders agents save into: chat logs under debug/, messages in the
// inbox. Both watched on the worker thread.
struct Watches {
  std::unique_ptr<services::DirWatch> logs;
  std::unique_ptr<services::DirWatch> inbox;

  void close() {
    if (logs) logs->close();
    if (inbox) inbox->close();
  }
};

Watches watch_folders(const ServeArgs& args, const std::string& root, const std::string& agents, services::Gateway& gw,
                      services::Worker& eng,
                      repl::Repl& pages, std::ostream& err) {
  auto watch = [&](std::string dir, bool logs, std::function<void(const std::string&)> saved) {
    // Logs: debug/ is not made before a page needs it; plain writes count
    // (a debounced draft does not run anyway). The inbox: whole files only.
    auto w = services::DirWatch::open(eng.executor(),
                            {std::move(dir), !logs, ".md", std::chrono::milliseconds(args.settle_ms), logs},
                            std::move(saved));
    if (!w) err << "editgate: " << w.error().message << "; saved files are not seen\n";
    return w ? std::move(*w) : nullptr;
  };
  Watches w;
  w.logs = watch(root + "/debug", true, [&pages](const std::string& name) { pages.saved("debug/" + name); });
  // A folder of its own, never a link: what lands in it is applied.
  if (auto made = services::private_folder(agents + "/inbox"); !made) {
    err << "editgate: " << made.error().message << "; the inbox is off\n";
    return w;
  }
  w.inbox = watch(agents + "/inbox", false, [&gw, &pages, dir = agents](const std::string& name) {
    take_inbox(gw, dir, name, [&pages] { return pages.next_sequence(); });
  });
  return w;
}

// Where agents and pages reach this gateway, on standard output.
void print_banner(std::ostream& out, const ServeArgs& args, const std::string& root, const std::string& url,
                  const std::string& state_dir, const net::ip::address& ip) {
  out << "editgate serving " << root << " at " << url << '\n'
      << "  agents: POST " << url << "v1/edits and " << url << "v1/ws, with the cookie in " << state_dir
      << "/cookie\n";
  if (!ip.is_loopback())
    out << "  warning: --bind " << args.bind << " is not loopback: other machines can reach this gateway\n";
}

// The built-in Node page, when it is wanted and Node is there.
std::shared_ptr<services::NodePage> start_node(const ServeArgs& args, services::Worker& eng, repl::Repl& pages, const std::string& root,
                                     const std::string& state_dir, std::ostream& err) {
  if (!args.node) return nullptr;
  const std::string node = services::find_node();
  if (!node.empty()) return start_node_page(eng, pages, root, state_dir, node);
  err << "editgate: no Node.js on PATH (node or nodejs): the built-in Node page is off; install nodejs, "
         "or pass --no-node to say so\n";
  return nullptr;
}

// The rest of the banner, once the Node page is started: how a page joins,
// and a sign-in URL for one browser, once. The person's (it may approve
// origins) only where no agent reads it: never into a file (`editgate mcp`
// starts serve with its output in the state folder's serve.log); there, a
// viewer's, as `editgate dashboard` prints.
void print_joining(std::ostream& out, const ServeArgs& args, const std::string& url, services::Gateway& gw) {
  out << "  pages: include, in the app's HTML (logs in debug/):\n    " << services::page_tag(url, gw.workspace_id()) << '\n';
  if (args.person_url) {
    out << "  dashboard: " << url << "?token=" << gw.dashboard().mint_token(services::Grade::person)
        << "\n    (yours alone: it signs in one browser that may approve pages; keep it out of agents' reach)\n";
  } else {
    out << "  dashboard: " << url << "?token=" << gw.dashboard().mint_token(services::Grade::viewer)
        << "\n    (looks only: this output is a file an agent may read; run `editgate serve` in a terminal for the URL "
           "that approves pages)\n";
  }
  out.flush();
}

// Sessions expire, and idle realms close, on a clock too: a realm whose
// client connects per call and never comes back would otherwise stay until
// an op looked (sessions, clone) or the gateway stopped. A quarter of the
// shorter time, between 250 ms and 30 s, on the network thread.
void sweep_sessions(net::steady_timer& timer, services::Gateway& gw) {
  const services::SessionLimits& l = gw.sessions().limits();
  const auto every = std::clamp<std::chrono::milliseconds>(std::min(l.realm_idle, l.expire_after) / 4,
                                                           std::chrono::milliseconds(250), std::chrono::seconds(30));
  timer.expires_after(every);
  timer.async_wait([&timer, &gw](boost::system::error_code ec) {
    // A wait that completed as the gateway began to stop is not re-armed.
    if (ec || gw.stopping()) return;
    ops::close_realms(gw, gw.sessions().expire());
    sweep_sessions(timer, gw);
  });
}

// After the last connection has ended. Jobs end (shutting_down) before the
// worker thread does, and the commit queue makes the commits they left
// before it stops. Held REPL items go to the queue at once: join waits for
// the queue, and their callbacks (chat history, completed.marker) run
// before it returns. The last commits are pushed once more.
void wind_down(services::Gateway& gw, repl::Repl& pages, repl::Committer& committer, services::NodePage* node_page, services::Pusher* pusher,
               std::ostream& err) {
  if (node_page) services::stop_node_page(*node_page);
  if (gw.owned()) services::stop_owned_pages(*gw.owned());
  gw.worker().post([&pages, &committer] {
    pages.shutdown();
    committer.flush();
  });
  gw.worker().join();
  if (pusher) pusher->finish();
  err << "editgate: stopped\n";
}

}  // namespace

int run_serve(const ServeArgs& args, std::ostream& out, std::ostream& err) {
  // What the gateway and the REPL have to tell the person watching goes to
  // `err`, while this gateway runs; the stream is not theirs to keep.
  repl::set_log_sink([&err](std::string_view line) { err << "editgate: " << line << '\n' << std::flush; });
  struct Unhook {
    ~Unhook() { repl::set_log_sink({}); }
  } unhook;
  std::optional<Held> held = hold_workspace(args, err);
  if (!held) return 2;
  const std::string& root = held->places.root;
  services::Binding& binding = held->address.binding;
  const net::ip::address& ip = held->address.ip;
  services::StateDir& state = held->state;
  services::Worker& eng = *held->worker;

  net::io_context ioc{1};
  tcp::acceptor acceptor(ioc);
  if (!listen(acceptor, ip, args.port.value_or(services::default_port(held->places.id)), args, err)) return 2;
  binding.port = acceptor.local_endpoint().port();
  const std::string host = ip.is_v6() ? "[" + args.bind + "]" : args.bind;
  const std::string url = "http://" + host + ":" + std::to_string(binding.port) + "/";
  services::Gateway gw(binding, state.cookie(), eng, limits_of(args), held->places.id);
  gw.set_url(url);
  gw.set_cookie_file(state.path() + "/cookie");
  mcp::McpServer mcp(gw, ioc.get_executor());
  services::EventHub events(eng.executor());
  gw.set_events(&events);
  std::optional<std::unique_ptr<services::Pusher>> pusher = start_pusher(args, root, events, err);
  if (!pusher) return 2;
  gw.set_pusher(pusher->get());
  // The commit queue wakes the pusher after each commit (observer 0: none).
  Unfollow unpush{eng.commits(), *pusher ? eng.commits().after_each([p = pusher->get()](editgit::Repository&) {
    p->committed();
  }) : 0};

  // The live pages: their logs are written on the worker thread and
  // committed on the workspace's one commit queue, as the edit runs are.
  repl::Committer committer(eng.commits(), boost::asio::any_io_executor(eng.executor()));
  repl::Repl pages(eng.workspace(), committer, eng.executor(), repl_options_of(args, state));
  connect_pages(pages, eng, gw);
  Unfollow unfollow = follow(events, pages, gw, eng);

  // Agents that only read and write files: status and markers per page,
  // saves of the logs, and the inbox. All on the worker thread.
  repl::AgentFiles agent_files(held->places.agents);
  pages.set_files(&agent_files);
  eng.post([&pages] { pages.mark_interrupted(); });
  Watches watches = watch_folders(args, root, held->places.agents, gw, eng, pages, err);

  net::signal_set signals(ioc, SIGINT, SIGTERM);
  signals.async_wait([&gw](boost::system::error_code e, int) {
    if (!e) gw.request_stop();
  });
  Watchdog watchdog;
  net::steady_timer sweeper(ioc);
  std::shared_ptr<services::NodePage> node_page;
  // Its browser starts at the first page-open, not here.
  std::shared_ptr<services::OwnedPages> owned;
  if (args.browser) {
    owned = services::make_owned_pages(eng, pages, {args.browser_program, args.owned_pages, state.path() + "/browser.log",
                                                    url + "adapter.js?workspace=" + gw.workspace_id()});
    gw.set_owned(owned.get());
  }
  gw.on_stop([&] {
    net::post(ioc, [&] {
      err << "editgate: stopping\n";
      boost::system::error_code ignored;
      acceptor.close(ignored);
      signals.cancel(ignored);
      sweeper.cancel();
      gw.stop_connections();
      // A push op waiting on a silent remote would hold its connection open.
      if (*pusher) (*pusher)->stop();
      gw.worker().post([&] {
        watches.close();
        pages.shutdown();
      });
      if (node_page) services::stop_node_page(*node_page);
      if (owned) services::stop_owned_pages(*owned);
      watchdog.start(ioc, gw.limits().shutdown_grace);
    });
  });

  std::make_shared<listener>(ioc, acceptor, gw, mcp)->do_accept();
  sweep_sessions(sweeper, gw);
  print_banner(out, args, root, url, state.path(), ip);
  node_page = start_node(args, eng, pages, root, state.path(), err);
  gw.set_realms(services::realm_host(node_page.get()));  // before ioc.run(): no op has run yet
  print_joining(out, args, url, gw);
  // The port file last: a client that finds it finds a gateway that listens.
  if (auto p = state.publish(binding.port, url, server_json(gw, host, root)); !p) {
    err << "editgate serve: " << p.error().message << '\n';
    // The worker and its hooks (the events') end before what they point at.
    if (node_page) services::stop_node_page(*node_page);
    if (owned) services::stop_owned_pages(*owned);
    eng.join();
    return 2;
  }

  ioc.run();
  wind_down(gw, pages, committer, node_page.get(), pusher->get(), err);
  return 0;
}

}  // namespace gateway
