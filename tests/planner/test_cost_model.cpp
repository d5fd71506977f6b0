// Unit tests of the step-time model's formulas on hand-computed cases (src/planner/
// cost_model.h), of the search, of machine description files and of policy flags.
// Every expected number below is worked out by hand in the comment above it; the tolerance is
// 1e-9 relative (the model is deterministic double arithmetic, the only error is rounding).
#include <gtest/gtest.h>

#include <tuple>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>

#include "common/errors.h"
#include "model/config.h"
#include "planner/cost_model.h"
#include "planner/report.h"
#include "planner/search.h"

using namespace slidedp;
using namespace slidedp::planner;

namespace {

// Round rates: H2D 4e6 B/s, D2H 8e6 B/s, AdamW 3e7 B/s (= 1e6 params/s at 30 B/param), no
// overheads, full duplex.
MachineDescription toyMachine() {
  MachineDescription m;
  m.name = "toy";
  m.gpus = 2;
  m.gpu.memory_gib = 80;
  m.gpu.h2d_gbps = 0.004;
  m.gpu.d2h_gbps = 0.008;
  m.gpu.duplex = 1.0;
  m.gpu.collective_gbps = 0.004;
  // layer forward F = n (2 N_1 + 4 H D T) = 1000 (4e6 + 4000) = 4.004e9 FLOPs (see toyWorkload)
  m.gpu.fwd_tflops = 0.004004;        // forward 1 s
  m.gpu.bwd_tflops = 0.008008;        // backward 2F / R = 1 s
  // recompute F_rec = n (2 (N_1 - C I) + 4 H D T) = 1000 (3.98e6 + 4000) = 3.984e9 FLOPs (no down
  // projection: model/layer_flops.h)
  m.gpu.recompute_tflops = 0.003984;  // recompute 1 s
  m.gpu.head_tflops = 0.0006;         // 6 V C n = 6 * 1000 * 100 * 1000 = 6e8 -> 1 s
  m.host.cores = 1;
  m.host.leader_cores = 1;
  m.host.mem_bw_gbps = 1.0;
  m.host.ram_gib = 64;
  m.host.adamw_gbps = {{1, 0.03}};
  m.host.update_dma_share = 0;  // the pass alone (HandComputedDmaBesideTheUpdate prices it)
  return m;
}

// L = 1: embedding 1e6, layer 2e6, head 1e6 elements (untied); H = D = 1, T = 1000, one row.
Workload toyWorkload() {
  Workload w;
  w.model_name = "toy";
  w.unit_numels = {1000000, 2000000, 1000000};
  w.L = 1;
  w.C = 100;
  w.I = 100;
  w.H = 1;
  w.KV = 1;
  w.D = 1;
  w.V = 1000;
  w.tied = false;
  w.parameters = 4000000;
  w.G = 1;
  w.global_rows = 1;
  w.T = 1000;
  w.cuda = true;
  w.compute_bytes = 2;
  w.split_embedding = false;  // the dense schedule (HandComputedRowSplitEmbedding: the split one)
  return w;
}

Policy bigChunks() {
  Policy p;
  p.chunk_numel = int64_t{1} << 22;  // one chunk per unit
  p.ring_slots = 4;
  p.window = 2;
  return p;
}

void near(double got, double want) { EXPECT_NEAR(got, want, 1e-9 * std::max(1.0, std::abs(want))); }

}  // namespace

// Timeline, G = 1, every layer kept, one chunk per unit (times in s):
//   forward: deliver emb 0-0.5 | deliver layer 0.5-1.5 | emb fwd 0.5 (no cost) | deliver head
//   1.5-2.0 | layer fwd 1.5-2.5 | head fwd+bwd 2.5-3.5 | deliver layer again (slot freed by the
//   head at 3.5) 3.5-4.5 | layer bwd 4.5-5.5 | emb bwd 5.5.
//   hand-offs: head 3.5-4.0 (4e6 B / 8e6), layer 5.5-6.5, emb 6.5-7.0.
//   leader: head 4.0-5.0 (1e6 params), layer 6.5-8.5, emb 8.5-9.5 -> step 9.5.
TEST(CostModel, HandComputedTimelineKeepAll) {
  const Prediction p = predict(toyWorkload(), toyMachine(), bigChunks());
  near(p.step_s, 9.5);
  near(p.fill_s, 0.5);
  near(p.drain_s, 4.0);
  near(p.busy.gpu_compute, 3.0);   // fwd 1 + head 1 + bwd 1
  near(p.busy.h2d_gpu, 3.0);       // 0.5 + 1 + 0.5 forward, 1 backward
  near(p.busy.d2h_gpu, 2.0);       // 0.5 + 1 + 0.5
  near(p.busy.cpu_update, 4.0);    // 4e6 params at 1e6/s
  // host memory: 4e6 params x 30 B + H2D 1.2e7 B + D2H 1.6e7 B = 1.48e8 B at 1e9 B/s
  near(p.busy.host_memory, 0.148);
  EXPECT_EQ(p.bottleneck, "exposed");  // exposed 9.5 - 4.0 = 5.5 > 4.0
  near(p.exposed_s, 5.5);
  near(p.tokens_per_s, 1000 / 9.5);
}

// The host lookup (--embedding-lookup host, tied, GPU workers): the forward's lookup gathers its
// n x C rows through PCIe: 1000 x 100 x 2 B = 2e5 B at 4e6 B/s = 0.05 s on the compute stream.
// The busy account prices it as the GPU's host-to-device traffic, not as compute: against the
// window lookup (the same deliveries, the embedding's once in the forward) the GPU compute is
// the same and the worker's H2D time 0.05 s more.
TEST(CostModel, TheHostLookupCountsAsHostToDeviceTimeNotCompute) {
  Workload w = toyWorkload();
  w.tied = true;
  w.unit_numels = {1000000, 2000000, 100};  // the head unit: its norm only
  w.parameters = 3000100;
  w.host_embedding_lookup = true;
  ASSERT_TRUE(w.windowSchedule(bigChunks().window).lookupFromHost());
  const Prediction host = predict(w, toyMachine(), bigChunks());
  w.host_embedding_lookup = false;
  const Prediction window = predict(w, toyMachine(), bigChunks());
  near(host.busy.gpu_compute, window.busy.gpu_compute);
  near(host.busy.h2d_gpu - window.busy.h2d_gpu, 0.05);
}

// Gradient buckets (ChunkPlan::bucket_splits), the layer split at 5e5 of its 2e6 elements: the
// MLP bucket (1.5e6) is ready when the backward of [0, 5e5) and the attention is left:
// a = 2 n (2 x 5e5 + 4 H D T) / R_bwd = 2 x 1000 x 1.004e6 / 8.008e9 s before the layer's end 5.5.
//   hand-offs: MLP bucket (5.5 - a) + 0.75, rest 5.5 -> after it + 0.25, emb + 0.5.
//   leader: MLP bucket from 6.25 - a for 1.5, rest 0.5, emb 1.0 -> step 9.25 - a (against 9.5).
// One worker on the gpu route: the same (nothing to reduce-scatter); gpu-ipc reduces whole
// units after the layer: no change.
TEST(CostModel, HandComputedGradientBuckets) {
  Workload w = toyWorkload();
  w.layer_bucket_split = 500000;
  const double a = 2.0 * 1000 * (2.0 * 500000 + 4.0 * 1000) / 8.008e9;
  const Prediction p = predict(w, toyMachine(), bigChunks());
  near(p.step_s, 9.25 - a);
  near(p.busy.cpu_update, 4.0);
  near(p.busy.d2h_gpu, 2.0);
  Policy gpu = bigChunks();
  gpu.reduction = ReductionRoute::kGpu;
  near(predict(w, toyMachine(), gpu).step_s, 9.25 - a);
  Policy ipc = bigChunks();
  ipc.reduction = ReductionRoute::kGpuIpc;
  near(predict(w, toyMachine(), ipc).step_s, predict(toyWorkload(), toyMachine(), ipc).step_s);
  // Two workers on the gpu route: the MLP bucket's reduce-scatter and hand-off go before the
  // rest's, so the leader starts on the layer earlier and the step ends earlier.
  Workload w2 = w, whole2 = toyWorkload();
  w2.G = whole2.G = 2;
  w2.global_rows = whole2.global_rows = 2;
  EXPECT_LT(predict(w2, toyMachine(), gpu).step_s, predict(whole2, toyMachine(), gpu).step_s - 0.1);
}

// Gradient accumulation steps: two rows in two passes of one row each (--gradient-accumulation-
// steps 2). Each pass is HandComputedTimelineKeepAll's forward, head and backward; the second's
// deliveries wait for the slots the first's backward frees (the layer's backward slot is the
// embedding's forward slot):
//   pass 1: as there, the layer's backward 4.5-5.5, emb bwd 5.5; nothing handed off.
//   pass 2: deliver emb 5.5-6.0 | layer 6.0-7.0 | head 7.0-7.5 | layer fwd 7.0-8.0 | head
//   8.0-9.0 | layer again 9.0-10.0 | layer bwd 10.0-11.0 | emb bwd 11.0.
//   hand-offs: head 9.0-9.5, layer 11.0-12.0, emb 12.0-12.5; leader: head 9.5-10.5, layer
//   12.0-14.0, emb 14.0-15.0 -> step 15.0 (two rows: 2000 tokens).
// The model is delivered twice (H2D 6 s) and handed off once (D2H 2 s, leader 4 s); the GPU
// holds every unit's fp32 gradient through the step: 4 x 4e6 B more than one pass of one row.
TEST(CostModel, HandComputedAccumulationSteps) {
  Workload w = toyWorkload();
  w.global_rows = 2;
  Policy ga = bigChunks();
  ga.accumulation_steps = 2;
  const Prediction p = predict(w, toyMachine(), ga);
  near(p.step_s, 15.0);
  near(p.busy.gpu_compute, 6.0);
  near(p.busy.h2d_gpu, 6.0);
  near(p.busy.d2h_gpu, 2.0);
  near(p.busy.cpu_update, 4.0);
  near(p.tokens_per_s, 2000 / 15.0);
  EXPECT_EQ(passRows(w, ga), 1);
  near(passTokens(w, ga), 1000);
  near(accumulatorBytes(w, ga), 4.0 * 4e6);
  near(p.gpu_peak_bytes, predict(toyWorkload(), toyMachine(), bigChunks()).gpu_peak_bytes + 4.0 * 4e6);
  // One pass over both rows needs the activations of two: more than two passes of one.
  EXPECT_GT(predict(w, toyMachine(), bigChunks()).gpu_peak_bytes - accumulatorBytes(w, bigChunks()),
            p.gpu_peak_bytes - accumulatorBytes(w, ga));
  EXPECT_EQ(accumulatorBytes(w, bigChunks()), 0.0);
  // Three rows in two passes: rows 1 and 2 (the largest pass sets the memory); more passes
  // than rows run one row each.
  w.global_rows = 3;
  EXPECT_EQ(passRows(w, ga), 2);
  ga.accumulation_steps = 8;
  EXPECT_EQ(accumulationSteps(w, ga), 3);
  EXPECT_EQ(passRows(w, ga), 1);
  // Every worker runs the same passes, so the fewest rows of any worker bound them: 6 rows on
  // 4 workers give some 1 row, so one pass (and the search tries only that).
  Workload uneven = toyWorkload();
  uneven.G = 4;
  uneven.global_rows = 6;
  EXPECT_EQ(uneven.rowsPerWorker(), 2);
  EXPECT_EQ(accumulationSteps(uneven, ga), 1);
  EXPECT_EQ(accumulationCandidates(uneven.fewestRowsPerWorker()), std::vector<int64_t>{1});
  EXPECT_EQ(accumulationCandidates(5), (std::vector<int64_t>{1, 2, 4, 5}));
  EXPECT_EQ(accumulationCandidates(24), (std::vector<int64_t>{1, 2, 3, 4, 6, 8, 12, 16, 24}));
  EXPECT_NE(ga.label(1).find("ga8"), std::string::npos);
  EXPECT_NE(ga.flags(1).find("--gradient-accumulation-steps 8"), std::string::npos);
  EXPECT_EQ(bigChunks().flags(1).find("--gradient-accumulation"), std::string::npos);
}

// Where a whole batch's activations do not fit but one pass's do, the search takes passes and
// keeps every layer (Qwen3-4B, 16 x 4096 tokens, 1 x H200's description): faster than the best
// single pass, which recomputes layers.
TEST(Search, AccumulationStepsWhenTheBatchDoesNotFit) {
  const auto cfg = model::ModelConfig::load(std::string(SLIDEDP_SOURCE_DIR) + "/tools/configs/qwen3-4b.json");
  const MachineDescription m = loadMachine(std::string(SLIDEDP_SOURCE_DIR) + "/tools/machines/h200x1.json");
  const Workload w = makeWorkload(cfg, "qwen3-4b", 1, 16, 4096, true);
  const SearchResult r = searchPolicies(w, m, SearchOptions{});
  const RankedPolicy& best = r.choice();
  EXPECT_GE(best.policy.accumulation_steps, 2);
  EXPECT_EQ(best.policy.layers(w.L), std::vector<LayerActivation>(w.L, LayerActivation::kKeep));
  const RankedPolicy* one = nullptr;
  for (const auto& x : r.ranked)
    if (x.policy.accumulation_steps == 1) {
      one = &x;
      break;
    }
  ASSERT_NE(one, nullptr);
  const auto single = one->policy.layers(w.L);
  EXPECT_LT(std::count(single.begin(), single.end(), LayerActivation::kKeep), w.L);  // not all kept
  EXPECT_LT(best.prediction.step_s, one->prediction.step_s);
  TrainOptions o;
  best.policy.apply(o, w.L);
  EXPECT_EQ(o.accumulation_steps, best.policy.accumulation_steps);
}

// The DMA beside the pass (host.update_dma_share = 1): G = 1, CPU route, f32 gradients (g = 4),
// bf16 deliveries (e = 2): 30 + 4 + 2 = 36 B per element at 3e7 B/s = 1.2 s per 1e6.
//   leader: head 4.0-5.2, layer (hand-off 5.5-6.5) 6.5-8.9, emb 8.9-10.1 -> step 10.1.
// Half the share: 33 B, 1.1 s per 1e6: head 4.0-5.1, layer 6.5-8.7, emb 8.7-9.8.
TEST(CostModel, HandComputedDmaBesideTheUpdate) {
  MachineDescription m = toyMachine();
  m.host.update_dma_share = 1.0;
  Prediction p = predict(toyWorkload(), m, bigChunks());
  near(p.step_s, 10.1);
  near(p.busy.cpu_update, 4.8);
  m.host.update_dma_share = 0.5;
  p = predict(toyWorkload(), m, bigChunks());
  near(p.step_s, 9.8);
  // G = 2 on the GPU route with sharded delivery: 1 x 4 + 1 x 2 = 6 B beside the pass as well;
  // replicated delivery on the CPU route: 2 x 4 + 2 x 2 = 12 B (plus the 2 slots read: 34 B).
  Workload w = toyWorkload();
  w.G = 2;
  w.global_rows = 2;
  m.host.update_dma_share = 1.0;
  near(predict(w, m, bigChunks()).busy.cpu_update, 4e6 * (34 + 12) / 3e7);
  Policy gpu = bigChunks();
  gpu.delivery = DeliveryRoute::kSharded;
  gpu.reduction = ReductionRoute::kGpu;
  near(predict(w, m, gpu).busy.cpu_update, 4e6 * (30 + 6) / 3e7);
}

// The row-split embedding update: the embedding goes right after the head, where its rows
// outside the token rows get their pass (30 B) and the token rows' gradient is saved (4 B read
// from the one slot + 4 B written); its token rows go at the end (30 B + the saved 4 B).
// Token rows: min(V, B T) = 1000 rows x C 100 = 1e5 elements of the 1e6 (f = 0.1): the dense
// pass costs 0.9 x 30 + 0.1 x 8 = 27.8 B per element.
//   hand-offs (4 B/elem at 8e6 B/s): head 3.5-4.0, emb 4.0-4.5, layer 5.5-6.5, tokens 6.5-6.55.
//   leader (3e7 B/s): head 4.0-5.0, emb 5.0-5.92667 (1e6 x 27.8 B), layer 6.5-8.5,
//   tokens 8.5-8.61333 (1e5 x 34 B) -> step 8.61333, against 9.5 dense.
TEST(CostModel, HandComputedRowSplitEmbedding) {
  Workload w = toyWorkload();
  w.split_embedding = true;
  const Prediction p = predict(w, toyMachine(), bigChunks());
  near(p.step_s, 8.5 + 1e5 * 34 / 3e7);
  near(p.busy.d2h_gpu, 2.05);
  near(p.busy.cpu_update, 1.0 + 1e6 * 27.8 / 3e7 + 2.0 + 1e5 * 34 / 3e7);
  near(p.drain_s, 8.5 + 1e5 * 34 / 3e7 - 5.5);
  // The GPU reduction route has no split (the runtime plans it for the cpu route only).
  Policy gpu = bigChunks();
  gpu.reduction = ReductionRoute::kGpu;
  Workload dense = toyWorkload();
  near(predict(w, toyMachine(), gpu).step_s, predict(dense, toyMachine(), gpu).step_s);
}

// The update tail, M = 1 (the toy's one layer), with the early agreement (G = 1, cpu route, one
// accumulation step, no clipping). The step starts with the previous step's carry: the
// embedding's hand-off (D2H 0-0.5, leader 0.5-1.5), then the layer's (D2H 0.5-1.5, leader
// 1.5-3.5). Each delivery for the forward waits for its unit's update:
//   deliver emb 1.5-2.0 | emb fwd 2.0 | deliver layer 3.5-4.5 | deliver head 4.5-5.0 | layer
//   fwd 4.5-5.5 | head 5.5-6.5 | layer again 6.5-7.5 | layer bwd 7.5-8.5 | emb bwd 8.5.
//   the step's own hand-off: head D2H 6.5-7.0, leader 7.0-8.0; agreed at max(8.0, 8.5) = 8.5,
//   against 9.5 without the tail (HandComputedTimelineKeepAll).
// Without the early agreement (clipping; or the gpu route) M only reorders: the embedding's
// hand-off before the layer's, both once the embedding's backward is done (5.5):
//   emb D2H 5.5-6.0, leader 6.0-7.0; layer D2H 6.0-7.0, leader 7.0-9.0 -> 9.0 (the gpu route,
//   one worker: nothing to reduce-scatter).
// GPU memory: the one layer's own gradient is one of the reserve's (nothing more held). With two
// layers of 2e6 recomputed (each keeps its input, n C e = 1000 x 100 x 2 = 2e5 B) and M = 2:
// during layer 1's backward layer 2's fp32 gradient (8e6 B) is held and layer 2's input freed:
// 7.8e6 B; M = 1 holds none.
TEST(CostModel, HandComputedUpdateTail) {
  Policy tail = bigChunks();
  tail.tail_units = 1;
  const Workload w = toyWorkload();
  EXPECT_TRUE(earlyAgreement(w, tail));
  const Prediction p = predict(w, toyMachine(), tail);
  near(p.step_s, 8.5);
  near(p.fill_s, 2.0);
  near(p.drain_s, 0.0);
  near(p.busy.cpu_update, 4.0);
  near(p.busy.d2h_gpu, 2.0);
  near(p.busy.gpu_compute, 3.0);
  const Prediction none = predict(w, toyMachine(), bigChunks());
  near(p.gpu_peak_bytes - none.gpu_peak_bytes, 0.0);
  Workload two_layers = w;
  two_layers.unit_numels = {1000000, 2000000, 2000000, 1000000};
  two_layers.L = 2;
  Policy rec = bigChunks();
  rec.kept_layers = 0;
  rec.tail_units = 2;
  near(tailGradientBytes(two_layers, rec, rec.layers(2)), 7.8e6);
  rec.tail_units = 1;
  near(tailGradientBytes(two_layers, rec, rec.layers(2)), 0.0);
  Policy gpu = tail;
  gpu.reduction = ReductionRoute::kGpu;
  EXPECT_FALSE(earlyAgreement(w, gpu));
  near(predict(w, toyMachine(), gpu).step_s, 9.0);
  Workload clip = w;
  clip.clip = true;
  EXPECT_FALSE(earlyAgreement(clip, tail));
  // two accumulation steps: the accumulators already hold every gradient, and no early agreement
  Workload two = w;
  two.global_rows = 2;
  Policy ga = tail;
  ga.accumulation_steps = 2;
  EXPECT_FALSE(earlyAgreement(two, ga));
  near(tailGradientBytes(two, ga, ga.layers(two.L)), 0.0);
  Policy beyond = bigChunks();
  beyond.tail_units = 2;
  EXPECT_THROW(predict(w, toyMachine(), beyond), UserError);
}

// The search takes an update tail where the leader bounds the step by more than the model's
// margin: Qwen3-4B at batch 4 on the 1xH200 description (the measured case, README "Update
// tail": leader 1.0-1.3 s a step against 0.8 s of GPU compute), not at batch 8 (GPU-bound), and
// never with clipping (no early agreement).
TEST(Search, AnUpdateTailWhereTheLeaderBoundsTheStep) {
  const auto cfg = model::ModelConfig::load(std::string(SLIDEDP_SOURCE_DIR) + "/tools/configs/qwen3-4b.json");
  const MachineDescription m = loadMachine(std::string(SLIDEDP_SOURCE_DIR) + "/tools/machines/h200x1.json");
  const Workload w4 = makeWorkload(cfg, "qwen3-4b", 1, 4, 4096, true);
  const SearchResult r4 = searchPolicies(w4, m, SearchOptions{});
  const RankedPolicy& c4 = r4.choice();
  EXPECT_GT(c4.policy.tail_units, w4.L / 4) << c4.policy.label(w4.L);
  EXPECT_LT(c4.policy.tail_units, w4.L) << c4.policy.label(w4.L);
  Policy no_tail = c4.policy;
  no_tail.tail_units = 0;
  const double without = predict(w4, m, no_tail).step_s;
  EXPECT_LT(c4.prediction.step_s, without * (1 - kUpdateTailMargin));
  // the choice is the scan's best up to the smallest-M rule: no M is faster by more than 0.5%
  for (int M = 1; M <= w4.L; ++M) {
    Policy q = c4.policy;
    q.tail_units = M;
    EXPECT_GE(predict(w4, m, q).step_s * 1.005, c4.prediction.step_s) << "M " << M;
  }
  EXPECT_NE(c4.policy.flags(w4.L).find(fmt::format("--update-tail-units {}", c4.policy.tail_units)),
            std::string::npos);
  TrainOptions o;
  c4.policy.apply(o, w4.L);
  EXPECT_EQ(o.update_tail_units, c4.policy.tail_units);
  const Workload w8 = makeWorkload(cfg, "qwen3-4b", 1, 8, 4096, true);
  EXPECT_EQ(searchPolicies(w8, m, SearchOptions{}).choice().policy.tail_units, 0);
  Workload clip = w4;
  clip.clip = true;
  for (const auto& r : searchPolicies(clip, m, SearchOptions{}).ranked) EXPECT_EQ(r.policy.tail_units, 0);
}

// Recompute: the layer's backward costs 1 (recompute) + 1 (backward): 4.5-6.5; hand-offs
// layer 6.5-7.5, emb 7.5-8.0; leader head 4.0-5.0, layer 7.5-9.5, emb 9.5-10.5.
TEST(CostModel, HandComputedTimelineRecompute) {
  Policy pol = bigChunks();
  pol.kept_layers = 0;
  const Prediction p = predict(toyWorkload(), toyMachine(), pol);
  near(p.step_s, 10.5);
  near(p.busy.gpu_compute, 4.0);
  near(p.drain_s, 10.5 - 6.5);
}

// The attention-output layer's recompute: n 2 (N_1 - C I) = 1000 x 3.98e6 = 3.98e9 FLOPs (no
// attention, no down projection) at its own rate when the machine has one (2 s at 0.00199
// TFLOP/s, so the step is HandComputedTimelineRecompute's + 1 s), else at recompute_tflops
// (3.98e9 / 3.984e9 = 0.998996 s instead of the whole recompute's 1 s).
TEST(CostModel, HandComputedAttentionOutputRecompute) {
  Workload w = toyWorkload();
  w.flash_lse = true;
  Policy pol = bigChunks();
  pol.kept_layers = 0;
  pol.attention_output_layers = 1;
  MachineDescription m = toyMachine();
  const Prediction shared = predict(w, m, pol);
  near(shared.busy.gpu_compute, 3.0 + 3.98e9 / 3.984e9);
  m.gpu.attention_recompute_tflops = 0.00199;
  const Prediction own = predict(w, m, pol);
  near(own.busy.gpu_compute, 5.0);
  near(own.step_s, 11.5);
}

// Ring of one slot, chunks of 5e5 elements (2e6 B, 0.25 s D2H; 0.5 s update): chunk i's
// hand-off waits for the leader to consume chunk i-1.
//   head: 3.5-3.75 | leader 3.75-4.25 ; 4.25-4.5 | 4.5-5.0
//   layer (ready 5.5): 5.5-5.75 | 5.75-6.25 ; 6.25-6.5 | 6.5-7.0 ; 7.0-7.25 | 7.25-7.75 ;
//                      7.75-8.0 | 8.0-8.5
//   emb: 8.5-8.75 | 8.75-9.25 ; 9.25-9.5 | 9.5-10.0 -> step 10.0
TEST(CostModel, HandComputedRingBackPressure) {
  Policy pol = bigChunks();
  pol.chunk_numel = 500000;
  pol.ring_slots = 1;
  const Prediction p = predict(toyWorkload(), toyMachine(), pol);
  near(p.step_s, 10.0);
  near(p.busy.cpu_update, 4.0);
}

// A chunk overhead of 0.1 s on each of the 3 chunks (one per unit) adds to the update; the
// step overhead to the step.
TEST(CostModel, ChunkAndStepOverheads) {
  MachineDescription m = toyMachine();
  m.host.chunk_overhead_s = 0.1;
  m.host.step_overhead_s = 0.25;
  const Prediction p = predict(toyWorkload(), m, bigChunks());
  // leader: head 4.0-5.1, layer 6.5-8.6, emb 8.6-9.7; + step overhead 0.25
  near(p.step_s, 9.95);
  near(p.busy.cpu_update, 4.3);
}

// G = 2, sharded delivery, GPU reduction, units of 2^20, 2^21, 2^20 (shards of half):
//   H2D per GPU: forward (2^19 + 2^20 + 2^19) x 2 B = 4194304 B / 4e6 = 1.048576 s, backward
//   2^20 x 2 B / 4e6 = 0.524288 s -> 1.572864 s.
//   all-gather: (2^20 + 2^21 + 2^20 + 2^21) x 2 B x 1/2 = 6291456 B / 4e6 = 1.572864 s;
//   reduce-scatter: 4 B x 2^22 x 1/2 = 8388608 B / 4e6 = 2.097152 s -> 3.670016 s.
//   D2H per GPU: 4 B x 2^22 / 2 = 8388608 B / 8e6 = 1.048576 s.
//   Without peer access the collective bytes (14680064) cross PCIe both ways as well.
TEST(CostModel, ShardedGpuRouteBytes) {
  Workload w = toyWorkload();
  w.unit_numels = {1 << 20, 1 << 21, 1 << 20};
  w.G = 2;
  w.global_rows = 2;
  Policy pol = bigChunks();
  pol.delivery = DeliveryRoute::kSharded;
  pol.reduction = ReductionRoute::kGpu;
  MachineDescription m = toyMachine();
  Prediction p = predict(w, m, pol);
  near(p.busy.h2d_gpu, 1.572864);
  near(p.busy.collective, 3.670016);
  near(p.busy.d2h_gpu, 1.048576);
  // all-GPU totals: 2 x the bytes at 8e6 (h2d all) and 1.6e7 (d2h all) B/s
  near(p.busy.h2d_total, 1.572864);
  near(p.busy.d2h_total, 1.048576);
  m.gpu.peer_access = false;
  p = predict(w, m, pol);
  near(p.busy.h2d_gpu, 1.572864 + 14680064 / 4e6);
  near(p.busy.d2h_gpu, 1.048576 + 14680064 / 8e6);
}

// Replicated / CPU route with G = 2: every GPU reads every unit, writes its whole gradient;
// the leader reads 2 slots: 26 + 2 x 4 = 34 B/param -> 4e6 x 34 / 3e7 = 4.5333 s.
TEST(CostModel, CpuRouteReadsGSlots) {
  Workload w = toyWorkload();
  w.G = 2;
  w.global_rows = 2;
  const Prediction p = predict(w, toyMachine(), bigChunks());
  near(p.busy.cpu_update, 4e6 * 34 / 3e7);
  near(p.busy.h2d_gpu, 3.0);
  near(p.busy.d2h_gpu, 2.0);
}

// Clipping: the passes during backward only reduce (4 + 8 = 12 B/param: 0.4 s per 1e6), then
// every unit is updated after the barrier: 4e6 x 30 / 3e7 = 4 s, exposed.
//   leader: head 4.0-4.4, layer 6.5-7.3, emb 7.3-7.7, update 7.7-11.7.
TEST(CostModel, ClippingBarrier) {
  Workload w = toyWorkload();
  w.clip = true;
  const Prediction p = predict(w, toyMachine(), bigChunks());
  near(p.clip_s, 4.0);
  near(p.step_s, 11.7);
}

// Offloading the layer's input: 1000 tokens x C 100 x 2 B = 2e5 B D2H in forward (0.025 s)
// and H2D in backward (0.05 s) after the layer's delivery: backward starts at 4.55.
TEST(CostModel, OffloadTraffic) {
  Policy pol = bigChunks();
  pol.kept_layers = 0;
  pol.offload = true;
  const Prediction p = predict(toyWorkload(), toyMachine(), pol);
  near(p.busy.h2d_gpu, 3.0 + 0.05);
  near(p.busy.d2h_gpu, 2.0 + 0.025);
  // backward 4.55-6.55; hand-offs layer 6.55-7.55, emb 7.55-8.05; leader 7.55-9.55, 9.55-10.55
  near(p.step_s, 10.55);
}

// The kept bytes of a Qwen3-4B layer (model::keptLayerBytes, as the worker counts them; bf16,
// cuDNN/flash LSE): per token
// 2 x ((4096 + 2 x 1024) + 4096 + 2560 + 2 x 9728) + 8 + 4 x (32 + 8) + 4 x 32 = 64808 B
// (README: "about 70 KB per token per layer" with the 5 KB input). CPU workers compute in fp32
// and keep the LSE as well (model::keepsAttentionLse), which the formula now counts as the worker
// does: 4 x 32256 + 8 + 160 + 128 = 129320 B (the model prices GPU memory only, so no CPU
// prediction changes with it).
TEST(CostModel, KeptBytesQwen3_4B) {
  const auto cfg = model::ModelConfig::load(std::string(SLIDEDP_SOURCE_DIR) + "/tools/configs/qwen3-4b.json");
  const Workload w = makeWorkload(cfg, "qwen3-4b", 1, 8, 4096, true);
  near(keptBytes(w, 1, 1), 64808);
  EXPECT_TRUE(attentionOutputAvailable(w));
  EXPECT_EQ(w.L, 36);
  EXPECT_NEAR(w.parameters / 1e9, 4.02, 0.01);
  const Workload cpu = makeWorkload(cfg, "qwen3-4b", 2, 8, 4096, false);
  near(keptBytes(cpu, 1, 1), 129320);
  EXPECT_TRUE(attentionOutputAvailable(cpu));
}

TEST(Search, MoreBudgetIsNeverSlowerAndBisectionMatchesScan) {
  const auto cfg = model::ModelConfig::load(std::string(SLIDEDP_SOURCE_DIR) + "/tools/configs/qwen3-4b.json");
  const Workload w = makeWorkload(cfg, "qwen3-4b", 1, 16, 4096, true);
  const MachineDescription m = loadMachine(std::string(SLIDEDP_SOURCE_DIR) + "/tools/machines/h200x1.json");
  Policy p;
  const double budget = 60.0 * (1ull << 30);
  const int k = maxKeptLayers(w, m, p, budget);
  int scan = -1;
  for (int i = 0; i <= w.L; ++i) {
    p.kept_layers = i;
    if (gpuPeakBytes(w, m, p) <= budget) scan = i;
  }
  EXPECT_EQ(k, scan);
  EXPECT_GT(k, 0);
  EXPECT_LT(k, w.L);
  SearchOptions small, large;
  small.gpu_budget_bytes = 22.0 * (1ull << 30);
  large.gpu_budget_bytes = 0;  // the whole usable memory
  const SearchResult a = searchPolicies(w, m, small), b = searchPolicies(w, m, large);
  ASSERT_FALSE(a.ranked.empty());
  ASSERT_FALSE(b.ranked.empty());
  EXPECT_LE(b.ranked.front().prediction.step_s, a.ranked.front().prediction.step_s);
  for (size_t i = 1; i < b.ranked.size(); ++i)
    EXPECT_LE(b.ranked[i - 1].prediction.step_s, b.ranked[i].prediction.step_s);
  for (const auto& r : a.ranked) EXPECT_LE(r.prediction.gpu_peak_bytes, small.gpu_budget_bytes);
}

// --policy auto leaves the pipeline defaults (chunk, ring slots, window) only for a predicted
// gain above kLeaveDefaultsMargin: the 1xH200 sweep's case (4B, 8 x 4096) and others.
TEST(Search, TheChoiceKeepsThePipelineDefaultsUnlessClearlyFaster) {
  const auto cfg = model::ModelConfig::load(std::string(SLIDEDP_SOURCE_DIR) + "/tools/configs/qwen3-4b.json");
  const MachineDescription m = loadMachine(std::string(SLIDEDP_SOURCE_DIR) + "/tools/machines/h200x1.json");
  int moved = 0;
  for (const auto& [rows, T] : {std::pair<int64_t, int64_t>{8, 4096}, {1, 4096}, {32, 4096}, {2, 16384}}) {
    const Workload w = makeWorkload(cfg, "qwen3-4b", 1, rows, T, true);
    const SearchResult r = searchPolicies(w, m, SearchOptions{});
    ASSERT_FALSE(r.ranked.empty());
    const double fastest = r.ranked.front().prediction.step_s;
    const RankedPolicy* first_default = nullptr;
    for (const auto& x : r.ranked)
      if (hasPipelineDefaults(x.policy)) {
        first_default = &x;
        break;
      }
    ASSERT_NE(first_default, nullptr) << "the defaults are among the candidates";
    if (first_default->prediction.step_s <= fastest * (1 + kLeaveDefaultsMargin)) {
      EXPECT_EQ(&r.choice(), first_default) << rows << " x " << T;
      moved += r.chosen != 0;
    } else {
      EXPECT_EQ(r.chosen, 0u) << rows << " x " << T;
    }
  }
  std::printf("the choice moved to the pipeline defaults in %d of 4 workloads\n", moved);
}

TEST(Search, NothingFitsIsAClearError) {
  const auto cfg = model::ModelConfig::load(std::string(SLIDEDP_SOURCE_DIR) + "/tools/configs/qwen3-4b.json");
  const Workload w = makeWorkload(cfg, "qwen3-4b", 1, 8, 4096, true);
  const MachineDescription m = loadMachine(std::string(SLIDEDP_SOURCE_DIR) + "/tools/machines/h200x1.json");
  SearchOptions o;
  o.gpu_budget_bytes = 2.0 * (1ull << 30);
  EXPECT_THROW(searchPolicies(w, m, o), UserError);
  EXPECT_THROW(makeWorkload(cfg, "x", 4, 2, 4096, true), UserError);  // B < G
  // --evaluate --chunk-numel 1 (4 G chunks a step: it ended in std::bad_alloc)
  Policy p;
  p.chunk_numel = 1;
  EXPECT_THROW(predict(w, m, p, 100.0 * (1ull << 30)), UserError);
}

TEST(Machine, EveryShippedDescriptionLoadsAndRoundTrips) {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(std::string(SLIDEDP_SOURCE_DIR) + "/tools/machines")) {
    if (e.path().extension() != ".json") continue;
    const MachineDescription m = loadMachine(e.path().string());
    const MachineDescription again = machineFromJson(toJson(m), "round trip");
    EXPECT_EQ(toJson(again), toJson(m)) << e.path();
    ++n;
  }
  EXPECT_GE(n, 5);
}

TEST(Machine, BadFilesAreUserErrors) {
  nlohmann::json j = toJson(toyMachine());
  j["gpu"]["h2d_gbsp"] = 3;  // a typo
  EXPECT_THROW(machineFromJson(j, "typo"), UserError);
  j = toJson(toyMachine());
  j["host"].erase("mem_bw_gbps");
  EXPECT_THROW(machineFromJson(j, "missing"), UserError);
  j = toJson(toyMachine());
  j["gpu"]["fwd_tflops"] = -1;
  EXPECT_THROW(machineFromJson(j, "negative"), UserError);
  j = toJson(toyMachine());
  j["gpu"]["attention_recompute_tflops"] = -2;  // optional (0: recompute_tflops), never negative
  EXPECT_THROW(machineFromJson(j, "negative optional rate"), UserError);
  j["gpu"].erase("attention_recompute_tflops");
  EXPECT_EQ(machineFromJson(j, "without the optional rate").gpu.attention_recompute_tflops, 0.0);
  EXPECT_THROW(loadMachine("/nonexistent/machine.json"), UserError);
  EXPECT_THROW(loadMachine("/tmp"), UserError);  // a directory
  // optional amounts the search adds or divides by: never negative, never unbounded (a step of
  // -8 s or inf was priced and announced)
  for (const auto& [sub, key, bad] : std::vector<std::tuple<std::string, std::string, double>>{
           {"host", "step_overhead_s", -10}, {"host", "step_overhead_s", 1e308}, {"gpu", "layer_overhead_s", -1},
           {"gpu", "layer_overhead_s", 1e308}, {"host", "chunk_overhead_s", -1}, {"gpu", "context_gib", -1},
           {"gpu", "usable_gib", 1e9}, {"gpu", "duplex", 1.5}, {"network", "latency_s", -1},
           {"host", "leader_cores", -1}}) {
    j = toJson(toyMachine());
    j[sub][key] = bad;
    EXPECT_THROW(machineFromJson(j, sub + "." + key), UserError) << sub << "." << key << " = " << bad;
  }
  // more leader cores than the host has: the leader gets the host's (the plan's thread counts
  // stay within it)
  j = toJson(toyMachine());
  j["host"]["cores"] = 16;
  j["host"]["leader_cores"] = 1000;
  EXPECT_EQ(machineFromJson(j, "leader cores").leaderCores(1), 16);
}

// AdamW rate table: linear between entries, flat beyond, proportional below the first.
TEST(Machine, AdamwInterpolation) {
  MachineDescription m = toyMachine();
  m.host.adamw_gbps = {{2, 10}, {8, 40}};
  near(m.adamwBytesPerSecond(1), 5e9);
  near(m.adamwBytesPerSecond(2), 10e9);
  near(m.adamwBytesPerSecond(4), 20e9);
  near(m.adamwBytesPerSecond(16), 40e9);
}

TEST(Policy, FlagsAndLayers) {
  Policy p;
  p.delivery = DeliveryRoute::kSharded;
  p.reduction = ReductionRoute::kGpu;
  p.kept_layers = 2;
  p.offload = true;
  const auto v = p.layers(4);
  ASSERT_EQ(v.size(), 4u);
  EXPECT_EQ(v[1], LayerActivation::kKeep);
  EXPECT_EQ(v[2], LayerActivation::kOffload);
  EXPECT_NE(p.flags(4).find("--max-kept-layers 2 --offload-activations"), std::string::npos);
  TrainOptions o;
  p.apply(o, 4);
  EXPECT_EQ(o.max_kept_layers, 2);
  EXPECT_TRUE(o.offload_activations);
  EXPECT_EQ(o.delivery, DeliveryRoute::kSharded);
  // the search's auto split (the most the model's budget holds): no cap, the run fills its
  // budget by its own measured memory
  p.split_fills_budget = true;
  EXPECT_EQ(p.flags(4).find("--max-kept-layers"), std::string::npos) << p.flags(4);
  EXPECT_NE(p.flags(4).find("--activations auto --offload-activations"), std::string::npos) << p.flags(4);
  p.apply(o, 4);
  EXPECT_EQ(o.max_kept_layers, -1);
  p.kept_layers = -1;  // every layer kept: --activations keep either way
  EXPECT_NE(p.flags(4).find("--activations keep"), std::string::npos) << p.flags(4);
  p.apply(o, 4);
  EXPECT_EQ(o.max_kept_layers, 4);
}

// "No policy fits" names what to change: where even one token per worker overflows the GPU
// (Qwen2.5-72B on 24 GB cards: the 1.25 B-element embedding and head units), not the batch or
// the length; where the activations overflow it (Qwen3-14B at 256K tokens on an 80 GB H100), them.
TEST(Search, NoFitHintNamesTheModelsUnitsOrTheBatch) {
  auto refusal = [](const char* config, const char* machine, int G, int64_t rows, int64_t T) {
    const auto cfg = model::ModelConfig::load(std::string(SLIDEDP_SOURCE_DIR) + "/tools/configs/" + config);
    const MachineDescription m = loadMachine(std::string(SLIDEDP_SOURCE_DIR) + "/tools/machines/" + machine);
    try {
      searchPolicies(makeWorkload(cfg, config, G, rows, T, true), m, SearchOptions{});
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string("fits");
  };
  const std::string big = refusal("qwen2.5-72b.json", "rtx4090x4.json", 4, 4, 4096);
  EXPECT_NE(big.find("no policy fits"), std::string::npos) << big;
  EXPECT_NE(big.find("the model's own units do not fit this GPU: one token per worker already needs"),
            std::string::npos) << big;
  const std::string longer = refusal("qwen3-14b.json", "h100x4.json", 4, 4, 262144);
  EXPECT_NE(longer.find("no policy fits"), std::string::npos) << longer;
  EXPECT_EQ(longer.find("the model's own units"), std::string::npos) << longer;
  EXPECT_NE(longer.find("a shorter --seq-len"), std::string::npos) << longer;
}

// The chosen policy of a search is the auto split, marked to fill the budget; recompute-all
// (ranked for reference) keeps its cap of 0.
TEST(Search, AutoSplitFillsTheBudgetRecomputeAllKeepsItsCap) {
  const auto cfg = model::ModelConfig::load(std::string(SLIDEDP_SOURCE_DIR) + "/tools/configs/qwen3-4b.json");
  const Workload w = makeWorkload(cfg, "qwen3-4b", 1, 16, 4096, true);
  const MachineDescription m = loadMachine(std::string(SLIDEDP_SOURCE_DIR) + "/tools/machines/h200x1.json");
  SearchOptions so;
  const SearchResult r = searchPolicies(w, m, so);
  ASSERT_FALSE(r.ranked.empty());
  const Policy& best = r.ranked[r.chosen].policy;
  EXPECT_GT(best.kept_layers, 0);
  EXPECT_TRUE(best.split_fills_budget) << best.label(w.L);
  int recompute_all = 0;
  for (const auto& rp : r.ranked)
    if (rp.policy.kept_layers == 0 && rp.policy.attention_output_layers == 0 && !rp.policy.split_fills_budget) {
      ++recompute_all;
      EXPECT_NE(rp.policy.flags(w.L).find("--max-kept-layers 0"), std::string::npos) << rp.policy.flags(w.L);
    }
  EXPECT_GT(recompute_all, 0);
}

// --activations auto's order (model::attentionOutputFirst): a whole keep saves, beyond the
// attention output, the attention-output recompute (recomputeFlops without the attention: no
// down projection, no MLP where tiled), not the layer's 2 N. Qwen3-4B, bf16, one row: the
// attention output first from about T = 1.4K (untiled; the old count, 2 N per token, said
// 1.8K), whole keeps first at 1K.
TEST(CostModel, AttentionOutputFirstFromTheRecomputeAWholeKeepSaves) {
  const auto cfg = model::ModelConfig::load(std::string(SLIDEDP_SOURCE_DIR) + "/tools/configs/qwen3-4b.json");
  auto first = [&](int64_t T) {
    const Workload w = makeWorkload(cfg, "qwen3-4b", 1, 1, T, true);
    const double n = double(T);
    return model::attentionOutputFirst(layerFlopsShape(w, w.layerNumel()), n, attentionOutputBytes(w, n) / n,
                                       keptBytes(w, n, n) / n);
  };
  EXPECT_FALSE(first(1024));
  EXPECT_FALSE(first(1280));
  EXPECT_TRUE(first(1536));
  EXPECT_TRUE(first(1792));
  EXPECT_TRUE(first(4096));
  // an MLP with biases never runs tiled: its FLOPs keep the gate/up GEMM at any length
  Workload biased = makeWorkload(cfg, "qwen3-4b", 1, 1, 262144, true);
  biased.mlp_tileable = false;
  const Workload plain = makeWorkload(cfg, "qwen3-4b", 1, 1, 262144, true);
  EXPECT_GT(mlpTileRows(plain, 262144), 0);
  EXPECT_EQ(mlpTileRows(biased, 262144), 0);
  near(model::recomputeFlops(layerFlopsShape(biased, biased.layerNumel()), 262144, false) -
           model::recomputeFlops(layerFlopsShape(plain, plain.layerNumel()), 262144, false),
       262144.0 * 4 * double(cfg.hiddenSize) * double(cfg.intermediateSize));
}

// The attention-output policy in the planner (issue 14): its bytes (Qwen3-4B, bf16: per token
// 2 x 4096 + 4 x 32 = 8320 B, against 64808 for a whole keep: "about 1 GB per layer at 128K"),
// the tiled MLP's smaller whole keep at long sequences, the per-layer vector, the flags and
// options it runs with, a backward cheaper than recompute's, and the runtime's auto split.
TEST(CostModel, AttentionOutputPolicy) {
  const auto cfg = model::ModelConfig::load(std::string(SLIDEDP_SOURCE_DIR) + "/tools/configs/qwen3-4b.json");
  const Workload w4k = makeWorkload(cfg, "qwen3-4b", 1, 8, 4096, true);
  near(attentionOutputBytes(w4k, 1), 8320);
  near(attentionOutputBytes(w4k, 131072), 8320.0 * 131072);  // 1.09 GB
  // 128K tokens: the MLP runs tiled (13568-row tiles), a whole keep holds no gate/up output.
  const Workload w128k = makeWorkload(cfg, "qwen3-4b", 1, 1, 131072, true);
  EXPECT_EQ(mlpTileRows(w4k, 8 * 4096), 0);
  EXPECT_EQ(mlpTileRows(w128k, 131072), 13568);
  near(keptBytes(w128k, 1, 131072), 64808 - 2 * 2 * 9728);

  Policy p;
  p.kept_layers = 2;
  p.attention_output_layers = 3;
  p.offload = true;
  const auto layers = p.layers(6);
  ASSERT_EQ(layers.size(), 6u);
  EXPECT_EQ(layers[1], LayerActivation::kKeep);
  EXPECT_EQ(layers[2], LayerActivation::kAttentionOutput);
  EXPECT_EQ(layers[4], LayerActivation::kAttentionOutput);
  EXPECT_EQ(layers[5], LayerActivation::kOffload);
  EXPECT_NE(p.label(6).find("keep2/6 attn3 offl"), std::string::npos) << p.label(6);
  EXPECT_NE(p.flags(6).find("--activations auto --max-kept-layers 2 --offload-activations"),
            std::string::npos) << p.flags(6);
  Policy all;
  all.kept_layers = 0;
  all.attention_output_layers = 6;
  EXPECT_NE(all.flags(6).find("--activations attention-output"), std::string::npos);
  TrainOptions o;
  all.apply(o, 6);
  EXPECT_EQ(o.activations, ActivationPolicy::kAttentionOutput);
  EXPECT_FALSE(o.offload_activations);

  // At 128K, the attention output of every layer costs less step time than recomputing every
  // layer and more than keeping every layer (budget unbounded for the comparison).
  const MachineDescription m = loadMachine(std::string(SLIDEDP_SOURCE_DIR) + "/tools/machines/h200x1.json");
  Policy rec, attn, keep;
  rec.kept_layers = 0;
  attn.kept_layers = 0;
  attn.attention_output_layers = static_cast<int>(w128k.L);
  keep.kept_layers = -1;
  const double huge = 1e15;
  const Prediction pr = predict(w128k, m, rec, huge), pa = predict(w128k, m, attn, huge),
                   pk = predict(w128k, m, keep, huge);
  EXPECT_LT(pa.busy.gpu_compute, pr.busy.gpu_compute);
  EXPECT_GT(pa.busy.gpu_compute, pk.busy.gpu_compute);
  EXPECT_LT(pr.gpu_peak_bytes, pa.gpu_peak_bytes);
  EXPECT_LT(pa.gpu_peak_bytes, pk.gpu_peak_bytes);
  near(pa.gpu_peak_bytes - pr.gpu_peak_bytes, 36 * 8320.0 * 131072);

  // The auto split at 128K on one H200: every layer keeps at least its attention output (it
  // saves more FLOPs per byte there), then whole keeps as the budget allows, and it fits.
  const double budget = m.usableGpuBytes();
  const LayerSplit s = autoLayerSplit(w128k, m, Policy(), budget);
  EXPECT_EQ(s.kept + s.attention_output, w128k.L);
  EXPECT_GT(s.attention_output, 0);
  Policy best;
  best.kept_layers = s.kept;
  best.attention_output_layers = s.attention_output;
  EXPECT_LE(gpuPeakBytes(w128k, m, best), budget);
  std::printf("128K tokens, Qwen3-4B on h200x1: auto keeps %d layers whole and %d attention "
              "outputs; predicted %.2f s/step vs recompute-all %.2f s\n", s.kept,
              s.attention_output, predict(w128k, m, best).step_s, predict(w128k, m, rec).step_s);
  // At 4K with a budget that holds every layer, auto keeps every layer (the benchmark case).
  const LayerSplit s4 = autoLayerSplit(w4k, m, Policy(), 1e15);
  EXPECT_EQ(s4.kept, w4k.L);
  EXPECT_EQ(s4.attention_output, 0);
  // CPU workers keep every layer.
  const Workload cpu = makeWorkload(cfg, "qwen3-4b", 1, 1, 64, false);
  EXPECT_EQ(autoLayerSplit(cpu, m, Policy(), 1).kept, cpu.L);
}

// The runtime's input placement (worker/input_placement.h), priced: at 544K tokens the 36
// recomputed layers' inputs (2.66 GiB each, 96 GiB) do not fit one H200 beside the working
// set (by the shipped description's estimates); the auto split offloads the fewest first
// layers that make the rest fit, each one GPU boundary less and one more on the host, and the
// flags carry no --offload-activations (the runtime places them itself).
TEST(Search, InputPlacementAtLongSequences) {
  const auto cfg = model::ModelConfig::load(std::string(SLIDEDP_SOURCE_DIR) + "/tools/configs/qwen3-4b.json");
  const MachineDescription m = loadMachine(std::string(SLIDEDP_SOURCE_DIR) + "/tools/machines/h200x1.json");
  const Workload w = makeWorkload(cfg, "qwen3-4b", 1, 1, 557056, true);
  const double budget = m.usableGpuBytes(), boundary = 557056.0 * 2560 * 2;
  const LayerSplit s = autoLayerSplit(w, m, Policy(), budget);
  ASSERT_EQ(s.kept, 0);
  EXPECT_EQ(s.attention_output, 0);
  ASSERT_GT(s.offloaded, 0);
  ASSERT_LT(s.offloaded, w.L);
  Policy p;
  p.kept_layers = 0;
  p.offloaded_layers = s.offloaded;
  EXPECT_LE(gpuPeakBytes(w, m, p), budget);
  Policy fewer = p;
  fewer.offloaded_layers = s.offloaded - 1;
  EXPECT_GT(gpuPeakBytes(w, m, fewer), budget);
  near(gpuPeakBytes(w, m, fewer) - gpuPeakBytes(w, m, p), boundary);
  near(hostBytes(w, m, p) - hostBytes(w, m, fewer), boundary);
  EXPECT_EQ(inputPlacementOffloads(w, m, p, budget), s.offloaded);
  const auto layers = p.layers(w.L);
  EXPECT_EQ(layers[s.offloaded - 1], LayerActivation::kOffload);
  EXPECT_EQ(layers[s.offloaded], LayerActivation::kRecompute);
  EXPECT_NE(p.label(w.L).find(fmt::format("keep0/36 offl{}", s.offloaded)), std::string::npos) << p.label(w.L);
  EXPECT_EQ(p.flags(w.L).find("--offload-activations"), std::string::npos) << p.flags(w.L);
  // each offloaded input crosses PCIe D2H once in forward (one GPU: at the d2h rate alone)
  Policy none = p;
  none.offloaded_layers = 0;
  const double d2h = s.offloaded * boundary / (m.gpu.d2h_gbps * 1e9);
  EXPECT_NEAR(predict(w, m, p, 1e15).busy.d2h_gpu - predict(w, m, none, 1e15).busy.d2h_gpu, d2h, 1e-6 * d2h);
  // the search ranks a policy with that placement and it fits
  SearchOptions o;
  const SearchResult r = searchPolicies(w, m, o);
  ASSERT_FALSE(r.ranked.empty());
  EXPECT_LE(r.choice().prediction.gpu_peak_bytes, budget);
  std::printf("544K tokens, Qwen3-4B on h200x1: %d of 36 inputs offloaded; choice %s, %.0f s/step, "
              "host %.1f GiB\n", s.offloaded, r.choice().policy.label(w.L).c_str(),
              r.choice().prediction.step_s, r.choice().prediction.host_bytes / double(1ull << 30));
  // At 576K the same estimates offload 24 inputs (67.5 GiB): with the 52.5 GiB state and the
  // headroom pinned buffers leave the host (max(4 GiB, 5% of RAM)) that is over 125 GiB, and
  // the search says host RAM is the limit. (The estimate of the head and backward's working
  // set is the runtime's first-step formula, about twice what the 512K step measured.)
  const Workload w576 = makeWorkload(cfg, "qwen3-4b", 1, 1, 589824, true);
  try {
    searchPolicies(w576, m, o);
    ADD_FAILURE() << "576K fitted the shipped h200x1 description";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("host RAM is the limit"), std::string::npos) << e.what();
  }
  // a budget below the working set: nothing fits, even with every input offloaded
  EXPECT_EQ(inputPlacementOffloads(w, m, p, 8.0 * (1ull << 30)), -1);
  EXPECT_EQ(autoLayerSplit(w, m, Policy(), 8.0 * (1ull << 30)).kept, -1);
  // with every layer's input fitting (4K), nothing is offloaded
  const Workload w4k = makeWorkload(cfg, "qwen3-4b", 1, 8, 4096, true);
  EXPECT_EQ(autoLayerSplit(w4k, m, Policy(), budget).offloaded, 0);
}

// Several nodes (issue 17), the toy on 2 nodes of 1 worker (1 row each: the worker timeline of
// HandComputedTimelineKeepAll), network 0.32 Gb/s = 4e7 B/s at efficiency 1, no latency.
//   sharded, per chunk of c elements: the leader sums its 1 slot into fp32 (4 + 4 B) and updates
//   its half (c/2 x 30 B): 23 c B at 3e7 B/s; the NIC carries the reduce-scatter 1/2 x 4c and the
//   all-gather 1/2 x 2c bytes = 3c B at 4e7 B/s.
//     head (c = 1e6): 4.0 + 0.76667 + 0.075 = 4.84167; layer (2e6) from 6.5: + 1.53333 + 0.15 =
//     8.18333; embedding: + 0.76667 + 0.075 = 9.025 -> step 9.025; network busy 1.2e7 / 4e7 = 0.3.
//   replicated: the all-reduce 2 x 1/2 x 4c = 4c B, the update of the whole chunk: 38 c B.
//   host: sharded holds 12/2 + 2 = 8 B per (4 KiB-padded) parameter, replicated 14.
TEST(CostModel, SeveralNodesNetworkTerms) {
  Workload w = toyWorkload();
  w.nodes = 2;
  w.global_rows = 2;
  MachineDescription m = toyMachine();
  m.network.nodes = 2;
  m.network.gbps = 0.32;
  m.network.efficiency = 1.0;
  m.network.latency_s = 0;
  const Prediction sh = predict(w, m, bigChunks());
  near(sh.busy.network, 0.3);
  near(sh.busy.cpu_update, 4e6 * 23 / 3e7);
  near(sh.step_s, 9.025);
  near(sh.tokens_per_s, 2000 / 9.025);
  w.node_sharded = false;
  const Prediction rep = predict(w, m, bigChunks());
  near(rep.busy.network, 0.4);
  near(rep.busy.cpu_update, 4e6 * 38 / 3e7);
  const double padded = 2 * 1000448.0 + 2000896.0;
  near(rep.host_bytes - sh.host_bytes, 6 * padded);
  // A latency per ring step: (N - 1) = 1 step per collective, 2 collectives per chunk, 3 chunks.
  w.node_sharded = true;
  m.network.latency_s = 1e-3;
  near(predict(w, m, bigChunks()).busy.network, 0.3 + 6e-3);
}

// A reserve that calibration measured for the run's model at its tokens per worker replaces
// the shape estimate where it is smaller, byte for byte in the GPU peak; for another model or
// token count, or larger, or unmeasured, the estimate stands. At 589 824 tokens of the 4B shape
// the measured reserve (49.5 GiB in a step, tools/bench/results/2026-12-04e-h200x1-reserve/)
// leaves room for more layer inputs on the GPU than the estimate (98.8 GiB): fewer go to pinned
// host memory.
TEST(CostModel, CalibratedReserveBoundsTheShapeEstimate) {
  const auto cfg = model::ModelConfig::load(std::string(SLIDEDP_SOURCE_DIR) + "/tools/configs/qwen3-4b.json");
  MachineDescription m = loadMachine(std::string(SLIDEDP_SOURCE_DIR) + "/tools/machines/h200x1.json");
  const int64_t T = 589824;
  const Workload w = makeWorkload(cfg, "qwen3-4b", 1, 1, T, true);
  Policy p;
  p.kept_layers = 0;
  const double n = double(w.tokensPerWorker()), estimate = reserveBytes(w, n, n, p);
  const double unmeasured = gpuPeakBytes(w, m, p);
  EXPECT_TRUE(std::isinf(calibratedReserveBytes(m, w)));
  m.gpu.reserve_gib = 52.0;
  m.gpu.reserve_tokens = double(T);
  m.gpu.reserve_shape = reserveShape(w);
  EXPECT_EQ(m.gpu.reserve_shape, "C2560 I9728 H32 KV8 D128 V151936 tied1 qknorm1 bytes2");
  near(calibratedReserveBytes(m, w), 52.0 * (1ull << 30));
  near(unmeasured - gpuPeakBytes(w, m, p), estimate - 52.0 * (1ull << 30));
  const double budget = m.usableGpuBytes();
  const int with_measured = inputPlacementOffloads(w, m, p, budget);
  m.gpu.reserve_tokens = double(T / 2);  // measured at another token count: not used
  EXPECT_TRUE(std::isinf(calibratedReserveBytes(m, w)));
  near(gpuPeakBytes(w, m, p), unmeasured);
  const int with_estimate = inputPlacementOffloads(w, m, p, budget);
  EXPECT_GT(with_estimate, with_measured);
  EXPECT_GT(with_measured, 0);
  m.gpu.reserve_tokens = double(T);
  Workload other = w;  // another model at the same tokens: not used
  other.I = 2 * w.I;
  EXPECT_TRUE(std::isinf(calibratedReserveBytes(m, other)));
  near(calibratedReserveBytes(m, w), 52.0 * (1ull << 30));
  m.gpu.reserve_gib = 2 * estimate / (1ull << 30);  // a measurement above the estimate: the estimate
  near(gpuPeakBytes(w, m, p), unmeasured);
}

// A reserve is used only with its tokens and model shape; one without them (as the calibration
// of 958c8d2 wrote, no reserve_shape) still loads, and is not used. Negative or non-finite
// numbers are refused.
TEST(Machine, AReserveIsUsedOnlyWithItsTokenCountAndModel) {
  const auto cfg = model::ModelConfig::load(std::string(SLIDEDP_SOURCE_DIR) + "/tools/configs/qwen3-4b.json");
  const Workload w = makeWorkload(cfg, "qwen3-4b", 1, 1, 65536, true);
  nlohmann::json j = toJson(loadMachine(std::string(SLIDEDP_SOURCE_DIR) + "/tools/machines/h200x1.json"));
  j["gpu"]["reserve_gib"] = 10.0;
  EXPECT_TRUE(std::isinf(calibratedReserveBytes(machineFromJson(j, "test"), w)));  // no tokens, no shape
  j["gpu"]["reserve_tokens"] = 65536.0;
  EXPECT_TRUE(std::isinf(calibratedReserveBytes(machineFromJson(j, "test"), w)));  // no shape
  j["gpu"]["reserve_shape"] = reserveShape(w);
  const MachineDescription m = machineFromJson(j, "test");
  near(calibratedReserveBytes(m, w), 10.0 * (1ull << 30));
  EXPECT_EQ(toJson(machineFromJson(toJson(m), "round trip")), toJson(m));
  // the layer count is not part of the shape: a 2-layer cut's measurement holds for all 36
  Workload cut = w;
  cut.L = 2;
  EXPECT_EQ(reserveShape(cut), reserveShape(w));
  Workload vocab = w;  // another vocabulary (the head's peak): not used
  vocab.V = w.V / 2;
  EXPECT_TRUE(std::isinf(calibratedReserveBytes(m, vocab)));
  j["gpu"]["reserve_gib"] = -1.0;
  EXPECT_THROW(machineFromJson(j, "test"), UserError);
  j["gpu"]["reserve_gib"] = 10.0;
  j["gpu"]["reserve_tokens"] = std::numeric_limits<double>::infinity();
  EXPECT_THROW(machineFromJson(j, "test"), UserError);
}
