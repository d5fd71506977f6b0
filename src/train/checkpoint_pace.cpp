#include "train/checkpoint_pace.h"

#include <algorithm>

#include "common/median.h"

namespace slidedp {

CheckpointPace checkpointPace(std::vector<double> recent_step_s, int64_t steps_ahead) {
  recent_step_s.erase(std::remove_if(recent_step_s.begin(), recent_step_s.end(),
                                     [](double s) { return !(s > 0); }),  // NaN, 0, negative
                      recent_step_s.end());
  if (recent_step_s.empty() || steps_ahead <= 0) return {};
  const double step_s = median(std::move(recent_step_s));
  return {0.8 * static_cast<double>(steps_ahead) * step_s, std::max(1.0, 2.0 * step_s)};
}

}  // namespace slidedp
