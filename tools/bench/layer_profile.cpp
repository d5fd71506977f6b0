// Per-scope GPU time table from a torch profiler session (see layer_profile.h).
#include "layer_profile.h"

#include <ATen/record_function.h>
#include <c10/cuda/CUDAFunctions.h>
#include <torch/csrc/autograd/profiler_kineto.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <set>
#include <unordered_map>
#include <vector>

namespace slidedp::bench {

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
};

// FLOPs the op's kernels perform (0: not a GEMM or attention op we can count).
double opFlops(const CpuOp& op) {
  const auto& s = op.shapes;
  if (op.name == "aten::mm" || op.name == "aten::addmm") {
    for (size_t i = 0; i + 1 < s.size(); ++i)
      if (s[i].size() == 2 && s[i + 1].size() == 2 && s[i][1] == s[i + 1][0])
        return 2.0 * s[i][0] * s[i][1] * s[i + 1][1];
    return 0;
  }
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

double profileScopes(const std::string& title, const std::function<void()>& work,
                     const std::map<std::string, double>& bytesPerScope,
                     const std::string& tracePath, const Rooflines& roof) {
  const impl::ProfilerConfig cfg(impl::ProfilerState::KINETO, /*report_input_shapes=*/true);
  const std::set<impl::ActivityType> acts{impl::ActivityType::CPU, impl::ActivityType::CUDA};
  prof::prepareProfiler(cfg, acts);
  prof::enableProfiler(cfg, acts, {at::RecordScope::FUNCTION, at::RecordScope::USER_SCOPE});
  work();
  c10::cuda::device_synchronize();
  auto result = prof::disableProfiler();
  if (!tracePath.empty()) result->save(tracePath);

  std::vector<CpuOp> cpu;
  std::vector<GpuAct> gpu, ranges;  // kernels/copies/memsets; the scopes' GPU-time ranges
  constexpr uint8_t kGpuUserAnnotation = 2;  // libkineto::ActivityType::GPU_USER_ANNOTATION
  for (const auto& e : result->events()) {
    if (e.deviceType() == c10::DeviceType::CUDA) {
      if (e.durationNs() == 0) continue;
      (e.activityType() == kGpuUserAnnotation ? ranges : gpu)
          .push_back({e.name(), e.startNs(), e.endNs(), e.linkedCorrelationId()});
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
  // A kernel's scope: the innermost scope range on the GPU timeline that holds it (kernels
  // launched outside any ATen op, e.g. the fused ones, have no linked op), else through the
  // launching op on the CPU timeline.
  auto rangeOf = [&](const GpuAct& g) -> const GpuAct* {
    const GpuAct* best = nullptr;
    for (const auto& r : ranges)
      if (r.start <= g.start && g.end <= r.end && (!best || r.end - r.start < best->end - best->start))
        best = &r;
    return best;
  };
  for (const auto& g : gpu) {
    std::string scope = "(unattributed)";
    const CpuOp* op = nullptr;
    if (auto it = byCorr.find(g.linked); it != byCorr.end()) {
      op = &cpu[it->second];
      scope = scopeOf(*op);
    }
    if (const GpuAct* r = rangeOf(g)) scope = r->name;
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
  // Busy time = union of the activity intervals; idle = span - busy.
  double busy = 0, idle = 0, largestGap = 0;
  int gaps = 0;
  uint64_t curEnd = 0;
  for (const auto& g : gpu) {
    if (curEnd == 0) {
      curEnd = g.end;
      busy += static_cast<double>(g.end - g.start);
      continue;
    }
    if (g.start > curEnd) {
      const double gap = static_cast<double>(g.start - curEnd);
      idle += gap;
      largestGap = std::max(largestGap, gap);
      if (gap > 5000) ++gaps;
      busy += static_cast<double>(g.end - g.start);
      curEnd = g.end;
    } else if (g.end > curEnd) {
      busy += static_cast<double>(g.end - curEnd);
      curEnd = g.end;
    }
  }
  std::vector<const Row*> ordered;
  for (const auto& [k, r] : rows) ordered.push_back(&r);
  std::sort(ordered.begin(), ordered.end(), [](const Row* a, const Row* b) { return a->order < b->order; });
  double sumNs = 0;
  for (const Row* r : ordered) sumNs += r->ns;
  std::printf("PROFILE %s\n", title.c_str());
  std::printf("  %-30s %7s %9s %6s %16s %16s\n", "scope", "kernels", "GPU ms", "share",
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
    std::printf("  %-30s %7d %9.3f %5.1f%% %16s %16s\n", r->scope.c_str(), r->kernels, ms,
                100 * r->ns / std::max(sumNs, 1.0), tf, bw);
  }
  std::printf("  GPU busy %.3f ms over a span of %.3f ms: idle %.3f ms (%.1f%%), %d gaps > 5 us, "
              "largest %.1f us\n", busy * 1e-6, (busy + idle) * 1e-6, idle * 1e-6,
              100 * idle / std::max(busy + idle, 1.0), gaps, largestGap * 1e-3);
  std::vector<std::pair<std::string, std::pair<int, double>>> ks(kernelTotals.begin(), kernelTotals.end());
  std::sort(ks.begin(), ks.end(), [](const auto& a, const auto& b) { return a.second.second > b.second.second; });
  std::printf("  top kernels:\n");
  for (size_t i = 0; i < ks.size() && i < 14; ++i)
    std::printf("    %8.3f ms %4d x  %.110s\n", ks[i].second.second * 1e-6, ks[i].second.first,
                ks[i].first.c_str());
  return busy * 1e-6;
}

}  // namespace slidedp::bench
