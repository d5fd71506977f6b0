// XXH3-64 file digests (see file_digest.h).
#include "formats/file_digest.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "common/errors.h"

namespace slidedp::formats {

struct StreamDigest::State {
  XXH3_state_t st;
};

StreamDigest::StreamDigest() : s_(std::make_unique<State>()) { XXH3_64bits_reset(&s_->st); }
StreamDigest::~StreamDigest() = default;

void StreamDigest::update(const void* p, size_t n) {
  XXH3_64bits_update(&s_->st, p, n);
  bytes_ += n;
}

FileDigest StreamDigest::finish() const {
  return {bytes_, fmt::format("{:016x}", static_cast<uint64_t>(XXH3_64bits_digest(&s_->st)))};
}

FileDigest digestFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throwUserError("{}: cannot open: {}", path, std::strerror(errno));
  StreamDigest d;
  std::vector<char> buf(8u << 20);
  for (off_t at = 0;;) {
    const ssize_t n = ::pread(fd, buf.data(), buf.size(), at);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      throwUserError("{}: read failed: {}", path, std::strerror(err));
    }
    if (n == 0) break;
    d.update(buf.data(), static_cast<size_t>(n));
    at += n;
  }
  ::close(fd);
  return d.finish();
}

void verifyFileDigest(const std::string& path, const FileDigest& expected) {
  const FileDigest got = digestFile(path);
  if (got.bytes != expected.bytes || got.xxh3 != expected.xxh3)
    throwUserError("{} is damaged: it has {} bytes with checksum {} but was written with {} bytes "
                   "and checksum {} (XXH3-64).\nHINT: the file changed after it was written (disk "
                   "error, an interrupted copy, an edit); resume from an older step directory of "
                   "the same --checkpoint-dir (--resume DIR/step-...), or restore the file",
                   path, got.bytes, got.xxh3, expected.bytes, expected.xxh3);
}

}  // namespace slidedp::formats
