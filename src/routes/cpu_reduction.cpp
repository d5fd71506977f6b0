// CPU reduction: every worker hands its whole gradient (in the staging dtype) to its own staging
// sub-slot; the leader sums the G sub-slots, fused into its AdamW pass. PCIe carries the whole
// layer's gradient per GPU; no exchange between workers.
#include <ATen/ATen.h>

#include "routes/route_impls.h"

namespace slidedp::routes {

namespace {

class CpuReduction final : public Reduction {
 public:
  explicit CpuReduction(const RouteEnv& env) : Reduction(env) {}
  const char* name() const override { return "cpu"; }
  ReducedGradient reduce(int, const at::Tensor& grad_fp32) override {
    ReducedGradient r;
    r.grad = grad_fp32.to(env_.sdtype).contiguous();
    r.offset = 0;
    r.subslot = env_.w;
    return r;
  }
  bool reducesBuckets() const override { return true; }
  ReducedGradient reduceBucket(int u, const at::Tensor& part_fp32, int64_t offset) override {
    ReducedGradient r = reduce(u, part_fp32);
    r.offset = offset;
    return r;
  }
};

}  // namespace

std::unique_ptr<Reduction> makeCpuReduction(const RouteEnv& env, RouteResources&) {
  return std::make_unique<CpuReduction>(env);
}

}  // namespace slidedp::routes
