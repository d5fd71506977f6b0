// Learning-rate schedules by optimizer step, with the formulas of Hugging Face transformers
// (src/transformers/optimization.py: _get_constant_schedule_with_warmup_lr_lambda,
// _get_linear_schedule_with_warmup_lr_lambda, _get_cosine_schedule_with_warmup_lr_lambda),
// so a run here follows the same lr curve as Trainer with lr_scheduler_type constant_with_warmup
// / linear / cosine.
//
// Design decision: the argument is HF's `current_step` = the number of optimizer steps already
// completed (LambdaLR's last_epoch). The update that becomes torch's state["step"] = s uses
// scheduledLr(schedule, s - 1); with warm-up the first update therefore runs at lr 0, as in HF.
#pragma once

#include <cstdint>
#include <string>

namespace slidedp::optim {

enum class LrScheduleKind : uint8_t { kConstant, kLinear, kCosine };

struct LrSchedule {
  LrScheduleKind kind = LrScheduleKind::kConstant;
  double baseLr = 1e-3;       // the optimizer's lr
  int64_t warmupSteps = 0;    // num_warmup_steps
  int64_t trainingSteps = 0;  // num_training_steps (linear, cosine)
  double numCycles = 0.5;     // cosine: num_cycles (0.5 = one half-cosine down to 0)
};

/// "constant", "linear" or "cosine" (HF's constant_with_warmup, linear, cosine); throws
/// UserError otherwise.
LrScheduleKind parseLrScheduleKind(const std::string& name);

/// The multiplier HF's lr_lambda returns at `currentStep` (>= 0):
///   warm-up (currentStep < warmup):  currentStep / max(1, warmup)
///   constant:  1
///   linear:    max(0, (training - currentStep) / max(1, training - warmup))
///   cosine:    progress = (currentStep - warmup) / max(1, training - warmup)
///              max(0, 0.5 * (1 + cos(pi * numCycles * 2 * progress)))
double lrMultiplier(const LrSchedule& s, int64_t currentStep);

/// baseLr * lrMultiplier(s, currentStep).
double scheduledLr(const LrSchedule& s, int64_t currentStep);

}  // namespace slidedp::optim
