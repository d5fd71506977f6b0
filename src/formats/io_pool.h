// pwrite()s of pieces of one file at their offsets on a few threads (formats/streamed_writer.h).
//
// Buffered files: the copy into the page cache, the part of a write a caller waits for up to
// the kernel's dirty limit, then runs on several cores. Files opened with O_DIRECT
// (formats/direct_stream.h): several requests are in flight, which a disk needs for its rate.
// A direct write the file system refuses (EINVAL: alignment it does not support) switches the
// file to buffered writes (fcntl F_SETFL) and is retried, once per piece; directFellBack() says so.
//
// Threads: `n` threads, started by the constructor and joined by the destructor (after every
// submitted piece is written), each in the idle scheduling class when `background`
// (common/thread_placement.h) and on the cores of the thread that constructs the pool.
// submit/drain/failed from one owner thread; `done` callbacks run on an I/O thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace slidedp::formats {

class IoPool {
 public:
  IoPool(int fd, std::string path, int n, bool background);
  ~IoPool();
  IoPool(const IoPool&) = delete;
  IoPool& operator=(const IoPool&) = delete;

  /// Writes bytes [p, p + n) at `offset`; p must stay valid until the piece is written. `done`
  /// (optional) runs on the I/O thread once the piece is written or failed.
  void submit(const uint8_t* p, size_t n, uint64_t offset, std::function<void()> done = {});
  /// Waits until every submitted piece is written; throws UserError with the first failure.
  void drain();
  /// True once a piece failed (drain() throws its message).
  bool failed() const { return failed_.load(std::memory_order_acquire); }
  /// True when a direct write was refused and the file switched to buffered writes.
  bool directFellBack() const { return fell_back_.load(std::memory_order_acquire); }

 private:
  struct Piece {
    const uint8_t* p;
    size_t n;
    uint64_t offset;
    std::function<void()> done;
  };
  void loop();
  /// After EINVAL: clears O_DIRECT on the file when it is set; true when the write may be retried.
  bool dropDirect();
  int fd_;
  std::string path_;
  bool background_;
  std::mutex mu_;
  std::condition_variable cv_, done_;
  std::deque<Piece> queue_;
  size_t pending_ = 0;
  bool closing_ = false;
  std::string error_;
  std::atomic<bool> failed_{false};
  std::atomic<bool> fell_back_{false};
  std::mutex fcntl_mu_;
  std::vector<std::thread> threads_;
};

}  // namespace slidedp::formats
