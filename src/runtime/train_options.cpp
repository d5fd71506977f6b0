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

const char* policyName(ActivationPolicy p) {
  switch (p) {
    case ActivationPolicy::kRecompute: return "recompute";
    case ActivationPolicy::kKeep: return "keep";
    case ActivationPolicy::kAuto: return "auto";
  }
  return "?";
}

ActivationPolicy parseActivationPolicy(const std::string& s) {
  if (s == "recompute") return ActivationPolicy::kRecompute;
  if (s == "keep") return ActivationPolicy::kKeep;
  if (s == "auto") return ActivationPolicy::kAuto;
  throwUserError("unknown activation policy '{}': expected recompute, keep or auto", s);
}

}  // namespace slidedp
