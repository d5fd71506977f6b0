// The control block: the per-chunk hot path between the leader and its workers runs on
// these counters, not on MPI messages (design.md, "Processes").
//
// Every counter is a monotonically increasing 64-bit value in its own cache line
// (PaddedCounter), written with release and read with acquire ordering, so a consumer that
// sees a counter value also sees every byte the producer wrote before publishing it.
// Waits spin with pause, then yield, then sleep with backoff, and check the job-wide abort
// flag while waiting. Liveness, not deadlines (design.md, "Liveness"): a wait has no deadline
// by default; it ends early only when the abort flag is set, which the watchdog of some rank
// (runtime/job_guard.h) does once it has proved a node peer dead (pid gone), hung (heartbeat
// thread silent) or stalled (stopped by a signal or a debugger while its progress counter
// stood still). A legitimately long step (minutes of GPU or CPU work) is never cut short.
// A deadline can still be asked for (timeout_s > 0: TimeoutError naming the waiting rank and
// the counter), as an upper bound for tests and benchmarks.
//
// Memory map of the control region (all offsets multiples of 64 bytes):
//   ControlHeader
//   RankSlot            rank[num_ranks]                node-local ranks, leader = 0
//   PaddedCounter       layer_version[num_layers]
//   PaddedCounter       chunk_ready[num_slots][num_ranks]
//   PaddedCounter       chunk_consumed[num_slots][num_ranks]
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

namespace slidedp::shm {

inline constexpr size_t kCacheLine = 64;
inline constexpr size_t kAbortMessageBytes = 2048;

struct alignas(kCacheLine) PaddedCounter {
  std::atomic<uint64_t> value{0};
  char pad_[kCacheLine - sizeof(std::atomic<uint64_t>)];

  uint64_t load() const { return value.load(std::memory_order_acquire); }
  void store(uint64_t v) { value.store(v, std::memory_order_release); }
  /// Adds `d` (release); returns the new value.
  uint64_t add(uint64_t d) { return value.fetch_add(d, std::memory_order_acq_rel) + d; }
};
static_assert(sizeof(PaddedCounter) == kCacheLine, "one counter per cache line");
static_assert(std::atomic<uint64_t>::is_always_lock_free, "counters must be lock-free");

/// Per node-local rank: liveness and abort acknowledgement.
struct alignas(kCacheLine) RankSlot {
  std::atomic<int64_t> pid{0};            // 0 until the rank has attached
  std::atomic<uint64_t> start_time{0};    // /proc/<pid>/stat field 22, to detect pid reuse
  std::atomic<uint64_t> heartbeat_ns{0};  // CLOCK_MONOTONIC of the last heartbeat
  std::atomic<uint64_t> progress{0};      // the rank's progressCount() at its last heartbeat
  std::atomic<uint32_t> state{0};         // RankState
  std::atomic<uint32_t> abort_seen{0};    // 1 once this rank has seen the abort flag
  std::atomic<int32_t> world_rank{-1};
  char pad_[kCacheLine - 44];
};
static_assert(offsetof(RankSlot, progress) == 24, "RankSlot layout");
static_assert(sizeof(RankSlot) == kCacheLine, "one rank slot per cache line");

enum class RankState : uint32_t { kAbsent = 0, kAttached = 1, kDetached = 2 };

/// The fixed head of the control region.
struct alignas(kCacheLine) ControlHeader {
  uint32_t num_ranks;   // node-local ranks (leader + workers)
  uint32_t num_layers;  // layer-version counters
  uint32_t num_slots;   // staging ring slots
  std::atomic<uint32_t> stop_announced;  // 1 once a rank of the node said "stop requested"
  alignas(kCacheLine) std::atomic<uint32_t> abort_state;  // 0 none, 1 being written, 2 set
  int32_t abort_rank;                                     // world rank of the first error
  char abort_message[kAbortMessageBytes];                 // NUL-terminated
};
static_assert(sizeof(ControlHeader) % kCacheLine == 0, "control header padded to a line");
static_assert(offsetof(ControlHeader, abort_state) == kCacheLine, "abort flag on its own line");
static_assert(std::atomic<uint32_t>::is_always_lock_free,
              "stop_announced is exchanged in a signal handler: it must be lock-free");

/// What a wait is waiting for, for the timeout message. Called only on timeout.
using WaitDescription = std::function<std::string()>;

/// A view of a control region mapped in this process. Cheap to copy; does not own memory.
/// Thread-safe: every member function may be called from any thread of any process that
/// maps the segment.
class ControlBlock {
 public:
  /// Bytes needed for the given dimensions (a multiple of kCacheLine).
  static size_t bytesFor(uint32_t num_ranks, uint32_t num_layers, uint32_t num_slots);

  /// Placement-initialises a zeroed control region. Leader only, before workers attach.
  /// `bytes` must be >= bytesFor(...) and `base` 64-byte aligned.
  static ControlBlock initialize(void* base, size_t bytes, uint32_t num_ranks,
                                 uint32_t num_layers, uint32_t num_slots);
  /// Attaches to an initialised region; validates its dimensions against `bytes`.
  static ControlBlock attach(void* base, size_t bytes);

  ControlBlock() = default;

  uint32_t numRanks() const { return header_->num_ranks; }
  uint32_t numLayers() const { return header_->num_layers; }
  uint32_t numSlots() const { return header_->num_slots; }

  RankSlot& rank(uint32_t local_rank) const;
  PaddedCounter& layerVersion(uint32_t layer) const;
  PaddedCounter& chunkReady(uint32_t slot, uint32_t local_rank) const;
  PaddedCounter& chunkConsumed(uint32_t slot, uint32_t local_rank) const;

  /// True for the first caller only: the one rank of the node that prints the graceful stop's
  /// line (mpirun forwards the signal to every rank). Lock-free: async-signal-safe.
  bool claimStopAnnouncement() const { return header_->stop_announced.exchange(1) == 0; }

  /// Records the first error of the job: only the first caller's message is kept (later
  /// callers return false). `world_rank` is the failing rank. Async-signal-unsafe.
  bool setAbort(int world_rank, const std::string& message) const;
  /// True once an abort has been published.
  bool aborted() const;
  /// The published abort's rank and message ("" / -1 when none).
  std::string abortMessage() const;
  int abortRank() const;

  /// Waits until `counter.load() >= target` and returns the value seen; counts one unit of
  /// this process's progress (noteProgress) when it returns.
  /// Spins ~20 µs, then yields, then sleeps with backoff up to `max_sleep_us`.
  /// Throws JobAbortedError if the abort flag is set while waiting (the first error's text
  /// in the message: the watchdog's verdict on the dead, hung or stalled peer).
  /// `timeout_s` <= 0 (the runtime's default): no deadline. `timeout_s` > 0: TimeoutError
  /// after that many seconds naming `waiter` (e.g. "worker 2") and what()'s description,
  /// counted from `started_ns` (monotonicNs) when non-zero: a caller that already waited in
  /// its own loop (the leader lending its idle time to a checkpoint write) keeps one deadline.
  uint64_t waitAtLeast(const PaddedCounter& counter, uint64_t target, double timeout_s,
                       const std::string& waiter, const WaitDescription& what,
                       uint32_t max_sleep_us = 100, uint64_t started_ns = 0) const;

 private:
  ControlHeader* header_ = nullptr;
  RankSlot* ranks_ = nullptr;
  PaddedCounter* layer_version_ = nullptr;
  PaddedCounter* chunk_ready_ = nullptr;
  PaddedCounter* chunk_consumed_ = nullptr;
};

/// CLOCK_MONOTONIC in nanoseconds (system-wide, so comparable across processes).
uint64_t monotonicNs();

/// This process's progress counter: bumped by every completed waitAtLeast and by the
/// runtime at its milestones (a step, a unit); published in the rank's RankSlot::progress by
/// the watchdog with each heartbeat. Thread-safe, lock-free, relaxed (a hint for the stall
/// verdict, not a synchronisation point).
void noteProgress();
uint64_t progressCount();

}  // namespace slidedp::shm
