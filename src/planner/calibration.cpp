#include "planner/calibration.h"

#include "common/thread_placement.h"

#include <omp.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <utility>

#include "common/errors.h"
#include "common/median.h"
#include "optim/adamw.h"

namespace slidedp::planner {

namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};
using Buffer = std::unique_ptr<char, FreeDeleter>;
Buffer alloc(size_t bytes) {
  void* p = nullptr;
  if (posix_memalign(&p, 4096, bytes) != 0) throwUserError("calibration: cannot allocate {} bytes", bytes);
  return Buffer(static_cast<char*>(p));
}

/// `reps` timings of f() (seconds), in the order taken.
template <typename F>
std::vector<double> timings(int reps, F&& f) {
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    const double t0 = now();
    f();
    t.push_back(now() - t0);
  }
  return t;
}

/// Best of `reps` timings of f() (seconds).
template <typename F>
double best(int reps, F&& f) {
  const std::vector<double> t = timings(reps, f);
  return *std::min_element(t.begin(), t.end());
}

double meminfoGib(const char* key) {
  std::ifstream f("/proc/meminfo");
  std::string k;
  double kb = 0;
  std::string unit;
  while (f >> k >> kb >> unit)
    if (k == std::string(key) + ":") return kb / (1024.0 * 1024.0);
  return 0;
}

std::string cpuModel() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("model name", 0) == 0) {
      const auto c = line.find(':');
      return c == std::string::npos ? line : line.substr(c + 2);
    }
  return "unknown-cpu";
}

}  // namespace

double firstStepReserveBytes(double layer_peak, double head_peak, double max_unit_numel,
                             double embedding_numel, double boundary_bytes) {
  const double held = 16.0 * max_unit_numel + 4.0 * embedding_numel + 2.0 * boundary_bytes;
  return (std::max(layer_peak, head_peak) + held) * 1.05 + double(int64_t{512} << 20);
}

int timedPasses(bool cuda, double first_pass_s, int iters) {
  iters = std::max(iters, 1);
  return cuda && first_pass_s >= kLongPassS ? 1 : iters;
}

int allowedCpus() { return rankCpuCount(); }

std::vector<int> adamwThreadCounts(std::vector<int> threads, int all, int leader_threads) {
  if (threads.empty())
    for (int t = 1; t <= all; t *= 2) threads.push_back(t);
  if (std::find(threads.begin(), threads.end(), all) == threads.end()) threads.push_back(all);
  if (leader_threads > 0 && leader_threads <= all &&
      std::find(threads.begin(), threads.end(), leader_threads) == threads.end())
    threads.push_back(leader_threads);  // the leader's own count, measured, not interpolated
  return threads;
}

HostRates measureHost(size_t bytes, std::vector<int> threads, int leader_threads, int adamw_passes) {
  HostRates r;
  r.cores = allowedCpus();
  r.ram_gib = meminfoGib("MemTotal");
  r.ram_available_gib = meminfoGib("MemAvailable");
  bytes = std::max<size_t>(bytes / 4096 * 4096, 4096);
  Buffer a = alloc(bytes), b = alloc(bytes);
  std::memset(a.get(), 1, bytes);
  std::memset(b.get(), 2, bytes);
  // one thread's memcpy: a CPU worker's delivery and hand-off (worker.cpp, std::memcpy)
  const double t1 = best(3, [&] { std::memcpy(b.get(), a.get(), bytes); });
  r.copy_gbps = bytes / t1 / 1e9;
  // all threads: host memory bandwidth, read + write
  const int all = r.cores;
  const double tn = best(3, [&] {
#pragma omp parallel for schedule(static) num_threads(all)
    for (int i = 0; i < all; ++i) {
      const size_t lo = bytes / all * i, hi = i + 1 == all ? bytes : bytes / all * (i + 1);
      std::memcpy(b.get() + lo, a.get() + lo, hi - lo);
    }
  });
  r.mem_bw_gbps = 2.0 * bytes / tn / 1e9;
  // the leader's fused AdamW pass (f32 gradient, one slot): 30 bytes moved per parameter, over
  // `bytes` per array (1 GiB by default: 4.5 GiB in all, far beyond any last-level cache; with
  // 64 MiB arrays the 1xH200 host's 16 threads measured 256 GB/s, above its 155 GB/s memcpy,
  // and the model under-predicted leader-bound steps by up to 36%). The rate is the median of
  // `adamw_passes` passes, not the best: a step's update runs for a second or more and meets the
  // host's slow moments too (on the shared 1xH200 VM the best of 3 rated 138-152 GB/s while the
  // jobs' own updates moved 84-130 GB/s, 2026-12-04c results); the range is kept beside it.
  threads = adamwThreadCounts(std::move(threads), all, leader_threads);
  adamw_passes = std::max(1, adamw_passes);
  const int64_t n = static_cast<int64_t>(bytes / 4);
  std::vector<float> master(n, 0.01f), m(n, 0.0f), v(n, 0.0f), grad(n, 1e-3f);
  std::vector<uint16_t> bf(n);
  for (int t : threads) {
    optim::Engine engine(optim::EngineOptions{t, optim::Isa::kAuto, false});
    optim::ChunkState st{master.data(), m.data(), v.data(), bf.data(), n};
    const void* slots[1] = {grad.data()};
    optim::GradView g{slots, 1, optim::DType::kF32};
    optim::AdamWHyper h;
    h.step = 1;
    const optim::StepConstants c = optim::makeStepConstants(h, 1.0f);
    engine.update(st, g, c);  // warm-up (first touch of the team)
    const std::vector<double> tp = timings(adamw_passes, [&] { engine.update(st, g, c); });
    const double moved = 30.0 * double(n) / 1e9;
    r.adamw_gbps[t] = moved / median(tp);
    r.adamw_range_gbps[t] = {moved / *std::max_element(tp.begin(), tp.end()),
                             moved / *std::min_element(tp.begin(), tp.end())};
  }
  return r;
}

std::string deviceFingerprint(bool cuda) {
  if (!cuda) return "device=cpu";
  std::vector<std::string> models;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/proc/driver/nvidia/gpus", ec)) {
    std::ifstream f(e.path() / "information");
    std::string line;
    while (std::getline(f, line))
      if (line.rfind("Model:", 0) == 0) models.push_back(line.substr(line.find_first_not_of(" \t", 6)));
  }
  std::sort(models.begin(), models.end());
  std::string s = "device=cuda;gpus=";
  for (size_t i = 0; i < models.size(); ++i) s += (i ? "," : "") + models[i];
  return s;
}

std::string machineFingerprint(const std::string& device_description) {
  char host[256] = {0};
  gethostname(host, sizeof(host) - 1);
  // the machine's CPUs, not this process's affinity: a run's leader is pinned (numactl)
  return fmt::format("host={};cpu={};cores={};ram={:.0f}GiB;{}", host, cpuModel(),
                     sysconf(_SC_NPROCESSORS_ONLN),
                     meminfoGib("MemTotal"), device_description);
}

CalibrationCache::CalibrationCache(std::string path) : path_(std::move(path)) {
  std::error_code ec;
  if (std::filesystem::exists(path_, ec) && !std::filesystem::is_regular_file(path_, ec))
    throwUserError("calibration cache '{}' is not a file (a directory?).\nHINT: give --calibration "
                   "a file path (default ~/.cache/slidedp/calibration.json)", path_);
  std::ifstream f(path_);
  if (!f) return;
  try {
    data_ = nlohmann::json::parse(f);
  } catch (const nlohmann::json::exception& e) {
    throwUserError("calibration cache '{}' is not valid JSON ({}).\nHINT: delete it, or run with "
                   "--recalibrate", path_, e.what());
  } catch (const std::exception& e) {
    throwUserError("calibration cache '{}' cannot be read ({}).\nHINT: delete it, or give "
                   "--calibration another file", path_, e.what());
  }
  if (!data_.is_object())
    throwUserError("calibration cache '{}' is not a JSON object.\nHINT: delete it", path_);
}

std::optional<MachineDescription> CalibrationCache::find(const std::string& key) const {
  if (!data_.contains(key)) return std::nullopt;
  try {
    return machineFromJson(data_.at(key), path_ + " [" + key + "]");
  } catch (const UserError& e) {
    throwUserError("{}\nHINT: --recalibrate measures this machine again and replaces the entry (or "
                   "delete {})", e.what(), path_);
  }
}

void CalibrationCache::store(const std::string& key, const MachineDescription& m) {
  data_[key] = toJson(m);
  const auto slash = path_.rfind('/');
  if (slash != std::string::npos && slash > 0) {
    const std::string dir = path_.substr(0, slash);
    std::string cmd_dir;
    for (size_t i = 1; i <= dir.size(); ++i)  // mkdir -p
      if (i == dir.size() || dir[i] == '/') {
        cmd_dir = dir.substr(0, i);
        ::mkdir(cmd_dir.c_str(), 0755);
      }
  }
  const std::string tmp = path_ + ".tmp." + std::to_string(getpid());
  {
    std::ofstream f(tmp);
    if (!f) throwUserError("cannot write the calibration cache '{}'.\nHINT: give a writable path "
                           "with --calibration FILE", tmp);
    f << data_.dump(2) << "\n";
  }
  if (std::rename(tmp.c_str(), path_.c_str()) != 0)
    throwUserError("cannot rename {} to {}: {}", tmp, path_, std::strerror(errno));
}

std::string CalibrationCache::defaultPath() {
  if (const char* p = std::getenv("SLIDEDP_CALIBRATION"); p && *p) return p;
  const char* home = std::getenv("HOME");
  return std::string(home && *home ? home : "/tmp") + "/.cache/slidedp/calibration.json";
}

}  // namespace slidedp::planner
