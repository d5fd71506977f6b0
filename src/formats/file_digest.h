// Checksums of checkpoint files, so a resume notices values changed on disk (bit rot, a bad
// copy, a hand edit) instead of training on from them. XXH3-64 (xxHash, header-only, inlined:
// no run-time library), about 6 GB/s on one core, several times a disk's write rate, computed
// while a file is written and once more, by streaming the file, before it is loaded.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace slidedp::formats {

/// The digest of one file: its size in bytes and XXH3-64 of its bytes, as 16 hex digits.
struct FileDigest {
  uint64_t bytes = 0;
  std::string xxh3;  // 16 lowercase hex digits; "" when not computed
};

/// Incremental XXH3-64 over bytes fed in order. Not thread-safe.
class StreamDigest {
 public:
  StreamDigest();
  ~StreamDigest();
  StreamDigest(const StreamDigest&) = delete;
  StreamDigest& operator=(const StreamDigest&) = delete;
  void update(const void* p, size_t n);
  FileDigest finish() const;

 private:
  struct State;
  std::unique_ptr<State> s_;
  uint64_t bytes_ = 0;
};

/// Streams the file at `path` (pread of 8 MiB blocks) and returns its digest. Throws UserError
/// when it cannot be read.
FileDigest digestFile(const std::string& path);

/// Throws UserError naming `path` when its size or digest differs from `expected`; the message
/// says the checkpoint is damaged and what to do.
void verifyFileDigest(const std::string& path, const FileDigest& expected);

}  // namespace slidedp::formats
