// The route options: every route's name parses back to the route, unknown names are refused with
// a message listing the routes there are, and the predicates the registry and the leader use
// (sharded, reduced on the workers, CUDA IPC) say what each route is.
#include <gtest/gtest.h>

#include "common/errors.h"
#include "runtime/train_options.h"

using namespace slidedp;

TEST(RouteOptions, NamesRoundTrip) {
  for (auto r : {DeliveryRoute::kReplicated, DeliveryRoute::kSharded, DeliveryRoute::kShardedIpc})
    EXPECT_EQ(parseDeliveryRoute(routeName(r)), r) << routeName(r);
  for (auto r : {ReductionRoute::kCpu, ReductionRoute::kGpu, ReductionRoute::kGpuIpc})
    EXPECT_EQ(parseReductionRoute(routeName(r)), r) << routeName(r);
  EXPECT_STREQ(routeName(DeliveryRoute::kShardedIpc), "sharded-ipc");
  EXPECT_STREQ(routeName(ReductionRoute::kGpuIpc), "gpu-ipc");
}

TEST(RouteOptions, Predicates) {
  EXPECT_FALSE(isSharded(DeliveryRoute::kReplicated));
  EXPECT_TRUE(isSharded(DeliveryRoute::kSharded));
  EXPECT_TRUE(isSharded(DeliveryRoute::kShardedIpc));
  EXPECT_FALSE(reducesOnWorkers(ReductionRoute::kCpu));
  EXPECT_TRUE(reducesOnWorkers(ReductionRoute::kGpu));
  EXPECT_TRUE(reducesOnWorkers(ReductionRoute::kGpuIpc));
  EXPECT_TRUE(usesCudaIpc(DeliveryRoute::kShardedIpc));
  EXPECT_FALSE(usesCudaIpc(DeliveryRoute::kSharded));
  EXPECT_TRUE(usesCudaIpc(ReductionRoute::kGpuIpc));
  EXPECT_FALSE(usesCudaIpc(ReductionRoute::kGpu));
}

TEST(RouteOptions, UnknownNamesListTheRoutes) {
  try {
    parseDeliveryRoute("ipc");
    FAIL() << "'ipc' parsed as a delivery route";
  } catch (const UserError& e) {
    const std::string m = e.what();
    for (const char* name : {"'ipc'", "replicated", "sharded", "sharded-ipc"})
      EXPECT_NE(m.find(name), std::string::npos) << name << " missing from: " << m;
  }
  try {
    parseReductionRoute("nccl");
    FAIL() << "'nccl' parsed as a reduction route";
  } catch (const UserError& e) {
    const std::string m = e.what();
    for (const char* name : {"'nccl'", "cpu", "gpu", "gpu-ipc"})
      EXPECT_NE(m.find(name), std::string::npos) << name << " missing from: " << m;
  }
}
