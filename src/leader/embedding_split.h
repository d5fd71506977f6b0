// The leader's half of the row-split embedding update (runtime/token_rows.h; the chunk passes
// of runtime/chunk_plan.h).
//
// Dense pass (right after the head): for a chunk of the embedding, the rows outside the step's
// token rows get their AdamW step now (one fused pass over those row segments), and the token
// rows' gradient so far (the sum of the workers' slots) is saved in packed order. Token pass
// (last): the token rows get their AdamW step, in place, with the saved gradient plus the rest
// (the packed staging slots). Every row gets exactly one AdamW step with its whole gradient, as
// in the dense schedule; the only difference is the fp32 summation order of a token row's
// gradient: (sum of the workers' head shares) + (sum of their lookup shares) instead of the sum
// of per-worker totals.
//
// Threading: called by the leader's thread; each call runs the engine's OpenMP team.
#pragma once

#include <cstdint>
#include <cstdlib>
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

  /// Dense pass, chunk [b, e) of the unit: saves the token rows' gradient (the sum of `grad`'s
  /// slots, element b at slot index 0) and updates every other row of the chunk in `unit`
  /// (base pointers of the unit's master, m, v, bf16 copy) with constants `c`. Returns the
  /// squared L2 norm of the rows it updated.
  double denseUpdate(const optim::Engine& engine, const optim::StepConstants& c,
                     const optim::ChunkState& unit, const optim::GradView& grad, int64_t b, int64_t e);

  /// Token pass, chunk [b, e): `grad`'s slots hold the packed range [packedIndex(b),
  /// packedIndex(e)) from slot index 0. Updates the token rows of the chunk in place with the
  /// saved gradient + the slots. Returns the squared L2 norm of their gradient.
  double tokenUpdate(const optim::Engine& engine, const optim::StepConstants& c,
                     const optim::ChunkState& unit, const optim::GradView& grad, int64_t b, int64_t e);

  /// Clipping (the full-gradient region): adds the token pass's packed slots of chunk [b, e)
  /// into `accum` (the unit's fp32 gradient, indexed by unit element).
  void accumulate(float* accum, const optim::GradView& grad, int64_t b, int64_t e, int threads) const;

 private:
  struct Free {
    void operator()(void* p) const { std::free(p); }
  };
  int64_t V_, C_;
  TokenRows rows_;
  std::unique_ptr<float[], Free> grad_, zeros_;  // saved token-row gradient (packed); zeros
  const void* zeroSlot_[1] = {nullptr};
  int64_t capacity_ = 0;  // elements of grad_
};

}  // namespace slidedp
