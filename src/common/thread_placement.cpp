// Helper threads off the initial thread's core (see thread_placement.h).
#include "common/thread_placement.h"

#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace slidedp {

namespace {
// The CPUs of every OpenMP place (0 CPUs: no places).
cpu_set_t placeCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int p = 0; p < omp_get_num_places(); ++p) {
    std::vector<int> ids(static_cast<size_t>(omp_get_place_num_procs(p)));
    if (ids.empty()) continue;
    omp_get_place_proc_ids(p, ids.data());
    for (int id : ids)
      if (id >= 0 && id < CPU_SETSIZE) CPU_SET(id, &set);
  }
  return set;
}
}  // namespace

bool useAllRankCores() {
  if (omp_get_num_places() <= 0) return true;  // nothing bound: threads inherit the process's mask
  const cpu_set_t set = placeCpus();
  if (CPU_COUNT(&set) == 0) return false;
  return pthread_setaffinity_np(pthread_self(), sizeof(set), &set) == 0;
}

int rankCpuCount() {
  if (omp_get_num_places() > 0) {
    const cpu_set_t set = placeCpus();
    if (const int n = CPU_COUNT(&set); n > 0) return n;
  }
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return CPU_COUNT(&set);
  return static_cast<int>(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
}

void lowerThreadPriority() {
  sched_param none{};
  none.sched_priority = 0;
  if (pthread_setschedparam(pthread_self(), SCHED_IDLE, &none) == 0) return;
  ::setpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid)), 19);  // failure: as is
}

int cpuListCount(const std::string& list) {
  int n = 0;
  size_t i = 0;
  auto number = [&](long* out) {
    const size_t b = i;
    while (i < list.size() && std::isdigit(static_cast<unsigned char>(list[i]))) ++i;
    if (i == b || i - b > 9) return false;
    *out = std::stol(list.substr(b, i - b));
    return true;
  };
  while (i < list.size() && list[i] != '\n') {
    long a = 0, b = 0;
    if (!number(&a)) return 0;
    b = a;
    if (i < list.size() && list[i] == '-') {
      ++i;
      if (!number(&b) || b < a) return 0;
    }
    n += static_cast<int>(b - a + 1);
    if (i < list.size() && list[i] == ',') ++i;
    else if (i < list.size() && list[i] != '\n') return 0;
  }
  return n;
}

int nodeCpuCount() {
  // /proc/self/cgroup: "0::/path" (v2) or "N:cpuset:/path" (v1).
  std::ifstream cg("/proc/self/cgroup");
  for (std::string line; std::getline(cg, line);) {
    const size_t c1 = line.find(':'), c2 = c1 == std::string::npos ? c1 : line.find(':', c1 + 1);
    if (c2 == std::string::npos) continue;
    const std::string controllers = line.substr(c1 + 1, c2 - c1 - 1), path = line.substr(c2 + 1);
    std::vector<std::string> files;
    if (controllers.empty()) files = {"/sys/fs/cgroup" + path + "/cpuset.cpus.effective"};
    else if (controllers.find("cpuset") != std::string::npos)
      files = {"/sys/fs/cgroup/cpuset" + path + "/cpuset.effective_cpus",
               "/sys/fs/cgroup/cpuset" + path + "/cpuset.cpus"};
    for (const std::string& f : files) {
      std::ifstream in(f);
      std::string list;
      if (std::getline(in, list))
        if (const int n = cpuListCount(list); n > 0) return n;
    }
  }
  return static_cast<int>(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
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
