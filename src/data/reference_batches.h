// Batches stored in a training reference file (shared/README.md: step{s}.input_ids and
// step{s}.labels, int64 [B, T], s = 0, 1, ...): step `step` (1-based) takes stored step
// (step - 1) mod S. For equivalence tests against references made with transformers.
#pragma once

#include <cstdint>
#include <string>

#include "formats/safetensors.h"
#include "data/batch_source.h"

namespace slidedp::data {

class ReferenceBatches : public slidedp::BatchSource {
 public:
  /// Throws UserError when the file holds no step0.input_ids.
  explicit ReferenceBatches(const std::string& path);
  /// Throws UserError when a stored step is not int64 [B, T] with labels of the same shape.
  GlobalBatch batch(int64_t step) override;
  int64_t numStoredSteps() const { return n_; }

 private:
  formats::SafetensorsFile f_;
  int64_t n_ = 0;
};

}  // namespace slidedp::data
