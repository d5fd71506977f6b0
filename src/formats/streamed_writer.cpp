// A safetensors file written group by group on a background thread (see streamed_writer.h).
#include "formats/streamed_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <deque>
#include <optional>
#include <thread>

#include "common/errors.h"
#include "common/log.h"
#include "common/thread_placement.h"
#include "formats/direct_stream.h"
#include "formats/io_pool.h"

namespace slidedp::formats {

namespace {


/// Thrown inside the writer thread when cancel() was called.
struct Cancelled {};

int64_t steadyNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch()).count();
}
constexpr size_t kPumpSlice = 256u << 10;  // bytes per pumpIdle() call: ~0.1 ms of copy + hash

}  // namespace

StreamedSafetensorsWriter::StreamedSafetensorsWriter(
    std::string path, std::vector<std::vector<TensorToWrite>> groups,
    const std::map<std::string, std::string>& metadata, StreamedWriterOptions opts)
    : path_(std::move(path)), groups_(std::move(groups)), opts_(std::move(opts)) {
  if (opts_.piece_bytes == 0) opts_.piece_bytes = 8u << 20;
  // The header as writeSafetensors writes it (same JSON, same padding), tensors in write order.
  std::vector<TensorToWrite> flat;
  for (const auto& group : groups_)
    for (const auto& t : group) {
      if (t.srcDType != t.dtype)
        throwUserError("{}: tensor '{}': the streamed writer copies bytes and cannot convert {} to "
                       "{}", path_, t.name, dtypeName(t.srcDType), dtypeName(t.dtype));
      flat.push_back(t);
    }
  header_ = safetensorsHeader(path_, flat, metadata);
  for (const auto& group : groups_) {
    uint64_t n = 0;
    for (const auto& t : group) n += tensorBytes(t);
    group_bytes_.push_back(n);
  }
  file_bytes_ = 8 + header_.size();
  for (uint64_t n : group_bytes_) file_bytes_ += n;
  start_ns_ = steadyNs();
  state_.assign(groups_.size(), GroupState::kPending);
  staged_.resize(groups_.size());
  // Writing from the start, not from when the thread gets to its header: a caller pumping
  // right after construction (the leader's next wait) must not see "nothing to do" and stop.
  writing_.store(opts_.direct_io, std::memory_order_release);
  thread_ = std::thread([this] { run(); });
}

StreamedSafetensorsWriter::~StreamedSafetensorsWriter() {
  cancel();
  if (thread_.joinable()) thread_.join();
  staged_.clear();  // back to the pool, which opts_ may hold the last reference to
}

double StreamedSafetensorsWriter::waitGroup(int g, const std::function<void()>& poll) {
  auto ready = [&] {
    return written_.load(std::memory_order_acquire) > g || finished_.load(std::memory_order_acquire);
  };
  if (ready()) return 0;
  const auto t0 = std::chrono::steady_clock::now();
  std::unique_lock<std::mutex> lock(mu_);
  const CallerWaiting waiting(*this);  // blocked from here on: the writer copies at once
  while (!ready()) {
    cv_.wait_for(lock, std::chrono::milliseconds(50), ready);
    if (!ready() && poll) {
      lock.unlock();
      poll();
      lock.lock();
    }
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

namespace {

/// Copies `n` bytes on up to `threads` threads (slices of at least 64 MiB), started here, on
/// every core of the rank (common/thread_placement.h).
void parallelCopy(uint8_t* dst, const uint8_t* src, size_t n, int threads) {
  const size_t min_slice = 64u << 20;
  const int k = static_cast<int>(std::max<size_t>(1, std::min<size_t>(std::max(1, threads), n / min_slice)));
  if (k == 1) {
    std::memcpy(dst, src, n);
    return;
  }
  std::vector<std::thread> pool;
  const size_t slice = (n + k - 1) / k;
  for (int i = 1; i < k; ++i) {
    const size_t b = i * slice, e = std::min(n, b + slice);
    if (b < e) pool.emplace_back([=] {
      useAllRankCores();
      std::memcpy(dst + b, src + b, e - b);
    });
  }
  std::memcpy(dst, src, std::min(n, slice));
  for (auto& t : pool) t.join();
}

}  // namespace

bool StreamedSafetensorsWriter::stageLocked(int g, std::unique_lock<std::mutex>& lock) {
  if (!opts_.staging || state_[g] != GroupState::kPending) return false;
  StagingPool::Slice slice = opts_.staging->tryAllocate(group_bytes_[g]);
  if (!slice) return false;
  state_[g] = GroupState::kCopying;  // the writer waits for the copy before it starts g
  lock.unlock();
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<const void*> copies;
  uint64_t at = 0;
  for (const auto& t : groups_[g]) {  // sources unchanged: the caller has not released g
    const uint64_t n = tensorBytes(t);
    if (opts_.copy)
      opts_.copy(slice.data() + at, static_cast<const uint8_t*>(t.src), n);
    else
      parallelCopy(slice.data() + at, static_cast<const uint8_t*>(t.src), n, opts_.copy_threads);
    copies.push_back(slice.data() + at);
    at += n;
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  lock.lock();
  for (size_t i = 0; i < copies.size(); ++i) groups_[g][i].src = copies[i];
  staged_[g] = std::move(slice);
  state_[g] = GroupState::kStaged;
  cv_.notify_all();
  staged_total_.fetch_add(group_bytes_[g], std::memory_order_relaxed);
  staging_ns_.fetch_add(static_cast<int64_t>(s * 1e9), std::memory_order_relaxed);
  return true;
}

double StreamedSafetensorsWriter::releaseGroup(int g, const std::function<void()>& poll) {
  SLIDEDP_ASSERT(g >= 0 && g < numGroups(), "releaseGroup({}) of {} groups", g, numGroups());
  auto written = [&] {
    return written_.load(std::memory_order_acquire) > g || finished_.load(std::memory_order_acquire);
  };
  if (written()) return 0;
  const auto t0 = std::chrono::steady_clock::now();
  std::unique_lock<std::mutex> lock(mu_);
  std::optional<CallerWaiting> waiting;  // from the first time it blocks, not while it stages
  // g's memory is free once written, or once a copy of it exists (staged ahead, or being
  // written from its copy).
  auto free_now = [&] { return written() || static_cast<bool>(staged_[g]); };
  while (!free_now()) {
    if (stageLocked(g, lock)) break;
    // g is being written (the writer reads the caller's memory) or there is no room: copy the
    // groups after it that the writer has not reached, while waiting anyway. The caller
    // releases in write order (the leader's update order), so without this it would chase the
    // writer group by group and every group would cost the disk's time.
    bool copied = false;
    for (int h = g + 1; state_[g] == GroupState::kWriting && h < numGroups() && !written(); ++h) {
      if (state_[h] == GroupState::kStaged || state_[h] == GroupState::kWriting) continue;
      copied = stageLocked(h, lock);
      break;  // in write order only: the first group the writer has not reached, or none
    }
    if (copied || free_now()) continue;
    // until g is free, or a group is written (its staging slice, if any, returned to the pool)
    const int seen = written_.load(std::memory_order_acquire);
    if (!waiting) waiting.emplace(*this);
    cv_.wait_for(lock, std::chrono::milliseconds(50), [&] {
      return free_now() || written_.load(std::memory_order_acquire) != seen;
    });
    if (!free_now() && poll) {
      lock.unlock();
      poll();
      lock.lock();
    }
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

namespace {
/// Bounce buffers of a direct write: ~256 MiB of pieces, at least io_threads + 2.
int directBounceBuffers(const StreamedWriterOptions& o) {
  return std::max<int>(std::max(1, o.io_threads) + 2,
                       static_cast<int>((size_t{256} << 20) / std::max<size_t>(o.piece_bytes, 1)));
}
}  // namespace

size_t directBounceBytes(const StreamedWriterOptions& o) {
  const size_t piece = (std::max<size_t>(o.piece_bytes, 1) + DirectStream::kAlign - 1) /
                       DirectStream::kAlign * DirectStream::kAlign;
  return piece * static_cast<size_t>(directBounceBuffers(o));
}

bool StreamedSafetensorsWriter::stageNext() {
  if (!opts_.staging || finished_.load(std::memory_order_acquire)) return false;
  std::unique_lock<std::mutex> lock(mu_);
  // The first group the writer has not reached and nobody copied; in write order only, as the
  // pool is a ring freed in write order.
  for (int g = written_.load(std::memory_order_acquire); g < numGroups(); ++g)
    if (state_[g] == GroupState::kPending) return stageLocked(g, lock);
  return false;
}

void StreamedSafetensorsWriter::feed(DirectStream& sink, StreamDigest& sum,
                                     std::vector<std::pair<const uint8_t*, size_t>> segments) {
  const auto grace_ns = static_cast<int64_t>(opts_.pump_grace_s * 1e9);
  std::unique_lock<std::mutex> lock(feed_mu_);
  feed_sink_ = &sink;
  feed_sum_ = &sum;
  feed_segments_ = std::move(segments);
  feed_i_ = 0;
  feed_p_ = nullptr;
  feed_n_ = 0;
  // However feed() ends (done, cancelled, a failed write), nothing is offered any more, under
  // the lock (declared after it: runs first): pumpIdle() never touches the sink, the digest or
  // the segments once the writer unwinds past them.
  struct Withdraw {
    StreamedSafetensorsWriter* w;
    ~Withdraw() {
      w->feed_n_ = 0;
      w->feed_segments_.clear();
      w->feed_sink_ = nullptr;
      w->feed_sum_ = nullptr;
    }
  } withdraw{this};
  advanceFeed(0);
  while (feed_n_ > 0) {
    if (cancel_.load(std::memory_order_acquire)) throw Cancelled{};
    sink.throwIfFailed();  // a write failed (the caller's pumping stops on it and wakes us)
    const int64_t last = last_pump_ns_.load(std::memory_order_acquire), now = steadyNs();
    const bool behind = opts_.finish_by_s > 0 &&
                        static_cast<double>(fed_bytes_) <
                            static_cast<double>(file_bytes_) *
                                std::min(1.0, (now - start_ns_) * 1e-9 / opts_.finish_by_s);
    if (grace_ns <= 0 || last == 0 || now - last > grace_ns || behind ||
        caller_waiting_.load(std::memory_order_acquire) > 0) {
      // Nobody pumps (yet, or any more), the pumping is behind the schedule, or the caller is
      // blocked on a group (releaseGroup/waitGroup: it cannot pump, and its threads are idle):
      // copy here (the lock held: the copy is one owner's at a time), then look again.
      advanceFeed(sink.putSome(feed_p_, feed_n_, sum, kPumpSlice * 4, true));
      continue;
    }
    feed_cv_.wait_for(lock, std::chrono::milliseconds(20), [&] {
      return feed_n_ == 0 || sink.failed() || caller_waiting_.load(std::memory_order_acquire) > 0;
    });
  }
}

void StreamedSafetensorsWriter::advanceFeed(size_t k) {
  fed_bytes_ += k;
  feed_p_ += k;
  feed_n_ -= k;
  while (feed_n_ == 0 && feed_i_ < feed_segments_.size()) {
    feed_p_ = feed_segments_[feed_i_].first;
    feed_n_ = feed_segments_[feed_i_].second;
    ++feed_i_;
  }
}

bool StreamedSafetensorsWriter::pumpIdle() {
  if (!opts_.direct_io || finished_.load(std::memory_order_acquire)) return false;
  last_pump_ns_.store(steadyNs(), std::memory_order_release);
  const bool writing = writing_.load(std::memory_order_acquire);
  // Nothing to copy now but the write goes on: a short sleep, so a caller polling through its
  // wait leaves the core to threads that share it (CPU workers) and reacts within ~0.1 ms.
  auto later = [&] {
    if (writing) std::this_thread::sleep_for(std::chrono::microseconds(20));
    return writing;
  };
  std::unique_lock<std::mutex> lock(feed_mu_, std::try_to_lock);
  if (!lock.owns_lock() || feed_n_ == 0) {  // the writer copies a slice, or between groups
    if (lock.owns_lock()) lock.unlock();
    return later();
  }
  if (feed_sink_->failed()) {  // the writer reports it (woken here); nothing more to pump
    lock.unlock();
    feed_cv_.notify_all();
    return false;
  }
  size_t k = 0;
  try {
    k = feed_sink_->putSome(feed_p_, feed_n_, *feed_sum_, kPumpSlice, false);
  } catch (const std::exception&) {  // e.g. an allocation: the writer copies instead
    return false;
  }
  if (k == 0) {  // every buffer on its way to the disk, or a write just failed
    const bool failed = feed_sink_->failed();
    lock.unlock();
    if (failed) {
      feed_cv_.notify_all();
      return false;
    }
    return later();
  }
  advanceFeed(k);
  pumped_bytes_.fetch_add(k, std::memory_order_relaxed);
  if (feed_n_ == 0) {
    lock.unlock();
    feed_cv_.notify_all();
  }
  return true;
}

std::string StreamedSafetensorsWriter::wait() {
  if (thread_.joinable()) {
    const CallerWaiting waiting(*this);  // the caller pumps no more: the writer copies the rest
    thread_.join();
  }
  std::lock_guard<std::mutex> lock(mu_);
  return error_;
}

void StreamedSafetensorsWriter::stop(const std::string& error) {
  writing_.store(false, std::memory_order_release);
  {
    std::lock_guard<std::mutex> lock(mu_);
    error_ = error;
    finished_.store(true, std::memory_order_release);
  }
  cv_.notify_all();
}

void StreamedSafetensorsWriter::run() {
  useAllRankCores();  // off the caller's core; the I/O threads started here inherit it
  if (opts_.background) lowerThreadPriority();
  const auto t0 = std::chrono::steady_clock::now();
  int fd = -1;
  std::string error;
  try {
    const int flags = O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC;
    bool direct = opts_.direct_io;
    fd = direct ? ::open(path_.c_str(), flags | O_DIRECT, 0644) : -1;
    if (fd < 0 && direct) {
      if (errno != EINVAL) throwUserError("{}: cannot create: {}", path_, std::strerror(errno));
      direct = false;  // a file system without O_DIRECT (tmpfs before Linux 6.6): buffered
      direct_fell_back_.store(true, std::memory_order_release);
      writing_.store(false, std::memory_order_release);  // nothing for the caller to pump
    }
    if (!direct) fd = ::open(path_.c_str(), flags, 0644);
    if (fd < 0) throwUserError("{}: cannot create: {}", path_, std::strerror(errno));
    StreamDigest sum;
    uint64_t at = 0;  // file offset
    std::string head(8, '\0');
    for (int i = 0; i < 8; ++i) head[i] = static_cast<char>(uint64_t{header_.size()} >> (8 * i));
    head += header_;
    IoPool pool(fd, path_, std::max(1, opts_.io_threads), opts_.background);
    // Direct: copied into bounce buffers (and hashed there) by put; the caller's memory is free
    // once put returns. Buffered: hashed here, in file order, then written by the pool; a
    // piece's memory is the caller's and stays unchanged until its group is marked, after
    // pool.drain().
    std::unique_ptr<DirectStream> bounce;
    if (direct)
      bounce = std::make_unique<DirectStream>(pool, opts_.piece_bytes, directBounceBuffers(opts_));
    auto put = [&](const void* p, size_t n) {
      if (bounce) {
        feed(*bounce, sum, {{static_cast<const uint8_t*>(p), n}});
      } else {
        sum.update(p, n);
        pool.submit(static_cast<const uint8_t*>(p), n, at);
      }
      at += n;
      if (opts_.max_bytes_per_s > 0) {  // not ahead of the cap (a piece at a time, cancellable)
        const double ahead_s = std::min(at / opts_.max_bytes_per_s, 1e9);  // no ns overflow
        const auto due = t0 + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                  std::chrono::duration<double>(ahead_s));
        while (std::chrono::steady_clock::now() < due && !cancel_.load(std::memory_order_acquire))
          std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
              due - std::chrono::steady_clock::now(), std::chrono::milliseconds(50)));
      }
    };
    put(head.data(), head.size());
    uint64_t prev_begin = 0;  // the group before this one, from the header on
    for (size_t g = 0; g < groups_.size(); ++g) {
      const uint64_t group_begin = at;
      std::vector<TensorToWrite> tensors;  // the caller's memory, or its staged copy
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] { return state_[g] != GroupState::kCopying; });  // a copy of g being made
        if (state_[g] == GroupState::kPending) state_[g] = GroupState::kWriting;
        tensors = groups_[g];
      }
      if (bounce && opts_.max_bytes_per_s <= 0) {
        // Direct and uncapped: the whole group at once, so the caller's pumping runs through it
        // without waiting for this thread between pieces.
        std::vector<std::pair<const uint8_t*, size_t>> segments;
        for (const auto& t : tensors)
          segments.emplace_back(static_cast<const uint8_t*>(t.src), static_cast<size_t>(tensorBytes(t)));
        feed(*bounce, sum, std::move(segments));
        at += group_bytes_[g];
      } else for (const auto& t : tensors) {
        const auto* p = static_cast<const uint8_t*>(t.src);
        const uint64_t total = tensorBytes(t);
        for (uint64_t off = 0; off < total; off += opts_.piece_bytes) {
          if (cancel_.load(std::memory_order_acquire)) {
            bounce.reset();  // its buffers back from the pool
            pool.drain();
            throw Cancelled{};
          }
          put(p + off, static_cast<size_t>(std::min<uint64_t>(opts_.piece_bytes, total - off)));
        }
      }
      if (!bounce) pool.drain();  // direct: the group is in the bounce buffers already
      else if (pool.failed()) pool.drain();  // throws the write's error
      if (opts_.before_mark) opts_.before_mark(static_cast<int>(g));
      // Start writeback of this group now (asynchronous; errors surface at the fsync).
      if (!bounce)
        ::sync_file_range(fd, static_cast<off_t>(group_begin), static_cast<off_t>(at - group_begin),
                          SYNC_FILE_RANGE_WRITE);
      {
        std::lock_guard<std::mutex> lock(mu_);
        written_.store(static_cast<int>(g) + 1, std::memory_order_release);
        staged_[g].reset();  // back to the pool
      }
      cv_.notify_all();
      if (opts_.after_group) opts_.after_group(static_cast<int>(g) + 1);
      // With staging memory (the caller never waits for the disk), the previous group: wait
      // until the disk has it (its writeback started a group ago, so the disk stays busy with
      // this one meanwhile), then drop it from the page cache. The file then never fills the
      // page cache: no reclaim by kswapd and no dirty-page throttling competing with the
      // training threads; this (low-priority) thread does the freeing. Without staging the page
      // cache is what lets the caller go on, so it is left to absorb the write.
      if (opts_.staging && !bounce) {
        const auto from = static_cast<off_t>(prev_begin);
        const auto len = static_cast<off_t>(group_begin - prev_begin);
        ::sync_file_range(fd, from, len, SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE |
                                             SYNC_FILE_RANGE_WAIT_AFTER);
        ::posix_fadvise(fd, from, len, POSIX_FADV_DONTNEED);
      }
      prev_begin = group_begin;
    }
    writing_.store(false, std::memory_order_release);
    if (cancel_.load(std::memory_order_acquire)) throw Cancelled{};
    if (bounce) {
      bounce->finish(fd, path_);
      bounce.reset();
    }
    if (pool.directFellBack()) direct_fell_back_.store(true, std::memory_order_release);
    if (::fsync(fd) != 0) throwUserError("{}: fsync failed: {}", path_, std::strerror(errno));
    if (opts_.staging && !direct) ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);  // the rest of it
    const int rc = ::close(fd);
    fd = -1;
    if (rc != 0) throwUserError("{}: close failed: {}", path_, std::strerror(errno));
    digest_ = sum.finish();
    seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (opts_.on_complete) opts_.on_complete(digest_);
  } catch (const Cancelled&) {
    error = fmt::format("{}: the write was cancelled", path_);
  } catch (const std::exception& e) {
    error = e.what();
  } catch (...) {
    error = fmt::format("{}: unknown error while writing", path_);
  }
  if (fd >= 0) ::close(fd);
  if (!error.empty()) ::unlink(path_.c_str());
  stop(error);
}

}  // namespace slidedp::formats
