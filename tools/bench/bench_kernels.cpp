// bench_kernels: the decoder layer's fused element-wise kernels and the head's softmax
// cross-entropy (src/kernels/layer_kernels.h) alone, at a model shape, on one GPU: each timed with CUDA events over --iters launches
// (after 3 warm-up launches; median of --repeats such runs), as µs per launch and as GB/s of
// the bytes it must move (each input read once, each output written once) against --hbm-gbps.
// These kernels are memory-bound: the GB/s column is how far each is from the HBM roofline,
// which a per-op profile of a whole step (slidedp_worker --gpu-profile) shows only per scope.
//
// Usage: bench_kernels --config tools/configs/qwen3-4b.json [--rows 12] [--seq-len 4096]
//                      [--iters 20] [--repeats 5] [--hbm-gbps 4300] [--device-index 0]
// Prints one "RESULT kernel=... us=... gbps=... of_roof=..." line per kernel. Inputs are
// bf16 with values in [-1, 1) (their values do not change the kernels' memory traffic);
// N = rows * seq-len tokens; q/k/v columns of the fused QKV projection output as the decoder
// lays them out ([N, (H + 2 KV) D], q and k read, v untouched); the cross-entropy on one
// logits chunk of the head (model::lossChunkTokens tokens x V, labels 0).
// Errors: a bad or missing option or value, a missing/invalid config, no CUDA device or a
// failed launch print a message and exit 2 (the command line is parsed before any CUDA call, so
// --help and its errors need no GPU; --help lists each option with its default and unit).
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "bench_cli.h"  // defines: the command line (CLI11) and its validators
#include "kernels/layer_kernels.h"
#include "model/config.h"
#include "model/memory_terms.h"

namespace kc = slidedp::kernels::cuda;
namespace bench = slidedp::bench;

namespace {

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "bench_kernels: %s\n", what.c_str());
  std::exit(2);
}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) die(std::string(what) + ": " + cudaGetErrorString(e));
}

/// A device buffer of `bytes`, filled with bf16 values in [-1, 1) (a fixed pattern).
void* deviceBuffer(size_t bytes) {
  void* p = nullptr;
  check(cudaMalloc(&p, bytes), "cudaMalloc");
  std::vector<uint16_t> host(bytes / 2);
  uint32_t s = 12345;
  for (auto& h : host) {
    s = s * 1664525u + 1013904223u;
    // bf16 bits: sign, exponent 120..126 (|v| in [2^-7, 1)), 7 mantissa bits
    h = static_cast<uint16_t>(((s >> 31) << 15) | ((120u + (s >> 8) % 7u) << 7) | ((s >> 16) & 0x7fu));
  }
  check(cudaMemcpy(p, host.data(), host.size() * 2, cudaMemcpyHostToDevice), "cudaMemcpy");
  return p;
}

/// Median over `repeats` runs of the mean µs of `iters` launches.
double timeUs(int iters, int repeats, cudaStream_t stream, const std::function<cudaError_t()>& launch) {
  for (int i = 0; i < 3; ++i) check(launch(), "launch");
  cudaEvent_t a, b;
  check(cudaEventCreate(&a), "cudaEventCreate");
  check(cudaEventCreate(&b), "cudaEventCreate");
  std::vector<double> us;
  for (int r = 0; r < repeats; ++r) {
    check(cudaEventRecord(a, stream), "cudaEventRecord");
    for (int i = 0; i < iters; ++i) check(launch(), "launch");
    check(cudaEventRecord(b, stream), "cudaEventRecord");
    check(cudaEventSynchronize(b), "cudaEventSynchronize");
    float ms = 0.f;
    check(cudaEventElapsedTime(&ms, a, b), "cudaEventElapsedTime");
    us.push_back(1e3 * ms / iters);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  std::sort(us.begin(), us.end());
  return us[us.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  bench::ShapeOptions shape{"", 12, 4096, 0};  // --config required
  int iters = 20, repeats = 5;
  double hbm = 4300;
  CLI::App app{"bench_kernels: the decoder layer's fused element-wise kernels and the head's "
               "softmax cross-entropy alone, at a model shape on one GPU, as µs per launch and "
               "GB/s against the HBM roofline",
               "bench_kernels"};
  bench::addShapeOptions(app, shape);
  app.add_option("--iters", iters, "Launches per timed run (their mean, µs, is one run's time)")
      ->check(bench::intAtLeast(1))
      ->capture_default_str();
  app.add_option("--repeats", repeats, "Timed runs per kernel; the median is reported")
      ->check(bench::intAtLeast(1))
      ->capture_default_str();
  app.add_option("--hbm-gbps", hbm, "HBM roofline the of_roof column divides by, GB/s (1e9 B/s)")
      ->check(bench::numberAbove(0))
      ->capture_default_str();
  if (const auto rc = bench::parseCommandLine(app, argc, argv)) return *rc;
  const std::string config = shape.config;
  const int64_t rows = shape.rows, T = shape.seq_len;
  const int dev = shape.device_index;
  slidedp::model::ModelConfig c;
  try {
    c = slidedp::model::ModelConfig::load(config);
  } catch (const std::exception& e) {
    die(e.what());
  }
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || dev < 0 || dev >= n) die("no CUDA device " + std::to_string(dev));
  check(cudaSetDevice(dev), "cudaSetDevice");
  cudaStream_t stream;
  check(cudaStreamCreate(&stream), "cudaStreamCreate");

  const int64_t N = rows * T, C = c.hiddenSize, I = c.intermediateSize;
  const int H = static_cast<int>(c.numHeads), KV = static_cast<int>(c.numKvHeads), D = static_cast<int>(c.headDim);
  const int64_t ldQkv = static_cast<int64_t>(H + 2 * KV) * D, qk = static_cast<int64_t>(H + KV) * D;
  const auto bf = kc::DType::kBF16;
  const size_t e2 = 2;  // bytes of a bf16
  std::printf("bench_kernels: %s, %lld x %lld tokens (N %lld), C %lld, I %lld, H %d, KV %d, D %d, bf16\n",
              config.c_str(), (long long)rows, (long long)T, (long long)N, (long long)C, (long long)I, H, KV, D);

  // Inputs and outputs (bf16 unless named).
  void* x = deviceBuffer(N * C * e2);
  void* dy = deviceBuffer(N * C * e2);
  void* res = deviceBuffer(N * C * e2);
  void* w = deviceBuffer(std::max<int64_t>(C, D) * e2);
  void* y = deviceBuffer(N * C * e2);
  void* qkv = deviceBuffer(N * ldQkv * e2);
  void* dqkv = deviceBuffer(N * ldQkv * e2);
  void* cosv = deviceBuffer(N * D * e2);
  void* sinv = deviceBuffer(N * D * e2);
  void* qo = deviceBuffer(N * H * D * e2);
  void* ko = deviceBuffer(N * KV * D * e2);
  void* gu = deviceBuffer(N * 2 * I * e2);
  void* dgu = deviceBuffer(N * 2 * I * e2);
  void* act = deviceBuffer(N * I * e2);
  void* dact = deviceBuffer(N * I * e2);
  auto floats = [](int64_t count) {
    void* p = nullptr;
    check(cudaMalloc(&p, count * sizeof(float)), "cudaMalloc");
    return static_cast<float*>(p);
  };
  float* rstd = floats(N);
  float* rq = floats(N * H);
  float* rk = floats(N * KV);
  float* dw = floats(2 * std::max<int64_t>(C, D));
  check(cudaMemset(dw, 0, 2 * std::max<int64_t>(C, D) * sizeof(float)), "cudaMemset");
  const float eps = static_cast<float>(c.rmsNormEps);
  // rstd of the real forward (the backward reads them)
  check(kc::rmsNormForward(bf, x, w, y, rstd, N, C, eps, stream), "rmsNormForward");
  check(kc::qkNormRopeForward(bf, qkv, ldQkv, N, H, KV, D, w, w, eps, cosv, sinv, qo, ko, rq, rk, stream),
        "qkNormRopeForward");

  // The head's softmax cross-entropy on one logits chunk (headForwardBackward's lossChunkTokens
  // tokens x V, in place; labels 0).
  const int64_t V = c.vocabSize, chunk = std::min<int64_t>(N, slidedp::model::lossChunkTokens(0, V));
  void* logits = deviceBuffer(chunk * V * e2);
  void* labelBytes = nullptr;
  check(cudaMalloc(&labelBytes, chunk * sizeof(int64_t)), "cudaMalloc");
  const auto* labels = static_cast<const int64_t*>(labelBytes);
  check(cudaMemset(labelBytes, 0, chunk * sizeof(int64_t)), "cudaMemset");
  float* lossRows = floats(chunk);

  struct Case {
    const char* name;
    double bytes;
    std::function<cudaError_t()> launch;
  };
  const double f4 = sizeof(float);
  const std::vector<Case> cases = {
      {"rms_norm_forward", N * C * 2.0 * e2 + N * f4,
       [&] { return kc::rmsNormForward(bf, x, w, y, rstd, N, C, eps, stream); }},
      {"rms_norm_backward_residual", N * C * 4.0 * e2 + N * f4,
       [&] { return kc::rmsNormBackward(bf, dy, x, rstd, w, res, y, dw, N, C, stream); }},
      {"qk_norm_rope_forward", N * qk * 2.0 * e2 + N * D * 2.0 * e2 + N * (H + KV) * f4,
       [&] { return kc::qkNormRopeForward(bf, qkv, ldQkv, N, H, KV, D, w, w, eps, cosv, sinv, qo, ko, rq, rk, stream); }},
      {"qk_norm_rope_backward", N * qk * 3.0 * e2 + N * D * 2.0 * e2 + N * (H + KV) * f4,
       [&] {
         return kc::qkNormRopeBackward(bf, qo, ko, qkv, ldQkv, N, H, KV, D, w, w, rq, rk, cosv, sinv, dqkv,
                                       ldQkv, dw, dw + D, stream);
       }},
      {"swiglu_forward", N * I * 3.0 * e2, [&] { return kc::swigluForward(bf, gu, act, N, I, stream); }},
      {"swiglu_backward_with_act", N * I * 6.0 * e2,
       [&] { return kc::swigluBackward(bf, dact, gu, dgu, act, N, I, stream); }},
      {"softmax_cross_entropy", chunk * V * 2.0 * e2 + chunk * (8 + f4),
       [&] { return kc::softmaxCrossEntropyInPlace(bf, logits, labels, lossRows, chunk, V, 1.f, stream); }},
  };
  for (const Case& k : cases) {
    const double us = timeUs(iters, repeats, stream, k.launch);
    const double gbps = k.bytes / us / 1e3;
    std::printf("RESULT kernel=%s us=%.1f gbps=%.0f of_roof=%.0f%%\n", k.name, us, gbps, 100.0 * gbps / hbm);
  }
  return 0;
}
