// A worker (node-local rank 1..G): streams the model's units through a window of K slots,
// runs forward/backward with LibTorch (CPU tensors in a CPU run, one GPU in a CUDA run) and
// hands gradients to the leader chunk by chunk (design.md, "One training step", steps 1-3).
//
// Per step: the local rows' token count is summed over workers first (the loss is normalised
// by the GLOBAL count, agreed before backward). Forward: for each unit, wait until its version
// says the leader's previous update is visible, deliver it on the delivery route (src/routes/:
// replicated, or 1/G then an exchange between workers), run every micro-batch through it
// and keep either the layer's activations (model::LayerActivations) or only its input, by the
// activation policy: `auto` keeps layers in forward order while the GPU memory budget holds
// what they keep plus the reserve the head and backward need (estimated from the shapes at
// first, then measured: the peak above the end-of-forward level of the previous step). Head:
// final norm + LM head + chunked cross-entropy, forward and backward at once. Backward: units
// in reverse, delivered again, recomputed from the saved input unless kept, their gradient
// (summed over micro-batches in fp32) given to the reduction route (src/routes/: the whole
// gradient to this worker's staging sub-slot, or reduced among the workers first, then this
// worker's shard). The worker holds one delivery and one reduction object and no route-specific
// code. Hand-offs run on a separate thread (and copy stream on CUDA) so the next unit's backward
// overlaps them.
//
// Threading / rank contract: every worker of a node calls step() with the same step number,
// from one thread; collectives between workers (MPI, NCCL, the IPC routes' handshakes) are
// issued from that thread in the same order on every worker. Construction, setRunOptions() and
// destruction are collective over the workers (the routes' set-up and tear-down).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "model/config.h"
#include "model/param_layout.h"
#include "runtime/chunk_plan.h"
#include "runtime/host_state_layout.h"
#include "runtime/rank_context.h"
#include "runtime/train_options.h"
#include "shm/segment.h"

namespace slidedp {

/// A worker's rows of one global batch: row-major [rows, T] token ids and next-token labels
/// (-100 = ignored), int64.
struct LocalBatch {
  int64_t rows = 0;
  int64_t T = 0;
  std::vector<int64_t> input_ids;
  std::vector<int64_t> labels;
  std::vector<int64_t> position_ids;  // optional [rows, T]; resets mark packed documents
};

/// Wall-clock spans of one unit's backward on this worker (CLOCK_MONOTONIC ns).
struct UnitBackwardSpan {
  int unit = 0;
  uint64_t begin_ns = 0;
  uint64_t end_ns = 0;
};

/// A span of a worker's step for the Chrome trace: `thread` 0 = main (compute issue), 1 =
/// hand-off thread (CLOCK_MONOTONIC ns; on CUDA the main thread's spans are issue times).
struct TraceSpan {
  std::string name;
  int thread = 0;
  uint64_t begin_ns = 0, end_ns = 0;
};

struct WorkerStepStats {
  double loss_sum = 0;        // this worker's sum of token losses
  int64_t local_tokens = 0;   // this worker's unmasked targets
  int64_t global_tokens = 0;  // all workers'
  // Host wall time of the phases (CPU workers: the compute itself; CUDA: issue time).
  double forward_s = 0, head_s = 0, backward_s = 0;
  double delivery_wait_s = 0;  // waiting for layer versions (the leader's updates)
  double handoff_wait_s = 0;   // at the step's end, for the last hand-offs
  // Busy time per resource (CUDA: from events on each stream; CPU: host wall time).
  double compute_forward_s = 0, compute_head_s = 0, compute_backward_s = 0;
  double h2d_s = 0;            // deliveries (H2D copies + all-gathers), summed
  double d2h_s = 0;            // gradient hand-offs (D2H copies into staging), summed
  int kept_layers = 0;         // decoder layers whose activations were kept (not recomputed)
  int attention_output_layers = 0;  // decoder layers that kept only their attention output
  int offloaded_layers = 0;    // recomputed decoder layers whose input went to pinned host memory
  int64_t kept_bytes = 0;      // device bytes those kept activations held
  int64_t gpu_peak_bytes = 0;  // CUDA: peak bytes allocated by this worker during the step
  std::vector<UnitBackwardSpan> backward;
  std::vector<TraceSpan> trace;
};

class Worker {
 public:
  Worker(const RankContext& ctx, const shm::Segment& seg, const HostStateSpec& spec,
         const HostStateLayout& state, const model::ModelConfig& config,
         const model::ParamLayout& layout, const ChunkPlan& plan, const TrainOptions& opts);
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  /// One training step (1-based) on this worker's rows. Throws UserError for a batch that
  /// does not fit the model (token id >= V, T beyond the model), TimeoutError /
  /// JobAbortedError from the waits.
  WorkerStepStats step(int64_t step, const LocalBatch& batch);

  /// Held-out loss: forward only, through the same window and delivery route as step(), of
  /// the model after step `after_step` (every unit's version >= after_step; no gradient, no
  /// hand-off, the leader does nothing). Returns {sum of token losses (float32 softmax
  /// cross-entropy, as the training loss), unmasked targets} of this worker's rows.
  /// Collective over the node's workers like step() (the sharded route all-gathers). Throws
  /// UserError for a batch that does not fit the model.
  std::pair<double, int64_t> evaluate(int64_t after_step, const LocalBatch& batch);

  /// The run continues after step s0 (see Leader::setBaseStep).
  void setBaseStep(int64_t s0);

  /// Switches routes and activation offload between steps (see Trainer::setRunOptions).
  void setRunOptions(const TrainOptions& o);
  /// What keeps `o` from running on this worker's GPU before any activation, "" when nothing:
  /// --gradient-accumulation-steps' fp32 accumulators and the window above the GPU's memory
  /// or the budget (runtime/accumulator_fit.h). Always "" on CPU workers. Any thread; changes
  /// nothing (Trainer::checkRunOptions agrees it over the job).
  std::string runOptionsProblem(const TrainOptions& o) const;
  /// The chunk plan this worker was given changed between steps (another update tail:
  /// ChunkPlan::withTail): indexes the plan's chunks again and measures the GPU reserve again.
  /// Main thread, between steps, with no hand-off in flight (setRunOptions waited for them
  /// before the plan changed: Trainer::setRunOptions); asserts it.
  void planChanged();

 private:
  // step() under the torch profiler (TrainOptions::gpu_profile), GPU workers only.
  WorkerStepStats profiledStep(int64_t step, const LocalBatch& batch);
  // `path` with -w<worker> before the extension (--gpu-profile, --memory-snapshot), its
  // directory made; GPU workers only.
  std::string workerPath(const std::string& path, const std::string& default_ext) const;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace slidedp
