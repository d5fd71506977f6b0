// A file's bytes, handed over in order, copied into aligned bounce buffers and written with
// O_DIRECT (formats/streamed_writer.h, StreamedWriterOptions::direct_io).
//
// Why: a buffered write copies every byte into the page cache inside pwrite (kernel mode, not
// preempted by the training threads that share the writer's cores), and kernel writeback
// threads and page reclaim then work on the file in the normal scheduling class. Here the only
// copy is a memcpy in user space on the (idle-class) writer thread, which any training thread
// preempts at once, and the disk reads the bounce buffers by DMA: no page cache, no writeback
// threads, no dirty-page throttling. The caller's memory is free as soon as putSome() took it.
//
// Layout: buffers of `buffer_bytes` (a multiple of kAlign, aligned to kAlign) hold the stream
// at file offsets k * buffer_bytes; each full buffer is submitted to the IoPool, and the buffer
// comes back once written. finish() pads the last buffer with zeros to kAlign, writes it, waits
// for every write, then truncates the file to the stream's size.
// Threads: putSome/finish from one thread at a time (the writer, or the caller it lends
// the copy to under its lock: StreamedSafetensorsWriter::pumpIdle); buffers return on I/O threads.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "formats/file_digest.h"
#include "formats/io_pool.h"

namespace slidedp::formats {

class DirectStream {
 public:
  /// O_DIRECT's alignment of memory, offsets and sizes that every common Linux file system and
  /// block device accepts (logical blocks of 512 B or 4 KiB).
  static constexpr size_t kAlign = 4096;
  /// `buffers` bounce buffers of `buffer_bytes` each (rounded up to kAlign). Throws
  /// std::bad_alloc when they cannot be allocated.
  DirectStream(IoPool& pool, size_t buffer_bytes, int buffers);
  /// Waits for buffers still being written (the pool's) before freeing them.
  ~DirectStream();
  DirectStream(const DirectStream&) = delete;
  DirectStream& operator=(const DirectStream&) = delete;

  /// Appends at most `max` of the bytes [p, p + n): copies them into the current buffer and
  /// feeds the copy to `sum` (hashed while in cache), submitting each buffer that fills; returns
  /// how many it took, which the caller may change from then on. `wait` false: stops (possibly
  /// at 0) instead of waiting when every buffer is being written (the disk is behind) or a
  /// write failed. `wait` true: throws UserError when a write failed.
  size_t putSome(const uint8_t* p, size_t n, StreamDigest& sum, size_t max, bool wait);
  /// Writes the last partial buffer (zero-padded), waits for every write and truncates the file
  /// `fd` to the bytes put. Throws UserError on failure.
  void finish(int fd, const std::string& path);
  /// True once a write failed (any thread); throwIfFailed() then waits for the writes in flight
  /// and throws UserError with the first failure (the owner's thread).
  bool failed() const { return pool_.failed(); }
  void throwIfFailed() {
    if (pool_.failed()) pool_.drain();
  }

 private:
  uint8_t* acquire(bool wait);  // a free buffer (waiting for one being written), or null
  void submitCurrent(size_t bytes);
  IoPool& pool_;
  size_t buffer_bytes_;
  std::vector<uint8_t*> all_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<uint8_t*> free_;  // guarded by mu_
  uint8_t* cur_ = nullptr;
  size_t fill_ = 0;      // bytes in cur_
  uint64_t size_ = 0;    // bytes put
  uint64_t offset_ = 0;  // file offset of cur_
};

}  // namespace slidedp::formats
