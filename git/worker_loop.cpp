#include "git/worker_loop.hpp"

#include <pthread.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace editgit {

void set_up_worker_thread(const char* name, int nice) {
  ::pthread_setname_np(::pthread_self(), name);
  // Linux: a thread's own nice value, for this thread alone.
  if (nice != 0) ::setpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid)), nice);
}

}  // namespace editgit
