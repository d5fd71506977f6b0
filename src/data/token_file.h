// Token streams on disk, memory-mapped read-only: llm.c .bin (256 x int32 header, magic
// 20240520), headerless .bin (nanoGPT: raw little-endian uint16, or uint32), and 1-D .npy.
// Design decision: nothing is copied at open; the header is validated completely at open()
// (magic, version, token count vs file size, npy dtype/shape), and checkIds() range-checks every
// token id in one parallel pass over the mapping at start-up (about a second per GB), so a bad
// id is reported with the file and its token index before the first step.
#pragma once

#include <cstdint>
#include <string>

namespace slidedp::data {

/// Element types of token files (little-endian on disk).
enum class TokenDType { kU16, kU32, kI32, kI64 };

/// "uint16", "uint32", "int32", "int64".
const char* tokenDTypeName(TokenDType d);
/// Bytes per element (2, 4, 4, 8).
int tokenDTypeSize(TokenDType d);

/// A read-only mapping of one token file. Move-only; unmaps on destruction.
class TokenFile {
 public:
  /// Opens a .bin file. An llm.c header (int32 magic 20240520 at byte 0; version 1 = uint16,
  /// 2 = uint32; int32 token count at [2]; data at byte 1024) is detected by its magic;
  /// otherwise the file is headerless with `dtype` "auto"/"uint16" (nanoGPT) or "uint32".
  /// Throws UserError naming the file when it cannot be opened, an llm.c header has an unknown
  /// version or a token count that disagrees with the file size, `dtype` contradicts the
  /// header or is not one of the above, or a headerless file's size is not a multiple of the
  /// element size.
  /// `vocab_size` > 65536 with a headerless file and dtype "auto" is refused: uint16 and
  /// uint32 cannot be told apart, and reading uint32 ids as uint16 trains on garbage.
  static TokenFile openBin(const std::string& path, const std::string& dtype, int64_t vocab_size = 0);
  /// Opens a .npy file (format versions 1-3): a 1-D C- or Fortran-order array of dtype
  /// '<u2', '<u4', '<i4' or '<i8' ('|'/'=' byte orders accepted for little-endian hosts).
  /// Throws UserError naming the file for a bad magic, an unparsable header, another dtype
  /// (big-endian, float, ...), a shape that is not 1-D, or a data size that disagrees with the
  /// shape.
  static TokenFile openNpy(const std::string& path);

  TokenFile(TokenFile&& o) noexcept;
  TokenFile& operator=(TokenFile&& o) noexcept;
  TokenFile(const TokenFile&) = delete;
  TokenFile& operator=(const TokenFile&) = delete;
  ~TokenFile();

  /// Number of tokens (elements).
  int64_t size() const { return n_; }
  TokenDType dtype() const { return dtype_; }
  const std::string& path() const { return path_; }
  /// "llm.c .bin v1 (uint16)", "headerless .bin (uint16)", ".npy (<i8)", ...
  const std::string& kind() const { return kind_; }

  /// Copies tokens [begin, begin + count) into `out` (count int64 values), checking each id is
  /// in [0, vocab_size). Throws UserError naming the file and the token index of the first bad
  /// id. Requires begin + count <= size() (asserted).
  void read(int64_t begin, int64_t count, int64_t vocab_size, int64_t* out) const;

  /// Checks every token id is in [0, vocab_size), in one pass over the mapping on all cores
  /// (before the first step, not when the id's batch comes). Throws UserError naming the file,
  /// the first bad id and its token index, and the dtype it was read as.
  void checkIds(int64_t vocab_size) const;

 private:
  TokenFile() = default;
  void map(const std::string& path);
  void release();

  std::string path_, kind_;
  const uint8_t* base_ = nullptr;  // the whole file
  size_t bytes_ = 0;               // file size
  const uint8_t* data_ = nullptr;  // first token (not necessarily aligned: read with memcpy)
  int64_t n_ = 0;
  TokenDType dtype_ = TokenDType::kU16;
};

}  // namespace slidedp::data
