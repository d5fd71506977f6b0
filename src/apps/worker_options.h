// The command line of slidedp_worker, declared once: the job-level options (device, virtual
// nodes, segment, staging ring, liveness timeouts, test hooks) and, in a build with training,
// the training options of apps/train_job.h. slidedp_worker parses them; slidedp_plan registers
// the same names so that a run's arguments pass through it while a misspelt flag is refused.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

#include "runtime/host_state_layout.h"  // ModelShape
#ifdef SLIDEDP_WITH_TRAINING
#include "apps/train_job.h"             // TrainJobOptions, addTrainOptions
#endif

namespace slidedp {

struct WorkerOptions {
  std::string device = "auto";
  int virtual_node_size = 0;
  std::string shm_name;
  ModelShape shape;  // embedded default: the stories260K shape
  int ring_slots = 4;
  uint64_t chunk_numel = 1 << 22;
  std::string grad_dtype = "f32";
  int handoff_rounds = 64;
  double wait_timeout_s = 0;  // none: liveness, not deadlines (runtime/job_guard.h)
  double heartbeat_timeout_s = 30;
  double stall_timeout_s = 10;
  bool log_all_ranks = false;
  // Testing hooks.
  double hold_s = 0;
  int fail_rank = -1;
  std::string fail_message = "injected failure (--fail-rank)";
  uint64_t extra_state_bytes = 0;
  std::string pid_file;
  std::string kill_at;
#ifdef SLIDEDP_WITH_TRAINING
  TrainJobOptions train;
#endif
  bool training() const {
#ifdef SLIDEDP_WITH_TRAINING
    return !train.model.empty() || !train.model_config.empty();
#else
    return false;
#endif
  }
};

/// Declares every option of slidedp_worker on `app` (bound to `o`), the training group
/// included in a build with training. Throws CLI::OptionAlreadyAdded if `app` has one already.
void addWorkerOptions(CLI::App& app, WorkerOptions& o);
/// Refuses an explicitly empty value (`--checkpoint-every ""`, `checkpoint-every = ""` in a
/// --config file: CLI11 reads it as 0 or false) for every option of `app` and its option groups
/// whose default is not empty; options whose default is empty keep taking "" (saved
/// configurations list them so: `resume=""`). Call after the options are added.
void refuseEmptyValues(CLI::App& app);

}  // namespace slidedp
