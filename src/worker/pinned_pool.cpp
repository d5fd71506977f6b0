// Exact-size host buffers (see pinned_pool.h).
#include "worker/pinned_pool.h"

#include <cstdlib>
#include <iterator>
#include <utility>
#include <vector>

#include "common/errors.h"
#ifdef SLIDEDP_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

namespace slidedp {

HostBuffer::HostBuffer(size_t bytes, bool pinned) : bytes_(roundUp(bytes > 0 ? bytes : 1)), pinned_(pinned) {
  if (pinned_) {
#ifdef SLIDEDP_WITH_CUDA
    const cudaError_t e = cudaHostAlloc(&data_, bytes_, cudaHostAllocDefault);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      data_ = nullptr;
      throwUserError("could not page-lock {} bytes of host memory for offloaded activations "
                     "(cudaHostAlloc: {}).\nHINT: drop --offload-activations, a larger "
                     "--gpu-memory-budget (inputs the GPU cannot hold go to the host), or fewer "
                     "tokens per step", bytes_, cudaGetErrorString(e));
    }
#else
    throwUserError("pinned host buffers need a CUDA build");
#endif
  } else {
    data_ = std::aligned_alloc(kPage, bytes_);
    if (!data_) throwUserError("could not allocate {} bytes of host memory for activations", bytes_);
  }
}

void HostBuffer::release() {
  if (!data_) return;
#ifdef SLIDEDP_WITH_CUDA
  if (pinned_) {
    cudaFreeHost(data_);
    data_ = nullptr;
    return;
  }
#endif
  std::free(data_);
  data_ = nullptr;
}

HostBuffer::~HostBuffer() { release(); }

HostBuffer::HostBuffer(HostBuffer&& o) noexcept
    : data_(std::exchange(o.data_, nullptr)), bytes_(o.bytes_), pinned_(o.pinned_) {}

HostBuffer& HostBuffer::operator=(HostBuffer&& o) noexcept {
  if (this != &o) {
    release();
    data_ = std::exchange(o.data_, nullptr);
    bytes_ = o.bytes_;
    pinned_ = o.pinned_;
  }
  return *this;
}

std::shared_ptr<HostBufferPool> HostBufferPool::create(bool pinned) {
  return std::shared_ptr<HostBufferPool>(new HostBufferPool(pinned));
}

HostBufferPool::~HostBufferPool() = default;

std::shared_ptr<HostBuffer> HostBufferPool::acquire(size_t bytes) {
  const size_t n = HostBuffer::roundUp(bytes > 0 ? bytes : 1);
  std::unique_ptr<HostBuffer> b;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = idle_.find(n);
    if (it != idle_.end()) {
      b = std::move(it->second);
      idle_.erase(it);
      idle_bytes_ -= n;
    }
  }
  if (!b) {
    b = std::make_unique<HostBuffer>(n, pinned_);  // outside the lock: pinning is slow
    std::lock_guard<std::mutex> lock(mu_);
    held_ += n;
    ++allocations_;
  }
  // The handle returns the buffer to the pool while the pool lives, else frees it.
  std::weak_ptr<HostBufferPool> pool = weak_from_this();
  return std::shared_ptr<HostBuffer>(b.release(), [pool](HostBuffer* p) {
    if (auto sp = pool.lock())
      sp->giveBack(p);
    else
      delete p;
  });
}

void HostBufferPool::giveBack(HostBuffer* b) {
  std::lock_guard<std::mutex> lock(mu_);
  idle_bytes_ += b->bytes();
  idle_.emplace(b->bytes(), std::unique_ptr<HostBuffer>(b));
}

void HostBufferPool::clear() {
  std::multimap<size_t, std::unique_ptr<HostBuffer>> freed;
  {
    std::lock_guard<std::mutex> lock(mu_);
    freed.swap(idle_);
    held_ -= idle_bytes_;
    idle_bytes_ = 0;
  }
}

bool HostBufferPool::hasIdle(size_t bytes) const {
  std::lock_guard<std::mutex> lock(mu_);
  return idle_.count(HostBuffer::roundUp(bytes > 0 ? bytes : 1)) > 0;
}

void HostBufferPool::trim(size_t max_idle_bytes) {
  std::vector<std::unique_ptr<HostBuffer>> freed;  // freed outside the lock: unpinning is slow
  {
    std::lock_guard<std::mutex> lock(mu_);
    while (idle_bytes_ > max_idle_bytes && !idle_.empty()) {
      auto it = std::prev(idle_.end());
      idle_bytes_ -= it->first;
      held_ -= it->first;
      freed.push_back(std::move(it->second));
      idle_.erase(it);
    }
  }
}

size_t HostBufferPool::bytesHeld() const {
  std::lock_guard<std::mutex> lock(mu_);
  return held_;
}
size_t HostBufferPool::bytesIdle() const {
  std::lock_guard<std::mutex> lock(mu_);
  return idle_bytes_;
}
size_t HostBufferPool::allocations() const {
  std::lock_guard<std::mutex> lock(mu_);
  return allocations_;
}

}  // namespace slidedp
