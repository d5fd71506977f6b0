#include "apps/site_checks.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <string>

#include "apps/settings_checks.h"
#include "common/errors.h"
#include "data/data_loader.h"
#include "data/reference_batches.h"
#include "data/synthetic_batches.h"
#include "runtime/train_options.h"

namespace slidedp {

std::vector<RunVariant> checkRunAtSite(TrainJobOptions& o, const RunSite& site,
                                       const model::ModelConfig& cfg) {
  if (!o.gpu_profile.empty() && !site.cuda)
    throwUserError("--gpu-profile profiles GPU workers, and this run's workers are on the "
                   "CPU.\nHINT: drop --gpu-profile, or run with --device cuda{}", site.gpu_only_note);
  if (!o.memory_snapshot.empty() && !site.cuda)
    throwUserError("--memory-snapshot records the CUDA caching allocator of GPU workers, and this "
                   "run's workers are on the CPU.\nHINT: drop --memory-snapshot, or run with --device "
                   "cuda{}", site.gpu_only_note);
  std::vector<RunVariant> variants = parseVariants(o);
  for (const auto& v : variants)  // activation offload needs GPU workers
    if (!site.cuda && v.opts.offload_activations)
      throwUserError("{}: --offload-activations (+offload) applies to GPU workers only (CPU workers "
                     "keep activations in host memory already).\nHINT: drop +offload, or run with "
                     "--device cuda{}", !o.route_sweep.empty() ? "--route-sweep item '" + v.label + "'"
                                                                : std::string("the run"),
                     site.gpu_only_note);
  for (const auto& v : variants)  // CUDA IPC routes need GPU workers
    if (!site.cuda && (usesCudaIpc(v.opts.delivery) || usesCudaIpc(v.opts.reduction)))
      throwUserError("route {}/{}: the CUDA IPC routes (sharded-ipc, gpu-ipc) need GPU workers.\n"
                     "HINT: run with --device cuda, or use sharded / gpu, which exchange through MPI "
                     "between CPU workers{}", routeName(v.opts.delivery), routeName(v.opts.reduction),
                     site.gpu_only_note);
  // A sweep whose variants all run one update tail (+tailM on every item): the job's, so the
  // chunk plan starts with it and never changes (several nodes take it so too).
  if (std::all_of(variants.begin(), variants.end(), [&](const RunVariant& v) {
        return v.opts.update_tail_units == variants.front().opts.update_tail_units;
      }))
    o.train.update_tail_units = variants.front().opts.update_tail_units;
  // @rows sizes synthetic batches (SyntheticBatches::setRows); a data file's and a reference's
  // batches have the rows they have: a variant claiming other rows would be timed on them.
  const bool synthetic_data = o.data == "synthetic" || o.data.rfind("synthetic-packed:", 0) == 0;
  for (const auto& v : variants)
    if (v.batch_rows > 0 && v.batch_rows != o.batch_size && !synthetic_data)
      throwUserError("--route-sweep item '{}': @{} sets the rows of synthetic batches, and this run "
                     "reads --data {}, whose batches have --batch-size {} rows.\nHINT: drop @{} (or "
                     "make it @{}), or time each batch size in a run of its own", v.label, v.batch_rows,
                     o.data, o.batch_size, v.batch_rows, o.batch_size);
  for (const auto& v : variants)
    checkTokensPerStep(v.batch_rows, o.seq_len,
                       fmt::format("--route-sweep item '{}': @{} rows", v.label, v.batch_rows), "at most @");
  o.train.batch_rows = o.batch_size;  // the fewest rows of any step (a route sweep's included)
  for (const auto& v : variants)
    if (v.batch_rows > 0) o.train.batch_rows = std::min(o.train.batch_rows, v.batch_rows);
  if (site.num_workers > 0) {
    for (const auto& v : variants)
      if (v.batch_rows > 0 && v.batch_rows < site.num_workers)
        throwUserError("--route-sweep item '{}': {} rows is fewer than the {} workers (each needs "
                       "a row)", v.label, v.batch_rows, site.num_workers);
    for (const auto& v : variants) {
      const int64_t rows = (v.batch_rows > 0 ? v.batch_rows : o.batch_size) / site.num_workers;
      if (v.opts.accumulation_steps > rows)
        throwUserError("--route-sweep item '{}': {} gradient accumulation steps need at least that many "
                       "rows on every worker; {} worker(s) get only {} each.\nHINT: a smaller +ga or "
                       "a larger @rows", v.label, v.opts.accumulation_steps, site.num_workers, rows);
    }
  }
  if (!o.resume.empty() && !o.route_sweep.empty())
    throwUserError("--resume and --route-sweep do not go together (a sweep is a benchmark)");
  // A sequence longer than the model covers (max_position_embeddings, rope scaling).
  if (o.data.rfind("reference:", 0) != 0) cfg.checkSequenceLength(o.seq_len);
  if (o.doc_start_token >= cfg.vocabSize)
    throwUserError("--doc-start-token {} is not a token of the model (its vocabulary is 0..{}).\n"
                   "HINT: the tokenizer's BOS id (config.json bos_token_id{}), or -1 for none",
                   o.doc_start_token, cfg.vocabSize - 1,
                   cfg.raw.contains("bos_token_id") && cfg.raw["bos_token_id"].is_number_integer()
                       ? fmt::format(": {}", cfg.raw["bos_token_id"].get<int64_t>()) : std::string());
  // +tailM: within the model's layers; another tail than the job's reorders the chunk plan
  // between variants, which one node only does (Trainer::setRunOptions)
  if (o.route_sweep.empty() && o.train.update_tail_units > cfg.numLayers)
    throwUserError("--update-tail-units {} is outside 0..{} (the model's decoder layers)",
                   o.train.update_tail_units, cfg.numLayers);
  for (const auto& v : variants) {
    if (!o.route_sweep.empty() && v.opts.update_tail_units > cfg.numLayers)
      throwUserError("--route-sweep item '{}': +tail{} is more than the model's {} decoder layers",
                     v.label, v.opts.update_tail_units, cfg.numLayers);
    if (v.opts.update_tail_units != o.train.update_tail_units && site.num_nodes > 1)
      throwUserError("--route-sweep item '{}': +tail{} changes the update tail between variants, "
                     "which one node only does (the leaders' parts follow the chunk plan).\nHINT: "
                     "--update-tail-units {} for the whole job, or a job per tail", v.label,
                     v.opts.update_tail_units, v.opts.update_tail_units);
  }
  return variants;
}

void checkDataInputs(const TrainJobOptions& o, const RunSite& site, const model::ModelConfig& cfg) {
  const std::string reference = "reference:";
  if (o.data.rfind("synthetic-packed:", 0) == 0) {
    parsePackedSynthetic(o.data);
  } else if (o.data.rfind(reference, 0) == 0) {
    data::ReferenceBatches ref(o.data.substr(reference.size()));
    checkReferenceData(ref, o, lastStep(o), cfg.vocabSize, std::max(site.num_workers, 1));
  } else if (o.data != "synthetic") {
    data::DataSpec spec;
    spec.path = o.data;
    spec.format = o.data_format;
    data::resolveDataFormat(spec);
    if (!o.eval_data.empty()) {
      spec.path = o.eval_data;
      spec.option = "--eval-data";
      data::resolveDataFormat(spec);
    }
  }
}

}  // namespace slidedp
