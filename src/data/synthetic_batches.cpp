#include "data/synthetic_batches.h"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "common/errors.h"

namespace slidedp {

GlobalBatch SyntheticBatches::batch(int64_t step) {
  GlobalBatch b;
  b.B = B_;
  b.T = T_;
  b.input_ids.resize(B_ * T_);
  b.labels.resize(B_ * T_);
  uint64_t x = seed_ * 0x9e3779b97f4a7c15ull + static_cast<uint64_t>(step);
  auto next = [&x] {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;  // xorshift64
    return x;
  };
  std::vector<int64_t> stream(T_ + 1);
  for (int64_t r = 0; r < B_; ++r) {
    for (auto& t : stream) t = static_cast<int64_t>(next() % static_cast<uint64_t>(V_));
    std::copy(stream.begin(), stream.end() - 1, b.input_ids.begin() + r * T_);
    std::copy(stream.begin() + 1, stream.end(), b.labels.begin() + r * T_);
  }
  if (docMin_ > 0) {
    b.position_ids.resize(B_ * T_);
    for (int64_t r = 0; r < B_; ++r) {
      for (int64_t t0 = 0; t0 < T_;) {
        const int64_t len = std::min<int64_t>(
            T_ - t0, docMin_ + static_cast<int64_t>(next() % static_cast<uint64_t>(docMax_ - docMin_ + 1)));
        for (int64_t i = 0; i < len; ++i) b.position_ids[r * T_ + t0 + i] = i;
        b.labels[r * T_ + t0 + len - 1] = -100;  // no target across the document boundary
        t0 += len;
      }
    }
  }
  return b;
}

/// `synthetic-packed:MIN:MAX` -> {MIN, MAX} (tokens per document); throws UserError if malformed.
std::pair<int64_t, int64_t> parsePackedSynthetic(const std::string& spec) {
  const std::string prefix = "synthetic-packed:";
  const std::string rest = spec.substr(prefix.size());
  const auto colon = rest.find(':');
  long long lo = 0, hi = 0;
  char tail = 0;
  if (colon == std::string::npos ||
      std::sscanf(rest.c_str(), "%lld:%lld%c", &lo, &hi, &tail) != 2 || lo < 2 || hi < lo)
    throwUserError("--data {}: expected synthetic-packed:MIN:MAX with 2 <= MIN <= MAX tokens per "
                   "document (e.g. synthetic-packed:256:2048)", spec);
  return {lo, hi};
}

}  // namespace slidedp
