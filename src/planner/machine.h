// A machine as the step-time model sees it: the rates and capacities of its resources (GPU
// compute, PCIe per direction per GPU and in total, GPU-to-GPU collectives, host memory
// bandwidth, the leader's AdamW rate by thread count) and its memory. Either measured here by
// calibration (calibration.h) or written by hand for a machine we cannot run (a machine
// description file, tools/machines/*.json), so `slidedp plan --machine FILE` predicts there.
//
// The one design decision: compute is described by effective rates in MODEL FLOPs (the
// trainer's convention, tools/bench/bench_layer.cpp: a decoder layer's forward is
// 2 P + 4 H D T FLOPs per token, its backward twice that; the head's forward 2 V C per
// token), so one measurement at one shape extrapolates to other batch shapes by FLOPs, plus a
// fixed per-kernel-sequence overhead that dominates only for tiny layers.
//
// File format (JSON, every rate in decimal GB/s = 1e9 bytes/s, times in seconds, memory in
// GiB; unknown keys are an error so a typo is not silently ignored):
//   { "name": "...", "source": "where the numbers come from",
//     "gpus": 4, "cpu_workers": false,
//     "gpu": { "model": "...", "memory_gib": 24, "usable_gib": 0 (0: memory - 3),
//              "pcie": "4.0 x16", "h2d_gbps": 25, "d2h_gbps": 25,
//              "h2d_all_gbps": 0, "d2h_all_gbps": 0   (all GPUs at once, total; 0: gpus x one),
//              "duplex": 0.85  (each direction's share of its rate while both run),
//              "peer_access": false, "collective_gbps": 10 (NCCL bus bandwidth per GPU),
//              "fwd_tflops": ..., "bwd_tflops": ..., "recompute_tflops": ...,
//              ["attention_recompute_tflops": ...,] "head_tflops": ...,
//              "layer_overhead_s": 2e-4, "context_gib": 1.0,
//              "reserve_gib": 0, "reserve_tokens": 0, "reserve_shape": ""  (calibration: the
//              measured reserve, below) },
//     "host": { "cores": 64, "leader_cores": 0 (0: cores - 4 per worker), "mem_bw_gbps": 100,
//               "ram_gib": 512, "adamw_gbps": { "1": 8, "8": 50, "32": 95 },
//               "chunk_overhead_s": 3e-5, "step_overhead_s": 2e-3, "update_dma_share": 1 },
//     "provenance": { "<key>": "measured by ... / datasheet / scaled from ..." } }
#pragma once

#include <map>
#include <string>

#include <nlohmann/json.hpp>

namespace slidedp::planner {

struct GpuSpec {
  std::string model = "cpu";
  double memory_gib = 0;        // device memory
  double usable_gib = 0;        // what a worker may allocate (0: memory_gib - 3, the runtime's default budget)
  std::string pcie;             // "5.0 x16" (informational)
  double h2d_gbps = 0;          // pinned host -> device, one GPU alone
  double d2h_gbps = 0;          // device -> pinned host, one GPU alone
  double h2d_all_gbps = 0;      // all GPUs at once, total (0: gpus x h2d_gbps)
  double d2h_all_gbps = 0;
  double duplex = 1.0;          // per-direction rate factor while H2D and D2H run together
  bool peer_access = true;      // false: NCCL collectives go through host memory (PCIe both ways)
  double collective_gbps = 0;   // NCCL (or MPI on CPU workers) bus bandwidth per GPU
  double fwd_tflops = 0;        // decoder layer forward, model FLOPs
  double bwd_tflops = 0;        // decoder layer backward from kept activations
  double recompute_tflops = 0;  // the extra forward of a recomputed layer in backward
                                // (model FLOPs of layer_flops.h recomputeFlops)
  double attention_recompute_tflops = 0;  // that of an attention-output layer (recomputeFlops
                                          // without the attention); 0: recompute_tflops
  double head_tflops = 0;       // final norm + LM head + loss, forward + backward
  double layer_overhead_s = 0;  // per unit and micro-batch pass (launches, small kernels)
  double context_gib = 0;       // CUDA context + library workspaces, per worker
  /// What the head and the backward need above the end-of-forward level, measured by
  /// calibration for the model `reserve_shape` (cost_model.h reserveShape) at `reserve_tokens`
  /// tokens per worker in one micro-batch, with the default loss chunk, MLP tiling and attention
  /// (calibration.h firstStepReserveBytes: the head's and one recomputed layer's allocator peaks
  /// plus the gradients and inputs the runtime holds beside them and a margin). 0: not measured;
  /// the shape estimate (cost_model.h reserveBytes) stands. Used for that model and token count
  /// only, where smaller than the estimate (calibratedReserveBytes).
  double reserve_gib = 0;
  double reserve_tokens = 0;
  std::string reserve_shape;
};

struct HostSpec {
  int cores = 1;
  int leader_cores = 0;         // cores the launcher leaves the leader (0: cores - 4 x workers, >= 1)
  double mem_bw_gbps = 0;       // host memory bandwidth, read + write bytes per second
  double ram_gib = 0;
  std::map<int, double> adamw_gbps;  // fused AdamW pass, bytes moved per second by thread count
  double chunk_overhead_s = 0;  // per gradient chunk on the leader (waits, team start)
  double step_overhead_s = 0;   // per step (agreement of loss/norm over MPI)
  /// Share of the DMA bytes beside the leader's pass (gradients into the slots, backward
  /// deliveries) that the pass pays at its AdamW rate: the pass is memory-bound and shares the
  /// bus (cost_model.h). 1: every byte; 0: the pass alone.
  double update_dma_share = 1.0;
};

/// The network between nodes (issue 17): what one node's NIC(s) carry. Several nodes are
/// priced only when nodes > 1 (a file's "network" object, or slidedp_plan --nodes/--network-gbps).
struct NetworkSpec {
  int nodes = 1;                 // N
  double gbps = 0;               // per node, Gb/s (bits: 400 for one 400G NIC); bytes/s = gbps/8 x 1e9
  double latency_s = 5e-6;       // per message step of a ring collective (MPI over RDMA ~ 2-5 us)
  double efficiency = 0.8;       // achieved fraction of the line rate (MPI/UCX large messages)
};

struct MachineDescription {
  std::string name;
  std::string source;
  int gpus = 1;                 // workers the machine has (the plan may use fewer with --gpus)
  bool cpu_workers = false;     // the "GPU" rates describe a CPU worker (memcpy, 1 thread)
  GpuSpec gpu;
  HostSpec host;
  NetworkSpec network;
  std::map<std::string, std::string> provenance;

  /// Leader cores with G workers (HostSpec::leader_cores or the launcher's split).
  int leaderCores(int G) const;
  /// The launcher's default split: `cores` less 4 per worker, at least 1.
  static int defaultLeaderCores(int cores, int G);
  /// AdamW bytes/s at `threads`, linear between table entries, flat beyond the last; throws
  /// UserError when the table is empty.
  double adamwBytesPerSecond(int threads) const;
  /// Usable GPU bytes per worker (the --gpu-memory-budget default).
  double usableGpuBytes() const;
  /// Checks every rate is positive and finite; throws UserError naming the field and the file.
  void validate(const std::string& where) const;
};

nlohmann::json toJson(const MachineDescription& m);
/// Throws UserError (naming `where` and the key) on a missing, mistyped or unknown key.
MachineDescription machineFromJson(const nlohmann::json& j, const std::string& where);
/// Reads a machine description file; throws UserError with a HINT when it is missing or bad.
MachineDescription loadMachine(const std::string& path);

}  // namespace slidedp::planner
