// Sharded across nodes: node p owns part p of every chunk (runtime/node_shards.h), so its master,
// m and v hold 12/N bytes per parameter. Per chunk, in plan order on every leader:
//   1. the node's gradient chunk (G staged sub-slots summed, or the workers' reduced copy) is
//      MPI_Reduce_scatter'ed over the leaders: each gets every node's sum for its part;
//   2. the leader runs the fused AdamW pass on its part (leader.cpp);
//   3. publish(): the updated part of the delivery copy (bf16; or fp32, a copy of the master,
//      when the workers compute in fp32) is MPI_Allgatherv'ed in place into every node's whole
//      delivery copy, before the unit's version is published to the node's workers.
//      Fully sharded (--node-layout fully-sharded: HostStateLayout::copy_sharded), nothing: the
//      update wrote this node's bf16 part in place (fp32 compute delivers from the master), and
//      the workers all-gather the unit across the nodes when they deliver it (routes/node_gather.h).
// The global gradient norm is the sum of the leaders' squared norms of their parts.
#include <mpi.h>

#include <cstring>
#include <vector>

#include "common/errors.h"
#include "leader/node_layout.h"

namespace slidedp {

namespace {

class ShardedNodeLayout final : public NodeLayout {
 public:
  explicit ShardedNodeLayout(const NodeLayoutEnv& env)
      : NodeLayout(env), N_(env.ctx->num_nodes), grad_(static_cast<size_t>(env.plan->chunk_numel)),
        part_(static_cast<size_t>(env.plan->chunk_numel)), counts_(N_), displs_(N_) {
    SLIDEDP_ASSERT(env.shards->num_nodes == N_ && env.shards->node == env.ctx->node_id,
                   "node shards of node {} of {} on node {} of {}", env.shards->node,
                   env.shards->num_nodes, env.ctx->node_id, N_);
    f32_delivery_ = env.seg->layout().find(kDeliveryF32Region) != nullptr;
  }
  const char* name() const override { return env_.state->copy_sharded ? "fully-sharded" : "sharded"; }

  optim::GradView gradient(int64_t i, const optim::GradView& staged, int64_t n) override {
    SLIDEDP_ASSERT(n < 0 || n == env_.plan->chunks[i].numel(),
                   "sharded across nodes: chunk {} exchanged whole, not {} elements", i, n);
    setCounts(i);
    sumStaged(staged, grad_.data(), env_.plan->chunks[i].numel());
    MPI_CHECK(MPI_Reduce_scatter(grad_.data(), part_.data(), counts_.data(), MPI_FLOAT, MPI_SUM,
                                 env_.ctx->leaders));
    slot_[0] = part_.data();
    return optim::GradView{slot_, 1, optim::DType::kF32};
  }

  void publish(int64_t i) override {
    if (env_.state->copy_sharded) return;
    const Chunk& c = env_.plan->chunks[i];
    setCounts(i);
    const uint64_t unit_at = env_.state->units[c.unit].offset + c.begin;  // chunk in the copy
    if (f32_delivery_) {
      float* copy = env_.seg->regionAs<float>(kDeliveryF32Region) + unit_at;
      const OwnedPart& p = owned(i);
      std::memcpy(copy + (p.begin - c.begin), state(i).master, p.numel() * sizeof(float));
      MPI_CHECK(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, copy, counts_.data(),
                               displs_.data(), MPI_FLOAT, env_.ctx->leaders));
    } else {
      uint16_t* copy = env_.seg->regionAs<uint16_t>(kComputeCopyRegion) + unit_at;
      MPI_CHECK(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, copy, counts_.data(),
                               displs_.data(), MPI_UINT16_T, env_.ctx->leaders));
    }
  }

  double globalNormSq(double mine) override {
    double all = 0;
    MPI_CHECK(MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_SUM, env_.ctx->leaders));
    return all;
  }

 private:
  void setCounts(int64_t i) {
    counts_ = NodeShards::partCounts(env_.plan->chunks[i], N_);
    for (int p = 0, d = 0; p < N_; ++p) displs_[p] = d, d += counts_[p];
  }

  int N_;
  bool f32_delivery_ = false;
  std::vector<float> grad_;  // [chunk_numel] fp32: the node's gradient of the chunk
  std::vector<float> part_;  // every node's sum over this node's part
  std::vector<int> counts_, displs_;
  const void* slot_[1] = {nullptr};
};

}  // namespace

std::unique_ptr<NodeLayout> makeShardedNodeLayout(const NodeLayoutEnv& env) {
  return std::make_unique<ShardedNodeLayout>(env);
}

}  // namespace slidedp
