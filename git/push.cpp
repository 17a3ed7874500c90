// Repository::push: the workspace's branch to a remote, through libgit2's
// own transports, fast-forward only (the refspec has no '+').
#include "git/handle.hpp"
#include "git/redact.hpp"
#include "git/repository.hpp"

#include <git2.h>

#include <string>
#include <utility>

namespace editgit {

using namespace detail;

namespace {

using RemotePtr = Handle<git_remote, git_remote_free>;

// What the callbacks are given and learn during one push.
struct Progress {
  explicit Progress(const PushRequest& r) : request(r) {}
  const PushRequest& request;
  std::string branch;  // the branch pushed: `previous` and `sent` are its
  bool negotiated = false;
  std::optional<git_oid> previous;  // the remote's branch before, as negotiation tells it
  bool sent = false;                // negotiation had an update to send
  std::string refused;              // the remote's own reason for refusing the ref
  bool offered_password = false, offered_agent = false;
};

void alive(Progress& p) {
  if (p.request.alive) p.request.alive();
}

int on_pack_progress(int, uint32_t, uint32_t, void* payload) {
  alive(*static_cast<Progress*>(payload));
  return 0;
}

int on_transfer_progress(unsigned int, unsigned int, size_t, void* payload) {
  alive(*static_cast<Progress*>(payload));
  return 0;
}

int on_sideband(const char*, int, void* payload) {
  alive(*static_cast<Progress*>(payload));
  return 0;
}

int on_negotiation(const git_push_update** updates, size_t len, void* payload) {
  auto* p = static_cast<Progress*>(payload);
  p->negotiated = true;
  for (size_t i = 0; i < len; ++i) {
    if (p->branch != updates[i]->dst_refname) continue;  // the refs pushed with it say nothing of the branch
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

// libgit2 presents a user and password written in the URL first, then asks
// here. http(s): the request's user name and password; ssh: the keys of a
// running ssh-agent. Each offered once: libgit2 asks again after a refusal,
// and a second offer would loop; declining ends the push with GIT_EAUTH.
int on_credentials(git_credential** out, const char*, const char* user_from_url, unsigned int allowed,
                   void* payload) {
  auto* p = static_cast<Progress*>(payload);
  const PushRequest& r = p->request;
  if ((allowed & GIT_CREDENTIAL_USERPASS_PLAINTEXT) && !(r.username.empty() && r.password.empty())) {
    if (std::exchange(p->offered_password, true)) return GIT_PASSTHROUGH;
    const std::string user = !r.username.empty() ? r.username : user_from_url ? user_from_url : "";
    return git_credential_userpass_plaintext_new(out, user.c_str(), r.password.c_str());
  }
  if ((allowed & GIT_CREDENTIAL_SSH_KEY) && !std::exchange(p->offered_agent, true))
    return git_credential_ssh_key_from_agent(out, user_from_url ? user_from_url : "git");
  return GIT_PASSTHROUGH;
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
// (read at once, on this thread), its message free of credentials.
Failure push_failure(int rc, const Progress& p, const std::string& ref) {
  const git_error* e = git_error_last();
  const int klass = e ? e->klass : GIT_ERROR_NONE;
  const std::string what = "cannot push " + ref + " to " + p.request.remote;
  Failure f = failure(rc, what);
  if (rc == GIT_EAUTH) {
    // libgit2's own words ("no callback set") would mislead: say what was offered.
    f.code = Error::unauthorized;
    f.message = what + (p.offered_password || p.offered_agent
                            ? ": the remote refused the credentials offered"
                            : ": the remote asks for credentials and has none it accepts (the URL's, if any): set "
                              "EDITGATE_PUSH_USERNAME and EDITGATE_PUSH_PASSWORD, or use ssh with a running "
                              "ssh-agent");
  } else if (rc == GIT_ENONFASTFORWARD) {
    f.code = Error::rejected;
  } else if (klass == GIT_ERROR_NET || klass == GIT_ERROR_SSL || klass == GIT_ERROR_SSH ||
             klass == GIT_ERROR_HTTP || klass == GIT_ERROR_OS) {
    f.code = Error::unreachable;
  }
  f.message = redact_urls(f.message);
  return f;
}

}  // namespace

Result<Pushed> Repository::push(const PushRequest& request) {
  if (auto started = init_network(); !started) return started.error();
  auto head = read_head(repo_);
  if (!head) return head.error();
  if (head->ref == "HEAD") return Failure{Error::invalid, "HEAD is detached: there is no branch to push"};
  if (!head->tip) return Failure{Error::not_found, head->ref + " has no commit yet: nothing to push"};
  auto remote = find_remote(repo_, request.remote);
  if (!remote) return Failure{remote.error().code, redact_urls(remote.error().message)};

  Progress progress(request);
  progress.branch = head->ref;
  git_push_options options;
  git_push_options_init(&options, GIT_PUSH_OPTIONS_VERSION);
  options.callbacks.push_negotiation = on_negotiation;
  options.callbacks.push_update_reference = on_reference;
  options.callbacks.credentials = on_credentials;
  options.callbacks.pack_progress = on_pack_progress;
  options.callbacks.push_transfer_progress = on_transfer_progress;
  options.callbacks.sideband_progress = on_sideband;
  options.callbacks.payload = &progress;
  // Fast-forward only: no '+', so libgit2 and the remote refuse a branch
  // that moved on, and nothing of the remote's is ever overwritten.
  const std::string spec = head->ref + ":" + head->ref;
  char* specs[] = {const_cast<char*>(spec.c_str())};
  const git_strarray refspecs{specs, 1};
  if (int rc = git_remote_push(remote->get(), &refspecs, &options); rc < 0)
    return push_failure(rc, progress, head->ref);
  if (!progress.refused.empty())
    return Failure{Error::rejected, redact_urls("the remote " + request.remote + " refused " + progress.refused)};

  // The refs that go with the branch, in a push of their own: one the
  // remote refuses (it has commits this one lacks, or takes no such ref)
  // never holds the branch back, and is reported beside it.
  std::vector<std::string> also;
  std::string also_error;
  for (const std::string& ref : request.also) {
    auto side = read_ref(repo_, ref);
    if (!side) return side.error();
    if (!side->tip) continue;
    Progress side_progress(request);
    side_progress.branch = ref;
    options.callbacks.payload = &side_progress;
    const std::string side_spec = ref + ":" + ref;
    char* side_specs[] = {const_cast<char*>(side_spec.c_str())};
    const git_strarray side_refspecs{side_specs, 1};
    if (int rc = git_remote_push(remote->get(), &side_refspecs, &options); rc < 0)
      also_error = push_failure(rc, side_progress, ref).message;
    else if (!side_progress.refused.empty())
      also_error = redact_urls("the remote " + request.remote + " refused " + side_progress.refused);
    else
      also.push_back(ref);
  }

  Pushed pushed;
  pushed.ref = head->ref;
  pushed.commit = hex(*head->tip);
  pushed.also = std::move(also);
  pushed.also_error = std::move(also_error);
  // No update negotiated: the remote's branch is this commit already.
  pushed.up_to_date = progress.negotiated ? !progress.sent : true;
  if (pushed.up_to_date) pushed.previous = pushed.commit;
  else if (progress.previous) pushed.previous = hex(*progress.previous);
  return pushed;
}

}  // namespace editgit
