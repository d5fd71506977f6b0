// Synthetic training data (`--data synthetic`, `--data synthetic-packed:MIN:MAX`): uniformly
// random tokens, deterministic in the seed and the step, the same global batch on every rank;
// the benchmarks' and the embedded default job's data. No LibTorch.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "data/batch_source.h"

namespace slidedp {

/// Uniformly random tokens (deterministic in seed and step), labels = the next token. With
/// docMin > 0 (`--data synthetic-packed:MIN:MAX`), every row packs documents of uniformly random
/// lengths in [docMin, docMax] tokens (the last one cut at T): position ids restart at 0 in each
/// document and its last token has no target (-100), as the data loader packs real documents.
class SyntheticBatches : public BatchSource {
 public:
  SyntheticBatches(int64_t B, int64_t T, int64_t V, uint64_t seed, int64_t docMin = 0, int64_t docMax = 0)
      : B_(B), T_(T), V_(V), seed_(seed), docMin_(docMin), docMax_(docMax) {}
  void setRows(int64_t B) { B_ = B; }
  GlobalBatch batch(int64_t step) override;

 private:
  int64_t B_, T_, V_;
  uint64_t seed_;
  int64_t docMin_, docMax_;
};

/// `synthetic-packed:MIN:MAX` -> {MIN, MAX} (tokens per document); throws UserError if malformed.
std::pair<int64_t, int64_t> parsePackedSynthetic(const std::string& spec);

}  // namespace slidedp
