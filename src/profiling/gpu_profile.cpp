// Per-scope, per-stream GPU time and the compute stream's gaps from a torch profiler session
// (see gpu_profile.h).
#include "profiling/gpu_profile.h"

#include <ATen/record_function.h>
#include <c10/cuda/CUDAFunctions.h>
#include <torch/csrc/autograd/profiler_kineto.h>

#include <algorithm>
#include <cstdint>
#include <cstdarg>
#include <cstdio>
#include <exception>
#include <set>
#include <unordered_map>
#include <vector>

namespace slidedp::profiling {

namespace {

namespace prof = torch::autograd::profiler;
namespace impl = torch::profiler::impl;

struct CpuOp {
  std::string name;
  uint64_t start = 0, end = 0, thread = 0, corr = 0;
  bool userScope = false;
  std::vector<std::vector<int64_t>> shapes;
};

struct GpuAct {
  std::string name;
  uint64_t start = 0, end = 0, linked = 0;
  int64_t stream = 0;
  std::string scope;  // filled in: innermost profiler scope, or the copy/memset kind
};

void appendf(std::string& out, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void appendf(std::string& out, const char* fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  const int n = std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n > 0) out.append(buf, std::min<size_t>(static_cast<size_t>(n), sizeof buf - 1));
}

// "Memcpy HtoD (Pinned -> Device)" -> "Memcpy HtoD"; "Memset (Device)" -> "Memset"; else "".
std::string copyKind(const std::string& name) {
  if (name.rfind("Memcpy", 0) == 0) {
    const size_t p = name.find(" (");
    return p == std::string::npos ? name : name.substr(0, p);
  }
  if (name.rfind("Memset", 0) == 0) return "Memset";
  return "";
}

// Union of [start, end) intervals sorted by start: busy ns.
double unionNs(const std::vector<const GpuAct*>& acts) {
  double busy = 0;
  uint64_t curEnd = 0;
  for (const GpuAct* g : acts) {
    if (g->start >= curEnd) {
      busy += static_cast<double>(g->end - g->start);
      curEnd = g->end;
    } else if (g->end > curEnd) {
      busy += static_cast<double>(g->end - curEnd);
      curEnd = g->end;
    }
  }
  return busy;
}

// FLOPs the op's kernels perform (0: not a GEMM or attention op we can count).
double opFlops(const CpuOp& op) {
  const auto& s = op.shapes;
  if (op.name == "aten::mm" || op.name == "aten::addmm" || op.name == "slidedp::mm" ||
      op.name == "slidedp::mm_accumulate") {  // the last two: kernels/layer_gemm.h (a, b)
    for (size_t i = 0; i + 1 < s.size(); ++i)
      if (s[i].size() == 2 && s[i + 1].size() == 2 && s[i][1] == s[i + 1][0])
        return 2.0 * s[i][0] * s[i][1] * s[i + 1][1];
    return 0;
  }
  // kernels/residual_gemm.h: residual [N, M], x [N, K], w [M, K]
  if (op.name == "slidedp::addmm_residual" && s.size() == 3 && s[1].size() == 2 && s[2].size() == 2)
    return 2.0 * s[1][0] * s[1][1] * s[2][0];
  const bool attention = op.name.find("scaled_dot_product") != std::string::npos ||
                         op.name.find("flash_attention") != std::string::npos ||
                         op.name.find("cudnn_attention") != std::string::npos;
  if (attention && !s.empty() && s[0].size() == 4) {
    const double B = s[0][0], H = s[0][1], T = s[0][2], D = s[0][3];
    const double fwd = 2.0 * B * H * T * T * D;  // causal: half of 4*B*H*T^2*D
    return op.name.find("backward") != std::string::npos ? 2.5 * fwd : fwd;
  }
  return 0;
}

}  // namespace

ProfileResult profileScopes(const std::string& title, const std::function<void()>& work,
                            const std::map<std::string, double>& bytesPerScope,
                            const std::string& tracePath, const Rooflines& roof) {
  const impl::ProfilerConfig cfg(impl::ProfilerState::KINETO, /*report_input_shapes=*/true);
  const std::set<impl::ActivityType> acts{impl::ActivityType::CPU, impl::ActivityType::CUDA};
  prof::prepareProfiler(cfg, acts);
  prof::enableProfiler(cfg, acts, {at::RecordScope::FUNCTION, at::RecordScope::USER_SCOPE});
  try {
    work();
    c10::cuda::device_synchronize();
  } catch (...) {
    prof::disableProfiler();
    throw;
  }
  auto result = prof::disableProfiler();
  if (!tracePath.empty()) result->save(tracePath);

  std::vector<CpuOp> cpu;
  std::vector<GpuAct> gpu, ranges;  // kernels/copies/memsets; the scopes' GPU-time ranges
  constexpr uint8_t kGpuUserAnnotation = 2;  // libkineto::ActivityType::GPU_USER_ANNOTATION
  for (const auto& e : result->events()) {
    if (e.deviceType() == c10::DeviceType::CUDA) {
      if (e.durationNs() == 0) continue;
      (e.activityType() == kGpuUserAnnotation ? ranges : gpu)
          .push_back({e.name(), e.startNs(), e.endNs(), e.linkedCorrelationId(), e.deviceResourceId(), {}});
    } else if (e.deviceType() == c10::DeviceType::CPU && e.correlationId() != 0) {
      CpuOp op{e.name(), e.startNs(), e.endNs(), e.startThreadId(), e.correlationId(),
               e.scope() == static_cast<uint8_t>(at::RecordScope::USER_SCOPE), {}};
      if (e.hasShapes())
        for (const auto& sh : e.shapes()) op.shapes.push_back(sh);
      cpu.push_back(std::move(op));
    }
  }
  std::unordered_map<uint64_t, size_t> byCorr;
  for (size_t i = 0; i < cpu.size(); ++i) byCorr[cpu[i].corr] = i;
  std::vector<size_t> scopes;  // user scopes, for the innermost-enclosing search
  for (size_t i = 0; i < cpu.size(); ++i)
    if (cpu[i].userScope) scopes.push_back(i);
  auto scopeOf = [&](const CpuOp& op) -> std::string {
    if (op.userScope) return op.name;
    const CpuOp* best = nullptr;
    for (size_t i : scopes) {
      const CpuOp& u = cpu[i];
      if (u.thread == op.thread && u.start <= op.start && op.end <= u.end &&
          (!best || u.end - u.start < best->end - best->start))
        best = &u;
    }
    return best ? best->name : "(no scope)";
  };

  struct Row {
    std::string scope;
    int kernels = 0;
    double ns = 0, flops = 0;
    std::set<uint64_t> ops;
    size_t order = 0;
  };
  std::map<std::string, Row> rows;
  std::map<std::string, std::pair<int, double>> kernelTotals;  // kernel name -> (count, ns)
  std::sort(gpu.begin(), gpu.end(), [](const GpuAct& a, const GpuAct& b) { return a.start < b.start; });
  std::sort(ranges.begin(), ranges.end(), [](const GpuAct& a, const GpuAct& b) { return a.start < b.start; });
  // A kernel's scope: the innermost scope range on the GPU timeline that holds it (kernels
  // launched outside any ATen op, e.g. the fused ones, have no linked op), else through the
  // launching op on the CPU timeline. Copies and memsets are named by their kind.
  auto rangeOf = [&](const GpuAct& g) -> const GpuAct* {
    const GpuAct* best = nullptr;
    for (const auto& r : ranges) {
      if (r.start > g.start) break;
      if (g.end <= r.end && (!best || r.end - r.start < best->end - best->start))
        best = &r;
    }
    return best;
  };
  for (auto& g : gpu) {
    std::string scope = copyKind(g.name);
    const CpuOp* op = nullptr;
    if (scope.empty()) {
      scope = "(unattributed)";
      if (auto it = byCorr.find(g.linked); it != byCorr.end()) {
        op = &cpu[it->second];
        scope = scopeOf(*op);
      }
      if (const GpuAct* r = rangeOf(g)) scope = r->name;
    }
    g.scope = scope;
    Row& r = rows[scope];
    if (r.kernels == 0) r.order = rows.size();
    r.scope = scope;
    ++r.kernels;
    r.ns += static_cast<double>(g.end - g.start);
    if (op && !op->userScope && r.ops.insert(op->corr).second) r.flops += opFlops(*op);
    auto& k = kernelTotals[g.name];
    ++k.first;
    k.second += static_cast<double>(g.end - g.start);
  }

  // Per stream; the compute stream is the one with the most kernel (not copy) time.
  struct StreamStat {
    std::vector<const GpuAct*> acts;
    int kernels = 0, copies = 0;
    double kernelNs = 0, copyNs = 0;
  };
  std::map<int64_t, StreamStat> streams;
  for (const auto& g : gpu) {
    StreamStat& s = streams[g.stream];
    s.acts.push_back(&g);
    const bool copy = g.name.rfind("Memcpy", 0) == 0 || g.name.rfind("Memset", 0) == 0;
    (copy ? s.copies : s.kernels) += 1;
    (copy ? s.copyNs : s.kernelNs) += static_cast<double>(g.end - g.start);
  }
  int64_t compute = -1;
  double most = -1;
  for (const auto& [id, s] : streams)
    if (s.kernelNs > most) most = s.kernelNs, compute = id;

  ProfileResult res;
  std::string& out = res.table;
  std::vector<const Row*> ordered;
  for (const auto& [k, r] : rows) ordered.push_back(&r);
  std::sort(ordered.begin(), ordered.end(), [](const Row* a, const Row* b) { return a->order < b->order; });
  double sumNs = 0;
  for (const Row* r : ordered) sumNs += r->ns;
  appendf(out, "PROFILE %s\n", title.c_str());
  if (gpu.empty())
    appendf(out, "  no GPU activity was recorded: CUPTI is unavailable or not permitted here (e.g. "
                 "NVreg_RestrictProfilingToAdminUsers=1 for a non-root user)\n");
  appendf(out, "  %-30s %7s %9s %6s %16s %16s\n", "scope", "kernels", "GPU ms", "share",
          "TFLOPS (of roof)", "GB/s (of roof)");
  for (const Row* r : ordered) {
    const double ms = r->ns * 1e-6;
    char tf[32] = "-", bw[32] = "-";
    if (r->flops > 0) {
      const double t = r->flops / (r->ns * 1e-9) / 1e12;
      std::snprintf(tf, sizeof tf, "%.0f (%.0f%%)", t, 100 * t / roof.gemmTflops);
    }
    if (auto it = bytesPerScope.find(r->scope); it != bytesPerScope.end()) {
      const double gbs = it->second / (r->ns * 1e-9) / 1e9;
      std::snprintf(bw, sizeof bw, "%.0f (%.0f%%)", gbs, 100 * gbs / roof.hbmGBs);
    }
    appendf(out, "  %-30.30s %7d %9.3f %5.1f%% %16s %16s\n", r->scope.c_str(), r->kernels, ms,
            100 * r->ns / std::max(sumNs, 1.0), tf, bw);
  }
  appendf(out, "  streams (the compute stream: most kernel time):\n");
  for (const auto& [id, s] : streams)
    appendf(out, "    stream %-6lld %s %6d kernels %10.3f ms, %6d copies/memsets %10.3f ms; busy %.3f ms\n",
            static_cast<long long>(id), id == compute ? "compute" : "       ", s.kernels, s.kernelNs * 1e-6,
            s.copies, s.copyNs * 1e-6, unionNs(s.acts) * 1e-6);

  // The compute stream's busy time, span and idle gaps, by what ran before and after each gap.
  if (compute >= 0) {
    const auto& cs = streams[compute].acts;
    const double busy = unionNs(cs);
    uint64_t first = cs.front()->start, last = 0;
    for (const GpuAct* g : cs) last = std::max<uint64_t>(last, g->end);
    const double span = static_cast<double>(last - first);
    struct Gap {
      double ns;
      uint64_t at;
      const GpuAct *before, *after;
    };
    std::vector<Gap> gaps;
    std::map<std::pair<std::string, std::string>, std::pair<int, double>> byPair;
    uint64_t curEnd = 0;
    const GpuAct* prev = nullptr;
    for (const GpuAct* g : cs) {
      if (prev && g->start > curEnd) {
        const double ns = static_cast<double>(g->start - curEnd);
        gaps.push_back({ns, curEnd - first, prev, g});
        auto& p = byPair[{prev->scope, g->scope}];
        ++p.first;
        p.second += ns;
      }
      if (g->end > curEnd) curEnd = g->end, prev = g;
    }
    double idle = 0;
    int over5 = 0;
    for (const Gap& x : gaps) idle += x.ns, over5 += x.ns > 5000;
    res.computeBusyMs = busy * 1e-6;
    res.computeSpanMs = span * 1e-6;
    appendf(out, "  compute stream: busy %.3f ms over a span of %.3f ms: idle %.3f ms (%.1f%%), "
            "%zu gaps, %d > 5 us\n", busy * 1e-6, span * 1e-6, idle * 1e-6,
            100 * idle / std::max(span, 1.0), gaps.size(), over5);
    std::vector<std::pair<std::pair<std::string, std::string>, std::pair<int, double>>> pairs(byPair.begin(), byPair.end());
    std::sort(pairs.begin(), pairs.end(), [](const auto& a, const auto& b) { return a.second.second > b.second.second; });
    appendf(out, "  compute-stream idle by (scope before -> scope after), largest sums:\n");
    for (size_t i = 0; i < pairs.size() && i < 12; ++i)
      appendf(out, "    %9.3f ms %5d x  %s -> %s\n", pairs[i].second.second * 1e-6, pairs[i].second.first,
              pairs[i].first.first.c_str(), pairs[i].first.second.c_str());
    std::sort(gaps.begin(), gaps.end(), [](const Gap& a, const Gap& b) { return a.ns > b.ns; });
    appendf(out, "  largest compute-stream gaps (offset from the stream's first activity):\n");
    for (size_t i = 0; i < gaps.size() && i < 10; ++i)
      appendf(out, "    %9.3f ms at +%.3f ms  %s -> %s\n", gaps[i].ns * 1e-6, gaps[i].at * 1e-6,
              gaps[i].before->scope.c_str(), gaps[i].after->scope.c_str());
  }
  std::vector<std::pair<std::string, std::pair<int, double>>> ks(kernelTotals.begin(), kernelTotals.end());
  std::sort(ks.begin(), ks.end(), [](const auto& a, const auto& b) { return a.second.second > b.second.second; });
  appendf(out, "  top kernels:\n");
  for (size_t i = 0; i < ks.size() && i < 14; ++i)
    appendf(out, "    %8.3f ms %4d x  %.110s\n", ks[i].second.second * 1e-6, ks[i].second.first,
            ks[i].first.c_str());
  return res;
}

}  // namespace slidedp::profiling
