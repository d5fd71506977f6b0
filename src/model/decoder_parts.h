// Pieces shared by the decoder's translation units (decoder.cpp, mlp_tiles.cpp): the profiler
// scope and the weight-gradient GEMM with an fp32 accumulator. Internal to slidedp_model.
#pragma once

#include <ATen/ATen.h>
#include <ATen/record_function.h>

#include <string>

namespace slidedp::model::detail {

// A named range for the profiler (tools/bench/bench_layer --profile, the Chrome trace of a
// torch profiler session): an at::RecordFunction of USER_SCOPE, which costs a thread-local
// check when no profiler is active. `suffix` is appended to `name` when given.
class Scope {
 public:
  explicit Scope(const char* name, const char* suffix = nullptr) : rf_(at::RecordScope::USER_SCOPE) {
    if (rf_.isActive()) rf_.before(suffix ? std::string(name) + suffix : std::string(name));
  }

 private:
  at::RecordFunction rf_;
};

// f() inside Scope(name).
template <class F>
auto scoped(const char* name, F&& f) {
  Scope s(name);
  return f();
}

// Weight-gradient GEMM with an fp32 accumulator: G [out, in] += A [out, N] @ B [N, in].
// cuBLAS computes bf16 products in fp32 and writes fp32 directly (addmm.dtype_out); a sequence
// tiled along N calls it once per tile (beta = 1: the tiles' products summed in G).
inline void addmmAccumulate(const at::Tensor& G, const at::Tensor& A, const at::Tensor& B) {
  if (A.scalar_type() == at::kFloat) {
    const_cast<at::Tensor&>(G).addmm_(A, B);
  } else if (A.is_cuda()) {
    at::Tensor out = G;
    at::addmm_out(out, G, A, B, at::kFloat);
  } else {
    const_cast<at::Tensor&>(G).add_(at::mm(A, B).to(at::kFloat));
  }
}

}  // namespace slidedp::model::detail
