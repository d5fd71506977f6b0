// bench_adamw: throughput of the fused host AdamW pass (optim::Engine) beside the machine's
// memory bandwidth measured in the same run with a STREAM-like triad on the same threads.
//
// Design decision: bandwidth is counted as bytes the pass must move per parameter, the same way
// for both: triad 12 B (read b, c; write a), AdamW G x (2|4) B of gradient + master 4 r/w +
// m 4 r/w + v 4 r/w + bf16 copy 2 w = G x (2|4) + 26 B (write-allocate reads not counted, as
// STREAM does). "% triad" is the fused pass's effective GB/s over the triad's GB/s.
//
// Usage: bench_adamw [--n PARAMS] [--threads T] [--reps R] [--isa auto|scalar|avx2|avx512|
//                     avx512bf16] [--slots 1,2,4] [--dtypes f32,bf16] [--stream] [--prefetch E]
//                     [--memory anon|shm]
// (--help: each option with its default.) Prints one "RESULT ..." line per measurement (parsed
// by bench_adamw.sh). A bad option or value, or an ISA this CPU lacks: a message and exit 2.
#include <fcntl.h>
#include <omp.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "bench_cli.h"     // defines: the command line (CLI11) and its validators
#include "common/bf16.h"   // defines: floatToBf16
#include "optim/adamw.h"   // defines: Engine, the pass measured

using namespace slidedp::optim;
namespace bench = slidedp::bench;

namespace {

struct Options {
  int64_t n = int64_t{256} << 20;
  int threads = 0;
  int reps = 9;
  std::string isa = "auto";
  std::vector<int> slots = {1, 2, 4};
  std::vector<std::string> dtypes = {"f32", "bf16"};
  bool stream = false;
  int64_t prefetch = -1;
  std::string memory = "anon";
};

// "256M" -> "268435456": a count with an optional K, M or G suffix (powers of 1024, either
// case; a fraction is allowed and the product truncated: 0.5K = 512), as a CLI11 transform
// (no description of its own: the option's type name, COUNT, says it in --help).
const CLI::Validator kCountWithSuffix(
    [](std::string& v) -> std::string {
      char* end = nullptr;
      double x = std::strtod(v.c_str(), &end);
      if (v.empty() || end == v.c_str() || !std::isfinite(x))
        return "must be a count such as 268435456 or 256M, got '" + v + "'";
      const std::string suffix = end;
      if (suffix == "K" || suffix == "k") x *= 1 << 10;
      else if (suffix == "M" || suffix == "m") x *= 1 << 20;
      else if (suffix == "G" || suffix == "g") x *= 1 << 30;
      else if (!suffix.empty())
        return "must be a count with an optional K, M or G suffix (256M), got '" + v + "'";
      if (!(std::fabs(x) < 9.2e18)) return "is too large: '" + v + "'";
      v = std::to_string(static_cast<int64_t>(x));
      return std::string();
    },
    "");

// Exits (--help, a bad option or value) before any work; returns the options otherwise.
Options parseArgs(int argc, char** argv) {
  Options o;
  CLI::App app{"bench_adamw: the fused host AdamW pass (optim::Engine) vs a STREAM-like triad on "
               "the same threads, in GB/s; one RESULT line per measurement",
               "bench_adamw"};
  app.add_option("--n", o.n,
                 "Parameters per pass (elements; K/M/G suffix = 2^10/2^20/2^30, e.g. 256M)")
      ->transform(kCountWithSuffix)
      ->type_name("COUNT")
      ->check(bench::intAtLeast(1))
      ->capture_default_str();
  app.add_option("--threads", o.threads, "OpenMP threads for both passes; 0: omp_get_max_threads()")
      ->check(bench::intAtLeast(0))
      ->capture_default_str();
  app.add_option("--reps", o.reps, "Timed repetitions after one warm-up; the median is reported")
      ->check(bench::intAtLeast(1))
      ->capture_default_str();
  app.add_option("--isa", o.isa, "Engine ISA path (auto: the best this CPU supports)")
      ->check(CLI::IsMember({"auto", "scalar", "avx2", "avx512", "avx512bf16"}))
      ->capture_default_str();
  app.add_option("--slots", o.slots, "Gradient slot counts G to measure, comma-separated")
      ->delimiter(',')
      ->check(bench::intInRange(1, kMaxSlots))
      ->capture_default_str();
  app.add_option("--dtypes", o.dtypes, "Gradient dtypes to measure, comma-separated")
      ->delimiter(',')
      ->check(CLI::IsMember({"f32", "bf16"}))
      ->capture_default_str();
  app.add_flag("--stream", o.stream,
               "Non-temporal stores for the bf16 copy (EngineOptions::streamCopy)");
  app.add_option("--prefetch", o.prefetch, "Software prefetch distance, elements (K/M/G suffix); "
                 "0: off; -1: the engine default ($SLIDEDP_OPTIM_PREFETCH, else "
                 "kDefaultPrefetchElems = 1024)")
      ->transform(kCountWithSuffix)
      ->type_name("COUNT")
      ->check(bench::intAtLeast(-1))
      ->capture_default_str();
  app.add_option("--memory", o.memory, "Where the buffers live: anon (the process's memory, "
                 "transparent huge pages where allowed) or shm (a /dev/shm file mapped shared, "
                 "as the runtime's host segment)")
      ->check(CLI::IsMember({"anon", "shm"}))
      ->capture_default_str();
  if (const auto rc = bench::parseCommandLine(app, argc, argv)) std::exit(*rc);
  return o;
}

// --memory: where the buffers live. anon: the process's own memory (transparent huge pages
// where the kernel allows: THP "madvise" or "always"); shm: a POSIX shared-memory file in
// /dev/shm mapped MAP_SHARED, as the runtime's host segment (shm/segment.cpp, Boost.Interprocess)
// holds the state: huge pages there only where tmpfs allows them (shmem_enabled, huge=).
bool g_shm = false;

// Page-aligned buffer (2 MiB, transparent huge pages where the kernel allows), untouched:
// the caller first-touches it with the benchmark's partition.
struct Buffer {
  void* p = nullptr;
  size_t bytes = 0, mapped = 0;
  explicit Buffer(size_t b) : bytes(b) {
    const size_t align = size_t{2} << 20;
    mapped = (b + align - 1) / align * align;
    if (g_shm) {
      static int count = 0;
      const std::string name = "/slidedp-bench-adamw-" + std::to_string(getpid()) + "-" + std::to_string(count++);
      const int fd = shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
      if (fd >= 0) shm_unlink(name.c_str());  // gone with the mapping
      if (fd < 0 || ftruncate(fd, static_cast<off_t>(mapped)) != 0 ||
          (p = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED) {
        std::fprintf(stderr, "bench_adamw: cannot map %zu bytes of /dev/shm%s: %s\n", mapped,
                     name.c_str(), std::strerror(errno));
        std::exit(1);
      }
      close(fd);
    } else {
      p = std::aligned_alloc(align, mapped);
      if (!p) {
        std::fprintf(stderr, "bench_adamw: cannot allocate %zu bytes\n", b);
        std::exit(1);
      }
    }
    if (!g_shm) madvise(p, mapped, MADV_HUGEPAGE);  // the runtime's segment is not advised either
  }
  ~Buffer() {
    if (g_shm)
      munmap(p, mapped);
    else
      std::free(p);
  }
  template <typename T>
  T* as() {
    return static_cast<T*>(p);
  }
};

template <typename F>
void parallelRanges(int64_t n, int threads, F&& f) {
#pragma omp parallel num_threads(threads)
  {
    int64_t b, e;
    partitionRange(n, omp_get_num_threads(), omp_get_thread_num(), &b, &e);
    if (e > b) f(b, e);
  }
}

// The triad kernel on one thread's range: restrict so the compiler vectorises it, cloned per
// ISA (GCC target_clones, resolved at load time) so it is not held to baseline SSE2.
__attribute__((noinline, target_clones("avx512f", "avx2", "default"))) void triadRange(
    float* __restrict a, const float* __restrict b, const float* __restrict c, float s, int64_t lo,
    int64_t hi) {
  for (int64_t i = lo; i < hi; ++i) a[i] = b[i] + s * c[i];
}

template <typename F>
double medianSeconds(int reps, F&& f) {
  f();  // warm-up
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parseArgs(argc, argv);
  g_shm = o.memory == "shm";
  const int threads = o.threads > 0 ? o.threads : omp_get_max_threads();
  const int64_t n = o.n;
  EngineOptions eo;
  eo.threads = threads;
  eo.isa = parseIsa(o.isa);
  eo.streamCopy = o.stream;
  eo.prefetchElems = o.prefetch;
  // An ISA path this CPU lacks (or a bad SLIDEDP_OPTIM_* variable) is refused here, with a HINT.
  const Engine engine = [&] {
    try {
      return Engine(eo);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "bench_adamw: error: %s\n", e.what());
      std::exit(2);
    }
  }();
  std::printf("bench_adamw: n=%lld params, threads=%d, isa=%s, stream_copy=%d, reps=%d (median)\n",
              static_cast<long long>(n), threads, isaName(engine.isa()), engine.streamCopy(),
              o.reps);

  // ---- triad a = b + s * c on the same threads and partition, before and after ----
  double triadGBs = 0.0;
  auto triad = [&](const char* when) {
    Buffer a(n * 4), b(n * 4), c(n * 4);
    float *pa = a.as<float>(), *pb = b.as<float>(), *pc = c.as<float>();
    parallelRanges(n, threads, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) {
        pa[i] = 0.0f;
        pb[i] = 1.0f;
        pc[i] = 2.0f;
      }
    });
    const float s = 0.5f;
    const double t = medianSeconds(o.reps, [&] {
      parallelRanges(n, threads,
                     [&](int64_t lo, int64_t hi) { triadRange(pa, pb, pc, s, lo, hi); });
    });
    const double gbs = 12.0 * n / t / 1e9;
    triadGBs = std::max(triadGBs, gbs);
    std::printf("RESULT kind=triad when=%s n=%lld threads=%d seconds=%.6f GBs=%.2f\n", when,
                static_cast<long long>(n), threads, t, gbs);
  };
  triad("before");

  // ---- host state: first-touched with the engine's partition ----
  Buffer master(n * 4), m(n * 4), v(n * 4), copy(n * 2);
  const ChunkState st{master.as<float>(), m.as<float>(), v.as<float>(), copy.as<uint16_t>(), n};
  engine.firstTouch(st);
  // what the kernel gave the state: its THP settings and the huge pages in use now
  for (const char* f : {"/sys/kernel/mm/transparent_hugepage/enabled",
                        "/sys/kernel/mm/transparent_hugepage/shmem_enabled"}) {
    std::string line;
    std::getline(std::ifstream(f) >> std::ws, line);
    std::printf("memory: %s: %s\n", f, line.c_str());
  }
  {
    std::ifstream mi("/proc/meminfo");
    for (std::string line; std::getline(mi, line);)
      if (line.rfind("AnonHugePages", 0) == 0 || line.rfind("ShmemHugePages", 0) == 0 ||
          line.rfind("Shmem:", 0) == 0)
        std::printf("memory: %s (--memory %s, state %.2f GiB)\n", line.c_str(), o.memory.c_str(),
                    14.0 * n / (1u << 30));
  }
  parallelRanges(n, threads, [&](int64_t lo, int64_t hi) {
    std::mt19937 rng(static_cast<uint32_t>(lo));
    std::normal_distribution<float> w(0.0f, 0.02f);
    for (int64_t i = lo; i < hi; ++i) st.master[i] = w(rng);
  });

  struct Row {
    const char* pass;
    std::string dtype;
    int slots;
    double seconds, bytes;
  };
  std::vector<Row> results;
  int maxSlots = 1;
  for (int g : o.slots) maxSlots = std::max(maxSlots, g);
  for (const std::string& dt : o.dtypes) {
    const DType dtype = dt == "bf16" ? DType::kBF16 : DType::kF32;
    const size_t gsize = dtype == DType::kBF16 ? 2 : 4;
    std::vector<std::unique_ptr<Buffer>> grads;
    std::vector<const void*> ptrs;
    for (int r = 0; r < maxSlots; ++r) {
      grads.push_back(std::make_unique<Buffer>(n * gsize));
      void* p = grads.back()->p;
      parallelRanges(n, threads, [&](int64_t lo, int64_t hi) {
        std::mt19937 rng(static_cast<uint32_t>(lo * 31 + r));
        std::normal_distribution<float> d(0.0f, 1e-3f);
        for (int64_t i = lo; i < hi; ++i) {
          const float x = d(rng);
          if (dtype == DType::kBF16)
            static_cast<uint16_t*>(p)[i] = floatToBf16(x);
          else
            static_cast<float*>(p)[i] = x;
        }
      });
      ptrs.push_back(p);
    }
    for (int g : o.slots) {
      const GradView view{ptrs.data(), g, dtype};
      int64_t step = 0;
      const double tu = medianSeconds(o.reps, [&] {
        ++step;
        const AdamWHyper h{1e-3, 0.9, 0.95, 1e-8, 0.1, step};
        engine.update(st, view, makeStepConstants(h, 1.0f / 4096.0f));
      });
      const double tn = medianSeconds(o.reps, [&] {
        volatile double s = engine.gradSquaredNorm(view, n, 1.0f / 4096.0f);
        (void)s;
      });
      const double tc = medianSeconds(o.reps, [&] {
        ++step;
        const AdamWHyper h{1e-3, 0.9, 0.95, 1e-8, 0.1, step};
        volatile double s = engine.updateWithNorm(st, view, makeStepConstants(h, 1.0f / 4096.0f));
        (void)s;
      });
      const double bytesUpdate = static_cast<double>(g * gsize + 26) * n;
      const double bytesNorm = static_cast<double>(g * gsize) * n;
      auto line = [&](const char* pass, double t, double bytes) {
        results.push_back(Row{pass, dt, g, t, bytes});
        std::printf("  measured pass=%s grad=%s G=%d: %.3f Gparam/s\n", pass, dt.c_str(), g,
                    n / t / 1e9);
      };
      line("update", tu, bytesUpdate);
      line("norm", tn, bytesNorm);
      line("update+norm", tc, bytesUpdate);
      std::fflush(stdout);
    }
  }
  triad("after");
  // % of triad against the better of the two triad runs (conservative on a noisy machine).
  for (const Row& r : results) {
    const double gbs = r.bytes / r.seconds / 1e9;
    std::printf(
        "RESULT kind=adamw pass=%s grad=%s G=%d n=%lld threads=%d isa=%s stream=%d prefetch=%lld "
        "memory=%s seconds=%.6f "
        "Gparams=%.3f GBs=%.2f pct_triad=%.1f\n",
        r.pass, r.dtype.c_str(), r.slots, static_cast<long long>(n), threads, isaName(engine.isa()),
        engine.streamCopy(), static_cast<long long>(engine.prefetchElems()), o.memory.c_str(), r.seconds,
        n / r.seconds / 1e9, gbs, 100.0 * gbs / triadGBs);
  }
  return 0;
}
