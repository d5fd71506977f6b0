// The part every node layout shares (pointers into the segment, the CPU sum of staged slots),
// the one-node layout and the factory (see node_layout.h).
#include "leader/node_layout.h"

#include <omp.h>

#include "common/bf16.h"
#include "common/errors.h"

namespace slidedp {

NodeLayout::NodeLayout(const NodeLayoutEnv& env) : env_(env) {
  SLIDEDP_ASSERT(env.ctx && env.ctx->isLeader(), "a node layout is for leaders");
  if (env.seg->layout().find(kComputeCopyRegion) == nullptr)
    bf16_scratch_.resize(static_cast<size_t>(env.plan->chunk_numel));
}

OwnedState NodeLayout::state(int64_t i) {
  const Chunk& c = env_.plan->chunks[i];
  const OwnedPart& p = owned(i);
  const uint64_t at = env_.state->owned[c.unit].offset + p.offset;
  OwnedState s;
  s.master = env_.seg->regionAs<float>(kMasterRegion) + at;
  s.exp_avg = env_.seg->regionAs<float>(kExpAvgRegion) + at;
  s.exp_avg_sq = env_.seg->regionAs<float>(kExpAvgSqRegion) + at;
  // The copy's own span: the whole unit (its part at p.begin), or only this node's parts laid
  // out as the master (at p.offset) when the copy is sharded too.
  s.bf16 = bf16_scratch_.empty()
               ? env_.seg->regionAs<uint16_t>(kComputeCopyRegion) + env_.state->copy[c.unit].offset +
                     (env_.state->copy_sharded ? p.offset : p.begin)
               : bf16_scratch_.data();
  return s;
}

void NodeLayout::sumStaged(const optim::GradView& g, float* dst, int64_t n) const {
#pragma omp parallel for schedule(static) num_threads(env_.engine->teamFor(n))
  for (int64_t e = 0; e < n; ++e) dst[e] = optim::slotSum(g, e);
}

namespace {

// One node: nothing crosses nodes; the leader's fused pass sums the staged sub-slots itself.
class OneNodeLayout final : public NodeLayout {
 public:
  explicit OneNodeLayout(const NodeLayoutEnv& env) : NodeLayout(env) {}
  const char* name() const override { return "one node"; }
  optim::GradView gradient(int64_t, const optim::GradView& staged, int64_t) override { return staged; }
  bool readsStaging() const override { return true; }
};

}  // namespace

std::unique_ptr<NodeLayout> makeOneNodeLayout(const NodeLayoutEnv& env) {
  return std::make_unique<OneNodeLayout>(env);
}

std::unique_ptr<NodeLayout> makeNodeLayout(NodeLayoutKind kind, const NodeLayoutEnv& env) {
  if (env.ctx->num_nodes == 1) return makeOneNodeLayout(env);
  // fully-sharded: the sharded exchange; the copy's layout (HostStateLayout::copy_sharded) says
  // whether publish() all-gathers the copy between the leaders or the workers gather it.
  return shardsState(kind) ? makeShardedNodeLayout(env) : makeReplicatedNodeLayout(env);
}

}  // namespace slidedp
