// Device calibration (see device_calibration.h). Includes LibTorch; compiles fmt header-only
// (src/model/CMakeLists.txt, SLIDEDP_TORCH_FMT_FIX).
#include "planner/device_calibration.h"

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>
#include <ATen/Parallel.h>
#include <torch/types.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include "common/errors.h"
#include "common/median.h"
#include "model/decoder.h"
#include "model/layer_flops.h"
#include "model/param_layout.h"
#ifdef SLIDEDP_WITH_CUDA
#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime_api.h>

#include "cuda/checks.h"
#endif

namespace slidedp::planner {

namespace {

/// Seconds of one run of f() (CUDA: events on the current stream).
template <typename F>
double timeOnce(bool cuda, F&& f) {
#ifdef SLIDEDP_WITH_CUDA
  if (cuda) {
    at::cuda::CUDAEvent a(cudaEventDefault), b(cudaEventDefault);
    auto s = c10::cuda::getCurrentCUDAStream();
    a.record(s);
    f();
    b.record(s);
    b.synchronize();
    return a.elapsed_time(b) * 1e-3;
  }
#endif
  (void)cuda;
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// Seconds of f() after one warm-up: CUDA the median of `iters` timed passes, or the first
/// alone when it took a second or more (timedPasses); CPU the minimum of `iters` (a shared
/// host's other work only ever adds time: the fastest repetition is the best estimate of the
/// unloaded machine the model describes).
template <typename F>
double timeIt(bool cuda, int iters, F&& f) {
  f();
  std::vector<double> t{timeOnce(cuda, f)};
  const int n = timedPasses(cuda, t.front(), iters);
  while (static_cast<int>(t.size()) < n) t.push_back(timeOnce(cuda, f));
  return cuda ? median(t) : *std::min_element(t.begin(), t.end());
}

}  // namespace

DeviceRates measureDevice(const model::ModelConfig& config, int64_t rows, int64_t T, bool cuda,
                          int gpu, int iters) {
  c10::InferenceMode no_inference(false);
  at::NoGradGuard no_grad;
  DeviceRates r;
  at::Device device = at::kCPU;
  at::ScalarType dt = at::kFloat;
  if (cuda) {
#ifdef SLIDEDP_WITH_CUDA
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0)
      throwUserError("calibration on CUDA, but no GPU is visible.\nHINT: check nvidia-smi and "
                     "CUDA_VISIBLE_DEVICES, or calibrate CPU workers (launcher/slidedp-run "
                     "--cpu-workers N; slidedp_plan directly: --device cpu)");
    r.gpus = n;
    c10::cuda::set_device(static_cast<c10::DeviceIndex>(gpu));
    device = at::Device(at::kCUDA, static_cast<c10::DeviceIndex>(gpu));
    dt = at::kBFloat16;
    cudaDeviceProp prop{};
    CUDA_CHECK(cudaGetDeviceProperties(&prop, gpu));
    r.description = fmt::format("{} x {}", prop.name, n);
    // free memory with the context up but nothing of ours allocated: context_gib = total - free
    at::empty({1}, at::TensorOptions().device(at::Device(at::kCUDA, static_cast<c10::DeviceIndex>(gpu))));
    size_t free_b = 0, total_b = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    r.memory_gib = total_b / double(1ull << 30);
    r.free_gib = free_b / double(1ull << 30);
#else
    throwUserError("calibration on CUDA, but this binary was built without CUDA.\nHINT: --device cpu");
#endif
  } else {
    at::set_num_threads(1);  // as CPU workers run (worker.cpp)
    r.description = "cpu (1 thread)";
  }
  const model::ParamLayout layout = model::ParamLayout::build(config);
  const auto opt = at::TensorOptions().dtype(dt).device(device);
  at::manual_seed(7);
  const auto& unit = layout.units[1];
  const at::Tensor flat = (at::randn({unit.numel}, at::TensorOptions().dtype(at::kFloat)) * 0.02).to(opt);
  // norm weights must be ~1 for sane activations; their exact values do not change the cost
  const at::Tensor x = at::randn({rows, T, config.hiddenSize}, opt);
  const model::AttentionContext ctx = model::makeAttentionContext(config, rows, T, at::Tensor(), dt, device);
  const at::Tensor grad_out = at::randn({rows, T, config.hiddenSize}, opt) * 1e-3;
  at::Tensor g = at::zeros({unit.numel}, at::TensorOptions().dtype(at::kFloat).device(device));
  r.fwd_s = timeIt(cuda, iters, [&] { model::decoderLayerForward(config, unit, flat, x, ctx); });
  // allocator peaks (CUDA): above what is allocated before the recompute + backward passes, and
  // before the head's (its weights and labels made first, as the runtime's window holds them)
  int64_t level = 0;
  auto startPeak = [&] {
#ifdef SLIDEDP_WITH_CUDA
    if (cuda) {
      c10::cuda::CUDACachingAllocator::resetPeakStats(device.index());
      level = c10::cuda::CUDACachingAllocator::getDeviceStats(device.index()).allocated_bytes[0].current;
    }
#endif
  };
  auto peakAbove = [&]() -> double {
#ifdef SLIDEDP_WITH_CUDA
    if (cuda) return double(c10::cuda::CUDACachingAllocator::getDeviceStats(device.index()).allocated_bytes[0].peak - level);
#endif
    return 0.0;
  };
  startPeak();
  model::LayerActivations acts;
  r.recompute_s = timeIt(cuda, iters, [&] { model::decoderLayerRecompute(config, unit, flat, x, ctx, acts); });
  r.bwd_s = timeIt(cuda, iters, [&] { model::decoderLayerBackward(config, unit, flat, acts, grad_out, ctx, g); });
  r.layer_peak_bytes = peakAbove();
  // the attention-output policy's recompute (its kept subset: the attention's output and LSE)
  if (model::keepsAttentionLse(cuda, dt)) {
    const model::LayerActivations saved = acts.attentionOnly();
    acts = model::LayerActivations();
    r.attention_recompute_s = timeIt(cuda, iters, [&] {
      model::decoderLayerRecompute(config, unit, flat, x, ctx, acts, &saved);
    });
  }
  acts = model::LayerActivations();
  // head: final norm + LM head + loss, forward + backward
  const auto& head = layout.units.back();
  const at::Tensor head_flat = (at::randn({head.numel}, at::TensorOptions().dtype(at::kFloat)) * 0.02).to(opt);
  at::Tensor embed_flat;
  if (config.tieWordEmbeddings)
    embed_flat = (at::randn({layout.units[0].numel}, at::TensorOptions().dtype(at::kFloat)) * 0.02).to(opt);
  const at::Tensor labels = at::randint(config.vocabSize, {rows, T}, at::TensorOptions().dtype(at::kLong).device(device));
  startPeak();
  r.head_s = timeIt(cuda, iters, [&] {
    model::headForwardBackward(config, head, head_flat, embed_flat, x, labels, 0, 1.0 / double(rows * T));
  });
  r.head_peak_bytes = peakAbove();
  if (cuda) {
    int64_t max_unit = 0;
    for (const auto& u : layout.units) max_unit = std::max(max_unit, u.numel);
    r.reserve_bytes = firstStepReserveBytes(r.layer_peak_bytes, r.head_peak_bytes, double(max_unit),
                                            double(layout.units[0].numel),
                                            double(x.numel()) * double(x.element_size()));
    r.reserve_tokens = double(rows * T);
  }
  // per-pass overhead: a layer's forward at 1 x 16 tokens
  {
    const at::Tensor xs = at::randn({1, 16, config.hiddenSize}, opt);
    const model::AttentionContext cs = model::makeAttentionContext(config, 1, 16, at::Tensor(), dt, device);
    r.overhead_s = timeIt(cuda, std::max(iters, 5), [&] { model::decoderLayerForward(config, unit, flat, xs, cs); });
  }
  const double tokens = double(rows * T);
  const auto shape = model::LayerFlopsShape::of(config, unit.numel, T, static_cast<int64_t>(at::elementSize(dt)));
  const double F = model::layerForwardFlops(shape, tokens);
  auto rate = [&](double flops, double s) { return flops / std::max(s - r.overhead_s, s * 0.05) / 1e12; };
  r.fwd_tflops = rate(F, r.fwd_s);
  r.bwd_tflops = rate(2 * F, r.bwd_s);
  r.recompute_tflops = rate(model::recomputeFlops(shape, tokens, true), r.recompute_s);
  if (r.attention_recompute_s > 0)
    r.attention_recompute_tflops = rate(model::recomputeFlops(shape, tokens, false), r.attention_recompute_s);
  r.head_tflops = rate(6.0 * double(config.vocabSize) * double(config.hiddenSize) * tokens, r.head_s);
#ifdef SLIDEDP_WITH_CUDA
  if (cuda) {
    // pinned host <-> device, 256 MiB, alone and both directions at once (two streams)
    const size_t bytes = size_t{256} << 20;
    void* host_a = nullptr;
    void* host_b = nullptr;
    CUDA_CHECK(cudaHostAlloc(&host_a, bytes, cudaHostAllocDefault));
    CUDA_CHECK(cudaHostAlloc(&host_b, bytes, cudaHostAllocDefault));
    at::Tensor dev_a = at::empty({int64_t(bytes)}, at::TensorOptions().dtype(at::kByte).device(device));
    at::Tensor dev_b = at::empty({int64_t(bytes)}, at::TensorOptions().dtype(at::kByte).device(device));
    auto s1 = c10::cuda::getStreamFromPool(false, device.index());
    auto s2 = c10::cuda::getStreamFromPool(false, device.index());
    auto copy = [&](bool h2d, bool d2h) {
      const auto t0 = std::chrono::steady_clock::now();
      if (h2d) CUDA_CHECK(cudaMemcpyAsync(dev_a.data_ptr(), host_a, bytes, cudaMemcpyHostToDevice, s1.stream()));
      if (d2h) CUDA_CHECK(cudaMemcpyAsync(host_b, dev_b.data_ptr(), bytes, cudaMemcpyDeviceToHost, s2.stream()));
      CUDA_CHECK(cudaStreamSynchronize(s1.stream()));
      CUDA_CHECK(cudaStreamSynchronize(s2.stream()));
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    };
    copy(true, true);
    std::vector<double> th, td, tb;
    for (int i = 0; i < 3; ++i) th.push_back(copy(true, false)), td.push_back(copy(false, true)), tb.push_back(copy(true, true));
    r.h2d_gbps = bytes / median(th) / 1e9;
    r.d2h_gbps = bytes / median(td) / 1e9;
    // both at once: each direction's rate relative to alone
    r.duplex = std::min(1.0, (bytes / median(tb) / 1e9) / std::max(r.h2d_gbps, r.d2h_gbps));
    CUDA_CHECK(cudaFreeHost(host_a));
    CUDA_CHECK(cudaFreeHost(host_b));
    dev_a = at::Tensor();
    dev_b = at::Tensor();
    c10::cuda::CUDACachingAllocator::emptyCache();
  }
#endif
  return r;
}

MachineDescription calibratedMachine(const HostRates& host, const DeviceRates& dev, bool cuda, int G,
                                     int leader_cores, const MachineDescription* fallback,
                                     const std::string& reserve_shape) {
  MachineDescription m;
  m.name = fmt::format("calibrated: {}", dev.description);
  m.source = "calibration (slidedp plan): the worker's layer code and the leader's AdamW measured here";
  m.gpus = std::max(G, cuda ? dev.gpus : G);
  m.cpu_workers = !cuda;
  GpuSpec& g = m.gpu;
  g.model = dev.description;
  g.fwd_tflops = dev.fwd_tflops;
  g.bwd_tflops = dev.bwd_tflops;
  g.recompute_tflops = dev.recompute_tflops;
  g.attention_recompute_tflops = dev.attention_recompute_tflops;
  g.head_tflops = dev.head_tflops;
  g.layer_overhead_s = dev.overhead_s;
  m.provenance["compute"] = fmt::format("measured: layer fwd {:.4g} s, bwd {:.4g} s, recompute fwd {:.4g} s, "
                                        "attention-output recompute {:.4g} s, head {:.4g} s, overhead "
                                        "{:.3g} s", dev.fwd_s, dev.bwd_s, dev.recompute_s,
                                        dev.attention_recompute_s, dev.head_s, dev.overhead_s);
  if (cuda) {
    g.memory_gib = dev.memory_gib;
    g.h2d_gbps = dev.h2d_gbps;
    g.d2h_gbps = dev.d2h_gbps;
    g.duplex = dev.duplex;
    g.context_gib = std::max(0.5, dev.memory_gib - dev.free_gib);
    g.reserve_gib = dev.reserve_bytes / double(1ull << 30);
    g.reserve_tokens = dev.reserve_tokens;
    g.reserve_shape = reserve_shape;
    m.provenance["reserve"] = fmt::format(
        "measured: allocator peaks of one recomputed layer's forward + backward {:.2f} GiB and of the "
        "head {:.2f} GiB at {} tokens (default loss chunk, MLP tiling, attention), + 4 fp32 unit and "
        "1 embedding gradients, 2 layer inputs, 5% and 512 MiB",
        dev.layer_peak_bytes / double(1ull << 30), dev.head_peak_bytes / double(1ull << 30), dev.reserve_tokens);
    m.provenance["pcie"] = "measured: pinned 256 MiB copies on one GPU, alone and both directions at once";
    if (fallback) {
      g.h2d_all_gbps = fallback->gpu.h2d_all_gbps;
      g.d2h_all_gbps = fallback->gpu.d2h_all_gbps;
      g.collective_gbps = fallback->gpu.collective_gbps;
      g.peer_access = fallback->gpu.peer_access;
      m.provenance["collective/all-GPU PCIe"] = "from the machine file " + fallback->name;
    } else {
      g.collective_gbps = 200;
      m.provenance["collective/all-GPU PCIe"] = "not measured (one process): NVLink-class 200 GB/s and "
                                                "G x one-GPU PCIe assumed; give --machine to override";
    }
  } else {
    g.h2d_gbps = g.d2h_gbps = host.copy_gbps;  // CPU workers memcpy to and from the segment
    g.collective_gbps = host.copy_gbps / 2;    // MPI through shared memory: two copies
    g.duplex = 1;
    m.provenance["pcie"] = fmt::format("CPU workers: one thread's memcpy {:.2f} GB/s", host.copy_gbps);
    m.provenance["collective"] = "CPU workers: MPI through shared memory, half the memcpy rate (assumed)";
  }
  m.host.cores = host.cores;
  m.host.leader_cores = leader_cores;
  m.host.mem_bw_gbps = host.mem_bw_gbps;
  m.host.ram_gib = host.ram_gib;
  m.host.adamw_gbps = host.adamw_gbps;
  m.host.chunk_overhead_s = cuda ? 3e-5 : 1e-4;
  m.host.step_overhead_s = cuda ? 0.01 : 0.005;
  std::string passes;
  for (const auto& [t, range] : host.adamw_range_gbps)
    passes += fmt::format("{}{} threads {:.0f} ({:.0f}-{:.0f})", passes.empty() ? "" : ", ", t,
                          host.adamw_gbps.at(t), range.first, range.second);
  m.provenance["host"] = fmt::format("measured: memcpy {:.1f} GB/s read+write over {} threads; AdamW "
                                     "pass by threads (optim::Engine, f32, 1 slot), GB/s median "
                                     "(slowest-fastest pass): {}", host.mem_bw_gbps, host.cores, passes);
  m.provenance["overheads"] = "chunk and step overheads: estimates";
  return m;
}

}  // namespace slidedp::planner
