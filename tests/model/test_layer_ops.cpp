// The ATen references of the fused layer operations (kernels/layer_ops.h) on CPU, in fp32:
// each hand-written backward against autograd through its own forward composition, on shapes
// with odd sizes (N = 37 rows, C = 96, heads of D = 16 and D = 6, I = 50, V = 131).
// Tolerance: 2e-5 relative (max error over the tensor's max): both sides are fp32 CPU
// arithmetic in different orders (measured <= 1e-6).
// The whole decoder layer built from them is held to transformers in test_decoder_parity.cpp
// and test_decoder_reference.cpp.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "kernels/layer_ops.h"
#include "kernels/residual_gemm.h"
#include "layer_ops_check.h"

using namespace slidedp::kernels;
using namespace slidedp::kernels::test;

namespace {

constexpr double kTol = 2e-5;
const at::Device kCpu(at::kCPU);

at::Tensor leaf(const at::Tensor& t) { return t.detach().clone().requires_grad_(true); }

TEST(LayerOpsReference, RmsNormBackwardMatchesAutograd) {
  const int64_t N = 37, C = 96;
  auto x = leaf(randn({N, C}, at::kFloat, kCpu)), w = leaf(randn({C}, at::kFloat, kCpu));
  auto dy = randn({N, C}, at::kFloat, kCpu);
  at::Tensor y, rstd;
  {
    torch::AutoGradMode on(true);
    auto r = reference::rmsNormForward(x, w, 1e-6);
    y = r.y;
    rstd = r.rstd.detach();
  }
  auto g = torch::autograd::grad({y}, {x, w}, {dy});
  auto dw = at::zeros({C});
  auto dx = reference::rmsNormBackward(dy, x.detach(), rstd, w.detach(), dw);
  EXPECT_LE(relMaxError(dx, g[0]), kTol);
  EXPECT_LE(relMaxError(dw, g[1]), kTol);
  // With the residual branch: dx + residual (fp32 here, so no rounding in between).
  auto dxr = reference::rmsNormBackward(dy, x.detach(), rstd, w.detach(), at::Tensor(), dy);
  EXPECT_LE(relMaxError(dxr, g[0] + dy), kTol);
  EXPECT_LE(relMaxError(reference::rmsNormApply(x.detach(), rstd, w.detach()), y.detach()), 0.0);
}

void qkCase(int64_t H, int64_t KV, int64_t D, bool norm) {
  const int64_t N = 37, ld = (H + 2 * KV) * D + 3;  // a row stride wider than q|k|v
  auto qkv = leaf(randn({N, ld}, at::kFloat, kCpu));
  at::Tensor wq, wk;
  if (norm) wq = leaf(randn({D}, at::kFloat, kCpu)), wk = leaf(randn({D}, at::kFloat, kCpu));
  auto [cos, sin] = ropeTables(N, D, at::kFloat, kCpu);
  auto dq = randn({N, H, D}, at::kFloat, kCpu), dk = randn({N, KV, D}, at::kFloat, kCpu);
  QkRopeResult r;
  {
    torch::AutoGradMode on(true);
    r = reference::qkNormRopeForward(qkv, H, KV, D, wq, wk, 1e-6, cos, sin);
  }
  std::vector<at::Tensor> inputs = {qkv};
  if (norm) inputs.push_back(wq), inputs.push_back(wk);
  auto g = torch::autograd::grad({r.q, r.k}, inputs, {dq, dk});
  auto dqkv = at::zeros({N, ld});
  at::Tensor dwq = norm ? at::zeros({D}) : at::Tensor(), dwk = norm ? at::zeros({D}) : at::Tensor();
  QkRopeResult saved;
  if (norm) saved.rq = r.rq.detach(), saved.rk = r.rk.detach();
  reference::qkNormRopeBackward(dq, dk, qkv.detach(), H, KV, D, norm ? wq.detach() : wq,
                                norm ? wk.detach() : wk, saved, cos, sin, dqkv, dwq, dwk);
  const int64_t W = (H + KV) * D;
  EXPECT_LE(relMaxError(dqkv.narrow(1, 0, W), g[0].narrow(1, 0, W)), kTol);
  if (norm) {
    EXPECT_LE(relMaxError(dwq, g[1]), kTol);
    EXPECT_LE(relMaxError(dwk, g[2]), kTol);
  }
}

TEST(LayerOpsReference, QkNormRopeBackwardMatchesAutograd) {
  qkCase(4, 2, 16, true);   // Qwen3: q/k RMSNorm, GQA
  qkCase(3, 1, 6, true);    // D not a multiple of 4
  qkCase(4, 4, 16, false);  // Llama: RoPE only
}

TEST(LayerOpsReference, SwigluBackwardMatchesAutograd) {
  const int64_t N = 37, I = 50;
  auto gu = leaf(randn({N, 2 * I}, at::kFloat, kCpu, 3.0));
  auto da = randn({N, I}, at::kFloat, kCpu);
  at::Tensor act;
  {
    torch::AutoGradMode on(true);
    act = reference::swigluForward(gu);
  }
  auto g = torch::autograd::grad({act}, {gu}, {da});
  EXPECT_LE(relMaxError(reference::swigluBackward(da, gu.detach()), g[0]), kTol);
}

TEST(LayerOpsReference, SoftmaxCrossEntropyGradientMatchesAutograd) {
  const int64_t n = 37, V = 131;
  const double scale = 0.37;
  auto z = leaf(randn({n, V}, at::kFloat, kCpu, 4.0));
  auto y = at::randint(V, {n}, at::kLong);
  at::Tensor loss;
  {
    torch::AutoGradMode on(true);
    loss = at::cross_entropy_loss(z, y, {}, at::Reduction::None);
  }
  auto g = torch::autograd::grad({loss.sum() * scale}, {z});
  auto logits = z.detach().clone();
  auto mine = reference::softmaxCrossEntropyInPlace(logits, y, scale);
  EXPECT_LE(relMaxError(mine, loss.detach()), kTol);
  EXPECT_LE(relMaxError(logits, g[0]), kTol);
}

TEST(LayerOpsReference, CpuTensorsTakeTheReferencePath) {
  EXPECT_FALSE(fused(at::zeros({2})));
}

// kernels/residual_gemm.h on CPU: at::addmm itself (the cuBLASLt path is CUDA bf16 only; its
// GPU test is FusedOps.ResidualGemm), into a new tensor or a row tile, the residual untouched.
TEST(LayerOpsReference, ResidualGemmOnCpuIsAddmm) {
  const int64_t N = 37, K = 50, M = 24;
  auto r = randn({N, M}, at::kFloat, kCpu), x = randn({N, K}, at::kFloat, kCpu), w = randn({M, K}, at::kFloat, kCpu);
  const auto r0 = r.clone();
  EXPECT_FALSE(residualGemmFused(r, x, w));
  const auto ref = at::addmm(r, x, w.t());
  EXPECT_TRUE(at::equal(addmmResidual(r, x, w), ref));
  EXPECT_TRUE(at::equal(r, r0));
  auto big = at::zeros({N + 3, M});
  addmmResidualOut(big.narrow(0, 1, N), r, x, w);
  EXPECT_TRUE(at::equal(big.narrow(0, 1, N), ref));
  EXPECT_EQ(big.narrow(0, 0, 1).abs().max().item<double>(), 0.0);
  EXPECT_EQ(big.narrow(0, N + 1, 2).abs().max().item<double>(), 0.0);
}

}  // namespace
