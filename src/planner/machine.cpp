#include "planner/machine.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include "common/errors.h"

namespace slidedp::planner {

int MachineDescription::leaderCores(int G) const {
  if (host.leader_cores > 0) return std::min(host.leader_cores, host.cores);  // no more than there are
  return defaultLeaderCores(host.cores, G);
}

int MachineDescription::defaultLeaderCores(int cores, int G) {
  return std::max(1, cores - 4 * G);  // launcher/slidedp-run: 4 cores per worker by default
}

double MachineDescription::adamwBytesPerSecond(int threads) const {
  const auto& t = host.adamw_gbps;
  if (t.empty()) throwUserError("machine '{}' has no AdamW rate (host.adamw_gbps)", name);
  if (threads <= t.begin()->first) return t.begin()->second * 1e9 * threads / t.begin()->first;
  auto hi = t.lower_bound(threads);
  if (hi == t.end()) return t.rbegin()->second * 1e9;
  if (hi->first == threads) return hi->second * 1e9;
  auto lo = std::prev(hi);
  const double f = double(threads - lo->first) / double(hi->first - lo->first);
  return (lo->second + f * (hi->second - lo->second)) * 1e9;
}

double MachineDescription::usableGpuBytes() const {
  const double gib = gpu.usable_gib > 0 ? gpu.usable_gib : gpu.memory_gib - 3.0;
  return gib * double(1ull << 30);
}

void MachineDescription::validate(const std::string& where) const {
  auto pos = [&](double v, const char* key) {
    if (!(v > 0) || !std::isfinite(v))
      throwUserError("{}: '{}' must be a positive number, got {}.\nHINT: see src/planner/machine.h "
                     "for the file format and tools/machines/ for examples", where, key, v);
  };
  // optional amounts: finite and >= 0 (0: unset or none); a step time of -8 s or inf would
  // otherwise rank policies by nonsense and announce it
  auto nonneg = [&](double v, const char* key, double most) {
    if (!(v >= 0) || !(v <= most))
      throwUserError("{}: '{}' must be a number in [0, {}], got {}.\nHINT: see src/planner/machine.h "
                     "for the file format and tools/machines/ for examples", where, key, most, v);
  };
  if (gpus < 1) throwUserError("{}: 'gpus' must be >= 1, got {}", where, gpus);
  if (!cpu_workers) pos(gpu.memory_gib, "gpu.memory_gib");
  pos(gpu.h2d_gbps, "gpu.h2d_gbps");
  pos(gpu.d2h_gbps, "gpu.d2h_gbps");
  pos(gpu.collective_gbps, "gpu.collective_gbps");
  pos(gpu.fwd_tflops, "gpu.fwd_tflops");
  pos(gpu.bwd_tflops, "gpu.bwd_tflops");
  pos(gpu.recompute_tflops, "gpu.recompute_tflops");
  if (gpu.attention_recompute_tflops != 0) pos(gpu.attention_recompute_tflops, "gpu.attention_recompute_tflops");
  pos(gpu.head_tflops, "gpu.head_tflops");
  pos(gpu.duplex, "gpu.duplex");
  if (gpu.duplex > 1)
    throwUserError("{}: 'gpu.duplex' (each direction's share of its rate while both run) must be in "
                   "(0, 1], got {}", where, gpu.duplex);
  nonneg(gpu.usable_gib, "gpu.usable_gib", cpu_workers ? 1e6 : gpu.memory_gib);
  nonneg(gpu.context_gib, "gpu.context_gib", cpu_workers ? 1e6 : gpu.memory_gib);
  nonneg(gpu.h2d_all_gbps, "gpu.h2d_all_gbps", 1e6);
  nonneg(gpu.d2h_all_gbps, "gpu.d2h_all_gbps", 1e6);
  nonneg(gpu.layer_overhead_s, "gpu.layer_overhead_s", 60.0);  // CPU workers time a whole small forward
  nonneg(host.chunk_overhead_s, "host.chunk_overhead_s", 1.0);
  nonneg(host.step_overhead_s, "host.step_overhead_s", 60.0);
  nonneg(network.latency_s, "network.latency_s", 1.0);
  pos(host.mem_bw_gbps, "host.mem_bw_gbps");
  pos(host.ram_gib, "host.ram_gib");
  if (host.cores < 1) throwUserError("{}: 'host.cores' must be >= 1", where);
  if (host.leader_cores < 0)
    throwUserError("{}: 'host.leader_cores' must be >= 0 (0: the launcher's split), got {}", where,
                   host.leader_cores);
  if (network.nodes < 1) throwUserError("{}: 'network.nodes' must be >= 1, got {}", where, network.nodes);
  if (network.nodes > 1) {
    pos(network.gbps, "network.gbps");
    if (!(network.efficiency > 0 && network.efficiency <= 1))
      throwUserError("{}: 'network.efficiency' must be in (0, 1], got {}", where, network.efficiency);
  }
  // (a reserve without its tokens or model shape, as calibrations of 958c8d2 wrote, is never
  // used: calibratedReserveBytes matches both)
  if (!(gpu.reserve_gib >= 0 && std::isfinite(gpu.reserve_gib)) ||
      !(gpu.reserve_tokens >= 0 && std::isfinite(gpu.reserve_tokens)))
    throwUserError("{}: 'gpu.reserve_gib' ({}) and 'gpu.reserve_tokens' ({}) must be numbers >= 0.\nHINT: "
                   "leave them 0 (not measured) unless calibration wrote them", where, gpu.reserve_gib,
                   gpu.reserve_tokens);
  if (!(host.update_dma_share >= 0 && host.update_dma_share <= 1))
    throwUserError("{}: 'host.update_dma_share' must be in [0, 1], got {}", where, host.update_dma_share);
  if (host.adamw_gbps.empty())
    throwUserError("{}: 'host.adamw_gbps' (AdamW bytes/s by thread count) is empty", where);
  for (const auto& [th, r] : host.adamw_gbps) {
    if (th < 1) throwUserError("{}: host.adamw_gbps has thread count {} < 1", where, th);
    pos(r, "host.adamw_gbps[...]");
  }
}

nlohmann::json toJson(const MachineDescription& m) {
  nlohmann::json adam = nlohmann::json::object();
  for (const auto& [th, r] : m.host.adamw_gbps) adam[std::to_string(th)] = r;
  return {{"name", m.name},
          {"source", m.source},
          {"gpus", m.gpus},
          {"cpu_workers", m.cpu_workers},
          {"gpu",
           {{"model", m.gpu.model}, {"memory_gib", m.gpu.memory_gib}, {"usable_gib", m.gpu.usable_gib},
            {"pcie", m.gpu.pcie}, {"h2d_gbps", m.gpu.h2d_gbps}, {"d2h_gbps", m.gpu.d2h_gbps},
            {"h2d_all_gbps", m.gpu.h2d_all_gbps}, {"d2h_all_gbps", m.gpu.d2h_all_gbps},
            {"duplex", m.gpu.duplex}, {"peer_access", m.gpu.peer_access},
            {"collective_gbps", m.gpu.collective_gbps}, {"fwd_tflops", m.gpu.fwd_tflops},
            {"bwd_tflops", m.gpu.bwd_tflops}, {"recompute_tflops", m.gpu.recompute_tflops},
            {"attention_recompute_tflops", m.gpu.attention_recompute_tflops},
            {"head_tflops", m.gpu.head_tflops}, {"layer_overhead_s", m.gpu.layer_overhead_s},
            {"context_gib", m.gpu.context_gib}, {"reserve_gib", m.gpu.reserve_gib},
            {"reserve_tokens", m.gpu.reserve_tokens}, {"reserve_shape", m.gpu.reserve_shape}}},
          {"host",
           {{"cores", m.host.cores}, {"leader_cores", m.host.leader_cores},
            {"mem_bw_gbps", m.host.mem_bw_gbps}, {"ram_gib", m.host.ram_gib}, {"adamw_gbps", adam},
            {"chunk_overhead_s", m.host.chunk_overhead_s},
            {"step_overhead_s", m.host.step_overhead_s},
            {"update_dma_share", m.host.update_dma_share}}},
          {"network", {{"nodes", m.network.nodes}, {"gbps", m.network.gbps},
                       {"latency_s", m.network.latency_s}, {"efficiency", m.network.efficiency}}},
          {"provenance", m.provenance}};
}

namespace {

/// Reads the keys of object `j` into fields, refusing unknown keys.
class Reader {
 public:
  Reader(const nlohmann::json& j, std::string where) : j_(j), where_(std::move(where)) {
    if (!j_.is_object()) throwUserError("{}: expected a JSON object", where_);
  }
  template <typename T>
  void get(const char* key, T& out, bool required = false) {
    seen_.insert(key);
    if (!j_.contains(key)) {
      if (required) throwUserError("{}: the key '{}' is missing.\nHINT: see src/planner/machine.h "
                                   "for the file format", where_, key);
      return;
    }
    try {
      out = j_.at(key).get<T>();
    } catch (const nlohmann::json::exception& e) {
      throwUserError("{}: '{}' has the wrong type ({})", where_, key, e.what());
    }
  }
  const nlohmann::json& sub(const char* key) {
    seen_.insert(key);
    if (!j_.contains(key)) throwUserError("{}: the object '{}' is missing", where_, key);
    return j_.at(key);
  }
  void done() const {
    for (const auto& [k, v] : j_.items())
      if (!seen_.count(k)) throwUserError("{}: unknown key '{}'.\nHINT: see src/planner/machine.h "
                                          "for the keys a machine description has", where_, k);
  }

 private:
  const nlohmann::json& j_;
  std::string where_;
  std::set<std::string> seen_;
};

}  // namespace

MachineDescription machineFromJson(const nlohmann::json& j, const std::string& where) {
  MachineDescription m;
  Reader r(j, where);
  r.get("name", m.name, true);
  r.get("source", m.source);
  r.get("gpus", m.gpus, true);
  r.get("cpu_workers", m.cpu_workers);
  r.get("provenance", m.provenance);
  {
    Reader g(r.sub("gpu"), where + ": gpu");
    g.get("model", m.gpu.model);
    g.get("memory_gib", m.gpu.memory_gib, !m.cpu_workers);
    g.get("usable_gib", m.gpu.usable_gib);
    g.get("pcie", m.gpu.pcie);
    g.get("h2d_gbps", m.gpu.h2d_gbps, true);
    g.get("d2h_gbps", m.gpu.d2h_gbps, true);
    g.get("h2d_all_gbps", m.gpu.h2d_all_gbps);
    g.get("d2h_all_gbps", m.gpu.d2h_all_gbps);
    g.get("duplex", m.gpu.duplex);
    g.get("peer_access", m.gpu.peer_access);
    g.get("collective_gbps", m.gpu.collective_gbps, true);
    g.get("fwd_tflops", m.gpu.fwd_tflops, true);
    g.get("bwd_tflops", m.gpu.bwd_tflops, true);
    g.get("recompute_tflops", m.gpu.recompute_tflops, true);
    g.get("attention_recompute_tflops", m.gpu.attention_recompute_tflops);
    g.get("head_tflops", m.gpu.head_tflops, true);
    g.get("layer_overhead_s", m.gpu.layer_overhead_s);
    g.get("context_gib", m.gpu.context_gib);
    g.get("reserve_gib", m.gpu.reserve_gib);
    g.get("reserve_tokens", m.gpu.reserve_tokens);
    g.get("reserve_shape", m.gpu.reserve_shape);
    g.done();
  }
  {
    Reader h(r.sub("host"), where + ": host");
    h.get("cores", m.host.cores, true);
    h.get("leader_cores", m.host.leader_cores);
    h.get("mem_bw_gbps", m.host.mem_bw_gbps, true);
    h.get("ram_gib", m.host.ram_gib, true);
    std::map<std::string, double> adam;
    h.get("adamw_gbps", adam, true);
    for (const auto& [k, v] : adam) {
      size_t used = 0;
      int th = 0;
      try {
        th = std::stoi(k, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != k.size() || k.empty())
        throwUserError("{}: host.adamw_gbps key '{}' is not a thread count", where, k);
      m.host.adamw_gbps[th] = v;
    }
    h.get("chunk_overhead_s", m.host.chunk_overhead_s);
    h.get("step_overhead_s", m.host.step_overhead_s);
    h.get("update_dma_share", m.host.update_dma_share);
    h.done();
  }
  if (j.contains("network")) {
    Reader n(r.sub("network"), where + ": network");
    n.get("nodes", m.network.nodes);
    n.get("gbps", m.network.gbps);
    n.get("latency_s", m.network.latency_s);
    n.get("efficiency", m.network.efficiency);
    n.done();
  }
  r.done();
  m.validate(where);
  return m;
}

MachineDescription loadMachine(const std::string& path) {
  std::error_code ec;
  std::ifstream f;
  if (std::filesystem::is_regular_file(path, ec)) f.open(path);
  if (!f.is_open())
    throwUserError("machine description '{}' cannot be read (not a readable file).\nHINT: tools/machines/ "
                   "has examples (h200x1.json, rtx4090x4.json, ...)", path);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(f);
  } catch (const nlohmann::json::exception& e) {  // also a number beyond double's range
    throwUserError("machine description '{}' is not valid JSON: {}", path, e.what());
  } catch (const std::exception& e) {  // a read error
    throwUserError("machine description '{}' cannot be read: {}", path, e.what());
  }
  return machineFromJson(j, path);
}

}  // namespace slidedp::planner
