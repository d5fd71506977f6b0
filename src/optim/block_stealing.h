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
// Threading contract: StealSchedule::run is called from one thread, outside any OpenMP region
// (or inside one: the nested team is then smaller, which is handled). `fn(begin, end, index)`
// runs concurrently on the team's threads, once per block, with `index` the block's position in
// element order (0 .. numBlocks-1), so per-block results stored at `index` can be combined in a
// fixed order that does not depend on which thread ran which block.
#pragma once

#include <omp.h>

#include <atomic>
#include <cstdint>
#include <vector>

namespace slidedp::optim {

/// The blocks of ranges owned by `team` threads, computed once: numBlocks() to size per-block
/// results, run(fn) to execute them.
class StealSchedule {
 public:
  /// `rangeOf(t, &begin, &end)` gives thread t's range. Ranges must be disjoint and in element
  /// order (range t ends where range t+1 begins); team >= 1, block > 0.
  template <typename RangeOf>
  StealSchedule(int team, int64_t block, RangeOf rangeOf) : block_(block), own_(team) {
    for (int t = 0; t < team; ++t) {
      rangeOf(t, &own_[t].begin, &own_[t].end);
      own_[t].blocks = (own_[t].end - own_[t].begin + block - 1) / block;
      own_[t].first = blocks_;
      blocks_ += own_[t].blocks;
    }
  }
  int64_t numBlocks() const { return blocks_; }

  /// Runs fn(begin, end, index) for every block on an OpenMP team of the constructor's `team`
  /// threads, with work stealing (file comment). Call once.
  template <typename Fn>
  void run(Fn fn) {
    const int team = static_cast<int>(own_.size());
#pragma omp parallel num_threads(team)
    {
      // Own range first, then the others' in turn; a smaller team than asked
      // (OMP_THREAD_LIMIT, a nested region) still covers every range this way.
      const int t = omp_get_thread_num();
      for (int k = 0; k < team; ++k) {
        Owned& o = own_[(t + k) % team];
        for (int64_t i = o.next.fetch_add(1, std::memory_order_relaxed); i < o.blocks;
             i = o.next.fetch_add(1, std::memory_order_relaxed)) {
          const int64_t b = o.begin + i * block_;
          fn(b, b + block_ < o.end ? b + block_ : o.end, o.first + i);
        }
      }
    }
  }

 private:
  struct alignas(64) Owned {
    std::atomic<int64_t> next{0};
    int64_t begin = 0, end = 0, blocks = 0, first = 0;  // first: its first block's index overall
  };
  int64_t block_;
  int64_t blocks_ = 0;
  std::vector<Owned> own_;
};

}  // namespace slidedp::optim
