// The host leader (node-local rank 0): owns the node's authoritative training state in the
// shared segment and turns gradient chunks into AdamW updates as soon as they arrive
// (design.md, "One training step", step 4).
//
// Per chunk of the ChunkPlan, in hand-off order: wait until every worker has published its
// contribution (chunk_ready counters), run one fused pass over it (sum of G staging slots on
// the CPU route, the single reduced copy on the GPU route; AdamW; FP32 master, m, v and the
// bf16 delivery copy written once), release the staging slot (chunk_consumed counters), and
// after a unit's last chunk publish the unit's new version, which is what the workers' next
// forward waits for. Exact global-norm clipping needs every gradient before any update: the
// leader then first reduces every chunk into a full fp32 gradient region (norm fused), agrees
// the clip coefficient, and only then updates (the documented cost: no update overlaps the
// backward, and one more pass over the gradient).
//
// Several nodes (design.md, "Several nodes"): what crosses nodes, and which elements of a chunk
// this leader updates, is the NodeLayout's (leader/node_layout.h: replicated or sharded); the
// step below is the same for every layout.
//
// Threading: one thread (the leader's main thread) calls step(); the optimizer engine runs its
// OpenMP team inside each pass. No LibTorch here.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "formats/checkpoint.h"
#include "leader/embedding_split.h"
#include "model/config.h"
#include "model/param_layout.h"
#include "optim/adamw.h"
#include "leader/node_layout.h"
#include "runtime/chunk_plan.h"
#include "runtime/host_state_layout.h"
#include "runtime/node_shards.h"
#include "runtime/rank_context.h"
#include "runtime/train_options.h"
#include "shm/segment.h"

namespace slidedp {

/// One unit's update, for timelines and the overlap test (CLOCK_MONOTONIC ns).
struct UnitUpdateSpan {
  int unit = 0;
  uint64_t begin_ns = 0;  // first chunk's pass started
  uint64_t end_ns = 0;    // version published
};

struct LeaderStepStats {
  int64_t step = 0;
  double grad_norm = 0;      // global L2 norm of the (loss-normalised) gradient, before clipping
  double clip_coef = 1;      // applied scale (1 when not clipped)
  double lr = 0;
  double wait_s = 0;         // waiting for chunks
  double reduce_update_s = 0;  // fused passes
  double checkpoint_wait_s = 0;  // waiting for the checkpoint writer before updating a unit
  std::vector<UnitUpdateSpan> units;
};

class Leader {
 public:
  /// `seg` must have been created with HostStateLayout::build(spec); `layout` gives the units;
  /// `shards` this node's parts of the chunks (NodeShards::build(plan, N, node) when sharded
  /// across N nodes, else (plan, 1, 0)); opts.node_layout picks the layout when N > 1.
  Leader(const RankContext& ctx, const shm::Segment& seg, const HostStateSpec& spec,
         const HostStateLayout& state, const model::ParamLayout& layout, const ChunkPlan& plan,
         const NodeShards& shards, const TrainOptions& opts);
  ~Leader();

  /// Reads a Hugging Face checkpoint straight into the FP32 master regions (mmap, no second
  /// copy), zeroes m and v, writes the bf16 copy, first-touching pages with the optimizer's
  /// thread partition. Sharded across nodes: unit by unit through one unit-sized fp32 buffer,
  /// keeping this node's parts and writing the whole delivery copy. Throws UserError on a bad
  /// checkpoint.
  void loadCheckpoint(const std::string& dir, const model::ModelConfig& config);

  /// Random initialisation as transformers' _init_weights does for Llama-family models:
  /// linear and embedding weights ~ Normal(0, initializer_range from the config, default
  /// 0.02), RMSNorm weights 1, biases 0; m = v = 0; the bf16 copy written. Deterministic in
  /// `seed` and independent of the thread count (a counter-based generator per element).
  void initRandom(const model::ModelConfig& config, uint64_t seed);

  /// Resumes from a checkpoint's optimizer.safetensors (master/exp_avg/exp_avg_sq per unit,
  /// written by stateTensors()): exact FP32 state; the bf16 copy is derived again. Sharded
  /// across nodes: this node's file of parts, and the delivery copy completed by all-gathers
  /// (collective over ctx.leaders). Throws UserError naming the file when a tensor is missing
  /// or has another size.
  void loadState(const std::string& optimizer_file);
  /// The tensors of a checkpoint: "unit{u}.master", "unit{u}.exp_avg", "unit{u}.exp_avg_sq",
  /// fp32 [elements of unit u this node holds: its numel, or its owned part when sharded
  /// across nodes], pointing into the segment (no copy).
  std::vector<formats::TensorToWrite> stateTensors() const;
  /// The whole FP32 master of unit u ([layout.units[u].numel]) on node 0's leader (empty
  /// elsewhere): a copy of master(u), or, sharded across nodes, every node's parts gathered.
  /// Collective over ctx.leaders (every leader, the same u).
  std::vector<float> gatherMaster(int unit) const;
  /// The layout across nodes ("one node", "replicated", "sharded").
  const char* nodeLayoutName() const { return node_layout_->name(); }
  /// The run continues after step `s0` (0: a fresh run): layer versions are published as s0,
  /// and staging-ring sequence numbers count from step s0 + 1.
  void setBaseStep(int64_t s0);

  /// Switches routes and clipping between steps (see Trainer::setRunOptions).
  void setRunOptions(const TrainOptions& o) {
    opts_.delivery = o.delivery;
    opts_.reduction = o.reduction;
    opts_.max_grad_norm = o.max_grad_norm;
  }
  /// The chunk plan this leader was given changed between steps (another update tail:
  /// ChunkPlan::withTail, one node): indexes its chunks again. Main thread, between steps.
  void planChanged() { indexPlan(); }

  /// Called before the first update of each unit in a step, with the unit; returns the seconds
  /// it blocked. The trainer's streamed checkpoint (train/checkpoint_stream.h) waits there until
  /// the unit's state of the previous step is written. Empty: no wait. Leader's main thread.
  using UpdateGate = std::function<double(int unit)>;
  void setUpdateGate(UpdateGate gate) { gate_ = std::move(gate); }

  /// Work for the time the leader would wait for a gradient: called before such a wait, and
  /// again while it returns true and the gradient is not in yet; each call should return within
  /// ~100 ms (the gradient waits meanwhile). The trainer's streamed checkpoint copies the next
  /// unit's state into staging there (CheckpointStream::stageNext), so fewer copies are left
  /// for the update gate, and the O_DIRECT write's copy (CheckpointStream::pumpIdle, true for
  /// as long as that write runs: the work returns false once the job is aborted). Leader's
  /// main thread. Empty: none.
  using IdleWork = std::function<bool()>;
  void setIdleWork(IdleWork work) { idle_ = std::move(work); }

  /// Runs optimizer step `step` (1-based) as the workers' gradients arrive; returns when every
  /// unit's new version is published. Throws TimeoutError / JobAbortedError from the waits.
  /// `agree` (may be empty): called once, on this thread, just before the leader waits for the
  /// embedding's last hand-off (ChunkPlan::embeddingLastPassStart), when the workers' backward
  /// is over and only the update tail's layers are left; the trainer agrees on the step there
  /// (Trainer::step, early agreement), so the workers start the next forward while this step's
  /// tail is updated. Its time is in neither wait_s nor reduce_update_s.
  LeaderStepStats step(int64_t step, const std::function<void()>& agree = {});

  /// FP32 master weights of unit u: [layout.units[u].numel], or this node's part of it
  /// ([shards.owned_numels[u]], NodeShards order) when sharded across nodes.
  float* master(int unit) const;
  float* expAvg(int unit) const;
  float* expAvgSq(int unit) const;
  /// The whole bf16 copy of unit u; nullptr when the segment has none (sharded, fp32 compute).
  uint16_t* bf16Copy(int unit) const;
  const optim::Engine& engine() const { return engine_; }

 private:
  struct DecaySpan {
    int64_t begin, end;  // elements within the unit
    double weight_decay;
  };
  optim::GradView gradView(int slot, const void** ptrs) const;
  // dst[e] = the slots of `grad` summed (optim::slotSum), e < n: the clipping region's gradient.
  void reduceSlots(float* dst, const optim::GradView& grad, int64_t n) const;
  /// The fused AdamW pass over owned part `p` of unit `unit` (state `st` at p.begin).
  void updateRange(int unit, const OwnedPart& p, const OwnedState& st, const optim::GradView& grad,
                   float grad_scale, int64_t step, double lr, double* norm_sq);
  /// Sharded across nodes: keeps this node's parts of the whole fp32 unit `full` in the master
  /// and writes the whole delivery copy from it.
  void storeWholeUnit(int unit, const float* full);
  optim::StepConstants constants(double weight_decay, float grad_scale, int64_t step, double lr) const;
  optim::ChunkState unitState(int u) const;  // unit u's master, m, v, bf16 copy (one node)
  // One chunk of the row-split embedding update (ChunkPass kEmbeddingDense / kEmbeddingTokens).
  void embeddingChunk(const Chunk& c, const optim::GradView& grad, int64_t step, double lr,
                      bool clip, double* norm_sq);
  bool sharded() const { return state_.sharded; }
  /// unit_chunks_ from plan_.
  void indexPlan();

  const RankContext& ctx_;
  const shm::Segment& seg_;
  HostStateSpec spec_;
  const HostStateLayout& state_;
  const model::ParamLayout& layout_;
  const ChunkPlan& plan_;
  const NodeShards& shards_;
  TrainOptions opts_;
  optim::Engine engine_;
  std::unique_ptr<NodeLayout> node_layout_;
  std::vector<std::vector<int64_t>> unit_chunks_;  // [unit]: chunk indices of the plan, each
                                                   // range once (no kEmbeddingDense chunk)
  std::vector<std::vector<DecaySpan>> decay_;  // per unit
  std::unique_ptr<EmbeddingRowSplit> split_;   // the row-split embedding update, when planned
  int num_workers_ = 0;
  int64_t base_step_ = 0;
  UpdateGate gate_;
  IdleWork idle_;
};

}  // namespace slidedp
