// The batch-source interface between the data pipeline (src/data/) and the trainer
// (src/train/): a source every rank can evaluate, which yields the same global batch of a step
// on every rank (each worker then takes its block of rows). Declarations only; no LibTorch.
#pragma once

#include <cstdint>
#include <vector>

namespace slidedp {

/// A global batch: row-major [B, T] int64 token ids and next-token labels (-100 = ignored;
/// labels[t] is the target of position t, i.e. already shifted), and optional position ids
/// (resets = packed document boundaries).
struct GlobalBatch {
  int64_t B = 0, T = 0;
  std::vector<int64_t> input_ids, labels, position_ids;
};

class BatchSource {
 public:
  virtual ~BatchSource() = default;
  /// The global batch of step `step` (1-based); the same on every rank. Throws UserError.
  virtual GlobalBatch batch(int64_t step) = 0;
};

}  // namespace slidedp
