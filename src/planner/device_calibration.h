// The device half of calibration (see calibration.h): the worker's own code measured on the
// worker's device — one decoder layer's forward, backward from kept activations, the extra
// forward of a recompute (decoderLayerRecompute: the whole layer's, and the attention-output
// policy's around a kept attention output), and the head's fused forward+backward, with
// model/decoder.h at the run's shape (rows per micro-batch x T), on one GPU (CUDA events) or on one CPU thread
// (at::set_num_threads(1), as CPU workers run); pinned H2D and D2H alone and both at once;
// free GPU memory. Converted to a MachineDescription with the host half.
//
// Threading: one thread; CUDA work on the current device's default stream.
#pragma once

#include <cstdint>
#include <string>

#include "model/config.h"
#include "planner/calibration.h"
#include "planner/machine.h"

namespace slidedp::planner {

struct DeviceRates {
  std::string description;     // "cpu (1 thread)" or "NVIDIA H200 x 1"
  double fwd_s = 0, bwd_s = 0, recompute_s = 0, head_s = 0;  // one pass at (rows, T)
  double attention_recompute_s = 0;  // the attention-output recompute (0: no LSE kept, n/a)
  double overhead_s = 0;       // a layer's forward at 1 x 16 tokens
  double fwd_tflops = 0, bwd_tflops = 0, recompute_tflops = 0, head_tflops = 0;
  double attention_recompute_tflops = 0;  // model FLOPs of model/layer_flops.h
  double h2d_gbps = 0, d2h_gbps = 0, duplex = 1;  // CUDA only
  double memory_gib = 0, free_gib = 0;            // CUDA only
  int gpus = 0;                                   // CUDA devices visible
  // CUDA only (0 on the CPU): allocator peaks above the level before each pass, bytes: one
  // recomputed layer's forward (its activations kept) then its backward, and the head's fused
  // forward + backward; and the reserve composed from them (firstStepReserveBytes).
  double layer_peak_bytes = 0, head_peak_bytes = 0, reserve_bytes = 0;
  double reserve_tokens = 0;  // rows x T they were measured at
};

/// Measures the layer and the head of `config` at `rows` x `T` tokens per micro-batch (one
/// micro-batch: where that runs the MLP tiled and a plan's smaller micro-batches do not, the
/// recompute rates come from passes without the MLP and are applied to passes with it) on the
/// CPU (one thread) or on CUDA device `gpu`. `iters` timed repetitions after one warm-up (the
/// median is kept). Throws UserError when CUDA is asked for but absent.
DeviceRates measureDevice(const model::ModelConfig& config, int64_t rows, int64_t T, bool cuda,
                          int gpu = 0, int iters = 3);

/// The machine as calibrated: host rates + device rates, for G workers. Rates that cannot be
/// measured in one process (GPU-to-GPU collectives) come from `fallback` when given (a machine
/// file), else an assumption written into `provenance`. `reserve_shape`: the measured model's
/// shape (cost_model.h reserveShape), kept beside its measured reserve, which applies to it alone.
MachineDescription calibratedMachine(const HostRates& host, const DeviceRates& dev, bool cuda, int G,
                                     int leader_cores, const MachineDescription* fallback,
                                     const std::string& reserve_shape);

}  // namespace slidedp::planner
