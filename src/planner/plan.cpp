#include "planner/plan.h"

#include <algorithm>
#include <cmath>

#include "common/errors.h"
#include "model/config.h"
#include "model/memory_terms.h"
#include "planner/calibration.h"

namespace slidedp::planner {

std::string calibrationKey(const PlanRequest& r, const Workload& w) {
  // cal=N: what calibration measures (bump it when a measured pass or its FLOP count changes, so
  // older entries are measured again; 2: the recompute passes of decoderLayerRecompute)
  return fmt::format("{}|model=L{},C{},I{},H{},KV{},D{},V{}{}|rows={}|T={}|G={}|cal=2",
                     machineFingerprint(deviceFingerprint(r.cuda)), w.L, w.C, w.I, w.H, w.KV, w.D, w.V,
                     w.tied ? ",tied" : "", w.rowsPerWorker(), w.T, w.G);
}

Plan makePlan(const PlanRequest& r, const std::function<MachineDescription(const Workload&)>& calibrate,
              bool recalibrate, bool search) {
  Plan p;
  const model::ModelConfig config = model::ModelConfig::load(r.model_path);
  p.workload = makeWorkload(config, r.model_name.empty() ? r.model_path : r.model_name, r.G, r.global_rows,
                            r.T, r.cuda);
  p.workload.clip = r.clip;
  p.workload.split_embedding = r.split_embedding;
  p.workload.host_embedding_lookup = r.host_embedding_lookup;
  if (!r.gradient_buckets) p.workload.layer_bucket_split = 0;
  if (!r.machine_file.empty()) {
    p.machine = loadMachine(r.machine_file);
    p.machine_from = "machine file " + r.machine_file;
    if (r.G > p.machine.gpus)
      throwUserError("{} workers asked, but the machine '{}' has {} GPU(s).\nHINT: --gpus N with N <= {}",
                     r.G, p.machine.name, p.machine.gpus, p.machine.gpus);
    p.workload.cuda = !p.machine.cpu_workers;
    p.workload.compute_bytes = p.workload.cuda ? 2 : 4;
    p.workload.flash_lse = model::keepsAttentionLse(p.workload.cuda, p.workload.compute_bytes);
  } else {
    CalibrationCache cache(r.calibration_file.empty() ? CalibrationCache::defaultPath() : r.calibration_file);
    const std::string key = calibrationKey(r, p.workload);
    auto found = recalibrate ? std::nullopt : cache.find(key);
    if (found) {
      p.machine = *found;
      p.machine_from = "calibration cache " + cache.path();
    } else {
      if (!calibrate)
        throw MissingCalibration(fmt::format("no calibration of this machine for this model shape, {} rows per worker x {} "
                       "tokens, {} worker(s), in {}.\nHINT: start the job with launcher/slidedp-run (it plans a "
                       "--policy auto run first, calibrating the shape once), or run `launcher/slidedp-run "
                       "--plan` with the same arguments first, or give --machine FILE",
                       p.workload.rowsPerWorker(), p.workload.T, p.workload.G, cache.path()));
      p.machine = calibrate(p.workload);
      cache.store(key, p.machine);
      p.machine_from = "calibrated now (cached in " + cache.path() + ")";
    }
  }
  if (r.leader_cores > 0) p.machine.host.leader_cores = r.leader_cores;
  // as the worker refuses it (worker.cpp): a plan within a budget the card lacks would run out
  // of GPU memory
  if (r.gpu_budget_gib > 0 && p.machine.gpu.memory_gib > 0 && r.gpu_budget_gib > p.machine.gpu.memory_gib)
    throwUserError("--gpu-memory-budget {} GiB exceeds the GPU's {:.1f} GiB ({}, {})\nHINT: --gpu-memory-budget "
                   "{:.0f} or less, or leave it out (the GPU's memory less 3 GiB)", r.gpu_budget_gib,
                   p.machine.gpu.memory_gib, p.machine.gpu.model.empty() ? "the machine's" : p.machine.gpu.model,
                   p.machine_from, std::max(1.0, std::floor(p.machine.gpu.memory_gib)));
  p.gpu_budget_bytes = r.gpu_budget_gib > 0 ? r.gpu_budget_gib * double(1ull << 30) : p.machine.usableGpuBytes();
  if (!search) return p;
  SearchOptions so;
  so.gpu_budget_bytes = p.gpu_budget_bytes;
  so.bf16_staging = r.bf16_staging;
  p.result = searchPolicies(p.workload, p.machine, so);
  return p;
}

}  // namespace slidedp::planner
