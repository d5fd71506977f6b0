// A safetensors file written group by group on a background thread (see streamed_writer.h).
#include "formats/streamed_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <deque>
#include <thread>

#include "common/errors.h"
#include "common/thread_placement.h"

namespace slidedp::formats {

namespace {


/// Thrown inside the writer thread when cancel() was called.
struct Cancelled {};

/// pwrite()s of pieces at their file offsets on `n` threads, so copying into the page cache
/// (the part of a write the caller waits for, up to the dirty limit) runs on several cores.
/// The digest stays with the caller, which hashes every piece in file order before submitting.
class IoPool {
 public:
  IoPool(int fd, const std::string& path, int n, bool background)
      : fd_(fd), path_(path), background_(background) {
    for (int i = 0; i < n; ++i) threads_.emplace_back([this] { loop(); });
  }
  ~IoPool() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      closing_ = true;
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
  }
  void submit(const uint8_t* p, size_t n, uint64_t offset) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      queue_.push_back({p, n, offset});
      ++pending_;
    }
    cv_.notify_one();
  }
  /// Waits until every submitted piece is written; throws UserError on the first failure.
  void drain() {
    std::unique_lock<std::mutex> lock(mu_);
    done_.wait(lock, [&] { return pending_ == 0; });
    if (!error_.empty()) throw UserError(error_);
  }

 private:
  struct Piece {
    const uint8_t* p;
    size_t n;
    uint64_t offset;
  };
  void loop() {  // started by the writer thread: its cores inherited (run())
    if (background_) lowerThreadPriority();
    for (;;) {
      Piece piece;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] { return closing_ || !queue_.empty(); });
        if (queue_.empty()) return;
        piece = queue_.front();
        queue_.pop_front();
      }
      std::string error;
      while (piece.n > 0 && error.empty()) {
        const ssize_t w = ::pwrite(fd_, piece.p, piece.n, static_cast<off_t>(piece.offset));
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
          error = fmt::format("{}: write failed: {}\nHINT: check free disk space", path_,
                              w < 0 ? std::strerror(errno) : "no progress");
          break;
        }
        piece.p += w;
        piece.n -= static_cast<size_t>(w);
        piece.offset += static_cast<uint64_t>(w);
      }
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (!error.empty() && error_.empty()) error_ = error;
        --pending_;
      }
      done_.notify_all();
    }
  }
  int fd_;
  std::string path_;
  bool background_;
  std::mutex mu_;
  std::condition_variable cv_, done_;
  std::deque<Piece> queue_;
  size_t pending_ = 0;
  bool closing_ = false;
  std::string error_;
  std::vector<std::thread> threads_;
};

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
  state_.assign(groups_.size(), GroupState::kPending);
  staged_.resize(groups_.size());
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

bool StreamedSafetensorsWriter::stageNext() {
  if (!opts_.staging || finished_.load(std::memory_order_acquire)) return false;
  std::unique_lock<std::mutex> lock(mu_);
  // The first group the writer has not reached and nobody copied; in write order only, as the
  // pool is a ring freed in write order.
  for (int g = written_.load(std::memory_order_acquire); g < numGroups(); ++g)
    if (state_[g] == GroupState::kPending) return stageLocked(g, lock);
  return false;
}

std::string StreamedSafetensorsWriter::wait() {
  if (thread_.joinable()) thread_.join();
  std::lock_guard<std::mutex> lock(mu_);
  return error_;
}

void StreamedSafetensorsWriter::stop(const std::string& error) {
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
    fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) throwUserError("{}: cannot create: {}", path_, std::strerror(errno));
    StreamDigest sum;
    uint64_t at = 0;  // file offset
    std::string head(8, '\0');
    for (int i = 0; i < 8; ++i) head[i] = static_cast<char>(uint64_t{header_.size()} >> (8 * i));
    head += header_;
    IoPool pool(fd, path_, std::max(1, opts_.io_threads), opts_.background);
    // Hashed here, in file order, then written by the pool; a piece's memory is the caller's
    // and stays unchanged until its group is marked, after pool.drain().
    auto put = [&](const void* p, size_t n) {
      sum.update(p, n);
      pool.submit(static_cast<const uint8_t*>(p), n, at);
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
      for (const auto& t : tensors) {
        const auto* p = static_cast<const uint8_t*>(t.src);
        const uint64_t total = tensorBytes(t);
        for (uint64_t off = 0; off < total; off += opts_.piece_bytes) {
          if (cancel_.load(std::memory_order_acquire)) {
            pool.drain();
            throw Cancelled{};
          }
          put(p + off, static_cast<size_t>(std::min<uint64_t>(opts_.piece_bytes, total - off)));
        }
      }
      pool.drain();
      if (opts_.before_mark) opts_.before_mark(static_cast<int>(g));
      // Start writeback of this group now (asynchronous; errors surface at the fsync).
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
      if (opts_.staging) {
        const auto from = static_cast<off_t>(prev_begin);
        const auto len = static_cast<off_t>(group_begin - prev_begin);
        ::sync_file_range(fd, from, len, SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE |
                                             SYNC_FILE_RANGE_WAIT_AFTER);
        ::posix_fadvise(fd, from, len, POSIX_FADV_DONTNEED);
      }
      prev_begin = group_begin;
    }
    if (cancel_.load(std::memory_order_acquire)) throw Cancelled{};
    if (::fsync(fd) != 0) throwUserError("{}: fsync failed: {}", path_, std::strerror(errno));
    if (opts_.staging) ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);  // the rest of it
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
