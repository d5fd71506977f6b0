// The step-time model (design.md, "The step-time model and policies"): the busy time of every
// resource in one step, the exposed time of the pipeline, the predicted step time, tokens/s,
// the bottleneck and the memory peaks, for a Workload under a Policy on a MachineDescription.
// Every formula of the planner is here, with its terms; where each constant was measured is in
// the machine description's "provenance" (tools/machines/*.json) or its calibration record.
//
// ---- Terms (per step; G workers; the busiest worker has b = ceil(B/G) rows, n = b T tokens,
//      micro-batches of n_mb = min(mb_rows, b) T tokens; N_u = elements of unit u (0 = embedding,
//      1..L decoder layers, L+1 = head); P = sum N_u; e = compute bytes (2 bf16, 4 fp32);
//      g = staging bytes (4 fp32, 2 bf16); s = shard factor 1/G on the sharded/GPU routes, else 1)
//
// FLOPs (model FLOPs, tools/bench/bench_layer.cpp): layer forward F_l = n_mb (2 N_l + 4 H D T);
//   backward 2 F_l; head forward + backward 6 V C n_mb.
// GPU compute stream, per micro-batch pass of a unit:
//   fwd = F_l / R_fwd + o;  bwd(kept) = 2 F_l / R_bwd + o;  recompute adds F_rec / R_rec + o,
//   F_rec = n_mb (2 (N_l - C I) + 4 H D T): the forward without the down projection, or, where
//   the MLP runs tiled (model::autoMlpTileRows at n_mb), without the MLP (2 (N_l - 3 C I))
//   (model/layer_flops.h recomputeFlops; decoder.h decoderLayerRecompute);
//   attention output adds F_rec without the 4 H D T term / R_arec + o (the projections and the
//   MLP around the kept attention output, not the attention; R_arec = the machine's
//   attention_recompute_tflops, measured by calibration, else R_rec);
//   head = 6 V C n_mb / R_head + o;  embedding fwd and bwd: o each   (o = layer_overhead_s)
//   GPU reduction route (G > 1): reduce-scatter of each unit's fp32 gradient on the compute
//   stream: 4 N_u (G-1)/G / R_coll (NCCL bus bandwidth convention).
// Deliveries (copy stream; CPU workers: the main thread, serial with compute):
//   in the worker's window schedule (runtime/window_schedule.h): forward every unit 0..L+1
//   (tied, resident: layer 1 before the embedding, which the head reads where it is; else the
//   embedding again for the head when tied), backward L..1 (resident: L not again):
//   H2D bytes per worker per unit = s_d e N_u; all-gather (sharded) e N_u (G-1)/G / R_coll.
// Gradient hand-offs (D2H stream, chunk by chunk in hand-off order head, L..1, 0): per worker
//   the whole chunk (CPU route) or its overlap with the worker's shard (GPU route), g bytes per
//   element; a chunk's slot is free once the leader consumed the chunk S (ring slots) before it.
// Activation offload: n C e bytes D2H in forward and H2D in backward per offloaded layer.
// PCIe rates per worker: R_h2d = min(h2d, h2d_all / G), R_d2h likewise; while both directions
//   run (backward) each is multiplied by `duplex`. Without peer access NCCL's all-gather and
//   reduce-scatter bytes also cross PCIe (both directions) and host memory (twice).
// Leader (one fused pass per chunk, in hand-off order, once every worker published it):
//   t = numel * (26 + k g) / R_adam(threads) + chunk_overhead, k = G (CPU route) or 1 (GPU route):
//   reads master, m, v (12 B) and k gradient slots, writes master, m, v and the bf16 copy (14 B);
//   R_adam in bytes/s (calibrated at k = 1, f32: 30 B/param), the pass being memory-bound.
//   The pass shares the memory bus with the DMA that runs beside it, byte for byte: with
//   d = host.update_dma_share (1 for calibrated machines) it also pays
//   d (k' g + s' e) bytes per element, k' = G (CPU route) or 1 (GPU route: the shards), s' = G
//   (replicated delivery) or 1 (sharded): the workers' gradient bytes into the slots and the
//   backward deliveries of the next units. (1xH200, Qwen3-4B, batch 4-16: the leader's update
//   took 1.21-1.34 s in the runs, 90-100 GB/s at 30 B/param, against 110-140 GB/s for the
//   calibrated pass alone; 36 B/param at the calibrated rate is 0.86-1.1 s -> closer.)
//   Clipping: the pass only reduces (k g + 8 bytes: write the fp32 sum, read it for the norm);
//   after the last chunk (the barrier) every unit is updated, P (26 + 4) / R_adam, exposed.
// Step: one worker's compute/copy/D2H streams and the leader simulated unit by unit and chunk
//   by chunk (the real dependencies: window slots K, prefetch one unit ahead, ring slots S,
//   chunk arrival = the last worker's); step = max(compute end, last update) + step_overhead.
//   The next step starts after the step's agreement (trainer.cpp), so steps do not overlap,
//   except for the update tail below.
// Update tail (Policy::tail_units = M; ChunkPlan::tail_units): layers 1..M are handed off after
//   the embedding, each whole (no early bucket), in forward order. With the early agreement
//   (earlyAgreement) the step is agreed once the leader has taken every hand-off before the
//   embedding's last and the workers' backward is over: step = max(that leader time, compute
//   end) + step_overhead. The leader takes the rest (the embedding's last hand-off, then layers
//   1..M: the carry) from the next step's start, their gradients already on the GPU (D2H from
//   then on), and each of units 0..M is delivered for the forward only once its update is done;
//   the simulated step is that steady state: carry first, then the step's own hand-offs. Without
//   the early agreement M only reorders the hand-offs (the tail's ready at the embedding's end).
//   A tail layer keeps its two buckets (ChunkPlan), both handed off after the embedding. Not
//   priced: the worker issues unit u's forward only once unit u+1's version is in (its wait
//   comes before the launch), a few ms a step at 4B.
//   GPU memory: the tail's fp32 gradients beyond the activations freed (tailGradientBytes).
// Busy time per resource = the sum of its work (the per-GPU PCIe directions at the per-GPU
//   rates; "total" = G x bytes at the all-GPU rate; host memory = the leader's bytes + every
//   DMA byte, at mem_bw). Exposed = step - max busy: fill (step start -> first forward compute:
//   the first delivery), drain (last backward compute -> step end: the embedding's hand-off and
//   the updates still queued), clipping's barrier. Bottleneck = the resource with the most busy
//   time, or "exposed" when the exposed time is larger.
// Gradient accumulation steps (N > 1): the forward, head and backward above run N times, each
//   over one pass's rows (activation memory and the reserve: the largest pass's), every unit
//   delivered again in each; the gradients stay on the GPU (4 P bytes, allocated up front) and
//   the reduce-scatter and the hand-offs come in the last pass only.
// Memory per worker (CUDA; allocator bytes, what --gpu-memory-budget and the step line's GPU peak
//   count, the CUDA context being outside both): (K max_u(window) + resident embedding) e + kept
//   layers (kept bytes + input) +
//   recomputed layers' inputs on the GPU (the offloaded ones: --offload-activations, or the
//   first Policy::offloaded_layers, the runtime's placement when the GPU cannot hold them all,
//   worker/input_placement.h, priced by search.h inputPlacementOffloads) + the running hidden
//   state + the head/backward reserve,
//   with the runtime's own formulas (worker.cpp keptBytes/reserveBytes). Host: 14 B/param
//   (unit-aligned) + staging S G chunk g + clipping's 4 B/param + offloaded inputs + processes.
// Several nodes (issue 17; N nodes of G workers, each node a leader; hierarchical: the node's
//   routes first, then the leaders over the network with MPI, leader/node_layout.h). The batch
//   is split over N G workers. Per chunk of c elements, after its arrival, the leader (blocked
//   in each MPI call, so serial on its timeline):
//     sum of its k staged slots into an fp32 buffer: c (k g + 4) / R_adam
//     replicated: ring all-reduce of 4c bytes: 2 (N-1)/N 4c / R_net + 2 (N-1) lat, then the
//       update of the whole chunk, c (26 + 4) / R_adam (it reads the fp32 sum, not k slots);
//     sharded: ring reduce-scatter, (N-1)/N 4c / R_net + (N-1) lat; the update of its c/N part,
//       (c/N) (26 + 4) / R_adam; ring all-gather of the updated delivery copy (e bytes per
//       element: bf16 2, or fp32 4 for CPU workers), (N-1)/N e c / R_net + (N-1) lat.
//   Ring collective costs: Patarasuk & Yuan, "Bandwidth optimal all-reduce algorithms for
//   clusters of workstations", JPDC 2009 (all-reduce = reduce-scatter + all-gather, each moving
//   (N-1)/N of the buffer per node in N-1 steps); NCCL's "busBw" convention (docs, "Performance
//   reported by NCCL tests") is the same factor. R_net = NIC line rate / 8 x efficiency (MPI over
//   UCX/RDMA reaches ~80% of line rate for MiB messages: an assumption, not measured here);
//   lat = per step latency. Clipping: the exchange per chunk, then after the barrier the update
//   (P, or P/N sharded) and, sharded, the all-gathers of every unit ((N-1)/N e P / R_net).
//     fully sharded (copy_sharded): the reduce-scatter and the update as sharded, no all-gather
//       between the leaders; instead every delivery of a unit of n elements (forward, backward)
//       first gathers its other nodes' parts on each of the node's G workers, G (N-1)/N e n /
//       R_net + ceil(n / chunk) (N-1) lat on the NIC, before the PCIe copy (routes/node_gather.h).
//   Busy: "network" = the seconds the NIC carries; host memory also counts the NIC's DMA bytes.
//   Host bytes per node, sharded: 12/N B/param (master, m, v) + the whole delivery copy (e) +
//   staging (+ 4/N clipping); fully sharded: (12 + 2)/N (bf16; fp32 compute delivers from the
//   master: 12/N) + staging + G gather buffers of the largest unit (K each on GPU workers);
//   replicated: 14 B/param as on one node. Not modelled: GPU-side
//   cross-node NCCL (not implemented: the leaders exchange on the CPU), and the overlap of one
//   chunk's network time with the next chunk's sum (the runtime does not overlap them either).
#pragma once

#include <string>
#include <vector>

#include "model/layer_flops.h"
#include "planner/machine.h"
#include "planner/policy.h"
#include "planner/workload.h"

namespace slidedp::planner {

/// Busy seconds of each resource in one step.
struct ResourceBusy {
  double gpu_compute = 0;  // compute stream of one worker (incl. reduce-scatter on it)
  double h2d_gpu = 0;      // PCIe host -> device, one worker
  double d2h_gpu = 0;      // PCIe device -> host, one worker
  double h2d_total = 0;    // all workers' H2D bytes at the all-GPU rate
  double d2h_total = 0;
  double collective = 0;   // all-gather + reduce-scatter (NVLink / NCCL)
  double host_memory = 0;  // leader's update bytes + DMA bytes at host memory bandwidth
  double cpu_update = 0;   // leader's fused passes
  double network = 0;      // the node's NIC: the leaders' cross-node collectives (N > 1)
  /// (name, seconds) in a fixed order.
  std::vector<std::pair<std::string, double>> items() const;
};

struct Prediction {
  ResourceBusy busy;
  double step_s = 0;
  double tokens_per_s = 0;
  double fill_s = 0;       // step start -> first forward compute
  double drain_s = 0;      // last backward compute -> step end
  double clip_s = 0;       // clipping's post-barrier update (part of drain)
  double exposed_s = 0;    // step - max busy
  std::string bottleneck;
  double gpu_peak_bytes = 0;   // per worker (CUDA); 0 for CPU workers
  double host_bytes = 0;       // the node's host memory
  double host_headroom_bytes = 0;  // what pinned layer inputs must leave free (fits_host counts it)
  bool fits_gpu = true, fits_host = true;
  double mfu = 0;              // model FLOPs / step / G / peak (peak given by the caller; 0 if none)
};

/// Bytes a kept decoder layer holds beyond its input for `tokens` tokens in micro-batches of
/// `mb_tokens` (model::keptLayerBytes, as the worker counts them: a layer whose MLP runs tiled
/// keeps no gate/up output).
double keptBytes(const Workload& w, double tokens, double mb_tokens);
/// Bytes a layer keeping only its attention output holds beyond its input
/// (model::attentionOutputBytes): the output [tokens, H D] and the fp32 log-sum-exp [H] per token.
double attentionOutputBytes(const Workload& w, double tokens);
/// Rows per MLP tile of a micro-batch of `mb_tokens` tokens at --mlp-tile-tokens 0 (auto), 0
/// when untiled (also always with MLP biases): model::autoMlpTileRows (src/model/memory_terms.h),
/// the worker's rule.
double mlpTileRows(const Workload& w, double mb_tokens);

/// A decoder layer of `numel` elements of w as model/layer_flops.h counts its FLOPs.
model::LayerFlopsShape layerFlopsShape(const Workload& w, int64_t numel);

/// What the head and the backward need above the end-of-forward level (the worker's shape
/// estimate, model::reserveEstimateBytes at the default loss chunk), for n tokens per worker and
/// n_mb per micro-batch.
double reserveBytes(const Workload& w, double n, double n_mb, const Policy& p);

/// The model's shape as calibration records it beside a measured reserve (machine.h
/// reserve_shape): widths, vocabulary, tying, q/k-norm and compute bytes. Not the layer count:
/// the reserve is one layer's and the head's, with at most 3 unit gradients queued.
std::string reserveShape(const Workload& w);

/// The reserve calibration measured for `w`'s model at its tokens per worker (m.gpu.reserve_gib,
/// bytes), or +infinity where it measured none, or another model or token count. The model's
/// GPU peak uses the smaller of this and reserveBytes (a run's first step too, under the
/// conditions train_job.cpp states). The measurement took all of a worker's
/// tokens in one micro-batch; a split into smaller micro-batches needs less of the layer's
/// part. Against the reserve a step measures, the estimate was 2.0-2.7x and the calibrated
/// reserve 1.2-1.9x at the 4B shape (tools/bench/results/2026-12-04e-h200x1-reserve/).
double calibratedReserveBytes(const MachineDescription& m, const Workload& w);
/// The same for `tokens` per worker at a time (an accumulation step's: passTokens).
double calibratedReserveBytes(const MachineDescription& m, const Workload& w, double tokens);

/// Gradient accumulation steps (Policy::accumulation_steps) as the worker runs them: N =
/// min(accumulation_steps, the fewest rows of a worker) passes, pass q over rows [q b / N, (q+1) b / N)
/// (integer division), so sizes differ by at most one row. passRows: the largest pass's rows,
/// ceil(b / N); passTokens: its tokens. Activation memory and the reserve are one pass's.
int64_t accumulationSteps(const Workload& w, const Policy& p);
int64_t passRows(const Workload& w, const Policy& p);
double passTokens(const Workload& w, const Policy& p);
/// fp32 gradient bytes a worker holds through a step of several accumulation steps (every
/// unit's, allocated up front; with the row-split embedding, an untied embedding only its
/// packed token rows); 0 for one.
double accumulatorBytes(const Workload& w, const Policy& p);
/// GPU bytes one worker peaks at (see the header comment).
double gpuPeakBytes(const Workload& w, const MachineDescription& m, const Policy& p);
/// The node's host bytes.
double hostBytes(const Workload& w, const MachineDescription& m, const Policy& p);

/// Whether `p`'s update tail comes with the early agreement: the runtime's rule
/// (runtime/train_options.h earlyStepAgreement) on the run options p.apply writes, with w's
/// clipping and nodes: p.tail_units > 0, the cpu reduction route, one accumulation step, no
/// clipping, one node.
bool earlyAgreement(const Workload& w, const Policy& p);

/// GPU bytes the update tail's fp32 gradients (layers 1..M, 4 B per element, held from their
/// backward until the leader has taken them, into the next step's forward) add to a worker's
/// peak: the most, over layers u = M..1, by which the gradients of layers u+1..M exceed what the
/// layers above u have freed (their kept bytes and inputs on the GPU; the peak counts every
/// layer's; layer u's own gradient is one of the reserve's). 0 with several accumulation steps (accumulatorBytes holds every gradient already),
/// with CPU workers, or without a tail.
double tailGradientBytes(const Workload& w, const Policy& p, const std::vector<LayerActivation>& layers);

/// The model's prediction for one step. `gpu_budget_bytes` <= 0: the machine's usable memory.
/// Layer choices other than the runtime's (Policy::layers) may be given in `layers` (size L).
Prediction predict(const Workload& w, const MachineDescription& m, const Policy& p,
                   double gpu_budget_bytes = 0, const std::vector<LayerActivation>* layers = nullptr);

}  // namespace slidedp::planner
