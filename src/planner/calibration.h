// Calibration: the machine's rates measured by the real code paths, turned into a
// MachineDescription, cached in a JSON file keyed by a machine fingerprint and the workload's
// shape (`--recalibrate` measures again). This file is the host half (no LibTorch): host memory
// bandwidth, single-thread copy rate (a CPU worker's "PCIe"), the fused AdamW pass by thread
// count (optim::Engine, the leader's own kernel, f32 gradients, one slot), the fingerprint and
// the cache. The device half (per-layer forward/backward/recompute and head compute at the
// run's shape, H2D/D2H alone and concurrent, free GPU memory) is device_calibration.h.
//
// Threading: call from one thread; the measurements use OpenMP teams of the given sizes.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "planner/machine.h"

namespace slidedp::planner {

struct HostRates {
  double mem_bw_gbps = 0;     // read + write bytes/s, all `threads`, of a large memcpy
  double copy_gbps = 0;       // one thread's memcpy, bytes copied/s
  std::map<int, double> adamw_gbps;  // bytes moved/s (30 B/param) by thread count: the median pass
  std::map<int, std::pair<double, double>> adamw_range_gbps;  // the slowest and fastest pass
  int cores = 1;              // CPUs this process may run on
  double ram_gib = 0;         // MemTotal
  double ram_available_gib = 0;  // MemAvailable
};

/// Measures the host. `bytes` per buffer (two buffers for copies; the AdamW state is
/// bytes / 4 elements of master, m, v, grad, bf16); `threads` the AdamW counts to try
/// (empty: 1, 2, 4, ..., cores), with `leader_threads` added when in 1..cores (the run's leader
/// team: measured rather than interpolated); each AdamW rate is the median of `adamw_passes`
/// passes (memory copies: the best of 3).
HostRates measureHost(size_t bytes = size_t{1} << 30, std::vector<int> threads = {},
                      int leader_threads = 0, int adamw_passes = 5);

/// The AdamW thread counts measureHost times: `threads` (empty: 1, 2, 4, ... up to `all`), then
/// `all`, then `leader_threads` when it is in 1..all, each once, in that order.
std::vector<int> adamwThreadCounts(std::vector<int> threads, int all, int leader_threads);

/// How many timed passes a device measurement takes, given its first timed pass (after the
/// warm-up, whose one-time costs, module loads and library handles, it leaves out) took
/// `first_pass_s` seconds: `iters` (>= 1), except on a GPU where that pass took kLongPassS or
/// more: 1. A GPU pass of a second or more moves by well under 1% between repetitions (one
/// kernel stream, no other work), while 3 repetitions of a long shape's passes cost minutes
/// (589 824 tokens of the 4B shape: a layer's forward 4.4 s, backward 12.2 s; the calibration
/// took 112.5 s with 3 timed passes each, tools/bench/results/2026-12-04e-h200x1-reserve/). CPU
/// passes keep `iters`: their fastest repetition filters a shared host's other work.
inline constexpr double kLongPassS = 1.0;
int timedPasses(bool cuda, double first_pass_s, int iters);

/// What a run's head and backward need above the end-of-forward level, from the allocator peaks
/// device calibration measured (device_calibration.h; bytes above what was allocated before
/// each pass): max(head, layer) + what the runtime holds beside them that the measured passes
/// do not: 4 fp32 gradients of the largest unit (the one being computed and up to 3 queued for
/// the hand-off, worker.cpp kPendingGradients), the embedding's fp32 gradient (a dense
/// embedding update holds it through the backward; `embedding_numel` elements), and 2 layer
/// inputs (the current recomputed layer's and the next one prefetched from pinned host memory,
/// `boundary_bytes` each); then + 5% + 512 MiB. Bytes.
double firstStepReserveBytes(double layer_peak, double head_peak, double max_unit_numel,
                             double embedding_numel, double boundary_bytes);

/// CPUs this rank may run its OpenMP team on (common/thread_placement.h rankCpuCount: its
/// OpenMP places, else its affinity, else the online CPUs).
int allowedCpus();

/// "device=cpu" or the GPU models from /proc/driver/nvidia (no CUDA context is created): the
/// device part of the fingerprint, the same in `slidedp plan` and a run's `--policy auto`.
std::string deviceFingerprint(bool cuda);

/// "host=...;cpu=...;cores=N;ram=NGiB;<device>" (stable across runs on the same machine).
std::string machineFingerprint(const std::string& device_description);

/// The calibration cache: a JSON object { key: machine description JSON }, in `path`.
class CalibrationCache {
 public:
  /// Reads `path` when it exists; a corrupt file is reported (UserError with a HINT to delete it).
  explicit CalibrationCache(std::string path);
  std::optional<MachineDescription> find(const std::string& key) const;
  /// Stores and writes the file (atomically: a temporary then rename).
  void store(const std::string& key, const MachineDescription& m);
  const std::string& path() const { return path_; }
  /// The default: $SLIDEDP_CALIBRATION, else ~/.cache/slidedp/calibration.json.
  static std::string defaultPath();

 private:
  std::string path_;
  nlohmann::json data_ = nlohmann::json::object();
};

}  // namespace slidedp::planner
