// Row-major GEMMs through cuBLASLt, the algorithm the library's or the fastest timed
// (lt_matmul.h).
#include "kernels/lt_matmul.h"

#include <atomic>

#ifdef SLIDEDP_WITH_CUDA
#include <ATen/cuda/CUDAContextLight.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <c10/util/Exception.h>
#include <fmt/format.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>

#include "common/log_line.h"
#include "kernels/cublaslt_api.h"
#endif

namespace slidedp::kernels {

namespace {

std::atomic<uint8_t> gAlgorithm{static_cast<uint8_t>(GemmAlgorithm::kLibrary)};

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

// What a plan is made for: everything the descriptors, the heuristic's answer and the timing
// depend on. Field names in cuBLASLt's terms (its A is our b, its B our a).
struct PlanKey {
  int64_t m, n, k;
  int opA, opB;
  int64_t ldA, ldB, ldC, ldD;
  int dtypeD;
  bool cIsD, accumulates, libraryTimed;
  int device;
  size_t workspaceBytes;
  uint32_t alignA, alignB, alignC, alignD;
  GemmAlgorithm algorithm;

  auto fields() const {
    return std::tie(m, n, k, opA, opB, ldA, ldB, ldC, ldD, dtypeD, cIsD, accumulates, libraryTimed, device,
                    workspaceBytes, alignA, alignB, alignC, alignD, algorithm);
  }
  bool operator<(const PlanKey& o) const { return fields() < o.fields(); }
};

// A plan: descriptors and what runs the problem (kNone: the heuristic offered nothing; kLibrary:
// the library's call timed fastest), made once and kept for the process (never destroyed: the
// library may be unloaded before static destructors run).
struct Plan {
  enum class Runs { kNone, kLt, kLibrary } runs = Runs::kNone;
  cublasLtMatmulDesc_t desc;
  cublasLtMatrixLayout_t a, b, c, d;
  cublasLtMatmulAlgo_t algo;
};

struct Problem {
  const at::Tensor &d, &a, &b, &c;
  float beta;
  Operand ltA, ltB;  // operandOf(b), operandOf(a)
  const LibraryGemm& library;
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

// One timed contender: cuBLASLt's candidate `index`, or the library's call (index -1).
struct Contender {
  int index;
  std::function<bool()> launch;  // one call on the stream; false where it failed
  double ms = -1;                // its score so far; negative once it failed
  bool finalist = false;         // timed in the rounds (ms is then its best round)
};

// CUDA events for one round, destroyed with it.
struct RoundEvents {
  std::vector<cudaEvent_t> e;
  explicit RoundEvents(size_t n) : e(n, nullptr) {
    for (auto& ev : e)
      if (cudaEventCreate(&ev) != cudaSuccess) ev = nullptr;
  }
  ~RoundEvents() {
    for (auto ev : e)
      if (ev) cudaEventDestroy(ev);
  }
  bool ok() const {
    for (auto ev : e)
      if (!ev) return false;
    return true;
  }
};

// `calls` calls of each live contender back to back on the stream, each run between two
// events; returns each one's ms a call (negative for one that failed or was skipped), or an
// empty vector where the events failed.
std::vector<double> timeRound(std::vector<Contender>& cs, int calls, cudaStream_t stream) {
  RoundEvents ev(cs.size() + 1);
  if (!ev.ok() || cudaEventRecord(ev.e[0], stream) != cudaSuccess) return {};
  std::vector<bool> ran(cs.size(), false);
  for (size_t i = 0; i < cs.size(); ++i) {
    if (cs[i].ms >= 0) {
      bool ok = true;
      for (int c = 0; c < calls && ok; ++c) ok = cs[i].launch();
      ran[i] = ok;
      if (!ok) cs[i].ms = -1;
    }
    if (cudaEventRecord(ev.e[i + 1], stream) != cudaSuccess) return {};
  }
  if (cudaEventSynchronize(ev.e.back()) != cudaSuccess) return {};
  std::vector<double> ms(cs.size(), -1.0);
  for (size_t i = 0; i < cs.size(); ++i) {
    float t = 0.f;
    if (ran[i] && cudaEventElapsedTime(&t, ev.e[i], ev.e[i + 1]) == cudaSuccess) ms[i] = t / calls;
  }
  return ms;
}

// Scores the contenders: a warm-up call each, one timed call each (Contender::ms), then the
// kTimedFinalists fastest of that (Contender::finalist) in kTimedRounds rounds of
// kTimedCallsPerRound calls, each finalist scored by its best round. Returns false where the
// events failed.
bool scoreContenders(std::vector<Contender>& cs, cudaStream_t stream) {
  for (auto& c : cs) c.ms = c.launch() ? 0.0 : -1.0;
  const auto screen = timeRound(cs, 1, stream);
  if (screen.empty()) return false;
  std::vector<size_t> order;  // the live contenders, fastest first (ties by the heuristic's order)
  for (size_t i = 0; i < cs.size(); ++i) {
    if (cs[i].ms >= 0) cs[i].ms = screen[i];
    if (cs[i].ms >= 0) order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return cs[x].ms < cs[y].ms; });
  if (order.size() > static_cast<size_t>(kTimedFinalists)) order.resize(kTimedFinalists);
  std::vector<Contender> finals;
  for (size_t i : order) finals.push_back(cs[i]);
  std::vector<double> best(finals.size(), -1.0);
  for (int r = 0; r < kTimedRounds; ++r) {
    const auto ms = timeRound(finals, kTimedCallsPerRound, stream);
    if (ms.empty()) return false;
    for (size_t i = 0; i < finals.size(); ++i)
      if (ms[i] >= 0 && (best[i] < 0 || ms[i] < best[i])) best[i] = ms[i];
  }
  for (size_t i = 0; i < finals.size(); ++i) {
    cs[order[i]].finalist = finals[i].ms >= 0 && best[i] >= 0;
    cs[order[i]].ms = cs[order[i]].finalist ? best[i] : -1.0;
  }
  return true;
}

// The problem in words for logs and TimedGemmChoice::problem.
std::string describe(const PlanKey& k) {
  auto op = [](int o) { return o == CUBLAS_OP_N ? 'N' : 'T'; };
  std::string s = std::to_string(k.m) + "x" + std::to_string(k.n) + "x" + std::to_string(k.k) + " " + op(k.opA) +
                  op(k.opB) + (k.dtypeD == static_cast<int>(at::kFloat) ? " fp32" : " bf16");
  if (k.accumulates) s += k.cIsD ? " +=" : " + C";
  return s;
}

std::mutex gChoicesMu;
std::vector<TimedGemmChoice>& choices() {
  static auto* v = new std::vector<TimedGemmChoice>();
  return *v;
}

// Times the heuristic's candidates and the library's call (where given) on q's operands and
// picks the fastest into p (Runs::kLt with its algorithm, or Runs::kLibrary). Where no scratch
// fits an accumulation or the events fail, keeps the heuristic's first.
void chooseByTiming(Plan& p, const std::vector<cublasLtMatmulHeuristicResult_t>& cands, const PlanKey& key,
                    const Problem& q) {
  at::Tensor out = q.d;
  if (q.beta != 0.f && q.c.data_ptr() == q.d.data_ptr()) {  // an accumulation: time into a scratch
    try {
      out = at::empty({q.d.size(0), q.d.stride(0)}, q.d.options()).narrow(1, 0, q.d.size(1));
    } catch (const c10::OutOfMemoryError&) {
      return;
    }
  }
  std::vector<Contender> cs;
  for (size_t i = 0; i < cands.size(); ++i)
    cs.push_back({static_cast<int>(i), [&, i] { return run(p, cands[i].algo, q, out.data_ptr()) == CUBLAS_STATUS_SUCCESS; }});
  if (q.library)
    cs.push_back({-1, [&] {
                    try {
                      q.library(out);
                      return true;
                    } catch (const std::exception&) {
                      return false;
                    }
                  }});
  const bool scored = scoreContenders(cs, q.stream);
  (void)cudaGetLastError();  // a candidate's failed launch must not surface at a later check
  if (!scored) return;
  const Contender* win = nullptr;
  for (const auto& c : cs)
    if (c.finalist && (!win || c.ms < win->ms)) win = &c;
  if (!win) return;
  TimedGemmChoice choice{describe(key), win->index, win->ms, -1, -1, static_cast<int>(cs.size())};
  for (const auto& c : cs) {
    if (c.index < 0) choice.library_ms = c.ms;
    if (c.index == 0) choice.first_ms = c.ms;
  }
  if (win->index < 0) p.runs = Plan::Runs::kLibrary;
  else p.algo = cands[win->index].algo;
  logInfo(fmt::format("timed GEMM {}: {} {:.3f} ms (library {:.3f}, cuBLASLt's first {:.3f}; {} contenders)",
                      choice.problem,
                      win->index < 0 ? std::string("the library's call")
                                     : "cuBLASLt candidate " + std::to_string(win->index),
                      choice.winner_ms, choice.library_ms, choice.first_ms, choice.contenders));
  std::lock_guard<std::mutex> lock(gChoicesMu);
  choices().push_back(std::move(choice));
}

// The problem's descriptors and layouts into p (cuBLASLt's A is q.b, its B q.a).
void describeProblem(Plan& p, const Problem& q) {
  const auto& api = cublasLt();
  const Operand &la = q.ltA, &lb = q.ltB;
  const int64_t M = q.d.size(0), N = q.d.size(1);
  checkCublasLt(api.descCreate(&p.desc, CUBLAS_COMPUTE_32F, CUDA_R_32F), "MatmulDescCreate");
  checkCublasLt(api.descSet(p.desc, CUBLASLT_MATMUL_DESC_TRANSA, &la.op, sizeof(la.op)), "set TRANSA");
  checkCublasLt(api.descSet(p.desc, CUBLASLT_MATMUL_DESC_TRANSB, &lb.op, sizeof(lb.op)), "set TRANSB");
  checkCublasLt(api.layoutCreate(&p.a, ltType(q.b), la.rows, la.cols, la.ld), "MatrixLayoutCreate(A)");
  checkCublasLt(api.layoutCreate(&p.b, ltType(q.a), lb.rows, lb.cols, lb.ld), "MatrixLayoutCreate(B)");
  checkCublasLt(api.layoutCreate(&p.c, ltType(q.c), N, M, q.c.stride(0)), "MatrixLayoutCreate(C)");
  checkCublasLt(api.layoutCreate(&p.d, ltType(q.d), N, M, q.d.stride(0)), "MatrixLayoutCreate(D)");
}

// The heuristic's first `n` candidates for p's problem with q's workspace and the key's operand
// alignments, in its order of preference; empty where it offers none.
std::vector<cublasLtMatmulHeuristicResult_t> heuristicCandidates(const Plan& p, const PlanKey& key, const Problem& q,
                                                                 int n) {
  const auto& api = cublasLt();
  cublasLtMatmulPreference_t pref;
  checkCublasLt(api.prefCreate(&pref), "MatmulPreferenceCreate");
  size_t ws = q.wsBytes;
  checkCublasLt(api.prefSet(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof(ws)),
                "set MAX_WORKSPACE_BYTES");
  const std::pair<cublasLtMatmulPreferenceAttributes_t, uint32_t> aligns[] = {
      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, key.alignA},
      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, key.alignB},
      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, key.alignC},
      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, key.alignD}};
  for (const auto& [attr, bytes] : aligns) checkCublasLt(api.prefSet(pref, attr, &bytes, sizeof(bytes)), "set MIN_ALIGNMENT");
  std::vector<cublasLtMatmulHeuristicResult_t> cands(n);
  int found = 0;
  const cublasStatus_t s = api.heuristic(q.handle, p.desc, p.a, p.b, p.c, p.d, pref, n, cands.data(), &found);
  api.prefDestroy(pref);
  cands.resize(s == CUBLAS_STATUS_SUCCESS && found > 0 ? found : 0);
  return cands;
}

const Plan& planFor(const PlanKey& key, const Problem& q) {
  static std::mutex mu;
  static auto* plans = new std::map<PlanKey, Plan>();
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = plans->find(key); it != plans->end()) return it->second;
  Plan p{};
  describeProblem(p, q);
  const bool timed = key.algorithm == GemmAlgorithm::kTimed;
  const auto cands = heuristicCandidates(p, key, q, timed ? kTimedCandidates : 1);
  if (!cands.empty()) {  // none: the library's call for this problem
    p.runs = Plan::Runs::kLt;
    p.algo = cands[0].algo;
    if (timed && (cands.size() > 1 || q.library)) chooseByTiming(p, cands, key, q);
  }
  return plans->emplace(key, p).first->second;
}

// ltMatmul's problem for these operands on the current stream of d's device.
Problem problemOf(const at::Tensor& d, const at::Tensor& a, const at::Tensor& b, const at::Tensor& c, float beta,
                  const LibraryGemm& library) {
  return Problem{d,
                 a,
                 b,
                 c,
                 beta,
                 operandOf(b),
                 operandOf(a),
                 library,
                 at::cuda::getCurrentCUDABlasLtHandle(),
                 at::cuda::getCUDABlasLtWorkspace(),
                 at::cuda::getCUDABlasLtWorkspaceSize(),
                 c10::cuda::getCurrentCUDAStream(d.device().index()).stream()};
}

// The plan's key for a problem under `alg`.
PlanKey keyOf(const Problem& q, GemmAlgorithm alg) {
  const at::Tensor &d = q.d, &a = q.a, &b = q.b, &c = q.c;
  return PlanKey{d.size(0), d.size(1), a.size(1), static_cast<int>(q.ltA.op), static_cast<int>(q.ltB.op),
                 q.ltA.ld, q.ltB.ld, c.stride(0), d.stride(0), static_cast<int>(d.scalar_type()),
                 c.data_ptr() == d.data_ptr(), q.beta != 0.f, alg == GemmAlgorithm::kTimed && q.library != nullptr,
                 static_cast<int>(d.device().index()), q.wsBytes, alignmentBytes(b.data_ptr()),
                 alignmentBytes(a.data_ptr()), alignmentBytes(c.data_ptr()), alignmentBytes(d.data_ptr()), alg};
}
#endif

}  // namespace

void setGemmAlgorithm(GemmAlgorithm a) { gAlgorithm = static_cast<uint8_t>(a); }
GemmAlgorithm gemmAlgorithm() { return static_cast<GemmAlgorithm>(gAlgorithm.load()); }
std::vector<TimedGemmChoice> ltTimedChoices() {
#ifdef SLIDEDP_WITH_CUDA
  std::lock_guard<std::mutex> lock(gChoicesMu);
  return choices();
#else
  return {};
#endif
}

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

bool ltMatmul(const at::Tensor& d, const at::Tensor& a, const at::Tensor& b, const at::Tensor& c, float beta,
              const LibraryGemm& library) {
#ifdef SLIDEDP_WITH_CUDA
  if (!ltMatmulTakes(d, a, b, c)) return false;
  const c10::cuda::CUDAGuard guard(d.device());
  const Problem q = problemOf(d, a, b, c, beta, library);
  const PlanKey key = keyOf(q, gemmAlgorithm());
  const Plan& p = planFor(key, q);
  if (p.runs != Plan::Runs::kLt) return false;
  checkCublasLt(run(p, p.algo, q, d.data_ptr()), "Matmul");
  return true;
#else
  (void)d, (void)a, (void)b, (void)c, (void)beta, (void)library;
  return false;
#endif
}

std::vector<std::function<void()>> ltCandidateCalls(const at::Tensor& d, const at::Tensor& a, const at::Tensor& b,
                                                    const at::Tensor& c, float beta, int max) {
#ifdef SLIDEDP_WITH_CUDA
  if (max < 1 || !ltMatmulTakes(d, a, b, c)) return {};
  const c10::cuda::CUDAGuard guard(d.device());
  // The operands and descriptors the calls share, the descriptors destroyed with the last call.
  struct Shared {
    at::Tensor d, a, b, c;
    float beta;
    Plan plan{};
    ~Shared() {
      const auto& api = cublasLt();
      for (auto* l : {plan.a, plan.b, plan.c, plan.d})
        if (l) api.layoutDestroy(l);
      if (plan.desc) api.descDestroy(plan.desc);
    }
  };
  auto s = std::make_shared<Shared>();
  s->d = d, s->a = a, s->b = b, s->c = c, s->beta = beta;
  const LibraryGemm none;
  const Problem q = problemOf(s->d, s->a, s->b, s->c, beta, none);
  describeProblem(s->plan, q);
  std::vector<std::function<void()>> calls;
  for (const auto& cand : heuristicCandidates(s->plan, keyOf(q, GemmAlgorithm::kLibrary), q, max)) {
    calls.push_back([s, algo = cand.algo] {
      const c10::cuda::CUDAGuard guard(s->d.device());  // the handle and workspace of d's device
      const LibraryGemm none;
      const Problem p = problemOf(s->d, s->a, s->b, s->c, s->beta, none);
      checkCublasLt(run(s->plan, algo, p, s->d.data_ptr()), "Matmul");
    });
  }
  return calls;
#else
  (void)d, (void)a, (void)b, (void)c, (void)beta, (void)max;
  return {};
#endif
}

}  // namespace slidedp::kernels
