#include "planner/report.h"

#include <fmt/format.h>

namespace slidedp::planner {

namespace {
constexpr double kGiB = double(1ull << 30);
}

std::string tableHeader() {
  return fmt::format("{:<56} {:>7} {:>8} | {:>6} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6} | {:>6} {:>6} {:>6} | {:<10} {:>6} {:>7}",
                     "policy", "step_s", "tok/s", "gpu", "h2d", "d2h", "h2dAll", "d2hAll", "nvlink",
                     "hostBW", "update", "fill", "drain", "expos", "bottleneck", "GPUGiB", "hostGiB");
}

std::string formatRow(const std::string& label, const Prediction& p) {
  const ResourceBusy& b = p.busy;
  return fmt::format("{:<56} {:>7.3f} {:>8.0f} | {:>6.3f} {:>6.3f} {:>6.3f} {:>6.3f} {:>6.3f} {:>6.3f} {:>6.3f} {:>6.3f} | {:>6.3f} {:>6.3f} {:>6.3f} | {:<10} {:>6.1f} {:>7.1f}",
                     label, p.step_s, p.tokens_per_s, b.gpu_compute, b.h2d_gpu, b.d2h_gpu, b.h2d_total,
                     b.d2h_total, b.collective, b.host_memory, b.cpu_update, p.fill_s, p.drain_s,
                     p.exposed_s, p.bottleneck, p.gpu_peak_bytes / kGiB, p.host_bytes / kGiB);
}

std::string formatPlan(const Workload& w, const MachineDescription& m, const SearchResult& r,
                       double gpu_budget_bytes, int top) {
  const double budget = gpu_budget_bytes > 0 ? gpu_budget_bytes : m.usableGpuBytes();
  std::string s = fmt::format(
      "plan: {} ({:.3g} B parameters, L {}), {} x {} tokens per step ({} rows per worker), {} {} "
      "worker(s) on {} ({})\n  GPU budget {:.1f} GiB per worker, host RAM {:.0f} GiB, leader {} "
      "cores; {} policies priced, {} over the GPU budget, {} over host RAM{}\n"
      "  busy seconds per resource per step (gpu = one worker's compute stream; h2d/d2h = one "
      "GPU's PCIe direction; *All = every GPU at the all-GPU rate; hostBW = host memory traffic; "
      "update = leader AdamW); fill/drain/expos = exposed pipeline time\n",
      w.model_name, w.parameters / 1e9, w.L, w.global_rows, w.T, w.rowsPerWorker(), w.G,
      w.cuda ? "GPU" : "CPU", m.name, m.source.empty() ? "no source given" : m.source,
      w.cuda ? budget / kGiB : 0.0, m.host.ram_gib, m.leaderCores(w.G), r.evaluated, r.over_gpu_budget,
      r.over_host_ram,
      r.tails_evaluated > 0 ? fmt::format("; each fitting one with its best update tail ({} tails priced)",
                                          r.tails_evaluated)
                            : std::string());
  s += "rank " + tableHeader() + "\n";
  const int n = std::min<int>(top, static_cast<int>(r.ranked.size()));
  for (int i = 0; i < n; ++i)
    s += fmt::format("{:>4} {}\n", i + 1, formatRow(r.ranked[i].policy.label(w.L), r.ranked[i].prediction));
  if (!r.ranked.empty()) {
    const auto& best = r.choice();
    s += fmt::format("best: {} -> {:.3f} s/step, {:.0f} tokens/s, bound by {}{}\n  run it with: {}\n",
                     best.policy.label(w.L), best.prediction.step_s, best.prediction.tokens_per_s,
                     best.prediction.bottleneck,
                     r.chosen == 0 ? std::string()
                                   : fmt::format(" (rank {}: the pipeline defaults, within {:.0f}% of "
                                                 "rank 1, which the model cannot tell apart)",
                                                 r.chosen + 1, 100 * kLeaveDefaultsMargin),
                     best.policy.flags(w.L));
  }
  return s;
}

nlohmann::json toJson(const Prediction& p) {
  nlohmann::json busy = nlohmann::json::object();
  for (const auto& [k, v] : p.busy.items()) busy[k] = v;
  return {{"step_s", p.step_s},       {"tokens_per_s", p.tokens_per_s}, {"busy_s", busy},
          {"fill_s", p.fill_s},       {"drain_s", p.drain_s},           {"clip_s", p.clip_s},
          {"exposed_s", p.exposed_s}, {"bottleneck", p.bottleneck},     {"gpu_peak_bytes", p.gpu_peak_bytes},
          {"host_bytes", p.host_bytes}, {"fits_gpu", p.fits_gpu},       {"fits_host", p.fits_host}};
}

nlohmann::json planJson(const Workload& w, const MachineDescription& m, const SearchResult& r, int top) {
  nlohmann::json j = {{"model", w.model_name}, {"parameters", w.parameters}, {"workers", w.G},
                      {"global_rows", w.global_rows}, {"seq_len", w.T}, {"machine", m.name},
                      {"evaluated", r.evaluated}, {"tails_evaluated", r.tails_evaluated}, {"ranked", nlohmann::json::array()}};
  if (!r.ranked.empty()) {  // what --policy auto runs (SearchResult::chosen)
    nlohmann::json c = toJson(r.choice().prediction);
    c["policy"] = r.choice().policy.label(w.L);
    c["flags"] = r.choice().policy.flags(w.L);
    c["rank"] = r.chosen + 1;
    j["chosen"] = c;
  }
  const int n = std::min<int>(top, static_cast<int>(r.ranked.size()));
  for (int i = 0; i < n; ++i) {
    nlohmann::json e = toJson(r.ranked[i].prediction);
    e["policy"] = r.ranked[i].policy.label(w.L);
    e["flags"] = r.ranked[i].policy.flags(w.L);
    j["ranked"].push_back(e);
  }
  return j;
}

}  // namespace slidedp::planner
