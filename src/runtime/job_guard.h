// Job-wide failure handling: a failing rank brings every rank down promptly, with the first
// error's message, and the shared segment is never left behind (design.md, "Processes").
//
// Three mechanisms, each covering what the others cannot:
//  1. failJob(): the failing rank publishes its error in the control block's abort flag,
//     waits (bounded) until its node peers have seen it, removes the segment and calls
//     MPI_Abort (which takes down ranks on other nodes too).
//  2. The watchdog thread of every rank: heartbeats (carrying the rank's progress counter,
//     shm::progressCount()); exits the rank (status 1, after printing the first error) when the
//     abort flag is set; on the leader and workers alike, fails the job when it can prove a
//     node peer is not coming back: its process is gone (kill -9, OOM killer), its heartbeat
//     thread has been silent for heartbeat_timeout_s (the whole process is not being
//     scheduled), or it is stalled: stopped by a signal or a debugger (/proc/<pid>/stat state
//     'T'/'t') for stall_timeout_s while its progress counter stood still. A peer that is
//     merely slow (a long GPU kernel, a long CPU update: state R/S/D, heartbeat fresh) is
//     never declared failed, so waits on peers need no deadline (shm/control_block.h).
//     Open MPI also tears the job down when a rank exits abnormally.
//  3. Signal handlers: SIGINT/SIGTERM/SIGHUP (mpirun forwards these; MPI_Abort sends SIGTERM)
//     and crash signals unlink the segment (shm_unlink is async-signal-safe) before exiting.
//     SIGUSR1 (the launcher's stop request, relayed by mpirun) and, once training is set up,
//     the first SIGTERM only request a graceful stop (stopRequested()); a SIGUSR1 after that
//     is the same request (ignored), a SIGTERM or SIGINT stops at once.
#pragma once

#include <mpi.h>

#include <atomic>
#include <string>
#include <thread>

#include "runtime/rank_context.h"
#include "shm/control_block.h"

namespace slidedp {

struct WatchdogOptions {
  double interval_s = 0.05;           // heartbeat and check period (seconds)
  double heartbeat_timeout_s = 30.0;  // a peer whose heartbeat thread is silent this long is hung
  double stall_timeout_s = 10.0;      // a peer stopped (state T/t) this long with no progress is
                                      // stalled
};

class JobGuard {
 public:
  /// Installs the signal handlers (once per process, first thing in main(), before the segment
  /// exists). From then on the first SIGUSR1 (what launcher/slidedp-run sends, through mpirun)
  /// only requests a graceful stop, start-up included: a training job agrees on it before step 1
  /// (it ends, nothing trained, nothing saved) and after every step (checkpoint, then exit).
  /// Also reads SLIDEDP_STOP_FILE and SLIDEDP_READY_FILE (set by the launcher).
  static void installSignalHandlers();
  /// The start-up self-check (no training): SIGUSR1 ends the process at once, as SIGTERM does.
  static void disableStopRequests();
  /// Training mode: the first SIGTERM, too, only requests a graceful stop (checked with
  /// stopRequested() at step boundaries: checkpoint, then exit); a second SIGTERM, or SIGINT,
  /// ends the process at once as before. A SIGUSR1 once a stop is requested is the same stop
  /// (a batch system's SIGTERM that reached the ranks and the launcher, which relays it as
  /// SIGUSR1), not a second one.
  static void enableGracefulStop();
  /// The steps have begun (the handler's message then promises a checkpoint).
  static void markStepsStarted();
  /// True once a graceful stop was requested on this rank: by a signal, or by the launcher's
  /// stop file ($SLIDEDP_STOP_FILE exists; the launcher creates it on its first stop signal, so
  /// a stop that comes before the ranks could receive a signal is not lost).
  static bool stopRequested();
  /// Collective on `world`, right after MPI_Init: once every rank has its handlers installed,
  /// world rank 0 creates $SLIDEDP_READY_FILE (the launcher sends SIGUSR1 only after that: a
  /// rank that has not installed its handler yet would be killed by it).
  static void noteRanksReady(MPI_Comm world);
  /// The exit status of a rank that ends on a configuration error every rank agreed on
  /// (`code`, e.g. 2), once its message is printed and MPI is finalized. Under
  /// launcher/slidedp-run on one node ($SLIDEDP_STATUS_FILE set) world rank 0 writes `code` to
  /// that file and every rank returns 0: mpirun then adds none of its banners ("Primary job
  /// terminated normally, but 1 process returned a non-zero exit code ...") below the error,
  /// and the launcher exits with the file's status. A rank 0 that cannot write the file
  /// returns `code` (mpirun's banner, the status kept). Without the file, or when its directory
  /// is not a running launcher's (no `owner` file there: a variable inherited by a job started
  /// otherwise): `code`.
  static int agreedExitStatus(int code, int world_rank);

  /// Liveness before the segment exists (start-up: reading the model and the data, sizing the
  /// state), when no heartbeat can be seen yet. Collective on `world`, every rank, once, right
  /// after MPI_Init: exchanges the pids of the ranks on this machine and starts a thread that
  /// ends the job (one message naming the rank, then exit 1: Open MPI ends the others) once one
  /// of them has been stopped (/proc state T or t: SIGSTOP, SIGTSTP, a debugger) for more than
  /// `stall_timeout_s` (> 0), as the watchdog of start() does later. Ranks that die need no
  /// watch: Open MPI ends the job when one exits. The lowest world rank that is not stopped
  /// reports; any other after twice the timeout. start() ends the watch.
  static void watchStartup(MPI_Comm world, double stall_timeout_s);
  /// Ends the start-up watch (idempotent; returns once its thread has stopped looking, at
  /// most ~1 s). Main thread.
  static void endStartupWatch();

  /// Remembers the segment name so signal handlers and failJob can unlink it.
  /// Call on every rank right after the segment is created or mapped; "" forgets it.
  static void setSegmentName(const std::string& name);

  /// Attaches this rank to the control block (pid, start time, heartbeat) and starts the
  /// watchdog thread. `ctx` and `control` must outlive stop().
  void start(const RankContext& ctx, const shm::ControlBlock& control,
             const WatchdogOptions& opts);
  /// Marks this rank detached (a normal exit) and joins the watchdog. Idempotent.
  void stop();
  ~JobGuard() { stop(); }

  /// Fails the whole job with `message`: publishes it (first error wins; a rank whose wait saw
  /// another rank's abort prints one "exits: rank N ended the job" line instead), waits until
  /// every live node peer has seen it (its watchdog has printed that line), at most 5 s,
  /// removes the segment, then MPI_Abort(world, exit_code).
  /// Never returns. Callable from any thread after MPI_Init.
  [[noreturn]] static void failJob(const RankContext* ctx, const shm::ControlBlock* control,
                                   const std::string& message, int exit_code = 1);

 private:
  void loop();
  const RankContext* ctx_ = nullptr;
  shm::ControlBlock control_;
  WatchdogOptions opts_;
  std::atomic<bool> running_{false};
  std::thread thread_;
};

}  // namespace slidedp
