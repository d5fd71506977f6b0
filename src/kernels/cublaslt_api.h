// The cuBLASLt entry points of the library LibTorch itself loaded, looked up in the process
// (dlsym, RTLD_DEFAULT) so that a binary does not link a second copy of cuBLASLt beside
// LibTorch's: used by the residual GEMM (residual_gemm.h) and bench_gemm. CUDA builds only.
#pragma once

#ifdef SLIDEDP_WITH_CUDA
#include <cublasLt.h>

namespace slidedp::kernels {

/// The functions slidedp calls; `ok` is false when any is missing (no cuBLASLt loaded: callers
/// fall back to ATen). Resolved once, on first use (thread-safe: a function-local static);
/// call it after LibTorch has loaded cuBLASLt (any CUDA BLAS call, or
/// at::cuda::getCurrentCUDABlasLtHandle()).
struct CublasLtApi {
  decltype(&cublasLtMatmulDescCreate) descCreate = nullptr;
  decltype(&cublasLtMatmulDescSetAttribute) descSet = nullptr;
  decltype(&cublasLtMatmulDescDestroy) descDestroy = nullptr;
  decltype(&cublasLtMatrixLayoutCreate) layoutCreate = nullptr;
  decltype(&cublasLtMatrixLayoutDestroy) layoutDestroy = nullptr;
  decltype(&cublasLtMatmulPreferenceCreate) prefCreate = nullptr;
  decltype(&cublasLtMatmulPreferenceSetAttribute) prefSet = nullptr;
  decltype(&cublasLtMatmulPreferenceDestroy) prefDestroy = nullptr;
  decltype(&cublasLtMatmulAlgoGetHeuristic) heuristic = nullptr;
  decltype(&cublasLtMatmul) matmul = nullptr;
  bool ok = false;
};

const CublasLtApi& cublasLt();

/// Throws slidedp::Error naming `what` and the status unless `s` is CUBLAS_STATUS_SUCCESS.
void checkCublasLt(cublasStatus_t s, const char* what);

}  // namespace slidedp::kernels
#endif
