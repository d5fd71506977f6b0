// Whether a training job plans its policy (--policy auto, planner/) or runs its flags as given
// (--policy manual). `auto` is the default on GPU workers of one node: there the planner's
// knobs are its to choose unless the run names one of them; CPU workers (the stand-ins for GPUs
// of tests and CI), several nodes, a --route-sweep, or a knob flag given keep the default
// manual. An explicit --policy auto plans in every case the planner covers (one node) and
// overrides the knob flags. launcher/slidedp-run mirrors this rule (auto_policy_needs_plan) to
// calibrate first; tests/launcher/test_launcher.sh checks both name the same knobs.
#pragma once

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace slidedp {

/// The flags --policy auto chooses itself (the planner's knobs, planner/policy.h).
inline constexpr const char* kPolicyKnobFlags[] = {
    "--delivery",   "--reduction",   "--chunk-numel",   "--ring-slots",          "--window",
    "--micro-batch-rows", "--activations", "--max-kept-layers", "--offload-activations", "--leader-threads"};

/// The knob flags `app` was given (command line or --config file), in kPolicyKnobFlags' order.
/// Call after app.parse().
std::vector<std::string> policyKnobsGiven(const CLI::App& app);

struct PolicyChoice {
  bool plan = false;      // run the planner's best policy
  bool defaulted = false; // --policy was not given (then a missing calibration falls back to manual)
  std::string why_manual; // a default that stays manual: why, for the log ("" otherwise)
};

/// The rule above. `policy`: the --policy value ("auto" or "manual"); `given`: whether the run
/// named it; `knobs`: policyKnobsGiven; `cuda`: GPU workers; `nodes`: nodes of the job.
PolicyChoice choosePolicy(const std::string& policy, bool given, const std::vector<std::string>& knobs,
                          bool cuda, int nodes, bool route_sweep);

}  // namespace slidedp
