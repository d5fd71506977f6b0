// Keyed Feistel permutation with cycle-walking (see permutation.h).
#include "data/permutation.h"

#include "common/errors.h"

namespace slidedp::data {

uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

Permutation::Permutation(uint64_t n, uint64_t key) : n_(n) {
  // Smallest 2*halfBits_ >= 2 with 2^(2*halfBits_) >= n.
  halfBits_ = 1;
  while (halfBits_ < 32 && (uint64_t{1} << (2 * halfBits_)) < n) ++halfBits_;
  halfMask_ = (uint64_t{1} << halfBits_) - 1;
  uint64_t k = key;
  for (int r = 0; r < kRounds; ++r) {
    k = splitmix64(k);
    roundKeys_[r] = k;
  }
}

uint64_t Permutation::encrypt(uint64_t x) const {
  uint64_t left = x >> halfBits_, right = x & halfMask_;
  for (int r = 0; r < kRounds; ++r) {
    const uint64_t f = splitmix64(right ^ roundKeys_[r]) & halfMask_;
    const uint64_t next = left ^ f;
    left = right;
    right = next;
  }
  return (left << halfBits_) | right;
}

uint64_t Permutation::operator()(uint64_t i) const {
  SLIDEDP_ASSERT(i < n_ || n_ == 0, "permutation index {} out of [0, {})", i, n_);
  if (n_ <= 1) return i;
  uint64_t x = encrypt(i);
  while (x >= n_) x = encrypt(x);  // cycle-walking: terminates, the cycle of i contains i
  return x;
}

}  // namespace slidedp::data
