// Aligned bounce buffers between a byte stream and an O_DIRECT file (see direct_stream.h).
#include "formats/direct_stream.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <new>

#include "common/errors.h"

namespace slidedp::formats {

DirectStream::DirectStream(IoPool& pool, size_t buffer_bytes, int buffers)
    : pool_(pool), buffer_bytes_((std::max<size_t>(buffer_bytes, kAlign) + kAlign - 1) / kAlign * kAlign) {
  for (int i = 0; i < std::max(2, buffers); ++i) {
    void* p = std::aligned_alloc(kAlign, buffer_bytes_);
    if (!p) {
      for (auto* q : all_) std::free(q);
      throw std::bad_alloc();
    }
    all_.push_back(static_cast<uint8_t*>(p));
  }
  free_ = all_;
  cur_ = acquire(true);
}

DirectStream::~DirectStream() {
  {  // every buffer back: none is still read by a write in flight
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return free_.size() + (cur_ ? 1 : 0) >= all_.size(); });
  }
  for (auto* p : all_) std::free(p);
}

uint8_t* DirectStream::acquire(bool wait) {
  std::unique_lock<std::mutex> lock(mu_);
  if (!wait && free_.empty()) return nullptr;
  cv_.wait(lock, [&] { return !free_.empty(); });
  uint8_t* p = free_.back();
  free_.pop_back();
  return p;
}

void DirectStream::submitCurrent(size_t bytes) {
  uint8_t* buf = cur_;
  cur_ = nullptr;
  pool_.submit(buf, bytes, offset_, [this, buf] {
    // Notified under the lock: the destructor, woken by the last buffer, cannot destroy cv_
    // before this call is done with it.
    std::lock_guard<std::mutex> lock(mu_);
    free_.push_back(buf);
    cv_.notify_all();
  });
  offset_ += bytes;
  fill_ = 0;
}

size_t DirectStream::putSome(const uint8_t* p, size_t n, StreamDigest& sum, size_t max, bool wait) {
  // Slices of 1 MiB at most: copied, then hashed from the cache.
  constexpr size_t kSlice = 1u << 20;
  size_t done = 0;
  n = std::min(n, max);
  while (done < n) {
    if (!cur_) {
      if (pool_.failed()) {
        if (!wait) break;  // never blocks: the owner that may wait reports it
        pool_.drain();     // throws the write's error
      }
      cur_ = acquire(wait);
      if (!cur_) break;
    }
    const size_t k = std::min({n - done, buffer_bytes_ - fill_, kSlice});
    std::memcpy(cur_ + fill_, p + done, k);
    sum.update(cur_ + fill_, k);
    fill_ += k;
    size_ += k;
    done += k;
    if (fill_ == buffer_bytes_) submitCurrent(fill_);
  }
  return done;
}

void DirectStream::finish(int fd, const std::string& path) {
  if (fill_ > 0) {
    const size_t padded = (fill_ + kAlign - 1) / kAlign * kAlign;
    std::memset(cur_ + fill_, 0, padded - fill_);
    submitCurrent(padded);
  }
  pool_.drain();
  if (!cur_) cur_ = acquire(true);  // the destructor counts it back
  if (::ftruncate(fd, static_cast<off_t>(size_)) != 0)
    throwUserError("{}: cannot truncate to {} bytes: {}", path, size_, std::strerror(errno));
}

}  // namespace slidedp::formats
