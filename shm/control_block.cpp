#include "shm/control_block.h"

#include <fmt/format.h>
#include <immintrin.h>
#include <sched.h>
#include <time.h>

#include <cstring>
#include <new>
#include <stdexcept>

#include "common/errors.h"

namespace slidedp::shm {

namespace {
std::atomic<uint64_t> g_progress{0};
}  // namespace

void noteProgress() { g_progress.fetch_add(1, std::memory_order_relaxed); }
uint64_t progressCount() { return g_progress.load(std::memory_order_relaxed); }

uint64_t monotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

size_t ControlBlock::bytesFor(uint32_t num_ranks, uint32_t num_layers, uint32_t num_slots) {
  return sizeof(ControlHeader) + sizeof(RankSlot) * num_ranks +
         sizeof(PaddedCounter) * (num_layers + 2ull * num_slots * num_ranks);
}

static void carve(ControlHeader* h, RankSlot** ranks, PaddedCounter** versions,
                  PaddedCounter** ready, PaddedCounter** consumed) {
  auto* p = reinterpret_cast<char*>(h) + sizeof(ControlHeader);
  *ranks = reinterpret_cast<RankSlot*>(p);
  p += sizeof(RankSlot) * h->num_ranks;
  *versions = reinterpret_cast<PaddedCounter*>(p);
  p += sizeof(PaddedCounter) * h->num_layers;
  *ready = reinterpret_cast<PaddedCounter*>(p);
  p += sizeof(PaddedCounter) * h->num_slots * h->num_ranks;
  *consumed = reinterpret_cast<PaddedCounter*>(p);
}

ControlBlock ControlBlock::initialize(void* base, size_t bytes, uint32_t num_ranks,
                                      uint32_t num_layers, uint32_t num_slots) {
  SLIDEDP_ASSERT(reinterpret_cast<uintptr_t>(base) % kCacheLine == 0, "control region misaligned");
  SLIDEDP_ASSERT(bytes >= bytesFor(num_ranks, num_layers, num_slots),
                 "control region has {} bytes, needs {}", bytes,
                 bytesFor(num_ranks, num_layers, num_slots));
  auto* h = new (base) ControlHeader();
  h->num_ranks = num_ranks;
  h->num_layers = num_layers;
  h->num_slots = num_slots;
  h->stop_announced.store(0, std::memory_order_relaxed);
  h->abort_state.store(0, std::memory_order_relaxed);
  h->abort_rank = -1;
  std::memset(h->abort_message, 0, sizeof(h->abort_message));
  ControlBlock cb;
  cb.header_ = h;
  carve(h, &cb.ranks_, &cb.layer_version_, &cb.chunk_ready_, &cb.chunk_consumed_);
  for (uint32_t r = 0; r < num_ranks; ++r) new (&cb.ranks_[r]) RankSlot();
  const uint64_t counters = num_layers + 2ull * num_slots * num_ranks;
  for (uint64_t i = 0; i < counters; ++i) new (&cb.layer_version_[i]) PaddedCounter();
  std::atomic_thread_fence(std::memory_order_release);
  return cb;
}

ControlBlock ControlBlock::attach(void* base, size_t bytes) {
  auto* h = static_cast<ControlHeader*>(base);
  if (bytes < sizeof(ControlHeader) ||
      bytes < bytesFor(h->num_ranks, h->num_layers, h->num_slots))
    throw std::runtime_error(fmt::format(
        "control region of {} bytes is too small for {} ranks, {} layers, {} slots", bytes,
        h->num_ranks, h->num_layers, h->num_slots));
  ControlBlock cb;
  cb.header_ = h;
  carve(h, &cb.ranks_, &cb.layer_version_, &cb.chunk_ready_, &cb.chunk_consumed_);
  return cb;
}

RankSlot& ControlBlock::rank(uint32_t r) const {
  SLIDEDP_ASSERT(r < header_->num_ranks, "rank slot {} of {}", r, header_->num_ranks);
  return ranks_[r];
}
PaddedCounter& ControlBlock::layerVersion(uint32_t l) const {
  SLIDEDP_ASSERT(l < header_->num_layers, "layer {} of {}", l, header_->num_layers);
  return layer_version_[l];
}
PaddedCounter& ControlBlock::chunkReady(uint32_t s, uint32_t r) const {
  SLIDEDP_ASSERT(s < header_->num_slots && r < header_->num_ranks, "slot {} rank {}", s, r);
  return chunk_ready_[static_cast<size_t>(s) * header_->num_ranks + r];
}
PaddedCounter& ControlBlock::chunkConsumed(uint32_t s, uint32_t r) const {
  SLIDEDP_ASSERT(s < header_->num_slots && r < header_->num_ranks, "slot {} rank {}", s, r);
  return chunk_consumed_[static_cast<size_t>(s) * header_->num_ranks + r];
}

bool ControlBlock::setAbort(int world_rank, const std::string& message) const {
  uint32_t expected = 0;
  if (!header_->abort_state.compare_exchange_strong(expected, 1, std::memory_order_acq_rel))
    return false;
  header_->abort_rank = world_rank;
  const size_t n = std::min(message.size(), kAbortMessageBytes - 1);
  std::memcpy(header_->abort_message, message.data(), n);
  header_->abort_message[n] = '\0';
  header_->abort_state.store(2, std::memory_order_release);
  return true;
}

bool ControlBlock::aborted() const {
  return header_ != nullptr && header_->abort_state.load(std::memory_order_acquire) != 0;
}

std::string ControlBlock::abortMessage() const {
  // State 1 means the first failing rank is writing its message: give it a moment.
  for (int i = 0; i < 100000 && header_->abort_state.load(std::memory_order_acquire) == 1; ++i)
    _mm_pause();
  if (header_->abort_state.load(std::memory_order_acquire) != 2) return "";
  return std::string(header_->abort_message);
}

int ControlBlock::abortRank() const {
  return header_->abort_state.load(std::memory_order_acquire) == 2 ? header_->abort_rank : -1;
}

uint64_t ControlBlock::waitAtLeast(const PaddedCounter& counter, uint64_t target,
                                   double timeout_s, const std::string& waiter,
                                   const WaitDescription& what, uint32_t max_sleep_us,
                                   uint64_t started_ns) const {
  uint64_t v = counter.load();
  if (v >= target) {
    noteProgress();
    return v;
  }
  // Phase 1: spin (a producer a few microseconds away is the common case).
  for (int i = 0; i < 2000; ++i) {
    _mm_pause();
    if ((v = counter.load()) >= target) {
      noteProgress();
      return v;
    }
  }
  const uint64_t start = started_ns ? started_ns : monotonicNs();
  const bool bounded = timeout_s > 0;
  const uint64_t deadline = bounded ? start + static_cast<uint64_t>(timeout_s * 1e9) : UINT64_MAX;
  uint32_t sleep_us = 1;
  for (uint64_t iter = 0;; ++iter) {
    if ((v = counter.load()) >= target) {
      noteProgress();
      return v;
    }
    if (aborted())
      throw JobAbortedError(fmt::format("{} stopped waiting: the job was aborted by rank {}: {}",
                                        waiter, abortRank(), abortMessage()));
    const uint64_t now = monotonicNs();
    if (now >= deadline)
      throw TimeoutError(fmt::format(
          "{} timed out after {:.1f} s waiting for {} to reach {} (it is {}). HINT: --wait-timeout "
          "{} set this deadline; without it (the default, 0) a wait ends only when the watchdog "
          "proves a peer dead, hung or stalled",
          waiter, (now - start) * 1e-9, what ? what() : std::string("a counter"), target, v,
          timeout_s));
    if (iter < 64) {
      sched_yield();
    } else {
      timespec ts{0, static_cast<long>(sleep_us) * 1000};
      nanosleep(&ts, nullptr);
      sleep_us = std::min(sleep_us * 2, max_sleep_us);
    }
  }
}

}  // namespace slidedp::shm
