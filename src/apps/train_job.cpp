#include "apps/train_job.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <memory>
#include <sstream>

#include <nlohmann/json.hpp>

#include "common/errors.h"
#include "common/log.h"
#include "formats/safetensors.h"
#include "runtime/job_guard.h"
#include "train/trainer.h"

namespace slidedp {

namespace {

constexpr double kH200PeakBf16Tflops = 989.4;  // dense, per GPU (NVIDIA H200 SXM datasheet)

/// Uniformly random tokens (deterministic in seed and step), labels = the next token.
class SyntheticBatches : public BatchSource {
 public:
  SyntheticBatches(int64_t B, int64_t T, int64_t V, uint64_t seed) : B_(B), T_(T), V_(V), seed_(seed) {}
  GlobalBatch batch(int64_t step) override {
    GlobalBatch b;
    b.B = B_;
    b.T = T_;
    b.input_ids.resize(B_ * T_);
    b.labels.resize(B_ * T_);
    uint64_t x = seed_ * 0x9e3779b97f4a7c15ull + static_cast<uint64_t>(step);
    std::vector<int64_t> stream(T_ + 1);
    for (int64_t r = 0; r < B_; ++r) {
      for (auto& t : stream) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;  // xorshift64
        t = static_cast<int64_t>(x % static_cast<uint64_t>(V_));
      }
      std::copy(stream.begin(), stream.end() - 1, b.input_ids.begin() + r * T_);
      std::copy(stream.begin() + 1, stream.end(), b.labels.begin() + r * T_);
    }
    return b;
  }

 private:
  int64_t B_, T_, V_;
  uint64_t seed_;
};

/// step{s}.input_ids / step{s}.labels of a reference file, cycling through the stored steps.
class ReferenceFileBatches : public BatchSource {
 public:
  explicit ReferenceFileBatches(const std::string& path)
      : f_(formats::SafetensorsFile::open(path)) {
    while (f_.find(fmt::format("step{}.input_ids", n_)) != nullptr) ++n_;
    if (n_ == 0) throwUserError("{} holds no step0.input_ids / step0.labels tensors", path);
  }
  GlobalBatch batch(int64_t step) override {
    const int64_t s = (step - 1) % n_;
    const auto& ids = f_.get(fmt::format("step{}.input_ids", s));
    const auto& labels = f_.get(fmt::format("step{}.labels", s));
    if (ids.dtype != formats::DType::I64 || ids.shape.size() != 2 || labels.shape != ids.shape)
      throwUserError("{}: step{}.input_ids/labels must be int64 [B, T] of one shape", f_.path(), s);
    GlobalBatch b;
    b.B = ids.shape[0];
    b.T = ids.shape[1];
    const auto* pi = reinterpret_cast<const int64_t*>(f_.data(ids));
    const auto* pl = reinterpret_cast<const int64_t*>(f_.data(labels));
    b.input_ids.assign(pi, pi + ids.numel());
    b.labels.assign(pl, pl + labels.numel());
    return b;
  }

 private:
  formats::SafetensorsFile f_;
  int64_t n_ = 0;
};

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

}  // namespace

void addTrainOptions(CLI::App& app, TrainJobOptions& o) {
  auto* g = app.add_option_group("Training", "Train a model (given --model or --model-config)");
  g->add_option("--model", o.model, "Hugging Face model directory (config.json + safetensors) to fine-tune");
  g->add_option("--model-config", o.model_config, "config.json of a model to initialise randomly (benchmarks)");
  g->add_option("--seed", o.seed, "Seed of random initialisation and synthetic data")->capture_default_str();
  g->add_option("--data", o.data, "Data: synthetic (random tokens) or reference:FILE.safetensors "
                "(step{s}.input_ids/labels)")->capture_default_str();
  g->add_option("--batch-size", o.batch_size, "Global batch, rows (sequences) per step")->capture_default_str();
  g->add_option("--seq-len", o.seq_len, "Tokens per row T (synthetic data)")->capture_default_str();
  g->add_option("--steps", o.steps, "Optimizer steps (per route with --route-sweep)")->capture_default_str();
  g->add_option("--delivery", o.delivery, "Delivery route: replicated or sharded")->capture_default_str();
  g->add_option("--reduction", o.reduction, "Reduction route: cpu or gpu")->capture_default_str();
  g->add_option("--route-sweep", o.route_sweep, "Benchmark: comma-separated delivery/reduction pairs, "
                "--steps each, e.g. replicated/cpu,sharded/gpu");
  g->add_option("--warmup-steps", o.warmup_steps, "Steps left out of the summary (per route)")->capture_default_str();
  g->add_flag("--bf16-staging,!--fp32-staging", o.train.bf16_staging, "Gradients cross to the host in bf16")->capture_default_str();
  g->add_option("--precision", o.precision, "Worker compute dtype: auto (bf16 on GPUs, fp32 on CPU "
                "workers), bf16 (from the leader's bf16 copy) or fp32 (from the FP32 master)")
      ->check(CLI::IsMember({"auto", "bf16", "fp32"}))->capture_default_str();
  g->add_option("--window", o.train.window_slots, "GPU layer window depth K (>= 2)")->capture_default_str();
  g->add_option("--micro-batch-rows", o.train.micro_batch_rows, "Rows per micro-batch (0: all of a worker's rows)")->capture_default_str();
  g->add_flag("--offload-activations", o.train.offload_activations,
              "Keep layer-boundary activations in pinned host memory (GPU workers), prefetched "
              "back one unit ahead in backward");
  g->add_option("--loss-chunk-tokens", o.train.loss_chunk_tokens, "Tokens per LM-head/cross-entropy chunk")->capture_default_str();
  g->add_option("--lr", o.train.lr, "Peak learning rate")->capture_default_str();
  g->add_option("--beta1", o.train.beta1, "AdamW beta1")->capture_default_str();
  g->add_option("--beta2", o.train.beta2, "AdamW beta2")->capture_default_str();
  g->add_option("--eps", o.train.eps, "AdamW epsilon")->capture_default_str();
  g->add_option("--weight-decay", o.train.weight_decay, "Decoupled weight decay (ndim >= 2 parameters only)")->capture_default_str();
  g->add_option("--max-grad-norm", o.train.max_grad_norm, "Exact global-norm clipping (0: off)")->capture_default_str();
  g->add_option("--schedule", o.schedule, "LR schedule: constant, linear or cosine")->capture_default_str();
  g->add_option("--warmup", o.train.warmup_steps, "LR warm-up steps")->capture_default_str();
  g->add_option("--leader-threads", o.train.leader_threads, "AdamW threads on the leader (0: all)")->capture_default_str();
  g->add_option("--export", o.export_dir, "Write a Hugging Face directory of the trained weights at the end");
  g->add_flag("--export-bf16,!--export-fp32", o.export_bf16, "Dtype of the exported weights")->capture_default_str();
  g->add_option("--metrics", o.metrics, "Write one JSON object per step to this file (JSONL)");
}

/// The steps, the per-step line, metrics, the route summary and the export. Collective.
void runSteps(const RankContext& ctx, const TrainJobOptions& o, Trainer& trainer, BatchSource& data_ref) {
  BatchSource* data = &data_ref;
  const auto& cfg = trainer.config();
  const int G = trainer.numWorkers();
  const double n_params = static_cast<double>(trainer.layout().parameterCount());
  SLIDEDP_LOG_INFO("model {} ({}): {:.4g} M parameters, {} layers; {} worker(s) on {}; routes {}/{}; "
                   "chunk {} elements, ring {} slots, {} compute, {} staging{}",
                   o.model_config.empty() ? o.model : o.model_config, model::familyName(cfg.family), n_params / 1e6,
                   cfg.numLayers, G, deviceName(ctx.device), o.delivery, o.reduction,
                   o.train.chunk_numel, o.train.ring_slots, o.train.bf16_compute ? "bf16" : "fp32",
                   o.train.bf16_staging ? "bf16" : "fp32",
                   o.train.max_grad_norm > 0 ? fmt::format(", clip {}", o.train.max_grad_norm) : "");

  std::vector<std::pair<DeliveryRoute, ReductionRoute>> routes;
  if (o.route_sweep.empty()) {
    routes.push_back({o.train.delivery, o.train.reduction});
  } else {
    std::stringstream ss(o.route_sweep);
    std::string item;
    while (std::getline(ss, item, ',')) {
      const auto slash = item.find('/');
      if (slash == std::string::npos)
        throw AgreedError(fmt::format("--route-sweep item '{}': expected delivery/reduction", item));
      routes.push_back({parseDeliveryRoute(item.substr(0, slash)), parseReductionRoute(item.substr(slash + 1))});
    }
  }
  std::ofstream metrics;
  if (ctx.world_rank == 0 && !o.metrics.empty()) {
    metrics.open(o.metrics);
    if (!metrics) throw std::runtime_error(fmt::format("cannot write --metrics file {}", o.metrics));
  }
  struct Summary {
    std::string route;
    double tokens_per_s, tflops, mfu, step_s, fwd, head, bwd, h2d, d2h, vwait, hwait, lwait, lupd;
  };
  std::vector<Summary> summaries;
  int64_t step = 0;
  for (const auto& [d, r] : routes) {
    trainer.setRoutes(d, r);
    std::vector<StepRecord> recs;
    for (int64_t i = 0; i < o.steps; ++i) {
      const StepRecord rec = trainer.step(++step, *data);
      const int64_t T = data->batch(step).T;  // cheap for both sources
      const double tokens = static_cast<double>(data->batch(step).B * T);
      const double flops = 6.0 * n_params * tokens +
                           12.0 * cfg.numLayers * cfg.numHeads * cfg.headDim * T * tokens;
      const double tflops_gpu = flops / rec.seconds / G / 1e12;
      if (ctx.world_rank == 0) {
        SLIDEDP_LOG_INFO(
            "step {:>4} | {}/{} | loss {:.4f} | lr {:.2e} | gnorm {:.3f} | {:.0f} tok/s | {:.1f} "
            "TFLOPS/GPU{} | {:.3f} s | fwd {:.3f} head {:.3f} bwd {:.3f} h2d {:.3f} d2h {:.3f} "
            "ver-wait {:.3f} handoff-wait {:.3f} | leader wait {:.3f} update {:.3f}",
            step, routeName(d), routeName(r), rec.loss, rec.lr, rec.grad_norm, tokens / rec.seconds,
            tflops_gpu,
            ctx.device == DeviceKind::kCuda ? fmt::format(" | MFU {:.1f}%", 100 * tflops_gpu / kH200PeakBf16Tflops) : "",
            rec.seconds, rec.fwd_s, rec.head_s, rec.bwd_s, rec.h2d_s, rec.d2h_s, rec.version_wait_s,
            rec.handoff_wait_s, rec.leader_wait_s, rec.leader_update_s);
        if (metrics.is_open()) {
          nlohmann::json j = {{"step", step}, {"delivery", routeName(d)}, {"reduction", routeName(r)},
                              {"loss", rec.loss}, {"lr", rec.lr}, {"grad_norm", rec.grad_norm},
                              {"tokens", rec.tokens}, {"step_s", rec.seconds},
                              {"tokens_per_s", tokens / rec.seconds}, {"tflops_per_gpu", tflops_gpu},
                              {"fwd_s", rec.fwd_s}, {"head_s", rec.head_s}, {"bwd_s", rec.bwd_s},
                              {"h2d_s", rec.h2d_s}, {"d2h_s", rec.d2h_s},
                              {"version_wait_s", rec.version_wait_s},
                              {"handoff_wait_s", rec.handoff_wait_s},
                              {"leader_wait_s", rec.leader_wait_s},
                              {"leader_update_s", rec.leader_update_s}};
          metrics << j.dump() << "\n" << std::flush;
        }
      }
      if (!std::isfinite(rec.loss))
        throw std::runtime_error(fmt::format("step {}: the loss is {} (diverged)", step, rec.loss));
      recs.push_back(rec);
    }
    if (static_cast<int64_t>(recs.size()) > o.warmup_steps) {
      recs.erase(recs.begin(), recs.begin() + o.warmup_steps);
      auto med = [&](auto f) {
        std::vector<double> v;
        for (const auto& x : recs) v.push_back(f(x));
        return median(v);
      };
      const GlobalBatch gb = data->batch(1);
      const double tokens = static_cast<double>(gb.B * gb.T);
      const double step_s = med([](const StepRecord& x) { return x.seconds; });
      const double flops = 6.0 * n_params * tokens + 12.0 * cfg.numLayers * cfg.numHeads * cfg.headDim * gb.T * tokens;
      const double tflops = flops / step_s / G / 1e12;
      summaries.push_back({fmt::format("{}/{}", routeName(d), routeName(r)), tokens / step_s, tflops,
                           100 * tflops / kH200PeakBf16Tflops, step_s,
                           med([](const StepRecord& x) { return x.fwd_s; }),
                           med([](const StepRecord& x) { return x.head_s; }),
                           med([](const StepRecord& x) { return x.bwd_s; }),
                           med([](const StepRecord& x) { return x.h2d_s; }),
                           med([](const StepRecord& x) { return x.d2h_s; }),
                           med([](const StepRecord& x) { return x.version_wait_s; }),
                           med([](const StepRecord& x) { return x.handoff_wait_s; }),
                           med([](const StepRecord& x) { return x.leader_wait_s; }),
                           med([](const StepRecord& x) { return x.leader_update_s; })});
    }
  }
  if (ctx.world_rank == 0 && !summaries.empty()) {
    std::string t = fmt::format(
        "summary (median over steps after {} warm-up step(s); seconds per step; max over workers)\n"
        "{:<16} {:>9} {:>10} {:>6} {:>7} | {:>6} {:>6} {:>6} {:>6} {:>6} {:>8} {:>8} | {:>7} {:>7}\n",
        o.warmup_steps, "route", "tok/s", "TFLOPS/GPU", "MFU%", "step_s", "fwd", "head", "bwd", "h2d",
        "d2h", "ver-wait", "hnd-wait", "ldr-wait", "ldr-upd");
    for (const auto& s : summaries)
      t += fmt::format("{:<16} {:>9.0f} {:>10.1f} {:>6.1f} {:>7.3f} | {:>6.3f} {:>6.3f} {:>6.3f} {:>6.3f} "
                       "{:>6.3f} {:>8.3f} {:>8.3f} | {:>7.3f} {:>7.3f}\n",
                       s.route, s.tokens_per_s, s.tflops, s.mfu, s.step_s, s.fwd, s.head, s.bwd, s.h2d,
                       s.d2h, s.vwait, s.hwait, s.lwait, s.lupd);
    SLIDEDP_LOG_INFO("{}", t);
  }
  if (!o.export_dir.empty()) {
    if (ctx.isLeader()) {
      trainer.exportHf(o.export_dir, o.export_bf16);
      SLIDEDP_LOG_INFO("exported the trained model to {}", o.export_dir);
    }
    MPI_CHECK(MPI_Barrier(ctx.world));
  }
}

int runTrainJob(const RankContext& ctx, TrainJobOptions o) {
  std::string problem;
  std::unique_ptr<BatchSource> data;
  try {
    if (o.model.empty() == o.model_config.empty())
      throwUserError("give exactly one of --model (a Hugging Face directory) and --model-config "
                     "(a config.json to initialise randomly)");
    o.train.delivery = parseDeliveryRoute(o.delivery);
    o.train.reduction = parseReductionRoute(o.reduction);
    o.train.schedule = optim::parseLrScheduleKind(o.schedule);
    o.train.total_steps = o.steps;
    o.train.bf16_compute = o.precision == "bf16" || (o.precision == "auto" && ctx.device == DeviceKind::kCuda);
    if (o.steps < 1) throwUserError("--steps must be >= 1, got {}", o.steps);
    if (o.batch_size < 1 || o.seq_len < 2)
      throwUserError("--batch-size must be >= 1 and --seq-len >= 2 (got {} and {})", o.batch_size, o.seq_len);
    if (o.data.rfind("reference:", 0) == 0)
      data = std::make_unique<ReferenceFileBatches>(o.data.substr(10));
    else if (o.data != "synthetic")
      throwUserError("--data '{}': expected synthetic or reference:FILE.safetensors", o.data);
  } catch (const UserError& e) {
    problem = e.what();
  }
  agreeOrThrow(ctx.world, problem.empty(), problem);

  const bool random_init = !o.model_config.empty();
  Trainer trainer(ctx, random_init ? o.model_config : o.model, o.train, o.shm_name, random_init, o.seed);
  if (!data)
    data = std::make_unique<SyntheticBatches>(o.batch_size, o.seq_len, trainer.config().vocabSize, o.seed);
  JobGuard::setSegmentName(trainer.segment().name());
  JobGuard guard;
  guard.start(ctx, trainer.segment().control(), WatchdogOptions{0.05, o.heartbeat_timeout_s});
  try {
    runSteps(ctx, o, trainer, *data);
  } catch (const AgreedError&) {
    throw;
  } catch (const std::exception& e) {
    // Fail the job from here, while the segment is mapped: node peers print this message.
    JobGuard::failJob(&ctx, &trainer.segment().control(), e.what(), 1);
  }
  guard.stop();
  return 0;
}

}  // namespace slidedp
