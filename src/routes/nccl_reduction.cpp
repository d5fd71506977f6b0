// Reduction among GPU workers through NCCL: ncclReduceScatter (sum, fp32) of the zero-padded
// gradient on the compute stream; each worker hands off its reduced 1/G shard to the slot's
// single sub-slot, which the leader reads alone. PCIe carries 1/G of the gradient per GPU.
#include <ATen/ATen.h>
#include <c10/cuda/CUDAStream.h>

#include "cuda/checks.h"
#include "routes/route_impls.h"
#include "runtime/chunk_plan.h"

namespace slidedp::routes {

namespace {

class NcclReduction final : public Reduction {
 public:
  NcclReduction(const RouteEnv& env, RouteResources& res) : Reduction(env), nccl_(res.nccl(1)) {}
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
    auto stream = c10::cuda::getCurrentCUDAStream(env_.device.index());
    NCCL_CHECK(ncclReduceScatter(padded.data_ptr(), mine.data_ptr(), shard, ncclFloat, ncclSum,
                                 nccl_.get(), stream.stream()));
    const auto [sb, se] = ChunkPlan::shard(n, env_.G, env_.w);
    ReducedGradient r;
    r.grad = mine.narrow(0, 0, se - sb).to(env_.sdtype).contiguous();
    r.offset = offset + sb;
    r.subslot = 0;
    return r;
  }

 private:
  cuda::NcclCommunicator& nccl_;
};

}  // namespace

std::unique_ptr<Reduction> makeNcclReduction(const RouteEnv& env, RouteResources& res) {
  return std::make_unique<NcclReduction>(env, res);
}

}  // namespace slidedp::routes
