// Where the GPU time of a piece of work goes: runs a callable under the torch profiler
// (Kineto/CUPTI: CPU ops, user scopes, GPU kernels, copies and memsets) and reports
//  - per scope: every GPU activity attributed to the innermost profiler scope of
//    model/decoder.cpp (fwd.qkv_proj, bwd.down_proj.dW, head.cross_entropy, ...) or of the
//    worker (worker.embedding, worker.grad_zero, ...), copies and memsets by their kind
//    (Memcpy HtoD, Memcpy DtoH, Memset); kernels, GPU ms, share of the summed GPU time, achieved
//    TFLOPS (GEMMs and attention, FLOPs from the launching op's shapes) or GB/s (scopes the
//    caller gives bytes for), each beside its roofline;
//  - per CUDA stream: activities, busy ms (union of its intervals), kernels vs copies;
//  - the compute stream (the stream with the most kernel time): busy, span, idle, and its idle
//    gaps summed by the (scope before, scope after) pair and the largest ones with their offsets,
//    which say what the compute stream waited for (a delivery, a hand-off, the host);
//  - the top kernels by GPU time.
// Used by tools/bench/bench_layer --profile and slidedp_worker --gpu-profile.
//
// FLOPs: aten::mm / addmm / addmm_out of [M, K] x [K, N] = 2*M*K*N; attention forward with a
// causal mask (FlashAttention-2/3 or cuDNN, [B, H, T, D]) = 2*B*H*T^2*D (half of QK^T and PV's
// 4*B*H*T^2*D), its backward 2.5x that (five T x T GEMMs instead of two). These are the FLOPs the
// kernels really do; the trainer's MFU formula (12*L*H*D*T per token) counts attention without
// the causal half, so its TFLOPS read higher.
#pragma once

#include <functional>
#include <map>
#include <string>

namespace slidedp::profiling {

struct Rooflines {
  double gemmTflops = 790;   // bf16 dense GEMM measured on the H200 (design.md)
  double hbmGBs = 4300;      // H200 HBM3e, vendor figure (~4.8 TB/s peak; ~4.3 reachable)
};

struct ProfileResult {
  double computeBusyMs = 0;  // GPU busy time of the compute stream (union of its activities)
  double computeSpanMs = 0;  // first start to last end on the compute stream
  std::string table;         // the report, lines ending in '\n'
};

/// Runs `work` once under the profiler (after the caller's warm-up), synchronises the device and
/// returns the report titled `title`. `bytesPerScope` gives the bytes an element-wise scope moves
/// (read + write) for this shape; a scope absent from it shows no GB/s. When `tracePath` is
/// non-empty the Chrome trace is written there (open in ui.perfetto.dev).
/// Thread: the calling thread, with the CUDA device set. CPU ops are recorded on this thread
/// only; GPU activity from every thread (e.g. a hand-off thread's copies) is recorded, copies by
/// their kind, other threads' kernels as "(unattributed)". Errors: whatever `work` throws
/// propagates after the profiler is stopped; the caller checks that the trace was written
/// (the profiler may only log a failure). No GPU activity recorded (CUPTI unavailable or not
/// permitted) gives a table that says so.
ProfileResult profileScopes(const std::string& title, const std::function<void()>& work,
                            const std::map<std::string, double>& bytesPerScope,
                            const std::string& tracePath = "", const Rooflines& roof = Rooflines());

}  // namespace slidedp::profiling
