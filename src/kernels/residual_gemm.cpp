// out = residual + x @ w^T as one cuBLASLt GEMM with C != D (residual_gemm.h).
#include "kernels/residual_gemm.h"

#include <ATen/record_function.h>

#include "common/errors.h"

#include "kernels/lt_matmul.h"

namespace slidedp::kernels {

namespace {

bool rowsOk(const at::Tensor& t) { return t.dim() == 2 && t.stride(1) == 1; }

void checkShapes(const at::Tensor& residual, const at::Tensor& x, const at::Tensor& w) {
  SLIDEDP_ASSERT(x.dim() == 2 && w.dim() == 2 && residual.dim() == 2 && x.size(1) == w.size(1) &&
                     residual.size(0) == x.size(0) && residual.size(1) == w.size(0),
                 "residual GEMM needs residual [N, M], x [N, K], w [M, K]; got {}, {}, {}",
                 c10::str(residual.sizes()), c10::str(x.sizes()), c10::str(w.sizes()));
}

}  // namespace

bool residualGemmFused(const at::Tensor& residual, const at::Tensor& x, const at::Tensor& w) {
  return rowsOk(residual) && rowsOk(x) && rowsOk(w) && ltMatmulTakes(residual, x, w.t(), residual);
}

void addmmResidualOut(const at::Tensor& out, const at::Tensor& residual, const at::Tensor& x,
                      const at::Tensor& w) {
  checkShapes(residual, x, w);
  SLIDEDP_ASSERT(out.sizes() == residual.sizes() && rowsOk(out), "residual GEMM output must be [{}, {}] "
                 "with unit column stride, got {}", residual.size(0), residual.size(1), c10::str(out.sizes()));
  if (residualGemmFused(residual, x, w) && ltMatmulTakes(out, x, w.t(), residual)) {
    // an op with its operands' shapes for the profiler (profiling/gpu_profile.cpp counts its FLOPs)
    RECORD_FUNCTION("slidedp::addmm_residual", std::vector<c10::IValue>({residual, x, w}));
    const LibraryGemm library = [&](const at::Tensor& o) {  // under GemmAlgorithm::kTimed: timed beside cuBLASLt's
      at::Tensor t = o;
      at::addmm_out(t, residual, x, w.t());
    };
    if (ltMatmul(out, x, w.t(), residual, 1.f, library)) return;
  }
  at::Tensor o = out;
  at::addmm_out(o, residual, x, w.t());
}

at::Tensor addmmResidual(const at::Tensor& residual, const at::Tensor& x, const at::Tensor& w) {
  checkShapes(residual, x, w);
  if (!residualGemmFused(residual, x, w)) return at::addmm(residual, x, w.t());
  at::Tensor out = at::empty({residual.size(0), residual.size(1)}, residual.options());
  if (out.stride(0) != residual.stride(0)) return at::addmm(residual, x, w.t());
  addmmResidualOut(out, residual, x, w);
  return out;
}

}  // namespace slidedp::kernels
