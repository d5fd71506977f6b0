#include "planner/cost_model.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/errors.h"
#include "model/layer_flops.h"
#include "model/memory_terms.h"
#include "runtime/accumulation_passes.h"
#include "runtime/chunk_plan.h"
#include "runtime/host_memory.h"

namespace slidedp::planner {

namespace {

constexpr double kGiB = double(1ull << 30);
// Host memory of the processes themselves (LibTorch, CUDA runtime, MPI), an estimate: the
// 1x H200 run of README "Measured" held 54.5 GiB for 52.4 GiB of state.
constexpr double kLeaderProcessBytes = 0.5 * kGiB;
constexpr double kCudaWorkerProcessBytes = 1.5 * kGiB;
constexpr double kCpuWorkerProcessBytes = 0.3 * kGiB;

/// The workload's layer shape for the memory formulas (model/memory_terms.h).
model::LayerMemoryShape memoryShape(const Workload& w) {
  model::LayerMemoryShape s;
  s.C = w.C;
  s.I = w.I;
  s.H = w.H;
  s.KV = w.KV;
  s.D = w.D;
  s.V = w.V;
  s.element_bytes = w.compute_bytes;
  s.qk_norm = w.qk_norm;
  s.lse = w.flash_lse;
  return s;
}

struct Rates {
  double h2d_fwd, h2d_bwd, d2h_fwd, d2h_bwd;  // per worker, bytes/s
  double coll;                                // bytes/s bus bandwidth
  double fwd, bwd, rec, arec, head;           // FLOP/s
  double ovh;
  double adam;                                // bytes/s
};

}  // namespace

std::vector<std::pair<std::string, double>> ResourceBusy::items() const {
  return {{"gpu", gpu_compute},      {"h2d", h2d_gpu},           {"d2h", d2h_gpu},
          {"h2d-all", h2d_total},    {"d2h-all", d2h_total},     {"nvlink", collective},
          {"host-mem", host_memory}, {"cpu-update", cpu_update}, {"network", network}};
}

double mlpTileRows(const Workload& w, double mb_tokens) {
  if (!w.mlp_tileable) return 0;
  return double(model::autoMlpTileRows(std::llround(mb_tokens), w.I, w.compute_bytes));
}

model::LayerFlopsShape layerFlopsShape(const Workload& w, int64_t numel) {
  return {numel, w.C, w.I, w.H, w.D, w.T, w.compute_bytes, w.mlp_tileable};
}

double keptBytes(const Workload& w, double tokens, double mb_tokens) {
  return double(model::keptLayerBytes(memoryShape(w), std::llround(tokens), mlpTileRows(w, mb_tokens) > 0));
}

double attentionOutputBytes(const Workload& w, double tokens) {
  return double(model::attentionOutputBytes(memoryShape(w), std::llround(tokens)));
}

double reserveBytes(const Workload& w, double n, double n_mb, const Policy&) {
  return double(model::reserveEstimateBytes(memoryShape(w), std::llround(n), std::llround(n_mb),
                                            model::lossChunkTokens(0, w.V),
                                            std::llround(mlpTileRows(w, n_mb)), w.unit_numels.front(),
                                            w.unit_numels.back(), w.maxUnitNumel()));
}

std::string reserveShape(const Workload& w) {
  return fmt::format("C{} I{} H{} KV{} D{} V{} tied{} qknorm{} bytes{}", w.C, w.I, w.H, w.KV, w.D, w.V,
                     w.tied ? 1 : 0, w.qk_norm ? 1 : 0, w.compute_bytes);
}

double calibratedReserveBytes(const MachineDescription& m, const Workload& w) {
  return calibratedReserveBytes(m, w, double(w.tokensPerWorker()));
}

double calibratedReserveBytes(const MachineDescription& m, const Workload& w, double tokens) {
  if (!(m.gpu.reserve_gib > 0) || std::llround(m.gpu.reserve_tokens) != std::llround(tokens) ||
      m.gpu.reserve_shape != reserveShape(w))
    return std::numeric_limits<double>::infinity();
  return m.gpu.reserve_gib * kGiB;
}

int64_t accumulationSteps(const Workload& w, const Policy& p) {
  return std::clamp<int64_t>(p.accumulation_steps, 1, std::max<int64_t>(1, w.fewestRowsPerWorker()));
}

int64_t passRows(const Workload& w, const Policy& p) {
  const int64_t N = accumulationSteps(w, p);
  return largestPassRows(w.rowsPerWorker(), N);
}

double passTokens(const Workload& w, const Policy& p) { return double(passRows(w, p)) * double(w.T); }

double accumulatorBytes(const Workload& w, const Policy& p) {
  if (accumulationSteps(w, p) <= 1) return 0;
  double n = double(w.totalNumel());
  if (w.split_embedding && p.reduction == ReductionRoute::kCpu && !(w.nodes > 1 && w.node_sharded)) {
    // the packed token rows beside the embedding's dense gradient (tied) or instead of it
    const double token_rows = double(std::min<int64_t>(w.unit_numels[0], w.tokenRowsBound() * w.C));
    n += token_rows - (w.tied ? 0.0 : double(w.unit_numels[0]));
  }
  return 4.0 * n;
}

namespace {

/// GPU bytes one decoder layer holds from its forward to its backward under choice `a`, for
/// one accumulation step's tokens under `p` (the offloaded input is in host memory).
double layerActivationBytes(const Workload& w, const Policy& p, LayerActivation a) {
  const double n = passTokens(w, p);
  const double b = double(passRows(w, p));
  const double mbr = p.micro_batch_rows > 0 ? std::min<double>(double(p.micro_batch_rows), b) : b;
  const double boundary = n * double(w.C) * w.compute_bytes;
  switch (a) {
    case LayerActivation::kKeep: return keptBytes(w, n, mbr * double(w.T)) + boundary;
    case LayerActivation::kAttentionOutput: return attentionOutputBytes(w, n) + boundary;
    case LayerActivation::kRecompute: return boundary;
    case LayerActivation::kOffload: return 0.0;
  }
  return 0.0;
}

double gpuPeak(const Workload& w, const MachineDescription& m, const Policy& p,
               const std::vector<LayerActivation>& layers) {
  if (!w.cuda) return 0;
  // one accumulation step's tokens (the largest)
  const double n = passTokens(w, p);
  const double b = double(passRows(w, p));
  const double mbr = p.micro_batch_rows > 0 ? std::min<double>(double(p.micro_batch_rows), b) : b;
  const double n_mb = mbr * double(w.T);
  const double es = w.compute_bytes;
  // K rotating slots, and the resident embedding's (runtime/window_schedule.h)
  const auto [max_window, resident] = w.windowSchedule(p.window).slotNumels(w.unit_numels, w.G);
  const double boundary = n * double(w.C) * es;
  double acts = 0;
  for (LayerActivation a : layers) acts += layerActivationBytes(w, p, a);
  // the running hidden state; ids, labels (int64) and rotary tables of every micro-batch
  const double batch = boundary + 3 * 8 * n + 2 * n * double(w.D) * es;
  // allocator bytes, as the runtime's budget and its step line's "GPU peak" count them (the CUDA
  // context, m.gpu.context_gib, is outside both); the reserve: calibration's for this model and
  // tokens where smaller than the estimate, as a run's first step takes it when train_job.cpp's
  // conditions hold (else that step keeps the estimate; later steps use their own measurement)
  const double reserve = std::min(reserveBytes(w, n, n_mb, p), calibratedReserveBytes(m, w, n));
  return (p.window * double(max_window) + double(resident)) * es + acts + batch + reserve +
         accumulatorBytes(w, p) + tailGradientBytes(w, p, layers);
}

}  // namespace

bool earlyAgreement(const Workload& w, const Policy& p) {
  TrainOptions o;
  p.apply(o, w.L);
  o.max_grad_norm = w.clip ? 1.0 : 0.0;
  return earlyStepAgreement(o, p.tail_units, std::max(1, w.nodes));
}

double tailGradientBytes(const Workload& w, const Policy& p, const std::vector<LayerActivation>& layers) {
  if (!w.cuda || p.tail_units <= 0 || accumulationSteps(w, p) > 1) return 0;
  // While layer u's backward runs (u = L .. 1), and again in the next forward at layer u while
  // the leader has not yet taken the tail's chunks from u on: the gradients of layers u+1..M
  // are held (layer u's own, being summed, is one of the reserve's unit gradients), and the
  // layers above u have freed what they kept.
  const int64_t M = std::min<int64_t>(p.tail_units, w.L);
  double held = 0, freed_above = 0, most = 0;
  for (int64_t u = w.L; u >= 1; --u) {
    if (u < M) {
      held += 4.0 * double(w.unit_numels[static_cast<size_t>(u + 1)]);
      most = std::max(most, held - freed_above);
    }
    freed_above += layerActivationBytes(w, p, layers[static_cast<size_t>(u - 1)]);
  }
  return most;
}

double gpuPeakBytes(const Workload& w, const MachineDescription& m, const Policy& p) {
  return gpuPeak(w, m, p, p.layers(w.L));
}

double hostBytes(const Workload& w, const MachineDescription& m, const Policy& p) {
  (void)m;
  double state = 0;
  for (int64_t u : w.unit_numels) state += double((u + 1023) / 1024 * 1024);
  const double gs = p.bf16_staging ? 2 : 4;
  // sharded across N nodes: master, m, v (and clipping) for 1/N, the delivery copy whole; fully
  // sharded, the copy's 1/N too (fp32 compute delivers from the master: none), and each worker's
  // gather buffers (one unit; one per window slot on GPU workers)
  const bool node_sharded = w.nodes > 1 && w.node_sharded;
  const bool copy_sharded = node_sharded && w.copy_sharded;
  const double copy_bpp = w.compute_bytes == 4 ? 0.0 : w.compute_bytes;
  const double per_param = copy_sharded   ? (12.0 + copy_bpp) / w.nodes
                           : node_sharded ? 12.0 / w.nodes + w.compute_bytes
                                          : 14.0;
  // the staging ring is sized for G sub-slots on either route (host_state_layout.h)
  double bytes = per_param * state + double(p.ring_slots) * w.G * double(p.chunk_numel) * gs;
  if (w.clip) bytes += 4.0 * state / (node_sharded ? w.nodes : 1);
  if (copy_sharded) {
    // each worker's gather buffers: the largest unit (replicated route) or its 1/G shard
    // widened to chunk bounds (sharded routes; at most a chunk more on each side)
    int64_t unit = 0;
    for (int64_t u : w.unit_numels) unit = std::max(unit, u);
    const bool shard = w.G > 1 && p.delivery != DeliveryRoute::kReplicated;
    const double span = shard ? std::min<double>(double(unit), double(ChunkPlan::shardNumel(unit, w.G)) +
                                                                    2.0 * double(p.chunk_numel))
                              : double(unit);
    bytes += double(w.G) * (w.cuda ? p.window : 1) * span * w.compute_bytes;
  }
  if (w.cuda) {
    int off = 0;
    for (LayerActivation a : p.layers(w.L)) off += a == LayerActivation::kOffload;
    // one pass's inputs; passes that differ by a row hold both sizes (the pool reuses exact ones)
    const int64_t N = accumulationSteps(w, p);
    double pass_tokens = 0;
    for (const int64_t rows : passSizes(w.rowsPerWorker(), N)) pass_tokens += double(rows) * double(w.T);
    bytes += double(w.G) * off * pass_tokens * double(w.C) * w.compute_bytes;
  } else {
    bytes += double(w.G) * accumulatorBytes(w, p);  // CPU workers' summed gradients, in host RAM
  }
  bytes += kLeaderProcessBytes + w.G * (w.cuda ? kCudaWorkerProcessBytes : kCpuWorkerProcessBytes);
  return bytes;
}

Prediction predict(const Workload& w, const MachineDescription& m, const Policy& p,
                   double gpu_budget_bytes, const std::vector<LayerActivation>* layer_choice) {
  SLIDEDP_ASSERT(static_cast<int64_t>(w.unit_numels.size()) == w.L + 2, "workload units != L + 2");
  const std::vector<LayerActivation> layers = layer_choice ? *layer_choice : p.layers(w.L);
  SLIDEDP_ASSERT(static_cast<int64_t>(layers.size()) == w.L, "layer choices != L");
  if (p.window < 2) throwUserError("the window depth K must be >= 2, got {}", p.window);
  if (p.ring_slots < 1) throwUserError("--ring-slots must be >= 1, got {}", p.ring_slots);
  if (p.tail_units < 0 || p.tail_units > w.L)
    throwUserError("--update-tail-units {} is outside 0..{} (the model's decoder layers)", p.tail_units, w.L);
  // Gradient buckets (ChunkPlan::bucket_splits) as the runtime's plan has them (trainer.cpp):
  // every layer cut at the same element, except with the state sharded across nodes.
  const bool node_sharded = w.nodes > 1 && w.node_sharded;
  const int64_t layer_split = node_sharded ? 0 : w.layer_bucket_split;
  {
    // The chunks of that plan: with the row-split embedding's second pass and the bucket cuts.
    std::vector<int64_t> splits(w.unit_numels.size(), layer_split);
    splits.front() = splits.back() = 0;
    ChunkPlan::checkChunkCount(w.unit_numels, p.chunk_numel,
                               w.split_embedding && p.reduction == ReductionRoute::kCpu && !node_sharded,
                               splits);
  }
  const int G = w.G;
  const bool multi = G > 1;
  const bool sharded = p.delivery == DeliveryRoute::kSharded && multi;
  const bool gpu_red = p.reduction == ReductionRoute::kGpu && multi;
  const bool serial_copy = m.cpu_workers;  // CPU workers deliver on their main thread
  const bool via_host = multi && !m.gpu.peer_access;
  const double es = w.compute_bytes, gs = p.bf16_staging ? 2 : 4;
  const int threads = p.leader_threads > 0 ? p.leader_threads : m.leaderCores(G);

  Rates r{};
  const double h2d_all = (m.gpu.h2d_all_gbps > 0 ? m.gpu.h2d_all_gbps : G * m.gpu.h2d_gbps) * 1e9;
  const double d2h_all = (m.gpu.d2h_all_gbps > 0 ? m.gpu.d2h_all_gbps : G * m.gpu.d2h_gbps) * 1e9;
  r.h2d_fwd = std::min(m.gpu.h2d_gbps * 1e9, h2d_all / G);
  r.d2h_fwd = std::min(m.gpu.d2h_gbps * 1e9, d2h_all / G);
  r.h2d_bwd = r.h2d_fwd * m.gpu.duplex;
  r.d2h_bwd = r.d2h_fwd * m.gpu.duplex;
  r.coll = m.gpu.collective_gbps * 1e9;
  if (via_host) r.coll = std::min(r.coll, std::min(r.h2d_bwd, r.d2h_bwd));
  r.fwd = m.gpu.fwd_tflops * 1e12;
  r.bwd = m.gpu.bwd_tflops * 1e12;
  r.rec = m.gpu.recompute_tflops * 1e12;
  r.arec = (m.gpu.attention_recompute_tflops > 0 ? m.gpu.attention_recompute_tflops : m.gpu.recompute_tflops) * 1e12;
  r.head = m.gpu.head_tflops * 1e12;
  r.ovh = m.gpu.layer_overhead_s;
  r.adam = m.adamwBytesPerSecond(threads);

  const int64_t L = w.L, head = L + 1;
  const double T = double(w.T);
  // Accumulation steps (passes): pass q's rows [q b / N, (q+1) b / N), its micro-batches' tokens.
  const int64_t b_rows = w.rowsPerWorker(), passes = accumulationSteps(w, p);
  std::vector<std::vector<double>> pass_mb_tokens;
  for (int64_t q = 0; q < passes; ++q) {
    const double rows = double(passRowRange(b_rows, passes, q).rows());
    const double mbr = p.micro_batch_rows > 0 ? std::min<double>(double(p.micro_batch_rows), rows) : rows;
    std::vector<double> toks;
    for (double r0 = 0; r0 < rows; r0 += mbr) toks.push_back(std::min(mbr, rows - r0) * T);
    pass_mb_tokens.push_back(std::move(toks));
  }
  std::vector<double> mb_tokens;  // the pass being simulated (the per-unit times read it)
  int n_mb_count = 0;
  double n = 0;
  const double attn = 4.0 * double(w.H * w.D) * T;  // per token

  Prediction out;
  ResourceBusy& busy = out.busy;
  double h2d_bytes = 0, d2h_bytes = 0, via_host_bytes = 0;
  // several nodes (see the header): ring collectives between the leaders over the NIC, and,
  // fully sharded (copy_sharded), the workers' all-gathers of every unit they deliver
  const int NN = std::max(1, w.nodes);  // nodes (N in the header; N is a unit's numel below)
  const bool xnode = NN > 1, nsh = xnode && w.node_sharded, csh = nsh && w.copy_sharded;
  const double r_net = xnode ? m.network.gbps / 8.0 * 1e9 * m.network.efficiency : 1.0;
  const double lat = m.network.latency_s, frac = double(NN - 1) / NN;
  double net_bytes = 0;

  // ---- per-unit work ----------------------------------------------------------------------
  auto fwdTime = [&](int64_t u) {
    double t = 0;
    for (double tok : mb_tokens) {
      if (u == 0) t += r.ovh;
      else t += model::layerForwardFlops(layerFlopsShape(w, w.unit_numels[u]), tok) / r.fwd + r.ovh;
    }
    return t;
  };
  auto bwdTime = [&](int64_t u, LayerActivation a) {
    double t = 0;
    for (double tok : mb_tokens) {
      const model::LayerFlopsShape ls = layerFlopsShape(w, w.unit_numels[u]);
      t += 2 * model::layerForwardFlops(ls, tok) / r.bwd + r.ovh;
      if (a == LayerActivation::kAttentionOutput)
        t += model::recomputeFlops(ls, tok, /*attention=*/false) / r.arec + r.ovh;
      else if (a != LayerActivation::kKeep)
        t += model::recomputeFlops(ls, tok, /*attention=*/true) / r.rec + r.ovh;
    }
    return t;
  };
  auto headTime = [&] {
    double t = 0;
    for (double tok : mb_tokens) t += 6.0 * double(w.V) * double(w.C) * tok / r.head + r.ovh;
    return t;
  };
  auto rsTime = [&](int64_t u) {
    if (!gpu_red) return 0.0;
    const double bytes = 4.0 * double(w.unit_numels[u]) * (G - 1) / G;
    busy.collective += bytes / r.coll;
    if (via_host) via_host_bytes += bytes;
    return bytes / r.coll;
  };
  // Delivery of unit u: PCIe bytes then the all-gather, on the copy stream.
  auto deliverTime = [&](int64_t u, bool backward) {
    const double N = double(w.unit_numels[u]);
    double t = 0;
    if (csh) {
      // fully sharded: the node's G workers gather the other nodes' parts of their ranges at
      // once, on the host, over the node's NIC, before the PCIe copy (routes/node_gather.h):
      // the whole unit each on the replicated route, about 1/G of it each on the sharded ones
      const double bytes = (sharded ? 1.0 : double(G)) * frac * N * es;
      const double chunks = std::ceil(N / double(p.chunk_numel));
      net_bytes += bytes;
      busy.network += bytes / r_net;
      t += bytes / r_net + chunks * (NN - 1) * lat;
    }
    const double pcie = (sharded ? double(ChunkPlan::shardNumel(w.unit_numels[u], G)) : N) * es;
    const double rate = backward ? r.h2d_bwd : r.h2d_fwd;
    h2d_bytes += pcie;
    busy.h2d_gpu += pcie / rate;
    t += pcie / rate;
    if (sharded) {
      const double ag = N * es * (G - 1) / G;
      busy.collective += ag / r.coll;
      if (via_host) via_host_bytes += ag;
      t += ag / r.coll;
    }
    return t;
  };

  // ---- hand-offs and the leader, chunk by chunk --------------------------------------------
  // A hand-off: (unit, gradient ready, elements, leader host bytes per element).
  struct Handoff {
    int64_t unit;
    double ready;
    int64_t numel;
    double bpp;
  };
  const int k_slots = gpu_red ? 1 : G;
  const double bpp = 26.0 + k_slots * gs;
  const double clip_bpp = k_slots * gs + 8.0;
  const double pass_bpp = w.clip ? clip_bpp : bpp;
  const int S = p.ring_slots;
  // DMA beside the pass on the same memory bus (host.update_dma_share): every worker's gradient
  // bytes into the slots and the backward deliveries of the next units, per element updated.
  const double dma_bpp = m.host.update_dma_share * ((gpu_red ? 1.0 : double(G)) * gs +
                                                    (sharded ? 1.0 : double(G)) * es);
  std::vector<double> d2h_free(G, 0.0);
  std::vector<double> leader_end;
  double leader = 0;
  double leader_bytes = 0;
  // The exchange of a chunk's gradient (c elements, fp32) and, sharded, the all-gather of the
  // updated delivery copy; seconds on the NIC.
  auto gradExchange = [&](double c) {
    if (!xnode) return 0.0;
    const double bytes = (nsh ? 1.0 : 2.0) * frac * 4.0 * c;
    net_bytes += bytes;
    return bytes / r_net + (nsh ? 1.0 : 2.0) * (NN - 1) * lat;
  };
  auto paramGather = [&](double c) {
    if (!nsh || csh) return 0.0;  // fully sharded: nothing is published between the leaders
    const double bytes = frac * w.compute_bytes * c;
    net_bytes += bytes;
    return bytes / r_net + (NN - 1) * lat;
  };
  // The leader takes a hand-off chunk by chunk: each chunk once every worker's D2H of it is in
  // (after the gradient is ready and its ring slot is free), then its pass.
  auto leaderTakes = [&](const Handoff& h) {
    const int64_t N = h.numel;
    const double t_ready = h.ready, unit_bpp = h.bpp;
    const int64_t shard = ChunkPlan::shardNumel(N, G);
    for (int64_t c0 = 0; c0 < N; c0 += p.chunk_numel) {
      const int64_t c1 = std::min(N, c0 + p.chunk_numel);
      const size_t i = leader_end.size();
      const double slot_ok = i >= static_cast<size_t>(S) ? leader_end[i - S] : 0.0;
      double arrival = 0;
      for (int wk = 0; wk < G; ++wk) {
        double bytes = double(c1 - c0) * gs;
        if (gpu_red) {
          const int64_t a = std::max(c0, std::min(N, wk * shard)), e = std::min(c1, std::min(N, (wk + 1) * shard));
          bytes = e > a ? double(e - a) * gs : 0.0;
        }
        const double start = std::max({d2h_free[wk], t_ready, slot_ok});
        d2h_free[wk] = start + bytes / r.d2h_bwd;
        arrival = std::max(arrival, d2h_free[wk]);
      }
      // per-worker D2H bytes: the whole chunk (CPU route) or 1/G of it on average (GPU route)
      const double mine = double(c1 - c0) * gs / (gpu_red ? G : 1);
      d2h_bytes += mine;
      busy.d2h_gpu += mine / r.d2h_bwd;
      const double c = double(c1 - c0);
      double pass = 0, net = 0;
      if (!xnode) {
        pass = c * (unit_bpp + dma_bpp) / r.adam;
        leader_bytes += c * unit_bpp;
      } else {
        // sum the staged slots, exchange, then update this node's part (or, clipping, keep it)
        const double sum_b = c * (k_slots * gs + 4.0);
        const double own = nsh ? c / NN : c;
        const double upd_b = w.clip ? own * 8.0 : own * 30.0;
        pass = (sum_b + upd_b + c * dma_bpp) / r.adam;
        leader_bytes += sum_b + upd_b;
        net = gradExchange(c) + (w.clip ? 0.0 : paramGather(c));
      }
      pass += m.host.chunk_overhead_s;
      leader = std::max(leader, arrival) + pass + net;
      busy.cpu_update += pass;
      busy.network += net;
      leader_end.push_back(leader);
    }
  };

  // ---- the worker's streams ------------------------------------------------------------------
  const WindowSchedule ws = w.windowSchedule(p.window);
  std::vector<double> slot_free(ws.slots(), 0.0);
  std::vector<double> ready(w.unit_numels.size(), 0.0);
  // When each unit's version of this step is in host memory (the update tail's carry; else 0)
  std::vector<double> version_ready(w.unit_numels.size(), 0.0);
  double comp = 0, copy = 0, offl = 0;  // stream free times
  auto copyStream = [&]() -> double& { return serial_copy ? comp : copy; };
  auto deliver = [&](int64_t u, int slot, bool backward) {
    double& c = copyStream();
    const double start = std::max({c, slot_free[slot], version_ready[u]});
    c = start + deliverTime(u, backward);
    ready[u] = c;
  };
  auto compute = [&](double after, double dur) {
    const double start = std::max(comp, after);
    comp = start + dur;
    busy.gpu_compute += dur;
    return start;
  };
  double boundary_bytes = 0;
  double first_compute = -1;
  std::vector<Handoff> handoffs, tail_handoffs;
  // Several nodes are priced as the dense schedule (the runtime runs the split replicated,
  // not sharded across nodes; the leader's per-chunk cost there is the exchange's, below).
  const bool split = w.split_embedding && p.reduction == ReductionRoute::kCpu && !w.clip &&
                     w.nodes <= 1;
  const int64_t token_numel = std::min<int64_t>(w.unit_numels[0], w.tokenRowsBound() * w.C);
  const double token_frac = double(token_numel) / double(w.unit_numels[0]);
  // The update tail: layers 1..M handed off after the embedding, each whole (no early bucket).
  // With the early agreement their hand-offs, and the embedding's last, are the previous step's
  // (the carry), taken by the leader from this step's start while the forward runs.
  const int tail = p.tail_units;
  const bool early = earlyAgreement(w, p);
  const Handoff embedding_last = split ? Handoff{0, 0.0, token_numel, bpp + 4.0}
                                       : Handoff{0, 0.0, w.unit_numels[0], pass_bpp};
  // A tail layer's hand-offs: its chunks in the plan's order, the MLP bucket [split, N) then the
  // rest (ChunkPlan keeps the cut; the worker sends both after the embedding's)
  // Gradient buckets (ChunkPlan::bucket_splits; the cpu and gpu routes, not gpu-ipc): a layer's
  // MLP bucket goes when its last micro-batch's backward has done [split, numel), i.e. before
  // the backward of the last micro-batch's [0, split) and its attention (and, on the gpu route,
  // the rest's share of the reduce-scatter); the rest after the layer.
  const int64_t bsplit = p.reduction != ReductionRoute::kGpuIpc ? layer_split : 0;
  auto tailHandoffs = [&](int64_t u) {
    const int64_t N = w.unit_numels[u];
    if (bsplit > 0 && bsplit < N)
      return std::vector<Handoff>{{u, 0.0, N - bsplit, pass_bpp}, {u, 0.0, bsplit, pass_bpp}};
    return std::vector<Handoff>{{u, 0.0, N, pass_bpp}};
  };
  if (early) {
    std::vector<Handoff> carry{embedding_last};
    for (int64_t u = 1; u <= tail; ++u)
      for (const Handoff& h : tailHandoffs(u)) carry.push_back(h);
    for (const Handoff& h : carry) {
      leaderTakes(h);
      version_ready[h.unit] = leader;  // the unit's new version: what its next delivery waits for
    }
  }
  for (int64_t q = 0; q < passes; ++q) {
  const bool last_pass = q + 1 == passes;
  mb_tokens = pass_mb_tokens[q];
  n_mb_count = static_cast<int>(mb_tokens.size());
  n = 0;
  for (double t : mb_tokens) n += t;
  boundary_bytes = n * double(w.C) * es;
  // the reduce-scatter of a unit's gradient runs in the last pass only
  auto rsLast = [&](int64_t u) { return last_pass ? rsTime(u) : 0.0; };

  // forward, in the worker's window schedule
  if (ws.layerOneFirst()) deliver(1, ws.forwardSlot(1), false);
  if (ws.embeddingDeliveryUnit() < 0) deliver(0, ws.forwardSlot(0), false);
  for (int64_t u = 0; u <= L; ++u) {
    const int64_t next = u < L ? u + 1 : head;
    if (!(u == 0 && ws.layerOneFirst())) deliver(next, ws.forwardSlot(static_cast<int>(next)), false);
    if (u == ws.embeddingDeliveryUnit()) deliver(0, ws.forwardSlot(0), false);
    double after = ready[u], dur = fwdTime(u), lookup = 0;
    if (u == 0 && ws.lookupFromHost()) {
      // the lookup gathers its B x T rows from host memory once the leader has updated them
      // (the worker waits for layer 1's version first, which the update tail hands off last)
      const double rows_bytes = n * double(w.C) * es;
      after = std::max(version_ready[0], ws.layerOneFirst() ? version_ready[1] : 0.0);
      lookup = rows_bytes / r.h2d_fwd;
      dur += lookup;
      h2d_bytes += rows_bytes;
      // layer 1's copy, if still running, shares PCIe with the lookup: it ends that much later
      // (H200 profile at 12 x 4096: lookup 5.6 ms, layer 1 ready 2.7 ms after it instead of
      // before it; tools/bench/results/2026-12-05e-h200x1-lookup/)
      if (ws.layerOneFirst() && ready[1] > std::max(comp, after)) ready[1] += lookup;
    }
    const double s = compute(after, dur);
    // The lookup holds the compute stream but is bound by PCIe: its time counts as the GPU's
    // host-to-device traffic in the busy account (the bottleneck), not as compute.
    busy.gpu_compute -= lookup;
    busy.h2d_gpu += lookup;
    if (first_compute < 0) first_compute = s;
    if (!(u == 0 && ws.resident)) slot_free[ws.forwardSlot(static_cast<int>(u))] = comp;
    if (u >= 1 && layers[u - 1] == LayerActivation::kOffload) {
      offl = std::max(offl, comp) + boundary_bytes / r.d2h_fwd;
      d2h_bytes += boundary_bytes;
      busy.d2h_gpu += boundary_bytes / r.d2h_fwd;
    }
  }
  // head (+ the embedding when tied: resident from the forward, or delivered again)
  double after = ready[head];
  if (w.tied) {
    if (ws.headDeliversEmbedding()) deliver(0, ws.headEmbeddingSlot(), false);
    after = std::max(after, ready[0]);
  }
  compute(after, headTime() + rsLast(head));
  slot_free[ws.forwardSlot(static_cast<int>(head))] = comp;
  if (w.tied) slot_free[ws.headEmbeddingSlot()] = comp;
  // Hand-offs: (unit, gradient ready, elements, leader host bytes per element). The row-split
  // embedding update (cpu route; with clipping every gradient waits for the norm anyway, so it
  // is priced as the dense schedule): the embedding right after the head, where its rows outside
  // the token rows get their AdamW pass and the token rows' gradient is saved (slots read, 4 B
  // written), then the packed token rows at the end (their pass + the saved 4 B read);
  // runtime/token_rows.h, leader/embedding_split.h.
  if (last_pass) handoffs.push_back({head, comp, w.unit_numels[head], pass_bpp});
  if (split && last_pass)
    handoffs.push_back({0, comp, w.unit_numels[0], (1 - token_frac) * bpp + token_frac * (k_slots * gs + 4.0)});
  // backward: layer L again, unless still in its forward slot
  if (ws.backwardDeliversFirst()) deliver(L, ws.backwardSlot(static_cast<int>(L)), true);
  std::vector<double> act_ready(L + 2, 0.0);
  auto prefetchAct = [&](int64_t u) {
    if (u < 1 || layers[u - 1] != LayerActivation::kOffload) return;
    double& c = copyStream();  // shares the H2D direction with the deliveries
    c = std::max(c, offl) + boundary_bytes / r.h2d_bwd;
    h2d_bytes += boundary_bytes;
    busy.h2d_gpu += boundary_bytes / r.h2d_bwd;
    act_ready[u] = c;
  };
  prefetchAct(L);
  for (int64_t u = L; u >= 1; --u) {
    if (u > 1) {
      deliver(u - 1, ws.backwardSlot(static_cast<int>(u - 1)), true);
      prefetchAct(u - 1);
    }
    const double rs = rsLast(u);
    compute(std::max(ready[u], act_ready[u]), bwdTime(u, layers[u - 1]) + rs);
    slot_free[ws.backwardSlot(static_cast<int>(u))] = comp;
    const int64_t N = w.unit_numels[u];
    if (!last_pass) continue;
    if (u <= tail) {
      // the tail: after the embedding's hand-off (the carry's, with the early agreement), both
      // buckets (the plan keeps a layer's chunks; nothing goes early)
      if (!early) for (const Handoff& h : tailHandoffs(u)) tail_handoffs.push_back(h);
    } else if (bsplit > 0 && bsplit < N) {
      const double attention_bwd = 2.0 * mb_tokens.back() * (2.0 * double(bsplit) + attn) / r.bwd;
      const double rest_rs = rs * double(bsplit) / double(N);
      handoffs.push_back({u, comp - attention_bwd - rest_rs, N - bsplit, pass_bpp});
      handoffs.push_back({u, comp, bsplit, pass_bpp});
    } else {
      handoffs.push_back({u, comp, N, pass_bpp});
    }
  }
  compute(0, r.ovh * n_mb_count + rsLast(0));  // embedding backward
  if (!last_pass) {
    // the next pass delivers the units again: its forward may reuse each slot once this pass's
    // backward is done with it (the slots' free times hold that)
    continue;
  }
  if (!early) {
    handoffs.push_back({0, comp, embedding_last.numel, embedding_last.bpp});
    for (Handoff h : tail_handoffs) handoffs.push_back({h.unit, comp, h.numel, h.bpp});
  }
  }  // accumulation steps
  const double last_compute = comp;

  for (const Handoff& h : handoffs) leaderTakes(h);
  if (w.clip) {
    const double own = double(w.totalNumel()) / (nsh ? NN : 1);
    const double upd = own * (26.0 + 4.0) / r.adam;
    const double ag = paramGather(double(w.totalNumel()));
    leader_bytes += own * 30.0;
    out.clip_s = upd + ag;
    leader += upd + ag;
    busy.cpu_update += upd;
    busy.network += ag;
  }
  double end = std::max(leader, last_compute);
  for (double t : d2h_free) end = std::max(end, t);
  out.step_s = end + m.host.step_overhead_s;
  out.fill_s = std::max(0.0, first_compute);
  out.drain_s = out.step_s - last_compute;

  // ---- totals ---------------------------------------------------------------------------------
  busy.h2d_total = G * h2d_bytes / h2d_all;
  busy.d2h_total = G * d2h_bytes / d2h_all;
  if (via_host) {
    // NCCL through host memory: each GPU sends and receives its share over PCIe.
    busy.h2d_gpu += via_host_bytes / r.h2d_bwd;
    busy.d2h_gpu += via_host_bytes / r.d2h_bwd;
    busy.h2d_total += G * via_host_bytes / h2d_all;
    busy.d2h_total += G * via_host_bytes / d2h_all;
  }
  double host_traffic = leader_bytes + G * (h2d_bytes + d2h_bytes) + 2.0 * G * via_host_bytes +
                        2.0 * net_bytes;  // the NIC reads what it sends and writes what it receives
  busy.host_memory = host_traffic / (m.host.mem_bw_gbps * 1e9);
  double top = 0;
  for (const auto& [name, t] : busy.items()) {
    if (t > top) {
      top = t;
      out.bottleneck = name;
    }
  }
  out.exposed_s = std::max(0.0, out.step_s - top);
  if (out.exposed_s > top) out.bottleneck = "exposed";
  out.tokens_per_s = double(w.global_rows) * T / out.step_s;

  // ---- memory -----------------------------------------------------------------------------------
  out.gpu_peak_bytes = gpuPeak(w, m, p, layers);
  const double budget = gpu_budget_bytes > 0 ? gpu_budget_bytes : m.usableGpuBytes();
  out.fits_gpu = !w.cuda || out.gpu_peak_bytes <= budget;
  out.host_bytes = hostBytes(w, m, p);
  // pinned layer inputs (offloaded): the runtime leaves the host its headroom (host_memory.h)
  const bool pins = std::count(layers.begin(), layers.end(), LayerActivation::kOffload) > 0;
  const double ram = m.host.ram_gib * kGiB;
  out.host_headroom_bytes = w.cuda && pins ? double(pinnedHeadroomBytes(uint64_t(ram))) : 0.0;
  out.fits_host = out.host_bytes + out.host_headroom_bytes <= ram;
  return out;
}

}  // namespace slidedp::planner
