// Deterministic permutations of [0, n) for shuffling documents and windows.
// Design decision: a keyed Feistel network on the smallest even-bit power-of-two domain that
// covers n, with cycle-walking back into [0, n). It is a bijection evaluated in O(1) time and
// memory per index (no index vector for billions of windows), and it uses only fixed-width
// unsigned integer arithmetic, so the order is identical on every platform, compiler and
// standard library (no std::uniform_int_distribution, whose output is implementation-defined).
#pragma once

#include <cstdint>

namespace slidedp::data {

/// SplitMix64 (Steele, Lea, Flood 2014): a 64-bit mixing function; the key schedule and the
/// Feistel round function.
uint64_t splitmix64(uint64_t x);

/// A bijection of [0, n) chosen by `key`. Identity when n <= 1.
class Permutation {
 public:
  Permutation() = default;
  /// `n` >= 0 elements; `key` any 64-bit value (DataLoader passes a hash of (seed, epoch)).
  Permutation(uint64_t n, uint64_t key);

  /// The image of i, for 0 <= i < n (unchecked beyond an assert). Expected < 4 Feistel
  /// evaluations (the covering domain is smaller than 4n).
  uint64_t operator()(uint64_t i) const;
  uint64_t size() const { return n_; }

 private:
  static constexpr int kRounds = 6;
  uint64_t encrypt(uint64_t x) const;

  uint64_t n_ = 0;
  int halfBits_ = 1;
  uint64_t halfMask_ = 1;
  uint64_t roundKeys_[kRounds] = {};
};

}  // namespace slidedp::data
