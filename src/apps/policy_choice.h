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
    "--micro-batch-rows", "--gradient-accumulation-steps", "--activations", "--max-kept-layers",
    "--offload-activations", "--leader-threads", "--update-tail-units"};

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

/// The resolved configuration `resolved` (CLI11's `key=value` lines, as slidedp_worker prints
/// and every checkpoint saves it) with each knob line set to what the plan runs: `flags` is
/// planner::Policy::flags ("--key value" pairs and bare "--switch"es); a knob it leaves out
/// takes its off value (offload-activations=false, leader-threads=0, max-kept-layers=-1).
/// `note` goes in as a `#` comment line first. Fed back as a --config file, the result runs the
/// planned policy as given, the same run, where the defaults' lines ran the defaults.
/// A quoted value stays quoted; a knob without a line is appended. Throws std::invalid_argument
/// on a `flags` token that is not a --flag or its value.
std::string withPlannedPolicy(const std::string& resolved, const std::string& flags, const std::string& note);

}  // namespace slidedp
