// A plan for a run: the run's workload (model, batch, workers), the machine (a description
// file, or the calibration cached for this machine and shape, or a fresh calibration), and the
// ranked policies. Shared by `slidedp_plan` (which may calibrate) and a run's `--policy auto`
// (which only reads: it never measures inside a job).
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "common/errors.h"
#include "planner/search.h"

namespace slidedp::planner {

/// makePlan without a calibrate function found no calibration of this machine and shape in the
/// cache (a UserError with a HINT): --policy auto by default then runs the flags as given.
class MissingCalibration : public UserError {
 public:
  using UserError::UserError;
};

struct PlanRequest {
  std::string model_path;      // a HF directory or config.json (--model / --model-config)
  std::string model_name;      // for reports
  int G = 1;                   // workers
  int64_t global_rows = 8;     // --batch-size
  int64_t T = 256;             // --seq-len
  bool cuda = false;           // GPU workers
  double gpu_budget_gib = 0;   // --gpu-memory-budget (0: the machine's usable memory)
  bool clip = false;           // --max-grad-norm > 0
  bool bf16_staging = false;   // --grad-dtype bf16
  bool split_embedding = true; // --embedding-update split (the cpu reduction route only)
  bool gradient_buckets = true; // --grad-buckets split (the cpu reduction route hands off early)
  bool host_embedding_lookup = true; // --embedding-lookup host (GPU workers, tied embedding)
  std::string machine_file;    // --machine: predict for this machine (no calibration)
  std::string calibration_file;  // the cache ("" : CalibrationCache::defaultPath())
  int leader_cores = 0;        // the leader's cores (launcher placement; 0: the machine's)
};

struct Plan {
  Workload workload;
  MachineDescription machine;
  SearchResult result;
  double gpu_budget_bytes = 0;
  std::string machine_from;    // "machine file X" / "calibration cache X [key]" / "calibrated now"
};

/// The cache key of `r`'s calibration: the machine fingerprint, the model's shape, the rows per
/// worker and T, the worker count and device, and the version of what calibration measures.
std::string calibrationKey(const PlanRequest& r, const Workload& w);

/// Builds the plan. `calibrate` (may be empty) measures the machine when the cache has no entry
/// or `recalibrate`; without it a missing entry is a MissingCalibration with a HINT. `search` false:
/// workload and machine only (result left empty), for pricing one given policy.
Plan makePlan(const PlanRequest& r, const std::function<MachineDescription(const Workload&)>& calibrate,
              bool recalibrate, bool search = true);

}  // namespace slidedp::planner
