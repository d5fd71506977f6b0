#include "model/memory_terms.h"

#include <algorithm>

#include "model/config.h"

namespace slidedp::model {

int64_t autoMlpTileRows(int64_t N, int64_t I, int64_t elementBytes) {
  const int64_t rowBytes = 2 * I * elementBytes;
  if (N <= 1 || N * rowBytes <= kMlpTileAboveBytes) return 0;
  const int64_t rows = std::max<int64_t>(256, kMlpTileBytes / rowBytes / 256 * 256);
  return rows < N ? rows : 0;
}

int64_t lossChunkTokens(int64_t chunkTokens, int64_t V) {
  if (chunkTokens > 0) return chunkTokens;
  // 2^30 logits (2 GiB in bf16): the LM-head dW GEMM accumulates into the fp32 [V, C] gradient
  // once per chunk, and larger chunks amortise that read-modify-write. Measured on 1xH200,
  // Qwen3-4B, 8 x 4096 tokens (bench_layer --loss-chunks): head fwd+bwd 125.7 ms at 2^29
  // logits per chunk, 121.3 at 2^30, 120.6 at 2^31.
  return std::clamp<int64_t>((int64_t{1} << 30) / std::max<int64_t>(V, 1), 1024, 16384);
}

LayerMemoryShape LayerMemoryShape::of(const ModelConfig& c, int64_t elementBytes, bool cuda) {
  LayerMemoryShape s;
  s.C = c.hiddenSize;
  s.I = c.intermediateSize;
  s.H = c.numHeads;
  s.KV = c.numKvHeads;
  s.D = c.headDim;
  s.V = c.vocabSize;
  s.element_bytes = elementBytes;
  s.qk_norm = c.qkNorm;
  s.lse = keepsAttentionLse(cuda, elementBytes);
  return s;
}

int64_t keptLayerBytes(const LayerMemoryShape& s, int64_t tokens, bool mlpTiled) {
  const int64_t Q = s.H * s.D, KVD = s.KV * s.D;
  int64_t per = s.element_bytes * ((Q + 2 * KVD) + Q + s.C + (mlpTiled ? 0 : 2 * s.I)) + 4 * 2;
  if (s.qk_norm) per += 4 * (s.H + s.KV);
  if (s.lse) per += 4 * s.H;
  return per * tokens;
}

int64_t attentionOutputBytes(const LayerMemoryShape& s, int64_t tokens) {
  return (s.element_bytes * s.H * s.D + 4 * s.H) * tokens;
}

int64_t reserveEstimateBytes(const LayerMemoryShape& s, int64_t tokens, int64_t mbTokens,
                             int64_t lossChunk, int64_t mlpTile, int64_t embeddingNumel,
                             int64_t headNumel, int64_t maxUnitNumel) {
  const int64_t es = s.element_bytes, C = s.C, Q = s.H * s.D, KVD = s.KV * s.D;
  const int64_t head = lossChunk * s.V * es + 4 * es * tokens * C + 4 * (embeddingNumel + headNumel);
  const int64_t temps = es * (mbTokens * (8 * C + 3 * Q + 4 * (Q + 2 * KVD)) +
                              (mlpTile > 0 ? mlpTile : mbTokens) * 6 * s.I);
  return head + keptLayerBytes(s, mbTokens, mlpTile > 0) + temps + 3 * 4 * maxUnitNumel + (int64_t{1} << 30);
}

}  // namespace slidedp::model
