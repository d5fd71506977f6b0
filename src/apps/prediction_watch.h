// --policy auto at run time: the plan's predicted step against the steps the run measures.
// The plan is made from rates calibrated at another moment (cached per machine and shape); on a
// shared host the leader's AdamW rate can move by more than the model's error between that
// moment and the run (the 1xH200 VM: updates of about 1.0 s a step one hour, 1.11-1.72 s the
// next, while calibrations taken minutes before each job rated the pass at 138-152 GB/s). The
// run then still trains correctly, but its policy was chosen for another machine state, and the
// user should hear it rather than find it in a log of numbers.
//
// PredictionWatch keeps the last `window` timed steps (a variant's first step is not one: it
// fills the pipeline, warms the allocator and touches memory first) and, the first time their
// median step is more than `tolerance` away from the prediction, returns one warning: by how
// much, each side against its prediction (the leader's update against the model's busy update
// time, the workers' forward + head + backward against their busy compute time), the side named
// as the likely cause (the leader when its excess, in seconds and in the step's direction, is at
// least half the step's; else the workers when theirs is in the step's direction; else the
// pipeline's waits), and what to do. It warns at most once per run; steps after that are not
// judged.
//
// Threading: one thread (the rank that logs steps, rank 0).
#pragma once

#include <deque>
#include <optional>
#include <string>

namespace slidedp {

struct PredictedStep {
  double step_s = 0;    // the model's step time (planner::Prediction::step_s), seconds
  double update_s = 0;  // the leader's busy update time (ResourceBusy::cpu_update), seconds
  double gpu_s = 0;     // one worker's busy compute time (ResourceBusy::gpu_compute), seconds
};

struct MeasuredStep {
  double step_s = 0;    // the step's wall time, seconds
  double update_s = 0;  // the leader's update time (the step line's leader_update_s), seconds
  double gpu_s = 0;     // forward + head + backward on the GPU (fwd_s + head_s + bwd_s, less
                        // version_wait_s: the waits for layer versions inside them), seconds
};

class PredictionWatch {
 public:
  /// `predicted.step_s` > 0; `window` >= 1 timed steps; `tolerance` a fraction (0.2: 20%, the
  /// step-time model's worst-error target). Throws std::invalid_argument otherwise.
  explicit PredictionWatch(PredictedStep predicted, int window = 5, double tolerance = 0.2);

  /// Records the variant's next step (the first one recorded is the untimed first step).
  /// Returns the warning text the first time the median of the last `window` timed steps is
  /// off by more than the tolerance; std::nullopt otherwise.
  std::optional<std::string> observe(const MeasuredStep& m);

 private:
  PredictedStep predicted_;
  int window_;
  double tolerance_;
  bool first_seen_ = false;
  bool warned_ = false;
  std::deque<MeasuredStep> last_;
};

}  // namespace slidedp
