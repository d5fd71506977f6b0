// The long-sequence memory paths of the decoder layer on CPU (fp32, and bf16 where noted),
// against the paths they replace (issue 14):
//  - the sequence-tiled MLP (model/mlp_tiles.h) against the untiled MLP: forward output, input
//    gradient and every parameter gradient, kept and recomputed, with a tile that does not
//    divide the tokens, plain causal rows and packed documents (position_ids resets);
//  - the attention-output policy (LayerActivations::attentionOnly) against keep and
//    recompute: the same gradients, fewer bytes kept, and the attention not run in backward;
//  - the recompute forward (decoderLayerRecompute), whole and around a kept attention output:
//    what it keeps is bit-identical to the kept forward's, and it does not run what only the
//    layer's output needs (the SwiGLU product and down projection; tiled: the MLP; with a kept
//    attention output: the attention and the q/k norm + RoPE), seen through the ops' profiling
//    scopes (at::RecordFunction USER_SCOPE callbacks);
//  - the tile size chosen from the budget (mlpTileRows) at the Qwen3-4B shape;
//  - the gradient-bucket hook (decoderLayerBackward's onMlpGradients) on every one of these
//    paths: called once, when the MLP bucket's gradient is final and the rest not begun.
//
// Tolerances (fp32 on CPU):
//  - tiled vs untiled forward and input gradient: relMaxError <= 1e-6. Every row's arithmetic
//    is the same (the same kernels per row; a GEMM row does not depend on the other rows), so
//    only the BLAS kernel's blocking for a different row count can change a rounding.
//  - tiled vs untiled weight gradients: relMaxError <= 1e-5. Their sums over tokens are split
//    into per-tile GEMMs added into the fp32 accumulator (beta = 1): a different order of fp32
//    additions over N tokens (<= N * 2^-24 relative in the worst case, ~1e-7 in practice).
//  - attention-output policy vs keep and vs recompute: bit-identical (tolerance 0). Its
//    backward recomputes the same GEMMs and kernels on the same inputs and shapes as the
//    forward did, and the CPU flash backward takes the same output and log-sum-exp.
// Fixtures: stories260K (Llama, GQA 8/4) always; the Qwen3 fixture of make_references.py (q/k
// norm, untied), Llama-3 untied, and Llama-3 with attention and MLP biases (whose MLP runs
// untiled by design) of make_references.py (FIXTURES_REQUIRED in CMake).
#include <gtest/gtest.h>

#include <ATen/record_function.h>

#include <algorithm>
#include <set>

#include "formats/fs_util.h"
#include "formats/safetensors.h"
#include "model/decoder.h"
#include "model/hf_checkpoint.h"
#include "model/mlp_tiles.h"
#include "model_test_util.h"

using namespace slidedp::model;
using namespace slidedp::model::test;

namespace {

constexpr double kFwdTol = 1e-6;
constexpr double kGradTol = 1e-5;

// Sets the MLP tiling for one scope, then back to auto.
struct TileSetting {
  explicit TileSetting(int64_t t) { setMlpTileTokens(t); }
  ~TileSetting() { setMlpTileTokens(0); }
};

std::string modelDir(const std::string& name) {
  if (name == "stories260K") return std::string(SLIDEDP_SHARED_DIR) + "/models/stories260K";
  return std::string(SLIDEDP_MODEL_FIXTURES) + "/" + name + "/model";
}

// One decoder layer's inputs: x [B, T, C] and dy, random but fixed; position ids with two
// document resets in the last row when `packed`.
struct LayerCase {
  HostModel m;
  std::vector<at::Tensor> units;
  int u = 1;
  at::Tensor x, dy;
  AttentionContext ctx;
};

LayerCase makeCase(const std::string& name, int64_t B, int64_t T, bool packed,
                   at::ScalarType dtype = at::kFloat) {
  LayerCase k{loadHostModel(modelDir(name)), {}, 0, {}, {}, {}};
  k.units = unitTensors(k.m, dtype, at::kCPU);
  k.u = k.m.layout.decoderUnit(static_cast<int>(k.m.config.numLayers) - 1);
  auto gen = at::make_generator<at::CPUGeneratorImpl>(1234);
  const int64_t C = k.m.config.hiddenSize;
  k.x = at::randn({B, T, C}, gen, at::TensorOptions().dtype(at::kFloat)).to(dtype);
  k.dy = (at::randn({B, T, C}, gen, at::TensorOptions().dtype(at::kFloat)) * 1e-2).to(dtype);
  at::Tensor pos;
  if (packed) {
    pos = at::arange(T, at::kLong).unsqueeze(0).repeat({B, 1});
    pos[B - 1].narrow(0, T / 3, T - T / 3).sub_(T / 3);          // a document starts at T/3
    pos[B - 1].narrow(0, 2 * T / 3, T - 2 * T / 3).sub_(T / 3);  // and another at 2T/3
  }
  k.ctx = makeAttentionContext(k.m.config, B, T, pos, dtype, at::kCPU);
  if (packed) {
    EXPECT_TRUE(k.ctx.mask.defined());
  }
  return k;
}

struct LayerRun {
  at::Tensor y, dx, gradFlat;
  int64_t keptBytes = 0;
  bool keptGu = false;
};

enum class Mode { kKeep, kAttentionOnly, kRecompute };

LayerRun runLayer(const LayerCase& k, Mode mode) {
  at::NoGradGuard noGrad;
  const auto& unit = k.m.layout.units[k.u];
  const auto& flat = k.units[k.u];
  LayerRun r;
  if (mode == Mode::kRecompute) {
    r.y = decoderLayerForward(k.m.config, unit, flat, k.x, k.ctx);
    auto g = decoderLayerBackward(k.m.config, unit, flat, k.x, k.dy, k.ctx);
    r.dx = g.gradInput;
    r.gradFlat = g.gradFlat;
    r.keptBytes = static_cast<int64_t>(k.x.nbytes());
    return r;
  }
  LayerActivations acts;
  r.y = decoderLayerForward(k.m.config, unit, flat, k.x, k.ctx, &acts);
  r.keptGu = acts.gu.defined();
  if (mode == Mode::kAttentionOnly) acts = acts.attentionOnly();
  r.keptBytes = acts.bytes();
  r.gradFlat = at::zeros({unit.numel}, at::kFloat);
  r.dx = decoderLayerBackward(k.m.config, unit, flat, acts, k.dy, k.ctx, r.gradFlat);
  return r;
}

void expectClose(const LayerRun& a, const LayerRun& b, double fwdTol, double gradTol,
                 const std::string& what) {
  EXPECT_LE(relMaxError(a.y, b.y), fwdTol) << what << ": output";
  EXPECT_LE(relMaxError(a.dx, b.dx), fwdTol) << what << ": input gradient";
  EXPECT_LE(relMaxError(a.gradFlat, b.gradFlat), gradTol) << what << ": parameter gradient";
  std::printf("%s: output %.3g, input grad %.3g, parameter grad %.3g\n", what.c_str(),
              relMaxError(a.y, b.y), relMaxError(a.dx, b.dx), relMaxError(a.gradFlat, b.gradFlat));
}

void expectIdentical(const LayerRun& a, const LayerRun& b, const std::string& what) {
  EXPECT_TRUE(at::equal(a.y, b.y)) << what << ": output";
  EXPECT_TRUE(at::equal(a.dx, b.dx)) << what << ": input gradient, max diff "
                                     << (a.dx - b.dx).abs().max().item<double>();
  EXPECT_TRUE(at::equal(a.gradFlat, b.gradFlat))
      << what << ": parameter gradient, max diff " << (a.gradFlat - b.gradFlat).abs().max().item<double>();
}

bool mlpBias(const LayerCase& k) {
  for (const auto& p : k.m.layout.units[k.u].params)
    if (p.name.find("mlp.down_proj.bias") != std::string::npos) return true;
  return false;
}

bool fixturePresent(const std::string& name) {
  return name == "stories260K" || slidedp::formats::pathExists(modelDir(name) + "/config.json");
}

class LongSequenceLayer : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (!fixturePresent(GetParam()))
      GTEST_SKIP() << GetParam() << " fixture missing: run `ctest -R model_make_references` first";
  }
};

}  // namespace

TEST_P(LongSequenceLayer, TiledMlpEqualsUntiled) {
  // B = 2 rows of T = 37 tokens: N = 74 rows in tiles of 16 (the last one 10 rows).
  for (bool packed : {false, true}) {
    const LayerCase k = makeCase(GetParam(), 2, 37, packed);
    for (Mode mode : {Mode::kKeep, Mode::kRecompute}) {
      LayerRun untiled, tiled;
      {
        TileSetting off(-1);
        untiled = runLayer(k, mode);
      }
      {
        TileSetting on(16);
        ASSERT_EQ(mlpTileRows(74, k.m.config.intermediateSize, 4), 16);
        tiled = runLayer(k, mode);
      }
      if (mode == Mode::kKeep) {
        EXPECT_TRUE(untiled.keptGu);
        if (mlpBias(k)) {  // a biased MLP runs untiled by design (mlp_tiles.h)
          EXPECT_TRUE(tiled.keptGu);
        } else {
          EXPECT_FALSE(tiled.keptGu) << "a tiled layer must not keep the [N, 2I] gate/up output";
          EXPECT_LT(tiled.keptBytes, untiled.keptBytes);
        }
      }
      expectClose(tiled, untiled, kFwdTol, kGradTol,
                  GetParam() + (packed ? " packed" : " causal") +
                      (mode == Mode::kKeep ? " keep" : " recompute") + ", tiled vs untiled");
    }
  }
}

TEST_P(LongSequenceLayer, TiledMlpOneRowTilesAndBf16) {
  // Tiles of one row (every GEMM a GEMV), and bf16 on CPU against untiled bf16: the bf16 weight
  // gradients are rounded per tile (addmmAccumulate on CPU bf16: mm in bf16, then added in
  // fp32), so they get the bf16 tolerance of one rounding per tile sum, relMaxError 2e-2.
  const LayerCase k = makeCase(GetParam(), 1, 9, false);
  LayerRun untiled, tiled;
  {
    TileSetting off(-1);
    untiled = runLayer(k, Mode::kKeep);
  }
  {
    TileSetting on(1);
    tiled = runLayer(k, Mode::kKeep);
  }
  expectClose(tiled, untiled, kFwdTol, kGradTol, GetParam() + " one-row tiles");
  const LayerCase b = makeCase(GetParam(), 2, 21, true, at::kBFloat16);
  {
    TileSetting off(-1);
    untiled = runLayer(b, Mode::kKeep);
  }
  {
    TileSetting on(8);
    tiled = runLayer(b, Mode::kKeep);
  }
  EXPECT_TRUE(at::equal(tiled.y, untiled.y)) << "bf16 forward: per-row arithmetic is the same";
  expectClose(tiled, untiled, 1e-2, 2e-2, GetParam() + " bf16 tiled vs untiled");
}

TEST_P(LongSequenceLayer, AttentionOutputPolicyGivesTheSameGradients) {
  for (bool packed : {false, true}) {
    for (int64_t tile : {int64_t{-1}, int64_t{16}}) {
      TileSetting t(tile);
      const LayerCase k = makeCase(GetParam(), 2, 37, packed);
      const LayerRun keep = runLayer(k, Mode::kKeep);
      const LayerRun attn = runLayer(k, Mode::kAttentionOnly);
      const LayerRun rec = runLayer(k, Mode::kRecompute);
      const std::string what = GetParam() + (packed ? " packed" : " causal") +
                               (tile > 0 ? " tiled" : " untiled");
      expectIdentical(attn, keep, what + ", attention-output vs keep");
      expectIdentical(attn, rec, what + ", attention-output vs recompute");
      // x + attn + lse: (C + Q) * 4 + 4 H bytes per token in fp32.
      const auto& c = k.m.config;
      const int64_t N = 2 * 37;
      EXPECT_EQ(attn.keptBytes, N * ((c.hiddenSize + c.qDim()) * 4 + 4 * c.numHeads)) << what;
      EXPECT_LT(attn.keptBytes, keep.keptBytes) << what;
      std::printf("%s: bytes kept per token: keep %lld, attention output %lld, recompute %lld\n",
                  what.c_str(), (long long)(keep.keptBytes / N), (long long)(attn.keptBytes / N),
                  (long long)(rec.keptBytes / N));
    }
  }
}

TEST_P(LongSequenceLayer, AttentionOutputPolicyDoesNotRunTheAttentionInBackward) {
  // With the kept output and log-sum-exp replaced by different values, backward must use them
  // (a recomputed attention would ignore them): the gradients change.
  const LayerCase k = makeCase(GetParam(), 1, 16, false);
  at::NoGradGuard noGrad;
  const auto& unit = k.m.layout.units[k.u];
  LayerActivations acts;
  decoderLayerForward(k.m.config, unit, k.units[k.u], k.x, k.ctx, &acts);
  LayerActivations a = acts.attentionOnly(), b = acts.attentionOnly();
  ASSERT_TRUE(a.isAttentionOnly());
  b.attnOut4 = b.attnOut4.clone().mul_(2);
  b.attn = b.attnOut4.transpose(1, 2).reshape(a.attn.sizes());
  auto ga = at::zeros({unit.numel}, at::kFloat), gb = at::zeros({unit.numel}, at::kFloat);
  auto dxa = decoderLayerBackward(k.m.config, unit, k.units[k.u], a, k.dy, k.ctx, ga);
  auto dxb = decoderLayerBackward(k.m.config, unit, k.units[k.u], b, k.dy, k.ctx, gb);
  EXPECT_FALSE(at::equal(dxa, dxb));
}

TEST_P(LongSequenceLayer, MlpGradientHookSeesTheFinalMlpBucketBeforeTheAttention) {
  // The worker hands [split, numel) to the leader from this hook while the attention's
  // backward still runs (ChunkPlan::bucket_splits): at the call those elements must hold their
  // final values and [0, split) must not have been touched yet (the accumulator starts at 0).
  for (int64_t tile : {int64_t{-1}, int64_t{16}}) {
    for (Mode mode : {Mode::kKeep, Mode::kAttentionOnly}) {
      TileSetting t(tile);
      const LayerCase k = makeCase(GetParam(), 2, 37, false);
      at::NoGradGuard noGrad;
      const auto& unit = k.m.layout.units[k.u];
      const int64_t split = k.m.layout.gradientBucketSplits().at(static_cast<size_t>(k.u));
      ASSERT_GT(split, 0);
      ASSERT_LT(split, unit.numel);
      LayerActivations acts;
      decoderLayerForward(k.m.config, unit, k.units[k.u], k.x, k.ctx, &acts);
      if (mode == Mode::kAttentionOnly) acts = acts.attentionOnly();
      auto g = at::zeros({unit.numel}, at::kFloat);
      at::Tensor at_hook;
      int calls = 0;
      decoderLayerBackward(k.m.config, unit, k.units[k.u], acts, k.dy, k.ctx, g, [&] {
        ++calls;
        at_hook = g.clone();
      });
      const std::string what = GetParam() + (tile > 0 ? " tiled" : " untiled") +
                               (mode == Mode::kKeep ? ", kept" : ", attention output");
      ASSERT_EQ(calls, 1) << what;
      EXPECT_TRUE(at::equal(at_hook.narrow(0, split, unit.numel - split), g.narrow(0, split, unit.numel - split)))
          << what << ": the MLP bucket changed after the hook";
      EXPECT_EQ(at_hook.narrow(0, 0, split).abs().max().item<float>(), 0.0f)
          << what << ": the attention's gradient was written before the hook";
      EXPECT_GT(g.narrow(0, 0, split).abs().max().item<float>(), 0.0f) << what;
      EXPECT_GT(g.narrow(0, split, unit.numel - split).abs().max().item<float>(), 0.0f) << what;
    }
  }
}

namespace {

// The profiling scopes (profiling/scope.h: at::RecordFunction USER_SCOPE ranges) entered on this
// thread while one of these is alive.
std::set<std::string>& seenScopes() {
  static std::set<std::string> s;
  return s;
}
struct ScopeLog {
  ScopeLog() {
    seenScopes().clear();
    handle = at::addThreadLocalCallback(
        at::RecordFunctionCallback(
            [](const at::RecordFunction& fn) -> std::unique_ptr<at::ObserverContext> {
              seenScopes().insert(fn.name());
              return nullptr;
            })
            .scopes({at::RecordScope::USER_SCOPE}));
  }
  ~ScopeLog() { at::removeCallback(handle); }
  bool ran(const std::string& scope) const { return seenScopes().count(scope) > 0; }
  at::CallbackHandle handle;
};

void expectSameTensor(const at::Tensor& a, const at::Tensor& b, const std::string& what) {
  ASSERT_EQ(a.defined(), b.defined()) << what;
  if (a.defined()) {
    EXPECT_TRUE(at::equal(a, b)) << what;
  }
}

}  // namespace

TEST_P(LongSequenceLayer, RecomputeKeepsTheSameTensorsAndSkipsWhatOnlyTheOutputNeeds) {
  for (bool packed : {false, true}) {
    for (int64_t tile : {int64_t{-1}, int64_t{16}}) {
      TileSetting t(tile);
      const LayerCase k = makeCase(GetParam(), 2, 37, packed);
      const std::string what = GetParam() + (packed ? " packed" : " causal") + (tile > 0 ? " tiled" : " untiled");
      const bool tiled = tile > 0 && !mlpBias(k);
      at::NoGradGuard noGrad;
      const auto& unit = k.m.layout.units[k.u];
      const auto& flat = k.units[k.u];
      LayerActivations kept, rec, around;
      {
        ScopeLog log;
        decoderLayerForward(k.m.config, unit, flat, k.x, k.ctx, &kept);
        ASSERT_TRUE(log.ran("fwd.down_proj")) << what << ": the scope log sees nothing";
      }
      {
        ScopeLog log;
        decoderLayerRecompute(k.m.config, unit, flat, k.x, k.ctx, rec);
        EXPECT_TRUE(log.ran("fwd.attention")) << what;
        EXPECT_FALSE(log.ran("fwd.down_proj")) << what;
        EXPECT_FALSE(log.ran("fwd.swiglu")) << what;
        EXPECT_EQ(log.ran("fwd.gate_up_proj"), !tiled) << what;
      }
      for (auto [name, a, b] : {std::tuple{"x", &kept.x, &rec.x}, {"rstd1", &kept.rstd1, &rec.rstd1},
                                {"qkv", &kept.qkv, &rec.qkv}, {"rq", &kept.rq, &rec.rq}, {"rk", &kept.rk, &rec.rk},
                                {"attn", &kept.attn, &rec.attn}, {"lse", &kept.lse, &rec.lse},
                                {"h1", &kept.h1, &rec.h1}, {"gu", &kept.gu, &rec.gu}})
        expectSameTensor(*a, *b, what + ", recompute: " + name);
      if (tiled) {
        EXPECT_FALSE(rec.rstd2.defined()) << what << ": the tiled backward takes rstd2 from its own norm";
      } else {
        expectSameTensor(kept.rstd2, rec.rstd2, what + ", recompute: rstd2");
      }
      const LayerActivations saved = kept.attentionOnly();
      {
        ScopeLog log;
        decoderLayerRecompute(k.m.config, unit, flat, k.x, k.ctx, around, &saved);
        EXPECT_FALSE(log.ran("fwd.attention")) << what;
        EXPECT_FALSE(log.ran("fwd.qk_norm_rope")) << what;
        EXPECT_FALSE(log.ran("fwd.down_proj")) << what;
        EXPECT_TRUE(log.ran("fwd.o_proj")) << what;
      }
      EXPECT_FALSE(around.rq.defined()) << what << ": backward recomputes the q/k norm and its rstd";
      for (auto [name, a, b] : {std::tuple{"x", &kept.x, &around.x}, {"qkv", &kept.qkv, &around.qkv},
                                {"attn", &kept.attn, &around.attn}, {"h1", &kept.h1, &around.h1},
                                {"gu", &kept.gu, &around.gu}})
        expectSameTensor(*a, *b, what + ", around the attention output: " + name);
      // and backward from each gives the kept layer's gradients, bit for bit
      auto g0 = at::zeros({unit.numel}, at::kFloat), g1 = at::zeros({unit.numel}, at::kFloat);
      const auto dx0 = decoderLayerBackward(k.m.config, unit, flat, kept, k.dy, k.ctx, g0);
      const auto dx1 = decoderLayerBackward(k.m.config, unit, flat, rec, k.dy, k.ctx, g1);
      EXPECT_TRUE(at::equal(dx0, dx1)) << what;
      EXPECT_TRUE(at::equal(g0, g1)) << what;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Models, LongSequenceLayer,
                         ::testing::Values("stories260K", "qwen3_untied_new", "llama3_untied_new",
                                           "llama3_tied_bias_old"));

TEST(MlpTileRows, FromTheBudgetOnlyForLongSequences) {
  TileSetting t(0);
  const int64_t I = 9728, es = 2;  // Qwen3-4B, bf16
  // The 4K benchmark shapes (up to 16 rows x 4096) and 64K tokens stay untiled.
  EXPECT_EQ(mlpTileRows(16 * 4096, I, es), 0);
  EXPECT_EQ(mlpTileRows(65536, I, es), 0);
  // 128K and 512K: tiles of about kMlpTileBytes of gate/up output, a multiple of 256 rows.
  const int64_t rows = mlpTileRows(131072, I, es);
  EXPECT_EQ(rows, 13568);
  EXPECT_LE(rows * 2 * I * es, kMlpTileBytes);
  EXPECT_GT((rows + 256) * 2 * I * es, kMlpTileBytes);
  EXPECT_EQ(mlpTileRows(524288, I, es), rows);
  // Forced and off.
  setMlpTileTokens(100);
  EXPECT_EQ(mlpTileRows(1000, I, es), 100);
  EXPECT_EQ(mlpTileRows(100, I, es), 0);  // one tile: the untiled path
  setMlpTileTokens(-1);
  EXPECT_EQ(mlpTileRows(524288, I, es), 0);
}

TEST(MlpTileRows, AModelsMlpWithBiasesIsNeverTiled) {
  ModelConfig c;
  c.intermediateSize = 9728;  // Qwen3-4B's
  TileSetting t(0);
  EXPECT_EQ(mlpTileRows(c, 131072, 2), 13568);  // as mlpTileRows(N, I, es)
  c.mlpBias = true;
  EXPECT_EQ(mlpTileRows(c, 131072, 2), 0);
  setMlpTileTokens(100);  // not even forced
  EXPECT_EQ(mlpTileRows(c, 1000, 2), 0);
  c.mlpBias = false;
  EXPECT_EQ(mlpTileRows(c, 1000, 2), 100);
}
