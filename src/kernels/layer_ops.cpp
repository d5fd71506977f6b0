// Layer operations on at::Tensor (see layer_ops.h): dispatch to the fused CUDA kernels, and the
// ATen references.
#include "kernels/layer_ops.h"

#include <ATen/ATen.h>

#include <atomic>
#include <cstdlib>

#include "common/errors.h"
#ifdef SLIDEDP_WITH_CUDA
#include <c10/cuda/CUDAStream.h>

#include "cuda/checks.h"
#include "kernels/layer_kernels.h"
#endif

namespace slidedp::kernels {

using at::Tensor;

namespace {

std::atomic<bool>& referenceFlag() {
  static std::atomic<bool> forced{[] {
    const char* v = std::getenv("SLIDEDP_REFERENCE_KERNELS");
    return v != nullptr && v[0] == '1';
  }()};
  return forced;
}
bool referenceForced() { return referenceFlag().load(std::memory_order_relaxed); }

Tensor rotateHalf(const Tensor& x) {
  const int64_t half = x.size(-1) / 2;
  return at::cat({-x.narrow(-1, half, half), x.narrow(-1, 0, half)}, -1);
}

// The transpose of rotateHalf: (R^T u)_k = u_{k+h} for k < h, -u_{k-h} otherwise.
Tensor rotateHalfT(const Tensor& u) {
  const int64_t half = u.size(-1) / 2;
  return at::cat({u.narrow(-1, half, half), -u.narrow(-1, 0, half)}, -1);
}

void checkRows(const Tensor& t, int64_t N, const char* what) {
  SLIDEDP_ASSERT(t.dim() == 2 && t.size(0) == N && t.stride(1) == 1, "{} must be [N={}, *] with "
                 "unit column stride, got sizes {} strides {}", what, N, c10::str(t.sizes()), c10::str(t.strides()));
}

#ifdef SLIDEDP_WITH_CUDA
cuda::DType kdtype(const Tensor& t) {
  SLIDEDP_ASSERT(t.scalar_type() == at::kFloat || t.scalar_type() == at::kBFloat16,
                 "fused kernels take fp32 or bf16, got {}", c10::toString(t.scalar_type()));
  return t.scalar_type() == at::kBFloat16 ? cuda::DType::kBF16 : cuda::DType::kF32;
}
cudaStream_t stream(const Tensor& t) {
  return c10::cuda::getCurrentCUDAStream(t.device().index()).stream();
}
float* f32(const Tensor& t) {
  if (!t.defined()) return nullptr;
  SLIDEDP_ASSERT(t.scalar_type() == at::kFloat && t.is_contiguous(), "accumulators are contiguous fp32");
  return t.data_ptr<float>();
}
#endif

}  // namespace

void setReferenceKernels(bool on) { referenceFlag().store(on); }

bool fused(const Tensor& t) {
#ifdef SLIDEDP_WITH_CUDA
  return t.is_cuda() && !referenceForced() &&
         (t.scalar_type() == at::kFloat || t.scalar_type() == at::kBFloat16);
#else
  (void)t;
  return false;
#endif
}

// ---- references ------------------------------------------------------------------------------
namespace reference {

RmsNormResult rmsNormForward(const Tensor& x, const Tensor& w, double eps) {
  // LlamaRMSNorm.forward: float32 statistics, cast back, then scaled by the weight.
  auto xf = x.to(at::kFloat);
  auto rstd = at::rsqrt(xf.pow(2).mean(-1, /*keepdim=*/true) + eps);
  return {w * (xf * rstd).to(x.scalar_type()), rstd.squeeze(-1)};
}

Tensor rmsNormApply(const Tensor& x, const Tensor& rstd, const Tensor& w) {
  return w * (x.to(at::kFloat) * rstd.unsqueeze(-1)).to(x.scalar_type());
}

Tensor rmsNormBackward(const Tensor& dy, const Tensor& x, const Tensor& rstd, const Tensor& w,
                       const Tensor& dwAccum, const Tensor& residual) {
  auto r = rstd.unsqueeze(-1);
  auto n = x.to(at::kFloat) * r;
  auto g = dy.to(at::kFloat);
  auto dn = g * w.to(at::kFloat);
  auto dot = (dn * n).mean(-1, /*keepdim=*/true);
  if (dwAccum.defined())
    dwAccum.add_((g * n.to(x.scalar_type()).to(at::kFloat)).reshape({-1, x.size(-1)}).sum(0));
  auto dx = (r * (dn - n * dot)).to(x.scalar_type());
  if (residual.defined()) dx.add_(residual.reshape(dx.sizes()));
  return dx;
}

QkRopeResult qkNormRopeForward(const Tensor& qkv, int64_t H, int64_t KV, int64_t D,
                               const Tensor& wq, const Tensor& wk, double eps, const Tensor& cos,
                               const Tensor& sin) {
  const int64_t N = qkv.size(0);
  QkRopeResult r;
  auto q = qkv.narrow(1, 0, H * D).reshape({N, H, D});
  auto k = qkv.narrow(1, H * D, KV * D).reshape({N, KV, D});
  if (wq.defined()) {
    auto nq = rmsNormForward(q, wq, eps), nk = rmsNormForward(k, wk, eps);
    q = nq.y;
    k = nk.y;
    r.rq = nq.rstd;
    r.rk = nk.rstd;
  }
  auto c = cos.unsqueeze(1), s = sin.unsqueeze(1);  // [N, 1, D]
  r.q = (q * c + rotateHalf(q) * s).contiguous();
  r.k = (k * c + rotateHalf(k) * s).contiguous();
  return r;
}

void qkNormRopeBackward(const Tensor& dq, const Tensor& dk, const Tensor& qkv, int64_t H,
                        int64_t KV, int64_t D, const Tensor& wq, const Tensor& wk,
                        const QkRopeResult& saved, const Tensor& cos, const Tensor& sin,
                        const Tensor& dqkv, const Tensor& dwqAccum, const Tensor& dwkAccum) {
  const int64_t N = qkv.size(0);
  auto c = cos.unsqueeze(1).to(at::kFloat), s = sin.unsqueeze(1).to(at::kFloat);
  auto back = [&](const Tensor& dout, int64_t col, int64_t heads, const Tensor& w,
                  const Tensor& rstd, const Tensor& dwAccum) {
    auto g = dout.to(at::kFloat).reshape({N, heads, D});
    auto dn = g * c + rotateHalfT(g * s);  // d(normed)
    Tensor dx;
    if (w.defined()) {
      auto x = qkv.narrow(1, col, heads * D).reshape({N, heads, D});
      dx = rmsNormBackward(dn.to(qkv.scalar_type()), x, rstd, w, dwAccum);
    } else {
      dx = dn.to(qkv.scalar_type());
    }
    dqkv.narrow(1, col, heads * D).copy_(dx.reshape({N, heads * D}));
  };
  back(dq, 0, H, wq, saved.rq, dwqAccum);
  back(dk, H * D, KV, wk, saved.rk, dwkAccum);
}

Tensor swigluForward(const Tensor& gu) {
  const int64_t I = gu.size(1) / 2;
  return at::silu(gu.narrow(1, 0, I)) * gu.narrow(1, I, I);
}

Tensor swigluBackward(const Tensor& dact, const Tensor& gu) {
  const int64_t I = gu.size(1) / 2;
  auto g = gu.narrow(1, 0, I).to(at::kFloat), u = gu.narrow(1, I, I).to(at::kFloat);
  auto a = dact.to(at::kFloat);
  auto sg = at::sigmoid(g);
  return at::cat({a * u * sg * (1 + g * (1 - sg)), a * g * sg}, 1).to(gu.scalar_type());
}

Tensor softmaxCrossEntropyInPlace(const Tensor& logits, const Tensor& labels, double scale) {
  auto lf = logits.to(at::kFloat);
  auto lse = lf.logsumexp(-1);
  auto y = labels.unsqueeze(1);
  auto loss = lse - lf.gather(1, y).squeeze(1);
  // d/dlogits of the summed cross-entropy: softmax - onehot.
  auto d = (lf - lse.unsqueeze(1)).exp_();
  d.scatter_add_(1, y, at::full({logits.size(0), 1}, -1.0f, d.options()));
  if (scale != 1.0) d.mul_(scale);
  const_cast<Tensor&>(logits).copy_(d);
  return loss;
}

}  // namespace reference

// ---- dispatch --------------------------------------------------------------------------------
RmsNormResult rmsNormForward(const Tensor& x, const Tensor& w, double eps) {
#ifdef SLIDEDP_WITH_CUDA
  if (fused(x) && x.dim() == 2 && x.is_contiguous()) {
    const int64_t N = x.size(0), C = x.size(1);
    RmsNormResult r{at::empty_like(x), at::empty({N}, x.options().dtype(at::kFloat))};
    auto wc = w.contiguous();
    CUDA_CHECK(cuda::rmsNormForward(kdtype(x), x.data_ptr(), wc.data_ptr(), r.y.data_ptr(),
                                    r.rstd.data_ptr<float>(), N, C, static_cast<float>(eps), stream(x)));
    return r;
  }
#endif
  return reference::rmsNormForward(x, w, eps);
}

Tensor rmsNormApply(const Tensor& x, const Tensor& rstd, const Tensor& w) {
#ifdef SLIDEDP_WITH_CUDA
  if (fused(x) && x.dim() == 2 && x.is_contiguous()) {
    auto y = at::empty_like(x);
    auto wc = w.contiguous();
    CUDA_CHECK(cuda::rmsNormApply(kdtype(x), x.data_ptr(), rstd.contiguous().data_ptr<float>(),
                                  wc.data_ptr(), y.data_ptr(), x.size(0), x.size(1), stream(x)));
    return y;
  }
#endif
  return reference::rmsNormApply(x, rstd, w);
}

Tensor rmsNormBackward(const Tensor& dy, const Tensor& x, const Tensor& rstd, const Tensor& w,
                       const Tensor& dwAccum, const Tensor& residual) {
#ifdef SLIDEDP_WITH_CUDA
  if (fused(x) && x.dim() == 2 && x.is_contiguous() &&
      x.size(1) <= cuda::rmsNormBackwardMaxColumns(kdtype(x))) {
    auto g = dy.to(x.scalar_type()).contiguous();
    auto dx = at::empty_like(x);
    auto wc = w.contiguous();
    Tensor res = residual.defined() ? residual.to(x.scalar_type()).contiguous() : Tensor();
    CUDA_CHECK(cuda::rmsNormBackward(kdtype(x), g.data_ptr(), x.data_ptr(),
                                     rstd.contiguous().data_ptr<float>(), wc.data_ptr(),
                                     res.defined() ? res.data_ptr() : nullptr, dx.data_ptr(),
                                     f32(dwAccum), x.size(0), x.size(1), stream(x)));
    return dx;
  }
#endif
  return reference::rmsNormBackward(dy, x, rstd, w, dwAccum, residual);
}

QkRopeResult qkNormRopeForward(const Tensor& qkv, int64_t H, int64_t KV, int64_t D,
                               const Tensor& wq, const Tensor& wk, double eps, const Tensor& cos,
                               const Tensor& sin) {
  const int64_t N = qkv.size(0);
  checkRows(qkv, N, "qkv");
  SLIDEDP_ASSERT(qkv.size(1) >= (H + KV) * D && cos.numel() == N * D && sin.numel() == N * D,
                 "qkNormRope: qkv [{}, {}] too narrow for H={} KV={} D={}, or cos/sin not [N, D]",
                 N, qkv.size(1), H, KV, D);
#ifdef SLIDEDP_WITH_CUDA
  const size_t smem = static_cast<size_t>((H + KV) * D + H + KV + 2 * D) * sizeof(float);
  if (fused(qkv) && D % 2 == 0 && smem <= 48 * 1024) {
    QkRopeResult r;
    r.q = at::empty({N, H, D}, qkv.options());
    r.k = at::empty({N, KV, D}, qkv.options());
    const bool norm = wq.defined();
    Tensor wqc, wkc;
    if (norm) {
      r.rq = at::empty({N, H}, qkv.options().dtype(at::kFloat));
      r.rk = at::empty({N, KV}, qkv.options().dtype(at::kFloat));
      wqc = wq.contiguous();
      wkc = wk.contiguous();
    }
    auto c = cos.to(qkv.scalar_type()).contiguous(), s = sin.to(qkv.scalar_type()).contiguous();
    CUDA_CHECK(cuda::qkNormRopeForward(
        kdtype(qkv), qkv.data_ptr(), qkv.stride(0), N, static_cast<int>(H), static_cast<int>(KV),
        static_cast<int>(D), norm ? wqc.data_ptr() : nullptr, norm ? wkc.data_ptr() : nullptr,
        static_cast<float>(eps), c.data_ptr(), s.data_ptr(), r.q.data_ptr(), r.k.data_ptr(),
        norm ? r.rq.data_ptr<float>() : nullptr, norm ? r.rk.data_ptr<float>() : nullptr, stream(qkv)));
    return r;
  }
#endif
  return reference::qkNormRopeForward(qkv, H, KV, D, wq, wk, eps, cos.reshape({N, D}),
                                      sin.reshape({N, D}));
}

void qkNormRopeBackward(const Tensor& dq, const Tensor& dk, const Tensor& qkv, int64_t H,
                        int64_t KV, int64_t D, const Tensor& wq, const Tensor& wk,
                        const QkRopeResult& saved, const Tensor& cos, const Tensor& sin,
                        const Tensor& dqkv, const Tensor& dwqAccum, const Tensor& dwkAccum) {
  const int64_t N = qkv.size(0);
  checkRows(qkv, N, "qkv");
  checkRows(dqkv, N, "dqkv");
#ifdef SLIDEDP_WITH_CUDA
  const size_t smem = static_cast<size_t>((H + KV) * D + H + KV + 2 * D) * sizeof(float);
  if (fused(qkv) && D % 2 == 0 && smem <= 48 * 1024) {
    const bool norm = wq.defined();
    auto gq = dq.to(qkv.scalar_type()).contiguous(), gk = dk.to(qkv.scalar_type()).contiguous();
    auto c = cos.to(qkv.scalar_type()).contiguous(), s = sin.to(qkv.scalar_type()).contiguous();
    Tensor wqc = norm ? wq.contiguous() : Tensor(), wkc = norm ? wk.contiguous() : Tensor();
    CUDA_CHECK(cuda::qkNormRopeBackward(
        kdtype(qkv), gq.data_ptr(), gk.data_ptr(), qkv.data_ptr(), qkv.stride(0), N,
        static_cast<int>(H), static_cast<int>(KV), static_cast<int>(D),
        norm ? wqc.data_ptr() : nullptr, norm ? wkc.data_ptr() : nullptr,
        norm ? saved.rq.data_ptr<float>() : nullptr, norm ? saved.rk.data_ptr<float>() : nullptr,
        c.data_ptr(), s.data_ptr(), dqkv.data_ptr(), dqkv.stride(0),
        norm ? f32(dwqAccum) : nullptr, norm ? f32(dwkAccum) : nullptr, stream(qkv)));
    return;
  }
#endif
  reference::qkNormRopeBackward(dq, dk, qkv, H, KV, D, wq, wk, saved, cos.reshape({N, D}),
                                sin.reshape({N, D}), dqkv, dwqAccum, dwkAccum);
}

Tensor swigluForward(const Tensor& gu) {
#ifdef SLIDEDP_WITH_CUDA
  if (fused(gu) && gu.dim() == 2 && gu.is_contiguous()) {
    const int64_t N = gu.size(0), I = gu.size(1) / 2;
    auto act = at::empty({N, I}, gu.options());
    CUDA_CHECK(cuda::swigluForward(kdtype(gu), gu.data_ptr(), act.data_ptr(), N, I, stream(gu)));
    return act;
  }
#endif
  return reference::swigluForward(gu);
}

Tensor swigluBackward(const Tensor& dact, const Tensor& gu, Tensor* actOut) {
#ifdef SLIDEDP_WITH_CUDA
  if (fused(gu) && gu.dim() == 2 && gu.is_contiguous()) {
    auto a = dact.to(gu.scalar_type()).contiguous();
    auto dgu = at::empty_like(gu);
    const int64_t N = gu.size(0), I = gu.size(1) / 2;
    if (actOut) *actOut = at::empty({N, I}, gu.options());
    CUDA_CHECK(cuda::swigluBackward(kdtype(gu), a.data_ptr(), gu.data_ptr(), dgu.data_ptr(),
                                    actOut ? actOut->data_ptr() : nullptr, N, I, stream(gu)));
    return dgu;
  }
#endif
  if (actOut) *actOut = swigluForward(gu);
  return reference::swigluBackward(dact, gu);
}

Tensor softmaxCrossEntropyInPlace(const Tensor& logits, const Tensor& labels, double scale) {
#ifdef SLIDEDP_WITH_CUDA
  if (fused(logits) && logits.dim() == 2 && logits.is_contiguous()) {
    const int64_t n = logits.size(0), V = logits.size(1);
    auto y = labels.to(at::kLong).contiguous();
    auto loss = at::empty({n}, logits.options().dtype(at::kFloat));
    CUDA_CHECK(cuda::softmaxCrossEntropyInPlace(kdtype(logits), logits.data_ptr(), y.data_ptr<int64_t>(),
                                                loss.data_ptr<float>(), n, V, static_cast<float>(scale),
                                                stream(logits)));
    return loss;
  }
#endif
  return reference::softmaxCrossEntropyInPlace(logits, labels, scale);
}

}  // namespace slidedp::kernels
