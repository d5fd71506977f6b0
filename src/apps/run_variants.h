// The run's variants: the one run of its flags, or each entry of `--route-sweep` (a benchmark:
// routes, clipping, activation offload and policy, and the global batch per variant).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "apps/prediction_watch.h"
#include "apps/train_job.h"
#include "runtime/train_options.h"

namespace slidedp {

/// One entry of --route-sweep: "delivery/reduction[+clip][+offload][+keep|+recompute|+auto]
/// [+gaN][+tailM][@B]" (+tailM: --update-tail-units M for this variant; one node).
struct RunVariant {
  std::string label;
  TrainOptions opts;
  int64_t batch_rows = 0;  // 0: --batch-size
  PredictedStep predicted;  // --policy auto: the model's prediction (step_s 0: none)
};

/// The items of a --route-sweep value, split at commas as parseVariants reads them (a trailing
/// comma adds none). Pure.
std::vector<std::string> routeSweepItems(const std::string& sweep);

/// The variants of `o`: one from its flags without --route-sweep, else one per sweep entry
/// (its routes and modifiers over `o.train`). Throws AgreedError naming a malformed entry.
std::vector<RunVariant> parseVariants(const TrainJobOptions& o);

/// The job's last step number: `o.steps` per variant, the variants one after another (a sweep
/// of V entries runs steps 1..V*steps). Throws AgreedError for a malformed --route-sweep, as
/// parseVariants does.
int64_t lastStep(const TrainJobOptions& o);

}  // namespace slidedp
