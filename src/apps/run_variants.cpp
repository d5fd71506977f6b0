#include "apps/run_variants.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <sstream>
#include <utility>

#include "common/errors.h"
#include "common/log.h"
#include "runtime/rank_context.h"

namespace slidedp {
namespace {

// `label` naming `passes` gradient accumulation steps as a sweep's +gaN does (before any
// "@rows"); unchanged for one pass.
std::string withPasses(std::string label, int64_t passes) {
  if (passes <= 1) return label;
  const size_t at = label.find('@');
  label.insert(at == std::string::npos ? label.size() : at, fmt::format("+ga{}", passes));
  return label;
}

}  // namespace

std::vector<std::string> routeSweepItems(const std::string& sweep) {
  std::vector<std::string> items;
  std::stringstream ss(sweep);
  for (std::string item; std::getline(ss, item, ',');) items.push_back(item);
  if (!sweep.empty() && sweep.back() == ',') items.emplace_back();  // getline drops a last empty item
  return items;
}

std::vector<RunVariant> parseVariants(const TrainJobOptions& o) {
  std::vector<RunVariant> out;
  if (o.route_sweep.empty()) {
    // the step lines name the accumulation steps as a sweep's +gaN does
    out.push_back({withPasses(fmt::format("{}/{}", routeName(o.train.delivery), routeName(o.train.reduction)),
                              o.train.accumulation_steps),
                   o.train, 0, {}});
    return out;
  }
  for (const std::string& item : routeSweepItems(o.route_sweep)) {
    if (std::any_of(item.begin(), item.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)); })) {
      std::string joined = o.route_sweep;
      joined.erase(std::remove_if(joined.begin(), joined.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)); }),
                   joined.end());
      throw AgreedError(fmt::format("--route-sweep item '{}' holds a space: the items are separated by "
                                    "commas alone.\nHINT: --route-sweep \"{}\"", item, joined));
    }
    if (item.empty())
      throw AgreedError(fmt::format("--route-sweep \"{}\" has an empty item (two commas in a row, or "
                                    "a comma first or last)", o.route_sweep));
    RunVariant v{item, o.train, 0, {}};
    std::string rest = item;
    if (const auto at = rest.find('@'); at != std::string::npos) {
      const std::string rows = rest.substr(at + 1);
      size_t used = 0;
      try {
        v.batch_rows = std::stoll(rows, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (rows.empty() || used != rows.size() || v.batch_rows < 1)
        throw AgreedError(fmt::format("--route-sweep item '{}': '@{}' is not a positive number of "
                                      "rows (the variant's global batch)", item, rows));
      rest = rest.substr(0, at);
    }
    std::vector<std::string> parts;
    std::stringstream ps(rest);
    for (std::string p; std::getline(ps, p, '+');) parts.push_back(p);
    const auto slash = parts.empty() ? std::string::npos : parts[0].find('/');
    if (slash == std::string::npos)
      throw AgreedError(fmt::format("--route-sweep item '{}': expected delivery/reduction"
                                    "[+clip][+offload][+keep|+recompute|+auto][+gaN][+tailM][@rows]", item));
    v.opts.delivery = parseDeliveryRoute(parts[0].substr(0, slash));
    v.opts.reduction = parseReductionRoute(parts[0].substr(slash + 1));
    v.opts.max_grad_norm = 0;
    v.opts.offload_activations = false;
    int policies = 0;
    bool passes_given = false, tail_given = false, clip_given = false, offload_given = false;
    for (size_t i = 1; i < parts.size(); ++i) {
      if ((parts[i] == "clip" && std::exchange(clip_given, true)) ||
          (parts[i] == "offload" && std::exchange(offload_given, true)))
        throw AgreedError(fmt::format("--route-sweep item '{}': give +{} once", item, parts[i]));
      const bool policy = parts[i] == "keep" || parts[i] == "recompute" || parts[i] == "auto" ||
                          parts[i] == "attention-output";
      if (policy && ++policies > 1)
        throw AgreedError(fmt::format("--route-sweep item '{}': give at most one of +keep, "
                                      "+recompute, +attention-output, +auto", item));
      if (parts[i] == "clip")
        v.opts.max_grad_norm = o.train.max_grad_norm > 0 ? o.train.max_grad_norm : 1.0;
      else if (parts[i] == "offload")
        v.opts.offload_activations = true;
      else if (policy)
        v.opts.activations = parseActivationPolicy(parts[i]);
      else if (parts[i].rfind("ga", 0) == 0) {
        // +gaN: --gradient-accumulation-steps of this variant
        const std::string n = parts[i].substr(2);
        if (n.empty() || n.size() > 9 || n.find_first_not_of("0123456789") != std::string::npos ||
            std::stoll(n) < 1)
          throw AgreedError(fmt::format("--route-sweep item '{}': '+{}': +gaN takes a whole number of "
                                        "gradient accumulation steps from 1 to 999999999", item, parts[i]));
        if (passes_given)
          throw AgreedError(fmt::format("--route-sweep item '{}': give +gaN once", item));
        passes_given = true;
        v.opts.accumulation_steps = std::stoll(n);
      } else if (parts[i].rfind("tail", 0) == 0) {
        // +tailM: --update-tail-units of this variant (the model's layers: checked at start-up)
        const std::string n = parts[i].substr(4);
        if (n.empty() || n.size() > 6 || n.find_first_not_of("0123456789") != std::string::npos)
          throw AgreedError(fmt::format("--route-sweep item '{}': '+{}': +tailM takes a whole number of "
                                        "decoder layers (0: no update tail)", item, parts[i]));
        if (tail_given) throw AgreedError(fmt::format("--route-sweep item '{}': give +tailM once", item));
        tail_given = true;
        v.opts.update_tail_units = std::stoi(n);
      } else
        throw AgreedError(fmt::format("--route-sweep item '{}': unknown modifier '+{}'", item, parts[i]));
    }
    // A variant without +gaN runs the job's --gradient-accumulation-steps: its label says so
    // when that is more than one pass (the step lines and the summary name what ran).
    if (!passes_given) v.label = withPasses(v.label, v.opts.accumulation_steps);
    out.push_back(v);
  }
  return out;
}

int64_t lastStep(const TrainJobOptions& o) {
  // (saturated: a --steps past 10^12, refused by checkSettings, must not overflow here first)
  const int64_t n = static_cast<int64_t>(parseVariants(o).size());
  return o.steps > INT64_MAX / std::max<int64_t>(n, 1) ? INT64_MAX : o.steps * n;
}

}  // namespace slidedp
