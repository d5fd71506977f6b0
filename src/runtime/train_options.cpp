#include "runtime/train_options.h"

#include "common/errors.h"

namespace slidedp {

const char* routeName(DeliveryRoute r) { return r == DeliveryRoute::kSharded ? "sharded" : "replicated"; }
const char* routeName(ReductionRoute r) { return r == ReductionRoute::kGpu ? "gpu" : "cpu"; }

DeliveryRoute parseDeliveryRoute(const std::string& s) {
  if (s == "replicated") return DeliveryRoute::kReplicated;
  if (s == "sharded") return DeliveryRoute::kSharded;
  throwUserError("unknown delivery route '{}': expected replicated or sharded", s);
}

ReductionRoute parseReductionRoute(const std::string& s) {
  if (s == "cpu") return ReductionRoute::kCpu;
  if (s == "gpu") return ReductionRoute::kGpu;
  throwUserError("unknown reduction route '{}': expected cpu or gpu", s);
}

}  // namespace slidedp
