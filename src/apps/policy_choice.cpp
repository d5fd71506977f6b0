#include "apps/policy_choice.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <map>
#include <sstream>
#include <stdexcept>

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

std::string withPlannedPolicy(const std::string& resolved, const std::string& flags, const std::string& note) {
  std::map<std::string, std::string> value = {
      {"offload-activations", "false"}, {"leader-threads", "0"}, {"max-kept-layers", "-1"},
      {"gradient-accumulation-steps", "1"}, {"update-tail-units", "0"}};
  std::istringstream in(flags);
  std::string key;
  for (std::string tok; in >> tok;) {
    if (tok.rfind("--", 0) == 0) {
      key = tok.substr(2);
      value[key] = "true";  // a switch, unless a value follows
    } else if (!key.empty()) {
      value[key] = tok;
      key.clear();
    } else {
      throw std::invalid_argument(fmt::format("withPlannedPolicy: '{}' in '{}' is neither a flag nor its value", tok, flags));
    }
  }
  std::ostringstream out;
  std::istringstream noted(note);
  for (std::string line; std::getline(noted, line);) out << "# " << line << "\n";
  std::istringstream lines(resolved);
  for (std::string line; std::getline(lines, line);) {
    const size_t eq = line.find('=');
    const auto it = eq == std::string::npos ? value.end() : value.find(line.substr(0, eq));
    if (it == value.end()) {
      out << line << "\n";
      continue;
    }
    const bool quoted = line.size() > eq + 1 && line[eq + 1] == '"';
    out << it->first << '=' << (quoted ? "\"" + it->second + "\"" : it->second) << "\n";
    value.erase(it);
  }
  for (const auto& [k, v] : value) out << k << '=' << v << "\n";
  return out.str();
}

}  // namespace slidedp
