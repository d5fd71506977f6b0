// Whether --gradient-accumulation-steps N > 1 can run on a worker's GPU at all: its passes keep
// every layer's fp32 gradient on the GPU through the step (worker.cpp allocates them up front,
// 4 B a parameter; README "Gradient accumulation steps"), beside the layer window. Checked as the
// job starts for its options and every --route-sweep variant's (Trainer::checkRunOptions), so a
// model whose accumulators exceed the GPU is refused with what to do, not an out-of-memory error
// in a step.
// Pure; no LibTorch, no CUDA.
#pragma once

#include <cstdint>
#include <string>

namespace slidedp {

/// The limit accumulatorsOverBudget checks against: `budget_bytes` where a --gpu-memory-budget
/// was given (`budget_given`) and the activation policy is auto (`activations_auto`: the only
/// policy that honours the budget), else `gpu_bytes`, the GPU's memory (the default budget's
/// margin below it is the activation policy's, not a limit on what runs). Bytes, and the words
/// that name it in the message.
struct AccumulatorLimit {
  int64_t bytes = 0;
  std::string what;
};
AccumulatorLimit accumulatorLimit(bool budget_given, bool activations_auto, int64_t budget_bytes,
                                  int64_t gpu_bytes);

/// The GPU bytes an accumulation step needs before any activation: `accumulator_bytes` (4 B per
/// parameter whose gradient the worker sums: every layer's and the head's, and the embedding's
/// where its gradient is dense) and `window_bytes` (the rotating window slots and the resident
/// slot, in the compute dtype). Returns "" when `steps` <= 1 (no accumulators) or their sum is
/// at most `limit_bytes`; else a user-facing message naming the three sizes in GiB, the limit
/// as `limit_what` says it (e.g. "the GPU's memory" or "its --gpu-memory-budget") and a HINT
/// (the caller's error prefix names the worker). A necessary condition only: the activations,
/// the packed token rows' gradient and the allocator's reserve come on top.
std::string accumulatorsOverBudget(int64_t steps, int64_t accumulator_bytes, int64_t window_bytes,
                                   int64_t limit_bytes, const std::string& limit_what);

}  // namespace slidedp
