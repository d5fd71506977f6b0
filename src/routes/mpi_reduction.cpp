// Reduction among CPU workers: MPI_Reduce_scatter_block of the zero-padded gradient; each worker
// hands off its reduced 1/G shard to the slot's single sub-slot. The CPU stand-in of
// nccl_reduction.cpp, so the protocol is tested without GPUs.
#include <mpi.h>

#include <ATen/ATen.h>

#include "common/errors.h"
#include "routes/route_impls.h"
#include "runtime/chunk_plan.h"

namespace slidedp::routes {

namespace {

class MpiReduction final : public Reduction {
 public:
  explicit MpiReduction(const RouteEnv& env) : Reduction(env) {}
  const char* name() const override { return "gpu"; }
  ReducedGradient reduce(int u, const at::Tensor& grad_fp32) override {
    return reduceBucket(u, grad_fp32, 0);
  }
  // A bucket is reduced as a unit of its length: G shards of it, this worker's at offset + sb.
  bool reducesBuckets() const override { return true; }
  ReducedGradient reduceBucket(int, const at::Tensor& grad_fp32, int64_t offset) override {
    const int64_t n = grad_fp32.numel();
    const int64_t shard = ChunkPlan::shardNumel(n, env_.G);
    at::Tensor padded = at::zeros({env_.G * shard}, grad_fp32.options());
    padded.narrow(0, 0, n).copy_(grad_fp32);
    at::Tensor mine = at::empty({shard}, grad_fp32.options());
    MPI_CHECK(MPI_Reduce_scatter_block(padded.data_ptr(), mine.data_ptr(), static_cast<int>(shard),
                                       MPI_FLOAT, MPI_SUM, env_.ctx->node_workers));
    const auto [sb, se] = ChunkPlan::shard(n, env_.G, env_.w);
    ReducedGradient r;
    r.grad = mine.narrow(0, 0, se - sb).to(env_.sdtype).contiguous();
    r.offset = offset + sb;
    r.subslot = 0;
    return r;
  }
};

}  // namespace

std::unique_ptr<Reduction> makeMpiReduction(const RouteEnv& env, RouteResources&) {
  return std::make_unique<MpiReduction>(env);
}

}  // namespace slidedp::routes
