// Row-major GEMMs through cuBLASLt, the algorithm the library's or the fastest timed
// (lt_matmul.h).
#include "kernels/lt_matmul.h"

#include <atomic>

#ifdef SLIDEDP_WITH_CUDA
#include <ATen/cuda/CUDAContextLight.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <c10/util/Exception.h>
#include <cuda_runtime_api.h>

#include <map>
#include <mutex>
#include <tuple>
#include <vector>

#include "kernels/cublaslt_api.h"
#endif

namespace slidedp::kernels {

namespace {

std::atomic<uint8_t> gAlgorithm{static_cast<uint8_t>(GemmAlgorithm::kLibrary)};
std::atomic<int64_t> gTimedPlans{0};

#ifdef SLIDEDP_WITH_CUDA
// One operand in cuBLASLt's column-major terms: a row-major [r, c] tensor with leading
// dimension ld read column-major is its transpose (op N: rows c, cols r); a transposed view
// (unit row stride) read column-major is the tensor itself (op T: rows r, cols c).
struct Operand {
  cublasOperation_t op;
  uint64_t rows, cols;
  int64_t ld;
};

// cuBLASLt's A is our B^T (op(A) must be [N, K]), its B our A^T ([K, M]).
Operand operandOf(const at::Tensor& t) {
  if (t.stride(1) == 1 && t.stride(0) >= t.size(1))
    return {CUBLAS_OP_N, static_cast<uint64_t>(t.size(1)), static_cast<uint64_t>(t.size(0)), t.stride(0)};
  return {CUBLAS_OP_T, static_cast<uint64_t>(t.size(0)), static_cast<uint64_t>(t.size(1)), t.stride(1)};
}

bool unitStrideOperand(const at::Tensor& t) {
  return (t.stride(1) == 1 && t.stride(0) >= t.size(1)) || (t.stride(0) == 1 && t.stride(1) >= t.size(0));
}

int64_t leadingDim(const at::Tensor& t) { return t.stride(1) == 1 && t.stride(0) >= t.size(1) ? t.stride(0) : t.stride(1); }

bool aligned16(const at::Tensor& t) {
  return reinterpret_cast<uintptr_t>(t.data_ptr()) % 16 == 0 && (leadingDim(t) * t.element_size()) % 16 == 0;
}

// The largest power of two up to 256 that divides the address: the heuristic must only offer
// algorithms for the operands' real alignment (its default assumes 256 bytes).
uint32_t alignmentBytes(const void* p) {
  uint32_t b = 256;
  while (b > 16 && reinterpret_cast<uintptr_t>(p) % b != 0) b /= 2;
  return b;
}

cudaDataType_t ltType(const at::Tensor& t) { return t.scalar_type() == at::kFloat ? CUDA_R_32F : CUDA_R_16BF; }

// A plan: descriptors and the chosen algorithm (ok = false: the heuristic offered none), made
// once and kept for the process (never destroyed: the library may be unloaded before static
// destructors run).
struct Plan {
  cublasLtMatmulDesc_t desc;
  cublasLtMatrixLayout_t a, b, c, d;
  cublasLtMatmulAlgo_t algo;
  bool ok = false;
};

// M, N, K; ops and leading dimensions of a, b; ld of c and d; dtype of d; c is d; beta != 0;
// device; workspace bytes; the alignments of a, b, c, d; the choice the plan was made under.
using Key = std::tuple<int64_t, int64_t, int64_t, int, int, int64_t, int64_t, int64_t, int64_t, int, bool, bool,
                       int, size_t, uint32_t, uint32_t, uint32_t, uint32_t, int>;

struct Problem {
  const at::Tensor &d, &a, &b, &c;
  float beta;
  cublasLtHandle_t handle;
  void* workspace;
  size_t wsBytes;
  cudaStream_t stream;
};

cublasStatus_t run(const Plan& p, const cublasLtMatmulAlgo_t& algo, const Problem& q, void* dOut) {
  const float one = 1.f;
  return cublasLt().matmul(q.handle, p.desc, &one, q.b.data_ptr(), p.a, q.a.data_ptr(), p.b, &q.beta,
                           q.c.data_ptr(), p.c, dOut, p.d, &algo, q.workspace, q.wsBytes, q.stream);
}

// The mean ms of 3 calls of `algo` after one warm-up, or a negative value where it fails.
double timeAlgo(const Plan& p, const cublasLtMatmulAlgo_t& algo, const Problem& q, void* dOut) {
  if (run(p, algo, q, dOut) != CUBLAS_STATUS_SUCCESS) return -1;
  cudaEvent_t e0, e1;
  if (cudaEventCreate(&e0) != cudaSuccess) return -1;
  if (cudaEventCreate(&e1) != cudaSuccess) {
    cudaEventDestroy(e0);
    return -1;
  }
  bool ok = cudaEventRecord(e0, q.stream) == cudaSuccess;
  for (int i = 0; i < 3 && ok; ++i) ok = run(p, algo, q, dOut) == CUBLAS_STATUS_SUCCESS;
  ok = ok && cudaEventRecord(e1, q.stream) == cudaSuccess && cudaEventSynchronize(e1) == cudaSuccess;
  float ms = -1.f;
  if (ok) cudaEventElapsedTime(&ms, e0, e1);
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  return ok ? ms / 3.0 : -1.0;
}

// The fastest of the candidates, timed into d (or, for an accumulation, into a scratch of d's
// row layout). Keeps candidate 0 where no scratch fits or none can be timed.
int fastest(const Plan& p, const std::vector<cublasLtMatmulHeuristicResult_t>& cands, const Problem& q) {
  const bool accumulates = q.beta != 0.f && q.c.data_ptr() == q.d.data_ptr();
  at::Tensor scratch;
  void* out = q.d.data_ptr();
  if (accumulates) {
    try {
      scratch = at::empty({q.d.size(0), q.d.stride(0)}, q.d.options());
    } catch (const c10::OutOfMemoryError&) {
      return 0;
    }
    out = scratch.data_ptr();
  }
  int best = 0;
  double bestMs = -1;
  for (size_t i = 0; i < cands.size(); ++i) {
    const double ms = timeAlgo(p, cands[i].algo, q, out);
    if (ms >= 0 && (bestMs < 0 || ms < bestMs)) {
      bestMs = ms;
      best = static_cast<int>(i);
    }
  }
  (void)cudaGetLastError();  // a candidate's failed launch must not surface at a later check
  return best;
}

const Plan& planFor(const Key& key, const Problem& q) {
  static std::mutex mu;
  static auto* plans = new std::map<Key, Plan>();
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = plans->find(key); it != plans->end()) return it->second;
  const auto& api = cublasLt();
  const Operand la = operandOf(q.b), lb = operandOf(q.a);
  const int64_t M = q.d.size(0), N = q.d.size(1);
  Plan p{};
  checkCublasLt(api.descCreate(&p.desc, CUBLAS_COMPUTE_32F, CUDA_R_32F), "MatmulDescCreate");
  checkCublasLt(api.descSet(p.desc, CUBLASLT_MATMUL_DESC_TRANSA, &la.op, sizeof(la.op)), "set TRANSA");
  checkCublasLt(api.descSet(p.desc, CUBLASLT_MATMUL_DESC_TRANSB, &lb.op, sizeof(lb.op)), "set TRANSB");
  checkCublasLt(api.layoutCreate(&p.a, ltType(q.b), la.rows, la.cols, la.ld), "MatrixLayoutCreate(A)");
  checkCublasLt(api.layoutCreate(&p.b, ltType(q.a), lb.rows, lb.cols, lb.ld), "MatrixLayoutCreate(B)");
  checkCublasLt(api.layoutCreate(&p.c, ltType(q.c), N, M, q.c.stride(0)), "MatrixLayoutCreate(C)");
  checkCublasLt(api.layoutCreate(&p.d, ltType(q.d), N, M, q.d.stride(0)), "MatrixLayoutCreate(D)");
  cublasLtMatmulPreference_t pref;
  checkCublasLt(api.prefCreate(&pref), "MatmulPreferenceCreate");
  size_t ws = q.wsBytes;
  checkCublasLt(api.prefSet(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof(ws)),
                "set MAX_WORKSPACE_BYTES");
  const auto& k = key;
  const std::pair<cublasLtMatmulPreferenceAttributes_t, uint32_t> aligns[] = {
      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, std::get<15>(k)},  // cuBLASLt's A: our b
      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, std::get<14>(k)},
      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, std::get<16>(k)},
      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, std::get<17>(k)}};
  for (const auto& [attr, bytes] : aligns) checkCublasLt(api.prefSet(pref, attr, &bytes, sizeof(bytes)), "set MIN_ALIGNMENT");
  const bool timed = static_cast<GemmAlgorithm>(std::get<18>(k)) == GemmAlgorithm::kTimed;
  std::vector<cublasLtMatmulHeuristicResult_t> cands(timed ? kTimedCandidates : 1);
  int found = 0;
  const cublasStatus_t s = api.heuristic(q.handle, p.desc, p.a, p.b, p.c, p.d, pref, static_cast<int>(cands.size()),
                                         cands.data(), &found);
  api.prefDestroy(pref);
  p.ok = s == CUBLAS_STATUS_SUCCESS && found > 0;  // none: ATen for this problem
  if (p.ok) {
    cands.resize(found);
    int pick = 0;
    if (timed && found > 1) {
      pick = fastest(p, cands, q);
      ++gTimedPlans;
    }
    p.algo = cands[pick].algo;
  }
  return plans->emplace(key, p).first->second;
}
#endif

}  // namespace

void setGemmAlgorithm(GemmAlgorithm a) { gAlgorithm = static_cast<uint8_t>(a); }
GemmAlgorithm gemmAlgorithm() { return static_cast<GemmAlgorithm>(gAlgorithm.load()); }
int64_t ltTimedPlans() { return gTimedPlans.load(); }

bool ltMatmulTakes(const at::Tensor& d, const at::Tensor& a, const at::Tensor& b, const at::Tensor& c) {
#ifdef SLIDEDP_WITH_CUDA
  if (!cublasLt().ok) return false;
  for (const at::Tensor* t : {&d, &a, &b, &c})
    if (!t->defined() || t->dim() != 2 || !t->is_cuda() || t->device() != d.device()) return false;
  if (a.scalar_type() != at::kBFloat16 || b.scalar_type() != at::kBFloat16) return false;
  if (d.scalar_type() != at::kBFloat16 && d.scalar_type() != at::kFloat) return false;
  if (c.scalar_type() != d.scalar_type() || c.sizes() != d.sizes() || c.stride(0) != d.stride(0)) return false;
  if (a.size(1) != b.size(0) || d.size(0) != a.size(0) || d.size(1) != b.size(1)) return false;
  if (a.size(0) < 1 || a.size(1) < 1 || b.size(1) < 1) return false;
  if (!unitStrideOperand(a) || !unitStrideOperand(b)) return false;
  if (d.stride(1) != 1 || d.stride(0) < d.size(1) || c.stride(1) != 1) return false;
  return aligned16(a) && aligned16(b) && aligned16(c) && aligned16(d);
#else
  (void)d, (void)a, (void)b, (void)c;
  return false;
#endif
}

bool ltMatmul(const at::Tensor& d, const at::Tensor& a, const at::Tensor& b, const at::Tensor& c, float beta) {
#ifdef SLIDEDP_WITH_CUDA
  if (!ltMatmulTakes(d, a, b, c)) return false;
  const c10::cuda::CUDAGuard guard(d.device());
  const Problem q{d,
                  a,
                  b,
                  c,
                  beta,
                  at::cuda::getCurrentCUDABlasLtHandle(),
                  at::cuda::getCUDABlasLtWorkspace(),
                  at::cuda::getCUDABlasLtWorkspaceSize(),
                  c10::cuda::getCurrentCUDAStream(d.device().index()).stream()};
  const Operand oa = operandOf(a), ob = operandOf(b);
  const Key key{d.size(0), d.size(1), a.size(1), static_cast<int>(oa.op), static_cast<int>(ob.op), oa.ld, ob.ld,
                c.stride(0), d.stride(0), static_cast<int>(d.scalar_type()), c.data_ptr() == d.data_ptr(),
                beta != 0.f, static_cast<int>(d.device().index()), q.wsBytes, alignmentBytes(a.data_ptr()),
                alignmentBytes(b.data_ptr()), alignmentBytes(c.data_ptr()), alignmentBytes(d.data_ptr()),
                static_cast<int>(gemmAlgorithm())};
  const Plan& p = planFor(key, q);
  if (!p.ok) return false;
  checkCublasLt(run(p, p.algo, q, d.data_ptr()), "Matmul");
  return true;
#else
  (void)d, (void)a, (void)b, (void)c, (void)beta;
  return false;
#endif
}

}  // namespace slidedp::kernels
