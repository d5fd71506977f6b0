// Work stealing over statically owned ranges: the schedule of the optimizer engine's passes.
//
// A pass over n elements is split as the static OpenMP partition would split it (range t of
// the team belongs to thread t: first-touch NUMA placement, see adamw.h), and each range is cut
// into blocks of `block` elements. Every thread takes the blocks of its own range front to back,
// then the untaken blocks of the other ranges in turn. Without interference each thread runs
// exactly its own range; a thread that loses its core for a while (a kernel thread, a
// background writer, a co-tenant) delays the pass by at most the block it is in, not by the rest
// of its range, because the others take the rest.
//
// Threading contract: call from one thread, outside any OpenMP region (or inside one: the
// nested team is then smaller, which is handled). `fn(begin, end, index)` runs concurrently on
// the team's threads, once per block, with `index` the block's position in element order (0 ..
// numBlocks-1), so per-block results stored at `index` can be combined in a fixed order that
// does not depend on which thread ran which block.
#pragma once

#include <omp.h>

#include <atomic>
#include <cstdint>
#include <vector>

namespace slidedp::optim {

/// Blocks a pass of `n` elements over ranges owned by `team` threads has (see stealBlocks()).
/// `rangeOf(t, &begin, &end)` gives thread t's range.
template <typename RangeOf>
int64_t countStealBlocks(int team, int64_t block, RangeOf rangeOf) {
  int64_t total = 0;
  for (int t = 0; t < team; ++t) {
    int64_t b, e;
    rangeOf(t, &b, &e);
    total += (e - b + block - 1) / block;
  }
  return total;
}

/// Runs fn(begin, end, index) for every block of every range on an OpenMP team of `team`
/// threads, with work stealing (file comment). Ranges must be disjoint and given in element
/// order (range t ends where range t+1 begins); block > 0.
template <typename RangeOf, typename Fn>
void stealBlocks(int team, int64_t block, RangeOf rangeOf, Fn fn) {
  struct alignas(64) Owned {
    std::atomic<int64_t> next{0};
    int64_t begin = 0, end = 0, blocks = 0, first = 0;  // first: its first block's index overall
  };
  std::vector<Owned> own(team);
  int64_t total = 0;
  for (int t = 0; t < team; ++t) {
    rangeOf(t, &own[t].begin, &own[t].end);
    own[t].blocks = (own[t].end - own[t].begin + block - 1) / block;
    own[t].first = total;
    total += own[t].blocks;
  }
#pragma omp parallel num_threads(team)
  {
    // Own range first, then the others' in turn; a smaller team than asked (OMP_THREAD_LIMIT,
    // a nested region) still covers every range this way.
    const int t = omp_get_thread_num();
    for (int k = 0; k < team; ++k) {
      Owned& o = own[(t + k) % team];
      for (int64_t i = o.next.fetch_add(1, std::memory_order_relaxed); i < o.blocks;
           i = o.next.fetch_add(1, std::memory_order_relaxed)) {
        const int64_t b = o.begin + i * block;
        fn(b, b + block < o.end ? b + block : o.end, o.first + i);
      }
    }
  }
}

}  // namespace slidedp::optim
