// Chooses the routes, once at set-up: a table from (route option, worker device) to the
// implementation's factory (registry.cpp). A new route is one new file plus one row there.
// With one worker the sharded routes deliver like `replicated` and the reducing routes hand off
// like `cpu` (there is nobody to exchange with; the same bytes cross PCIe).
#pragma once

#include <memory>

#include "routes/delivery.h"
#include "routes/reduction.h"
#include "runtime/train_options.h"

#ifdef SLIDEDP_WITH_CUDA
#include "cuda/device.h"
#endif

namespace slidedp::routes {

/// What routes share and keep across route switches (--route-sweep): the NCCL communicators among
/// the workers, created the first time a route needs one (collective over the workers then).
class RouteResources {
 public:
  explicit RouteResources(const RouteEnv& env) : env_(env) {}
#ifdef SLIDEDP_WITH_CUDA
  /// The communicator of the delivery routes (0) or of the reduction routes (1): separate, so an
  /// all-gather on the copy stream and a reduce-scatter on the compute stream may run at once.
  cuda::NcclCommunicator& nccl(int which);
#endif

 private:
  RouteEnv env_;
#ifdef SLIDEDP_WITH_CUDA
  std::unique_ptr<cuda::NcclCommunicator> nccl_[2];
#endif
};

/// The delivery of `route` for this worker. Collective over the workers (every worker calls it
/// with the same route). Throws UserError, on every worker alike, for a route this device cannot
/// run (an IPC route on CPU workers, or without peer access between the GPUs).
std::unique_ptr<Delivery> makeDelivery(const RouteEnv& env, DeliveryRoute route, RouteResources& res);
/// The reduction of `route` for this worker; as makeDelivery.
std::unique_ptr<Reduction> makeReduction(const RouteEnv& env, ReductionRoute route, RouteResources& res);

}  // namespace slidedp::routes
