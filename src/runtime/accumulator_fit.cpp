#include "runtime/accumulator_fit.h"

#include <fmt/format.h>

namespace slidedp {

AccumulatorLimit accumulatorLimit(bool budget_given, bool activations_auto, int64_t budget_bytes,
                                  int64_t gpu_bytes) {
  if (budget_given && activations_auto) return {budget_bytes, "its --gpu-memory-budget"};
  return {gpu_bytes, "the GPU's memory"};
}

std::string accumulatorsOverBudget(int64_t steps, int64_t accumulator_bytes, int64_t window_bytes,
                                   int64_t limit_bytes, const std::string& limit_what) {
  if (steps <= 1 || accumulator_bytes + window_bytes <= limit_bytes) return {};
  const double gib = double(int64_t{1} << 30);
  return fmt::format(
      "--gradient-accumulation-steps {} keeps every layer's fp32 gradient on the GPU through the "
      "step: {:.1f} GiB of accumulators and the layer window's {:.1f} GiB are more than {}, "
      "{:.1f} GiB, before any activation.\nHINT: --gradient-accumulation-steps 1, or a --route-sweep "
      "item without +gaN (a large batch then runs as micro-batches, --micro-batch-rows, which hold "
      "no accumulators; --policy auto chooses), a larger --gpu-memory-budget where a smaller one "
      "was given, or a GPU with more memory",
      steps, accumulator_bytes / gib, window_bytes / gib, limit_what, limit_bytes / gib);
}

}  // namespace slidedp
