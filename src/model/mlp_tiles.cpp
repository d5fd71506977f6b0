// Sequence-tiled MLP (see mlp_tiles.h).
#include "model/mlp_tiles.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <atomic>

#include "common/errors.h"
#include "kernels/layer_ops.h"
#include "kernels/residual_gemm.h"
#include "model/config.h"
#include "model/decoder_parts.h"

namespace slidedp::model {

using at::Tensor;
using detail::addmmAccumulate;
using detail::Scope;

namespace {
std::atomic<int64_t>& tileSetting() {
  static std::atomic<int64_t> t{0};
  return t;
}
}  // namespace

void setMlpTileTokens(int64_t tokens) { tileSetting().store(tokens); }
int64_t mlpTileTokens() { return tileSetting().load(); }

int64_t mlpTileRows(int64_t N, int64_t I, int64_t elementBytes) {
  const int64_t s = mlpTileTokens();
  if (s < 0 || N <= 1) return 0;
  if (s > 0) return s < N ? s : 0;
  return autoMlpTileRows(N, I, elementBytes);
}

int64_t mlpTileRows(const ModelConfig& config, int64_t N, int64_t elementBytes) {
  return config.mlpBias ? 0 : mlpTileRows(N, config.intermediateSize, elementBytes);
}

Tensor mlpForwardTiled(const MlpWeights& w, const Tensor& h1, int64_t tileRows, Tensor* rstd2) {
  const int64_t N = h1.size(0);
  SLIDEDP_ASSERT(h1.dim() == 2 && h1.is_contiguous() && tileRows > 0,
                 "mlpForwardTiled: h1 must be contiguous [N, C] and tileRows > 0");
  Tensor y = at::empty_like(h1);
  if (rstd2) *rstd2 = at::empty({N}, h1.options().dtype(at::kFloat));
  for (int64_t r0 = 0; r0 < N; r0 += tileRows) {
    const int64_t m = std::min(tileRows, N - r0);
    const Tensor h1t = h1.narrow(0, r0, m);
    kernels::RmsNormResult n2;
    {
      Scope s("fwd.post_norm");
      n2 = kernels::rmsNormForward(h1t, w.postNorm, w.eps);
      if (rstd2) rstd2->narrow(0, r0, m).copy_(n2.rstd);
    }
    Tensor gu;
    {
      Scope s("fwd.gate_up_proj");
      gu = kernels::mm(n2.y, w.gateUp.t());  // [m, 2I]
    }
    n2 = kernels::RmsNormResult();
    Tensor act;
    {
      Scope s("fwd.swiglu");
      act = kernels::swigluForward(gu);
    }
    gu = Tensor();
    Scope s("fwd.down_proj");
    Tensor yt = y.narrow(0, r0, m);
    kernels::addmmResidualOut(yt, h1t, act, w.down);  // the residual add in the GEMM's epilogue
  }
  return y;
}

Tensor mlpBackwardTiled(const MlpWeights& w, const MlpGrads& g, const Tensor& h1,
                        const Tensor& rstd2, const Tensor& dy, int64_t tileRows) {
  const int64_t N = h1.size(0);
  SLIDEDP_ASSERT(h1.dim() == 2 && h1.is_contiguous() && dy.is_contiguous() && dy.sizes() == h1.sizes() &&
                     tileRows > 0,
                 "mlpBackwardTiled: h1 and dy must be contiguous [N, C] and tileRows > 0");
  Tensor dh1 = at::empty_like(h1);
  for (int64_t r0 = 0; r0 < N; r0 += tileRows) {
    const int64_t m = std::min(tileRows, N - r0);
    const Tensor h1t = h1.narrow(0, r0, m), dyt = dy.narrow(0, r0, m);
    Tensor rt, h2;
    {
      Scope s("bwd.post_norm_recompute");
      if (rstd2.defined()) {
        rt = rstd2.narrow(0, r0, m);
        h2 = kernels::rmsNormApply(h1t, rt, w.postNorm);
      } else {
        auto n2 = kernels::rmsNormForward(h1t, w.postNorm, w.eps);
        h2 = n2.y;
        rt = n2.rstd;
      }
    }
    Tensor gu;
    {
      Scope s("bwd.gate_up_recompute");
      gu = kernels::mm(h2, w.gateUp.t());  // [m, 2I]
    }
    // As the untiled backward (decoder.cpp): dact = dy @ W_down first, then one pass over gu
    // gives dgu and the recomputed act for the down projection's weight gradient.
    Tensor dact;
    {
      Scope s("bwd.down_proj", ".dX");
      dact = kernels::mm(dyt, w.down);  // [m, I]
    }
    Tensor act, dgu;
    {
      Scope s("bwd.swiglu");
      dgu = kernels::swigluBackward(dact, gu, &act);
    }
    dact = Tensor();
    gu = Tensor();
    {
      Scope s("bwd.down_proj", ".dW");
      addmmAccumulate(g.down, dyt.t(), act);
    }
    act = Tensor();
    {
      Scope s("bwd.gate_up_proj", ".dW");
      addmmAccumulate(g.gateUp, dgu.t(), h2);
    }
    Tensor dh2;
    {
      Scope s("bwd.gate_up_proj", ".dX");
      dh2 = kernels::mm(dgu, w.gateUp);  // [m, C]
    }
    dgu = Tensor();
    h2 = Tensor();
    Scope s("bwd.post_norm");  // + dy: the residual branch of y = h1 + mlp
    dh1.narrow(0, r0, m).copy_(kernels::rmsNormBackward(dh2, h1t, rt, w.postNorm, g.postNorm, dyt));
  }
  return dh1;
}

}  // namespace slidedp::model
