// The pace of a streamed checkpoint's direct write (CheckpointRequest::finish_by_s and
// ::pump_grace_s), from the job's recent step times. The leader copies the write into the
// bounce buffers in its idle time (StreamedSafetensorsWriter::pumpIdle, while it waits for
// gradients); the writer thread copies by itself, on cores the AdamW team uses, only when the
// pumping is behind `finish_by_s`'s linear schedule or has stopped for `pump_grace_s`.
// Pure arithmetic: no MPI, no threads.
#pragma once

#include <cstdint>
#include <vector>

namespace slidedp {

struct CheckpointPace {
  /// Seconds from the write's start by which it should be done: 80% of `steps_ahead` steps at
  /// the median recent step, so a write finishes before the checkpoint after it (or the last
  /// step, which waits for it) with a fifth of the interval to spare. 0: no schedule.
  double finish_by_s = 0;
  /// Seconds without pumping after which the writer copies by itself: twice the median step,
  /// at least 1 s. The leader's busy stretch between two idle times (its AdamW update, ~1.1 s of
  /// a 1.65 s step at 4B on 1x H200) is shorter than one step; a fixed 1 s grace expired inside
  /// every such update and put the writer's copy on the update's cores (+0.24 s per step, main
  /// b768f00, tools/gpu-check.sh ckpt with SLIDEDP_CKPT_EVERY=100). 0: the writer's default.
  double pump_grace_s = 0;
};

/// `recent_step_s`: the last steps' wall times in seconds (any order; the job passes up to 10);
/// `steps_ahead`: steps until the checkpoint after this one, or until the last step, if sooner
/// (>= 0). Empty `recent_step_s` (a checkpoint before any step was timed) or `steps_ahead` 0:
/// both 0 (the writer's defaults: no schedule, 1 s grace). Never throws.
CheckpointPace checkpointPace(std::vector<double> recent_step_s, int64_t steps_ahead);

}  // namespace slidedp
