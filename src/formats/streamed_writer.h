// A safetensors file written by a background thread, group by group, while the caller keeps
// changing the memory the groups come from (design.md, "One training step": the leader writes
// checkpoint s while step s+1 runs).
//
// The one design decision: the file is laid out in the order its groups are written (a group
// is a unit's master/m/v), and every group has a "written" mark the caller waits on before it
// overwrites that group's memory (waitGroup). Groups are written strictly in the given order,
// so "group g written" is one monotonic counter. The bytes of a group are in the page cache
// (not necessarily on disk) once it is marked: from then on the caller may change its memory;
// the file is fsync'ed once, after the last group. Writeback of each group is started as soon
// as it is written (sync_file_range), so the final fsync has little left to do.
// Page cache or O_DIRECT (StreamedWriterOptions::direct_io). Without staging memory the page
// cache is what releases the caller's updates early: a buffered write returns once the bytes
// are copied, so the first GiBs (up to the kernel's dirty limit) are absorbed at memory speed,
// where O_DIRECT would pace every group at the disk's rate. With staging the caller does not
// wait for the disk either way, and O_DIRECT (formats/direct_stream.h: aligned bounce buffers,
// the only copy in user space on the idle-class writer thread) keeps the write's work off the
// training threads' cores: no copy inside pwrite that they cannot preempt, no writeback
// threads, no page reclaim (issue 20: the steps of a 4B run were 10-20% slower during a
// buffered write).
// Staging (copy on release): when the caller must change a group the writer has not reached
// yet, releaseGroup() copies that group into host memory (a slice of StreamedWriterOptions::
// staging, with StreamedWriterOptions::copy) and returns at once; the writer then writes the copy and
// frees it. While the caller waits for a group the writer is reading, it copies the groups after
// it that the writer has not reached: the caller releases in write order, so otherwise it would
// chase the writer group by group (the first 4B run: 0 B staged, 50 s held). So a disk slower
// than a training step costs one memory copy of the state, not the disk's time (issue 20:
// "checkpoint every 100 steps at 4B costs <= 3%": 45 GiB at ~1 GB/s is 49 s, a copy at memory
// speed a few seconds). Past the budget, releaseGroup waits as waitGroup. The caller may also
// copy ahead while it is otherwise idle (stageNext: the leader while it waits for the next
// step's first gradients), so that fewer copies are left for when it needs the groups.
// Copies run on the caller's thread through StreamedWriterOptions::copy (the leader: its AdamW
// team, never beside it). A stager thread copying beside the team (the first design) held the
// 4B run's first step after a checkpoint 8.4 s: its copies and the update shared the cores.
// The XXH3-64 digest of the file is computed while writing: the writer thread hashes each 8 MiB
// piece in file order and hands it to a few I/O threads that pwrite it at its offset (so the
// copy into the page cache runs on several cores); a group is marked once all its pieces are
// written. No second pass over the data. Direct writes hash the bounce copy instead, made by
// whichever thread copies (the writer, or the caller through pumpIdle: one at a time, in file
// order, under the writer's feed lock).
//
// Threads: one writer thread per file (hashing in file order), with `io_threads` helpers
// that pwrite its pieces, both on every core of the rank in the idle scheduling class
// (common/thread_placement.h).
// waitGroup/groupsWritten/finished may be called from any thread; releaseGroup/stageNext/pumpIdle
// from one caller thread; the constructor, wait(), cancel() and the destructor from the owner's.
// Errors: any failure (I/O, a throwing callback, cancel()) stops the writer, removes the
// partial file, marks every group as released (waiters return, the memory may change: the file
// is lost anyway) and is reported by wait() as a message; nothing throws on the writer thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "formats/checkpoint.h"  // TensorToWrite
#include "formats/file_digest.h"
#include "formats/staging_pool.h"

namespace slidedp::formats {

class DirectStream;  // formats/direct_stream.h

struct StreamedWriterOptions {
  /// Bytes per pwrite() call; the digest reads each piece just before it is written.
  size_t piece_bytes = 8u << 20;
  /// Threads copying pieces into the file (pwrite at their offsets): the copy into the page
  /// cache is what a waiting caller waits for, and one core copies ~2-3 GB/s. The digest is
  /// still one pass in file order, on the writer thread (XXH3: several times faster).
  int io_threads = 4;
  /// After group g (1-based count of groups written) is marked, on the writer thread (tests:
  /// fault injection, a slow disk). May throw: the write fails with its message.
  std::function<void(int groups_written)> after_group;
  /// Group g's bytes are written but it is not marked yet, on the writer thread (tests: a disk
  /// slow inside a group's write, while the caller's memory is still being read). May throw.
  std::function<void(int group)> before_mark;
  /// Memory releaseGroup() copies groups not yet written into (formats/staging_pool.h; null: it
  /// only waits). Each copy returns to the pool once its group is written. May be shared by
  /// successive writers (one at a time).
  std::shared_ptr<StagingPool> staging;
  /// The writer and I/O threads run in the idle scheduling class (SCHED_IDLE,
  /// common/thread_placement.h): training's threads keep their cores (the writer still
  /// progresses in their idle time). False: normal priority.
  bool background = true;
  /// How releaseGroup()/stageNext() copy a group's tensor into staging, on the caller's thread:
  /// copy(dst, src, bytes). Empty: memcpy on `copy_threads` threads started for it. The leader
  /// passes its AdamW team (optim::Engine::copy), which is idle while the leader copies.
  std::function<void(uint8_t* dst, const uint8_t* src, size_t bytes)> copy;
  /// Threads of one copy when `copy` is empty (memcpy of ~1 GB per decoder layer at 4B).
  int copy_threads = 8;
  /// Write the file with O_DIRECT through aligned bounce buffers (formats/direct_stream.h); a
  /// file system that refuses it gets buffered writes (directFellBack()). False: buffered,
  /// through the page cache (with `staging`, each group dropped from it once on disk).
  bool direct_io = false;
  /// Direct writes: once the caller has called pumpIdle() (its idle time), the writer thread
  /// leaves the copy into the bounce buffers to those calls and does it itself only when none
  /// came for this long (a caller that stopped pumping, e.g. after its last step). Longer than
  /// the caller's busy stretches between its idle times: the trainer passes twice its median
  /// step (a grace shorter than the leader's AdamW update made the writer copy at the end of
  /// every update, on the update's cores: +0.24 s per 1.65 s step on the 4B run). 0: the
  /// writer thread always copies.
  double pump_grace_s = 1.0;
  /// Direct writes: seconds from the start by which the write should be done (the trainer:
  /// 80% of the time to the next checkpoint, or to the last step). Whenever fewer bytes have
  /// been copied than that linear schedule asks, the writer thread copies beside the pumping
  /// (taking time slices from the caller's other threads, as a write without pumping does), so
  /// a caller with too little idle time delays the write no further than this. 0: no schedule.
  double finish_by_s = 0;
  /// Most bytes per second handed to the file (0: as fast as the disk takes them), so a
  /// checkpoint can share a disk or network file system politely, or be spread over more of
  /// the interval between checkpoints. Training waits for the writer only where staging
  /// memory is short, so a cap costs nothing there while the pool holds the state.
  double max_bytes_per_s = 0;
  /// After the last group, the fsync and the close, on the writer thread, with the file's
  /// digest (e.g. write the manifest, rename the directory into place). May throw: the
  /// write fails with its message (the file is then removed).
  std::function<void(const FileDigest&)> on_complete;
};

/// Host memory a direct write (`direct_io`) allocates for its aligned bounce buffers
/// (formats/direct_stream.h): ~256 MiB of `piece_bytes` buffers (rounded up to 4 KiB), at least
/// io_threads + 2 of them, so the disk keeps writing while the caller is too busy to pump. The
/// job counts it in its up-front host-memory check (runtime/host_memory.h). Bytes; never throws.
size_t directBounceBytes(const StreamedWriterOptions& o);

class StreamedSafetensorsWriter {
 public:
  /// Starts writing `path` (created or truncated; mode 0644). `groups` in write order; every
  /// tensor's source must be of its own dtype (no conversion) and stay valid until its group is
  /// marked written. Tensor names must be unique. Throws UserError (before any thread starts)
  /// on duplicate names or a converting tensor.
  StreamedSafetensorsWriter(std::string path, std::vector<std::vector<TensorToWrite>> groups,
                            const std::map<std::string, std::string>& metadata,
                            StreamedWriterOptions opts);
  /// Cancels an unfinished write (the partial file is removed) and joins the thread.
  ~StreamedSafetensorsWriter();
  StreamedSafetensorsWriter(const StreamedSafetensorsWriter&) = delete;
  StreamedSafetensorsWriter& operator=(const StreamedSafetensorsWriter&) = delete;

  int numGroups() const { return static_cast<int>(groups_.size()); }
  /// Groups written so far (0..numGroups()); acquire: their sources may be changed.
  int groupsWritten() const { return written_.load(std::memory_order_acquire); }
  /// True once the writer thread is done (success or failure).
  bool finished() const { return finished_.load(std::memory_order_acquire); }

  /// Blocks until group `g` (0-based) has been written, or the writer stopped (failed or
  /// cancelled). Returns the seconds it waited (0 when it did not block). `poll`, when given,
  /// is called about every 50 ms while blocked; it may throw to end the wait (e.g. the job was
  /// aborted), and the exception propagates.
  double waitGroup(int g, const std::function<void()>& poll = {});

  /// The caller is about to change group `g`'s memory. Returns at once when the group is
  /// written; else copies it into staging memory when the budget has room (the writer then
  /// writes the copy), else waits until the group is written or room frees up; while the writer
  /// reads g, copies the next groups it has not reached (within the budget). Returns the
  /// seconds the caller was held (copying or waiting). `poll` as in waitGroup. One caller
  /// thread (the owner's). A failed allocation falls back to waiting.
  double releaseGroup(int g, const std::function<void()>& poll = {});
  /// Copies the first group in write order that the writer has not reached and that is not
  /// copied yet into staging, when the pool has room; returns true when it copied one (the
  /// caller may call again), false when there is none, no pool or no room (calling again is
  /// useless until a group is written). One group's copy (~1.2 GB for a 4B decoder layer, tens
  /// of ms) per call, so a caller polling something else between calls stays responsive. The
  /// caller's thread, as releaseGroup().
  bool stageNext();
  /// Direct writes: the caller lends its idle time to the write (the leader while it waits for
  /// gradients, with its AdamW team idle): copies and hashes at most 256 KiB of the piece the
  /// writer is at into a bounce buffer, so the write's CPU work runs where it takes no core
  /// from the team (issue 20: the writer thread, even idle-class, took time slices from team
  /// threads mid-pass, and every pass waits for its slowest thread). Returns true while a direct
  /// write is under way (it copied, or every bounce buffer is on its way to the disk, or the
  /// writer is between groups: call again while idle), false when there is nothing to pump
  /// (buffered writes, including a direct one whose file system refused O_DIRECT, past the last
  /// group, finished or failed). A direct write is under way from its construction. A caller that
  /// polls it while waiting for something else must check that something, and its abort flag,
  /// between calls: true may last the whole write. Never blocks for the disk; ~0.1 ms per call. The caller's thread, as
  /// releaseGroup().
  bool pumpIdle();
  /// Bytes pumpIdle() copied so far (any thread).
  uint64_t pumpedBytes() const { return pumped_bytes_.load(std::memory_order_relaxed); }
  /// Bytes copied by releaseGroup()/stageNext() so far, and the seconds the caller spent copying (any thread).
  uint64_t stagedBytes() const { return staged_total_.load(std::memory_order_relaxed); }
  double stagingSeconds() const { return staging_ns_.load(std::memory_order_relaxed) * 1e-9; }

  /// Blocks until the writer thread has finished; returns "" on success, else the first error.
  std::string wait();
  /// Asks the writer to stop at its next piece (the file is removed); wait() then reports it.
  void cancel() { cancel_.store(true, std::memory_order_release); }

  /// After a successful wait() (or inside on_complete, on the writer thread): the file's size
  /// and XXH3-64 digest, and the seconds from the start to the end of the fsync.
  const FileDigest& digest() const { return digest_; }
  double seconds() const { return seconds_; }
  /// True when direct_io was asked for and the file system refused it (the file was then
  /// written through the page cache). Final once finished().
  bool directFellBack() const { return direct_fell_back_.load(std::memory_order_acquire); }

 private:
  void run();
  /// Direct writes, on the writer thread: hands the segments (a group's tensors, or one piece
  /// of a rate-capped write) to the bounce buffers through
  /// pumpIdle() calls while the caller makes them, else copies it itself. Throws Cancelled-like
  /// errors as run() expects (UserError of a failed write; a cancel ends the wait).
  void feed(DirectStream& sink, StreamDigest& sum, std::vector<std::pair<const uint8_t*, size_t>> segments);
  /// After k bytes of the offered segments were copied: the next bytes (feed_mu_ held).
  void advanceFeed(size_t k);
  void stop(const std::string& error);
  /// Copies pending group g into a slice of the staging pool when it has room (lock held on
  /// entry and on return, released during the copy). False when g is not pending, there is no
  /// pool, or no room.
  bool stageLocked(int g, std::unique_lock<std::mutex>& lock);

  enum class GroupState : uint8_t { kPending, kCopying, kStaged, kWriting };

  std::string path_;
  std::vector<std::vector<TensorToWrite>> groups_;  // a staged group's sources: its copy (mu_)
  std::vector<uint64_t> group_bytes_;
  std::vector<GroupState> state_;                              // guarded by mu_
  std::vector<StagingPool::Slice> staged_;  // a staged group's copy; guarded by mu_
  std::atomic<uint64_t> staged_total_{0};
  std::atomic<int64_t> staging_ns_{0};
  std::string header_;  // the safetensors JSON header, padded
  StreamedWriterOptions opts_;
  std::atomic<int> written_{0};
  std::atomic<bool> finished_{false};
  std::atomic<bool> cancel_{false};
  std::atomic<bool> direct_fell_back_{false};
  // The piece feed() offers to pumpIdle(): guarded by feed_mu_ (the copy too, whoever makes it).
  std::mutex feed_mu_;
  std::condition_variable feed_cv_;
  DirectStream* feed_sink_ = nullptr;
  StreamDigest* feed_sum_ = nullptr;
  std::vector<std::pair<const uint8_t*, size_t>> feed_segments_;
  size_t feed_i_ = 0;               // the next segment
  const uint8_t* feed_p_ = nullptr;  // the bytes left of the current one
  size_t feed_n_ = 0;
  std::atomic<bool> writing_{false};  // a direct write from construction to its last group
  std::atomic<int64_t> last_pump_ns_{0};      // steady_clock of the last pumpIdle() call
  // The caller is blocked in waitGroup/releaseGroup/wait (it cannot pump meanwhile): feed()
  // copies at once instead of waiting for the pumping.
  std::atomic<int> caller_waiting_{0};
  struct CallerWaiting {
    explicit CallerWaiting(StreamedSafetensorsWriter& w) : w(w) {
      w.caller_waiting_.fetch_add(1, std::memory_order_acq_rel);
      // Never blocks on feed_mu_ (the writer holds it while it copies a whole unit itself, and
      // then sees the count anyway): under it when free, so the notify cannot fall between
      // feed()'s check and its wait; else plainly (a missed one costs feed() its 20 ms timeout).
      if (w.feed_mu_.try_lock()) {
        w.feed_cv_.notify_all();
        w.feed_mu_.unlock();
      } else {
        w.feed_cv_.notify_all();
      }
    }
    ~CallerWaiting() { w.caller_waiting_.fetch_sub(1, std::memory_order_acq_rel); }
    StreamedSafetensorsWriter& w;
  };
  uint64_t file_bytes_ = 0;   // header and tensors (constructor)
  uint64_t fed_bytes_ = 0;    // copied into the bounce buffers so far (feed_mu_)
  int64_t start_ns_ = 0;      // steady_clock at the writer's start (constructor)
  std::atomic<uint64_t> pumped_bytes_{0};
  std::mutex mu_;
  std::condition_variable cv_;
  std::string error_;  // guarded by mu_ until finished_
  FileDigest digest_;  // written by the thread before finished_
  double seconds_ = 0;
  std::thread thread_;
};

}  // namespace slidedp::formats
