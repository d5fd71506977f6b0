// What `slidedp plan` prints and writes: the ranked policies with the predicted busy time per
// resource, the exposed time, the bottleneck and the memory peaks (a text table and JSON), and
// the step line's "predicted vs measured" fragment of `--policy auto`.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "planner/search.h"

namespace slidedp::planner {

/// The header (workload, machine, budget) and the `top` fastest policies as a table, then the
/// best policy's flags. `mark` (>= 0) flags that row index with '*' (e.g. the run's own policy).
std::string formatPlan(const Workload& w, const MachineDescription& m, const SearchResult& r,
                       double gpu_budget_bytes, int top);
/// One prediction as a table row (the same columns), labelled.
std::string formatRow(const std::string& label, const Prediction& p);
std::string tableHeader();
/// JSON of one prediction (seconds, bytes) and of a whole plan.
nlohmann::json toJson(const Prediction& p);
nlohmann::json planJson(const Workload& w, const MachineDescription& m, const SearchResult& r, int top);

}  // namespace slidedp::planner
