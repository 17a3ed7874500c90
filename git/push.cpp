// Repository::push: the workspace's branch to a remote, through libgit2's
// own transports, fast-forward only (the refspec has no '+').
#include "git/handle.hpp"
#include "git/repository.hpp"

#include <git2.h>

#include <string>

namespace editgit {

using namespace detail;

namespace {

using RemotePtr = Handle<git_remote, git_remote_free>;

// What the callbacks learn during one push.
struct Progress {
  bool negotiated = false;
  std::optional<git_oid> previous;  // the remote's branch before, as negotiation tells it
  bool sent = false;                // negotiation had an update to send
  std::string refused;              // the remote's own reason for refusing the ref
  int credential_attempts = 0;
};

int on_negotiation(const git_push_update** updates, size_t len, void* payload) {
  auto* p = static_cast<Progress*>(payload);
  p->negotiated = true;
  for (size_t i = 0; i < len; ++i) {
    // libgit2 lists the ref even when the remote has the commit already.
    if (!git_oid_equal(&updates[i]->src, &updates[i]->dst)) p->sent = true;
    if (!git_oid_is_zero(&updates[i]->src)) p->previous = updates[i]->src;
  }
  return 0;
}

int on_reference(const char* refname, const char* status, void* payload) {
  auto* p = static_cast<Progress*>(payload);
  if (status) p->refused = std::string(refname) + ": " + status;
  return 0;
}

// ssh: the keys of a running ssh-agent, offered once (libgit2 asks again
// after a refusal; a second offer would loop). Other kinds: libgit2's own
// (http(s) takes a user and password written in the URL).
int on_credentials(git_credential** out, const char*, const char* user_from_url, unsigned int allowed,
                   void* payload) {
  auto* p = static_cast<Progress*>(payload);
  if (!(allowed & GIT_CREDENTIAL_SSH_KEY) || p->credential_attempts++ > 0) return GIT_PASSTHROUGH;
  return git_credential_ssh_key_from_agent(out, user_from_url ? user_from_url : "git");
}

// The remote configured under `name`, or one made for a URL or path.
Result<RemotePtr> find_remote(git_repository* repo, const std::string& name) {
  git_remote* raw = nullptr;
  int rc = git_remote_lookup(&raw, repo, name.c_str());
  if (rc == GIT_ENOTFOUND || rc == GIT_EINVALIDSPEC) {
    if (name.find_first_of("/:") == std::string::npos)
      return Failure{Error::not_found, "no remote named '" + name + "' in the repository, and it is no URL or path"};
    rc = git_remote_create_anonymous(&raw, repo, name.c_str());
  }
  if (rc < 0) return failure(rc, "cannot use the remote " + name);
  return RemotePtr(raw);
}

// A failed git_remote_push as a named code, from libgit2's code and class
// (read at once, on this thread).
Failure push_failure(int rc, const std::string& remote, const std::string& ref) {
  const git_error* e = git_error_last();
  const int klass = e ? e->klass : GIT_ERROR_NONE;
  Failure f = failure(rc, "cannot push " + ref + " to " + remote);
  if (rc == GIT_ENONFASTFORWARD)
    f.code = Error::rejected;
  else if (klass == GIT_ERROR_NET || klass == GIT_ERROR_SSL || klass == GIT_ERROR_SSH ||
           klass == GIT_ERROR_HTTP || klass == GIT_ERROR_OS)
    f.code = Error::unreachable;
  return f;
}

}  // namespace

Result<Pushed> Repository::push(const PushRequest& request) {
  auto head = read_head(repo_);
  if (!head) return head.error();
  if (head->ref == "HEAD") return Failure{Error::invalid, "HEAD is detached: there is no branch to push"};
  if (!head->tip) return Failure{Error::not_found, head->ref + " has no commit yet: nothing to push"};
  auto remote = find_remote(repo_, request.remote);
  if (!remote) return remote.error();

  Progress progress;
  git_push_options options;
  git_push_options_init(&options, GIT_PUSH_OPTIONS_VERSION);
  options.callbacks.push_negotiation = on_negotiation;
  options.callbacks.push_update_reference = on_reference;
  options.callbacks.credentials = on_credentials;
  options.callbacks.payload = &progress;
  // Fast-forward only: no '+', so libgit2 and the remote refuse a branch
  // that moved on, and nothing of the remote's is ever overwritten.
  const std::string spec = head->ref + ":" + head->ref;
  char* specs[] = {const_cast<char*>(spec.c_str())};
  const git_strarray refspecs{specs, 1};
  if (int rc = git_remote_push(remote->get(), &refspecs, &options); rc < 0)
    return push_failure(rc, request.remote, head->ref);
  if (!progress.refused.empty())
    return Failure{Error::rejected, "the remote " + request.remote + " refused " + progress.refused};

  Pushed pushed;
  pushed.ref = head->ref;
  pushed.commit = hex(*head->tip);
  // No update negotiated: the remote's branch is this commit already.
  pushed.up_to_date = progress.negotiated ? !progress.sent : true;
  if (pushed.up_to_date) pushed.previous = pushed.commit;
  else if (progress.previous) pushed.previous = hex(*progress.previous);
  return pushed;
}

}  // namespace editgit
