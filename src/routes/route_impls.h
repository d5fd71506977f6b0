// The factories of the route implementations, one per file, for the table of registry.cpp.
// Internal to src/routes/.
#pragma once

#include <memory>

#include "routes/delivery.h"
#include "routes/reduction.h"
#include "routes/registry.h"

namespace slidedp::routes {

std::unique_ptr<Delivery> makeReplicatedDelivery(const RouteEnv& env, RouteResources& res);
std::unique_ptr<Delivery> makeShardedMpiDelivery(const RouteEnv& env, RouteResources& res);
std::unique_ptr<Reduction> makeCpuReduction(const RouteEnv& env, RouteResources& res);
std::unique_ptr<Reduction> makeMpiReduction(const RouteEnv& env, RouteResources& res);
#ifdef SLIDEDP_WITH_CUDA
std::unique_ptr<Delivery> makeShardedNcclDelivery(const RouteEnv& env, RouteResources& res);
std::unique_ptr<Delivery> makeShardedIpcDelivery(const RouteEnv& env, RouteResources& res);
std::unique_ptr<Reduction> makeNcclReduction(const RouteEnv& env, RouteResources& res);
std::unique_ptr<Reduction> makeIpcReduction(const RouteEnv& env, RouteResources& res);
#endif

}  // namespace slidedp::routes
