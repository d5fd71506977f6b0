// The held-out set of `--eval-data` as Trainer::evaluate reads it (src/train/trainer.h): the
// first epoch of a data loader in file order. No LibTorch.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>

#include "data/batch_source.h"
#include "data/data_loader.h"

namespace slidedp {

/// The held-out set for Trainer::evaluate: its first epoch in file order, batch after batch;
/// rows past the epoch's end (the last batch's tail) are masked out, so each eval row counts
/// once.
class EvalBatches : public BatchSource {
 public:
  EvalBatches(std::unique_ptr<data::DataLoader> loader, int64_t B, int64_t max_batches)
      : loader_(std::move(loader)), B_(B), rows_(loader_->rowsInEpoch(0)) {
    batches_ = (rows_ + B - 1) / B;
    if (max_batches > 0) batches_ = std::min(batches_, max_batches);
  }
  GlobalBatch batch(int64_t step) override {
    GlobalBatch b = loader_->batch(step);
    for (int64_t r = 0; r < b.B; ++r)
      if ((step - 1) * B_ + r >= rows_) std::fill_n(b.labels.begin() + r * b.T, b.T, int64_t{-100});
    return b;
  }
  int64_t numBatches() const { return batches_; }
  const data::DataLoader& loader() const { return *loader_; }

 private:
  std::unique_ptr<data::DataLoader> loader_;
  int64_t B_, rows_, batches_ = 0;
};

}  // namespace slidedp
