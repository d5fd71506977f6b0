// Sharded delivery between GPU workers through NCCL: each copies its 1/G shard H2D into its
// place in the slot, then ncclAllGather (in place, on the copy stream) completes the unit. PCIe
// carries 1/G of the layer per GPU; the all-gather runs as kernels on SMs (NVLink).
#include <ATen/ATen.h>

#include "cuda/checks.h"
#include "routes/route_impls.h"
#include "runtime/chunk_plan.h"

namespace slidedp::routes {

namespace {

class ShardedNcclDelivery final : public Delivery {
 public:
  ShardedNcclDelivery(const RouteEnv& env, RouteResources& res)
      : Delivery(env, /*allocate_window=*/true), nccl_(res.nccl(0)) {}
  const char* name() const override { return "sharded"; }

 protected:
  void fill(int u, int slot) override {
    const int64_t n = env_.layout->units[u].numel;
    const size_t es = elementSize();
    const int64_t shard = ChunkPlan::shardNumel(n, env_.G);
    const auto [sb, se] = ChunkPlan::shard(n, env_.G, env_.w);
    auto* dbase = static_cast<char*>(window_[slot].data_ptr());
    copyUnitRange(dbase + env_.w * shard * es, u, sb, se);
    NCCL_CHECK(ncclAllGather(dbase + env_.w * shard * es, dbase, shard,
                             env_.cdtype == at::kFloat ? ncclFloat : ncclBfloat16, nccl_.get(),
                             copyStream().stream()));
  }

 private:
  cuda::NcclCommunicator& nccl_;
};

}  // namespace

std::unique_ptr<Delivery> makeShardedNcclDelivery(const RouteEnv& env, RouteResources& res) {
  return std::make_unique<ShardedNcclDelivery>(env, res);
}

}  // namespace slidedp::routes
