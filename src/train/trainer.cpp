#include "train/trainer.h"

#include <unistd.h>

#include <fcntl.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <random>
#include <sstream>
#include <thread>

#include "common/errors.h"
#include "leader/leader.h"
#include "formats/checkpoint.h"
#include "formats/fs_util.h"
#include "model/hf_checkpoint.h"
#include "runtime/host_memory.h"
#include "runtime/test_hooks.h"
#include "runtime/token_rows.h"
#include "shm/control_block.h"
#include "runtime/fault_injection.h"
#include "train/checkpoint_stream.h"
#include "worker/worker.h"

namespace slidedp {

LocalBatch rowsForWorker(const GlobalBatch& batch, int G, int w) {
  if (batch.B < G)
    throwUserError("the global batch has {} rows but there are {} workers; every worker needs at "
                   "least one row.\nHINT: raise the batch size or use fewer workers", batch.B, G);
  const int64_t base = batch.B / G, extra = batch.B % G;
  const int64_t r0 = w * base + std::min<int64_t>(w, extra);
  const int64_t rows = base + (w < extra ? 1 : 0);
  LocalBatch lb;
  lb.rows = rows;
  lb.T = batch.T;
  auto slice = [&](const std::vector<int64_t>& v, std::vector<int64_t>& out) {
    if (v.empty()) return;
    out.assign(v.begin() + r0 * batch.T, v.begin() + (r0 + rows) * batch.T);
  };
  slice(batch.input_ids, lb.input_ids);
  slice(batch.labels, lb.labels);
  slice(batch.position_ids, lb.position_ids);
  return lb;
}

Trainer::Trainer(const RankContext& ctx, const std::string& model_dir, const TrainOptions& opts,
                 const std::string& shm_name, bool random_init, uint64_t seed,
                 const std::string& resume)
    : ctx_(ctx), opts_(opts), model_dir_(model_dir) {
  std::string problem;
  std::string resume_dir;
  try {
    if (!resume.empty()) {
      resume_dir = resolveCheckpoint(resume);
      first_step_ = readTrainerState(resume_dir).at("step").get<int64_t>() + 1;
    }
    if (ctx.num_nodes > 1)
      throwUserError("training across {} nodes is not implemented yet: run 1 leader + G workers "
                     "on one node (and no --virtual-node-size)", ctx.num_nodes);
    config_ = model::ModelConfig::load(model_dir);
    layout_ = model::ParamLayout::build(config_);
    std::vector<int64_t> numels;
    for (const auto& u : layout_.units) numels.push_back(u.numel);
    // The row-split embedding update hands the leader whole gradients: the cpu route only.
    opts_.split_embedding = opts.split_embedding && opts.reduction == ReductionRoute::kCpu;
    plan_ = ChunkPlan::build(numels, opts.chunk_numel, opts_.split_embedding);
    plan_.dense_pass_written = config_.tieWordEmbeddings;
    if (ctx.local_size - 1 > 16) throwUserError("at most 16 workers per node, got {}", ctx.local_size - 1);
    if (opts.ring_slots < 1) throwUserError("ring_slots must be >= 1, got {}", opts.ring_slots);
  } catch (const UserError& e) {
    problem = e.what();
  }
  agreeOrThrow(ctx.world, problem.empty(), problem);

  spec_.unit_numels.clear();
  for (const auto& u : layout_.units) spec_.unit_numels.push_back(u.numel);
  spec_.num_workers = ctx.local_size - 1;
  spec_.num_slots = opts.ring_slots;
  spec_.chunk_numel = static_cast<uint64_t>(opts.chunk_numel);
  spec_.grad_dtype = opts.bf16_staging ? shm::DType::kBF16 : shm::DType::kF32;
  spec_.grad_accumulation = opts.max_grad_norm > 0 || opts.reserve_grad_accumulation;
  if (opts_.split_embedding) spec_.token_row_words = TokenRows::wordsFor(config_.vocabSize);
  state_ = HostStateLayout::build(spec_);

  uint64_t job = 0;
  if (ctx.world_rank == 0) job = (static_cast<uint64_t>(std::random_device{}()) << 32) ^ getpid();
  MPI_CHECK(MPI_Bcast(&job, 1, MPI_UINT64_T, 0, ctx.world));
  const std::string name = shm_name.empty()
                               ? fmt::format("slidedp-u{}-{:012x}-n{}", getuid(), job & 0xffffffffffffull, ctx.node_id)
                               : shm_name;
  const shm::ControlDims dims{static_cast<uint32_t>(ctx.local_size),
                              static_cast<uint32_t>(layout_.numUnits()),
                              static_cast<uint32_t>(opts.ring_slots)};
  problem.clear();
  if (ctx.isLeader()) {
    try {
      seg_ = shm::Segment::create(name, job, state_.layout, dims);
      leader_ = std::make_unique<Leader>(ctx, seg_, spec_, state_, layout_, plan_, opts_);
      if (!resume_dir.empty())
        leader_->loadState(formats::joinPath(resume_dir, "optimizer.safetensors"));
      else if (random_init)
        leader_->initRandom(config_, seed);
      else
        leader_->loadCheckpoint(model_dir, config_);
      leader_->setBaseStep(first_step_ - 1);
      // A unit's update waits until the checkpoint being streamed has written its state.
      leader_->setUpdateGate([this](int unit) {
        if (!stream_) return 0.0;
        return stream_->waitUnit(unit, [this] {
          const shm::ControlBlock& cb = seg_.control();
          if (cb.aborted())
            throw JobAbortedError(fmt::format("{} stops waiting for the checkpoint writer: the job "
                                              "was aborted: {}", ctx_.describe(), cb.abortMessage()));
        });
      });
    } catch (const UserError& e) {
      problem = fmt::format("leader of node {}: {}", ctx.node_id, e.what());
    }
  }
  agreeOrThrow(ctx.world, problem.empty(), problem);
  problem.clear();
  if (!ctx.isLeader()) {
    // A worker's configuration error (e.g. an option for GPU workers on CPU workers) is agreed
    // like the leader's, so the leader unwinds and removes the segment instead of being aborted.
    try {
      // Created by the leader before the agreement above: the deadline only guards a lost file.
      seg_ = shm::Segment::open(name, job, opts.wait_timeout_s > 0 ? opts.wait_timeout_s : 60);
      worker_ = std::make_unique<Worker>(ctx, seg_, spec_, state_, config_, layout_, plan_, opts_);
      worker_->setBaseStep(first_step_ - 1);
    } catch (const UserError& e) {
      problem = fmt::format("{}: {}", ctx.describe(), e.what());
    }
  }
  if (!problem.empty()) {
    worker_.reset();
    seg_ = shm::Segment();  // unmap before the leader removes it
  }
  agreeOrThrow(ctx.world, problem.empty(), problem);
}

Trainer::~Trainer() {
  stream_.reset();  // cancels an unfinished checkpoint (its temporary directory is removed)
  worker_.reset();
  leader_.reset();
  // Workers unmap first; the leader (owner) removes the segment last.
  if (!ctx_.isLeader()) seg_ = shm::Segment();
  MPI_Barrier(ctx_.node);
  seg_ = shm::Segment();
}

const float* Trainer::master(int unit) const {
  SLIDEDP_ASSERT(leader_ != nullptr, "master() is for the leader");
  return leader_->master(unit);
}

void Trainer::exportHf(const std::string& dir, bool bf16, const std::string& tokenizer_dir) const {
  SLIDEDP_ASSERT(leader_ != nullptr, "exportHf() is for the leader");
  std::vector<const float*> units;
  for (int u = 0; u < layout_.numUnits(); ++u) units.push_back(leader_->master(u));
  model::exportHfModel(dir, config_, layout_, units,
                       bf16 ? formats::DType::BF16 : formats::DType::F32, 5ull << 30,
                       tokenizer_dir.empty() && formats::isDirectory(model_dir_) ? model_dir_ : tokenizer_dir);
}

void Trainer::writeTrace(const std::string& path, const StepRecord& rec) const {
  const std::string mine = rec.trace_events.dump();
  const std::string all = gatherLines(ctx_, mine);
  if (ctx_.world_rank != 0) return;
  nlohmann::json events = nlohmann::json::array();
  std::istringstream in(all);
  for (std::string line; std::getline(in, line);)
    for (auto& e : nlohmann::json::parse(line)) events.push_back(e);
  for (int r = 0; r < ctx_.world_size; ++r) {
    const bool leader = r == 0;  // single node: world rank 0 is the leader
    events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", r},
                      {"args", {{"name", leader ? "leader (rank 0)" : fmt::format("worker (rank {})", r)}}}});
    events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", r}, {"tid", 0},
                      {"args", {{"name", leader ? "optimizer" : "compute"}}}});
    if (!leader)
      events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", r}, {"tid", 1},
                        {"args", {{"name", "gradient hand-off"}}}});
  }
  formats::writeFileAtomic(path, nlohmann::json{{"traceEvents", events}, {"displayTimeUnit", "ms"}}.dump() + "\n");
}

std::string Trainer::finishStream() {
  if (!stream_) return "";
  const std::string error = stream_->finish();
  stream_.reset();
  return error;
}

void Trainer::beginStream(const std::string& root, int64_t step, const nlohmann::json& state,
                          int keep, bool overwrite, const Note& note) {
  SLIDEDP_ASSERT(leader_ && !stream_, "beginStream: leader only, one stream at a time");
  // Units in the order the next step updates them (hand-off order), 3 tensors each.
  const auto flat = leader_->stateTensors();
  std::vector<std::vector<formats::TensorToWrite>> units(layout_.numUnits());
  for (int u = 0; u < layout_.numUnits(); ++u)
    units[u].assign(flat.begin() + 3 * u, flat.begin() + 3 * u + 3);
  const int n = layout_.numUnits();
  const double slow_s = testHookSlowCheckpointUnit();
  auto after_unit = [step, n, slow_s](int written) {
    if (slow_s > 0) std::this_thread::sleep_for(std::chrono::duration<double>(slow_s));
    if (written == (n + 1) / 2) killPoint("checkpoint", step);  // tests: half of it written
  };
  uint64_t total = 0;
  for (const auto& t : flat) total += formats::tensorBytes(t);
  uint64_t staging = 0;
  if (checkpoint_staging_gib_ >= 0) {
    staging = static_cast<uint64_t>(checkpoint_staging_gib_ * (1ull << 30));
  } else {
    const uint64_t avail = memAvailableBytes(), reserve =
        std::max<uint64_t>(8ull << 30, memTotalBytes() / 10);
    staging = avail > reserve ? std::min(total, avail - reserve) : 0;
  }
  CheckpointRequest req{root, step, state, keep, overwrite, note};
  req.staging_bytes = staging;
  stream_ = std::make_unique<CheckpointStream>(std::move(req), std::move(units), plan_.updateOrder(),
                                               after_unit);
}

std::string Trainer::saveCheckpoint(const std::string& root, int64_t step,
                                    const nlohmann::json& state, int keep, bool overwrite,
                                    const Note& note) {
  std::string problem;
  if (leader_) {
    problem = finishStream();
    if (problem.empty()) {
      try {
        beginStream(root, step, state, keep, overwrite, note);
        problem = finishStream();
      } catch (const std::exception& e) {
        problem = fmt::format("writing the checkpoint of step {} to {} failed: {}", step, root, e.what());
      }
    }
  }
  agreeOrThrow(ctx_.world, problem.empty(), problem);
  return formats::joinPath(root, fmt::format("step-{:08d}", step));
}

std::string Trainer::startCheckpoint(const std::string& root, int64_t step,
                                     const nlohmann::json& state, int keep, bool overwrite,
                                     const Note& note) {
  std::string problem;
  if (leader_) {
    const auto t0 = std::chrono::steady_clock::now();
    const int64_t previous = stream_ ? stream_->step() : 0;
    problem = finishStream();
    const double held = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (held > 0.05 && note)
      note(fmt::format("the checkpoint of step {} was still being written and held training {:.2f} s "
                       "before the checkpoint of step {} (checkpoints come faster than the disk "
                       "writes them: raise --checkpoint-every)", previous, held, step));
    if (problem.empty()) {
      try {
        beginStream(root, step, state, keep, overwrite, note);
      } catch (const std::exception& e) {
        problem = fmt::format("writing the checkpoint of step {} to {} failed: {}", step, root, e.what());
      }
    }
  }
  agreeOrThrow(ctx_.world, problem.empty(), problem);
  return formats::joinPath(root, fmt::format("step-{:08d}", step));
}

void Trainer::finishCheckpoints() {
  const std::string problem = leader_ ? finishStream() : "";
  agreeOrThrow(ctx_.world, problem.empty(), problem);
}

void Trainer::setRunOptions(const TrainOptions& o) {
  if (o.max_grad_norm > 0 && !spec_.grad_accumulation)
    throw AgreedError("clipping was switched on for a run created without the gradient "
                      "accumulation region (TrainOptions::reserve_grad_accumulation)");
  if (plan_.split_embedding && o.reduction != ReductionRoute::kCpu)
    throw AgreedError(fmt::format("reduction route {} after a start with the row-split embedding "
                                  "update (planned for the cpu route).\nHINT: --embedding-update dense",
                                  routeName(o.reduction)));
  opts_.delivery = o.delivery;
  opts_.reduction = o.reduction;
  opts_.max_grad_norm = o.max_grad_norm;
  opts_.offload_activations = o.offload_activations;
  opts_.activations = o.activations;
  opts_.max_kept_layers = o.max_kept_layers;
  opts_.mlp_tile_tokens = o.mlp_tile_tokens;
  if (leader_) leader_->setRunOptions(opts_);
  if (worker_) worker_->setRunOptions(opts_);
  MPI_CHECK(MPI_Barrier(ctx_.world));
}

StepRecord Trainer::step(int64_t step, BatchSource& data) {
  killPoint("step", step);
  const auto t0 = std::chrono::steady_clock::now();
  StepRecord rec;
  rec.step = step;
  shm::noteProgress();
  testHookSlowStep(ctx_.world_rank, step);
  double mine[5] = {0, 0, 0, 0, 0};  // loss sum (workers), grad norm (leader), tokens, B*T, T (worker 0)
  double times[15] = {0};  // maxima over ranks; [12..14]: the leader's checkpoint writer
  std::string writer_error;
  if (leader_) {
    const bool in_flight = stream_ != nullptr;
    const LeaderStepStats ls = leader_->step(step);
    mine[1] = ls.grad_norm;
    rec.lr = ls.lr;
    times[7] = ls.wait_s;
    times[8] = ls.reduce_update_s;
    times[12] = ls.checkpoint_wait_s;
    times[13] = in_flight ? 1 : 0;
    // A streamed checkpoint that is over (published or failed) is collected here, so its error
    // ends the job at the end of this step rather than going unnoticed.
    if (stream_ && stream_->finished()) writer_error = finishStream();
    times[14] = writer_error.empty() ? 0 : 1;
    for (const auto& u : ls.units) {
      rec.leader_unit_update_ns.push_back(static_cast<double>(u.begin_ns));
      rec.leader_unit_update_ns.push_back(static_cast<double>(u.end_ns));
      if (u.end_ns > u.begin_ns)
        rec.trace_events.push_back({{"name", fmt::format("reduce + AdamW unit {}", u.unit)},
                                    {"ph", "X"}, {"pid", ctx_.world_rank}, {"tid", 0},
                                    {"ts", u.begin_ns / 1e3}, {"dur", (u.end_ns - u.begin_ns) / 1e3}});
    }
  } else {
    const GlobalBatch gb = data.batch(step);
    const LocalBatch lb = rowsForWorker(gb, spec_.num_workers, ctx_.local_rank - 1);
    const WorkerStepStats ws = worker_->step(step, lb);
    mine[0] = ws.loss_sum;
    if (ctx_.worker_rank == 0) {
      mine[2] = static_cast<double>(ws.global_tokens);
      mine[3] = static_cast<double>(gb.B * gb.T);
      mine[4] = static_cast<double>(gb.T);
    }
    const double w[7] = {ws.compute_forward_s, ws.compute_head_s, ws.compute_backward_s, ws.h2d_s,
                         ws.d2h_s, ws.delivery_wait_s, ws.handoff_wait_s};
    std::copy(w, w + 7, times);
    times[9] = ws.kept_layers;
    times[10] = static_cast<double>(ws.gpu_peak_bytes);
    times[11] = ws.attention_output_layers;
    for (const auto& t : ws.trace)
      rec.trace_events.push_back({{"name", t.name}, {"ph", "X"}, {"pid", ctx_.world_rank},
                                  {"tid", t.thread}, {"ts", t.begin_ns / 1e3},
                                  {"dur", (t.end_ns - t.begin_ns) / 1e3}});
    for (const auto& b : ws.backward) {
      rec.worker_backward_ns.push_back(b.unit);
      rec.worker_backward_ns.push_back(static_cast<double>(b.begin_ns));
      rec.worker_backward_ns.push_back(static_cast<double>(b.end_ns));
    }
  }
  double all[5], tmax[15];
  MPI_CHECK(MPI_Allreduce(mine, all, 5, MPI_DOUBLE, MPI_SUM, ctx_.world));
  rec.batch_tokens = static_cast<int64_t>(all[3]);
  rec.T = static_cast<int64_t>(all[4]);
  MPI_CHECK(MPI_Allreduce(times, tmax, 15, MPI_DOUBLE, MPI_MAX, ctx_.world));
  if (tmax[14] > 0) agreeOrThrow(ctx_.world, writer_error.empty(), writer_error);
  rec.checkpoint_wait_s = tmax[12];
  rec.checkpoint_in_flight = tmax[13] > 0;
  rec.fwd_s = tmax[0];
  rec.head_s = tmax[1];
  rec.bwd_s = tmax[2];
  rec.h2d_s = tmax[3];
  rec.d2h_s = tmax[4];
  rec.version_wait_s = tmax[5];
  rec.handoff_wait_s = tmax[6];
  rec.leader_wait_s = tmax[7];
  rec.leader_update_s = tmax[8];
  rec.kept_layers = static_cast<int>(tmax[9]);
  rec.gpu_peak_bytes = static_cast<int64_t>(tmax[10]);
  rec.attention_output_layers = static_cast<int>(tmax[11]);
  rec.tokens = static_cast<int64_t>(all[2]);
  rec.loss = all[0] / all[2];
  rec.grad_norm = all[1];
  double lr = rec.lr;
  MPI_CHECK(MPI_Bcast(&lr, 1, MPI_DOUBLE, 0, ctx_.node));
  rec.lr = lr;
  rec.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return rec;
}

EvalRecord Trainer::evaluate(int64_t after_step, BatchSource& data, int64_t num_batches) {
  const auto t0 = std::chrono::steady_clock::now();
  EvalRecord rec;
  rec.after_step = after_step;
  rec.batches = num_batches;
  double mine[2] = {0, 0}, all[2] = {0, 0};  // loss sum, targets
  std::string problem;
  if (worker_) {
    try {
      for (int64_t b = 1; b <= num_batches; ++b) {
        const GlobalBatch gb = data.batch(b);
        const LocalBatch lb = rowsForWorker(gb, spec_.num_workers, ctx_.local_rank - 1);
        const auto [loss, count] = worker_->evaluate(after_step, lb);
        mine[0] += loss;
        mine[1] += static_cast<double>(count);
      }
    } catch (const UserError& e) {
      problem = e.what();
    }
  }
  // The leader has nothing to do: it polls instead of spinning in a blocking collective, so
  // the workers keep its cores.
  MPI_Request req;
  MPI_CHECK(MPI_Iallreduce(mine, all, 2, MPI_DOUBLE, MPI_SUM, ctx_.world, &req));
  for (int done = 0;;) {
    MPI_CHECK(MPI_Test(&req, &done, MPI_STATUS_IGNORE));
    if (done) break;
    if (leader_) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  agreeOrThrow(ctx_.world, problem.empty(), problem);
  rec.tokens = static_cast<int64_t>(all[1]);
  if (rec.tokens == 0)
    throwUserError("evaluation after step {}: the {} eval batch(es) hold no unmasked target",
                   after_step, num_batches);
  rec.loss = all[0] / all[1];
  rec.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return rec;
}

}  // namespace slidedp
