// The decoder's GEMMs: cuBLASLt with the chosen algorithm, or ATen (layer_gemm.h).
#include "kernels/layer_gemm.h"

#include <ATen/record_function.h>

#include <vector>

#include "kernels/lt_matmul.h"

namespace slidedp::kernels {

namespace {

// Under kLibrary ATen's own call (cuBLAS's choice, what ran before --gemm-algorithm existed).
bool timedLt(const at::Tensor& d, const at::Tensor& a, const at::Tensor& b) {
  return gemmAlgorithm() == GemmAlgorithm::kTimed && ltMatmulTakes(d, a, b, d);
}

}  // namespace

void mmOut(const at::Tensor& out, const at::Tensor& a, const at::Tensor& b) {
  if (timedLt(out, a, b)) {
    RECORD_FUNCTION("slidedp::mm", std::vector<c10::IValue>({a, b}));
    const LibraryGemm library = [&](const at::Tensor& o) {
      at::Tensor t = o;
      at::mm_out(t, a, b);
    };
    if (ltMatmul(out, a, b, out, 0.f, library)) return;
  }
  at::Tensor o = out;
  at::mm_out(o, a, b);
}

at::Tensor mm(const at::Tensor& a, const at::Tensor& b) {
  if (!a.is_cuda()) return at::mm(a, b);
  at::Tensor out = at::empty({a.size(0), b.size(1)}, a.options());
  mmOut(out, a, b);
  return out;
}

void mmAccumulate(const at::Tensor& g, const at::Tensor& a, const at::Tensor& b) {
  at::Tensor out = g;
  if (a.scalar_type() == at::kFloat) {
    out.addmm_(a, b);
  } else if (a.is_cuda()) {
    if (timedLt(g, a, b)) {
      RECORD_FUNCTION("slidedp::mm_accumulate", std::vector<c10::IValue>({a, b}));
      const LibraryGemm library = [&](const at::Tensor& o) {  // o += a @ b in place, as below
        at::Tensor t = o;
        at::addmm_out(t, o, a, b, at::kFloat);
      };
      if (ltMatmul(g, a, b, g, 1.f, library)) return;
    }
    at::addmm_out(out, g, a, b, at::kFloat);
  } else {
    out.add_(at::mm(a, b).to(at::kFloat));
  }
}

}  // namespace slidedp::kernels
