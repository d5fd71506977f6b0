// How fast can a streamed checkpoint copy state into staging memory while its own write fills
// the page cache? (formats/staging_pool.h cites this.) A /dev/shm source of SIZE GiB (the state
// lives in a shared-memory segment), a thread writing it to FILE in 8 MiB pieces for the whole
// run (the checkpoint writer), then 1200 MiB groups copied on 8 threads into: fresh memory with
// MADV_HUGEPAGE, fresh memory with MADV_NOHUGEPAGE, fresh memory as the kernel decides, the
// same memory again (faulted in beforehand), and fresh memory on 14 threads. Prints GB/s each.
//
//   g++ -O2 -std=c++17 -pthread tools/bench/staging_copy.cpp -o /tmp/staging_copy
//   numactl --physcpubind=0-13 /tmp/staging_copy 32 /path/on/the/checkpoint/disk/staging_copy.bin
//
// Needs SIZE GiB free in /dev/shm and about 3 x SIZE GiB of RAM; FILE is removed at the end.
// SIZE >= 1.171875 (one 1200 MiB copy group); a bad or missing argument: a message and exit 2.
// The command line is CLI11's (header-only; tools/setup.sh installs libcli11-dev in /usr/include).
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "bench_cli.h"  // defines: the command line (CLI11) and its validators

namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void parallelCopy(uint8_t* d, const uint8_t* s, size_t n, int k) {
  std::vector<std::thread> t;
  const size_t slice = (n + k - 1) / k;
  for (int i = 0; i < k; ++i) {
    const size_t b = i * slice, e = std::min(n, b + slice);
    if (b < e) t.emplace_back([=] { std::memcpy(d + b, s + b, e - b); });
  }
  for (auto& x : t) x.join();
}

void printMeminfo() {
  std::ifstream f("/proc/meminfo");
  std::string line;
  while (std::getline(f, line))
    for (const char* k : {"MemFree:", "MemAvailable:", "Cached:", "Dirty:", "Shmem:"})
      if (line.rfind(k, 0) == 0) std::cout << "  " << line << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  double sizeGib = 0;
  std::string file;
  CLI::App app{"staging_copy: the rate of copies into staging memory while a write of the same "
               "state fills the page cache (GB/s per kind of destination memory)",
               "staging_copy"};
  // At least one 1200 MiB copy group (1.171875 GiB), or nothing is copied and measured.
  app.add_option("SIZE_GIB", sizeGib, "Size of the /dev/shm source, GiB (2^30 B); needs that much "
                 "free in /dev/shm and about 3 x as much RAM")
      ->required()
      ->check(slidedp::bench::numberAbove(1200.0 / 1024, /*strict=*/false));
  app.add_option("FILE", file, "File the writer thread writes (on the checkpoint disk); removed "
                 "at the end")
      ->required();
  if (const auto rc = slidedp::bench::parseCommandLine(app, argc, argv)) return *rc;
  const size_t total = static_cast<size_t>(sizeGib * (1ull << 30)), group = 1200ull << 20;
  const int fd = shm_open("/slidedp-staging-copy", O_RDWR | O_CREAT, 0600);
  if (fd < 0 || ftruncate(fd, static_cast<off_t>(total)) != 0) {
    std::perror("/dev/shm source");
    return 1;
  }
  auto* src = static_cast<uint8_t*>(mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
  double t = now();
  std::memset(src, 1, total);
  std::printf("filled the /dev/shm source (%.1f GB) in %.1f s\n", total / 1e9, now() - t);
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    const int f = open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    size_t at = 0;
    const double t0 = now();
    while (f >= 0 && !stop) {
      const size_t n = std::min<size_t>(8 << 20, total - at % total);
      if (pwrite(f, src + at % total, n, static_cast<off_t>(at)) <= 0) break;
      at += n;
    }
    std::printf("writer: %.1f GB written in %.1f s\n", at / 1e9, now() - t0);
    if (f >= 0) close(f);
    unlink(file.c_str());
  });
  sleep(3);  // the page cache fills
  const char* names[] = {"fresh, MADV_HUGEPAGE", "fresh, MADV_NOHUGEPAGE", "fresh, kernel default",
                         "fresh, kernel default"};
  for (int mode = 0; mode < 4; ++mode) {
    const int threads = mode == 3 ? 14 : 8;
    std::vector<uint8_t*> bufs;
    double t0 = now();
    for (size_t at = 0; at + group <= total; at += group) {
      auto* b = static_cast<uint8_t*>(std::aligned_alloc(2 << 20, group));
      if (mode == 0) madvise(b, group, MADV_HUGEPAGE);
      if (mode == 1) madvise(b, group, MADV_NOHUGEPAGE);
      parallelCopy(b, src + at, group, threads);
      bufs.push_back(b);
    }
    double s = now() - t0;
    std::printf("%-24s %2d threads: %.1f GB in %.2f s = %.2f GB/s\n", names[mode], threads,
                bufs.size() * group / 1e9, s, bufs.size() * group / 1e9 / s);
    if (mode == 2) {
      t0 = now();
      for (size_t i = 0; i < bufs.size(); ++i) parallelCopy(bufs[i], src + i * group, group, 8);
      s = now() - t0;
      std::printf("%-24s %2d threads: %.2f GB/s\n", "faulted in beforehand", 8,
                  bufs.size() * group / 1e9 / s);
    }
    for (auto* b : bufs) std::free(b);
    std::fflush(stdout);
    printMeminfo();
  }
  stop = true;
  writer.join();
  munmap(src, total);
  shm_unlink("/slidedp-staging-copy");
  return 0;
}
