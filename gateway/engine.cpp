#include "gateway/engine.hpp"

namespace editgate {

Result<std::unique_ptr<Engine>> Engine::open(const std::string& root) {
  auto ws = editproto::Workspace::open(root);
  if (!ws) return Failure{Error::io, ws.error().detail};
  auto repo = editgit::Repository::open(ws->root());
  if (!repo) return Failure{Error::io, repo.error().message};
  if (auto ex = repo->exclude(".editgate/"); !ex) return Failure{Error::io, ex.error().message};
  // The registry of connected pages is a live view, not history.
  if (auto ex = repo->exclude("/" + repo->prefix() + "debug.md"); !ex) return Failure{Error::io, ex.error().message};
  return std::unique_ptr<Engine>(new Engine(std::move(*ws), std::move(*repo)));
}

Engine::Engine(editproto::Workspace ws, editgit::Repository repo)
    : ws_(std::move(ws)), repo_(std::move(repo)), guard_(ctx_.get_executor()), thread_([this] { ctx_.run(); }) {}

Engine::~Engine() { join(); }

void Engine::join() {
  guard_.reset();
  if (thread_.joinable()) thread_.join();
}

}  // namespace editgate
