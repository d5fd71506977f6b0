#include "planner/search.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include "common/errors.h"
#include "model/layer_flops.h"

namespace slidedp::planner {

int maxKeptLayers(const Workload& w, const MachineDescription& m, Policy p, double budget) {
  if (!w.cuda) return static_cast<int>(w.L);  // CPU workers keep every layer (host memory)
  // GPU peak grows with every kept layer: the largest k that fits, by bisection.
  p.kept_layers = 0;
  if (gpuPeakBytes(w, m, p) > budget) return -1;
  int lo = 0, hi = static_cast<int>(w.L);
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    p.kept_layers = mid;
    if (gpuPeakBytes(w, m, p) <= budget) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

int inputPlacementOffloads(const Workload& w, const MachineDescription& m, Policy p, double budget) {
  p.offload = false;
  p.offloaded_layers = 0;
  if (gpuPeakBytes(w, m, p) <= budget) return 0;
  const int kept = p.kept_layers < 0 ? static_cast<int>(w.L) : std::min(p.kept_layers, static_cast<int>(w.L));
  const int recomputed = static_cast<int>(w.L) - kept - std::clamp(p.attention_output_layers, 0, static_cast<int>(w.L) - kept);
  p.offloaded_layers = recomputed;
  if (recomputed <= 0 || gpuPeakBytes(w, m, p) > budget) return -1;
  int lo = 1, hi = recomputed;  // the GPU peak falls with every offloaded input: bisection
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    p.offloaded_layers = mid;
    if (gpuPeakBytes(w, m, p) <= budget) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

bool attentionOutputAvailable(const Workload& w) {
  return w.flash_lse;  // set from model::keepsAttentionLse (workload.cpp)
}

LayerSplit autoLayerSplit(const Workload& w, const MachineDescription& m, Policy p, double budget,
                          int max_kept) {
  const int L = static_cast<int>(w.L);
  const int cap = max_kept < 0 ? L : std::min(L, max_kept);
  LayerSplit s;
  if (!w.cuda) return {cap, 0};
  // The largest n in [0, hi] for which fits(n) holds (fits monotone decreasing), -1 if none.
  auto largest = [](int hi, const auto& fits) {
    if (!fits(0)) return -1;
    int lo = 0;
    while (lo < hi) {
      const int mid = (lo + hi + 1) / 2;
      if (fits(mid)) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  p.offloaded_layers = 0;
  auto fits = [&](int kept, int attn) {
    p.kept_layers = kept;
    p.attention_output_layers = attn;
    return gpuPeakBytes(w, m, p) <= budget;
  };
  if (!fits(0, 0)) {
    if (p.offload) return {-1, 0, 0};
    const int o = inputPlacementOffloads(w, m, p, budget);  // p: kept 0, attention output 0
    return o < 0 ? LayerSplit{-1, 0, 0} : LayerSplit{0, 0, o};
  }
  const bool attn = attentionOutputAvailable(w);
  const double n = passTokens(w, p);  // one accumulation step's
  const double b = double(passRows(w, p));
  const double n_mb = (p.micro_batch_rows > 0 ? std::min<double>(double(p.micro_batch_rows), b) : b) * double(w.T);
  const bool attn_first = attn && model::attentionOutputFirst(layerFlopsShape(w, w.layerNumel()), n_mb,
                                                              attentionOutputBytes(w, n) / n,
                                                              keptBytes(w, n, n_mb) / n);
  if (attn_first && fits(0, L)) {
    s.kept = largest(cap, [&](int kk) { return fits(kk, L - kk); });
    s.attention_output = L - s.kept;
    return s;
  }
  s.kept = largest(cap, [&](int kk) { return fits(kk, 0); });
  if (attn) s.attention_output = largest(L - s.kept, [&](int aa) { return fits(s.kept, aa); });
  return s;
}

std::vector<int64_t> accumulationCandidates(int64_t b) {
  std::set<int64_t> s{1};
  for (int64_t n = 2; n <= b; n *= 2) s.insert(n);
  for (int64_t n = 3; n <= b && n <= 4096; ++n)
    if (b % n == 0) s.insert(n);  // equal passes (24 rows: 3 of 8, 6 of 4)
  return {s.begin(), s.end()};
}

std::vector<int64_t> microBatchCandidates(int64_t b) {
  std::set<int64_t> s{b};
  for (int64_t r = 1; r < b; r *= 2) s.insert(r);
  return {s.rbegin(), s.rend()};
}

SearchResult searchPolicies(const Workload& w, const MachineDescription& m, const SearchOptions& o) {
  const double budget = o.gpu_budget_bytes > 0 ? o.gpu_budget_bytes : m.usableGpuBytes();
  SearchResult res;
  std::vector<DeliveryRoute> deliveries = {DeliveryRoute::kReplicated};
  std::vector<ReductionRoute> reductions = {ReductionRoute::kCpu};
  if (w.G > 1) {
    deliveries.push_back(DeliveryRoute::kSharded);
    reductions.push_back(ReductionRoute::kGpu);
  }
  const int cores = m.leaderCores(w.G);
  std::set<int> threads{cores};
  if (cores >= 4) threads.insert(cores / 2);
  double min_gpu = std::numeric_limits<double>::infinity(), min_host = min_gpu;
  Policy min_gpu_policy;  // the policy of min_gpu (its route, window and threads)
  const int64_t b = w.rowsPerWorker();
  for (DeliveryRoute d : deliveries)
    for (ReductionRoute r : reductions)
      for (int64_t chunk : o.chunk_numels)
        for (int ring : o.ring_slots)
          for (int K : w.cuda ? o.windows : std::vector<int>{2})
            for (int64_t ga : accumulationCandidates(w.fewestRowsPerWorker()))
            for (int64_t mb : microBatchCandidates((b + ga - 1) / ga))
              for (int th : threads)
                for (bool offload : w.cuda ? std::vector<bool>{false, true} : std::vector<bool>{false}) {
                  Policy p;
                  p.delivery = d;
                  p.reduction = r;
                  p.chunk_numel = chunk;
                  p.ring_slots = ring;
                  p.window = K;
                  p.accumulation_steps = ga;
                  p.micro_batch_rows = mb == (b + ga - 1) / ga ? 0 : mb;
                  p.leader_threads = th;  // explicit: the run must use the modelled team
                  p.offload = offload;
                  p.bf16_staging = o.bf16_staging;
                  // The runtime's auto split (keep, attention output, recompute) and, for
                  // reference, recompute everything.
                  const LayerSplit split = autoLayerSplit(w, m, p, budget);
                  std::set<std::pair<int, int>> splits;
                  if (split.kept >= 0) splits.insert({split.kept, split.attention_output});
                  if (o.include_recompute_all) splits.insert({0, 0});
                  if (offload && split.kept + split.attention_output >= w.L)
                    continue;  // nothing recomputed: same as !offload
                  for (const auto& [k, a] : splits) {
                    p.kept_layers = k;
                    p.attention_output_layers = a;
                    p.split_fills_budget = k == split.kept && a == split.attention_output;
                    // the runtime's placement: with every layer recomputed and no room for every
                    // input on the GPU, the first split.offloaded go to the host
                    p.offloaded_layers = k == 0 && a == 0 ? split.offloaded : 0;
                    const Prediction pr = predict(w, m, p, budget);
                    ++res.evaluated;
                    if (pr.gpu_peak_bytes < min_gpu) {
                      min_gpu = pr.gpu_peak_bytes;
                      min_gpu_policy = p;
                    }
                    min_host = std::min(min_host, pr.host_bytes + pr.host_headroom_bytes);
                    if (!pr.fits_gpu) ++res.over_gpu_budget;
                    if (!pr.fits_host) ++res.over_host_ram;
                    if (pr.fits_gpu && pr.fits_host)
                      res.ranked.push_back(chooseUpdateTail(w, m, p, pr, budget, &res.tails_evaluated));
                  }
                }
  if (res.ranked.empty()) {
    const double gib = double(1ull << 30);
    // The hint names what does not fit: the GPU budget, host RAM, or both.
    const bool gpu_short = min_gpu > budget, host_short = min_host > m.host.ram_gib * gib;
    // What the GPU holds whatever the batch: the cheapest policy at one token per worker, every
    // layer recomputed (the window's layer copies, the embedding and head units and their fp32
    // gradients, the reserve's unit gradients).
    double fixed = 0;
    if (gpu_short && w.cuda) {
      Workload one = w;
      one.global_rows = int64_t{w.G} * std::max(1, w.nodes);
      one.T = 1;
      Policy q = min_gpu_policy;
      q.kept_layers = q.attention_output_layers = q.offloaded_layers = 0;
      q.micro_batch_rows = 0;
      q.accumulation_steps = 1;
      fixed = predict(one, m, q, budget).gpu_peak_bytes;
    }
    const std::string hint =
        fixed > budget
            ? fmt::format("the model's own units do not fit this GPU: one token per worker already "
                          "needs {:.1f} GiB (the window's layer copies, the embedding and head units "
                          "with their fp32 gradients, the reserve's unit gradients), so fewer rows or a "
                          "shorter --seq-len cannot help: a GPU with more memory, or a larger "
                          "--gpu-memory-budget where the card has it", fixed / gib)
        : gpu_short && !host_short
            ? "fewer rows per step (--batch-size), a shorter --seq-len, more GPUs, or a larger "
              "--gpu-memory-budget"
        : host_short && !gpu_short
            ? "host RAM is the limit: a smaller model or --seq-len (the host holds the state, 14 "
              "B/param, and the offloaded activations), a machine with more RAM, or several nodes "
              "with the state sharded across them (--nodes N, --node-layout sharded or "
              "fully-sharded)"
            : "fewer rows per step (--batch-size), a shorter --seq-len, more GPUs or more host RAM";
    throwUserError("no policy fits: the smallest GPU peak per worker is {:.1f} GiB (budget {:.1f} GiB), "
                   "the smallest host need {:.1f} GiB with the headroom pinned layer inputs leave "
                   "free (RAM {:.1f} GiB).\nHINT: {}",
                   min_gpu / gib, budget / gib, min_host / gib, m.host.ram_gib, hint);
  }
  std::stable_sort(res.ranked.begin(), res.ranked.end(), [](const RankedPolicy& a, const RankedPolicy& b) {
    return a.prediction.step_s < b.prediction.step_s;
  });
  const auto d = std::find_if(res.ranked.begin(), res.ranked.end(),
                              [](const RankedPolicy& r) { return hasPipelineDefaults(r.policy); });
  if (d != res.ranked.end() &&
      d->prediction.step_s <= res.ranked.front().prediction.step_s * (1 + kLeaveDefaultsMargin))
    res.chosen = static_cast<size_t>(d - res.ranked.begin());
  return res;
}

RankedPolicy chooseUpdateTail(const Workload& w, const MachineDescription& m, Policy p,
                              const Prediction& without, double budget, int64_t* evaluated) {
  p.tail_units = 0;
  RankedPolicy none{p, without};
  Policy probe = p;
  probe.tail_units = 1;
  if (w.L < 1 || !earlyAgreement(w, probe)) return none;  // M would only reorder the hand-offs
  std::map<int, Prediction> priced;
  auto price = [&](int M) -> const Prediction* {
    if (M < 1 || M > w.L) return nullptr;
    auto it = priced.find(M);
    if (it == priced.end()) {
      Policy q = p;
      q.tail_units = M;
      it = priced.emplace(M, predict(w, m, q, budget)).first;
      if (evaluated) ++*evaluated;
    }
    return it->second.fits_gpu && it->second.fits_host ? &it->second : nullptr;
  };
  const int step = std::max<int>(1, static_cast<int>(w.L / 8));
  int best = 0;
  double best_s = without.step_s;
  auto consider = [&](int M) {
    if (const Prediction* pr = price(M); pr && pr->step_s < best_s) best = M, best_s = pr->step_s;
  };
  for (int M = step; M <= w.L; M += step) consider(M);
  consider(static_cast<int>(w.L));
  const int coarse = best;
  for (int M = coarse - step + 1; M < coarse + step; ++M) consider(M);
  if (best == 0 || !(best_s < without.step_s * (1 - kUpdateTailMargin))) return none;
  // the smallest M within 0.5% of the best (fewer gradients held on the GPU), itself past the margin
  for (const auto& [M, pr] : priced)
    if (M < best && pr.fits_gpu && pr.fits_host && pr.step_s <= best_s * 1.005 &&
        pr.step_s < without.step_s * (1 - kUpdateTailMargin)) {
      best = M;
      break;
    }
  p.tail_units = best;
  return {p, priced.at(best)};
}

bool hasPipelineDefaults(const Policy& p) {
  const Policy defaults;
  return p.chunk_numel == defaults.chunk_numel && p.ring_slots == defaults.ring_slots &&
         p.window == defaults.window;
}

}  // namespace slidedp::planner
