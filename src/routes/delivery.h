// Delivery routes: how a unit's parameters reach a worker's window slot (design.md, "Routes").
// One interface, one file per implementation, chosen once at set-up by routes/registry.h; the
// worker calls deliver()/use()/release() and never knows which route runs:
//   replicated_delivery.cpp    every worker copies the whole unit from the segment (H2D or memcpy)
//   sharded_mpi_delivery.cpp   CPU workers: 1/G from the segment, then MPI_Allgather
//   sharded_nccl_delivery.cpp  GPU workers: 1/G H2D, then ncclAllGather (SM kernels)
//   sharded_ipc_delivery.cpp   GPU workers: 1/G H2D, then CUDA IPC peer copies (copy engines)
//
// A route's fill() reads the unit from host memory with copyUnitRange(): from the segment's
// delivery copy, or, fully sharded across nodes (RouteEnv::node_gather), from a host buffer the
// range's chunks were first all-gathered into from every node's parts (routes/node_gather.h;
// pinned, one per slot, on GPU workers).
//
// The window is K slots of RouteEnv::window_numel elements of the compute dtype (and the
// resident slot K of RouteEnv::resident_numel, when there is one), owned by the
// delivery (the IPC route allocates it with cudaMalloc and exports it to its peers). deliver() is
// the template every route shares: the slot's previous compute must be done (release), then the
// route's fill() copies the unit in, then the slot is marked ready for use(). On GPU workers all
// of it is asynchronous on the delivery's copy stream; on CPU workers it is synchronous.
//
// Rank contract: every worker calls deliver() from its main thread with the same (unit, slot)
// sequence (the sharded routes pair their exchanges by order); use()/release() from the same
// thread, with the compute stream current.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "routes/route_env.h"

#ifdef SLIDEDP_WITH_CUDA
#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDAStream.h>

#include <optional>
#endif

namespace slidedp::routes {

class Delivery {
 public:
  virtual ~Delivery();
  Delivery(const Delivery&) = delete;
  Delivery& operator=(const Delivery&) = delete;

  /// The route's name as the options spell it ("replicated", "sharded", "sharded-ipc").
  virtual const char* name() const = 0;

  /// Copies unit u (its version already checked by the caller) into window slot `slot` and
  /// returns the slot's [numel] view (compute dtype). GPU: asynchronous on the copy stream, after
  /// the compute released the slot; the compute stream waits for it in use(). CPU: done on return.
  at::Tensor deliver(int u, int slot);
  /// Unit u's [numel] view of slot `slot`, which still holds it from an earlier deliver() of
  /// this step (since the last beginStep(); a slot that holds u from an earlier step is an
  /// internal error: its weights would be a version behind). No copy; every worker calls it
  /// where the others do, as deliver().
  at::Tensor held(int u, int slot) const;
  /// Makes the compute (current) stream wait for slot `slot`'s delivery (no-op on CPU).
  void use(int slot);
  /// Marks slot `slot` free once the compute queued so far on the current stream is done.
  void release(int slot);

  /// Starts a step's busy-time account.
  void beginStep();
  /// Seconds the deliveries of this step kept their resource busy: GPU, summed from events on
  /// the copy stream (waits for them); CPU, the wall time of the copies and collectives.
  double busySeconds();
  /// Device bytes the route holds outside LibTorch's caching allocator (IPC slots), so the
  /// worker's memory budget sees them.
  virtual int64_t deviceBytes() const { return 0; }

 protected:
  /// `allocate_window`: false when the route provides window_ itself (before the first deliver).
  Delivery(const RouteEnv& env, bool allocate_window);

  /// The route's part of deliver(): bring unit u (`numel` elements) into window_[slot]. GPU: on
  /// copyStream() (current when called; the slot's previous compute is already waited for).
  virtual void fill(int u, int slot) = 0;

  /// Copies elements [b, e) of unit u from host memory to `dst` (device, or host for CPU
  /// workers; asynchronous on the copy stream on GPU workers): from the unit's span of the
  /// segment's delivery region (the FP32 master or whole fp32 copy for fp32 compute, see
  /// deliveryRegion; or the bf16 copy), or, fully sharded across nodes, after all-gathering the
  /// range's chunks from every node (collective: every worker of this index on every node asks
  /// for the same range). At most once per fill().
  void copyUnitRange(void* dst, int u, int64_t b, int64_t e);
  /// Element size of the compute dtype, in bytes.
  size_t elementSize() const { return es_; }
  /// Copies `bytes` from the segment to the device (or host, for CPU workers) at `dst`: H2D on
  /// the copy stream, or memcpy.
  void copyFromHost(void* dst, const void* src, size_t bytes);

  RouteEnv env_;
  std::vector<at::Tensor> window_;  // env_.slots() slots of env_.slotNumel(k) elements
  std::vector<int> slot_unit_;      // per slot: the unit last delivered into it (-1: none)
  std::vector<int64_t> slot_step_;  // per slot: step_ at that delivery
  int64_t step_ = 0;                // beginStep() calls so far
#ifdef SLIDEDP_WITH_CUDA
  c10::cuda::CUDAStream copyStream() const { return *copy_stream_; }
#endif

 private:
  /// This node's span of unit u in the segment's delivery region (the whole unit unless the
  /// copy is sharded across nodes).
  const char* localCopy(int u) const;

  size_t es_ = 4;
  double cpu_busy_s_ = 0;
  // node_gather: host buffers (one on CPU workers; one per slot, pinned, on GPU workers), grown
  // to the largest span gathered; the slot being filled and whether its range was copied.
  std::vector<at::Tensor> gathered_;
  int filling_slot_ = -1;
  bool range_copied_ = false;
#ifdef SLIDEDP_WITH_CUDA
  std::optional<c10::cuda::CUDAStream> copy_stream_;
  std::vector<std::shared_ptr<at::cuda::CUDAEvent>> slot_ready_, slot_free_;
  // (begin, end) timing events of this step's deliveries, on the copy stream.
  std::vector<std::pair<std::shared_ptr<at::cuda::CUDAEvent>, std::shared_ptr<at::cuda::CUDAEvent>>>
      events_;
#endif
};

}  // namespace slidedp::routes
