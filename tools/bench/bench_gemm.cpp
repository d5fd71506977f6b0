// bench_gemm: every GEMM of a decoder layer and of the LM head at a model shape, on one GPU, as
// the runtime calls it (ATen, or the residual GEMM of src/kernels/residual_gemm.h) against each
// algorithm cuBLASLt's heuristic offers for the same operation (operands, layouts, dtypes,
// alpha/beta and workspace alike). It answers whether choosing the algorithm by timing it
// (autotuning) would beat the library's first choice, and by how much a step.
//
// Usage: bench_gemm [--config tools/configs/qwen3-4b.json] [--rows 12] [--seq-len 4096]
//                   [--algos 16] [--iters 10] [--repeats 3] [--device-index 0]
// (the defaults shown; --help lists them.)
// N = rows * seq-len tokens; the head's GEMMs run on one loss chunk (model::lossChunkTokens
// rows, the runtime's default). Each candidate: 2 warm-up calls, then the median over
// --repeats runs of the mean of --iters calls (CUDA events on the current stream).
// Prints per GEMM one "RESULT gemm=... per_step=... aten_us=... lt0_us=... best_us=...
// best_index=... best_tflops=..." line (per_step: calls of this GEMM in one step, the model's
// layers or the head's chunks), then "RESULT summary" with the step's time in these GEMMs as
// the runtime calls them and at each GEMM's fastest algorithm, in ms.
// Errors: no CUDA device, a bad option or config: a message and exit 2 (the command line is
// parsed before any CUDA call, so --help and its errors need no GPU).
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <cuda_runtime_api.h>
#include <torch/torch.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "bench_cli.h"  // defines: the command line (CLI11) and its validators
#include "kernels/cublaslt_api.h"
#include "kernels/lt_matmul.h"
#include "kernels/residual_gemm.h"
#include "model/config.h"
#include "model/memory_terms.h"

namespace {

namespace k = slidedp::kernels;
namespace bench = slidedp::bench;

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "bench_gemm: %s\n", what.c_str());
  std::exit(2);
}

/// Median over `repeats` runs of the mean µs of `iters` calls of `fn` on the current stream.
double timeUs(int iters, int repeats, const std::function<void()>& fn) {
  for (int i = 0; i < 2; ++i) fn();
  cudaStream_t stream = at::cuda::getCurrentCUDAStream().stream();
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  std::vector<double> us;
  for (int r = 0; r < repeats; ++r) {
    cudaEventRecord(a, stream);
    for (int i = 0; i < iters; ++i) fn();
    cudaEventRecord(b, stream);
    cudaEventSynchronize(b);
    float ms = 0.f;
    cudaEventElapsedTime(&ms, a, b);
    us.push_back(1e3 * ms / iters);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  std::sort(us.begin(), us.end());
  return us[us.size() / 2];
}

/// D = A @ B + beta * C (C = `c`, D = `d`, may be the same tensor) through cuBLASLt with each
/// algorithm of its heuristic (up to `maxAlgos`, kernels/lt_matmul.h ltCandidateCalls); returns
/// the µs of each.
std::vector<double> ltCandidates(const at::Tensor& a, const at::Tensor& b, const at::Tensor& c,
                                 const at::Tensor& d, float beta, int maxAlgos, int iters, int repeats) {
  if (!k::cublasLt().ok) die("cuBLASLt not found in the process");
  std::vector<double> us;
  for (const auto& call : k::ltCandidateCalls(d, a, b, c, beta, maxAlgos)) us.push_back(timeUs(iters, repeats, call));
  if (us.empty())  // the summary then counts this GEMM at ATen's time
    std::fprintf(stderr, "bench_gemm: cuBLASLt offers no algorithm for a %lldx%lldx%lld product (candidates=0)\n",
                 (long long)d.size(0), (long long)d.size(1), (long long)a.size(1));
  return us;
}

}  // namespace

int main(int argc, char** argv) {
  bench::ShapeOptions shape{"tools/configs/qwen3-4b.json", 12, 4096, 0};
  int algos = 16, iters = 10, repeats = 3;
  CLI::App app{"bench_gemm: each GEMM of a decoder layer and of the LM head as the runtime calls "
               "it, against every algorithm cuBLASLt's heuristic offers for it (one GPU, bf16)",
               "bench_gemm"};
  bench::addShapeOptions(app, shape);
  app.add_option("--algos", algos, "Most cuBLASLt heuristic candidates timed per GEMM")
      ->check(bench::intAtLeast(1))
      ->capture_default_str();
  app.add_option("--iters", iters, "Calls per timed run (their mean, µs, is one run's time)")
      ->check(bench::intAtLeast(1))
      ->capture_default_str();
  app.add_option("--repeats", repeats, "Timed runs per candidate; the median is reported")
      ->check(bench::intAtLeast(1))
      ->capture_default_str();
  if (const auto rc = bench::parseCommandLine(app, argc, argv)) return *rc;
  const std::string config = shape.config;
  const int64_t rows = shape.rows, T = shape.seq_len;
  const int devIndex = shape.device_index;
  slidedp::model::ModelConfig c;
  try {
    c = slidedp::model::ModelConfig::load(config);
  } catch (const std::exception& e) {
    die(e.what());
  }
  if (!torch::cuda::is_available()) die("no CUDA device");
  const auto visible = static_cast<int>(torch::cuda::device_count());
  if (devIndex >= visible)
    die("no CUDA device " + std::to_string(devIndex) + " (" + std::to_string(visible) + " visible)");
  torch::NoGradGuard noGrad;
  const at::Device dev(at::kCUDA, static_cast<c10::DeviceIndex>(devIndex));
  c10::cuda::CUDAGuard guard(dev);
  const int64_t N = rows * T, C = c.hiddenSize, I = c.intermediateSize, V = c.vocabSize;
  const int64_t Q = c.numHeads * c.headDim, KVD = c.numKvHeads * c.headDim, L = c.numLayers;
  const int64_t m = std::min(N, slidedp::model::lossChunkTokens(0, V));
  const int64_t chunks = (N + m - 1) / m;
  const auto bf16 = at::TensorOptions().dtype(at::kBFloat16).device(dev);
  auto rnd = [&](int64_t r, int64_t cols, double scale) { return at::randn({r, cols}, bf16) * scale; };
  (void)at::mm(rnd(16, 16, 1), rnd(16, 16, 1));  // loads cuBLAS/cuBLASLt
  std::printf("bench_gemm: %s, %lld x %lld tokens, head chunk %lld rows (%lld a step), bf16 on %s, workspace %zu B\n",
              config.c_str(), (long long)rows, (long long)T, (long long)m, (long long)chunks, dev.str().c_str(),
              at::cuda::getCUDABlasLtWorkspaceSize());
  double atenMs = 0, bestMs = 0;
  // One GEMM: `aten` is the runtime's call; a, b, cIn, d, beta the same product for cuBLASLt.
  auto run = [&](const char* name, int64_t perStep, double flops, const std::function<void()>& aten,
                 const at::Tensor& a, const at::Tensor& b, const at::Tensor& cIn, const at::Tensor& d, float beta) {
    const double atenUs = timeUs(iters, repeats, aten);
    const auto us = ltCandidates(a, b, cIn, d, beta, algos, iters, repeats);
    const size_t best = us.empty() ? 0 : std::min_element(us.begin(), us.end()) - us.begin();
    const double bestUs = us.empty() ? atenUs : std::min(atenUs, us[best]);
    atenMs += perStep * atenUs / 1e3;
    bestMs += perStep * bestUs / 1e3;
    std::string all;
    for (double u : us) all += (all.empty() ? "" : ",") + std::to_string(static_cast<int>(u + 0.5));
    std::printf("RESULT gemm=%s per_step=%lld aten_us=%.1f aten_tflops=%.0f lt0_us=%.1f best_us=%.1f best_index=%zu "
                "best_tflops=%.0f gain_pct=%.1f candidates=%zu all_us=%s\n",
                name, (long long)perStep, atenUs, flops / atenUs / 1e6, us.empty() ? 0.0 : us[0],
                us.empty() ? 0.0 : us[best], best, flops / bestUs / 1e6, 100.0 * (atenUs - bestUs) / atenUs,
                us.size(), all.c_str());
    std::fflush(stdout);
  };
  auto f32 = bf16.dtype(at::kFloat);
  struct Proj {
    const char* name;
    int64_t out, in;
    bool residual;
  };
  for (const Proj& p : {Proj{"qkv", Q + 2 * KVD, C, false}, Proj{"o", C, Q, true},
                        Proj{"gate_up", 2 * I, C, false}, Proj{"down", C, I, true}}) {
    auto x = rnd(N, p.in, 1), w = rnd(p.out, p.in, 0.02), dy = rnd(N, p.out, 1e-3);
    auto y = at::empty({N, p.out}, bf16), dx = at::empty({N, p.in}, bf16);
    auto g = at::zeros({p.out, p.in}, f32);
    const double flops = 2.0 * N * p.out * p.in;
    const std::string fwd = std::string("fwd.") + p.name, dX = std::string("bwd.") + p.name + ".dX",
                      dW = std::string("bwd.") + p.name + ".dW";
    if (p.residual) {
      auto r = rnd(N, p.out, 1);
      run(fwd.c_str(), L, flops, [&] { k::addmmResidualOut(y, r, x, w); }, x, w.t(), r, y, 1.f);
    } else {
      run(fwd.c_str(), L, flops, [&] { at::mm_out(y, x, w.t()); }, x, w.t(), y, y, 0.f);
    }
    run(dX.c_str(), L, flops, [&] { at::mm_out(dx, dy, w); }, dy, w, dx, dx, 0.f);
    run(dW.c_str(), L, flops, [&] { at::addmm_out(g, g, dy.t(), x, at::kFloat); }, dy.t(), x, g, g, 1.f);
  }
  {
    auto hc = rnd(m, C, 1), W = rnd(V, C, 0.02), logits = rnd(m, V, 1e-4);
    auto out = at::empty({m, V}, bf16), dx = at::empty({m, C}, bf16);
    auto g = at::zeros({V, C}, f32);
    const double flops = 2.0 * m * V * C;
    run("head.logits", chunks, flops, [&] { at::mm_out(out, hc, W.t()); }, hc, W.t(), out, out, 0.f);
    run("head.dX", chunks, flops, [&] { at::mm_out(dx, logits, W); }, logits, W, dx, dx, 0.f);
    run("head.dW", chunks, flops, [&] { at::addmm_out(g, g, logits.t(), hc, at::kFloat); }, logits.t(), hc, g, g, 1.f);
  }
  std::printf("RESULT summary aten_ms_per_step=%.1f best_ms_per_step=%.1f saving_ms=%.1f saving_pct=%.2f\n", atenMs,
              bestMs, atenMs - bestMs, 100.0 * (atenMs - bestMs) / atenMs);
  return 0;
}
