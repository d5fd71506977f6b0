#include "apps/policy_choice.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

namespace slidedp {

std::vector<std::string> policyKnobsGiven(const CLI::App& app) {
  std::vector<std::string> given;
  for (const char* f : kPolicyKnobFlags) {
    const CLI::Option* opt = app.get_option_no_throw(f);
    if (opt != nullptr && opt->count() > 0) given.emplace_back(f);
  }
  return given;
}

PolicyChoice choosePolicy(const std::string& policy, bool given, const std::vector<std::string>& knobs,
                          bool cuda, int nodes, bool route_sweep) {
  PolicyChoice c;
  c.defaulted = !given;
  if (policy != "auto") return c;
  if (given) {
    c.plan = true;  // the job refuses what the planner does not cover (several nodes, a sweep)
    return c;
  }
  if (!cuda) return c;  // CPU workers: manual unless asked (no note: every CPU run would print it)
  if (route_sweep) {
    c.why_manual = "--route-sweep sets each variant's policy";
  } else if (nodes > 1) {
    c.why_manual = fmt::format("the planner prices one node (this job has {}; slidedp_plan --nodes {} "
                               "--network-gbps RATE ranks the policies)", nodes, nodes);
  } else if (!knobs.empty()) {
    std::string names;
    for (const auto& k : knobs) names += (names.empty() ? "" : ", ") + k;
    const char* it = knobs.size() > 1 ? "them" : "it";
    c.why_manual = fmt::format("{} given (--policy auto would choose {} itself; drop {} to let it, or "
                               "give --policy auto to override {})", names, it, it, it);
  } else {
    c.plan = true;
  }
  return c;
}

}  // namespace slidedp
