// Helper threads off the initial thread's core (see thread_placement.h).
#include "common/thread_placement.h"

#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <vector>

#include <fmt/format.h>

namespace slidedp {

bool useAllRankCores() {
  const int places = omp_get_num_places();
  if (places <= 0) return true;  // nothing bound: threads inherit the process's mask
  cpu_set_t set;
  CPU_ZERO(&set);
  int cpus = 0;
  for (int p = 0; p < places; ++p) {
    std::vector<int> ids(static_cast<size_t>(omp_get_place_num_procs(p)));
    if (ids.empty()) continue;
    omp_get_place_proc_ids(p, ids.data());
    for (int id : ids)
      if (id >= 0 && id < CPU_SETSIZE) CPU_SET(id, &set), ++cpus;
  }
  if (cpus == 0) return false;
  return pthread_setaffinity_np(pthread_self(), sizeof(set), &set) == 0;
}

void lowerThreadPriority() {
  sched_param none{};
  none.sched_priority = 0;
  if (pthread_setschedparam(pthread_self(), SCHED_IDLE, &none) == 0) return;
  ::setpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid)), 19);  // failure: as is
}

std::string leaderCpuWarning(int allowed, int online, int workers) {
  if (2 * allowed >= online - workers) return "";
  return fmt::format("the leader may run on {} of this node's {} CPUs (its CPU affinity), so its AdamW "
                     "update runs on {} thread(s); mpirun binds each rank to one core by default when it "
                     "starts 2 ranks or fewer.\nHINT: start the job with launcher/slidedp-run (it places "
                     "the leader and the workers), or give mpirun --bind-to none",
                     allowed, online, allowed);
}

}  // namespace slidedp
