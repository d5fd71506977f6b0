#include "apps/train_job.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cmath>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <climits>
#include <cstdlib>
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "common/errors.h"
#include "common/log.h"
#include "data/data_loader.h"
#include "data/eval_batches.h"
#include "data/synthetic_batches.h"
#include "data/reference_batches.h"
#include "formats/checkpoint.h"
#include "formats/fs_util.h"
#include "formats/safetensors.h"
#include "formats/staging_pool.h"
#include "formats/streamed_writer.h"
#include "apps/option_numbers.h"
#include "apps/output_checks.h"
#include "apps/policy_choice.h"
#include "apps/run_variants.h"
#include "apps/metrics_resume.h"  // dropMetricsFromStep
#include "apps/resume_model_checks.h"
#include "apps/data_tokenizer_checks.h"
#include "apps/resume_config.h"  // savedConfigValue, shellWord
#include "apps/settings_checks.h"
#include "apps/site_checks.h"
#include "apps/prediction_watch.h"
#include "common/median.h"
#include "common/thread_placement.h"
#include "model/hf_checkpoint.h"
#include "model/param_layout.h"
#include "planner/calibration.h"
#include "planner/cost_model.h"
#include "planner/plan.h"
#include "runtime/fault_injection.h"
#include "runtime/host_memory.h"
#include "runtime/chunk_plan.h"
#include "runtime/host_state_layout.h"
#include "runtime/job_guard.h"
#include "runtime/node_shards.h"
#include "runtime/test_hooks.h"
#include "runtime/token_rows.h"
#include "train/checkpoint_pace.h"
#include "train/trainer.h"

namespace slidedp {

namespace {

/// "update tail: layers 1..M after the embedding (...)": whether the next forward runs beside
/// their update (earlyStepAgreement) or the tail only orders the hand-offs, and why.
std::string updateTailText(const TrainOptions& o, int tail_units, int num_nodes) {
  return fmt::format("update tail: layers 1..{} after the embedding{}", tail_units,
                     earlyStepAgreement(o, tail_units, num_nodes)
                         ? " (the next forward runs beside their update)"
                         : " (in order only: early agreement needs the cpu route, one accumulation "
                           "step, no clipping, one node)");
}

constexpr double kH200PeakBf16Tflops = 989.4;  // dense, per GPU (NVIDIA H200 SXM datasheet)

/// A resume whose --steps (or --schedule, --warmup, --lr) differs from the checkpoint's run: the
/// LR schedule is re-derived for this run's values from the next step on (as Hugging Face
/// Trainer and torchtune do with a new max_steps / num_training_steps), which they do silently;
/// this is the one line that says so, with both totals and the lr of the next step under each.
/// "" when the lr of every remaining step is unchanged (a constant schedule past its warm-up
/// with another --steps) or the checkpoint records no configuration.
std::string scheduleChangeNote(const std::string& saved, const TrainOptions& now, int64_t start) {
  optim::LrSchedule was, is = now.lrSchedule();
  try {
    was.kind = optim::parseLrScheduleKind(savedConfigValue(saved, "schedule"));
    was.baseLr = std::stod(savedConfigValue(saved, "lr"));
    was.warmupSteps = std::stoll(savedConfigValue(saved, "warmup"));
    was.trainingSteps = std::stoll(savedConfigValue(saved, "steps"));
    // a --route-sweep's schedule ran over --steps for each of its items
    const std::string sweep = savedConfigValue(saved, "route-sweep");
    if (!sweep.empty()) was.trainingSteps *= std::max<int64_t>(1, routeSweepItems(sweep).size());
  } catch (const std::exception&) {
    return "";  // an older checkpoint without these keys: nothing to compare with
  }
  auto name = [](const optim::LrSchedule& x) {
    return x.kind == optim::LrScheduleKind::kCosine ? "cosine"
           : x.kind == optim::LrScheduleKind::kLinear ? "linear" : "constant";
  };
  const bool decays = was.kind != optim::LrScheduleKind::kConstant || is.kind != optim::LrScheduleKind::kConstant;
  const bool warming = start < std::max(was.warmupSteps, is.warmupSteps);
  if (was.kind == is.kind && was.baseLr == is.baseLr &&
      (was.warmupSteps == is.warmupSteps || !warming) &&
      (was.trainingSteps == is.trainingSteps || !decays))
    return "";
  auto describe = [&](const optim::LrSchedule& x) {
    return fmt::format("--steps {} ({}, warmup {}, lr {:g})", x.trainingSteps, name(x), x.warmupSteps, x.baseLr);
  };
  return fmt::format("the LR schedule changes on this resume: the checkpoint's run had {}, this run "
                     "{}; from step {} on it follows this run's schedule over {} total steps (not "
                     "the {} of the checkpoint's run): lr {:.3e} at step {} instead of {:.3e}. {}",
                     describe(was), describe(is), start + 1, is.trainingSteps, was.trainingSteps,
                     optim::scheduledLr(is, start), start + 1, optim::scheduledLr(was, start),
                     start < was.trainingSteps
                         ? fmt::format("To keep the checkpoint's schedule, resume with --steps {} "
                                       "(and its --schedule/--warmup/--lr)", was.trainingSteps)
                         : std::string("(The checkpoint's run had finished its schedule; this "
                                       "extends it with the new one.)"));
}

}  // namespace

std::string formatDuration(double s) {
  if (s < 60) return fmt::format("{:.0f}s", s);
  if (s < 3600) return fmt::format("{}m{:02d}s", static_cast<int>(s / 60), static_cast<int>(s) % 60);
  if (s < 100 * 3600) return fmt::format("{}h{:02d}m", static_cast<int>(s / 3600), static_cast<int>(s / 60) % 60);
  return fmt::format("{:.0f}d", s / 86400);
}

/// The step --trace, --gpu-profile and --memory-snapshot record: --trace-step, or the last step
/// (`last`) when the default 2 is beyond it; not before this run's first step `first` (a resume).
static int64_t tracedStep(const TrainJobOptions& o, int64_t first, int64_t last) {
  return std::max<int64_t>(o.trace_step_given ? o.trace_step : std::min(o.trace_step, last), first);
}

/// `path` with `suffix` before its extension (runs/trace.json, "-step201" -> runs/trace-step201.json).
static std::string withNameSuffix(const std::string& path, const std::string& suffix) {
  const size_t slash = path.find_last_of('/'), dot = path.find_last_of('.');
  const bool ext = dot != std::string::npos && dot > 0 && (slash == std::string::npos || dot > slash + 1);
  return ext ? path.substr(0, dot) + suffix + path.substr(dot) : path + suffix;
}

/// "; master, m and v (X) in the leader's own memory, Y of it in huge pages" where the
/// optimizer state is there (bf16 compute: shm/leader_regions.h), else "".
static std::string leaderMemoryText(const shm::Segment& seg) {
  if (seg.leaderBytes() == 0) return "";
  return fmt::format("; master, m and v ({}) in the leader's own memory, {} of it in huge pages",
                     shm::formatBytes(seg.leaderBytes()), shm::formatBytes(seg.leaderHugePageBytes()));
}

/// The steps, the per-step line, metrics, checkpoints, the summary. Collective.
/// Returns the last step run.
int64_t runSteps(const RankContext& ctx, const TrainJobOptions& o, Trainer& trainer, BatchSource& data,
                 const std::vector<RunVariant>& variants, SyntheticBatches* synthetic,
                 data::DataLoader* loader, EvalBatches* eval = nullptr) {
  const auto& cfg = trainer.config();
  // Per-GPU rates divide the global batch's FLOPs by every worker of every node.
  const int G = ctx.num_workers;
  const double n_params = static_cast<double>(trainer.layout().parameterCount());
  SLIDEDP_LOG_INFO("model {} ({}): {:.4g} M parameters, {} layers; {} worker(s) on {}; chunk {} "
                   "elements, ring {} slots, {} compute, {} staging, {} embedding update{}, gradient buckets {}{}{}{}; steps {}..{}",
                   o.model_config.empty() ? o.model : o.model_config, model::familyName(cfg.family),
                   n_params / 1e6, cfg.numLayers,
                   ctx.num_nodes > 1 ? fmt::format("{} ({} node(s) x {})", G, ctx.num_nodes,
                                                   trainer.numWorkers())
                                     : std::to_string(G),
                   deviceName(ctx.device), o.train.chunk_numel,
                   o.train.ring_slots, o.train.bf16_compute ? "bf16" : "fp32",
                   o.train.bf16_staging ? "bf16" : "fp32", o.train.split_embedding ? "split" : "dense",
                   // the worker's condition (worker.cpp; runtime/window_schedule.h host lookup)
                   ctx.device == DeviceKind::kCuda && cfg.tieWordEmbeddings && cfg.numLayers >= 1 &&
                           o.train.host_embedding_lookup &&
                           !(ctx.num_nodes > 1 && o.train.node_layout == NodeLayoutKind::kFullySharded)
                       ? ", embedding lookup from host memory"
                       : "",
                   trainer.plan().bucketed() ? "MLP first (sent early except on gpu-ipc)" : "whole layer",
                   o.train.max_grad_norm > 0 ? fmt::format(", clip {}", o.train.max_grad_norm) : "",
                   o.train.accumulation_steps > 1
                       ? fmt::format(", {} gradient accumulation steps (the model delivered for each)",
                                     o.train.accumulation_steps)
                       : "",
                   trainer.plan().tail_units > 0 ? ", " + updateTailText(o.train, trainer.plan().tail_units, ctx.num_nodes)
                                                 : "",
                   trainer.firstStep(), o.steps * static_cast<int64_t>(variants.size()));
  std::ofstream metrics;
  const bool csv = o.metrics.size() > 4 && o.metrics.compare(o.metrics.size() - 4, 4, ".csv") == 0;
  if (ctx.world_rank == 0 && !o.metrics.empty()) {
    if (const std::string dir = formats::parentPath(o.metrics); !dir.empty()) formats::makeDirectories(dir);
    // a resume after a crash: the steps after its checkpoint are in the file already, and run again
    // (only where steps run: a resume past its last step, e.g. to export, keeps the file whole)
    if (trainer.firstStep() > 1 && trainer.firstStep() <= o.steps * static_cast<int64_t>(variants.size()))
      if (const int64_t n = dropMetricsFromStep(o.metrics, trainer.firstStep(), csv); n > 0)
        SLIDEDP_LOG_WARN("--metrics {}: {} line(s) of step {} or later dropped (written after the checkpoint "
                         "this run resumes from, by a run that ended later); those steps run again",
                         o.metrics, n, trainer.firstStep());
    metrics.open(o.metrics, trainer.firstStep() > 1 ? std::ios::app : std::ios::trunc);
    if (!metrics) throw std::runtime_error(fmt::format("cannot write --metrics file {}", o.metrics));
  }
  const char* kColumns[] = {"step", "variant", "loss", "lr", "grad_norm", "tokens", "step_s",
                            "tokens_per_s", "tflops_per_gpu", "fwd_s", "head_s", "bwd_s", "h2d_s",
                            "d2h_s", "version_wait_s", "handoff_wait_s", "leader_wait_s",
                            "leader_update_s", "kept_layers", "gpu_peak_bytes",
                            "checkpoint_wait_s", "eval_loss", "eval_ppl"};
  if (csv && metrics.is_open() && trainer.firstStep() == 1) {
    for (size_t i = 0; i < std::size(kColumns); ++i) metrics << (i ? "," : "") << kColumns[i];
    metrics << "\n";
  }
  auto checkpointState = [&](int64_t step) {
    nlohmann::json cursor = {{"step", step}};
    if (loader) {
      if (ctx.isLeader()) loader->batch(step);  // batches are pure in the step: cheap to redo
      cursor = loader->cursorJson();
    }
    return nlohmann::json{{"model", o.model.empty() ? o.model_config : o.model},
                          {"random_init", !o.model_config.empty()},
                          // the architecture trained (a resume refuses another head layout)
                          {"model_config", cfg.raw},
                          {"seed", o.seed},
                          {"data", {{"spec", o.data}, {"cursor", cursor}}},
                          {"configuration", o.resolved_config},
                          // what the configuration's relative paths are relative to (--resume alone)
                          {"working_directory", formats::currentDirectory()}};
  };
  // The checkpoint writer's lines (the leader's writer thread; spdlog is thread-safe).
  const Trainer::Note note = [](const std::string& line) { SLIDEDP_LOG_INFO("{}", line); };
  struct Summary {
    std::string variant;
    double tokens_per_s, tflops, mfu, step_s, fwd, head, bwd, h2d, d2h, vwait, hwait, lwait, lupd;
    double kept, gpu_gib;
  };
  std::vector<Summary> summaries;
  const bool interactive = ctx.world_rank == 0 && isatty(STDERR_FILENO);
  int64_t step = trainer.firstStep() - 1;
  const int64_t last = o.steps * static_cast<int64_t>(variants.size());
  if (step >= last && ctx.world_rank == 0)  // every rank knows it; one says it
    SLIDEDP_LOG_WARN("the checkpoint is at step {}, and --steps is {}: nothing to do (to train "
                     "further: --steps N with N > {})", step, last, step);
  const auto t_start = std::chrono::steady_clock::now();
  const int64_t first = step + 1;
  const int64_t traced_step = tracedStep(o, first, last);
  bool stopped = false;
  for (size_t vi = 0; vi < variants.size() && step < last && !stopped; ++vi) {
    const RunVariant& v = variants[vi];
    TrainOptions run = v.opts;
    run.gpu_profile = o.gpu_profile;
    run.gpu_profile_step = o.gpu_profile.empty() ? 0 : traced_step;
    run.memory_snapshot = o.memory_snapshot;
    run.memory_snapshot_step = o.memory_snapshot.empty() ? 0 : traced_step;
    trainer.setRunOptions(run);
    if (variants.size() > 1 && trainer.plan().tail_units > 0)  // the start-up line is the job's
      SLIDEDP_LOG_INFO("{}: {}", v.label, updateTailText(run, trainer.plan().tail_units, ctx.num_nodes));
    if (synthetic) synthetic->setRows(v.batch_rows > 0 ? v.batch_rows : o.batch_size);
    std::vector<StepRecord> recs;
    std::optional<PredictionWatch> watch;  // --policy auto: the plan against the measured steps (rank 0)
    if (ctx.world_rank == 0 && v.predicted.step_s > 0 && std::isfinite(v.predicted.step_s))
      watch.emplace(v.predicted);
    const int64_t end = variants.size() > 1 ? static_cast<int64_t>(vi + 1) * o.steps : last;
    while (step < end) {
      const StepRecord rec = trainer.step(++step, data);
      // Held-out loss (forward only) every --eval-every steps and after the last; not after a
      // step that agreed to stop (the job checkpoints and ends there).
      EvalRecord ev;
      if (eval && !rec.stop_requested && ((o.eval_every > 0 && step % o.eval_every == 0) || step == last))
        ev = trainer.evaluate(step, *eval, eval->numBatches());
      const double tokens = static_cast<double>(rec.batch_tokens);
      // Every attention score counted (12 L H D T), the formula; and only the causal
      // half (6 L H D T), what a causal kernel computes: the honest figure at long T, where the
      // first exceeds the second by up to ~2x (tools/bench/compare.py reports both too).
      const double attn_flops = 6.0 * cfg.numLayers * cfg.numHeads * cfg.headDim * rec.T * tokens;
      const double flops = 6.0 * n_params * tokens + 2.0 * attn_flops;
      const double tflops_gpu = flops / rec.seconds / G / 1e12;
      const double tflops_causal = (flops - attn_flops) / rec.seconds / G / 1e12;
      if (ctx.world_rank == 0) {
        const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
        const double eta = elapsed / static_cast<double>(step - first + 1) * static_cast<double>(last - step);
        std::string bar;
        if (interactive) {
          const int width = 20, done = static_cast<int>(width * step / std::max<int64_t>(last, 1));
          bar = "[" + std::string(done, '#') + std::string(width - done, '.') + "] ";
        }
        SLIDEDP_LOG_INFO(
            "{}step {}/{} (ETA {}) | {} | loss {:.4f}{} | lr {:.2e} | gnorm {:.3f} | {:.0f} tok/s | "
            "{}{} | {:.3f} s | fwd {:.3f} head {:.3f} bwd {:.3f} h2d {:.3f} d2h "
            "{:.3f} ver-wait {:.3f} handoff-wait {:.3f} | leader wait {:.3f} update {:.3f}{}{}{}",
            bar, step, last, formatDuration(eta), v.label, rec.loss,
            ev.tokens > 0 ? fmt::format(" | eval loss {:.4f} ppl {:.2f} ({} tokens, {:.2f} s)", ev.loss,
                                        std::exp(ev.loss), ev.tokens, ev.seconds)
                          : std::string(),
            rec.lr, rec.grad_norm,
            tokens / rec.seconds,
            // CPU workers: GFLOPS per worker (their TFLOPS read 0.0) and no MFU (no GPU peak)
            ctx.device == DeviceKind::kCuda ? fmt::format("{:.1f} TFLOPS/GPU", tflops_gpu)
                                            : fmt::format("{:.2f} GFLOPS/worker", tflops_gpu * 1e3),
            ctx.device == DeviceKind::kCuda ? fmt::format(" | MFU {:.1f}% (causal {:.1f}%)", 100 * tflops_gpu / kH200PeakBf16Tflops,
                                                          100 * tflops_causal / kH200PeakBf16Tflops)
                                            : "",
            rec.seconds, rec.fwd_s, rec.head_s, rec.bwd_s, rec.h2d_s, rec.d2h_s, rec.version_wait_s,
            rec.handoff_wait_s, rec.leader_wait_s, rec.leader_update_s,
            ctx.device == DeviceKind::kCuda
                ? fmt::format(" | kept {}/{} layers{}{}, GPU peak {:.1f} GiB", rec.kept_layers,
                              cfg.numLayers,
                              rec.attention_output_layers > 0
                                  ? fmt::format(" (+{} attention output)", rec.attention_output_layers)
                                  : std::string(),
                              rec.offloaded_layers > 0
                                  ? fmt::format(", {} inputs in host memory", rec.offloaded_layers)
                                  : std::string(),
                              rec.gpu_peak_bytes / double(1ull << 30))
                : fmt::format(" | kept {}/{} layers{}", rec.kept_layers, cfg.numLayers,
                              rec.attention_output_layers > 0
                                  ? fmt::format(" (+{} attention output)", rec.attention_output_layers)
                                  : std::string()),
            // the step measured against the prediction, as the prediction watch's warning says it
            v.predicted.step_s > 0 ? fmt::format(" | predicted {:.3f} s (measured {:+.1f}%)", v.predicted.step_s,
                                                 100 * (rec.seconds - v.predicted.step_s) / v.predicted.step_s)
                              : "",
            rec.checkpoint_in_flight ? fmt::format(" | ckpt-wait {:.3f} s", rec.checkpoint_wait_s) : "");
        if (metrics.is_open()) {
          const double vals[] = {rec.loss, rec.lr, rec.grad_norm, static_cast<double>(rec.tokens),
                                 rec.seconds, tokens / rec.seconds, tflops_gpu, rec.fwd_s, rec.head_s,
                                 rec.bwd_s, rec.h2d_s, rec.d2h_s, rec.version_wait_s,
                                 rec.handoff_wait_s, rec.leader_wait_s, rec.leader_update_s,
                                 static_cast<double>(rec.kept_layers),
                                 static_cast<double>(rec.gpu_peak_bytes), rec.checkpoint_wait_s};
          if (csv) {
            metrics << step << "," << v.label;
            for (double x : vals) metrics << "," << fmt::format("{:.9g}", x);
            if (ev.tokens > 0) metrics << fmt::format(",{:.9g},{:.9g}", ev.loss, std::exp(ev.loss));
            else metrics << ",,";
            metrics << "\n";
          } else {
            nlohmann::json j = {{"step", step}, {"variant", v.label},
                                {"delivery", routeName(v.opts.delivery)},
                                {"reduction", routeName(v.opts.reduction)}};
            for (size_t i = 0; i < std::size(vals); ++i) j[kColumns[i + 2]] = vals[i];
            if (ev.tokens > 0) {
              j["eval_loss"] = ev.loss;
              j["eval_ppl"] = std::exp(ev.loss);
              j["eval_tokens"] = ev.tokens;
            }
            if (v.predicted.step_s > 0) j["predicted_step_s"] = v.predicted.step_s;
            if (ctx.device == DeviceKind::kCuda) {
              j["attention_output_layers"] = rec.attention_output_layers;
              j["offloaded_layers"] = rec.offloaded_layers;
            }
            metrics << j.dump() << "\n";
          }
          metrics.flush();
        }
      }
      // a step beside a streamed checkpoint's write is not the plan's step: not judged
      if (watch && !rec.checkpoint_in_flight)
        // the workers' compute: their spans less the waits for layer versions inside them (the
        // model's busy compute has none; with the update tail the forward waits for the leader)
        if (auto warning = watch->observe({rec.seconds, rec.leader_update_s,
                                           std::max(0.0, rec.fwd_s + rec.head_s + rec.bwd_s - rec.version_wait_s)}))
          SLIDEDP_LOG_WARN("{}", *warning);
      // A non-finite loss or gradient norm ends the job here, before the step's checkpoint: a
      // step whose update had a non-finite gradient would otherwise be checkpointed, `latest`
      // would name it and pruning could remove the last good one. A streamed checkpoint still
      // in flight is dropped too: its weights are the ones whose gradient was not finite, so a
      // resume from it would meet the same step again; `latest` stays where it was. (With the
      // update tail only the leader has the norm: its error ends the job for every rank.)
      if (!std::isfinite(rec.loss) || !std::isfinite(rec.grad_norm))
        throw std::runtime_error(fmt::format(
            "step {}: the {} is {} (diverged); no checkpoint of it is written{}\nHINT: a lower --lr, "
            "--max-grad-norm to clip, or a check of the data and the model's weights for inf/NaN; "
            "continue from the last checkpoint with the run's command and --resume (with the same "
            "--lr the same step diverges again)",
            step, std::isfinite(rec.loss) ? "gradient norm" : "loss",
            // NaN's sign bit is meaningless ("-nan" read as a value of its own)
            [](double x) { return std::isnan(x) ? std::string("NaN") : fmt::format("{}", x); }(
                std::isfinite(rec.loss) ? rec.grad_norm : rec.loss),
            o.checkpoint_dir.empty() ? "" : fmt::format(" ({} keeps its earlier ones; one still being "
                                                        "written is dropped)", o.checkpoint_dir)));
      if (!o.trace.empty() && step == traced_step) {
        if (const std::string dir = formats::parentPath(o.trace); !dir.empty() && ctx.world_rank == 0)
          formats::makeDirectories(dir);
        trainer.writeTrace(o.trace, rec);
        SLIDEDP_LOG_INFO("Chrome/Perfetto trace of step {} written to {}", step, o.trace);
      }
      if (step == traced_step && !o.gpu_profile.empty())
        SLIDEDP_LOG_INFO("GPU profile of step {} written by every worker: {} with -w<worker> before "
                         "the extension (Chrome trace) and .txt (per scope, per stream, the compute "
                         "stream's gaps)", step, o.gpu_profile);
      if (step == traced_step && !o.memory_snapshot.empty())
        SLIDEDP_LOG_INFO("CUDA memory snapshot through step {} written by every worker: {} with "
                         "-w<worker> before the extension (open it at https://pytorch.org/memory_viz)",
                         step, o.memory_snapshot);
      recs.push_back(rec);
      // agreed in the step (a collective here would hold the workers for the leader's update
      // tail), or during the evaluation after it (agreed there)
      // (at the last step the run is complete: it ends as it would have, its checkpoint and
      // export included, without the cut evaluation's loss)
      stopped = (rec.stop_requested || ev.interrupted) && step != last;
      if (ev.interrupted && ctx.world_rank == 0)
        SLIDEDP_LOG_WARN("the evaluation after step {} was cut short by the stop request: no eval "
                         "loss for this step", step);
      const bool periodic = o.checkpoint_every > 0 && step % o.checkpoint_every == 0;
      if (!o.checkpoint_dir.empty() && (periodic || stopped || (step == last && o.checkpoint_at_end))) {
        // The last one and a stop's are complete before the job goes on to exit; a periodic
        // one is streamed while the next steps run (--checkpoint-mode).
        if (o.checkpoint_mode == "stream" && !stopped && step != last) {
          // Done well before the checkpoint after it (or the last step); copied in the
          // leader's idle time, by the writer only when that falls behind (train/checkpoint_pace.h).
          std::vector<double> recent;
          for (size_t i = recs.size() > 10 ? recs.size() - 10 : 0; i < recs.size(); ++i)
            recent.push_back(recs[i].seconds);
          const CheckpointPace pace =
              checkpointPace(std::move(recent), std::min<int64_t>(o.checkpoint_every, last - step));
          trainer.setCheckpointPace(pace.finish_by_s, pace.pump_grace_s);
          const auto t0 = std::chrono::steady_clock::now();
          const std::string dir = trainer.startCheckpoint(o.checkpoint_dir, step, checkpointState(step),
                                                          o.keep_checkpoints, o.overwrite_checkpoints,
                                                          note);
          SLIDEDP_LOG_INFO("checkpoint of step {}: streaming to {} while training continues ({:.3f} s "
                           "to start)", step, dir,
                           std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        } else {
          const auto t0 = std::chrono::steady_clock::now();
          trainer.saveCheckpoint(o.checkpoint_dir, step, checkpointState(step), o.keep_checkpoints,
                                 o.overwrite_checkpoints, note);
          SLIDEDP_LOG_INFO("checkpoint of step {}: training stopped {:.3f} s for it ({})", step,
                           std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(),
                           step == last ? "the last step" : stopped ? "a stop" : "--checkpoint-mode blocking");
        }
      }
      if (stopped) {
        if (ctx.world_rank == 0)
          SLIDEDP_LOG_WARN("stopped after step {} on request{}", step,
                           !o.checkpoint_dir.empty()
                               ? fmt::format("; resume: --resume {} (alone: the run's flags come from the "
                                             "checkpoint; or added to the same command)", o.checkpoint_dir)
                           : o.export_dir.empty() ? " (no --checkpoint-dir: nothing saved)"
                                                  : " (no --checkpoint-dir: only the partial model is exported)");
        break;
      }
    }
    if (static_cast<int64_t>(recs.size()) > o.warmup_steps) {
      recs.erase(recs.begin(), recs.begin() + o.warmup_steps);
      auto med = [&](auto f) {
        std::vector<double> x;
        for (const auto& r : recs) x.push_back(f(r));
        return median(x);
      };
      const double step_s = med([](const StepRecord& x) { return x.seconds; });
      const double tokens = static_cast<double>(recs.back().batch_tokens);
      const double T = static_cast<double>(recs.back().T);
      const double flops = 6.0 * n_params * tokens + 12.0 * cfg.numLayers * cfg.numHeads * cfg.headDim * T * tokens;
      const double tflops = flops / step_s / G / 1e12;
      summaries.push_back({fmt::format("{}{}", v.label, v.batch_rows ? "" : fmt::format("@{}", o.batch_size)),
                           tokens / step_s, tflops, 100 * tflops / kH200PeakBf16Tflops, step_s,
                           med([](const StepRecord& x) { return x.fwd_s; }),
                           med([](const StepRecord& x) { return x.head_s; }),
                           med([](const StepRecord& x) { return x.bwd_s; }),
                           med([](const StepRecord& x) { return x.h2d_s; }),
                           med([](const StepRecord& x) { return x.d2h_s; }),
                           med([](const StepRecord& x) { return x.version_wait_s; }),
                           med([](const StepRecord& x) { return x.handoff_wait_s; }),
                           med([](const StepRecord& x) { return x.leader_wait_s; }),
                           med([](const StepRecord& x) { return x.leader_update_s; }),
                           med([](const StepRecord& x) { return double(x.kept_layers); }),
                           med([](const StepRecord& x) { return x.gpu_peak_bytes / double(1ull << 30); })});
    }
  }
  {
    // Nothing stays half-written behind the job's exit (with --checkpoint-at-end false the
    // last periodic checkpoint may still be streaming).
    const auto t0 = std::chrono::steady_clock::now();
    trainer.finishCheckpoints();
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (waited > 0.01 && !o.checkpoint_dir.empty())  // without one the wait is the agreement's
      SLIDEDP_LOG_INFO("waited {:.3f} s after the last step for the streamed checkpoint to be complete",
                       waited);
  }
  if (ctx.world_rank == 0 && !summaries.empty()) {
    const bool gpu = ctx.device == DeviceKind::kCuda;
    std::string t = fmt::format(
        "summary (median over steps after {} warm-up step(s); seconds per step; max over workers)\n"
        "{:<26} {:>9} {:>10} {:>6} {:>7} | {:>6} {:>6} {:>6} {:>6} {:>6} {:>8} {:>8} | {:>8} {:>7} | {:>5} {:>7}\n",
        o.warmup_steps, "variant@rows", "tok/s", gpu ? "TFLOPS/GPU" : "GFLOPS/wkr", "MFU%", "step_s",
        "fwd", "head", "bwd", "h2d", "d2h", "ver-wait", "hnd-wait", "ldr-wait", "ldr-upd", "kept",
        "GPU GiB");
    // CPU workers: GFLOPS per worker and no MFU (there is no GPU peak to divide by).
    for (const auto& s : summaries)
      t += fmt::format("{:<26} {:>9.0f} {:>10.1f} {:>6} {:>7.3f} | {:>6.3f} {:>6.3f} {:>6.3f} {:>6.3f} "
                       "{:>6.3f} {:>8.3f} {:>8.3f} | {:>8.3f} {:>7.3f} | {:>5.0f} {:>7.1f}\n",
                       s.variant, s.tokens_per_s, gpu ? s.tflops : 1000 * s.tflops,
                       gpu ? fmt::format("{:.1f}", s.mfu) : "-", s.step_s, s.fwd, s.head, s.bwd,
                       s.h2d, s.d2h, s.vwait, s.hwait, s.lwait, s.lupd, s.kept, s.gpu_gib);
    SLIDEDP_LOG_INFO("{}", t);
  }
  return step;
}

/// Whether the run writes periodic checkpoints while training continues (a checkpoint step
/// before the last step, --checkpoint-mode stream): only then is staging memory reserved.
bool streamsCheckpoints(const TrainJobOptions& o) {
  return !o.checkpoint_dir.empty() && o.checkpoint_every > 0 && o.checkpoint_every < o.steps &&
         o.checkpoint_mode == "stream";
}

/// --checkpoint-staging in GiB, or -1 for auto (the option's check has refused anything else).
double checkpointStagingGiB(const TrainJobOptions& o) {
  return o.checkpoint_staging == "auto" ? -1.0 : plainNumber(o.checkpoint_staging);
}

/// Fully sharded: whether every variant delivers on a sharded route, so each worker's gather
/// buffers hold about 1/G of a unit (routes/node_gather.h); one replicated variant of a
/// --route-sweep grows them to the whole largest unit.
bool shardedDeliveryOnly(const std::vector<RunVariant>& variants) {
  return std::all_of(variants.begin(), variants.end(),
                     [](const RunVariant& v) { return isSharded(v.opts.delivery); });
}

/// The job's host RAM (runtime/host_memory.h) against the node's MemAvailable, before the
/// leader creates the segment. Collective; throws AgreedError with needed vs available bytes.
void checkHostMemoryUpFront(const RankContext& ctx, const TrainJobOptions& o,
                            const std::vector<RunVariant>& variants) {
  std::string problem;
  try {
    const model::ModelConfig cfg = model::ModelConfig::load(o.model.empty() ? o.model_config : o.model);
    const model::ParamLayout layout = model::ParamLayout::build(cfg);
    HostStateSpec spec;  // as Trainer builds it
    for (const auto& u : layout.units) spec.unit_numels.push_back(u.numel);
    spec.num_workers = std::max(1, ctx.local_size - 1);
    spec.num_slots = o.train.ring_slots;
    spec.chunk_numel = static_cast<uint64_t>(std::max<int64_t>(1, o.train.chunk_numel));
    spec.grad_dtype = o.train.bf16_staging ? shm::DType::kBF16 : shm::DType::kF32;
    spec.grad_accumulation = o.train.max_grad_norm > 0 || o.train.reserve_grad_accumulation;
    if (o.train.split_embedding) spec.token_row_words = TokenRows::wordsFor(cfg.vocabSize);
    uint64_t gather_bytes = 0;
    if (ctx.num_nodes > 1 && shardsState(o.train.node_layout)) {
      const ChunkPlan plan = ChunkPlan::build(spec.unit_numels, static_cast<int64_t>(spec.chunk_numel));
      spec.owned_numels = NodeShards::build(plan, ctx.num_nodes, ctx.node_id).owned_numels;
      spec.f32_delivery = !o.train.bf16_compute;
      spec.shard_copy = o.train.node_layout == NodeLayoutKind::kFullySharded;
      if (spec.shard_copy)
        gather_bytes = NodeShards::gatherBufferBytes(
            plan, spec.num_workers, spec.num_workers > 1 && shardedDeliveryOnly(variants),
            ctx.device == DeviceKind::kCuda ? o.train.window_slots : 1, o.train.bf16_compute ? 2 : 4);
    }
    int64_t rows = o.batch_size;
    bool offload = o.train.offload_activations;
    for (const auto& v : variants) {
      rows = std::max(rows, v.batch_rows);
      offload |= v.opts.offload_activations;
    }
    HostMemoryNeed need = estimateHostMemory(HostStateLayout::build(spec), ctx.local_size, rows,
                                                   o.seq_len, cfg.hiddenSize, cfg.numLayers,
                                                   offload && ctx.device == DeviceKind::kCuda,
                                                   o.train.micro_batch_rows, o.train.accumulation_steps);
    need.gather_bytes = gather_bytes;
    // An explicit --checkpoint-staging is reserved at the start (auto takes what is free then).
    const double staging_gib = checkpointStagingGiB(o);
    if (streamsCheckpoints(o) && staging_gib >= 0) {
      uint64_t owned = 0;  // elements of the state this node's leader writes (12 B each)
      for (size_t u = 0; u < spec.unit_numels.size(); ++u)
        owned += spec.owned_numels.empty() ? spec.unit_numels[u] : spec.owned_numels[u];
      need.checkpoint_staging_bytes = formats::StagingPool::reservedBytes(std::min<uint64_t>(
          12 * owned, static_cast<uint64_t>(staging_gib * (1ull << 30))));
    }
    // A direct checkpoint write's bounce buffers, where the job surely writes direct
    // (CheckpointStream: --checkpoint-io direct, or auto with staging memory). Not with auto
    // staging: it takes MemAvailable less max(8 GiB, 10% of RAM) at the start, so either the
    // buffers fit in that headroom or the pool is empty and auto writes buffered (no buffers).
    if (!o.checkpoint_dir.empty() &&
        (o.checkpoint_io == "direct" ||
         (o.checkpoint_io == "auto" && streamsCheckpoints(o) && staging_gib > 0)))
      need.checkpoint_io_bytes = formats::directBounceBytes(formats::StreamedWriterOptions{});
    const uint64_t available = testHookMemAvailable(memAvailableBytes());
    if (ctx.world_rank == 0)
      SLIDEDP_LOG_INFO("host memory: the job needs {}; {} available", need.describe(),
                       available ? shm::formatBytes(available) : std::string("unknown"));
    checkHostMemory(need, available);
  } catch (const UserError& e) {
    problem = e.what();
  }
  agreeOrThrow(ctx.world, problem.empty(), problem);
}

/// `s` of world rank 0 on every rank. Collective.
std::string broadcastString(const RankContext& ctx, std::string s) {
  int len = static_cast<int>(s.size());
  MPI_CHECK(MPI_Bcast(&len, 1, MPI_INT, 0, ctx.world));
  s.resize(static_cast<size_t>(len));
  MPI_CHECK(MPI_Bcast(s.data(), len, MPI_CHAR, 0, ctx.world));
  return s;
}

/// A stop requested during start-up (the launcher's SIGUSR1 or stop file): every rank agrees at
/// these points, the same MPI_Allreduce as the step loop's, and the job ends cleanly: nothing
/// was trained, so nothing is saved. `first_step` (known on rank 0) names the step not run.
static bool stopAgreedBeforeFirstStep(const RankContext& ctx, int64_t first_step) {
  int stop = JobGuard::stopRequested() ? 1 : 0, any_stop = 0;
  MPI_CHECK(MPI_Allreduce(&stop, &any_stop, 1, MPI_INT, MPI_MAX, ctx.world));
  if (any_stop != 0 && ctx.world_rank == 0)
    SLIDEDP_LOG_WARN("stopped on request before step {}: nothing trained, nothing saved",
                     first_step);
  return any_stop != 0;
}

int runTrainJob(const RankContext& ctx, TrainJobOptions o) {
  std::string problem;
  int64_t first_step = 1;  // rank 0: the step this run starts at (a resume's is later)
  std::unique_ptr<BatchSource> data;
  data::DataLoader* loader_ptr = nullptr;
  std::unique_ptr<EvalBatches> eval;
  std::vector<RunVariant> variants;
  std::string resume;  // the step directory this run continues from ("": a fresh start)
  std::string resume_note;
  const int num_workers = ctx.num_workers;  // every worker of every node shares the batch
  try {
    if (o.model.empty() == o.model_config.empty())
      throwUserError("give exactly one of --model (a Hugging Face directory) and --model-config "
                     "(a config.json to initialise randomly)");
    resolveTrainOptions(o);
    o.train.bf16_compute = o.precision == "bf16" || (o.precision == "auto" && ctx.device == DeviceKind::kCuda);
    checkSettings(o, num_workers);
    if (ctx.isLeader())
      if (const std::string w = leaderCpuWarning(planner::allowedCpus(), nodeCpuCount(), ctx.local_size - 1);
          !w.empty())
        SLIDEDP_LOG_WARN("{}", w);
    // The model's config is read here, before any rank allocates: a sequence longer than it
    // covers, a tail beyond its layers, a route sweep the workers cannot run are refused at once.
    const model::ModelConfig cfg = model::ModelConfig::load(o.model.empty() ? o.model_config : o.model);
    const RunSite site{ctx.device == DeviceKind::kCuda, num_workers, ctx.num_nodes, {}};
    variants = checkRunAtSite(o, site, cfg);
    const int64_t last_step = o.steps * static_cast<int64_t>(variants.size());
    // Where the run continues from, and what its outputs need: checked by rank 0 (single node:
    // the leader's file systems) before the model is loaded, and agreed before the data is read
    // (tokenising a large text corpus takes minutes; a read-only --export must not wait for it).
    std::string early;
    if (ctx.world_rank == 0) try {
      const model::ParamLayout layout = model::ParamLayout::build(cfg);
      // one job at a time writes a checkpoint root (held until this rank exits): taken before
      // its checkpoints are judged, where it exists already (else once the output checks make it)
      std::string unlocked;  // a file system without flock: said once
      if (!o.checkpoint_dir.empty() && formats::isDirectory(o.checkpoint_dir))
        unlocked = lockCheckpointRoot(o.checkpoint_dir);
      const std::string want = o.resume == "auto" ? o.checkpoint_dir : o.resume;
      const bool auto_fresh = o.resume == "auto" && listStepCheckpoints(o.checkpoint_dir).empty() &&
                              !formats::isRegularFile(formats::joinPath(o.checkpoint_dir, "latest"));
      if (!want.empty() && !auto_fresh) resume = resolveCheckpoint(want, &resume_note);
      if (auto_fresh)
        SLIDEDP_LOG_INFO("--resume auto: {} holds no checkpoint yet, so this run starts at step 1",
                         o.checkpoint_dir);
      const int64_t start = resume.empty() ? 0 : readTrainerState(resume).at("step").get<int64_t>();
      first_step = start + 1;
      // A resume of another model shape is refused now, from the checkpoint's own state file
      // (its header: each unit's element count), before the data is read and host memory
      // allocated; the state's load would refuse it after both. (A state sharded across nodes,
      // one file per node, is checked at its load.)
      if (!resume.empty()) {
        const std::string state = formats::joinPath(resume, "optimizer.safetensors");
        if (formats::isRegularFile(state)) {
          const auto f = formats::SafetensorsFile::open(state);
          int64_t units = 0;
          while (f.find(fmt::format("unit{}.master", units)) != nullptr) ++units;
          bool same = units == layout.numUnits();
          for (int u = 0; same && u < layout.numUnits(); ++u)
            same = f.get(fmt::format("unit{}.master", u)).numel() == layout.units[u].numel;
          if (!same) {
            int64_t params = 0;
            for (int64_t u = 0; u < units; ++u) params += f.get(fmt::format("unit{}.master", u)).numel();
            throwUserError("--resume {}: the checkpoint holds a model of another shape ({} parameters in {} "
                           "units) than this run's {} ({} parameters in {} units).\nHINT: resume with the "
                           "model the checkpoint was trained from, or start a fresh run from {} with a new "
                           "--checkpoint-dir", resume, params, units, o.model.empty() ? o.model_config : o.model,
                           layout.parameterCount(), layout.numUnits(), o.model.empty() ? o.model_config : o.model);
          }
        }
      }
      if (!resume.empty()) {
        const nlohmann::json st = readTrainerState(resume);
        // Trained on a data file, resumed without --data (with --model given, the command line is
        // the run's whole command): it would go on with random tokens, without a word.
        if (!o.data_given && st.contains("data") && st["data"].contains("spec") && st["data"]["spec"].is_string()) {
          const std::string was = st["data"]["spec"].get<std::string>();
          if (was != "synthetic" && was.rfind("synthetic-packed:", 0) != 0)
            throwUserError("--resume {}: the run was trained on --data {}, and this command gives no --data, "
                           "so it would go on with random tokens.\nHINT: add --data {} (with --model on the "
                           "command line the command line is the run's whole command: give the run's other "
                           "flags too, saved in {}/trainer_state.json), or --data synthetic for random tokens",
                           resume, was, shellWord(was), resume);
        }
        // Same parameter counts, other architecture (e.g. 8 heads of 8 read as 4 of 16): the
        // weights would mean something else. (Checkpoints of an older slidedp lack the record.)
        if (st.contains("model_config") && st["model_config"].is_object()) {
          const model::ModelConfig was =
              model::ModelConfig::fromJson(st["model_config"], resume + "/trainer_state.json's model_config");
          const ModelChange change = compareResumedModel(was, cfg);
          const std::string now = o.model.empty() ? o.model_config : o.model;
          if (!change.refusal.empty())
            throwUserError("--resume {}: the checkpoint was trained as another architecture than {} ({}): "
                           "its weights would be read as other matrices.\nHINT: resume with the model the "
                           "checkpoint was trained from (its config.json is in {}/trainer_state.json, "
                           "\"model_config\"), or start a fresh run from {} with a new --checkpoint-dir",
                           resume, now, change.refusal, resume, now);
          if (!change.warning.empty())
            SLIDEDP_LOG_WARN("--resume {}: {} computes another function than the model the checkpoint was "
                             "trained as ({}); training goes on from the checkpoint's weights with {}'s",
                             resume, now, change.warning, now);
        }
        if (o.checkpoint_dir.empty())
          SLIDEDP_LOG_WARN("this resumed run writes no checkpoint (no --checkpoint-dir): to keep its "
                           "steps, add --checkpoint-dir (e.g. the one it resumes from)");
        if (st.contains("configuration") && st["configuration"].is_string())
          if (const std::string note = scheduleChangeNote(st["configuration"].get<std::string>(),
                                                          o.train, start); !note.empty())
            SLIDEDP_LOG_WARN("{}", note);
        // Another model directory of the same shape passes the shape checks: say whose weights
        // (and whose tokenizer, for the export) this run continues with.
        if (st.contains("configuration") && st["configuration"].is_string()) {
          const std::string was = savedConfigValue(st["configuration"].get<std::string>(),
                                              o.model.empty() ? "model-config" : "model");
          const std::string now = o.model.empty() ? o.model_config : o.model;
          if (formats::pathExists(was) && formats::pathExists(now) && !formats::samePath(was, now))
            SLIDEDP_LOG_WARN("resuming a checkpoint of --model {} with --model {}: training "
                             "continues from the checkpoint's weights (the shapes match); {} "
                             "gives the config and tokenizer of the export", was, now, now);
        }
      }
      // A fresh start from --model reads its weights at start-up (Leader::loadCheckpoint), after
      // the data load and the host allocation: their headers (names, shapes, dtypes, sizes)
      // are checked now, so a wrong or damaged weight file is named at once.
      if (resume.empty() && !o.model.empty())
        model::validateCheckpoint(formats::CheckpointReader::open(o.model), cfg,
                                  layout, /*checkDType=*/false);
      if (!resume.empty() && !verifyCheckpointFiles(resume))
        SLIDEDP_LOG_WARN("{} records no file checksums (written by an older slidedp): its values "
                         "are loaded unverified", resume);
      if (!o.checkpoint_dir.empty())
        checkCheckpointRootBeforeStart(o.checkpoint_dir, start, o.overwrite_checkpoints);
      const uint64_t params = static_cast<uint64_t>(layout.parameterCount());
      OutputPlan plan;
      plan.checkpoint_dir = o.checkpoint_dir;
      plan.checkpoint_bytes = params * 12 + (1u << 20);  // master, m, v in fp32 + header, JSON
      const int64_t every = o.checkpoint_every;
      plan.checkpoints_written = (every > 0 ? last_step / every - start / every : 0) +
                                 (o.checkpoint_at_end && (every == 0 || last_step % every != 0) ? 1 : 0);
      plan.keep = o.keep_checkpoints;
      plan.export_dir = o.export_dir;
      plan.export_bytes = params * (o.export_bf16 ? 2 : 4) + (1u << 20);
      plan.model_dir = o.model;
      plan.metrics = o.metrics;
      plan.trace = o.trace;
      plan.gpu_profile = o.gpu_profile;
      plan.memory_snapshot = o.memory_snapshot;
      const std::string reference = "reference:";
      plan.inputs = {{"--model", o.model}, {"--model-config", o.model_config},
                     {"--data", o.data.rfind(reference, 0) == 0 ? o.data.substr(reference.size()) : o.data},
                     {"--eval-data", o.eval_data}, {"--tokenizer", o.tokenizer},
                     {"--resume", o.resume}, {"--checkpoint-dir", o.checkpoint_dir},
                     {"--config", o.config_file}};
      checkOutputPaths(plan);
      if (!o.checkpoint_dir.empty()) {
        if (unlocked.empty()) unlocked = lockCheckpointRoot(o.checkpoint_dir);
        if (!unlocked.empty()) SLIDEDP_LOG_WARN("{}", unlocked);
        // a checkpoint published by a job killed before it updated `latest`: this run continues
        // from `latest`, so it goes aside, where no later resume takes it for another run's
        for (const std::string& aside : setAsideInterruptedPublications(o.checkpoint_dir))
          SLIDEDP_LOG_WARN("{}: a checkpoint newer than the one `latest` names (its job was ended "
                           "before it updated `latest`) is moved aside to {}; this run continues "
                           "from step {}", o.checkpoint_dir, aside, start);
      }
    } catch (const UserError& e) {
      early = e.what();
    } catch (const nlohmann::json::exception& e) {
      early = fmt::format("{}/trainer_state.json: {}", resume, e.what());
    }
    agreeOrThrow(ctx.world, early.empty(), early);  // collective: every rank gets here or below
    if (stopAgreedBeforeFirstStep(ctx, first_step)) return 0;  // before the data is read
    testHookSlowStartup(ctx.world_rank);
    // after the agreement above: a data file another node lacks fails on its ranks alone
    checkDataInputs(o, site, cfg);
    if (o.data.rfind("reference:", 0) == 0) {
      auto ref = std::make_unique<data::ReferenceBatches>(o.data.substr(10));  // checked above
      o.train.batch_rows = ref->batch(1).B;  // used as stored, whatever --batch-size says
      data = std::move(ref);
    } else if (o.data != "synthetic" && o.data.rfind("synthetic-packed:", 0) != 0) {
      data::DataSpec spec;
      spec.path = o.data;
      spec.format = o.data_format;
      spec.tokenizer = o.tokenizer;
      if (spec.tokenizer.empty() && !o.model.empty() &&
          formats::isRegularFile(formats::joinPath(o.model, "tokenizer.model")))
        spec.tokenizer = formats::joinPath(o.model, "tokenizer.model");
      spec.token_dtype = o.token_dtype;
      spec.batch_size = o.batch_size;
      spec.seq_len = o.seq_len;
      spec.seed = o.seed;
      spec.vocab_size = cfg.vocabSize;
      spec.shuffle = o.shuffle;
      spec.stream_doc_start = o.doc_start_token;
      spec.model_dir = o.model;
      auto loader = data::DataLoader::open(spec);
      if (ctx.world_rank == 0) {
        SLIDEDP_LOG_INFO("{}", loader->describe());
        if (loader->prepared())
          if (const std::string w = unverifiedTokenizerWarning("--data", o.data, *loader->prepared(), cfg, o.model);
              !w.empty())
            SLIDEDP_LOG_WARN("{}", w);
        // how far the run goes through the data (epoch 0's rows; a shuffled epoch's count
        // differs by a few), and a set smaller than one batch, whose steps repeat rows
        const int64_t rows = loader->rowsInEpoch(0), steps = o.train.total_steps;
        SLIDEDP_LOG_INFO("data: {} row(s) of T = {} per epoch; the run's {} step(s) of {} row(s) cover {:.3g} epoch(s)",
                         rows, o.seq_len, steps, o.batch_size,
                         static_cast<double>(steps) * static_cast<double>(o.batch_size) / static_cast<double>(rows));
        if (rows < o.batch_size)
          SLIDEDP_LOG_WARN("data {} fills {} row(s) of T = {}, fewer than one step's --batch-size {}: every "
                           "step repeats rows of it", o.data, rows, o.seq_len, o.batch_size);
      }
      loader_ptr = loader.get();
      data = std::move(loader);
      if (!o.eval_data.empty()) {
        spec.path = o.eval_data;
        spec.option = "--eval-data";
        spec.shuffle = false;
        auto eval_loader = data::DataLoader::open(spec);
        if (eval_loader->prepared() && loader_ptr->prepared())
          checkSameTokenizer(o.data, *loader_ptr->prepared(), o.eval_data, *eval_loader->prepared());
        if (ctx.world_rank == 0) {
          if (eval_loader->prepared() && !loader_ptr->prepared())
            if (const std::string w = unverifiedTokenizerWarning("--eval-data", o.eval_data, *eval_loader->prepared(),
                                                                 cfg, o.model); !w.empty())
              SLIDEDP_LOG_WARN("{}", w);
          if (formats::samePath(o.eval_data, o.data))
            SLIDEDP_LOG_WARN("--eval-data {} is the --data file: the held-out loss is measured on the training "
                             "data (not held out)", o.eval_data);
        }
        eval = std::make_unique<EvalBatches>(std::move(eval_loader), o.batch_size, o.eval_batches);
        if (ctx.world_rank == 0)
          SLIDEDP_LOG_INFO("eval {}; {} batch(es) per evaluation, {}", eval->loader().describe(),
                           eval->numBatches(), o.eval_every > 0 ? fmt::format("every {} steps and at the end", o.eval_every)
                                                                : std::string("once, at the end"));
      }
    }
  } catch (const AgreedError&) {
    throw;  // already agreed by every rank (the early check above)
  } catch (const UserError& e) {
    problem = e.what();
  } catch (const nlohmann::json::exception& e) {
    problem = fmt::format("{}/trainer_state.json: {}", resume, e.what());
  }
  agreeOrThrow(ctx.world, problem.empty(), problem);
  // Rank 0 resolved the checkpoint; every rank continues from the same one.
  resume = broadcastString(ctx, resume);
  if (!resume_note.empty()) SLIDEDP_LOG_WARN("{}", resume_note);

  // --policy auto: every rank plans from the same files (deterministic), so all agree.
  // Not given, it applies on GPU workers of one node with no knob flag (apps/policy_choice.h).
  PredictedStep predicted;  // step_s 0: not planned
  std::string plan_line;
  const PolicyChoice choice = choosePolicy(o.policy, o.policy_given, o.policy_knobs_given,
                                           ctx.device == DeviceKind::kCuda, ctx.num_nodes,
                                           !o.route_sweep.empty());
  if (!choice.why_manual.empty()) plan_line = "policy manual (the default auto does not apply: " + choice.why_manual + ")";
  try {
    std::optional<planner::Plan> planned;
    if (choice.plan) {
      if (!o.route_sweep.empty())
        throwUserError("--policy auto and --route-sweep do not go together (a sweep sets its own policies)");
      if (ctx.num_nodes > 1)
        throwUserError("--policy auto plans one node; this job has {} nodes.\nHINT: pick the "
                       "policy with slidedp_plan --nodes {} --network-gbps RATE and pass its flags",
                       ctx.num_nodes, ctx.num_nodes);
      planner::PlanRequest req;
      req.model_path = o.model.empty() ? o.model_config : o.model;
      req.model_name = req.model_path.substr(req.model_path.find_last_of('/') + 1);
      req.G = ctx.num_workers;
      req.global_rows = o.batch_size;
      req.T = o.seq_len;
      req.cuda = ctx.device == DeviceKind::kCuda;
      req.gpu_budget_gib = o.train.gpu_memory_budget_gib;
      req.clip = o.train.max_grad_norm > 0;
      req.split_embedding = o.train.split_embedding;
      req.gradient_buckets = o.train.gradient_buckets;
      req.host_embedding_lookup = o.train.host_embedding_lookup;
      req.bf16_staging = o.train.bf16_staging;
      req.machine_file = o.machine;
      req.calibration_file = o.calibration;
      // This machine: the leader's own team (the launcher's OMP_NUM_THREADS for it), the same on
      // every rank, not the count its cache entry was calibrated for. A --machine file keeps its own.
      if (o.machine.empty()) {
        int leader_threads = omp_get_max_threads();  // world rank 0's (the leader's) on every rank
        MPI_CHECK(MPI_Bcast(&leader_threads, 1, MPI_INT, 0, ctx.world));
        req.leader_cores = leader_threads;
      }
      try {
        planned = planner::makePlan(req, nullptr, false);
      } catch (const planner::MissingCalibration&) {
        if (!choice.defaulted) throw;
        // A worker started without the launcher (which calibrates first): the flags as given.
        plan_line = fmt::format("policy manual: the default --policy auto has no calibration of this "
                                "machine at {} x {} tokens ({}); running the flags as given.\nHINT: "
                                "start the job with launcher/slidedp-run (it calibrates the shape "
                                "once), or run `launcher/slidedp-run --plan` with these arguments; "
                                "--policy manual silences this", o.batch_size, o.seq_len,
                                req.calibration_file.empty() ? "the default cache" : req.calibration_file);
      }
    }
    if (planned) {
      const planner::Plan& plan = *planned;
      const auto& best = plan.result.choice();
      best.policy.apply(o.train, plan.workload.L);
      // The first step's reserve: calibration's measurement for this model and shape, where it
      // has one and applies: it was measured with the default loss chunk, MLP tiling, attention
      // and bf16 compute, and it counts 3 queued unit gradients. The runtime bounds that queue
      // only while inputs are offloaded; otherwise a rule of thumb stands in: a leader whose
      // predicted update time is at most half the GPU's compute time keeps up with the backward
      // (gradients come only during the backward, about two thirds of that compute), so few
      // queue. Else the first step keeps the shape estimate, whose slack absorbs a longer queue.
      const double reserve = planner::calibratedReserveBytes(
          plan.machine, plan.workload, planner::passTokens(plan.workload, best.policy));
      const TrainOptions& t = o.train;
      if (std::isfinite(reserve) && t.loss_chunk_tokens == 0 && t.mlp_tile_tokens == 0 &&
          t.attention == AttentionChoice::kAuto && t.bf16_compute &&
          2 * best.prediction.busy.cpu_update <= best.prediction.busy.gpu_compute)
        o.train.first_step_reserve_bytes = static_cast<int64_t>(reserve);
      predicted = {best.prediction.step_s, best.prediction.busy.cpu_update,
                   best.prediction.busy.gpu_compute};
      const std::string label = best.policy.label(plan.workload.L);
      const std::string flags = best.policy.flags(plan.workload.L);
      plan_line = fmt::format("policy auto: {} (predicted {:.3f} s/step, {:.0f} tokens/s, bound by {}; "
                              "{} of {} policies fit; machine: {})\n  = {}", label, predicted.step_s,
                              best.prediction.tokens_per_s, best.prediction.bottleneck,
                              plan.result.ranked.size(), plan.result.evaluated, plan.machine_from, flags);
      // The saved configuration records what runs, so that fed back it runs the same policy.
      o.resolved_config = withPlannedPolicy(
          o.resolved_config, flags,
          fmt::format("--policy auto chose {} (predicted {:.3f} s/step; machine: {}); the knob lines "
                      "below are its", label, predicted.step_s, plan.machine_from));
    }
  } catch (const UserError& e) {
    problem = e.what();
  }
  agreeOrThrow(ctx.world, problem.empty(), problem);
  if (!plan_line.empty() && ctx.world_rank == 0) SLIDEDP_LOG_INFO("{}", plan_line);
  if (stopAgreedBeforeFirstStep(ctx, first_step)) return 0;  // before the model is loaded

  const bool random_init = !o.model_config.empty();
  if (predicted.step_s > 0) {  // --policy auto changed o.train: the run's variant takes its options
    variants = parseVariants(o);
    variants.front().predicted = predicted;
  }
  for (const auto& v : variants) o.train.reserve_grad_accumulation |= v.opts.max_grad_norm > 0;
  // The chunk plan is fixed for the job: the row-split embedding update only when every
  // variant hands gradients to the leader whole (the cpu reduction route).
  for (const auto& v : variants)
    if (o.train.split_embedding && v.opts.reduction != ReductionRoute::kCpu) {
      o.train.split_embedding = false;
      SLIDEDP_LOG_INFO("embedding update: dense (the row-split update needs the cpu reduction "
                       "route; route {}/{} reduces on the workers)", routeName(v.opts.delivery),
                       routeName(v.opts.reduction));
    }
  if (o.train.split_embedding && ctx.num_nodes > 1 && shardsState(o.train.node_layout)) {
    // The split's token pass hands off the step's token rows packed, which the sharded layout's
    // cut (node p owns part p of every chunk, in element order) does not follow: each node's
    // token rows would need their own cut across the leaders. Replicated runs it as on one node.
    o.train.split_embedding = false;
    SLIDEDP_LOG_INFO("embedding update: dense (the row-split update's packed token-row hand-offs "
                     "are not cut across nodes: --node-layout {} on {} nodes; replicated "
                     "runs it)", nodeLayoutName(o.train.node_layout), ctx.num_nodes);
  }
  checkHostMemoryUpFront(ctx, o, variants);
  JobGuard::enableGracefulStop();
  Trainer trainer(ctx, random_init ? o.model_config : o.model, o.train, o.shm_name, random_init,
                  o.seed, resume);
  // every variant's options against the workers' GPUs before the first step (agreed over the
  // ranks: exit 2 with one message)
  for (const RunVariant& v : variants) trainer.checkRunOptions(v.opts);
  if (streamsCheckpoints(o)) {
    const std::string& cs = o.checkpoint_staging;
    const double staging_gib = checkpointStagingGiB(o);
    const uint64_t bytes = trainer.reserveCheckpointStaging(staging_gib);
    trainer.setCheckpointWriteRate(o.checkpoint_write_rate * 1e6);
    trainer.setCheckpointIo(o.checkpoint_io);
    if (ctx.isLeader() && o.checkpoint_write_rate > 0)
      SLIDEDP_LOG_INFO("checkpoint writes capped at {:g} MB/s (--checkpoint-write-rate)",
                       o.checkpoint_write_rate);
    // Capped at the checkpoint's size (the pool never needs more): said when it applies.
    const bool capped = staging_gib >= 0 &&
        formats::StagingPool::reservedBytes(static_cast<uint64_t>(staging_gib * (1ull << 30))) > bytes;
    if (ctx.isLeader() && bytes > 0)
      SLIDEDP_LOG_INFO("checkpoint staging: {} of host memory reserved{}, faulted in on a "
                       "background thread (--checkpoint-staging {}): streamed checkpoints copy "
                       "into it what the next step updates before the disk has it",
                       shm::formatBytes(bytes), capped ? " (the checkpoint's size: more is never used)" : "", cs);
    else if (ctx.isLeader())
      SLIDEDP_LOG_INFO("checkpoint staging: off (--checkpoint-staging {}{}): a unit the next step "
                       "updates before the disk has it waits for the disk", cs,
                       cs == "auto" ? ": no memory to spare" : "");
  }
  {
    // Host bytes per parameter on each node (issue 17's target for the sharded layout: 12/N for
    // master, m and v, plus the whole delivery copy and the bounded staging).
    std::string line;
    if (ctx.isLeader()) {
      int64_t params = 0;
      for (const auto& u : trainer.layout().units) params += u.numel;
      uint64_t staging = 0;
      for (const char* r : {kStagingRegion, kGradAccumRegion})
        if (const shm::Region* reg = trainer.segment().layout().find(r)) staging += reg->bytes();
      const uint64_t total = trainer.hostStateBytes();
      // Fully sharded: each worker's gather buffers (routes/node_gather.h; one on CPU workers,
      // one per window slot on GPU workers) of its largest span, outside the segment.
      const uint64_t gather = trainer.workerGatherBytes(shardedDeliveryOnly(variants));
      line = fmt::format("node {}: host state {} bytes for {} params: {:.3f} B/param without "
                         "staging ({} staging bytes{}; {:.3f} B/param in all), state {} across {} "
                         "node(s){}", ctx.node_id, total - staging, params,
                         static_cast<double>(total - staging) / params, staging + gather,
                         gather ? fmt::format(", of which {} the workers' gather buffers", gather) : "",
                         static_cast<double>(total + gather) / params,
                         ctx.num_nodes > 1 ? nodeLayoutName(o.train.node_layout) : "whole",
                         ctx.num_nodes, leaderMemoryText(trainer.segment()));
    }
    const std::string lines = gatherLines(ctx, line);
    if (ctx.world_rank == 0) SLIDEDP_LOG_INFO("{}", lines.substr(0, lines.size() - (lines.empty() ? 0 : 1)));
  }
  if (!resume.empty()) {
    SLIDEDP_LOG_INFO("resumed from {} at step {} ({})",
                     o.resume == "auto" ? o.checkpoint_dir : o.resume, trainer.firstStep(), resume);
    if (loader_ptr) {
      // The data must be the same (file, seed, B, T, shuffle): restore() checks the fingerprint.
      const nlohmann::json st = readTrainerState(resume);
      std::string why, warning;
      try {
        if (st.contains("data") && st["data"].contains("cursor") && st["data"]["cursor"].contains("seed"))
          warning = loader_ptr->restore(st["data"]["cursor"]);
      } catch (const UserError& e) {
        why = e.what();
      }
      agreeOrThrow(ctx.world, why.empty(), why);
      if (!warning.empty() && ctx.world_rank == 0) SLIDEDP_LOG_WARN("--resume: {}", warning);
    }
  }
  const int64_t last = o.steps * static_cast<int64_t>(variants.size());
  if (trainer.firstStep() > 1 && trainer.firstStep() <= last) {
    const int64_t traced = tracedStep(o, trainer.firstStep(), last);
    if (!o.trace.empty()) {
      // A resume keeps the earlier run's trace: its own goes beside it, named by the step it
      // records (rank 0 looks, every rank takes its answer).
      std::string path = o.trace, problem;
      if (ctx.world_rank == 0 && formats::isRegularFile(o.trace)) {
        // a free name: a second resume from the same step keeps the first one's trace too
        path = withNameSuffix(o.trace, fmt::format("-step{}", traced));
        for (int k = 2; formats::isRegularFile(path); ++k)
          path = withNameSuffix(o.trace, fmt::format("-step{}-{}", traced, k));
        if (formats::isDirectory(path))
          problem = fmt::format("--trace {} holds an earlier run's trace, and {}, where this resumed run's "
                                "would go, is a directory.\nHINT: give another --trace", o.trace, path);
        else
          SLIDEDP_LOG_INFO("--trace {} holds an earlier run's trace: kept; this run's goes to {}", o.trace, path);
      }
      agreeOrThrow(ctx.world, problem.empty(), problem);
      o.trace = broadcastString(ctx, path);
    }
    // The workers name these files themselves (-w<worker>, worker/worker.cpp): a resumed run's
    // carry the step in their name, so an earlier run's are never overwritten.
    for (std::string* f : {&o.gpu_profile, &o.memory_snapshot})
      if (!f->empty()) *f = withNameSuffix(*f, fmt::format("-step{}", traced));
  }
  SyntheticBatches* synthetic = nullptr;
  if (!data) {
    std::pair<int64_t, int64_t> docs{0, 0};
    if (o.data.rfind("synthetic-packed:", 0) == 0) docs = parsePackedSynthetic(o.data);
    auto s = std::make_unique<SyntheticBatches>(o.batch_size, o.seq_len, trainer.config().vocabSize,
                                                o.seed, docs.first, docs.second);
    synthetic = s.get();
    data = std::move(s);
  }
  JobGuard::setSegmentName(trainer.segment().name());
  JobGuard guard;
  guard.start(ctx, trainer.segment().control(), WatchdogOptions{0.05, o.heartbeat_timeout_s, o.stall_timeout_s});
  if (stopAgreedBeforeFirstStep(ctx, trainer.firstStep())) {
    guard.stop();
    return 0;  // the Trainer removes the segment as after a run
  }
  JobGuard::markStepsStarted();
  std::string exported;      // the directory this run wrote the model to ("": none; node 0's leader)
  int64_t exported_step = 0;  // < the last step: the partial model of a stopped run
  int64_t done = 0;
  const auto job_start = std::chrono::system_clock::now();
  try {
    done = runSteps(ctx, o, trainer, *data, variants, synthetic, loader_ptr, eval.get());
    // A run stopped early (signal) never writes its partial model where the trained one goes:
    // with a checkpoint the state is safe and a resume finishes and exports it; without one,
    // the partial weights are the only record of the run, so they go beside the export
    // directory under a name that says so.
    std::string export_to = o.export_dir;
    if (!o.export_dir.empty() && done < last) {
      if (!o.checkpoint_dir.empty()) {
        if (ctx.world_rank == 0)
          SLIDEDP_LOG_WARN("export to {} skipped: the run stopped after step {} of {}; its "
                           "checkpoint is saved, and --resume {} finishes the run and exports it",
                           o.export_dir, done, last, o.checkpoint_dir);
        export_to.clear();
      } else {
        std::string base = o.export_dir;
        while (base.size() > 1 && base.back() == '/') base.pop_back();
        export_to = fmt::format("{}.partial-step-{}", base, done);
      }
    }
    if (!export_to.empty()) {
      if (ctx.isLeader()) {
        killPoint("export", done);
        trainer.exportHf(export_to, o.export_bf16,
                         o.tokenizer.empty() ? "" : formats::parentPath(o.tokenizer));
        exported = export_to;
        exported_step = done < last ? done : 0;
        if (ctx.node_id != 0) {
          // only node 0's leader writes (the other leaders sent it their parts)
        } else if (done < last)
          SLIDEDP_LOG_WARN("exported the PARTIAL model, stopped after step {} of {} (no "
                           "--checkpoint-dir, so nothing else was saved), to {}; {} was not "
                           "written", done, last, export_to, o.export_dir);
        else
          SLIDEDP_LOG_INFO("exported the trained model (Hugging Face format) to {}", export_to);
      }
      MPI_CHECK(MPI_Barrier(ctx.world));
    }
  } catch (const AgreedError&) {
    throw;
  } catch (const std::exception& e) {
    // Fail the job from here, while the segment is mapped: node peers print this message.
    JobGuard::failJob(&ctx, &trainer.segment().control(), e.what(), 1);
  }
  guard.stop();
  if (ctx.world_rank == 0) {
    // Commands that work from any directory: absolute paths, the interpreter with the packages.
    auto abs = [](const std::string& p) {
      char buf[PATH_MAX];
      return ::realpath(p.c_str(), buf) ? std::string(buf) : p;
    };
    auto quote = [](const std::string& p) {
      return p.find_first_of(" \t'\"$") == std::string::npos ? p : "'" + p + "'";
    };
#ifdef SLIDEDP_SOURCE_DIR
    const std::string root = SLIDEDP_SOURCE_DIR, bin = SLIDEDP_BIN_DIR;
    const std::string py = formats::isRegularFile(SLIDEDP_PYTHON_EXE) ? SLIDEDP_PYTHON_EXE : "python3";
#else
    const std::string root = ".", bin = "build/bin", py = "python3";
#endif
    // Only what exists: the export this run wrote (not a skipped one, nor the name a partial
    // export was diverted from), and files that were written (a resume with nothing left to
    // do writes no trace).
    std::string where;
    if (!exported.empty()) {
      const std::string m = quote(abs(exported));
      const std::string what = exported_step > 0 ? fmt::format("PARTIAL model, stopped after step {} "
                                                               "(Hugging Face format)", exported_step)
                                                 : std::string("model (Hugging Face format)");
      if (formats::isRegularFile(formats::joinPath(exported, "tokenizer.json")))
        where += fmt::format("\n  {}: {}\n    try: {} {}/tools/generate.py --model {} "
                             "--chat --prompt \"Hello\"", what, m, py, root, m);
      else
        where += fmt::format("\n  {}: {}\n    try: {}/slidedp_generate --model {} "
                             "--prompt \"And God said\"", what, m, bin, m);
    }
    // The trace only if this run wrote it (a resume with nothing left to do records none, and
    // an earlier run's would be listed as this one's); the metrics file is the whole run's.
    auto writtenNow = [&](const std::string& f) {
      struct stat st {};
      return !f.empty() && ::stat(f.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
             std::chrono::system_clock::from_time_t(st.st_mtime) >=
                 std::chrono::time_point_cast<std::chrono::seconds>(job_start);
    };
    if (!o.metrics.empty() && formats::isRegularFile(o.metrics)) {
      // the plot next to the metrics, named as the README's example (metrics.jsonl -> metrics.png)
      std::string png = abs(o.metrics);
      const size_t dot = png.find_last_of('.'), slash = png.find_last_of('/');
      if (dot != std::string::npos && (slash == std::string::npos || dot > slash)) png.resize(dot);
      where += fmt::format("\n  metrics: {}\n    plot: {} {}/tools/plot/plot_metrics.py {} --out {}.png",
                           quote(abs(o.metrics)), py, root, quote(abs(o.metrics)), quote(png));
    }
    if (writtenNow(o.trace))
      where += fmt::format("\n  trace: {} (open in ui.perfetto.dev)", quote(abs(o.trace)));
    if (!o.checkpoint_dir.empty() && formats::isDirectory(o.checkpoint_dir)) {
      const std::string dir = quote(abs(o.checkpoint_dir));
      if (done < last)
        where += fmt::format("\n  checkpoints: {} (continue: --resume {}, alone or added to the same command)",
                             dir, dir);
      else
        where += fmt::format("\n  checkpoints: {} (the run is complete; to train further: --resume {} "
                             "--steps N with N > {})", dir, dir, last);
    }
    if (!where.empty()) SLIDEDP_LOG_INFO("results:{}", where);
  }
  return 0;
}

}  // namespace slidedp
