#include "leader/embedding_split.h"

#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

#include "common/bf16.h"
#include "common/errors.h"

namespace slidedp {

namespace {

template <typename T>
T* allocAligned(int64_t n) {
  const size_t bytes = (static_cast<size_t>(std::max<int64_t>(n, 1)) * sizeof(T) + 63) / 64 * 64;
  void* p = std::aligned_alloc(64, bytes);
  if (!p) throw std::bad_alloc();
  return static_cast<T*>(p);
}

// Sum of the slots at element i, in slot order, fp32 (the engine's order).
inline float slotSum(const optim::GradView& g, int64_t i) {
  float s = 0;
  for (int w = 0; w < g.numSlots; ++w)
    s += g.dtype == optim::DType::kBF16 ? optim::bf16ToFloat(static_cast<const uint16_t*>(g.slots[w])[i])
                                        : static_cast<const float*>(g.slots[w])[i];
  return s;
}

}  // namespace

EmbeddingRowSplit::EmbeddingRowSplit(int64_t V, int64_t C, int64_t chunk_numel) : V_(V), C_(C) {
  zeros_.reset(allocAligned<float>(chunk_numel));
  std::memset(zeros_.get(), 0, static_cast<size_t>(chunk_numel) * sizeof(float));
  zeroSlot_[0] = zeros_.get();
}

void EmbeddingRowSplit::beginStep(const uint64_t* words) {
  rows_ = TokenRows(words, V_, C_);
  reserve(rows_.packedNumel());
}

void EmbeddingRowSplit::reserve(int64_t n) {
  if (n <= capacity_) return;
  master_.reset(allocAligned<float>(n));
  expAvg_.reset(allocAligned<float>(n));
  expAvgSq_.reset(allocAligned<float>(n));
  grad_.reset(allocAligned<float>(n));
  bf16_.reset(allocAligned<uint16_t>(n));
  capacity_ = n;
}

optim::GradView EmbeddingRowSplit::zeroGradient() const {
  return optim::GradView{zeroSlot_, 1, optim::DType::kF32};
}

double EmbeddingRowSplit::save(const float* master, const float* expAvg, const float* expAvgSq,
                               const optim::GradView& grad, int64_t b, int64_t e, int threads) {
  const std::vector<TokenRows::Piece> pieces = rows_.pieces(b, e);
  const int64_t n = static_cast<int64_t>(pieces.size());
  double norm_sq = 0;
#pragma omp parallel for schedule(dynamic, 8) num_threads(threads) reduction(+ : norm_sq)
  for (int64_t i = 0; i < n; ++i) {
    const TokenRows::Piece& p = pieces[i];
    const size_t bytes = static_cast<size_t>(p.length) * sizeof(float);
    std::memcpy(master_.get() + p.packed, master + p.element, bytes);
    std::memcpy(expAvg_.get() + p.packed, expAvg + p.element, bytes);
    std::memcpy(expAvgSq_.get() + p.packed, expAvgSq + p.element, bytes);
    float* g = grad_.get() + p.packed;
    double s = 0;
    for (int64_t j = 0; j < p.length; ++j) {
      g[j] = slotSum(grad, p.element - b + j);
      s += static_cast<double>(g[j]) * g[j];
    }
    norm_sq += s;
  }
  return norm_sq;
}

double EmbeddingRowSplit::update(const optim::Engine& engine, const optim::StepConstants& c,
                                 float* master, float* expAvg, float* expAvgSq, uint16_t* bf16,
                                 const optim::GradView& grad, int64_t b, int64_t e) {
  const int64_t pa = rows_.packedIndex(b), pb = rows_.packedIndex(e), n = pb - pa;
  if (n == 0) return 0;
  SLIDEDP_ASSERT(grad.numSlots + 1 <= optim::kMaxSlots, "{} gradient slots + the saved one", grad.numSlots);
  // Gradient = saved + slots, summed in the fused pass (fp32 staging) or first here (bf16).
  const void* slots[optim::kMaxSlots];
  optim::GradView g;
  if (grad.dtype == optim::DType::kF32) {
    slots[0] = grad_.get() + pa;
    for (int w = 0; w < grad.numSlots; ++w) slots[w + 1] = grad.slots[w];
    g = optim::GradView{slots, grad.numSlots + 1, optim::DType::kF32};
  } else {
    float* saved = grad_.get() + pa;
#pragma omp parallel for schedule(static) num_threads(engine.teamFor(n))
    for (int64_t i = 0; i < n; ++i) saved[i] += slotSum(grad, i);
    slots[0] = saved;
    g = optim::GradView{slots, 1, optim::DType::kF32};
  }
  optim::ChunkState st{master_.get() + pa, expAvg_.get() + pa, expAvgSq_.get() + pa, bf16_.get() + pa, n};
  const double norm_sq = engine.updateWithNorm(st, g, c);
  // Back over the provisional update of the dense pass.
  const std::vector<TokenRows::Piece> pieces = rows_.pieces(b, e);
  const int64_t np = static_cast<int64_t>(pieces.size());
#pragma omp parallel for schedule(dynamic, 8) num_threads(engine.teamFor(n))
  for (int64_t i = 0; i < np; ++i) {
    const TokenRows::Piece& p = pieces[i];
    const size_t bytes = static_cast<size_t>(p.length) * sizeof(float);
    std::memcpy(master + p.element, master_.get() + p.packed, bytes);
    std::memcpy(expAvg + p.element, expAvg_.get() + p.packed, bytes);
    std::memcpy(expAvgSq + p.element, expAvgSq_.get() + p.packed, bytes);
    std::memcpy(bf16 + p.element, bf16_.get() + p.packed, static_cast<size_t>(p.length) * sizeof(uint16_t));
  }
  return norm_sq;
}

void EmbeddingRowSplit::accumulate(float* accum, const optim::GradView& grad, int64_t b, int64_t e,
                                   int threads) const {
  const std::vector<TokenRows::Piece> pieces = rows_.pieces(b, e);
  const int64_t n = static_cast<int64_t>(pieces.size());
  const int64_t pa = rows_.packedIndex(b);
#pragma omp parallel for schedule(dynamic, 8) num_threads(threads)
  for (int64_t i = 0; i < n; ++i) {
    const TokenRows::Piece& p = pieces[i];
    for (int64_t j = 0; j < p.length; ++j) accum[p.element + j] += slotSum(grad, p.packed - pa + j);
  }
}

}  // namespace slidedp
