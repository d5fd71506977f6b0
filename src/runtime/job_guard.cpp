#include "runtime/job_guard.h"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "common/log.h"
#include "common/thread_placement.h"
#include "shm/segment.h"

namespace slidedp {

namespace {
// Written before the handlers can need it, read inside them: plain storage, no allocation.
char g_shm_path[256] = {0};  // "/name" as shm_unlink takes it
volatile sig_atomic_t g_world_rank = -1;
volatile sig_atomic_t g_local_rank = -1;     // node-local rank from the launcher's environment
volatile sig_atomic_t g_usr1_stop = 1;       // 1: the first SIGUSR1 requests a stop
volatile sig_atomic_t g_graceful = 0;        // 1: the first SIGTERM requests a stop too
volatile sig_atomic_t g_steps_started = 0;   // 1: a stop checkpoints at the end of the step
volatile sig_atomic_t g_stop_requested = 0;
volatile sig_atomic_t g_stop_signal = 0;     // the signal that requested the stop
// The node's control block while the guard runs (JobGuard::start .. stop): a SIGTERM that comes
// after a rank published the job's failure is mpirun ending the job, not a stop request.
std::atomic<const shm::ControlBlock*> g_abort_view{nullptr};
char g_stop_file[512] = {0};   // $SLIDEDP_STOP_FILE: its existence requests a stop
char g_ready_file[512] = {0};  // $SLIDEDP_READY_FILE: rank 0 creates it once all ranks are up
char g_status_file[512] = {0};  // $SLIDEDP_STATUS_FILE: rank 0 writes an agreed error's status
char g_stop_now_file[512] = {0};  // beside the stop file: the launcher's "stop at once" (2nd signal)

void copyEnv(const char* name, char* out, size_t size) {
  const char* v = std::getenv(name);
  if (v != nullptr && std::strlen(v) < size) std::strcpy(out, v);
}

void unlinkSegmentNoThrow() {
  if (g_shm_path[0] != '\0') shm_unlink(g_shm_path);
}

void writeStderr(const char* s) {
  ssize_t rc = write(STDERR_FILENO, s, strlen(s));
  (void)rc;
}

// A rank that exits because another ended the job says so once, whichever of its threads saw
// it first (the watchdog, or the main thread's wait through failJob).
std::atomic<bool> g_ended_by_line_written{false};
void writeEndedBy(const std::string& who, int abort_rank) {
  if (g_ended_by_line_written.exchange(true)) return;
  const std::string msg =
      fmt::format("slidedp: {} exits: rank {} ended the job (it printed why, once)\n", who, abort_rank);
  writeStderr(msg.c_str());
}

// Waits until every live, attached node peer other than `mine` has seen the abort (its
// abort_seen, set once it has printed why it exits), at most `seconds`. Whoever exits first makes
// mpirun end the others (a non-zero exit, or MPI_Abort), so no rank leaves before its node peers
// have had their say. Normally one watchdog period (~0.05 s); only a peer that is alive, attached
// and silent (stopped, starved of CPU) holds it to the end.
void waitForPeersToSeeAbort(const shm::ControlBlock& control, uint32_t mine, double seconds) {
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::microseconds(static_cast<int64_t>(seconds * 1e6));
  while (std::chrono::steady_clock::now() < deadline) {
    bool all = true;
    for (uint32_t r = 0; r < control.numRanks() && all; ++r) {
      if (r == mine) continue;
      const shm::RankSlot& p = control.rank(r);
      if (p.state.load() == static_cast<uint32_t>(shm::RankState::kAttached) &&
          p.abort_seen.load() == 0 && shm::processAlive(p.pid.load(), p.start_time.load()))
        all = false;
    }
    if (all) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}
// 2 s was too short on a loaded 2-core machine (CI: 5 ranks busy-polling in MPI_Barrier).
constexpr double kPeersSeeAbortS = 5.0;

// The watchdog's way out, once this rank has printed why it exits: marks that (abort_seen),
// waits for the live node peers to have printed theirs (this exit makes mpirun end them),
// removes the segment and exits 1.
[[noreturn]] void exitAfterNodePeers(const shm::ControlBlock& control, uint32_t mine) {
  control.rank(mine).abort_seen.store(1, std::memory_order_release);
  waitForPeersToSeeAbort(control, mine, kPeersSeeAbortS);
  unlinkSegmentNoThrow();
  _exit(1);
}

void onTerminate(int sig) {
  // SIGUSR1 is only ever a stop request (launcher/slidedp-run relays one per stop; its "stop at
  // once" is SIGTERM): a second one is the same request, e.g. a batch system's SIGTERM reached
  // the ranks and the launcher together, and the launcher relayed its own.
  if (sig == SIGUSR1 && g_usr1_stop && g_stop_requested) return;
  // And under the launcher a SIGTERM after its relayed SIGUSR1 is that batch system's SIGTERM
  // come later, unless the launcher asked to stop at once (its second signal: the stop-now file).
  if (sig == SIGTERM && g_stop_requested && g_stop_signal == SIGUSR1 && g_stop_now_file[0] != '\0' &&
      access(g_stop_now_file, F_OK) != 0)
    return;
  if (((sig == SIGUSR1 && g_usr1_stop) || (sig == SIGTERM && g_graceful)) && !g_stop_requested) {
    g_stop_requested = 1;
    g_stop_signal = sig;
    // The job is failing (a rank published its error; mpirun's SIGTERM ends the others): no
    // "checkpointing at the end of this step", which would not happen. An atomic load of the
    // shared segment: async-signal-safe.
    const shm::ControlBlock* c = g_abort_view.load(std::memory_order_acquire);
    if (c != nullptr && c->aborted()) return;
    // Said once: not at all when launcher/slidedp-run relayed the stop (it created the stop
    // file and printed its own line), else by the first rank of the node to get the signal
    // (mpirun forwards it to every rank); before the segment exists and after the steps, by
    // the node's local rank 0 (the leader). access() and the atomic exchange are
    // async-signal-safe.
    if (g_stop_file[0] != '\0' && access(g_stop_file, F_OK) == 0) return;
    if (c != nullptr ? !c->claimStopAnnouncement() : g_local_rank > 0) return;
    writeStderr(g_steps_started
                    ? "slidedp: stop requested (signal): checkpointing at the end of this step; "
                      "send SIGTERM again to stop at once\n"
                    : "slidedp: stop requested (signal) during start-up: the job ends before "
                      "step 1; send SIGTERM again to stop at once\n");
    return;
  }
  unlinkSegmentNoThrow();
  char msg[256];
  // snprintf is not async-signal-safe in general; build the text by hand.
  const char* name = sig == SIGINT    ? "SIGINT"
                     : sig == SIGTERM ? "SIGTERM"
                     : sig == SIGUSR1 ? "SIGUSR1"
                                      : "SIGHUP";
  strcpy(msg, "slidedp: caught ");
  strcat(msg, name);
  // mpirun sends SIGTERM to the other ranks when one rank exits: say so, not only "a stop"
  strcat(msg, sig == SIGTERM ? " (a stop at once, or mpirun ending the job after another rank's "
                               "exit: see that rank's message above)" : "");
  strcat(msg, ", shared segment removed, exiting\n");
  writeStderr(msg);
  _exit(128 + sig);
}

void onCrash(int sig) {
  unlinkSegmentNoThrow();
  signal(sig, SIG_DFL);
  raise(sig);
}
}  // namespace

void JobGuard::installSignalHandlers() {
  copyEnv("SLIDEDP_STOP_FILE", g_stop_file, sizeof(g_stop_file));
  copyEnv("SLIDEDP_READY_FILE", g_ready_file, sizeof(g_ready_file));
  copyEnv("SLIDEDP_STATUS_FILE", g_status_file, sizeof(g_status_file));
  if (const char* slash = std::strrchr(g_stop_file, '/'); slash != nullptr &&
      static_cast<size_t>(slash - g_stop_file) + sizeof("/stop-now") <= sizeof(g_stop_now_file)) {
    std::memcpy(g_stop_now_file, g_stop_file, static_cast<size_t>(slash - g_stop_file));
    std::strcat(g_stop_now_file, "/stop-now");
  }
  for (const char* v : {"OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID", "PMIX_LOCAL_RANK"})
    if (const char* s = std::getenv(v)) {
      g_local_rank = std::atoi(s);
      break;
    }
  struct sigaction sa {};
  sa.sa_handler = onTerminate;
  sa.sa_flags = SA_RESTART;  // a graceful-stop request must not break blocking calls
  sigemptyset(&sa.sa_mask);
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGUSR1}) sigaction(s, &sa, nullptr);
  struct sigaction crash {};
  crash.sa_handler = onCrash;
  sigemptyset(&crash.sa_mask);
  crash.sa_flags = SA_RESETHAND;
  for (int s : {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL}) sigaction(s, &crash, nullptr);
}

void JobGuard::disableStopRequests() {
  g_usr1_stop = 0;
  g_stop_file[0] = '\0';
}
void JobGuard::enableGracefulStop() { g_graceful = 1; }
void JobGuard::markStepsStarted() { g_steps_started = 1; }
bool JobGuard::stopRequested() {
  return g_stop_requested != 0 || (g_stop_file[0] != '\0' && access(g_stop_file, F_OK) == 0);
}

void JobGuard::noteRanksReady(MPI_Comm world) {
  // The handlers are installed before MPI_Init: once every rank has entered this barrier, a
  // SIGUSR1 no longer kills any of them.
  MPI_Barrier(world);
  int rank = 0;
  MPI_Comm_rank(world, &rank);
  if (rank == 0 && g_ready_file[0] != '\0')
    if (FILE* f = std::fopen(g_ready_file, "w")) std::fclose(f);
}

int JobGuard::agreedExitStatus(int code, int world_rank) {
  if (code == 0 || g_status_file[0] == '\0') return code;
  // Only into a running launcher's control directory (its `owner` file names its pid; the
  // directory is removed when it ends, and left by one killed outright): a variable inherited by
  // a job started otherwise keeps the status.
  std::string owner = g_status_file;
  owner = owner.substr(0, owner.find_last_of('/') + 1) + "owner";
  long launcher = 0;
  if (FILE* f = std::fopen(owner.c_str(), "r")) {
    if (std::fscanf(f, "%ld", &launcher) != 1) launcher = 0;
    std::fclose(f);
  }
  if (launcher <= 0 || kill(static_cast<pid_t>(launcher), 0) != 0) return code;
  if (world_rank != 0) return 0;  // rank 0 reports the job's status (or exits with it)
  FILE* f = std::fopen(g_status_file, "w");
  if (f == nullptr) return code;
  const bool written = std::fprintf(f, "%d\n", code) > 0;
  return std::fclose(f) == 0 && written ? 0 : code;
}

namespace {
std::atomic<bool> g_startup_watch_stop{false};
std::atomic<bool> g_startup_watch_running{false};
}  // namespace

void JobGuard::watchStartup(MPI_Comm world, double stall_timeout_s) {
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int n = 0, me = 0;
  MPI_Comm_size(node, &n);
  MPI_Comm_rank(world, &me);
  const int64_t mine[3] = {me, static_cast<int64_t>(getpid()),
                           static_cast<int64_t>(shm::processStartTime(getpid()))};
  std::vector<int64_t> all(static_cast<size_t>(3 * n));
  MPI_Allgather(mine, 3, MPI_INT64_T, all.data(), 3, MPI_INT64_T, node);
  MPI_Comm_free(&node);
  struct Peer {
    int rank;
    int64_t pid;
    uint64_t start_time;
    uint64_t stopped_since_ns;  // 0: not stopped
    char state;                 // this pass's /proc state ('\0': gone)
  };
  std::vector<Peer> peers;
  for (int i = 0; i < n; ++i)
    if (all[3 * i] != me)
      peers.push_back({static_cast<int>(all[3 * i]), all[3 * i + 1], static_cast<uint64_t>(all[3 * i + 2]), 0, '\0'});
  if (peers.empty()) return;
  g_startup_watch_stop.store(false);
  g_startup_watch_running.store(true);
  // Detached: a path that forgets endStartupWatch() cannot leave a joinable thread at exit.
  std::thread([peers, me, stall_timeout_s]() mutable {
    while (!g_startup_watch_stop.load()) {
      const uint64_t now = shm::monotonicNs();
      for (Peer& p : peers) {
        p.state = shm::processAlive(p.pid, p.start_time) ? shm::processState(p.pid) : '\0';
        if (p.state == 'T' || p.state == 't') {
          if (p.stopped_since_ns == 0) p.stopped_since_ns = now;
        } else {
          p.stopped_since_ns = 0;
        }
      }
      bool lowest = true;  // of the ranks here that are not stopped
      for (const Peer& p : peers)
        if (p.rank < me && p.stopped_since_ns == 0 && p.state != '\0') lowest = false;
      for (const Peer& p : peers) {
        const double s = p.stopped_since_ns ? (now - p.stopped_since_ns) * 1e-9 : 0.0;
        if (s <= stall_timeout_s || (!lowest && s <= 2 * stall_timeout_s) || g_startup_watch_stop.load()) continue;
        const char state = p.state;
        const std::string msg = fmt::format(
            "slidedp: rank {} detected a failure during start-up: rank {} (pid {}) has been stopped "
            "(state '{}': {}) for {:.1f} s (--stall-timeout {:.0f} s); the job ends.\nHINT: something "
            "sent it SIGSTOP/SIGTSTP or a debugger holds it; raise --stall-timeout to debug a rank\n",
            me, p.rank, p.pid, state, state == 't' ? "stopped by a debugger" : "stopped by a signal", s,
            stall_timeout_s);
        writeStderr(msg.c_str());
        unlinkSegmentNoThrow();
        _exit(1);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    g_startup_watch_running.store(false);
  }).detach();
}

void JobGuard::endStartupWatch() {
  g_startup_watch_stop.store(true);
  for (int i = 0; i < 100 && g_startup_watch_running.load(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
}

void JobGuard::setSegmentName(const std::string& name) {
  std::string path = name.empty() ? "" : "/" + name;
  if (path.size() >= sizeof(g_shm_path)) path.resize(sizeof(g_shm_path) - 1);
  std::memset(g_shm_path, 0, sizeof(g_shm_path));
  std::memcpy(g_shm_path, path.data(), path.size());
}

void JobGuard::start(const RankContext& ctx, const shm::ControlBlock& control,
                     const WatchdogOptions& opts) {
  endStartupWatch();  // the segment's watchdog takes over
  ctx_ = &ctx;
  control_ = control;
  opts_ = opts;
  g_world_rank = ctx.world_rank;
  shm::RankSlot& me = control_.rank(static_cast<uint32_t>(ctx.local_rank));
  me.world_rank.store(ctx.world_rank, std::memory_order_relaxed);
  me.pid.store(getpid(), std::memory_order_relaxed);
  me.start_time.store(shm::processStartTime(getpid()), std::memory_order_relaxed);
  me.heartbeat_ns.store(shm::monotonicNs(), std::memory_order_relaxed);
  me.state.store(static_cast<uint32_t>(shm::RankState::kAttached), std::memory_order_release);
  running_ = true;
  g_abort_view.store(&control_, std::memory_order_release);
  thread_ = std::thread([this] { loop(); });
}

void JobGuard::stop() {
  if (!running_.exchange(false)) return;
  g_abort_view.store(nullptr, std::memory_order_release);
  if (thread_.joinable()) thread_.join();
  control_.rank(static_cast<uint32_t>(ctx_->local_rank))
      .state.store(static_cast<uint32_t>(shm::RankState::kDetached), std::memory_order_release);
}

void JobGuard::loop() {
  useAllRankCores();  // not on the core of the leader's team thread 0 (common/thread_placement.h)
  const uint32_t mine = static_cast<uint32_t>(ctx_->local_rank);
  const auto period = std::chrono::microseconds(static_cast<int64_t>(opts_.interval_s * 1e6));
  // Per peer: since when it has been seen stopped (0: running), and its progress then.
  struct Stopped {
    uint64_t since_ns = 0;
    uint64_t progress = 0;
  };
  std::vector<Stopped> stopped(control_.numRanks());
  while (running_.load()) {
    const uint64_t now = shm::monotonicNs();
    control_.rank(mine).progress.store(shm::progressCount(), std::memory_order_relaxed);
    control_.rank(mine).heartbeat_ns.store(now, std::memory_order_release);
    if (control_.aborted() && control_.abortRank() != ctx_->world_rank) {
      // The error itself is printed once, by the rank that failed (failJob). This line goes out
      // before abort_seen: the failing rank waits for every peer's abort_seen, then exits, and
      // mpirun's SIGTERM would otherwise cut the line off.
      writeEndedBy(ctx_->describe(), control_.abortRank());
      exitAfterNodePeers(control_, mine);
    }
    // Once this rank has failed the job itself, peers going down is expected.
    const bool failed_by_me = control_.aborted() && control_.abortRank() == ctx_->world_rank;
    for (uint32_t r = 0; r < control_.numRanks() && !failed_by_me; ++r) {
      if (r == mine) continue;
      const shm::RankSlot& peer = control_.rank(r);
      if (peer.state.load(std::memory_order_acquire) !=
          static_cast<uint32_t>(shm::RankState::kAttached)) {
        stopped[r] = Stopped{};
        continue;
      }
      const int64_t pid = peer.pid.load(std::memory_order_relaxed);
      std::string problem;
      bool stalled = false;
      if (!shm::processAlive(pid, peer.start_time.load(std::memory_order_relaxed))) {
        if (peer.state.load(std::memory_order_acquire) !=
            static_cast<uint32_t>(shm::RankState::kAttached))
          continue;  // detached normally in the meantime
        problem = fmt::format("rank {} (node {}, local rank {}, pid {}) died without detaching "
                              "(killed, crashed or out of memory)",
                              peer.world_rank.load(), ctx_->node_id, r, pid);
      } else {
        const uint64_t hb = peer.heartbeat_ns.load(std::memory_order_acquire);
        const uint64_t progress = peer.progress.load(std::memory_order_relaxed);
        const double silent_s = now > hb ? (now - hb) * 1e-9 : 0.0;
        const char state = shm::processState(pid);
        if (state == 'T' || state == 't') {
          if (stopped[r].since_ns == 0 || progress != stopped[r].progress)
            stopped[r] = Stopped{now, progress};
        } else {
          stopped[r] = Stopped{};
        }
        const double stopped_s = stopped[r].since_ns ? (now - stopped[r].since_ns) * 1e-9 : 0.0;
        if (stopped[r].since_ns != 0 && stopped_s > opts_.stall_timeout_s) {
          stalled = true;
          problem = fmt::format(
              "rank {} (node {}, local rank {}, pid {}) is stalled: its process has been stopped "
              "(state '{}': {}) for {:.1f} s with its progress counter at {} (--stall-timeout "
              "{:.0f} s). HINT: something sent it SIGSTOP/SIGTSTP or a debugger holds it; raise "
              "--stall-timeout to debug a rank",
              peer.world_rank.load(), ctx_->node_id, r, pid, state,
              state == 'T' ? "stopped by a signal" : "stopped by a debugger", stopped_s,
              progress, opts_.stall_timeout_s);
        } else if (silent_s > opts_.heartbeat_timeout_s) {
          problem = fmt::format("rank {} (node {}, local rank {}, pid {}) sent no heartbeat for "
                                "{:.1f} s (--heartbeat-timeout {:.0f} s): its process is not "
                                "being scheduled (stopped or hung)",
                                peer.world_rank.load(), ctx_->node_id, r, pid, silent_s,
                                opts_.heartbeat_timeout_s);
        }
      }
      if (!problem.empty()) {
        // The watchdog cannot unwind the main thread; report and leave. Open MPI ends the
        // remaining ranks when this one exits non-zero, and node peers see the flag.
        control_.setAbort(ctx_->world_rank, problem);
        const std::string msg =
            fmt::format("slidedp: {} detected a failure: {}\n", ctx_->describe(), problem);
        writeStderr(msg.c_str());
        // A stopped peer cannot see the abort flag: continue it, so its own watchdog prints
        // the first error and exits (a rank held by a debugger stays for mpirun to kill).
        if (stalled) kill(static_cast<pid_t>(pid), SIGCONT);
        exitAfterNodePeers(control_, mine);
      }
    }
    std::this_thread::sleep_for(period);
  }
}

void JobGuard::failJob(const RankContext* ctx, const shm::ControlBlock* control,
                       const std::string& message, int exit_code) {
  const std::string who = ctx ? ctx->describe() : std::string("rank ?");
  const std::string line = fmt::format("slidedp: {} failed: {}\n", who, message);
  // Printed once per distinct error: when every rank hits the same one (a bad batch seen by
  // every worker), or fails because of it (a wait that saw the abort), only the first to
  // publish it prints it.
  const bool first = control == nullptr || ctx == nullptr ||
                     control->setAbort(ctx->world_rank, message) ||
                     message.find(control->abortMessage()) == std::string::npos;
  if (first) {
    writeStderr(line.c_str());
    if (control != nullptr && ctx != nullptr)  // printed: node peers need not wait for it
      control->rank(static_cast<uint32_t>(ctx->local_rank)).abort_seen.store(1, std::memory_order_release);
  } else if (control->abortRank() != ctx->world_rank) {
    // A wait that saw another rank's abort: say why this rank exits, as the watchdog would.
    writeEndedBy(who, control->abortRank());
    control->rank(static_cast<uint32_t>(ctx->local_rank)).abort_seen.store(1, std::memory_order_release);
  }
  if (control != nullptr && ctx != nullptr) {
    waitForPeersToSeeAbort(*control, static_cast<uint32_t>(ctx->local_rank), kPeersSeeAbortS);
  }
  unlinkSegmentNoThrow();
  std::fflush(stdout);
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, exit_code);
  _exit(exit_code);
}

}  // namespace slidedp
