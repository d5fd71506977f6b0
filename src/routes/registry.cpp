// The route table (see registry.h).
#include "routes/registry.h"

#include <cstdlib>
#include <string>

#include "common/errors.h"
#include "routes/route_impls.h"

namespace slidedp::routes {

namespace {

template <class Route, class Made>
struct Entry {
  Route route;
  bool cuda;  // the worker's device: GPU (true) or CPU (false)
  std::unique_ptr<Made> (*make)(const RouteEnv&, RouteResources&);
};

const Entry<DeliveryRoute, Delivery> kDeliveries[] = {
    {DeliveryRoute::kReplicated, false, makeReplicatedDelivery},
    {DeliveryRoute::kSharded, false, makeShardedMpiDelivery},
#ifdef SLIDEDP_WITH_CUDA
    {DeliveryRoute::kReplicated, true, makeReplicatedDelivery},
    {DeliveryRoute::kSharded, true, makeShardedNcclDelivery},
    {DeliveryRoute::kShardedIpc, true, makeShardedIpcDelivery},
#endif
};

const Entry<ReductionRoute, Reduction> kReductions[] = {
    {ReductionRoute::kCpu, false, makeCpuReduction},
    {ReductionRoute::kGpu, false, makeMpiReduction},
#ifdef SLIDEDP_WITH_CUDA
    {ReductionRoute::kCpu, true, makeCpuReduction},
    {ReductionRoute::kGpu, true, makeNcclReduction},
    {ReductionRoute::kGpuIpc, true, makeIpcReduction},
#endif
};

template <class Route, class Made, size_t N>
std::unique_ptr<Made> make(const Entry<Route, Made> (&table)[N], Route route, const RouteEnv& env,
                           RouteResources& res, const char* what) {
  for (const auto& e : table)
    if (e.route == route && e.cuda == env.cuda) return e.make(env, res);
  const bool ipc = usesCudaIpc(route);
  throwUserError("the {} route '{}' cannot run on {} workers{}.\nHINT: {}", what, routeName(route),
                 env.cuda ? "GPU" : "CPU",
                 env.cuda ? " in this build" : "",
                 ipc ? "CUDA IPC routes need GPU workers (--device cuda); on CPU workers use "
                       "sharded / gpu, which exchange through MPI"
                     : "rebuild with CUDA (nvcc found at configure time) or choose another route");
}

}  // namespace

std::unique_ptr<Delivery> makeDelivery(const RouteEnv& env, DeliveryRoute route, RouteResources& res) {
  if (env.G == 1 && isSharded(route)) {
    if (usesCudaIpc(route) && !env.cuda) make(kDeliveries, route, env, res, "delivery");  // refuse
    route = DeliveryRoute::kReplicated;
  }
  return make(kDeliveries, route, env, res, "delivery");
}

std::unique_ptr<Reduction> makeReduction(const RouteEnv& env, ReductionRoute route, RouteResources& res) {
  if (env.G == 1 && reducesOnWorkers(route)) {
    if (usesCudaIpc(route) && !env.cuda) make(kReductions, route, env, res, "reduction");  // refuse
    route = ReductionRoute::kCpu;
  }
  return make(kReductions, route, env, res, "reduction");
}

#ifdef SLIDEDP_WITH_CUDA
cuda::NcclCommunicator& RouteResources::nccl(int which) {
  SLIDEDP_ASSERT(which == 0 || which == 1, "NCCL communicator 0 (delivery) or 1 (reduction)");
  const char* share = std::getenv("SLIDEDP_TEST_SHARE_GPU");
  if (share && std::string(share) == "1")  // the same on every worker: all refuse alike
    throwUserError("the NCCL routes (sharded, gpu) cannot run with SLIDEDP_TEST_SHARE_GPU=1: NCCL "
                   "refuses two ranks on one GPU.\nHINT: test the routes between workers on one GPU "
                   "with sharded-ipc / gpu-ipc, or unset SLIDEDP_TEST_SHARE_GPU");
  if (!nccl_[which]) nccl_[which] = std::make_unique<cuda::NcclCommunicator>(env_.ctx->node_workers);
  return *nccl_[which];
}
#endif

}  // namespace slidedp::routes
