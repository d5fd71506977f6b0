// Sharded delivery between CPU workers: each copies its 1/G shard of the unit from the segment
// into its place in the slot, then MPI_Allgather (in place) completes the unit on every worker.
// The CPU stand-in of sharded_nccl_delivery.cpp, so the protocol is tested without GPUs.
#include <mpi.h>

#include <ATen/ATen.h>

#include "common/errors.h"
#include "routes/route_impls.h"
#include "runtime/chunk_plan.h"

namespace slidedp::routes {

namespace {

class ShardedMpiDelivery final : public Delivery {
 public:
  explicit ShardedMpiDelivery(const RouteEnv& env) : Delivery(env, /*allocate_window=*/true) {}
  const char* name() const override { return "sharded"; }

 protected:
  void fill(int u, int slot) override {
    const int64_t n = env_.layout->units[u].numel;
    const size_t es = elementSize();
    const int64_t shard = ChunkPlan::shardNumel(n, env_.G);
    const auto [sb, se] = ChunkPlan::shard(n, env_.G, env_.w);
    auto* dbase = static_cast<char*>(window_[slot].data_ptr());
    copyUnitRange(dbase + env_.w * shard * es, u, sb, se);
    MPI_CHECK(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, dbase, static_cast<int>(shard * es),
                            MPI_BYTE, env_.ctx->node_workers));
  }
};

}  // namespace

std::unique_ptr<Delivery> makeShardedMpiDelivery(const RouteEnv& env, RouteResources&) {
  return std::make_unique<ShardedMpiDelivery>(env);
}

}  // namespace slidedp::routes
