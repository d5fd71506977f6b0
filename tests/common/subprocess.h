// Subprocess helpers of the system tests: start a command in its own process group with
// its output in a log file, wait for it with a deadline (killing the group on timeout), and
// read the rank pids a slidedp_worker --pid-file wrote.
#pragma once

#include "common/fixtures.h"  // sharedDir, stories

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "shm/segment.h"

extern char** environ;

namespace slidedp::test {
using namespace std::chrono;


/// A started command. If a test ends (e.g. a failed ASSERT) before wait() reaped it, the
/// destructor ends its whole process group, so no job outlives its test.
struct Proc {
  pid_t pid = -1;
  std::string log;
  steady_clock::time_point started;

  Proc() = default;
  Proc(const Proc&) = delete;
  Proc& operator=(const Proc&) = delete;
  Proc(Proc&& o) noexcept : pid(o.pid), log(std::move(o.log)), started(o.started) { o.pid = -1; }
  ~Proc() {
    if (pid <= 0) return;
    kill(-pid, SIGTERM);
    std::this_thread::sleep_for(milliseconds(500));
    kill(-pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
  }
};

struct Result {
  int exit_code = -1;  // exit status, or 128+signal
  std::string output;
  double seconds = 0;
};

/// How many times `what` occurs in `s` (overlapping occurrences counted): "said once" checks.
inline int countOccurrences(const std::string& s, const std::string& what) {
  int n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

inline std::string readFile(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

/// Starts `args` in its own process group, stdout+stderr to a log file.
inline Proc start(const std::vector<std::string>& args) {
  static int counter = 0;
  Proc p;
  p.log = fmt::format("/tmp/slidedp-systest-{}-{}.log", getpid(), counter++);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, p.log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  posix_spawnattr_t at;
  posix_spawnattr_init(&at);
  posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&at, 0);
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  p.started = steady_clock::now();
  EXPECT_EQ(posix_spawnp(&p.pid, argv[0], &fa, &at, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&at);
  return p;
}

/// Waits for `p` up to `timeout_s`; on timeout kills its process group and fails the test.
inline Result wait(Proc& p, double timeout_s = 120) {
  Result r;
  int status = 0;
  for (;;) {
    const pid_t w = waitpid(p.pid, &status, WNOHANG);
    if (w == p.pid) break;
    if (duration<double>(steady_clock::now() - p.started).count() > timeout_s) {
      kill(-p.pid, SIGKILL);
      waitpid(p.pid, &status, 0);
      ADD_FAILURE() << "timed out after " << timeout_s << " s:\n" << readFile(p.log);
      break;
    }
    std::this_thread::sleep_for(milliseconds(10));
  }
  r.seconds = duration<double>(steady_clock::now() - p.started).count();
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.output = readFile(p.log);
  p.pid = -1;  // reaped
  std::remove(p.log.c_str());
  return r;
}

inline Result wait(Proc&& p, double timeout_s = 120) { return wait(p, timeout_s); }

/// World rank -> pid from a --pid-file, once all `np` ranks have written.
inline std::vector<pid_t> waitForPids(const std::string& file, int np, double timeout_s = 60) {
  const auto until = steady_clock::now() + milliseconds(static_cast<int>(timeout_s * 1000));
  while (steady_clock::now() < until) {
    std::ifstream f(file);
    std::vector<pid_t> pids(np, 0);
    int rank, pid, seen = 0;
    while (f >> rank >> pid)
      if (rank >= 0 && rank < np && !pids[rank]) pids[rank] = pid, ++seen;
    if (seen == np) return pids;
    std::this_thread::sleep_for(milliseconds(20));
  }
  ADD_FAILURE() << "ranks did not all start";
  return {};
}

/// Waits until none of `pids` is a live process (zombies count as gone); true if that
/// happened within `timeout_s`. mpirun can return a moment before the last rank has exited.
inline bool waitAllGone(const std::vector<pid_t>& pids, double timeout_s = 10) {
  const auto until = steady_clock::now() + milliseconds(static_cast<int>(timeout_s * 1000));
  for (;;) {
    bool any = false;
    for (pid_t pid : pids) any = any || slidedp::shm::processAlive(pid, 0);
    if (!any) return true;
    if (steady_clock::now() > until) return false;
    std::this_thread::sleep_for(milliseconds(10));
  }
}

inline void waitUntilExists(const std::string& name, double timeout_s = 60) {
  const auto until = steady_clock::now() + milliseconds(static_cast<int>(timeout_s * 1000));
  while (!slidedp::shm::Segment::exists(name) && steady_clock::now() < until)
    std::this_thread::sleep_for(milliseconds(10));
  ASSERT_TRUE(slidedp::shm::Segment::exists(name));
}


/// Whether `text` appears in p's log within timeout_s seconds (polled every 20 ms).
inline bool waitForText(const Proc& p, const std::string& text, double timeout_s) {
  const auto until = steady_clock::now() + milliseconds(static_cast<int>(timeout_s * 1000));
  while (steady_clock::now() < until) {
    if (readFile(p.log).find(text) != std::string::npos) return true;
    std::this_thread::sleep_for(milliseconds(20));
  }
  return false;
}

/// What killNineDuringTraining saw: the job's result and the seconds from the kill until every
/// rank was gone (< 0: nothing was killed; the failure is already reported).
struct KillNineResult {
  Result job;
  double seconds = -1;
};

/// kill -9 of one rank of a training job: starts `job` (a command line that trains for many
/// steps) with --shm-name NAME --pid-file /tmp/NAME.pids appended, waits for its `ranks` pids and
/// for "step 3/", SIGKILLs rank `victim` and waits for the job. Expects every rank gone within
/// 10 s and a failed job (gtest failures otherwise); the caller checks what is left behind.
inline KillNineResult killNineDuringTraining(std::vector<std::string> job, const std::string& name,
                                             int ranks, int victim) {
  const std::string pids_file = "/tmp/" + name + ".pids";
  std::remove(pids_file.c_str());
  job.insert(job.end(), {"--shm-name", name, "--pid-file", pids_file});
  Proc p = start(job);
  KillNineResult out;
  const auto pids = waitForPids(pids_file, ranks);
  if (pids.size() != static_cast<size_t>(ranks)) {
    ADD_FAILURE() << "expected " << ranks << " rank pids, got " << pids.size();
    out.job = wait(p, 60);
    return out;
  }
  if (!waitForText(p, "step 3/", 120)) {
    ADD_FAILURE() << "the job never reached step 3:\n" << readFile(p.log);
    out.job = wait(p, 60);
    return out;
  }
  const auto t0 = steady_clock::now();
  kill(pids[victim], SIGKILL);
  out.job = wait(p, 60);
  EXPECT_TRUE(waitAllGone(pids, 10)) << "a rank outlived the job by 10 s";
  out.seconds = duration<double>(steady_clock::now() - t0).count();
  EXPECT_LT(out.seconds, 10.0) << out.job.output;
  EXPECT_NE(out.job.exit_code, 0);
  std::remove(pids_file.c_str());
  return out;
}

}  // namespace slidedp::test
