#include "leader/embedding_split.h"

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <new>
#include <vector>

#include "common/bf16.h"
#include "common/errors.h"

namespace slidedp {

namespace {

float* allocFloats(int64_t n) {
  const size_t bytes = (static_cast<size_t>(std::max<int64_t>(n, 1)) * sizeof(float) + 63) / 64 * 64;
  void* p = std::aligned_alloc(64, bytes);
  if (!p) throw std::bad_alloc();
  return static_cast<float*>(p);
}

using optim::slotSum;

}  // namespace

EmbeddingRowSplit::EmbeddingRowSplit(int64_t V, int64_t C, int64_t chunk_numel) : V_(V), C_(C) {
  zeros_.reset(allocFloats(chunk_numel));
  std::memset(zeros_.get(), 0, static_cast<size_t>(chunk_numel) * sizeof(float));
  zeroSlot_[0] = zeros_.get();
}

void EmbeddingRowSplit::beginStep(const uint64_t* words) {
  rows_ = TokenRows(words, V_, C_);
  if (rows_.packedNumel() > capacity_) {
    grad_.reset(allocFloats(rows_.packedNumel()));
    capacity_ = rows_.packedNumel();
  }
}

optim::GradView EmbeddingRowSplit::zeroGradient() const {
  return optim::GradView{zeroSlot_, 1, optim::DType::kF32};
}

double EmbeddingRowSplit::denseUpdate(const optim::Engine& engine, const optim::StepConstants& c,
                                      const optim::ChunkState& unit, const optim::GradView& grad,
                                      int64_t b, int64_t e) {
  const std::vector<TokenRows::Piece> tokens = rows_.pieces(b, e);
  const int64_t n = static_cast<int64_t>(tokens.size());
#pragma omp parallel for schedule(static) num_threads(engine.teamFor(std::max<int64_t>(rows_.packedIndex(e) - rows_.packedIndex(b), 1)))
  for (int64_t i = 0; i < n; ++i) {
    const TokenRows::Piece& p = tokens[i];
    float* g = grad_.get() + p.packed;
    for (int64_t j = 0; j < p.length; ++j) g[j] = slotSum(grad, p.element - b + j);
  }
  std::vector<optim::Engine::Range> ranges;
  for (const TokenRows::Piece& p : TokenRows::complement(b, e, tokens))
    ranges.push_back({p.element, p.element - b, p.length});
  return engine.updateRangesWithNorm(unit, grad, ranges, c);
}

double EmbeddingRowSplit::tokenUpdate(const optim::Engine& engine, const optim::StepConstants& c,
                                      const optim::ChunkState& unit, const optim::GradView& grad,
                                      int64_t b, int64_t e) {
  const int64_t pa = rows_.packedIndex(b), n = rows_.packedIndex(e) - pa;
  if (n == 0) return 0;
  SLIDEDP_ASSERT(grad.numSlots + 1 <= optim::kMaxSlots, "{} gradient slots + the saved one", grad.numSlots);
  // Gradient = saved + slots, both indexed by packed - pa: summed in the fused pass (fp32
  // staging) or first here (bf16 staging: one dtype per pass).
  float* saved = grad_.get() + pa;
  const void* slots[optim::kMaxSlots];
  optim::GradView g;
  if (grad.dtype == optim::DType::kF32) {
    slots[0] = saved;
    for (int w = 0; w < grad.numSlots; ++w) slots[w + 1] = grad.slots[w];
    g = optim::GradView{slots, grad.numSlots + 1, optim::DType::kF32};
  } else {
#pragma omp parallel for schedule(static) num_threads(engine.teamFor(n))
    for (int64_t i = 0; i < n; ++i) saved[i] += slotSum(grad, i);
    slots[0] = saved;
    g = optim::GradView{slots, 1, optim::DType::kF32};
  }
  std::vector<optim::Engine::Range> ranges;
  for (const TokenRows::Piece& p : rows_.pieces(b, e)) ranges.push_back({p.element, p.packed - pa, p.length});
  return engine.updateRangesWithNorm(unit, g, ranges, c);
}

void EmbeddingRowSplit::accumulate(float* accum, const optim::GradView& grad, int64_t b, int64_t e,
                                   int threads) const {
  const std::vector<TokenRows::Piece> pieces = rows_.pieces(b, e);
  const int64_t n = static_cast<int64_t>(pieces.size());
  const int64_t pa = rows_.packedIndex(b);
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int64_t i = 0; i < n; ++i) {
    const TokenRows::Piece& p = pieces[i];
    for (int64_t j = 0; j < p.length; ++j) accum[p.element + j] += slotSum(grad, p.packed - pa + j);
  }
}

}  // namespace slidedp
