// Exact-size page-locked host buffers for offloaded activations (issue 14's 512K kill): torch's
// pinned CachingHostAllocator rounds every block up to a power of two, so a 2.5 GiB boundary
// activation of a 512K-token row took a 4 GiB block (144 GiB for 36 layers, on top of the host
// state), and the OOM killer ended the job. Here each buffer is cudaHostAlloc'd at its exact
// size rounded up to the 4 KiB page (or, unpinned, plain page-aligned memory: CPU workers and
// tests), and kept in a pool by size for the next step, since pinning is slow (~1 s per 10 GiB)
// and a step needs the same sizes again.
// Design decision: the pool never synchronises; every device copy into or out of a buffer runs
// on one stream (the worker's offload stream), so a buffer handed out again is written only after
// the copies of its previous use in that stream's order. clear() and the destructor free idle
// buffers: the caller synchronises that stream first (cudaFreeHost of memory a copy still reads
// is undefined).
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace slidedp {

/// One host buffer of `bytes()` bytes (the requested size rounded up to 4 KiB), page-aligned;
/// page-locked and registered with the CUDA driver when pinned. Move-only.
class HostBuffer {
 public:
  static constexpr size_t kPage = 4096;
  /// Allocates; throws UserError when the memory cannot be had (with the bytes asked), and
  /// when `pinned` on a build without CUDA.
  HostBuffer(size_t bytes, bool pinned);
  ~HostBuffer();
  HostBuffer(HostBuffer&& o) noexcept;
  HostBuffer& operator=(HostBuffer&& o) noexcept;
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;
  void* data() const { return data_; }
  size_t bytes() const { return bytes_; }
  bool pinned() const { return pinned_; }
  /// `n` rounded up to kPage.
  static size_t roundUp(size_t n) { return (n + kPage - 1) / kPage * kPage; }

 private:
  void release();
  void* data_ = nullptr;
  size_t bytes_ = 0;
  bool pinned_ = false;
};

/// Buffers by exact (page-rounded) size, reused across steps. acquire() hands out a shared
/// handle; when its last copy is dropped the buffer returns to the pool (any thread).
class HostBufferPool : public std::enable_shared_from_this<HostBufferPool> {
 public:
  /// `pinned`: cudaHostAlloc (GPU workers of a CUDA build), else aligned host memory.
  static std::shared_ptr<HostBufferPool> create(bool pinned);
  ~HostBufferPool();

  /// An idle buffer of roundUp(bytes) bytes, or a new one. Throws as HostBuffer does.
  std::shared_ptr<HostBuffer> acquire(size_t bytes);
  /// Whether acquire(bytes) would hand out an idle buffer (allocate nothing).
  bool hasIdle(size_t bytes) const;
  /// Frees the idle buffers (see the file comment: synchronise the copy stream first).
  void clear();
  /// Frees idle buffers, the largest first, until at most `max_idle_bytes` stay idle (same
  /// precondition as clear()).
  void trim(size_t max_idle_bytes);
  /// Bytes of every buffer the pool owns (in use and idle), and of the idle ones.
  size_t bytesHeld() const;
  size_t bytesIdle() const;
  /// Buffers allocated since creation (a steady state allocates none per step).
  size_t allocations() const;

 private:
  explicit HostBufferPool(bool pinned) : pinned_(pinned) {}
  void giveBack(HostBuffer* b);
  const bool pinned_;
  mutable std::mutex mu_;
  std::multimap<size_t, std::unique_ptr<HostBuffer>> idle_;
  size_t held_ = 0, idle_bytes_ = 0, allocations_ = 0;
};

}  // namespace slidedp
