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
#pragma once

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
  /// Installs the signal handlers (once per process, before the segment exists).
  static void installSignalHandlers();
  /// Training mode: the first SIGTERM or SIGUSR1 only requests a graceful stop (checked with
  /// stopRequested() at step boundaries: checkpoint, then exit); a second SIGTERM, or SIGINT,
  /// ends the process at once as before.
  static void enableGracefulStop();
  /// True once a graceful stop was requested on this rank.
  static bool stopRequested();

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

  /// Fails the whole job with `message`: publishes it (first error wins), waits up to
  /// 2 s for node peers to see it, removes the segment, then MPI_Abort(world, exit_code).
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
