// The median of a sample, as the job's summaries and the checkpoint pace report it.
#pragma once

#include <algorithm>
#include <vector>

namespace slidedp {

/// The median of `v` (the mean of the middle pair for an even count); 0 for an empty `v`.
inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

}  // namespace slidedp
