// A token file written by tools/data/prepare.py (format: tools/data/token_format.py), memory-
// mapped read-only: token ids (uint16/uint32), a per-token loss mask and document boundaries,
// behind a JSON header that records dtype, vocabulary size, the tokenizer's identity (SHA-256 of
// its tokenizer.json / tokenizer.model) and counts.
// Design decision: everything is checked at open(), before any rank allocates its share of the
// model: the header against the file size and against the model (vocabulary, tokenizer), and
// every id and mask byte in one parallel pass over the mapping; batches then read the mapping
// without copying the data into memory.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace slidedp::data {

class PreparedFile {
 public:
  /// True when `path` is a regular file starting with the magic "SLIDEDPT".
  static bool detect(const std::string& path);

  /// Opens, maps and validates the file. `vocab_size`: the model's V (ids must be < V and the
  /// header's tokenizer vocabulary <= V). `model_dir` (may be ""): when it holds the tokenizer
  /// file the header names, its SHA-256 must equal the header's. Throws UserError naming the
  /// file, what was expected and found, and the command to re-prepare, for: a truncated file
  /// or header, a bad JSON header, another format version, a dtype that cannot hold the
  /// vocabulary, sections outside the file, a vocabulary or tokenizer of another model, an id
  /// >= V or a mask byte other than 0/1 (first bad index), document offsets not increasing
  /// from 0 to num_tokens, counts that disagree with the header, and no target token at all.
  static PreparedFile open(const std::string& path, int64_t vocab_size, const std::string& model_dir);

  PreparedFile(PreparedFile&& o) noexcept;
  PreparedFile& operator=(PreparedFile&& o) noexcept;
  PreparedFile(const PreparedFile&) = delete;
  PreparedFile& operator=(const PreparedFile&) = delete;
  ~PreparedFile();

  int64_t numTokens() const { return n_; }
  int64_t numDocuments() const { return d_; }
  /// Targets the runtime trains on: mask = 1 at positions > 0 of a document.
  int64_t numTargetTokens() const { return targets_; }
  /// Token id i (0 <= i < numTokens()).
  int64_t token(int64_t i) const {
    return u32_ ? int64_t(reinterpret_cast<const uint32_t*>(tokens_)[i])
                : int64_t(reinterpret_cast<const uint16_t*>(tokens_)[i]);
  }
  /// 1 when token i is a training target (transformers' unshifted label mask).
  bool trained(int64_t i) const { return mask_[i] != 0; }
  /// Document boundaries: document d is tokens [docOffsets()[d], docOffsets()[d+1]).
  const int64_t* docOffsets() const { return offsets_; }
  const nlohmann::json& header() const { return header_; }
  /// One line for the start-up print: dtype, counts, tokenizer identity and whether it was checked.
  std::string describe() const;
  /// Whether the header's tokenizer was compared with the model's own file (open's `model_dir`
  /// held the file the header names) and matched; false: not checked (open throws on a mismatch).
  bool tokenizerVerified() const { return tokenizerVerified_; }
  /// The header's tokenizer: its file name ("tokenizer.json", "tokenizer.model"; "" when the
  /// header has none) and the SHA-256 of that file (hex; "" when none).
  std::string tokenizerFile() const;
  std::string tokenizerSha256() const;
  /// The header's tokenizer EOS id (-1 when the header has none).
  int64_t tokenizerEosId() const;

 private:
  PreparedFile() = default;
  void release();

  std::string path_;
  nlohmann::json header_;
  const uint8_t* base_ = nullptr;
  size_t bytes_ = 0;
  const uint8_t* tokens_ = nullptr;
  const uint8_t* mask_ = nullptr;
  const int64_t* offsets_ = nullptr;
  bool u32_ = false;
  int64_t n_ = 0, d_ = 0, targets_ = 0;
  std::string tokenizerCheck_;
  bool tokenizerVerified_ = false;
};

}  // namespace slidedp::data
