// Replicated delivery: every worker copies the whole unit from the segment into its slot (H2D on
// the copy stream on GPU workers, memcpy on CPU workers). PCIe carries the whole layer per GPU.
#include <ATen/ATen.h>

#include "routes/route_impls.h"

namespace slidedp::routes {

namespace {

class ReplicatedDelivery final : public Delivery {
 public:
  explicit ReplicatedDelivery(const RouteEnv& env) : Delivery(env, /*allocate_window=*/true) {}
  const char* name() const override { return "replicated"; }

 protected:
  void fill(int u, int slot) override {
    const int64_t n = env_.layout->units[u].numel;
    copyUnitRange(window_[slot].data_ptr(), u, 0, n);
  }
};

}  // namespace

std::unique_ptr<Delivery> makeReplicatedDelivery(const RouteEnv& env, RouteResources&) {
  return std::make_unique<ReplicatedDelivery>(env);
}

}  // namespace slidedp::routes
