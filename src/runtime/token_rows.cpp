#include "runtime/token_rows.h"

#include <algorithm>

namespace slidedp {

TokenRows::TokenRows(const uint64_t* words, int64_t V, int64_t C) : words_(words), V_(V), C_(C) {
  const int64_t W = wordsFor(V);
  prefix_.resize(W + 1);
  prefix_[0] = 0;
  for (int64_t i = 0; i < W; ++i) prefix_[i + 1] = prefix_[i] + __builtin_popcountll(words[i]);
  count_ = prefix_[W];
}

void TokenRows::mark(const int64_t* ids, int64_t n, uint64_t* words) {
  for (int64_t i = 0; i < n; ++i) words[ids[i] >> 6] |= uint64_t{1} << (ids[i] & 63);
}

int64_t TokenRows::rank(int64_t row) const {
  const int64_t w = row >> 6, bit = row & 63;
  const uint64_t below = bit == 0 ? 0 : words_[w] & ((uint64_t{1} << bit) - 1);
  return prefix_[w] + __builtin_popcountll(below);
}

int64_t TokenRows::packedIndex(int64_t e) const {
  const int64_t row = e / C_, col = e - row * C_;
  if (row >= V_) return packedNumel();
  return rank(row) * C_ + (contains(row) ? col : 0);
}

std::vector<int64_t> TokenRows::rowsIn(int64_t rowBegin, int64_t rowEnd) const {
  std::vector<int64_t> rows;
  rowEnd = std::min(rowEnd, V_);
  for (int64_t r = std::max<int64_t>(rowBegin, 0); r < rowEnd;) {
    const uint64_t word = words_[r >> 6] >> (r & 63);
    if (word == 0) {  // skip to the next word
      r = (r | 63) + 1;
      continue;
    }
    r += __builtin_ctzll(word);
    if (r < rowEnd) rows.push_back(r);
    ++r;
  }
  return rows;
}

std::vector<TokenRows::Piece> TokenRows::pieces(int64_t b, int64_t e) const {
  std::vector<Piece> out;
  if (b >= e) return out;
  for (int64_t r : rowsIn(b / C_, (e - 1) / C_ + 1)) {
    const int64_t s = std::max(b, r * C_), t = std::min(e, (r + 1) * C_);
    out.push_back({s, rank(r) * C_ + (s - r * C_), t - s});
  }
  return out;
}

std::vector<TokenRows::Piece> TokenRows::complement(int64_t b, int64_t e, const std::vector<Piece>& inside) {
  std::vector<Piece> out;
  int64_t at = b;
  for (const Piece& p : inside) {
    if (p.element > at) out.push_back({at, -1, p.element - at});
    at = p.element + p.length;
  }
  if (e > at) out.push_back({at, -1, e - at});
  return out;
}

}  // namespace slidedp
