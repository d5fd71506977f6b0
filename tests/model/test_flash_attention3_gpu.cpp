// FlashAttention-3 (kernels/flash_attention3.h) on the GPU: registered only where a GPU is
// present, compiled wherever CUDA is built. Skips (never passes) where this build has no
// FlashAttention-3 or the device is not compute capability 9.0.
//  - forward output and log-sum-exp, and backward dq/dk/dv, against an fp32 reference of causal
//    GQA attention (explicit softmax over repeated KV heads, autograd for the gradients), with
//    q [N, H, D], k [N, KV, D] and v a strided view into the packed projections, as the decoder
//    passes them; T not a multiple of the kernels' 128-token tiles;
//  - the same operands through cuDNN, for scale: FlashAttention-3 must be as close to the fp32
//    reference as cuDNN is (within 1.5x of its error, or 1e-3);
//  - one Qwen3-4B-shaped decoder layer, forward and backward, FlashAttention-3 vs cuDNN, keep
//    and attention-output policies.
// Tolerances: bf16 attention against fp32, relL2Error 2e-2 (as test_long_sequence_gpu.cpp's
// attention kernels); log-sum-exp absolute 2e-2 (bf16 q/k rounding of the scores).
#include <gtest/gtest.h>
#include <torch/cuda.h>
#include <torch/torch.h>

#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>

#include <cmath>
#include <cstdio>

#include "kernels/flash_attention3.h"
#include "model/decoder.h"
#include "model/param_layout.h"
#include "model_test_util.h"

using namespace slidedp::model;
using namespace slidedp::model::test;
namespace kernels = slidedp::kernels;

namespace {

const auto kBf16 = at::TensorOptions().dtype(at::kBFloat16).device(at::kCUDA);

// Why FlashAttention-3 cannot run here, or "" where it can.
std::string unavailable() {
  if (!torch::cuda::is_available()) return "no CUDA device";
  if (!kernels::flashAttention3Built()) return "this build has no FlashAttention-3";
  const cudaDeviceProp* p = at::cuda::getCurrentDeviceProperties();
  if (p->major != 9 || p->minor != 0) return "FlashAttention-3 needs compute capability 9.0";
  return "";
}

struct Operands {
  int64_t B, T, H, KV, D;
  at::Tensor q, k, v, dout;  // [B, T, heads, D] views, as the decoder passes them
};

Operands makeOperands(int64_t B, int64_t T, int64_t H, int64_t KV, int64_t D) {
  Operands o{B, T, H, KV, D, {}, {}, {}, {}};
  const int64_t N = B * T;
  auto qkv = at::randn({N, (H + 2 * KV) * D}, kBf16);
  o.q = at::randn({N, H, D}, kBf16).view({B, T, H, D});
  o.k = at::randn({N, KV, D}, kBf16).view({B, T, KV, D});
  o.v = qkv.narrow(1, (H + KV) * D, KV * D).view({B, T, KV, D});  // strided rows
  o.dout = at::randn({B, T, H, D}, kBf16);
  return o;
}

struct Reference {
  at::Tensor out, lse, dq, dk, dv;  // fp32; out/dq [B, T, H, D], dk/dv [B, T, KV, D], lse [B, H, T]
};

Reference reference(const Operands& o, double scale) {
  torch::AutoGradMode grad(true);
  auto q = o.q.to(at::kFloat).detach().requires_grad_(true);
  auto k = o.k.to(at::kFloat).detach().requires_grad_(true);
  auto v = o.v.to(at::kFloat).detach().requires_grad_(true);
  const int64_t rep = o.H / o.KV;
  auto q4 = q.transpose(1, 2);                                     // [B, H, T, D]
  auto k4 = k.transpose(1, 2).repeat_interleave(rep, 1);           // [B, H, T, D]
  auto v4 = v.transpose(1, 2).repeat_interleave(rep, 1);
  auto s = at::matmul(q4, k4.transpose(-1, -2)) * scale;           // [B, H, T, T]
  auto mask = at::ones({o.T, o.T}, at::TensorOptions().dtype(at::kBool).device(at::kCUDA)).triu(1);
  s = s.masked_fill(mask, -std::numeric_limits<double>::infinity());
  auto lse = at::logsumexp(s, -1);                                 // [B, H, T]
  auto out = at::matmul(at::softmax(s, -1), v4).transpose(1, 2);   // [B, T, H, D]
  auto g = torch::autograd::grad({out}, {q, k, v}, {o.dout.to(at::kFloat)});
  return {out.detach(), lse.detach(), g[0], g[1], g[2]};
}

}  // namespace

TEST(FlashAttention3Gpu, MatchesAnFp32ReferenceAsCloselyAsCudnn) {
  const std::string why = unavailable();
  if (!why.empty()) GTEST_SKIP() << why;
  at::NoGradGuard noGrad;
  const int64_t B = 2, T = 1000, H = 32, KV = 8, D = 128;
  const double scale = 1.0 / std::sqrt(double(D));
  const Operands o = makeOperands(B, T, H, KV, D);
  ASSERT_TRUE(kernels::flashAttention3Supports(o.q, o.k, o.v));
  const Reference ref = reference(o, scale);

  auto f = kernels::flashAttention3Forward(o.q, o.k, o.v, scale, /*causal=*/true);
  ASSERT_EQ(f.out.sizes(), o.q.sizes());
  ASSERT_EQ(f.lse.sizes(), (std::vector<int64_t>{B, H, T}));
  auto [dq, dk, dv] = kernels::flashAttention3Backward(o.dout, o.q, o.k, o.v, f.out, f.lse, scale, true);
  ASSERT_EQ(dk.sizes(), o.k.sizes());

  // cuDNN on the same operands, [B, heads, T, D] views.
  auto c = at::_scaled_dot_product_cudnn_attention(o.q.transpose(1, 2), o.k.transpose(1, 2),
                                                   o.v.transpose(1, 2), std::nullopt, true, 0.0,
                                                   true, false, scale);
  auto cout4 = std::get<0>(c);
  auto cdo4 = at::empty_like(cout4).copy_(o.dout.transpose(1, 2));  // out's layout, as decoder.cpp
  auto cg = at::_scaled_dot_product_cudnn_attention_backward(
      cdo4, o.q.transpose(1, 2), o.k.transpose(1, 2), o.v.transpose(1, 2), cout4, std::get<1>(c),
      std::get<6>(c), std::get<7>(c), at::Tensor(), std::get<2>(c), std::get<3>(c), T, T, 0.0,
      true, scale);
  const at::Tensor cudnn[] = {cout4.transpose(1, 2), std::get<0>(cg).transpose(1, 2),
                              std::get<1>(cg).transpose(1, 2), std::get<2>(cg).transpose(1, 2)};

  struct Row { const char* name; at::Tensor got, want; };
  const Row rows[] = {{"out", f.out, ref.out}, {"dq", dq, ref.dq}, {"dk", dk, ref.dk}, {"dv", dv, ref.dv}};
  for (int i = 0; i < 4; ++i) {
    const double err = relL2Error(rows[i].got.to(at::kFloat), rows[i].want);
    const double errCudnn = relL2Error(cudnn[i].to(at::kFloat), rows[i].want);
    std::printf("%s vs fp32: FlashAttention-3 relL2 %.3g, cuDNN %.3g\n", rows[i].name, err, errCudnn);
    EXPECT_LE(err, 2e-2) << rows[i].name;
    EXPECT_LE(err, std::max(1.5 * errCudnn, 1e-3)) << rows[i].name;
  }
  const double lseErr = (f.lse - ref.lse).abs().max().item<double>();
  std::printf("log-sum-exp vs fp32: max abs %.3g\n", lseErr);
  EXPECT_LE(lseErr, 2e-2);
}

TEST(FlashAttention3Gpu, DecoderLayerAgreesWithCudnn) {
  const std::string why = unavailable();
  if (!why.empty()) GTEST_SKIP() << why;
  at::NoGradGuard noGrad;
  const ModelConfig c =
      ModelConfig::load(std::string(SLIDEDP_SOURCE_DIR) + "/tools/configs/qwen3-4b.json");
  const ParamLayout layout = ParamLayout::build(c);
  const UnitLayout& unit = layout.units[layout.decoderUnit(0)];
  auto flat = at::randn({unit.numel}, kBf16) * 0.02;
  for (const auto& p : unit.params)  // norm weights at 1, as trained ones are near
    if (p.name.find("norm") != std::string::npos) flat.narrow(0, p.offset, p.numel).fill_(1.0);
  const int64_t B = 2, T = 4096;
  auto x = at::randn({B, T, c.hiddenSize}, kBf16), dy = at::randn({B, T, c.hiddenSize}, kBf16) * 1e-2;
  auto ctx = makeAttentionContext(c, B, T, at::Tensor(), at::kBFloat16, at::kCUDA);
  auto run = [&](AttentionKernel kernel, bool attentionOnly) {
    setAttentionKernel(kernel);
    LayerActivations a;
    auto y = decoderLayerForward(c, unit, flat, x, ctx, &a);
    EXPECT_EQ(a.attnKernel, kernel);
    if (attentionOnly) a = a.attentionOnly();
    auto g = at::zeros({unit.numel}, kBf16.dtype(at::kFloat));
    auto dx = decoderLayerBackward(c, unit, flat, a, dy, ctx, g);
    return std::make_tuple(y, dx, g);
  };
  const auto cudnn = run(AttentionKernel::kCudnn, false);
  for (bool attentionOnly : {false, true}) {
    const auto fa3 = run(AttentionKernel::kFa3, attentionOnly);
    const double ey = relL2Error(std::get<0>(fa3), std::get<0>(cudnn));
    const double edx = relL2Error(std::get<1>(fa3), std::get<1>(cudnn));
    const double eg = relL2Error(std::get<2>(fa3), std::get<2>(cudnn));
    std::printf("Qwen3-4B layer, %s: FlashAttention-3 vs cuDNN relL2 y %.3g dx %.3g grad %.3g\n",
                attentionOnly ? "attention-output" : "keep", ey, edx, eg);
    EXPECT_LE(ey, 2e-2);
    EXPECT_LE(edx, 2e-2);
    EXPECT_LE(eg, 2e-2);
  }
  setAttentionKernel(defaultAttentionKernel());
}
