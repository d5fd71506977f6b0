// Where a recomputed decoder layer keeps its input (issue 14, "layer inputs placed per layer on
// GPU, pinned host or recomputed, within both budgets"). A recomputed layer keeps only its input
// [tokens, hidden] for backward. On the GPU while the GPU budget holds the inputs of every
// recomputed layer beside what is allocated and the head/backward reserve; otherwise the first
// layers in forward order keep theirs in pinned host memory (D2H in forward, H2D one layer ahead
// in backward, on the worker's offload stream) until the rest fit. The first layers go to the
// host because their backward comes last: their H2D copies have the whole backward to overlap.
// --offload-activations sends every recomputed layer's input to the host instead (the planner
// chooses it when the GPU memory it frees keeps more layers whole).
// The planner prices the same placement (planner/search.h inputPlacementOffloads).
#pragma once

#include <algorithm>
#include <cstdint>

namespace slidedp {

/// How many recomputed decoder layers, the first in forward order, keep their input in pinned
/// host memory so that the inputs of the others fit the GPU: the smallest n in [0, layers] with
///   allocated + reserve + (layers - n) * input_bytes <= budget,
/// or `layers` when even none fits.
///   budget       the worker's GPU memory budget (bytes; --gpu-memory-budget)
///   allocated    bytes allocated when the first decoder layer's forward starts (its input,
///                the running hidden state, included: the next layer's output replaces it)
///   reserve      what the head and backward need above the end-of-forward level (bytes)
///   input_bytes  one layer's input, tokens x hidden x the compute dtype's bytes (> 0)
///   layers       decoder layers whose input is kept (the recomputed ones, >= 0)
/// Pure arithmetic, no GPU: unit-tested (tests/unit/test_input_placement.cpp).
inline int offloadedInputLayers(int64_t budget, int64_t allocated, int64_t reserve, int64_t input_bytes,
                                int layers) {
  if (layers <= 0 || input_bytes <= 0) return 0;
  const int64_t room = budget - allocated - reserve;
  const int64_t on_gpu = room <= 0 ? 0 : std::min<int64_t>(layers, room / input_bytes);
  return layers - static_cast<int>(on_gpu);
}

}  // namespace slidedp
