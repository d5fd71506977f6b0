// Host memory a streamed checkpoint copies state into when the disk is behind
// (streamed_writer.h, "Staging"), allocated and faulted in once, before it is needed.
//
// Why a pool and not an allocation per copy: on the 4B run (1xH200 machine, 125 GiB RAM, 56 GB
// of it the state in /dev/shm) the per-copy allocations (fresh, MADV_HUGEPAGE) made while the
// checkpoint's write filled the page cache copied 40.6 GiB at 1.4 GB/s: 28 s held. On that
// machine, with a disk write running, tools/bench/staging_copy.cpp (32 GiB) measured 15.8 GB/s
// into fresh huge pages, 8.6 GB/s into fresh 4 KiB pages and 27.5 GB/s into 4 KiB pages faulted
// in beforehand. The 1.4 GB/s is not reproduced there (its cause is not established: the suspect
// is direct compaction of a fragmented RAM for huge pages, THP defrag = madvise on that machine).
// So the pool takes its memory in plain pages while RAM is free (at the start of training, on a
// background thread) and keeps it for every checkpoint: no allocation, fault or compaction
// while a checkpoint runs.
//
// Allocation is a ring: slices are handed out in order and come back in (about) the order
// given, as a streamed checkpoint stages groups in write order and the writer frees them in
// write order. A slice that does not fit contiguously at the ring's head is refused (the caller
// then waits for the disk), never served out of order.
//
// Threads: any thread may allocate and release (a mutex); the constructor starts one
// background thread that faults the pages in (`threads` helpers), waited for by waitReady(),
// stopped and joined by the destructor. No allocation succeeds before the pages are in (a slice
// must not be zeroed under a copy).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <thread>

namespace slidedp::formats {

class StagingPool {
 public:
  /// The reservation's granularity and alignment (a huge page).
  static constexpr uint64_t kPageBytes = 2ull << 20;
  /// What a pool asked for `bytes` reserves: `bytes` rounded up to whole kPageBytes.
  static constexpr uint64_t reservedBytes(uint64_t bytes) {
    return (bytes + kPageBytes - 1) / kPageBytes * kPageBytes;
  }

  /// Reserves `bytes` (rounded up to 2 MiB, 2 MiB aligned) and starts faulting them in on a
  /// background thread with `threads` helpers. A failed reservation leaves capacity() == 0
  /// (every allocation then fails: callers wait for the disk).
  StagingPool(uint64_t bytes, int threads = 8);
  ~StagingPool();
  StagingPool(const StagingPool&) = delete;
  StagingPool& operator=(const StagingPool&) = delete;

  uint64_t capacity() const { return capacity_; }
  /// Blocks until the pages are faulted in; returns the seconds that took (from construction).
  double waitReady();

  /// One allocation; releases itself when destroyed (movable).
  class Slice {
   public:
    Slice() = default;
    Slice(Slice&& o) noexcept : pool_(o.pool_), data_(o.data_) { o.pool_ = nullptr; o.data_ = nullptr; }
    Slice& operator=(Slice&& o) noexcept;
    ~Slice() { reset(); }
    uint8_t* data() const { return data_; }
    explicit operator bool() const { return data_ != nullptr; }
    void reset();

   private:
    friend class StagingPool;
    Slice(StagingPool* pool, uint8_t* data) : pool_(pool), data_(data) {}
    StagingPool* pool_ = nullptr;
    uint8_t* data_ = nullptr;
  };

  /// `n` contiguous bytes (64 B aligned), or an empty Slice when the pool is not ready yet or has
  /// no room at the ring's head. Non-blocking.
  Slice tryAllocate(uint64_t n);
  /// Bytes held by live slices.
  uint64_t inUse() const;

 private:
  void release(uint8_t* p);

  struct Live {
    uint64_t offset, size;
    bool freed;
  };
  uint8_t* base_ = nullptr;
  uint64_t capacity_ = 0;
  std::thread toucher_;
  std::atomic<bool> stop_{false};  // the destructor: stop faulting pages in
  double ready_s_ = 0;
  bool ready_ = false;          // guarded by mu_
  mutable std::mutex mu_;
  std::condition_variable ready_cv_;
  std::deque<Live> live_;       // in allocation order; guarded by mu_
  uint64_t head_ = 0;           // next offset to hand out; guarded by mu_
  uint64_t used_ = 0;           // guarded by mu_
};

}  // namespace slidedp::formats
