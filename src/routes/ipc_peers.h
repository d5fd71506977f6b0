// The CUDA IPC plumbing both IPC routes share (sharded_ipc_delivery.cpp, ipc_reduction.cpp): one
// device allocation per worker exported to every peer, interprocess events, and host counters in
// MPI shared memory that order the cross-process event handshake.
//
// Why the counters: cudaStreamWaitEvent on an event opened from another process waits for the
// most recent record of it *visible when the wait is called*; a wait issued before the owner has
// called cudaEventRecord for this use would wait for an older record (or none) and race. So every
// record is published on the host: the owner records event i on its stream, then stores the use
// count into its counter i (release); a peer waits on the host until the counter reaches the use
// it needs (acquire), and only then calls cudaStreamWaitEvent. The host waits are on issue order,
// not on GPU completion, so they last microseconds; they are bounded, and end early on the job's
// abort flag (shm::ControlBlock::waitAtLeast).
//
// Everything is set up once, collectively over the workers, and torn down collectively: the
// destructor synchronises the device and meets the other workers in a barrier before it unmaps
// and frees, so no peer copy can still be reading a buffer being freed. When destroyed during
// stack unwinding (an error), it frees nothing and calls no collective: the job is aborting.
#pragma once

#include <mpi.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "routes/route_env.h"
#include "shm/control_block.h"

namespace slidedp::routes {

class IpcPeers {
 public:
  /// Collective over env.ctx->node_workers. Checks that every worker is on this host and that every
  /// pair of GPUs is the same GPU or has peer access (cudaDeviceCanAccessPeer); otherwise throws
  /// UserError on every worker alike, naming `route`. Then allocates `bytes` on this worker's
  /// GPU with cudaMalloc (a base allocation, as IPC needs), `num_events` events with
  /// cudaEventInterprocess | cudaEventDisableTiming and `num_counters` host counters per worker
  /// (zero), and exchanges the handles over MPI.
  IpcPeers(const RouteEnv& env, size_t bytes, int num_events, int num_counters, const char* route);
  ~IpcPeers();
  IpcPeers(const IpcPeers&) = delete;
  IpcPeers& operator=(const IpcPeers&) = delete;

  /// Worker p's allocation, mapped in this process (p == this worker: its own).
  char* buffer(int p) const { return buffers_[p]; }
  /// Worker p's event i (opened in this process).
  cudaEvent_t event(int p, int i) const { return events_[p * num_events_ + i]; }
  /// Worker p's counter i.
  shm::PaddedCounter& counter(int p, int i) const { return counters_[p * num_counters_ + i]; }
  /// Records this worker's event `ev` on `stream`, then publishes `use` in its counter `c`
  /// (uses count from 1 and only grow; a counter may serve several events recorded in turn).
  void recordAndPublish(int c, int ev, uint64_t use, cudaStream_t stream) const;
  /// Waits on the host until worker p's counter `c` is >= use (p has recorded its event `ev` for
  /// that use), then makes `stream` wait for that record. Throws TimeoutError / JobAbortedError.
  void waitRecorded(int p, int c, int ev, uint64_t use, cudaStream_t stream, const char* what) const;
  size_t bytes() const { return bytes_; }

 private:
  RouteEnv env_;
  size_t bytes_ = 0;
  int num_events_ = 0, num_counters_ = 0;
  std::vector<char*> buffers_;
  std::vector<cudaEvent_t> events_;  // [worker][event]
  MPI_Comm comm_ = MPI_COMM_NULL;    // the workers of this host (= all workers)
  MPI_Win win_ = MPI_WIN_NULL;
  shm::PaddedCounter* counters_ = nullptr;  // [worker][counter], in win_'s shared memory
};

}  // namespace slidedp::routes
