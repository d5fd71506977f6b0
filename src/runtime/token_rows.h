// The step's token rows: which rows of the embedding matrix [V, C] the step's input tokens
// touch (their union over every worker), and the packed order of those rows' elements.
//
// Why: the embedding's gradient is the LM head's gradient (tied embeddings: dense over all V
// rows, known right after the head) plus the lookup's scatter-add (only the rows of the step's
// input tokens, known only after the last layer's backward). Rows outside that set have their
// final gradient after the head, so the leader can update them while the GPUs run the layers'
// backward; only the token rows are left for the end of the step (the "row-split embedding
// update", runtime/chunk_plan.h). The same split pays for untied embeddings, whose gradient is
// zero outside the token rows (AdamW still moves them: moments decay, weight decay applies).
//
// Packed order: the token rows in ascending order, each row's C elements contiguous; element
// (r, j) of the unit at packed index rank(r) * C + j. The part of an element range [b, e) of
// the unit that lies in token rows is one contiguous packed range [packedIndex(b),
// packedIndex(e)). Pure functions, no MPI, no LibTorch.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace slidedp {

/// A set of rows of [V, C] as a bitmap of ceil(V / 64) words (bit r % 64 of word r / 64).
class TokenRows {
 public:
  TokenRows() = default;
  /// Wraps `words` (ceil(V / 64) of them, not owned, must outlive this) for V rows of C columns.
  TokenRows(const uint64_t* words, int64_t V, int64_t C);

  /// Words of the bitmap of V rows.
  static int64_t wordsFor(int64_t V) { return (V + 63) / 64; }
  /// Sets the bits of `ids` (each in [0, V); checked by the caller) in `words`.
  static void mark(const int64_t* ids, int64_t n, uint64_t* words);

  bool contains(int64_t row) const { return (words_[row >> 6] >> (row & 63)) & 1u; }
  int64_t numRows() const { return count_; }
  /// Elements of the token rows: numRows() * C.
  int64_t packedNumel() const { return count_ * C_; }
  /// Token rows before `row` (its packed row index when it is one).
  int64_t rank(int64_t row) const;
  /// Packed elements before unit element `e` (0 <= e <= V * C).
  int64_t packedIndex(int64_t e) const;
  /// The token rows in [rowBegin, rowEnd), ascending.
  std::vector<int64_t> rowsIn(int64_t rowBegin, int64_t rowEnd) const;
  /// The pieces of unit range [b, e) in token rows: (unit element, packed index, length) each,
  /// ascending, lengths summing to packedIndex(e) - packedIndex(b).
  struct Piece {
    int64_t element, packed, length;
  };
  std::vector<Piece> pieces(int64_t b, int64_t e) const;
  /// The complement: the pieces of [b, e) outside the token rows (packed = -1), ascending.
  std::vector<Piece> gaps(int64_t b, int64_t e) const { return complement(b, e, pieces(b, e)); }
  /// The pieces of [b, e) outside `inside` (ascending pieces of [b, e), e.g. pieces(b, e)).
  static std::vector<Piece> complement(int64_t b, int64_t e, const std::vector<Piece>& inside);

 private:
  const uint64_t* words_ = nullptr;
  int64_t V_ = 0, C_ = 0, count_ = 0;
  std::vector<int64_t> prefix_;  // prefix_[i]: token rows in words [0, i)
};

}  // namespace slidedp
