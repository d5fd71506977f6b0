// The policy search (design.md, "The step-time model and policies"): every combination of
// delivery x reduction x chunk size x ring slots x window depth x micro-batch rows x leader
// threads, each with the per-layer activation choice that keeps the most layers the GPU memory
// budget allows and its best update tail (chooseUpdateTail) (keeping is never slower than recomputing; what does not fit is recomputed,
// with its input on the GPU or offloaded to pinned host memory, both priced), priced by
// predict() and ranked by predicted step time among those that fit the GPU budget and host RAM.
#pragma once

#include <cstdint>
#include <vector>

#include "planner/cost_model.h"

namespace slidedp::planner {

struct SearchOptions {
  double gpu_budget_bytes = 0;           // per worker (<= 0: the machine's usable memory)
  bool bf16_staging = false;             // the run's --grad-dtype (a precision choice: kept)
  std::vector<int64_t> chunk_numels = {int64_t{1} << 20, int64_t{1} << 22, int64_t{1} << 24};
  std::vector<int> ring_slots = {2, 4, 8};
  std::vector<int> windows = {2, 3};
  bool include_recompute_all = true;     // also rank kept = 0 (the other extreme), for reference
};

struct RankedPolicy {
  Policy policy;
  Prediction prediction;
};

/// A policy may leave the runtime's pipeline defaults (chunk 4 Mi elements, 4 ring slots,
/// window 2: what every benchmark has validated) only when it is predicted faster than the
/// best policy with those defaults by more than this fraction. Below it the difference is
/// inside the model's own error (median 5.3% over the 1xH200 sweep), and the model's pipeline
/// terms under-rate what coarser chunks and a deeper window cost: in both sweeps on that
/// machine the fastest prediction (chunk 16 Mi, window 3, 1.7% ahead) measured slower than the
/// defaults, by 3.9% and 6.0% (README, "The step-time model").
inline constexpr double kLeaveDefaultsMargin = 0.03;

/// The update tail (Policy::tail_units) is chosen per policy only where it may leave 0 (the
/// runtime's default) for a prediction faster by more than this fraction, the model's own
/// error (as kLeaveDefaultsMargin). On the 1xH200 at Qwen3-4B batch 4 (leader-bound) the model
/// predicts 8.2% at M = 16 where 8.9% was measured (README, "Update tail").
inline constexpr double kUpdateTailMargin = 0.03;

/// The best update tail for `p` (its tail_units ignored): where earlyAgreement holds for some
/// M > 0, the fastest fitting M of a coarse scan (every max(1, L/8) layers) refined layer by
/// layer around its best, the smallest M within 0.5% of that, taken only when faster than
/// `without` (p's prediction with no tail) by more than kUpdateTailMargin (the smaller M too). Returns p with the
/// chosen tail_units and its prediction (`without` when 0); `evaluated` counts the predictions.
RankedPolicy chooseUpdateTail(const Workload& w, const MachineDescription& m, Policy p,
                              const Prediction& without, double budget, int64_t* evaluated = nullptr);

struct SearchResult {
  std::vector<RankedPolicy> ranked;  // feasible, fastest first
  int64_t evaluated = 0;        // policies priced (without their update tails)
  int64_t tails_evaluated = 0;  // update tails priced besides (chooseUpdateTail)
  int64_t over_gpu_budget = 0, over_host_ram = 0;
  /// Index in `ranked` of the policy --policy auto runs and `plan` recommends: the fastest,
  /// unless the fastest with the runtime's pipeline defaults is within kLeaveDefaultsMargin
  /// of it (then that one).
  size_t chosen = 0;
  const RankedPolicy& choice() const { return ranked.at(chosen); }
};

/// Whether `p` has the runtime's pipeline defaults (chunk size, ring slots, window depth).
bool hasPipelineDefaults(const Policy& p);

/// Most decoder layers (0..L, kept in forward order) whose kept activations fit `budget`
/// bytes per worker under `p` (its kept_layers ignored); -1 when even none fits.
int maxKeptLayers(const Workload& w, const MachineDescription& m, Policy p, double budget);

/// Whether the workers keep attention outputs (bf16 GPU workers carry the log-sum-exp).
bool attentionOutputAvailable(const Workload& w);

/// The runtime's --activations auto split (worker.cpp): layers 1..kept keep everything, the
/// next `attention_output` keep their attention output, the rest are recomputed, under
/// `budget` bytes per worker with p's other knobs; `max_kept` (-1: none) caps the whole keeps.
/// At long sequences (attention FLOPs per byte of attention output above the rest of the
/// layer's FLOPs per byte of the rest of a whole keep) every layer keeps at least its attention
/// output before any keeps everything; otherwise whole keeps come first. kept = -1 when even
/// recomputing every layer does not fit. When recomputing every layer with its input on the GPU
/// does not fit (and p.offload is off), the runtime offloads the inputs of the first layers
/// until the rest fit (worker/input_placement.h): then kept = attention_output = 0 and
/// `offloaded` is that count (inputPlacementOffloads); kept = -1 when even all of them do not.
struct LayerSplit {
  int kept = 0, attention_output = 0, offloaded = 0;
};
LayerSplit autoLayerSplit(const Workload& w, const MachineDescription& m, Policy p, double budget,
                          int max_kept = -1);

/// The runtime's input placement under `p` (its kept_layers and attention_output_layers as
/// given, p.offload off): the fewest recomputed layers, the first in forward order, whose input
/// must go to pinned host memory for p's GPU peak to fit `budget` bytes per worker; 0 when it
/// fits as is, -1 when it does not fit even with every recomputed input offloaded.
int inputPlacementOffloads(const Workload& w, const MachineDescription& m, Policy p, double budget);

/// Micro-batch row candidates for b rows per worker: b (0 = all), b/2, b/4, ... >= 1 (as powers
/// of two below b) — ascending order not implied.
std::vector<int64_t> microBatchCandidates(int64_t b);
/// Gradient accumulation step candidates for b rows per worker: 1, 2, 4, ... <= b and every
/// divisor of b (each pass then has ceil(b / N) rows or one fewer, and its own micro-batch
/// candidates).
std::vector<int64_t> accumulationCandidates(int64_t b);

/// Searches the policies of `w` on `m`. Throws UserError when none fits (naming the smallest
/// GPU peak and host need found, with a HINT).
SearchResult searchPolicies(const Workload& w, const MachineDescription& m, const SearchOptions& o);

}  // namespace slidedp::planner
