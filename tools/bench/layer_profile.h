// Where the GPU time of a piece of work goes, per named range: runs a callable under the torch
// profiler (Kineto/CUPTI: CPU ops, user scopes, GPU kernels, copies and memsets), attributes every
// GPU activity to the innermost profiler scope of model/decoder.cpp (fwd.qkv_proj,
// bwd.down_proj.dW, head.cross_entropy, ...) through the CPU op that launched it, and prints one
// row per scope: kernels, GPU ms, share of the busy time, achieved TFLOPS (GEMMs and attention,
// FLOPs from the launching op's shapes) or GB/s (element-wise scopes, bytes from a table the
// caller gives), each beside its roofline; then the compute stream's busy time, span and idle
// gaps. Used by tools/bench/bench_layer --profile.
//
// FLOPs: aten::mm / addmm / addmm_out of [M, K] x [K, N] = 2*M*K*N; attention forward with a
// causal mask (FlashAttention-2 or cuDNN, [B, H, T, D]) = 2*B*H*T^2*D (half of QK^T and PV's
// 4*B*H*T^2*D), its backward 2.5x that (five T x T GEMMs instead of two). These are the FLOPs the
// kernels really do; the trainer's MFU formula (12*L*H*D*T per token) counts attention without
// the causal half, so its TFLOPS read higher.
#pragma once

#include <functional>
#include <map>
#include <string>

namespace slidedp::bench {

struct Rooflines {
  double gemmTflops = 790;   // bf16 dense GEMM measured on the H200 (design.md)
  double hbmGBs = 4300;      // H200 HBM3e, vendor figure (~4.8 TB/s peak; ~4.3 reachable)
};

/// Runs `work` once under the profiler (after the caller's warm-up), synchronises the device and
/// prints the per-scope table under `title`. `bytesPerScope` gives the bytes an element-wise scope
/// moves (read + write) for this shape; a scope absent from it shows no GB/s. When `tracePath`
/// is non-empty the Chrome trace is written there (open in ui.perfetto.dev). Returns the GPU
/// busy milliseconds of the compute stream. Thread: the calling thread, with the CUDA device set.
double profileScopes(const std::string& title, const std::function<void()>& work,
                     const std::map<std::string, double>& bytesPerScope,
                     const std::string& tracePath = "", const Rooflines& roof = Rooflines());

}  // namespace slidedp::bench
