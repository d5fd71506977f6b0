// GPU (label gpu): every fused CUDA kernel (src/kernels/*.cu, through layer_ops.h)
// against its ATen reference on the same CUDA inputs, in fp32 and bf16, on real-model shapes
// (Qwen3-8B: C 4096, H 32, KV 8, D 128, I 12288, V 151936) and odd tiny ones (D = 6, C = 96).
//
// Tolerances (relative to the reference's max |value| unless noted):
//  - fp32 everything: 2e-5 (fp32 sums in another order; rsqrtf/expf vs ATen's);
//  - bf16 forward outputs: 8e-3 max error, i.e. one bf16 ulp (2^-7 relative): both round the
//    same fp32 intermediates, which may land on either side of a rounding boundary;
//  - bf16 backward outputs: relL2Error 1e-2 (the kernels keep fp32 intermediates where the
//    reference rounds them to bf16 between ops);
//  - fp32 accumulators fed by bf16 data (weight gradients): relL2Error 1e-2 for the same reason.
#include <gtest/gtest.h>
#include <torch/cuda.h>

#include <array>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "kernels/layer_gemm.h"
#include "kernels/layer_ops.h"
#include "kernels/lt_matmul.h"
#include "kernels/residual_gemm.h"
#include "layer_ops_check.h"

using namespace slidedp::kernels;
using namespace slidedp::kernels::test;

namespace {

struct Tol {
  double fwd, bwd, acc;
};
Tol tolFor(at::ScalarType dt) {
  return dt == at::kFloat ? Tol{2e-5, 2e-5, 2e-5} : Tol{8e-3, 1e-2, 1e-2};
}

class FusedOps : public ::testing::TestWithParam<at::ScalarType> {
 protected:
  void SetUp() override {
    if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  }
  at::Device dev{at::kCUDA, 0};
};

TEST_P(FusedOps, RmsNorm) {
  const auto dt = GetParam();
  const Tol tol = tolFor(dt);
  // 4096/96/5120: the register-cached vectorised forward; 100 (C % 8 != 0) and 12288 (> 8192):
  // the two-pass kernel.
  // Backward: C % 8 == 0 takes the 16-byte kernel (4, 2 or 1 warps a block by C; 20000 rows:
  // several rows per warp), C % 8 != 0 the 4-byte one.
  for (auto [N, C] : {std::pair<int64_t, int64_t>{1000, 4096}, {37, 96}, {5, 5120}, {7, 100}, {3, 12288},
                      {20000, 2560}}) {
    auto x = randn({N, C}, dt, dev), w = randn({C}, dt, dev, 0.5), dy = randn({N, C}, dt, dev);
    ASSERT_TRUE(fused(x));
    auto a = rmsNormForward(x, w, 1e-6), b = reference::rmsNormForward(x, w, 1e-6);
    EXPECT_LE(relMaxError(a.y, b.y), tol.fwd) << N << "x" << C;
    EXPECT_LE(relMaxError(a.rstd, b.rstd), 2e-5) << N << "x" << C;
    EXPECT_LE(relMaxError(rmsNormApply(x, a.rstd, w), a.y), 0.0) << "apply reproduces forward";
    auto dwa = at::zeros({C}, x.options().dtype(at::kFloat)), dwb = dwa.clone();
    auto dxa = rmsNormBackward(dy, x, a.rstd, w, dwa), dxb = reference::rmsNormBackward(dy, x, b.rstd, w, dwb);
    EXPECT_LE(relL2Error(dxa, dxb), tol.bwd) << N << "x" << C;
    EXPECT_LE(relL2Error(dwa, dwb), tol.acc) << N << "x" << C;
    // The residual branch fused into the backward: the same as adding it to the reference's dx.
    auto res = randn({N, C}, dt, dev);
    auto dxr = rmsNormBackward(dy, x, a.rstd, w, at::Tensor(), res);
    auto dxrb = reference::rmsNormBackward(dy, x, b.rstd, w, at::Tensor(), res);
    EXPECT_LE(relL2Error(dxr, dxrb), tol.bwd) << "with residual, " << N << "x" << C;
  }
}

TEST_P(FusedOps, QkNormRope) {
  const auto dt = GetParam();
  const Tol tol = tolFor(dt);
  struct Case { int64_t N, H, KV, D; bool norm; };
  // D in {64, 128, 256}: the group kernels (D/8 lanes a head; 37 x 5 heads: an odd count, so a
  // warp's last group is idle); D = 6: the block kernel.
  for (const Case& k : {Case{1000, 32, 8, 128, true}, Case{37, 3, 1, 6, true}, Case{64, 8, 8, 64, false},
                        Case{50, 4, 2, 256, true}, Case{40, 5, 1, 64, true}, Case{37, 3, 2, 128, true},
                        Case{37, 3, 2, 128, false}}) {
    const int64_t ld = (k.H + 2 * k.KV) * k.D;
    auto qkv = randn({k.N, ld}, dt, dev);
    at::Tensor wq, wk;
    if (k.norm) wq = randn({k.D}, dt, dev, 0.5), wk = randn({k.D}, dt, dev, 0.5);
    auto [cos, sin] = ropeTables(k.N, k.D, dt, dev);
    auto a = qkNormRopeForward(qkv, k.H, k.KV, k.D, wq, wk, 1e-6, cos, sin);
    auto b = reference::qkNormRopeForward(qkv, k.H, k.KV, k.D, wq, wk, 1e-6, cos, sin);
    EXPECT_LE(relMaxError(a.q, b.q), tol.fwd) << "q, D=" << k.D;
    EXPECT_LE(relMaxError(a.k, b.k), tol.fwd) << "k, D=" << k.D;
    if (k.norm) {
      EXPECT_LE(relMaxError(a.rq, b.rq), 2e-5);
    }
    auto dq = randn({k.N, k.H, k.D}, dt, dev), dk = randn({k.N, k.KV, k.D}, dt, dev);
    auto f32 = qkv.options().dtype(at::kFloat);
    at::Tensor dwqa = k.norm ? at::zeros({k.D}, f32) : at::Tensor(), dwka = k.norm ? at::zeros({k.D}, f32) : at::Tensor();
    at::Tensor dwqb = k.norm ? at::zeros({k.D}, f32) : at::Tensor(), dwkb = k.norm ? at::zeros({k.D}, f32) : at::Tensor();
    auto da = at::zeros({k.N, ld}, qkv.options()), db = at::zeros({k.N, ld}, qkv.options());
    qkNormRopeBackward(dq, dk, qkv, k.H, k.KV, k.D, wq, wk, a, cos, sin, da, dwqa, dwka);
    reference::qkNormRopeBackward(dq, dk, qkv, k.H, k.KV, k.D, wq, wk, b, cos, sin, db, dwqb, dwkb);
    EXPECT_LE(relL2Error(da, db), tol.bwd) << "dqkv, D=" << k.D;
    if (k.norm) {
      EXPECT_LE(relL2Error(dwqa, dwqb), tol.acc) << "dwq, D=" << k.D;
      EXPECT_LE(relL2Error(dwka, dwkb), tol.acc) << "dwk, D=" << k.D;
    }
  }
}

TEST_P(FusedOps, Swiglu) {
  const auto dt = GetParam();
  const Tol tol = tolFor(dt);
  for (auto [N, I] : {std::pair<int64_t, int64_t>{1000, 12288}, {37, 50}}) {
    auto gu = randn({N, 2 * I}, dt, dev, 3.0), da = randn({N, I}, dt, dev);
    EXPECT_LE(relMaxError(swigluForward(gu), reference::swigluForward(gu)), tol.fwd);
    EXPECT_LE(relL2Error(swigluBackward(da, gu), reference::swigluBackward(da, gu)), tol.bwd);
    // The backward's recomputed act (decoder backward uses it for the down projection's dW):
    // the same kernel arithmetic as the forward, so bit-identical to it.
    at::Tensor act;
    auto dgu = swigluBackward(da, gu, &act);
    EXPECT_TRUE(at::equal(act, swigluForward(gu))) << "N=" << N << " I=" << I;
    EXPECT_TRUE(at::equal(dgu, swigluBackward(da, gu)));
  }
}

TEST_P(FusedOps, SoftmaxCrossEntropy) {
  const auto dt = GetParam();
  const Tol tol = tolFor(dt);
  // bf16 rows of V % 8 == 0 up to 156 672 logits (on an H100/H200) take the kernel that reads
  // a row once: 32 000 all in shared memory, 128 256 and 151 936 (2 and 5 register packs a
  // thread, the rest in shared memory); 163 840 is too long and reads it twice, as fp32 rows
  // do; 131 takes the scalar kernel.
  for (auto [n, V] : {std::pair<int64_t, int64_t>{300, 151936}, {37, 131}, {45, 32000}, {29, 128256},
                      {21, 163840}}) {
    auto z = randn({n, V}, dt, dev, 4.0);
    auto y = at::randint(V, {n}, at::TensorOptions().dtype(at::kLong).device(dev));
    auto za = z.clone(), zb = z.clone();
    auto la = softmaxCrossEntropyInPlace(za, y, 1.0 / 300), lb = reference::softmaxCrossEntropyInPlace(zb, y, 1.0 / 300);
    EXPECT_LE(relMaxError(la, lb), 2e-5) << "V=" << V;
    EXPECT_LE(relL2Error(za, zb), tol.bwd) << "V=" << V;
  }
}

// kernels/residual_gemm.h: out = residual + x @ w^T as one cuBLASLt GEMM (C = residual, D =
// out) where the operands allow it (bf16, 16-byte aligned rows), else at::addmm; either way
// at::addmm's sum (the residual added to the fp32 accumulator, one rounding; the GEMM
// algorithms may sum in another order: the forward tolerance), the residual left as it was,
// and a row tile of a larger output written only in its rows.
TEST_P(FusedOps, ResidualGemm) {
  const auto dt = GetParam();
  const Tol tol = tolFor(dt);
  struct Case { int64_t N, K, M; bool aligned; };
  // the o_proj and down_proj shapes of Qwen3-4B (a 1000-row slice), small aligned, and rows of
  // 50 and 20 bf16 (100 / 40 bytes: not 16-byte multiples, so at::addmm)
  for (const Case& k : {Case{1000, 4096, 2560, true}, Case{1000, 9728, 2560, true}, Case{37, 40, 24, true},
                        Case{37, 50, 20, false}}) {
    auto r = randn({k.N, k.M}, dt, dev), x = randn({k.N, k.K}, dt, dev, 0.1), w = randn({k.M, k.K}, dt, dev, 0.1);
    const auto r0 = r.clone();
    EXPECT_EQ(residualGemmFused(r, x, w), dt == at::kBFloat16 && k.aligned) << k.N << "x" << k.K << "x" << k.M;
    const auto ref = at::addmm(r, x, w.t());
    EXPECT_LE(relMaxError(addmmResidual(r, x, w), ref), tol.fwd) << k.N << "x" << k.K << "x" << k.M;
    EXPECT_TRUE(at::equal(r, r0)) << "the residual was written";
    auto big = at::zeros({k.N + 5, k.M}, r.options());
    addmmResidualOut(big.narrow(0, 2, k.N), r, x, w);
    EXPECT_LE(relMaxError(big.narrow(0, 2, k.N), ref), tol.fwd);
    EXPECT_EQ(big.narrow(0, 0, 2).abs().max().item<double>(), 0.0);
    EXPECT_EQ(big.narrow(0, k.N + 2, 3).abs().max().item<double>(), 0.0);
  }
}

// kernels/layer_gemm.h + lt_matmul.h: the decoder's three GEMM forms (a projection x @ w^T,
// an input gradient dy @ w, a weight gradient g += dy^T @ x into fp32) and the residual GEMM,
// under both algorithm choices, against ATen's fp32 product of the same bf16 operands. Timed
// plans must be made, each against ATen's own call (and timed into a scratch for the
// accumulation: g gets one product), whichever wins, and an unaligned operand must fall back
// to ATen.
TEST(LayerGemm, TimedAndLibraryAlgorithmsGiveAtenProducts) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  const at::Device dev{at::kCUDA, 0};
  const auto bf = at::kBFloat16;
  struct Case { int64_t N, in, out; };
  // Qwen3-4B's o_proj at 2048 tokens, a small aligned shape, and rows of 8 bf16 (16 bytes)
  for (const Case& k : {Case{2048, 4096, 2560}, Case{300, 64, 136}, Case{24, 8, 16}}) {
    for (GemmAlgorithm alg : {GemmAlgorithm::kLibrary, GemmAlgorithm::kTimed}) {
      setGemmAlgorithm(alg);
      const size_t timedBefore = ltTimedChoices().size();
      auto x = randn({k.N, k.in}, bf, dev, 0.5), w = randn({k.out, k.in}, bf, dev, 0.1),
           dy = randn({k.N, k.out}, bf, dev, 0.5);
      const auto f = [](const at::Tensor& t) { return t.to(at::kFloat); };
      const std::string tag = std::to_string(k.N) + "x" + std::to_string(k.in) + "x" + std::to_string(k.out) +
                              (alg == GemmAlgorithm::kTimed ? " timed" : " library");
      EXPECT_LE(relMaxError(slidedp::kernels::mm(x, w.t()), at::mm(f(x), f(w).t()).to(bf)), 8e-3) << tag;
      EXPECT_LE(relMaxError(slidedp::kernels::mm(dy, w), at::mm(f(dy), f(w)).to(bf)), 8e-3) << tag;
      auto g = randn({k.out, k.in}, at::kFloat, dev), g0 = g.clone();
      mmAccumulate(g, dy.t(), x);
      EXPECT_LE(relL2Error(g, g0 + at::mm(f(dy).t(), f(x))), 1e-5) << tag << " (one product added)";
      auto r = randn({k.N, k.in}, bf, dev);  // r + dy @ w: the residual GEMM with weight w^T [in, out]
      EXPECT_LE(relMaxError(addmmResidual(r, dy, w.t().contiguous()), (f(r) + at::mm(f(dy), f(w))).to(bf)), 8e-3) << tag;
      const auto timed = ltTimedChoices();
      if (alg == GemmAlgorithm::kLibrary) {
        EXPECT_EQ(timed.size(), timedBefore) << tag << ": a plan was timed";
      }
      if (alg == GemmAlgorithm::kTimed) {
        // mm twice, the accumulation and the residual GEMM: four problems, each timed against
        // ATen's own call (every caller passes it), whichever won
        EXPECT_EQ(timed.size(), timedBefore + 4) << tag;
        for (size_t i = timedBefore; i < timed.size(); ++i) {
          const auto& c = timed[i];
          EXPECT_FALSE(c.problem.empty()) << tag;
          EXPECT_GE(c.contenders, 2) << tag << " " << c.problem;
          EXPECT_TRUE(c.winner >= -1 && c.winner < c.contenders - 1) << tag << " " << c.problem << ": " << c.winner;
          EXPECT_GT(c.winner_ms, 0.0) << tag << " " << c.problem;
          EXPECT_GT(c.library_ms, 0.0) << tag << " " << c.problem << ": ATen's call not timed";
          EXPECT_GT(c.first_ms, 0.0) << tag << " " << c.problem << ": cuBLASLt's first not timed";
        }
      }
    }
  }
  // an operand whose rows are 10 bf16 (20 bytes) apart: not 16-byte aligned, ATen runs it
  setGemmAlgorithm(GemmAlgorithm::kTimed);
  auto x = randn({33, 10}, bf, dev), w = randn({24, 10}, bf, dev);
  EXPECT_FALSE(ltMatmulTakes(at::empty({33, 24}, x.options()), x, w.t(), at::empty({33, 24}, x.options())));
  EXPECT_LE(relMaxError(slidedp::kernels::mm(x, w.t()), at::mm(x, w.t())), 0.0);
  setGemmAlgorithm(GemmAlgorithm::kLibrary);
}

// kernels/lt_matmul.h ltCandidateCalls (what bench_gemm times): every candidate computes the
// product (bf16 output, and an fp32 accumulation d += a @ b); the first is the algorithm
// kLibrary runs, so its output is bit-equal to ltMatmul's; the calls hold their operands (alive
// after the caller's handles are gone, released with the last call), so they still compute the
// product after blocks of those sizes are taken and overwritten; no candidate where ltMatmul
// cannot take the operands or max < 1.
TEST(LtCandidateCalls, FirstIsTheLibraryPlanAndCallsOutliveTheCallersTensors) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  const at::Device dev{at::kCUDA, 0};
  const auto bf = at::kBFloat16;
  const auto f = [](const at::Tensor& t) { return t.to(at::kFloat); };
  setGemmAlgorithm(GemmAlgorithm::kLibrary);
  // Qwen3-4B's o_proj at 2048 tokens (x [N, in] @ w^T [in, out]), and a small aligned shape
  for (const auto& [N, in, out] : {std::array<int64_t, 3>{2048, 4096, 2560}, std::array<int64_t, 3>{300, 64, 136}}) {
    const std::string tag = std::to_string(N) + "x" + std::to_string(in) + "x" + std::to_string(out);
    auto dOut = at::empty({N, out}, at::TensorOptions(bf).device(dev));
    at::Tensor ref, libraryOut;
    std::vector<std::function<void()>> calls;
    std::vector<c10::weak_intrusive_ptr<c10::StorageImpl>> operands;  // x's and w's storage
    {
      auto x = randn({N, in}, bf, dev, 0.5), w = randn({out, in}, bf, dev, 0.1);
      ref = at::mm(f(x), f(w).t()).to(bf);
      libraryOut = at::empty({N, out}, x.options());
      ASSERT_TRUE(ltMatmul(libraryOut, x, w.t(), libraryOut, 0.f)) << tag;
      calls = ltCandidateCalls(dOut, x, w.t(), dOut, 0.f, kTimedCandidates);
      EXPECT_TRUE(ltCandidateCalls(dOut, x, w.t(), dOut, 0.f, 0).empty()) << tag << ": max 0";
      operands.push_back(x.storage().getWeakStorageImpl());
      operands.push_back(w.storage().getWeakStorageImpl());
    }
    ASSERT_FALSE(calls.empty()) << tag << ": cuBLASLt offered no candidate";
    for (const auto& o : operands) EXPECT_FALSE(o.expired()) << tag << ": the calls do not hold their operands";
    EXPECT_LE(calls.size(), static_cast<size_t>(kTimedCandidates)) << tag;
    // Blocks of x's and w's sizes taken and overwritten: were x and w free, the allocator could
    // hand out their blocks here and the products below would be wrong
    auto junk1 = at::full({N, in}, 1e4, at::TensorOptions(bf).device(dev));
    auto junk2 = at::full({out, in}, -1e4, at::TensorOptions(bf).device(dev));
    for (size_t i = 0; i < calls.size(); ++i) {
      dOut.fill_(0);
      calls[i]();
      if (i == 0) {
        EXPECT_TRUE(at::equal(dOut, libraryOut)) << tag << ": candidate 0 is not kLibrary's plan";
      }
      EXPECT_LE(relMaxError(dOut, ref), 8e-3) << tag << " candidate " << i;
    }
    calls.clear();
    for (const auto& o : operands) EXPECT_TRUE(o.expired()) << tag << ": the last call did not release its operands";
    // an fp32 accumulation (a weight gradient g += dy^T @ x), each candidate once from g0
    auto dy = randn({N, out}, bf, dev, 0.5), x = randn({N, in}, bf, dev, 0.5);
    auto g = randn({out, in}, at::kFloat, dev), g0 = g.clone();
    const auto gRef = g0 + at::mm(f(dy).t(), f(x));
    const auto acc = ltCandidateCalls(g, dy.t(), x, g, 1.f, 4);
    ASSERT_FALSE(acc.empty()) << tag << " (accumulation)";
    for (size_t i = 0; i < acc.size(); ++i) {
      g.copy_(g0);
      acc[i]();
      EXPECT_LE(relL2Error(g, gRef), 1e-5) << tag << " accumulation candidate " << i;
    }
  }
  // rows of 10 bf16 (20 bytes): not 16-byte aligned, so no candidate (ltMatmul would fall back)
  auto x = randn({33, 10}, bf, dev), w = randn({24, 10}, bf, dev);
  auto d = at::empty({33, 24}, x.options());
  EXPECT_TRUE(ltCandidateCalls(d, x, w.t(), d, 0.f, 4).empty());
}

INSTANTIATE_TEST_SUITE_P(Dtypes, FusedOps, ::testing::Values(at::kFloat, at::kBFloat16),
                         [](const auto& info) { return std::string(c10::toString(info.param)); });

}  // namespace
