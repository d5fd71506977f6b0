// bench_layer: one decoder layer and the LM head of a model shape on one GPU, timed with CUDA
// events after warm-up (median of --iters): forward, backward from kept activations, backward
// by recompute (decoderLayerRecompute + backward), and the head's fused loss forward+backward; each
// with the fused kernels and with the eager ATen references (the element-wise code of the
// transformers model, SLIDEDP_REFERENCE_KERNELS), as TFLOPS of model FLOPs and as ms.
//
// FLOPs, as the trainer counts them (6*N*tokens + 12*L*H*D*T*tokens over fwd+bwd): a layer's
// forward is 2*P*tokens + 4*H*D*T*tokens, its backward twice that; the head's forward
// 2*V*C*tokens and backward twice that. Recompute is charged the backward's FLOPs only (its
// extra forward is overhead, which is the point of keeping activations). The recompute passes
// alone (decoderLayerRecompute: whole, and around a kept attention output) are printed as
// layer_recompute_pass and layer_attention_output_recompute_pass with the FLOPs they run
// (model/layer_flops.h recomputeFlops), beside layer_forward (the kept forward they replace).
//
// Usage: bench_layer [--config tools/configs/qwen3-8b.json] [--rows 4] [--seq-len 4096]
//                    [--iters 5] [--device-index 0] [--profile 0|1] [--trace-dir DIR]
//                    [--loss-chunks 0,4096,8192]  (the head at each tokens-per-chunk; 0: auto)
//                    [--variants fused_flash,fused_cudnn,fused_fa3,eager_flash] [--rounds 1]
// Design decision: variants are compared in rounds (--rounds R: every chosen variant once a round,
// odd rounds in reverse order; each figure the median over rounds), because one pass in a fixed
// order is not an A/B on a power-capped GPU: on an H100 at 8 x 4096 the SM clock sat at 1530 MHz
// under the 700 W cap and the head, which no attention kernel touches, took 7.5% longer in the
// third variant's turn than in the second's (tools/bench/results/2026-12-07b-session17/).
// Defaults as shown (--profile 0; no --trace-dir, no --loss-chunks); --help lists them all. A bad
// option or value, a missing/invalid config or no such CUDA device: a message and exit 2 (the
// command line is parsed before any CUDA call, so --help and its errors need no GPU).
// Prints one "RESULT name=... ms=... tflops=..." line per measurement. With --profile 1, also
// the per-op profile of the default path (fused kernels, FlashAttention-3 where built, else cuDNN
// attention, kept activations):
// forward, backward and the head, each op's GPU time, TFLOPS or GB/s beside its roofline and the
// idle gaps of the GPU (profiling/gpu_profile.h); --trace-dir writes their Chrome traces.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAEvent.h>
#include <c10/core/InferenceMode.h>
#include <torch/types.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/cuda.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "bench_cli.h"  // defines: the command line (CLI11) and its validators
#include "kernels/layer_ops.h"
#include "profiling/gpu_profile.h"
#include "profiling/scope_bytes.h"
#include "model/config.h"
#include "model/decoder.h"
#include "model/layer_flops.h"
#include "model/param_layout.h"

using namespace slidedp;
namespace bench = slidedp::bench;

namespace {

double medianMs(int iters, const std::function<void()>& f) {
  for (int i = 0; i < 2; ++i) f();  // warm-up
  std::vector<double> ms;
  for (int i = 0; i < iters; ++i) {
    at::cuda::CUDAEvent a(cudaEventDefault), b(cudaEventDefault);
    a.record();
    f();
    b.record();
    b.synchronize();
    ms.push_back(a.elapsed_time(b));
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

double median(std::vector<double> v) {  // of the rounds (the middle two's mean where even)
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double relL2(const at::Tensor& a, const at::Tensor& b) {
  const auto d = (a.to(at::kDouble) - b.to(at::kDouble)).norm().item<double>();
  return d / std::max(b.to(at::kDouble).norm().item<double>(), 1e-30);
}

/// One variant's measurements, ms, one entry per round it ran (each the median of --iters).
struct Times {
  std::vector<double> forward, backward_kept, backward_recompute, recompute_pass,
      attention_output_pass, backward_attention_output, head;  // the last three: empty if unused
  model::AttentionKernel kernel{};
  double kept_bytes = 0;
  void add(const Times& t) {
    auto append = [](std::vector<double>& to, const std::vector<double>& from) {
      to.insert(to.end(), from.begin(), from.end());
    };
    append(forward, t.forward);
    append(backward_kept, t.backward_kept);
    append(backward_recompute, t.backward_recompute);
    append(recompute_pass, t.recompute_pass);
    append(attention_output_pass, t.attention_output_pass);
    append(backward_attention_output, t.backward_attention_output);
    append(head, t.head);
    kernel = t.kernel;
    kept_bytes = t.kept_bytes;
  }
};

}  // namespace

int main(int argc, char** argv) {
  bench::ShapeOptions shape{"tools/configs/qwen3-8b.json", 4, 4096, 0};
  int iters = 5, rounds = 1;
  std::vector<std::string> variant_names = {"fused_flash", "fused_cudnn", "fused_fa3", "eager_flash"};
  bool profile = false;
  std::string trace_dir;
  std::vector<int64_t> loss_chunks;  // --loss-chunks: head fwd+bwd per tokens-per-chunk (0: auto)
  CLI::App app{"bench_layer: one decoder layer and the LM head of a model shape on one GPU, fused "
               "kernels vs the eager ATen references, kept-activation vs recompute backward, as ms "
               "and model TFLOPS",
               "bench_layer"};
  bench::addShapeOptions(app, shape);
  app.add_option("--iters", iters,
                 "Timed runs per measurement after 2 warm-up runs; the median is reported")
      ->check(bench::intAtLeast(1))
      ->capture_default_str();
  app.add_option("--rounds", rounds,
                 "Rounds over the variants, odd rounds in reverse order; each figure is the median "
                 "over rounds (and ROUND lines print each round's fwd+bwd and head)")
      ->check(bench::intAtLeast(1))
      ->capture_default_str();
  app.add_option("--variants", variant_names,
                 "Variants to time, comma-separated: fused_flash, fused_cudnn, fused_fa3, eager_flash "
                 "(agreement is against the first listed)")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--profile", profile, "1: also the per-op GPU profile of the default path (forward, "
                 "backward, head); 0: off")
      ->capture_default_str();
  app.add_option("--trace-dir", trace_dir, "With --profile 1: write the Chrome traces "
                 "(layer_forward.json, layer_backward.json, head.json) to this directory");
  app.add_option("--loss-chunks", loss_chunks, "Also time the head's fwd+bwd at each of these "
                 "tokens-per-chunk, comma-separated (0: auto, model::lossChunkTokens)")
      ->delimiter(',')
      ->check(bench::intAtLeast(0));
  if (const auto rc = bench::parseCommandLine(app, argc, argv)) return *rc;
  struct Variant {
    const char* tag;
    bool reference;
    model::AttentionKernel attention;
  };
  const std::vector<Variant> all = {Variant{"fused_flash", false, model::AttentionKernel::kFlash},
                                    Variant{"fused_cudnn", false, model::AttentionKernel::kCudnn},
                                    Variant{"fused_fa3", false, model::AttentionKernel::kFa3},
                                    Variant{"eager_flash", true, model::AttentionKernel::kFlash}};
  std::vector<Variant> chosen;
  for (const auto& name : variant_names) {
    const auto it = std::find_if(all.begin(), all.end(), [&](const Variant& v) { return name == v.tag; });
    if (it == all.end()) {
      std::fprintf(stderr, "bench_layer: error: --variants: no variant '%s' (one of fused_flash, "
                   "fused_cudnn, fused_fa3, eager_flash)\n", name.c_str());
      return 2;
    }
    chosen.push_back(*it);
  }
  const std::string config = shape.config;
  const int64_t rows = shape.rows, T = shape.seq_len;
  const int dev_index = shape.device_index;
  model::ModelConfig c;
  try {
    c = model::ModelConfig::load(config);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_layer: %s\n", e.what());
    return 2;
  }
  if (!torch::cuda::is_available()) {
    std::fprintf(stderr, "bench_layer: no CUDA device\n");
    return 2;
  }
  if (const auto visible = static_cast<int>(torch::cuda::device_count()); dev_index >= visible) {
    std::fprintf(stderr, "bench_layer: no CUDA device %d (%d visible)\n", dev_index, visible);
    return 2;
  }
  c10::InferenceMode no_inference(false);
  torch::NoGradGuard no_grad;
  const at::Device dev(at::kCUDA, static_cast<c10::DeviceIndex>(dev_index));
  c10::cuda::CUDAGuard guard(dev);
  const auto layout = model::ParamLayout::build(c);
  const auto& unit = layout.units[1];
  const auto& head = layout.units[layout.headUnit()];
  const auto bf16 = at::TensorOptions().dtype(at::kBFloat16).device(dev);
  auto flat = (at::randn({unit.numel}, bf16) * 0.02);
  for (const auto& p : unit.params)  // norms at 1
    if (p.name.find("norm") != std::string::npos) flat.narrow(0, p.offset, p.numel).fill_(1.0);
  auto headFlat = at::randn({head.numel}, bf16) * 0.02;
  auto embedFlat = at::randn({layout.units[0].numel}, bf16) * 0.02;
  headFlat.narrow(0, head.get("model.norm.weight").offset, c.hiddenSize).fill_(1.0);
  auto ctx = model::makeAttentionContext(c, rows, T, at::Tensor(), at::kBFloat16, dev);
  auto x = at::randn({rows, T, c.hiddenSize}, bf16);
  auto dy = at::randn({rows, T, c.hiddenSize}, bf16) * 1e-3;
  auto ids = at::randint(c.vocabSize, {rows, T}, at::TensorOptions().dtype(at::kLong).device(dev));
  auto gradFlat = at::zeros({unit.numel}, bf16.dtype(at::kFloat));
  const double tokens = static_cast<double>(rows * T);
  int64_t P = 0;
  for (const auto& p : unit.params) P += p.numel;
  const auto flopsShape = model::LayerFlopsShape::of(c, P, T, 2);  // bf16
  const double fwdFlops = model::layerForwardFlops(flopsShape, tokens);
  const double headFwdFlops = 2.0 * c.vocabSize * c.hiddenSize * tokens;
  std::printf("bench_layer: %s, layer of %.1f M params, %lld x %lld tokens, bf16 on %s\n",
              config.c_str(), P / 1e6, (long long)rows, (long long)T, dev.str().c_str());
  // One round of one variant (the kernels set by the caller): forward, backward kept and by
  // recompute, the recompute passes, the head; its layer output and input gradient to *y, *dx.
  auto timeVariant = [&](at::Tensor* y, at::Tensor* dx) {
    Times t;
    model::LayerActivations acts;
    t.forward.push_back(medianMs(iters, [&] {
      acts = model::LayerActivations();
      *y = model::decoderLayerForward(c, unit, flat, x, ctx, &acts);
    }));
    t.kernel = acts.attnKernel;
    t.kept_bytes = double(acts.bytes());
    t.backward_kept.push_back(medianMs(iters, [&] {
      *dx = model::decoderLayerBackward(c, unit, flat, acts, dy, ctx, gradFlat);
    }));
    t.backward_recompute.push_back(medianMs(iters, [&] {
      model::LayerActivations a;
      model::decoderLayerRecompute(c, unit, flat, x, ctx, a);
      model::decoderLayerBackward(c, unit, flat, a, dy, ctx, gradFlat);
    }));
    // the recompute passes alone (against layer_forward, the kept forward they replace)
    model::LayerActivations ra;
    t.recompute_pass.push_back(medianMs(iters, [&] { model::decoderLayerRecompute(c, unit, flat, x, ctx, ra); }));
    if (acts.lse.defined()) {  // the attention-output policy: its recompute, its whole backward
      const model::LayerActivations saved = acts.attentionOnly();
      t.attention_output_pass.push_back(
          medianMs(iters, [&] { model::decoderLayerRecompute(c, unit, flat, x, ctx, ra, &saved); }));
      t.backward_attention_output.push_back(
          medianMs(iters, [&] { model::decoderLayerBackward(c, unit, flat, saved, dy, ctx, gradFlat); }));
    }
    ra = model::LayerActivations();
    acts = model::LayerActivations();
    t.head.push_back(medianMs(iters, [&] {
      model::headForwardBackward(c, head, headFlat, embedFlat, x, ids, 0, 1.0 / tokens);
    }));
    return t;
  };
  // One round times every chosen variant once; odd rounds run them in reverse order, so a
  // clock that drifts over the run (the H100's power cap) weighs on each variant alike. A
  // measurement's figure is the median over rounds of its per-round median of --iters.
  std::vector<Times> times(chosen.size());
  std::vector<bool> failed(chosen.size(), false);
  at::Tensor y0, dx0;  // the first listed variant's layer output and input gradient
  std::vector<double> yRel(chosen.size(), 0), dxRel(chosen.size(), 0);
  for (int round = 0; round < rounds; ++round) {
    for (size_t k = 0; k < chosen.size(); ++k) {
      const size_t i = round % 2 == 0 ? k : chosen.size() - 1 - k;
      const Variant& v = chosen[i];
      if (failed[i]) continue;
      kernels::setReferenceKernels(v.reference);
      model::setAttentionKernel(v.attention);
      try {
        at::Tensor y, dx;
        const Times t = timeVariant(&y, &dx);
        times[i].add(t);
        if (rounds > 1)
          std::printf("ROUND %d name=%s fwd_bwd_kept_ms=%.3f head_fwd_bwd_ms=%.3f\n", round, v.tag,
                      t.forward[0] + t.backward_kept[0], t.head[0]);
        if (round == 0) {
          if (!y0.defined() && i == 0) {
            y0 = y.clone();
            dx0 = dx.clone();
          }
          if (y0.defined()) {  // (undefined: the first listed variant failed)
            yRel[i] = relL2(y, y0);
            dxRel[i] = relL2(dx, dx0);
          }
        }
      } catch (const std::exception& e) {
        failed[i] = true;
        std::printf("RESULT name=%s failed: %.300s\n", v.tag, e.what());
      }
    }
  }
  for (size_t i = 0; i < chosen.size(); ++i) {
    if (failed[i]) continue;
    const char* tag = chosen[i].tag;
    const Times& t = times[i];
    std::printf("%s (%s attention): kept activations %.1f MiB per layer\n", tag,
                model::attentionKernelName(t.kernel), t.kept_bytes / double(1 << 20));
    if (y0.defined())
      std::printf("RESULT name=%s_agreement y_rel_l2=%.2e dx_rel_l2=%.2e (vs %s)\n", tag, yRel[i],
                  dxRel[i], chosen[0].tag);
    auto line = [&](const char* what, const std::vector<double>& ms, double flops) {
      const double m = median(ms);
      std::printf("RESULT name=%s_%s ms=%.3f tflops=%.1f\n", tag, what, m, flops / m / 1e9);
    };
    std::vector<double> fk, fr;
    for (size_t r = 0; r < t.forward.size(); ++r) {
      fk.push_back(t.forward[r] + t.backward_kept[r]);
      fr.push_back(t.forward[r] + t.backward_recompute[r]);
    }
    line("layer_forward", t.forward, fwdFlops);
    line("layer_backward_kept", t.backward_kept, 2 * fwdFlops);
    line("layer_backward_recompute", t.backward_recompute, 2 * fwdFlops);
    line("layer_recompute_pass", t.recompute_pass, model::recomputeFlops(flopsShape, tokens, true));
    if (!t.attention_output_pass.empty()) {
      line("layer_attention_output_recompute_pass", t.attention_output_pass,
           model::recomputeFlops(flopsShape, tokens, false));
      line("layer_backward_attention_output", t.backward_attention_output, 2 * fwdFlops);
    }
    line("layer_fwd_bwd_kept", fk, 3 * fwdFlops);
    line("layer_fwd_bwd_recompute", fr, 3 * fwdFlops);
    line("head_fwd_bwd", t.head, 3 * headFwdFlops);
  }
  kernels::setReferenceKernels(false);
  // The head at each tokens-per-chunk of --loss-chunks (fused kernels, the auto chunk is
  // model::lossChunkTokens(0, V)): the LM-head GEMMs' efficiency against the logits' memory.
  for (int64_t chunk : loss_chunks) {
    try {
      const double hd = medianMs(iters, [&] {
        model::headForwardBackward(c, head, headFlat, embedFlat, x, ids, chunk, 1.0 / tokens);
      });
      const int64_t m = model::lossChunkTokens(chunk, c.vocabSize);
      std::printf("RESULT name=head_fwd_bwd_chunk%lld ms=%.3f tflops=%.1f logits_mib=%.0f\n",
                  (long long)m, hd, 3 * headFwdFlops / hd / 1e9,
                  m * static_cast<double>(c.vocabSize) * 2 / (1 << 20));
    } catch (const std::exception& e) {
      std::printf("RESULT name=head_fwd_bwd_chunk%lld failed: %.300s\n", (long long)chunk, e.what());
    }
  }
  if (profile) {
    model::setAttentionKernel(model::defaultAttentionKernel());
    const auto bytes = profiling::decoderScopeBytes(c, tokens, 1);
    // Prints the table; returns the compute stream's busy ms.
    auto profile = [&](const char* title, const std::function<void()>& work, const char* trace_file) {
      const auto r = profiling::profileScopes(title, work, bytes,
                                              trace_dir.empty() ? std::string() : trace_dir + "/" + trace_file);
      std::fputs(r.table.c_str(), stdout);
      return r.computeBusyMs;
    };
    model::LayerActivations acts;
    auto fwd = [&] {
      acts = model::LayerActivations();
      model::decoderLayerForward(c, unit, flat, x, ctx, &acts);
    };
    for (int i = 0; i < 2; ++i) fwd();
    const double f = profile("layer forward, kept activations", fwd, "layer_forward.json");
    auto bwd = [&] { model::decoderLayerBackward(c, unit, flat, acts, dy, ctx, gradFlat); };
    for (int i = 0; i < 2; ++i) bwd();
    const double b = profile("layer backward from kept activations", bwd, "layer_backward.json");
    acts = model::LayerActivations();
    auto head_fb = [&] { model::headForwardBackward(c, head, headFlat, embedFlat, x, ids, 0, 1.0 / tokens); };
    for (int i = 0; i < 2; ++i) head_fb();
    const double h = profile("head forward + backward", head_fb, "head.json");
    std::printf("RESULT name=profile_busy layer_fwd_ms=%.3f layer_bwd_ms=%.3f head_ms=%.3f "
                "layer_tflops_busy=%.1f\n", f, b, h, 3 * fwdFlops / (f + b) / 1e9);
  }
  return 0;
}
