// The leader's half of the row-split embedding update (runtime/token_rows.h; the chunk passes
// of runtime/chunk_plan.h).
//
// Dense pass (right after the head): before the regular fused AdamW pass over a chunk of the
// embedding, the token rows' FP32 master, m, v and their gradient so far are saved in packed
// order; the pass then updates every row of the chunk, the token rows provisionally. Token
// pass (last): the saved token rows are updated from the saved state with the saved gradient
// plus the rest of it (the packed staging slots), and written back over the provisional
// update; only then is the unit's version published. So every row gets exactly one AdamW step
// with its whole gradient, as in the dense schedule; the only difference is the fp32
// summation order of a token row's gradient: (sum of the workers' head shares) + (sum of their
// lookup shares) instead of the sum of per-worker totals.
//
// Threading: called by the leader's thread; the copies run an OpenMP team of `threads`.
#pragma once

#include <cstdint>
#include <memory>

#include "optim/adamw.h"
#include "runtime/token_rows.h"

namespace slidedp {

class EmbeddingRowSplit {
 public:
  /// For an embedding of V rows x C columns (unit 0, row-major from element 0) and gradient
  /// chunks of at most chunk_numel elements.
  EmbeddingRowSplit(int64_t V, int64_t C, int64_t chunk_numel);

  /// Starts a step: `words` are the step's token-row bitmap (TokenRows::wordsFor(V) words in
  /// the segment), read until the step's last token-pass chunk.
  void beginStep(const uint64_t* words);
  const TokenRows& rows() const { return rows_; }

  /// One slot of zeros (chunk_numel fp32): the dense pass's gradient of an untied embedding.
  optim::GradView zeroGradient() const;

  /// Dense pass, chunk [b, e) of the unit, BEFORE its AdamW pass: saves the token rows' master,
  /// m, v (the unit's arrays, indexed by unit element) and the sum of `grad`'s slots (element
  /// b at slot index 0). Returns the squared L2 norm of the saved gradient, which the caller
  /// takes out of the dense pass's norm (the token pass counts those rows).
  double save(const float* master, const float* expAvg, const float* expAvgSq,
              const optim::GradView& grad, int64_t b, int64_t e, int threads);

  /// Token pass, chunk [b, e): `grad`'s slots hold the packed range [packedIndex(b),
  /// packedIndex(e)) from slot index 0. Updates the saved rows with saved gradient + slots
  /// (one fused pass of `engine` with constants `c`), writes master, m, v and the bf16 copy of
  /// those rows into the unit's arrays. Returns the squared L2 norm of their gradient.
  double update(const optim::Engine& engine, const optim::StepConstants& c, float* master,
                float* expAvg, float* expAvgSq, uint16_t* bf16, const optim::GradView& grad,
                int64_t b, int64_t e);

  /// Clipping (the full-gradient region): adds the token pass's packed slots of chunk [b, e)
  /// into `accum` (the unit's fp32 gradient, indexed by unit element).
  void accumulate(float* accum, const optim::GradView& grad, int64_t b, int64_t e, int threads) const;

 private:
  void reserve(int64_t n);

  int64_t V_, C_;
  TokenRows rows_;
  struct Free {
    void operator()(void* p) const { std::free(p); }
  };
  std::unique_ptr<float[], Free> master_, expAvg_, expAvgSq_, grad_, zeros_;
  std::unique_ptr<uint16_t[], Free> bf16_;
  const void* zeroSlot_[1] = {nullptr};
  int64_t capacity_ = 0;  // elements of each saved array
};

}  // namespace slidedp
