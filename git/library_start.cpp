// libgit2's start: what every command that opens a repository needs, and the
// network part (TLS, SSH) only when a push needs it
// (docs/decisions/command-line.md, "Start-up cost").
#include "git/handle.hpp"

#include <mutex>

#ifdef EDITGATE_GIT2_WRAPPED
// The linker sends libgit2's own calls to these two (-Wl,--wrap, set in
// git/CMakeLists.txt when libgit2 is linked statically), so git_libgit2_init
// neither parses the system's CA certificates for mbedTLS nor starts libssh2's
// crypto; init_network runs the real ones.
extern "C" {
int __real_git_mbedtls_stream_global_init(void);
int __real_git_transport_ssh_global_init(void);
int __wrap_git_mbedtls_stream_global_init(void) { return 0; }
int __wrap_git_transport_ssh_global_init(void) { return 0; }
}
#endif

namespace editgit::detail {

void init_library() {
  static const bool done = [] {
    git_libgit2_init();
    git_libgit2_opts(GIT_OPT_SET_CACHE_OBJECT_LIMIT, GIT_OBJECT_TREE, static_cast<std::size_t>(4) << 20);
    // Every commit makes new trees, and all are cached: at libgit2's default
    // 256 MiB (counted raw; parsed, about twice that) a gateway committing
    // 1,000 logs grew by 500 MB in 10 minutes. A few recent trees are enough.
    git_libgit2_opts(GIT_OPT_SET_CACHE_MAX_SIZE, static_cast<ssize_t>(32) << 20);
    return true;
  }();
  (void)done;
}

Result<void> init_network() {
  init_library();
#ifdef EDITGATE_GIT2_WRAPPED
  static std::mutex m;
  static bool tls = false, ssh = false;
  const std::lock_guard lock(m);
  if (!tls && __real_git_mbedtls_stream_global_init() < 0) return failure(-1, "cannot start TLS");
  tls = true;
  if (!ssh && __real_git_transport_ssh_global_init() < 0) return failure(-1, "cannot start SSH");
  ssh = true;
#endif
  return {};
}

}  // namespace editgit::detail
