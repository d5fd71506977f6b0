// Reduction routes: what a worker does with a unit's gradient before the hand-off thread writes
// it into the staging ring (design.md, "Routes"). One interface, one file per implementation,
// chosen once at set-up by routes/registry.h; the worker never knows which one runs:
//   cpu_reduction.cpp    the whole gradient into this worker's staging sub-slot; the leader sums G
//   mpi_reduction.cpp    CPU workers: MPI_Reduce_scatter_block; this worker's reduced shard
//   nccl_reduction.cpp   GPU workers: ncclReduceScatter; this worker's reduced shard
//   ipc_reduction.cpp    GPU workers: the peers' shards pulled with CUDA IPC peer copies (copy
//                        engines) and summed in one kernel; this worker's reduced shard
// The routes that reduce among the workers write the slot's single sub-slot 0, which the leader
// reads alone (leader.cpp: 1 sub-slot unless the reduction is `cpu`).
//
// Rank contract: every worker calls reduce() from its main thread for the same units in the same
// order (head, L..1, embedding), with the compute stream current.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include "routes/route_env.h"

#ifdef SLIDEDP_WITH_CUDA
#include <ATen/cuda/CUDAEvent.h>
#endif

namespace slidedp::routes {

/// A unit's gradient, as far as the workers reduce it, ready for the staging ring.
struct ReducedGradient {
  at::Tensor grad;     // contiguous [count], staging dtype, on the compute device
  int64_t offset = 0;  // element of the unit where grad[0] belongs
  int subslot = 0;     // staging sub-slot it is written to (HostStateLayout::stagingOffset)
#ifdef SLIDEDP_WITH_CUDA
  /// Set by a route whose work does not end on the current stream: grad is ready when this
  /// event has completed. Null: ready once the current stream's work queued so far completes.
  std::shared_ptr<at::cuda::CUDAEvent> ready;
#endif
};

class Reduction {
 public:
  virtual ~Reduction() = default;
  Reduction(const Reduction&) = delete;
  Reduction& operator=(const Reduction&) = delete;

  /// The route's name as the options spell it ("cpu", "gpu", "gpu-ipc").
  virtual const char* name() const = 0;
  /// Reduces unit u's gradient `grad_fp32` (contiguous fp32 [numel of u] on the compute device,
  /// summed over this worker's micro-batches; the caller may free it on return: GPU work reading
  /// it is ordered after the current stream or keeps it alive). Collective over the workers for
  /// the routes that reduce among them.
  virtual ReducedGradient reduce(int u, const at::Tensor& grad_fp32) = 0;
  /// Whether reduceBucket() applies: a gradient bucket (ChunkPlan::bucket_splits) can go to the
  /// leader before the rest of its unit's gradient exists (cpu, gpu); gpu-ipc's peer buffers
  /// are per unit, so its units go whole after the layer.
  virtual bool reducesBuckets() const { return false; }
  /// Reduces the part [offset, offset + part_fp32.numel()) of unit u's gradient (contiguous fp32
  /// on the compute device) as reduce() reduces a unit of that length (the gpu route: G shards
  /// of the part, this worker's at offset + its shard's start); only where reducesBuckets().
  /// Collective where reduce() is, called by every worker for the same parts in the same order.
  virtual ReducedGradient reduceBucket(int u, const at::Tensor& part_fp32, int64_t offset) {
    (void)u, (void)part_fp32, (void)offset;
    throw std::logic_error(std::string("reduction route ") + name() + " reduces whole units only");
  }
  /// Device bytes held outside LibTorch's caching allocator (IPC gradient buffers).
  virtual int64_t deviceBytes() const { return 0; }

 protected:
  explicit Reduction(const RouteEnv& env) : env_(env) {}
  RouteEnv env_;
};

}  // namespace slidedp::routes
