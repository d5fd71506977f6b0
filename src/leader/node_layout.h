// The state layout across nodes, as the leader sees it (design.md, "Several nodes"): one
// interface, one file per implementation, chosen once at set-up; the leader's step never knows
// which one runs.
//   node_layout.cpp             one node: the staged gradient goes straight into the fused pass
//   node_layout_replicated.cpp  N nodes, each with the whole state: the node's gradient chunk is
//                               summed over its G staging sub-slots, MPI_Allreduce'd over the
//                               leaders, and every leader runs the same update
//   node_layout_sharded.cpp     N nodes, node p owns part p of every chunk (runtime/node_shards.h):
//                               the node's gradient chunk is summed, MPI_Reduce_scatter'ed over the
//                               leaders, each leader updates its part, and the updated part of the
//                               delivery copy (bf16, or fp32 for fp32 compute) is MPI_Allgatherv'ed
//                               into every node's copy
// Hierarchical: inside a node the routes (CPU sum in the leader, or the workers' reduce-scatter)
// produce the node's gradient first; only the leaders talk across nodes, with MPI on CPU buffers
// (the reduction runs on CPUs). GPU-side cross-node NCCL is not used by these layouts.
//
// Rank contract: only leaders construct and call a NodeLayout, from their main thread; every
// leader calls gradient()/publish() for the same chunks in the same (plan) order and
// globalNormSq() once per step (collectives over ctx.leaders when N > 1).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "optim/adamw.h"
#include "runtime/chunk_plan.h"
#include "runtime/host_state_layout.h"
#include "runtime/node_shards.h"
#include "runtime/rank_context.h"
#include "runtime/train_options.h"
#include "shm/segment.h"

namespace slidedp {

/// What a layout needs: the leader's rank, its segment and layouts, and its optimizer engine
/// (for the thread team of the CPU sums).
struct NodeLayoutEnv {
  const RankContext* ctx = nullptr;
  const shm::Segment* seg = nullptr;
  const HostStateLayout* state = nullptr;
  const ChunkPlan* plan = nullptr;
  const NodeShards* shards = nullptr;  // this node's parts (every layout; whole chunks unless sharded)
  const optim::Engine* engine = nullptr;
};

/// The host state of owned elements [part.begin, part.end) of a unit: pointers at part.begin.
struct OwnedState {
  float* master = nullptr;
  float* exp_avg = nullptr;
  float* exp_avg_sq = nullptr;
  uint16_t* bf16 = nullptr;  // the bf16 copy (or a scratch the update writes and nobody reads)
};

class NodeLayout {
 public:
  virtual ~NodeLayout() = default;
  NodeLayout(const NodeLayout&) = delete;
  NodeLayout& operator=(const NodeLayout&) = delete;

  /// "one node", "replicated", "sharded".
  virtual const char* name() const = 0;
  /// This node's part of chunk `i` of the plan (the whole chunk unless sharded).
  const OwnedPart& owned(int64_t i) const { return env_.shards->parts[i]; }
  /// Pointers into the segment for owned(i) of chunk i's unit.
  OwnedState state(int64_t i);

  /// The gradient of owned(i), summed over every worker of every node, from `staged` (this
  /// node's staging slot of chunk i: G sub-slots on the CPU reduction route, 1 reduced copy on
  /// the others; staging dtype, [chunk numel]). One node: `staged` itself. Several: one fp32
  /// slot [owned(i).numel()] in a buffer of the layout, valid until the next call. Collective
  /// over ctx.leaders when N > 1. `n` >= 0: only the first n elements (the row-split
  /// embedding's token pass: its packed length; one node and replicated only), else numel().
  virtual optim::GradView gradient(int64_t i, const optim::GradView& staged, int64_t n = -1) = 0;
  /// Whether gradient() returns `staged` itself: the staging slot is then released only after
  /// the update has read it (otherwise right after gradient()).
  virtual bool readsStaging() const { return false; }
  /// After owned(i) was updated: every node's delivery copy of chunk i is current. Collective
  /// over ctx.leaders for the sharded layout.
  virtual void publish(int64_t /*i*/) {}
  /// The squared L2 norm of the whole gradient from this node's `mine` (the squared norm of the
  /// gradients gradient() returned this step). Collective over ctx.leaders when sharded.
  virtual double globalNormSq(double mine) { return mine; }

 protected:
  explicit NodeLayout(const NodeLayoutEnv& env);
  /// Sums the first n elements of the staged sub-slots into fp32 `dst` [n] (OpenMP, the
  /// engine's team).
  void sumStaged(const optim::GradView& staged, float* dst, int64_t n) const;

  NodeLayoutEnv env_;
  std::vector<uint16_t> bf16_scratch_;  // when the segment has no bf16 copy (fp32 delivery)
};

/// The layout of this job: one node whatever `kind` when ctx.num_nodes == 1. Leaders only.
std::unique_ptr<NodeLayout> makeNodeLayout(NodeLayoutKind kind, const NodeLayoutEnv& env);

// One per file (node_layout*.cpp).
std::unique_ptr<NodeLayout> makeOneNodeLayout(const NodeLayoutEnv& env);
std::unique_ptr<NodeLayout> makeReplicatedNodeLayout(const NodeLayoutEnv& env);
std::unique_ptr<NodeLayout> makeShardedNodeLayout(const NodeLayoutEnv& env);

}  // namespace slidedp
