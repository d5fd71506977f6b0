#include "train/trainer.h"

#include <unistd.h>

#include <chrono>
#include <random>

#include "common/errors.h"
#include "leader/leader.h"
#include "model/hf_checkpoint.h"
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
                 const std::string& shm_name, bool random_init, uint64_t seed)
    : ctx_(ctx), opts_(opts), model_dir_(model_dir) {
  std::string problem;
  try {
    if (ctx.num_nodes > 1)
      throwUserError("training across {} nodes is not implemented yet: run 1 leader + G workers "
                     "on one node (and no --virtual-node-size)", ctx.num_nodes);
    config_ = model::ModelConfig::load(model_dir);
    layout_ = model::ParamLayout::build(config_);
    std::vector<int64_t> numels;
    for (const auto& u : layout_.units) numels.push_back(u.numel);
    plan_ = ChunkPlan::build(numels, opts.chunk_numel);
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
  spec_.grad_accumulation = opts.max_grad_norm > 0;
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
      if (random_init)
        leader_->initRandom(config_, seed);
      else
        leader_->loadCheckpoint(model_dir, config_);
    } catch (const UserError& e) {
      problem = fmt::format("leader of node {}: {}", ctx.node_id, e.what());
    }
  }
  agreeOrThrow(ctx.world, problem.empty(), problem);
  if (!ctx.isLeader()) {
    seg_ = shm::Segment::open(name, job, opts.wait_timeout_s);
    worker_ = std::make_unique<Worker>(ctx, seg_, spec_, state_, config_, layout_, plan_, opts_);
  }
  MPI_CHECK(MPI_Barrier(ctx.world));
}

Trainer::~Trainer() {
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

void Trainer::exportHf(const std::string& dir, bool bf16) const {
  SLIDEDP_ASSERT(leader_ != nullptr, "exportHf() is for the leader");
  std::vector<const float*> units;
  for (int u = 0; u < layout_.numUnits(); ++u) units.push_back(leader_->master(u));
  model::exportHfModel(dir, config_, layout_, units,
                       bf16 ? formats::DType::BF16 : formats::DType::F32, 5ull << 30, model_dir_);
}

void Trainer::setRoutes(DeliveryRoute d, ReductionRoute r) {
  opts_.delivery = d;
  opts_.reduction = r;
  if (leader_) leader_->setRoutes(d, r);
  if (worker_) worker_->setRoutes(d, r);
  MPI_CHECK(MPI_Barrier(ctx_.world));
}

StepRecord Trainer::step(int64_t step, BatchSource& data) {
  const auto t0 = std::chrono::steady_clock::now();
  StepRecord rec;
  rec.step = step;
  double mine[3] = {0, 0, 0};  // loss sum (workers), grad norm (leader), tokens (worker 0)
  double times[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};  // maxima over ranks
  if (leader_) {
    const LeaderStepStats ls = leader_->step(step);
    mine[1] = ls.grad_norm;
    rec.lr = ls.lr;
    times[7] = ls.wait_s;
    times[8] = ls.reduce_update_s;
    for (const auto& u : ls.units) {
      rec.leader_unit_update_ns.push_back(static_cast<double>(u.begin_ns));
      rec.leader_unit_update_ns.push_back(static_cast<double>(u.end_ns));
    }
  } else {
    const GlobalBatch gb = data.batch(step);
    const LocalBatch lb = rowsForWorker(gb, spec_.num_workers, ctx_.local_rank - 1);
    const WorkerStepStats ws = worker_->step(step, lb);
    mine[0] = ws.loss_sum;
    if (ctx_.worker_rank == 0) mine[2] = static_cast<double>(ws.global_tokens);
    const double w[7] = {ws.compute_forward_s, ws.compute_head_s, ws.compute_backward_s, ws.h2d_s,
                         ws.d2h_s, ws.delivery_wait_s, ws.handoff_wait_s};
    std::copy(w, w + 7, times);
    for (const auto& b : ws.backward) {
      rec.worker_backward_ns.push_back(b.unit);
      rec.worker_backward_ns.push_back(static_cast<double>(b.begin_ns));
      rec.worker_backward_ns.push_back(static_cast<double>(b.end_ns));
    }
  }
  double all[3], tmax[9];
  MPI_CHECK(MPI_Allreduce(mine, all, 3, MPI_DOUBLE, MPI_SUM, ctx_.world));
  MPI_CHECK(MPI_Allreduce(times, tmax, 9, MPI_DOUBLE, MPI_MAX, ctx_.world));
  rec.fwd_s = tmax[0];
  rec.head_s = tmax[1];
  rec.bwd_s = tmax[2];
  rec.h2d_s = tmax[3];
  rec.d2h_s = tmax[4];
  rec.version_wait_s = tmax[5];
  rec.handoff_wait_s = tmax[6];
  rec.leader_wait_s = tmax[7];
  rec.leader_update_s = tmax[8];
  rec.tokens = static_cast<int64_t>(all[2]);
  rec.loss = all[0] / all[2];
  rec.grad_norm = all[1];
  double lr = rec.lr;
  MPI_CHECK(MPI_Bcast(&lr, 1, MPI_DOUBLE, 0, ctx_.node));
  rec.lr = lr;
  rec.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return rec;
}

}  // namespace slidedp
