// HF transformers lr_lambda formulas, transcribed in double (see lr_schedule.h).
#include "optim/lr_schedule.h"

#include <algorithm>
#include <cmath>

#include "common/errors.h"

namespace slidedp::optim {

LrScheduleKind parseLrScheduleKind(const std::string& name) {
  if (name == "constant" || name == "constant_with_warmup") return LrScheduleKind::kConstant;
  if (name == "linear") return LrScheduleKind::kLinear;
  if (name == "cosine") return LrScheduleKind::kCosine;
  throwUserError("optim: unknown lr schedule '{}'; expected constant, linear or cosine", name);
}

double lrMultiplier(const LrSchedule& s, int64_t currentStep) {
  if (currentStep < s.warmupSteps)
    return static_cast<double>(currentStep) /
           static_cast<double>(std::max<int64_t>(1, s.warmupSteps));
  switch (s.kind) {
    case LrScheduleKind::kConstant:
      return 1.0;
    case LrScheduleKind::kLinear:
      return std::max(
          0.0, static_cast<double>(s.trainingSteps - currentStep) /
                   static_cast<double>(std::max<int64_t>(1, s.trainingSteps - s.warmupSteps)));
    case LrScheduleKind::kCosine: {
      const double progress =
          static_cast<double>(currentStep - s.warmupSteps) /
          static_cast<double>(std::max<int64_t>(1, s.trainingSteps - s.warmupSteps));
      return std::max(0.0, 0.5 * (1.0 + std::cos(M_PI * s.numCycles * 2.0 * progress)));
    }
  }
  return 1.0;
}

double scheduledLr(const LrSchedule& s, int64_t currentStep) {
  return s.baseLr * lrMultiplier(s, currentStep);
}

}  // namespace slidedp::optim
