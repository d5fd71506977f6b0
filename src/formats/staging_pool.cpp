// Pre-faulted staging memory for streamed checkpoints (see staging_pool.h).
#include "formats/staging_pool.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "common/errors.h"
#include "common/thread_placement.h"

namespace slidedp::formats {

namespace {
constexpr uint64_t kAlign = 64;
constexpr uint64_t kPiece = 64u << 20;
}  // namespace

StagingPool::StagingPool(uint64_t bytes, int threads) {
  const uint64_t want = reservedBytes(bytes);
  if (want > 0) base_ = static_cast<uint8_t*>(std::aligned_alloc(kPageBytes, want));
  if (!base_) {
    ready_ = true;
    return;
  }
  capacity_ = want;
  const auto t0 = std::chrono::steady_clock::now();
  toucher_ = std::thread([this, t0, threads] {
    // Off the caller's core (the leader's main thread is bound to its team's first core) and in
    // the idle scheduling class: the faults take idle cores, not the training's (the first 4B
    // runs with staging: steps 1-3 took 20-30 s more while 8 touchers shared core 0 with the
    // team; at nice 19 on every core, steps 2-7 took ~0.6 s more each). The helpers started
    // here inherit both.
    useAllRankCores();
    lowerThreadPriority();
    const int k = std::max(1, threads);
    const uint64_t slice = (capacity_ / k + kPageBytes - 1) / kPageBytes * kPageBytes;
    std::vector<std::thread> pool;
    for (int i = 0; i < k; ++i) {
      const uint64_t b = std::min(capacity_, i * slice), e = std::min(capacity_, b + slice);
      if (b < e)
        pool.emplace_back([this, b, e] {  // in 64 MiB pieces: a pool destroyed early stops soon
          for (uint64_t at = b; at < e && !stop_.load(std::memory_order_relaxed); at += kPiece)
            std::memset(base_ + at, 0, std::min(kPiece, e - at));
        });
    }
    for (auto& t : pool) t.join();
    {
      std::lock_guard<std::mutex> lock(mu_);
      ready_ = true;
      ready_s_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    ready_cv_.notify_all();
  });
}

StagingPool::~StagingPool() {
  stop_.store(true, std::memory_order_relaxed);
  if (toucher_.joinable()) toucher_.join();
  SLIDEDP_ASSERT(live_.empty() || std::all_of(live_.begin(), live_.end(), [](const Live& l) { return l.freed; }),
                 "staging pool destroyed with {} bytes still in use", used_);
  std::free(base_);
}

double StagingPool::waitReady() {
  std::unique_lock<std::mutex> lock(mu_);
  ready_cv_.wait(lock, [&] { return ready_; });
  return ready_s_;
}

StagingPool::Slice& StagingPool::Slice::operator=(Slice&& o) noexcept {
  if (this != &o) {
    reset();
    pool_ = o.pool_;
    data_ = o.data_;
    o.pool_ = nullptr;
    o.data_ = nullptr;
  }
  return *this;
}

void StagingPool::Slice::reset() {
  if (pool_ && data_) pool_->release(data_);
  pool_ = nullptr;
  data_ = nullptr;
}

StagingPool::Slice StagingPool::tryAllocate(uint64_t n) {
  n = std::max<uint64_t>(kAlign, (n + kAlign - 1) / kAlign * kAlign);
  std::lock_guard<std::mutex> lock(mu_);
  if (!ready_ || n > capacity_) return {};
  uint64_t at;
  if (live_.empty()) {
    at = 0;
  } else {
    const uint64_t tail = live_.front().offset;  // the oldest live slice
    if (head_ > tail) {  // live: [tail, head_); free: [head_, capacity_) and [0, tail)
      if (capacity_ - head_ >= n) at = head_;
      else if (tail >= n) at = 0;
      else return {};
    } else {  // wrapped: live [tail, ...) and [0, head_); free: [head_, tail)
      if (tail - head_ >= n) at = head_;
      else return {};
    }
  }
  live_.push_back({at, n, false});
  head_ = at + n;
  used_ += n;
  return Slice(this, base_ + at);
}

void StagingPool::release(uint8_t* p) {
  std::lock_guard<std::mutex> lock(mu_);
  const uint64_t off = static_cast<uint64_t>(p - base_);
  auto it = std::find_if(live_.begin(), live_.end(), [&](const Live& l) { return l.offset == off && !l.freed; });
  SLIDEDP_ASSERT(it != live_.end(), "staging pool: release of an unknown slice at offset {}", off);
  it->freed = true;
  used_ -= it->size;
  while (!live_.empty() && live_.front().freed) live_.pop_front();
  if (live_.empty()) head_ = 0;
}

uint64_t StagingPool::inUse() const {
  std::lock_guard<std::mutex> lock(mu_);
  return used_;
}

}  // namespace slidedp::formats
