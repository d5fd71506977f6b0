// cuBLASLt entry points looked up in the process (cublaslt_api.h).
#include "kernels/cublaslt_api.h"

#ifdef SLIDEDP_WITH_CUDA
#include <dlfcn.h>

#include <type_traits>

#include "common/errors.h"

namespace slidedp::kernels {

const CublasLtApi& cublasLt() {
  static const CublasLtApi api = [] {
    CublasLtApi a;
    auto get = [](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(RTLD_DEFAULT, name));
      return fn != nullptr;
    };
    a.ok = get(a.descCreate, "cublasLtMatmulDescCreate") && get(a.descSet, "cublasLtMatmulDescSetAttribute") &&
           get(a.descDestroy, "cublasLtMatmulDescDestroy") && get(a.layoutCreate, "cublasLtMatrixLayoutCreate") &&
           get(a.layoutDestroy, "cublasLtMatrixLayoutDestroy") &&
           get(a.prefCreate, "cublasLtMatmulPreferenceCreate") &&
           get(a.prefSet, "cublasLtMatmulPreferenceSetAttribute") &&
           get(a.prefDestroy, "cublasLtMatmulPreferenceDestroy") &&
           get(a.heuristic, "cublasLtMatmulAlgoGetHeuristic") && get(a.matmul, "cublasLtMatmul");
    return a;
  }();
  return api;
}

void checkCublasLt(cublasStatus_t s, const char* what) {
  SLIDEDP_ASSERT(s == CUBLAS_STATUS_SUCCESS, "cuBLASLt {} failed (status {})", what, static_cast<int>(s));
}

}  // namespace slidedp::kernels
#endif
