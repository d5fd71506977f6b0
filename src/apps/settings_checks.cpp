#include "apps/settings_checks.h"

#include <cmath>
#include <string>

#include "common/errors.h"
#include "common/log.h"
#include "apps/run_variants.h"
#include "optim/lr_schedule.h"
#include "runtime/host_state_layout.h"
#include "runtime/train_options.h"

namespace slidedp {

void checkTokensPerStep(int64_t rows, int64_t seq_len, const std::string& rows_name,
                        const std::string& hint_prefix) {
  // Every size derived from the tokens of a step (host buffers, the memory checks) must stay far
  // from int64/uint64 overflow (2^58 rows x 64 tokens once wrapped the host buffers' size to 0 B,
  // and a worker crashed); 2^40 tokens a step is beyond any machine.
  if (seq_len > kMaxTokensPerStep)
    throwUserError("--seq-len {} is more than 2^40 tokens per row, beyond any machine's memory",
                   seq_len);
  if (rows > kMaxTokensPerStep / seq_len)
    throwUserError("{} x --seq-len {} is more than 2^40 tokens per step, beyond any machine's "
                   "memory.\nHINT: {}{} at this --seq-len", rows_name, seq_len, hint_prefix,
                   kMaxTokensPerStep / seq_len);
}

void resolveTrainOptions(TrainJobOptions& o) {
  o.train.delivery = parseDeliveryRoute(o.delivery);
  o.train.reduction = parseReductionRoute(o.reduction);
  o.train.node_layout = parseNodeLayout(o.node_layout);
  o.train.schedule = optim::parseLrScheduleKind(o.schedule);
  o.train.activations = parseActivationPolicy(o.activations);
  o.train.attention = parseAttentionChoice(o.attention);
  o.train.split_embedding = o.embedding_update == "split";
  o.train.host_embedding_lookup = o.embedding_lookup == "host";
  o.train.timed_gemm_algorithms = o.gemm_algorithm == "timed";
  o.train.gradient_buckets = o.grad_buckets == "split";
  // The learning-rate schedule spans the job once: a --route-sweep runs --steps per variant, one
  // step count across them (lastStep), so its schedule runs over all of them.
  o.train.total_steps = lastStep(o);
}

void checkSettings(const TrainJobOptions& o, int num_workers) {
  const TrainOptions& t = o.train;
  optimizerStateInLeaderMemory(true);  // SLIDEDP_OPTIMIZER_STATE's value, refused when bad
  if (o.steps < 1) throwUserError("--steps must be >= 1, got {}", o.steps);
  // (a value past int64's range reads as 9223372036854775807: a typo, not a run)
  if (o.steps > 1'000'000'000'000)
    throwUserError("--steps {} is beyond 10^12 steps (a typo?)\nHINT: the number of optimizer steps to "
                   "run, e.g. --steps 1000", o.steps);
  if (t.mlp_tile_tokens < -1)
    throwUserError("--mlp-tile-tokens must be > 0, 0 (auto) or -1 (never tiled); got {}",
                   t.mlp_tile_tokens);
  if (t.loss_chunk_tokens < 0)
    throwUserError("--loss-chunk-tokens must be >= 0 (0: about 2 GiB of bf16 logits per chunk), got {}",
                   t.loss_chunk_tokens);
  if (t.max_kept_layers < -1)
    throwUserError("--max-kept-layers must be >= 0, or -1 for no cap; got {}", t.max_kept_layers);
  if (t.micro_batch_rows < 0)
    throwUserError("--micro-batch-rows must be >= 0 (0: all of a worker's rows at once), got {}",
                   t.micro_batch_rows);
  if (t.accumulation_steps < 1)
    throwUserError("--gradient-accumulation-steps must be >= 1 (1: one forward + backward per step), got {}",
                   t.accumulation_steps);
  if (t.accumulation_steps > 999999999)
    throwUserError("--gradient-accumulation-steps {} is beyond 999999999 (a pass needs a row of every "
                   "worker)", t.accumulation_steps);
  if (num_workers > 0 && o.batch_size >= num_workers && t.accumulation_steps > o.batch_size / num_workers)
    throwUserError("--gradient-accumulation-steps {} needs at least that many rows on every worker, but "
                   "--batch-size {} over {} worker(s) gives some only {}.\nHINT: --gradient-accumulation-steps "
                   "{} or fewer, or --batch-size {} or more", t.accumulation_steps, o.batch_size, num_workers,
                   o.batch_size / num_workers, o.batch_size / num_workers,
                   t.accumulation_steps * num_workers);
  if (!(t.gpu_memory_budget_gib >= 0) || !std::isfinite(t.gpu_memory_budget_gib))
    throwUserError("--gpu-memory-budget must be >= 0 GiB (0: the GPU's memory minus 3 GiB), got {}",
                   t.gpu_memory_budget_gib);
  if (o.batch_size < 1 || o.seq_len < 2)
    throwUserError("--batch-size must be >= 1 and --seq-len >= 2 (got {} and {})", o.batch_size, o.seq_len);
  checkTokensPerStep(o.batch_size, o.seq_len, fmt::format("--batch-size {}", o.batch_size),
                     "a --batch-size of at most ");
  if (o.batch_size < num_workers)
    throwUserError("--batch-size {} is smaller than the number of workers ({}): every worker "
                   "needs at least one row of the global batch.\nHINT: --batch-size {} or more, "
                   "or fewer workers (launcher/slidedp-run --gpus, mpirun -np)", o.batch_size,
                   num_workers, num_workers);
  // AdamW (torch.optim.AdamW's own checks) and the schedule.
  if (!(t.lr >= 0) || !std::isfinite(t.lr)) throwUserError("--lr must be a finite number >= 0, got {}", t.lr);
  if (!(t.beta1 >= 0 && t.beta1 < 1))
    throwUserError("--beta1 must be in [0, 1), got {}\nHINT: typical values are 0.9", t.beta1);
  if (!(t.beta2 >= 0 && t.beta2 < 1))
    throwUserError("--beta2 must be in [0, 1), got {}\nHINT: typical values are 0.95 to 0.999", t.beta2);
  if (!(t.eps > 0) || !std::isfinite(t.eps))
    throwUserError("--eps must be a finite number > 0, got {}\nHINT: typical values are 1e-8", t.eps);
  if (!(t.weight_decay >= 0) || !std::isfinite(t.weight_decay))
    throwUserError("--weight-decay must be a finite number >= 0, got {}", t.weight_decay);
  if (!(t.max_grad_norm >= 0) || !std::isfinite(t.max_grad_norm))
    throwUserError("--max-grad-norm must be a finite number >= 0 (0: no clipping), got {}", t.max_grad_norm);
  if (t.warmup_steps < 0) throwUserError("--warmup must be >= 0, got {}", t.warmup_steps);
  // (the lr of step s is --lr x (s - 1) / warmup during the warm-up, as transformers' schedules:
  // it reaches --lr at step warmup + 1)
  // (equal on a resume: a checkpoint of an older slidedp, which took it, continues its run)
  if ((t.warmup_steps > t.total_steps || (t.warmup_steps == t.total_steps && o.resume.empty())) &&
      t.warmup_steps > 0)
    throwUserError("--warmup {} is {} the run ({}): the learning rate would never reach "
                   "--lr (it does at step warmup + 1).\nHINT: --warmup {} or fewer (a few percent of the steps is usual)",
                   t.warmup_steps, t.warmup_steps == t.total_steps ? "as long as" : "longer than",
                   t.total_steps == o.steps ? fmt::format("--steps {}", o.steps)
                                            : fmt::format("{} steps: --steps {} for each --route-sweep item",
                                                          t.total_steps, o.steps),
                   t.total_steps - 1);
  if (t.leader_threads < 0) throwUserError("--leader-threads must be >= 0 (0: all), got {}", t.leader_threads);
  if (o.warmup_steps < 0) throwUserError("--warmup-steps must be >= 0, got {}", o.warmup_steps);
  if (o.trace_step < 1) throwUserError("--trace-step must be >= 1, got {}", o.trace_step);
  if ((!o.trace.empty() || !o.gpu_profile.empty() || !o.memory_snapshot.empty()) && o.route_sweep.empty() &&
      o.trace_step_given && o.trace_step > o.steps)
    throwUserError("--trace-step {} is after the run's last step (--steps {}): no trace would be "
                   "written to {}.\nHINT: --trace-step {} or less", o.trace_step, o.steps,
                   !o.trace.empty() ? o.trace : !o.gpu_profile.empty() ? o.gpu_profile : o.memory_snapshot,
                   o.steps);
  if (o.eval_every < 0 || o.eval_batches < 0)
    throwUserError("--eval-every and --eval-batches must be >= 0 (got {} and {})", o.eval_every,
                   o.eval_batches);
  if (o.eval_data.empty() && (o.eval_every > 0 || o.eval_batches > 0))
    throwUserError("--eval-{} {} without --eval-data: there is no held-out data to evaluate on.\n"
                   "HINT: add --eval-data FILE (any --data format), or drop --eval-{}",
                   o.eval_every > 0 ? "every" : "batches", o.eval_every > 0 ? o.eval_every : o.eval_batches,
                   o.eval_every > 0 ? "every" : "batches");
  const bool data_file = o.data != "synthetic" && o.data.rfind("synthetic-packed:", 0) != 0 &&
                         o.data.rfind("reference:", 0) != 0;
  if (!o.eval_data.empty() && !data_file)
    throwUserError("--eval-data needs --data to be a data file (not {})", o.data);
  if (o.doc_start_token < -1)
    throwUserError("--doc-start-token must be a token id >= 0, or -1 (none), got {}", o.doc_start_token);
  if (t.window_slots < 2)
    throwUserError("--window must be >= 2 (the GPU layer window's slots: the next layer is delivered "
                   "into one while the compute uses another), got {}.\nHINT: --window 2 (the default) "
                   "or 3", t.window_slots);
  if (o.checkpoint_every < 0)
    throwUserError("--checkpoint-every must be >= 0 (0: only at the end and on a stop), got {}",
                   o.checkpoint_every);
  if (o.keep_checkpoints < 0)
    throwUserError("--keep-checkpoints must be >= 0 (0: keep all), got {}", o.keep_checkpoints);
  if (o.checkpoint_dir.empty() && (o.checkpoint_every > 0 || o.overwrite_checkpoints))
    throwUserError("{} needs a --checkpoint-dir.\nHINT: add --checkpoint-dir DIR",
                   o.checkpoint_every > 0 ? fmt::format("--checkpoint-every {}", o.checkpoint_every)
                                          : std::string("--overwrite-checkpoints"));
  if (o.checkpoint_write_rate > 0 && o.checkpoint_mode == "blocking")
    throwUserError("--checkpoint-write-rate {:g} paces streamed checkpoints, but --checkpoint-mode "
                   "blocking stops training for every write, so a cap would only make it stop "
                   "longer.\nHINT: drop --checkpoint-write-rate, or use --checkpoint-mode stream",
                   o.checkpoint_write_rate);
  if (o.resume == "auto" && o.checkpoint_dir.empty())
    throwUserError("--resume auto continues from --checkpoint-dir, but none was given.\nHINT: add "
                   "--checkpoint-dir DIR, or pass --resume DIR");
}

/// reference:FILE data against the flags: its stored B and T are the run's, its stored steps
/// bound --steps, every stored batch has a row for each of the `num_workers` workers, and its
/// token ids and labels must fit the vocabulary. Throws UserError.
void checkReferenceData(data::ReferenceBatches& ref, const TrainJobOptions& o, int64_t steps,
                        int64_t vocab, int num_workers) {
  const std::string& path = o.data;
  for (int64_t s = 1; s <= ref.numStoredSteps(); ++s) {
    const GlobalBatch b = ref.batch(s);
    if (b.B < num_workers)
      throwUserError("--data {}: stored step {} holds {} rows, fewer than the {} workers: every "
                     "worker needs at least one row of the global batch.\nHINT: fewer workers "
                     "(launcher/slidedp-run --gpus, mpirun -np)", path, s - 1, b.B, num_workers);
    if (s == 1 && ((o.batch_size_given && o.batch_size != b.B) || (o.seq_len_given && o.seq_len != b.T))) {
      std::string asked = o.batch_size_given ? fmt::format("--batch-size {}", o.batch_size) : "";
      if (o.seq_len_given) asked += fmt::format("{}--seq-len {}", asked.empty() ? "" : " ", o.seq_len);
      throwUserError("--data {} holds batches of {} rows x {} tokens, but {} was asked for "
                     "(reference data is used as stored).\nHINT: drop --batch-size/--seq-len, or "
                     "pass --batch-size {} --seq-len {}", path, b.B, b.T, asked, b.B, b.T);
    }
    for (size_t i = 0; i < b.input_ids.size(); ++i) {
      const int64_t id = b.input_ids[i], l = b.labels[i];
      if (id < 0 || id >= vocab || (l != -100 && (l < 0 || l >= vocab)))
        throwUserError("--data {}: stored step {} (row {}, position {}) has {} {} outside the "
                       "model's vocabulary [0, {}){}.\nHINT: the reference was made for another "
                       "model", path, s - 1, i / b.T, i % b.T, id < 0 || id >= vocab ? "token id" : "label",
                       id < 0 || id >= vocab ? id : l, vocab, id < 0 || id >= vocab ? "" : " (or -100)");
    }
  }
  if (steps > ref.numStoredSteps())
    throwUserError("--data {} holds {} step(s) of batches but the run has {} steps; it would "
                   "repeat them from step {} on.\nHINT: --steps {} or fewer", path,
                   ref.numStoredSteps(), steps, ref.numStoredSteps() + 1, ref.numStoredSteps());
}

}  // namespace slidedp
