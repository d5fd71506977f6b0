// Long sequences on the GPU (issue 14; registered only where a GPU is present, compiled
// wherever CUDA is built):
//  - the fused kernels index past 2^31 elements: at T = 524288 tokens with the Qwen3-4B shape
//    (C = 2560, H = 32, KV = 8, D = 128, I = 9728) the q/k/v projections are 3.2e9 elements,
//    gate/up 10.2e9, and a 16384-token logits chunk 2.5e9 (V = 151936); the first and last
//    rows of each kernel's output match its ATen reference on those rows, to the bounds of
//    test_layer_ops_gpu.cpp (an overflowed offset gives garbage, far outside them);
//  - cuDNN's and FlashAttention-2's attention agree at 512K tokens in the decoder's own layout
//    (q [N, H, D], v a strided view into the projections): what decides whether cuDNN may run
//    there (decoder.cpp cudnnAttentionSafe routes such shapes to FlashAttention-2);
//  - FlashAttention-3 against FlashAttention-2 at 512K, forward and backward, calling its
//    kernels directly: what would justify lifting flashAttention3Supports' 2^31 limit;
//  - one Qwen3-4B-shaped decoder layer, forward and backward at 512K tokens with the tiled MLP
//    and the attention-output policy, and at 64K tiled vs untiled and attention-output vs keep;
//    the peak GPU bytes are printed.
// Tolerances (bf16), as test_layer_ops_gpu.cpp: kernel forward relMaxError 8e-3, backward
// relL2Error 1e-2 (the fused backward keeps fp32 intermediates and rounds once), loss 2e-5;
// attention kernels and layer variants relL2Error 2e-2 (two bf16 attention kernels with
// different accumulation orders; tiled vs untiled weight gradients summed per tile).
#include <gtest/gtest.h>
#include <torch/cuda.h>

#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDACachingAllocator.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "kernels/flash_attention3.h"
#include "kernels/layer_ops.h"
#include "model/decoder.h"
#include "model/mlp_tiles.h"
#include "model/param_layout.h"
#include "model_test_util.h"

using namespace slidedp::model;
using namespace slidedp::model::test;
namespace kernels = slidedp::kernels;

namespace {

constexpr int64_t k512K = 524288;
const auto kBf16 = at::TensorOptions().dtype(at::kBFloat16).device(at::kCUDA);

at::Tensor rowsOf(const at::Tensor& t, int64_t n) {
  return at::cat({t.narrow(0, 0, n), t.narrow(0, t.size(0) - n, n)});
}

ModelConfig qwen3_4b() {
  return ModelConfig::load(std::string(SLIDEDP_SOURCE_DIR) + "/tools/configs/qwen3-4b.json");
}

double peakGiB() {
  return c10::cuda::CUDACachingAllocator::getDeviceStats(0).allocated_bytes[0].peak /
         double(1ull << 30);
}

struct TileSetting {
  explicit TileSetting(int64_t t) { setMlpTileTokens(t); }
  ~TileSetting() { setMlpTileTokens(0); }
};

}  // namespace

TEST(LongSequenceGpu, KernelsIndexPast2To31Elements) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  at::NoGradGuard noGrad;
  const int64_t N = k512K, I = 9728, H = 32, KV = 8, D = 128, V = 151936;
  {  // SwiGLU on [N, 2I] (10.2e9 elements), forward and backward
    auto gu = at::randn({N, 2 * I}, kBf16);
    auto act = kernels::swigluForward(gu);
    EXPECT_LE(relMaxError(rowsOf(act, 2), kernels::reference::swigluForward(rowsOf(gu, 2))), 8e-3);
    auto dact = at::randn({N, I}, kBf16);
    auto dgu = kernels::swigluBackward(dact, gu);
    EXPECT_LE(relL2Error(rowsOf(dgu, 2), kernels::reference::swigluBackward(rowsOf(dact, 2), rowsOf(gu, 2))), 1e-2);
  }
  {  // Q/K norm + RoPE on [N, Q + 2 KV*D] (3.2e9 elements)
    auto qkv = at::randn({N, (H + 2 * KV) * D}, kBf16);
    auto w = at::randn({D}, kBf16), cos = at::randn({N, D}, kBf16), sin = at::randn({N, D}, kBf16);
    auto r = kernels::qkNormRopeForward(qkv, H, KV, D, w, w, 1e-6, cos, sin);
    auto ref = kernels::reference::qkNormRopeForward(rowsOf(qkv, 2), H, KV, D, w, w, 1e-6, rowsOf(cos, 2), rowsOf(sin, 2));
    EXPECT_LE(relMaxError(rowsOf(r.q, 2), ref.q), 8e-3);
    EXPECT_LE(relMaxError(rowsOf(r.k, 2), ref.k), 8e-3);
  }
  {  // softmax cross-entropy on a [16384, V] chunk (2.5e9 elements)
    const int64_t n = 16384;
    auto logits = at::randn({n, V}, kBf16);
    auto labels = at::randint(V, {n}, at::TensorOptions().dtype(at::kLong).device(at::kCUDA));
    auto want = rowsOf(logits, 2).clone();
    auto wantLoss = kernels::reference::softmaxCrossEntropyInPlace(want, rowsOf(labels, 2), 1.0);
    auto loss = kernels::softmaxCrossEntropyInPlace(logits, labels, 1.0);
    EXPECT_LE(relMaxError(rowsOf(loss, 2), wantLoss), 2e-5);
    EXPECT_LE(relL2Error(rowsOf(logits, 2), want), 1e-2);
  }
}

TEST(LongSequenceGpu, CudnnAgreesWithFlashAt512K) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  at::NoGradGuard noGrad;
  const int64_t N = k512K, H = 32, KV = 8, D = 128;
  const double scale = 1.0 / std::sqrt(double(D));
  auto q = at::randn({N, H, D}, kBf16), k = at::randn({N, KV, D}, kBf16);
  auto qkv = at::randn({N, (H + 2 * KV) * D}, kBf16);
  auto v = qkv.narrow(1, (H + KV) * D, KV * D);  // the decoder's strided view
  auto q4 = q.view({1, N, H, D}).transpose(1, 2), k4 = k.view({1, N, KV, D}).transpose(1, 2),
       v4 = v.view({1, N, KV, D}).transpose(1, 2);
  auto f = at::_scaled_dot_product_flash_attention(q4, k4, v4, 0.0, true, false, scale);
  at::Tensor co;
  try {
    auto c = at::_scaled_dot_product_cudnn_attention(q4, k4, v4, std::nullopt, true, 0.0, true, false, scale);
    co = std::get<0>(c);
  } catch (const c10::Error& e) {
    GTEST_SKIP() << "cuDNN refuses this shape (the decoder falls back to FlashAttention-2): "
                 << std::string(e.what()).substr(0, 200);
  }
  const double err = relL2Error(co, std::get<0>(f));
  std::printf("512K attention output, cuDNN vs FlashAttention-2: relL2 %.3g\n", err);
  EXPECT_LE(err, 2e-2) << "cuDNN is wrong at 512K: keep cudnnAttentionSafe's limit";
}

TEST(LongSequenceGpu, Qwen3_4BLayerTiledAndAttentionOutput) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  at::NoGradGuard noGrad;
  const ModelConfig c = qwen3_4b();
  const ParamLayout layout = ParamLayout::build(c);
  const UnitLayout& unit = layout.units[layout.decoderUnit(0)];
  auto flat = (at::randn({unit.numel}, kBf16) * 0.02);
  for (const auto& p : unit.params)  // norm weights near 1, as trained ones are
    if (p.name.find("norm") != std::string::npos) flat.narrow(0, p.offset, p.numel).fill_(1.0);
  // 64K tokens: tiled vs untiled MLP (forced tiles), attention output vs keep.
  {
    const int64_t T = 65536;
    auto x = at::randn({1, T, c.hiddenSize}, kBf16), dy = at::randn({1, T, c.hiddenSize}, kBf16) * 1e-2;
    auto ctx = makeAttentionContext(c, 1, T, at::Tensor(), at::kBFloat16, at::kCUDA);
    auto run = [&](bool attnOnly) {
      LayerActivations a;
      auto y = decoderLayerForward(c, unit, flat, x, ctx, &a);
      if (attnOnly) a = a.attentionOnly();
      auto g = at::zeros({unit.numel}, kBf16.dtype(at::kFloat));
      auto dx = decoderLayerBackward(c, unit, flat, a, dy, ctx, g);
      return std::make_tuple(y, dx, g);
    };
    std::tuple<at::Tensor, at::Tensor, at::Tensor> untiled, tiled, attn;
    {
      TileSetting off(-1);
      untiled = run(false);
    }
    {
      TileSetting on(8192);
      tiled = run(false);
      attn = run(true);
    }
    EXPECT_TRUE(at::equal(std::get<0>(tiled), std::get<0>(untiled)) ||
                relL2Error(std::get<0>(tiled), std::get<0>(untiled)) <= 2e-2);
    EXPECT_LE(relL2Error(std::get<1>(tiled), std::get<1>(untiled)), 2e-2);
    EXPECT_LE(relL2Error(std::get<2>(tiled), std::get<2>(untiled)), 2e-2);
    EXPECT_LE(relL2Error(std::get<1>(attn), std::get<1>(tiled)), 2e-2);
    EXPECT_LE(relL2Error(std::get<2>(attn), std::get<2>(tiled)), 2e-2);
  }
  // 512K tokens: one layer, auto tiles, attention-output keep: runs and reports its peak.
  c10::cuda::CUDACachingAllocator::emptyCache();
  c10::cuda::CUDACachingAllocator::resetPeakStats(0);
  const int64_t T = k512K;
  ASSERT_GT(mlpTileRows(T, c.intermediateSize, 2), 0);
  auto x = at::randn({1, T, c.hiddenSize}, kBf16), dy = at::randn({1, T, c.hiddenSize}, kBf16) * 1e-2;
  auto ctx = makeAttentionContext(c, 1, T, at::Tensor(), at::kBFloat16, at::kCUDA);
  LayerActivations a;
  auto y = decoderLayerForward(c, unit, flat, x, ctx, &a);
  a = a.attentionOnly();
  const double keptGiB = a.bytes() / double(1ull << 30);
  auto g = at::zeros({unit.numel}, kBf16.dtype(at::kFloat));
  auto dx = decoderLayerBackward(c, unit, flat, a, dy, ctx, g);
  EXPECT_TRUE(at::isfinite(dx).all().item<bool>());
  EXPECT_TRUE(at::isfinite(g).all().item<bool>());
  std::printf("Qwen3-4B layer at 512K tokens: attention-output keep %.2f GiB (x included), "
              "peak %.1f GiB for forward + backward\n", keptGiB, peakGiB());
}

// Whether FlashAttention-3 is right past 2^31 elements: at 512K tokens q is exactly 2^31
// elements and v spans 3.2e9; this check (calling the kernels directly) is what lets
// kernels::flashAttention3Supports take operands up to 2^32 elements. Output and gradients
// against FlashAttention-2's, whose offsets are 64-bit.
TEST(LongSequenceGpu, FlashAttention3AgreesWithFlashAt512K) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  if (!kernels::flashAttention3Built()) GTEST_SKIP() << "this build has no FlashAttention-3";
  const cudaDeviceProp* p = at::cuda::getCurrentDeviceProperties();
  if (p->major != 9 || p->minor != 0) GTEST_SKIP() << "FlashAttention-3 needs compute capability 9.0";
  at::NoGradGuard noGrad;
  const int64_t N = k512K, H = 32, KV = 8, D = 128;
  const double scale = 1.0 / std::sqrt(double(D));
  // relL2 on the GPU in fp32, one [B, T, heads, D] pair at a time (2^31 elements: 8 GiB each).
  auto rel = [](const at::Tensor& got, const at::Tensor& want) {
    auto w = want.to(at::kFloat);
    const double n = w.norm().item<double>();
    return (got.to(at::kFloat) - w).norm().item<double>() / std::max(n, 1e-30);
  };
  auto q = at::randn({1, N, H, D}, kBf16), k = at::randn({1, N, KV, D}, kBf16);
  auto qkv = at::randn({N, (H + 2 * KV) * D}, kBf16);
  auto v = qkv.narrow(1, (H + KV) * D, KV * D).view({1, N, KV, D});  // the decoder's strided view
  auto dout = at::randn({1, N, H, D}, kBf16);
  auto q4 = q.transpose(1, 2), k4 = k.transpose(1, 2), v4 = v.transpose(1, 2);
  auto f2 = at::_scaled_dot_product_flash_attention(q4, k4, v4, 0.0, true, false, scale);
  auto g2 = at::_scaled_dot_product_flash_attention_backward(
      dout.transpose(1, 2), q4, k4, v4, std::get<0>(f2), std::get<1>(f2), std::get<2>(f2),
      std::get<3>(f2), N, N, 0.0, true, std::get<6>(f2), std::get<7>(f2), scale);
  auto f3 = kernels::flashAttention3Forward(q, k, v, scale, /*causal=*/true);
  const double eOut = rel(f3.out, std::get<0>(f2).transpose(1, 2));
  const double eLse = (f3.lse - std::get<1>(f2)).abs().max().item<double>();
  f2 = {};
  auto [dq3, dk3, dv3] = kernels::flashAttention3Backward(dout, q, k, v, f3.out, f3.lse, scale, true);
  f3 = {};
  const double eDq = rel(dq3, std::get<0>(g2).transpose(1, 2));
  const double eDk = rel(dk3, std::get<1>(g2).transpose(1, 2));
  const double eDv = rel(dv3, std::get<2>(g2).transpose(1, 2));
  std::printf("512K attention, FlashAttention-3 vs FlashAttention-2: relL2 out %.3g dq %.3g dk %.3g "
              "dv %.3g, log-sum-exp max abs %.3g\n", eOut, eDq, eDk, eDv, eLse);
  EXPECT_LE(eOut, 2e-2) << "FlashAttention-3 is wrong at 512K: keep its 2^31 limit";
  EXPECT_LE(eDq, 2e-2);
  EXPECT_LE(eDk, 2e-2);
  EXPECT_LE(eDv, 2e-2);
  EXPECT_LE(eLse, 1e-2);
}
