// A run's settings checked against where it runs (its workers' device and count, its nodes),
// its model's config.json and its data inputs: the checks of a run's start-up that need no
// model weights, no data read and no MPI. The worker runs them before it loads anything
// (train_job.cpp); slidedp_plan runs them before it calibrates, so that a run the workers
// would refuse is refused before the plan measures this machine (30 s and more).
#pragma once

#include <string>

#include <vector>

#include "apps/run_variants.h"
#include "apps/train_job.h"
#include "model/config.h"

namespace slidedp {

/// Where a run's workers are, as far as its checks need.
struct RunSite {
  bool cuda = false;    // GPU workers (false: CPU workers)
  int num_workers = 0;  // every worker of every node; 0: not known (a plan's --nodes-sweep),
                        // the checks that need the count are skipped
  int num_nodes = 1;
  /// Said after a GPU-only flag's refusal on CPU workers (a "\nHINT: ..." line), e.g. how to
  /// plan a GPU machine from one without GPUs; "" for none.
  std::string gpu_only_note;
};

/// The run's variants (parseVariants: its flags, or each --route-sweep item), checked against
/// `site` and the model `cfg`:
///  - GPU-only outputs and choices on CPU workers (--gpu-profile, --memory-snapshot,
///    --offload-activations / +offload, the CUDA IPC routes);
///  - a variant's @rows on data that is not synthetic, above 2^40 tokens a step, or fewer rows
///    than workers, or fewer rows per worker than its +ga passes;
///  - --resume with --route-sweep;
///  - --seq-len beyond what the model covers (not for reference: data, whose rows are its own),
///    --doc-start-token beyond its vocabulary, an update tail (--update-tail-units, +tailM)
///    beyond its decoder layers, or one that changes between variants on several nodes.
/// Sets o.train.update_tail_units (the job's, where every variant runs the same one) and
/// o.train.batch_rows (the fewest rows of any step). Expects resolveTrainOptions(o) and
/// checkSettings to have run. Throws UserError (AgreedError for a malformed --route-sweep).
std::vector<RunVariant> checkRunAtSite(TrainJobOptions& o, const RunSite& site,
                                       const model::ModelConfig& cfg);

/// The run's data inputs as far as they can be checked without reading the data: a
/// synthetic-packed: spec's numbers; a reference: file that is no safetensors of step tensors,
/// or whose shape, steps and ids do not fit the run (checkReferenceData; at least one row a
/// worker where the workers are known); a --data or --eval-data file that does not exist, is a directory, or
/// whose format neither its header, its extension nor --data-format tells. Throws UserError.
void checkDataInputs(const TrainJobOptions& o, const RunSite& site, const model::ModelConfig& cfg);

}  // namespace slidedp
