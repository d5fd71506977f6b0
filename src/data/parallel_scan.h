// One pass over a memory-mapped array on all cores, for the start-up checks of token files
// (every id against the vocabulary before the first step, rather than when its batch comes).
#pragma once

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

namespace slidedp::data {

/// Calls fn(begin, end) on contiguous ranges covering [0, n) from up to `threads` threads
/// (0: the machine's cores, at most 32) and returns their results in range order. `fn` must
/// be safe to call concurrently; results are collected after all threads join. Exceptions
/// must not escape `fn` (return a status in R instead).
template <typename R, typename Fn>
std::vector<R> parallelScan(int64_t n, Fn fn, int threads = 0) {
  if (threads <= 0) threads = static_cast<int>(std::min(32u, std::max(1u, std::thread::hardware_concurrency())));
  const int64_t minPerThread = int64_t{1} << 20;
  threads = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(threads, n / minPerThread + 1)));
  std::vector<R> out(threads);
  std::vector<std::thread> pool;
  const int64_t per = (n + threads - 1) / threads;
  for (int i = 0; i < threads; ++i) {
    const int64_t b = std::min(n, i * per), e = std::min(n, b + per);
    if (i == threads - 1) {
      out[i] = fn(b, e);
    } else {
      pool.emplace_back([&out, &fn, i, b, e] { out[i] = fn(b, e); });
    }
  }
  for (auto& t : pool) t.join();
  return out;
}

}  // namespace slidedp::data
