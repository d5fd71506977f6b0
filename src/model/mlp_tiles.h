// The decoder layer's MLP half tiled along the tokens (issue 14, long sequences): post-attention
// RMSNorm -> gate|up GEMM -> SwiGLU -> down GEMM (+ the residual), `tileRows` rows at a time,
// forward and backward, so the [N, 2I] gate/up intermediate (20 GB at 512K tokens for the
// Qwen3-4B shape) never exists whole: a tile's is a few hundred MB.
// Design decision: tiling is for long sequences only. Below the threshold (mlpTileRows() == 0)
// the decoder runs its untiled code, kernels and launch sequence unchanged (the 4K-token
// benchmark path); above it a kept layer keeps h1 and rstd2 but not gate|up, and backward
// recomputes each tile's norm and gate|up GEMM (one extra GEMM of 2 N C 2I FLOPs) instead of
// holding [N, 2I]. Weight gradients accumulate over tiles in the GEMM (beta = 1 into the fp32
// accumulator, detail::addmmAccumulate, the untiled path's convention), so the tiled sums
// differ from the untiled ones only in the order of fp32 additions.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>

#include "model/memory_terms.h"  // kMlpTileAboveBytes, kMlpTileBytes, autoMlpTileRows

namespace slidedp::model {

/// The MLP half's weights as views into a decoder unit's flat buffer (compute dtype): the
/// post-attention norm [C], gate|up as one [2I, C] matrix (gate rows first), down [C, I]. No
/// biases (the tiled path is taken only for bias-free MLPs whose gate and up are adjacent).
struct MlpWeights {
  at::Tensor postNorm, gateUp, down;
  double eps = 1e-6;
};

/// Their fp32 gradient accumulators (views into the unit's flat fp32 gradient), ADDED to.
struct MlpGrads {
  at::Tensor postNorm, gateUp, down;
};

/// Process-wide tiling setting (set by the worker from --mlp-tile-tokens; tests force it):
/// 0 = auto (tile when the [N, 2I] gate/up output would exceed kMlpTileAboveBytes, in tiles
/// whose gate/up output is about kMlpTileBytes), > 0 = always tile, this many rows per tile,
/// < 0 = never tile.
void setMlpTileTokens(int64_t tokens);
int64_t mlpTileTokens();

/// Rows per MLP tile for N tokens, I intermediate size, `elementBytes` of the compute dtype:
/// 0 = untiled (the decoder's own path), else the forced setting (always < N) or, auto,
/// autoMlpTileRows (memory_terms.h: Qwen3-4B, bf16: 13568 rows, 528 MB of gate/up, about
/// 1.5 GiB of backward temporaries per tile).
int64_t mlpTileRows(int64_t N, int64_t I, int64_t elementBytes);

/// mlpTileRows for `config`'s MLP: 0 when it has biases (LlamaMLP with mlp_bias; the tiled path
/// is bias-free), else mlpTileRows(N, config.intermediateSize, elementBytes). The one condition
/// the worker's activation budget and the decoder's own path share (the decoder also checks
/// that gate and up are adjacent in its flat buffer, as every layout built here places them).
int64_t mlpTileRows(const ModelConfig& config, int64_t N, int64_t elementBytes);

/// Forward of the MLP half: y [N, C] = h1 + down(silu(gate(n2)) * up(n2)), n2 = RMSNorm(h1)
/// (LlamaMLP, LlamaRMSNorm), tile by tile. h1 [N, C] contiguous, compute dtype; writes the
/// norm's rstd into `rstd2` ([N] fp32, allocated here) when not null. Same kernels as the
/// untiled forward, on the current stream.
at::Tensor mlpForwardTiled(const MlpWeights& w, const at::Tensor& h1, int64_t tileRows,
                           at::Tensor* rstd2);

/// Backward of mlpForwardTiled from h1 and its rstd2 (or undefined: recomputed per tile):
/// returns dh1 [N, C] = dy + d(mlp)/dh1 (compute dtype) and adds the weights' gradients to g.
/// dy [N, C] contiguous, compute dtype. Recomputes n2, gate|up and SwiGLU per tile.
at::Tensor mlpBackwardTiled(const MlpWeights& w, const MlpGrads& g, const at::Tensor& h1,
                            const at::Tensor& rstd2, const at::Tensor& dy, int64_t tileRows);

}  // namespace slidedp::model
