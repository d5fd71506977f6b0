// pwrite()s of pieces at their offsets on a few threads (see io_pool.h).
#include "formats/io_pool.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/errors.h"
#include "common/thread_placement.h"

namespace slidedp::formats {

IoPool::IoPool(int fd, std::string path, int n, bool background)
    : fd_(fd), path_(std::move(path)), background_(background) {
  for (int i = 0; i < n; ++i) threads_.emplace_back([this] { loop(); });
}

IoPool::~IoPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    closing_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_) t.join();
}

void IoPool::submit(const uint8_t* p, size_t n, uint64_t offset, std::function<void()> done) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back({p, n, offset, std::move(done)});
    ++pending_;
  }
  cv_.notify_one();
}

void IoPool::drain() {
  std::unique_lock<std::mutex> lock(mu_);
  done_.wait(lock, [&] { return pending_ == 0; });
  if (!error_.empty()) throw UserError(error_);
}

bool IoPool::dropDirect() {
  std::lock_guard<std::mutex> lock(fcntl_mu_);
  const int flags = ::fcntl(fd_, F_GETFL);
  if (flags < 0) return false;
  if (flags & O_DIRECT) {
    if (::fcntl(fd_, F_SETFL, flags & ~O_DIRECT) != 0) return false;
    fell_back_.store(true, std::memory_order_release);
  }
  return true;  // cleared now, or by another thread since this write was issued
}

void IoPool::loop() {  // the constructing thread's cores, inherited
  if (background_) lowerThreadPriority();
  for (;;) {
    Piece piece;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return closing_ || !queue_.empty(); });
      if (queue_.empty()) return;
      piece = std::move(queue_.front());
      queue_.pop_front();
    }
    std::string error;
    bool retried = false;
    while (piece.n > 0 && error.empty()) {
      const ssize_t w = ::pwrite(fd_, piece.p, piece.n, static_cast<off_t>(piece.offset));
      if (w < 0 && errno == EINTR) continue;
      if (w < 0 && errno == EINVAL && !retried && dropDirect()) {
        retried = true;
        continue;
      }
      if (w <= 0) {
        error = fmt::format("{}: write failed: {}\nHINT: check free disk space", path_,
                            w < 0 ? std::strerror(errno) : "no progress");
        break;
      }
      piece.p += w;
      piece.n -= static_cast<size_t>(w);
      piece.offset += static_cast<uint64_t>(w);
    }
    if (piece.done) piece.done();
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!error.empty() && error_.empty()) {
        error_ = error;
        failed_.store(true, std::memory_order_release);
      }
      --pending_;
    }
    done_.notify_all();
  }
}

}  // namespace slidedp::formats
