#include "apps/prediction_watch.h"

#include <cmath>
#include <stdexcept>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "common/median.h"

namespace slidedp {

namespace {

template <typename F>
double medianOf(const std::deque<MeasuredStep>& steps, F&& field) {
  std::vector<double> v;
  for (const auto& s : steps) v.push_back(field(s));
  return median(std::move(v));
}

std::string part(const char* what, double measured, double predicted) {
  if (!(predicted > 0)) return fmt::format("{} {:.3f} s (not predicted)", what, measured);
  return fmt::format("{} {:.3f} s against {:.3f} s predicted ({:+.0f}%)", what, measured, predicted,
                     100 * (measured - predicted) / predicted);
}

}  // namespace

PredictionWatch::PredictionWatch(PredictedStep predicted, int window, double tolerance)
    : predicted_(predicted), window_(window), tolerance_(tolerance) {
  if (!(predicted.step_s > 0) || !std::isfinite(predicted.step_s))
    throw std::invalid_argument(fmt::format("PredictionWatch: predicted step {} s must be > 0", predicted.step_s));
  if (window < 1) throw std::invalid_argument(fmt::format("PredictionWatch: window {} must be >= 1", window));
  if (!(tolerance > 0)) throw std::invalid_argument(fmt::format("PredictionWatch: tolerance {} must be > 0", tolerance));
}

std::optional<std::string> PredictionWatch::observe(const MeasuredStep& m) {
  if (!first_seen_) {  // the variant's first step: fill, allocator warm-up, first touch
    first_seen_ = true;
    return std::nullopt;
  }
  if (warned_) return std::nullopt;
  last_.push_back(m);
  if (static_cast<int>(last_.size()) > window_) last_.pop_front();
  if (static_cast<int>(last_.size()) < window_) return std::nullopt;
  const double step = medianOf(last_, [](const MeasuredStep& s) { return s.step_s; });
  const double off = (step - predicted_.step_s) / predicted_.step_s;
  if (std::abs(off) <= tolerance_) return std::nullopt;
  warned_ = true;
  const double update = medianOf(last_, [](const MeasuredStep& s) { return s.update_s; });
  const double gpu = medianOf(last_, [](const MeasuredStep& s) { return s.gpu_s; });
  // The cause, in seconds and in the step's direction: the leader's update when its own excess
  // explains at least half of the step's; else the workers' compute when it moved the same way.
  // Not relative moves: a slow leader also stretches the workers' measured spans (backward
  // waits for hand-offs inside them), so the workers are named only when the update does not
  // explain the step. A side without a prediction (0) is not judged.
  const double ds = step - predicted_.step_s;
  const double du = predicted_.update_s > 0 ? update - predicted_.update_s : 0;
  const double dg = predicted_.gpu_s > 0 ? gpu - predicted_.gpu_s : 0;
  const char* cause;
  if (du * ds > 0 && std::abs(du) >= 0.5 * std::abs(ds))
    cause = ds > 0 ? "the host's AdamW rate in this run is below its calibration (other load on the "
                     "host's memory or cores, or a calibration taken at a quieter time)"
                   : "the host's AdamW rate in this run is above its calibration";
  else if (dg * ds > 0)
    cause = ds > 0 ? "the workers compute slower than calibrated (another process on the GPU or the "
                     "worker's cores, a lower clock or power cap)"
                   : "the workers compute faster than calibrated";
  else
    cause = "neither side alone: the pipeline's waits between them (deliveries, hand-offs) differ "
            "from the model's";
  return fmt::format(
      "--policy auto: the last {} steps took {:.3f} s (median) against the plan's {:.3f} s ({:+.0f}%, "
      "beyond the model's {:.0f}%): {}; {}. Likely cause: {}. The plan's choice among policies may "
      "not hold.\nHINT: `launcher/slidedp-run --plan -- <this run's arguments> --recalibrate` "
      "measures this machine again (the next run plans from it); or give the knob flags yourself "
      "with --policy manual",
      window_, step, predicted_.step_s, 100 * off, 100 * tolerance_,
      part("the leader's update", update, predicted_.update_s),
      part("the workers' forward + head + backward", gpu, predicted_.gpu_s), cause);
}

}  // namespace slidedp
