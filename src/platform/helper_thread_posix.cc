#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include "platform/helper_thread.h"

namespace cudnnup {

void keep_off_this_cpu(std::thread& thread) {
#ifdef __linux__
  // Every CPU the thread may use (its creator's set, inherited) but the one the caller is on.
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  const int here = sched_getcpu();
  if (here >= 0 && here < CPU_SETSIZE && pthread_getaffinity_np(thread.native_handle(), sizeof allowed, &allowed) == 0 &&
      CPU_ISSET(here, &allowed) && CPU_COUNT(&allowed) > 1) {
    CPU_CLR(here, &allowed);
    (void)pthread_setaffinity_np(thread.native_handle(), sizeof allowed, &allowed);
  }
#else
  (void)thread;
#endif
}

void allow_every_cpu() {
#ifdef __linux__
  // The main thread's id is the process id; its set is the one the process was started with.
  cpu_set_t process;
  CPU_ZERO(&process);
  if (sched_getaffinity(getpid(), sizeof process, &process) == 0) (void)sched_setaffinity(0, sizeof process, &process);
#endif
}

}  // namespace cudnnup
