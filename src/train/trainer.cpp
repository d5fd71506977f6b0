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
#include "runtime/job_guard.h"
#include "runtime/test_hooks.h"
#include "runtime/token_rows.h"
#include "shm/control_block.h"
#include "shm/layout.h"  // formatBytes
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

void checkBatchRows(int64_t batch_rows, const RankContext& ctx) {
  if (batch_rows < 1)
    throwUserError("TrainOptions::batch_rows must be the rows of the global batch (>= 1), got {}",
                   batch_rows);
  if (batch_rows < ctx.num_workers)
    throwUserError("the global batch has {} rows but there are {} workers ({} node(s) x {}); every "
                   "worker needs at least one row.\nHINT: a global batch of {} rows or more, or "
                   "fewer workers", batch_rows, ctx.num_workers, ctx.num_nodes,
                   ctx.num_workers / std::max(1, ctx.num_nodes), ctx.num_workers);
}

namespace {

/// Whether this job's state is sharded across nodes (several nodes and the sharded layout).
bool shardedAcrossNodes(const RankContext& ctx, const TrainOptions& o) {
  return ctx.num_nodes > 1 && shardsState(o.node_layout);
}

/// This node's parts of `plan`'s chunks: whole chunks unless the state is sharded across nodes.
NodeShards nodeShardsOf(const ChunkPlan& plan, const RankContext& ctx, const TrainOptions& o) {
  const bool sharded = shardedAcrossNodes(ctx, o);
  return NodeShards::build(plan, sharded ? ctx.num_nodes : 1, sharded ? ctx.node_id : 0);
}

/// The checkpoint file of this node's optimizer state: one file for the whole state, or one
/// per node when sharded across nodes.
std::string optimizerFileName(const RankContext& ctx, const TrainOptions& o) {
  return shardedAcrossNodes(ctx, o)
             ? fmt::format("optimizer-node{}-of-{}.safetensors", ctx.node_id, ctx.num_nodes)
             : std::string("optimizer.safetensors");
}

/// What a checkpoint records of the nodes: a resume of a sharded checkpoint needs the same node
/// count, layout and chunk size (they decide which node owns which element: node_shards.h).
nlohmann::json nodesRecord(const RankContext& ctx, const TrainOptions& o) {
  const bool sharded = shardedAcrossNodes(ctx, o);
  nlohmann::json j = {{"num_nodes", ctx.num_nodes},
                      {"layout", sharded ? "sharded" : "whole"}};
  if (sharded) j["chunk_numel"] = o.chunk_numel;
  return j;
}

/// Throws UserError when the checkpoint `st` (of `dir`) cannot continue on `num_nodes` nodes
/// with `o`: a sharded checkpoint needs the same node count and chunk size and the sharded
/// layout; a whole-state checkpoint (one node, or replicated) resumes anywhere but sharded.
void checkResumeNodes(const std::string& dir, const nlohmann::json& st, int num_nodes,
                      const TrainOptions& o) {
  const nlohmann::json nodes = st.value("nodes", nlohmann::json{{"num_nodes", 1}, {"layout", "whole"}});
  const int n = nodes.value("num_nodes", 1);
  const std::string layout = nodes.value("layout", "whole");
  // sharded and fully-sharded cut (and save) the optimizer state alike.
  const bool want_sharded = num_nodes > 1 && shardsState(o.node_layout);
  if (layout == "sharded") {
    const int64_t chunk = nodes.value("chunk_numel", int64_t{0});
    if (n != num_nodes || !want_sharded || chunk != o.chunk_numel)
      throwUserError("{} holds the state sharded across {} nodes (--node-layout sharded or "
                     "fully-sharded, --chunk-numel {}), but this run has {} node(s) with --node-layout {} and "
                     "--chunk-numel {}. Each node's file holds the elements that node owned.\n"
                     "HINT: resume with {} nodes, --node-layout sharded (or fully-sharded) and --chunk-numel {} "
                     "(then --export gathers one Hugging Face checkpoint)",
                     dir, n, chunk, num_nodes, nodeLayoutName(o.node_layout), o.chunk_numel, n, chunk);
    return;
  }
  // (A whole state resumes unsharded: replicated on any node count, or on one node; the node
  // count it was saved with is no help when that was several nodes, replicated.)
  if (want_sharded)
    throwUserError("{} holds the whole state (saved by {} node(s), not sharded), but this run "
                   "shards it across {} nodes (--node-layout {}).\nHINT: resume with "
                   "--node-layout replicated (any node count) or on one node",
                   dir, n, num_nodes, nodeLayoutName(o.node_layout));
}

}  // namespace

Trainer::Trainer(const RankContext& ctx, const std::string& model_dir, const TrainOptions& opts,
                 const std::string& shm_name, bool random_init, uint64_t seed,
                 const std::string& resume)
    : ctx_(ctx), opts_(opts), model_dir_(model_dir) {
  std::string problem;
  std::string resume_dir;
  try {
    // First, before any start-up work: a worker without a row of the global batch would
    // throw in step() while its leader (and through it every other rank) waited for its
    // gradients, without a deadline by default.
    checkBatchRows(opts.batch_rows, ctx);
    if (!resume.empty()) {
      resume_dir = resolveCheckpoint(resume);
      const nlohmann::json st = readTrainerState(resume_dir);
      first_step_ = st.at("step").get<int64_t>() + 1;
      checkResumeNodes(resume_dir, st, ctx.num_nodes, opts);
    }
    config_ = model::ModelConfig::load(model_dir);
    layout_ = model::ParamLayout::build(config_);
    std::vector<int64_t> numels;
    for (const auto& u : layout_.units) numels.push_back(u.numel);
    // The row-split embedding update hands the leader whole gradients: the cpu route; its
    // packed token-row hand-offs are whole chunks on every node: not sharded across nodes.
    opts_.split_embedding = opts.split_embedding && opts.reduction == ReductionRoute::kCpu &&
                            !shardedAcrossNodes(ctx, opts);
    // Gradient buckets: not across nodes sharding the state, whose owned parts (and their
    // checkpoints) follow the chunk boundaries.
    const bool buckets = opts.gradient_buckets && !shardedAcrossNodes(ctx, opts);
    plan_ = ChunkPlan::build(numels, opts.chunk_numel, opts_.split_embedding,
                             buckets ? layout_.gradientBucketSplits() : std::vector<int64_t>{},
                             opts.update_tail_units);
    plan_.dense_pass_written = config_.tieWordEmbeddings;
    shards_ = nodeShardsOf(plan_, ctx, opts);
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
  if (shardedAcrossNodes(ctx, opts)) {
    spec_.owned_numels = shards_.owned_numels;
    spec_.f32_delivery = !opts.bf16_compute;
    spec_.shard_copy = opts.node_layout == NodeLayoutKind::kFullySharded;
  }
  spec_.leader_private_state = optimizerStateInLeaderMemory(opts.bf16_compute);
  state_ = HostStateLayout::build(spec_);

  uint64_t job = 0;
  if (ctx.world_rank == 0) job = (static_cast<uint64_t>(std::random_device{}()) << 32) ^ getpid();
  MPI_CHECK(MPI_Bcast(&job, 1, MPI_UINT64_T, 0, ctx.world));
  const std::string name = shm_name.empty()
                               ? fmt::format("slidedp-u{}-{:012x}-n{}", getuid(), job & 0xffffffffffffull, ctx.node_id)
                               : ctx.num_nodes > 1 ? fmt::format("{}-n{}", shm_name, ctx.node_id)
                                                   : shm_name;  // one segment per (virtual) node
  const shm::ControlDims dims{static_cast<uint32_t>(ctx.local_size),
                              static_cast<uint32_t>(layout_.numUnits()),
                              static_cast<uint32_t>(opts.ring_slots)};
  problem.clear();
  if (ctx.isLeader()) {
    try {
      seg_ = shm::Segment::create(name, job, state_.layout, dims, state_.leader_only);
      leader_ = std::make_unique<Leader>(ctx, seg_, spec_, state_, layout_, plan_, shards_, opts_);
      if (!resume_dir.empty())
        leader_->loadState(formats::joinPath(resume_dir, optimizerFileName(ctx, opts_)));
      else if (random_init)
        leader_->initRandom(config_, seed);
      else
        leader_->loadCheckpoint(model_dir, config_);
      leader_->setBaseStep(first_step_ - 1);
      // While the leader waits for gradients, it copies the state of the checkpoint being
      // streamed into staging, one unit at a time, in the order the updates will want it.
      // Then it makes the write's own copy into the O_DIRECT bounce buffers (pumpIdle), so that
      // copy takes no core from the AdamW team while it updates; that stays true through the
      // write, so an abort (the watchdog's verdict on a dead or hung peer) ends it here.
      leader_->setIdleWork([this] {
        if (!stream_ || seg_.control().aborted()) return false;
        return stream_->stageNext() || stream_->pumpIdle();
      });
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
  if (ctx.isLeader() && ctx.leaders != MPI_COMM_NULL) {  // leaders sharing this host's memory
    MPI_Comm host = MPI_COMM_NULL;
    MPI_CHECK(MPI_Comm_split_type(ctx.leaders, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host));
    MPI_CHECK(MPI_Comm_size(host, &leaders_on_host_));
    MPI_CHECK(MPI_Comm_free(&host));
  }
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
  // Several nodes: every worker has mapped the segment, so its name goes now (the mapping stays).
  // A failure on another node ends this node with mpirun's SIGKILL after MPI_Abort, which no
  // rank here survives to clean up after; with the name gone nothing is left in /dev/shm.
  if (ctx.num_nodes > 1 && ctx.isLeader()) seg_.remove();
}

Trainer::~Trainer() {
  stream_.reset();  // cancels an unfinished checkpoint (its temporary directory is removed)
  if (nodes_ckpt_ && ctx_.world_rank == 0) {  // several nodes: the shared one, uncommitted
    try {
      formats::removeTree(nodes_ckpt_->tmp_dir);
    } catch (const std::exception&) {
      // a later checkpoint removes it (publishAndPrune)
    }
  }
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

std::vector<float> Trainer::gatherMaster(int unit) const {
  SLIDEDP_ASSERT(leader_ != nullptr, "gatherMaster() is for leaders");
  return leader_->gatherMaster(unit);
}

void Trainer::exportHf(const std::string& dir, bool bf16, const std::string& tokenizer_dir) const {
  SLIDEDP_ASSERT(leader_ != nullptr, "exportHf() is for leaders");
  std::vector<std::vector<float>> whole;  // node 0: every unit, when not all on this node
  std::vector<const float*> units;
  for (int u = 0; u < layout_.numUnits(); ++u) {
    if (state_.sharded) {
      whole.push_back(leader_->gatherMaster(u));
      units.push_back(whole.back().data());
    } else {
      units.push_back(leader_->master(u));
    }
  }
  if (ctx_.node_id != 0) return;  // every node holds the same (replicated) or sent its parts
  model::exportHfModel(dir, config_, layout_, units,
                       bf16 ? formats::DType::BF16 : formats::DType::F32, 5ull << 30,
                       tokenizer_dir.empty() && formats::isDirectory(model_dir_) ? model_dir_ : tokenizer_dir);
}

void Trainer::writeTrace(const std::string& path, const StepRecord& rec) const {
  const std::string mine = rec.trace_events.dump();
  const std::string all = gatherLines(ctx_, mine);
  int leader_here = ctx_.isLeader() ? 1 : 0;
  std::vector<int> is_leader(ctx_.world_rank == 0 ? ctx_.world_size : 1);
  MPI_CHECK(MPI_Gather(&leader_here, 1, MPI_INT, is_leader.data(), 1, MPI_INT, 0, ctx_.world));
  if (ctx_.world_rank != 0) return;
  nlohmann::json events = nlohmann::json::array();
  std::istringstream in(all);
  for (std::string line; std::getline(in, line);)
    for (auto& e : nlohmann::json::parse(line)) events.push_back(e);
  for (int r = 0; r < ctx_.world_size; ++r) {
    const bool leader = is_leader[r] != 0;
    events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", r},
                      {"args", {{"name", fmt::format("{} (rank {})", leader ? "leader" : "worker", r)}}}});
    events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", r}, {"tid", 0},
                      {"args", {{"name", leader ? "optimizer" : "compute"}}}});
    if (!leader)
      events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", r}, {"tid", 1},
                        {"args", {{"name", "gradient hand-off"}}}});
  }
  formats::writeFileAtomic(path, nlohmann::json{{"traceEvents", events}, {"displayTimeUnit", "ms"}}.dump() + "\n");
}

uint64_t Trainer::reserveCheckpointStaging(double gib) {
  if (!leader_) return 0;
  uint64_t total = 0;
  for (const auto& t : leader_->stateTensors()) total += formats::tensorBytes(t);
  uint64_t bytes = 0;
  if (gib >= 0) {
    bytes = std::min(total, static_cast<uint64_t>(gib * (1ull << 30)));
  } else {
    // this host's share: virtual nodes put several leaders (and their pools) on one host
    const uint64_t avail = memAvailableBytes() / static_cast<uint64_t>(std::max(1, leaders_on_host_)),
                   reserve = std::max<uint64_t>(8ull << 30, memTotalBytes() / 10);
    bytes = avail > reserve ? std::min(total, avail - reserve) : 0;
  }
  staging_pool_.reset();
  if (bytes > 0) staging_pool_ = std::make_shared<formats::StagingPool>(bytes);
  return staging_pool_ ? staging_pool_->capacity() : 0;
}

std::string Trainer::finishStream() {
  if (!stream_) return "";
  const std::string error = stream_->finish();
  stream_.reset();
  return error;
}

void Trainer::beginStream(const std::string& root, int64_t step, const nlohmann::json& state,
                          int keep, bool overwrite, const Note& note,
                          const std::string& shared_tmp_dir, const std::string& file,
                          bool blocking) {
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
  if (staging_pool_) {
    // Faulted in since before step 1, in the idle scheduling class: done by now unless the
    // checkpoint comes within the first steps; then say what it cost.
    const auto t0 = std::chrono::steady_clock::now();
    staging_pool_->waitReady();
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (waited >= 0.5 && note)
      note(fmt::format("checkpoint of step {}: training waited {:.1f} s for the staging memory to be "
                       "faulted in (once per run; it is faulted in on idle cores from the start)",
                       step, waited));
  }
  const optim::Engine* team = &leader_->engine();  // copies into staging on the AdamW team
  CheckpointRequest req{root,          step, state, keep, overwrite, note, shared_tmp_dir, file,
                        staging_pool_, blocking,
                        [team](uint8_t* dst, const uint8_t* src, size_t n) { team->copy(dst, src, n); },
                        blocking ? 0.0 : checkpoint_write_rate_,  // a held step is not paced
                        checkpoint_io_, blocking ? 0.0 : checkpoint_finish_by_s_,
                        checkpoint_pump_grace_s_};
  stream_ = std::make_unique<CheckpointStream>(std::move(req), std::move(units), plan_.updateOrder(),
                                               after_unit);
}

std::string Trainer::saveCheckpoint(const std::string& root, int64_t step,
                                    const nlohmann::json& state, int keep, bool overwrite,
                                    const Note& note) {
  if (ctx_.num_nodes > 1) {  // every leader's part streamed, then waited for
    if (nodes_ckpt_) commitNodesCheckpoint();
    beginNodesCheckpoint(root, step, state, keep, overwrite, note);
    commitNodesCheckpoint();
    return formats::joinPath(root, fmt::format("step-{:08d}", step));
  }
  std::string problem;
  if (leader_) {
    problem = finishStream();
    if (problem.empty()) {
      try {
        beginStream(root, step, state, keep, overwrite, note, "", "optimizer.safetensors",
                    /*blocking=*/true);
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
  if (ctx_.num_nodes > 1) {
    if (nodes_ckpt_) {
      const auto t0 = std::chrono::steady_clock::now();
      const int64_t previous = nodes_ckpt_->step;
      commitNodesCheckpoint();
      const double held = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (held > 0.05 && note)
        note(fmt::format("the checkpoint of step {} was still being written and held training "
                         "{:.2f} s before the checkpoint of step {} (checkpoints come faster than "
                         "the disks write them: raise --checkpoint-every)", previous, held, step));
    }
    beginNodesCheckpoint(root, step, state, keep, overwrite, note);
    return formats::joinPath(root, fmt::format("step-{:08d}", step));
  }
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
  if (ctx_.num_nodes > 1) {
    if (nodes_ckpt_) commitNodesCheckpoint();
    return;
  }
  const std::string problem = leader_ ? finishStream() : "";
  agreeOrThrow(ctx_.world, problem.empty(), problem);
}

void Trainer::beginNodesCheckpoint(const std::string& root, int64_t step,
                                   const nlohmann::json& state, int keep, bool overwrite,
                                   const Note& note) {
  using namespace formats;
  SLIDEDP_ASSERT(!nodes_ckpt_ && !stream_, "beginNodesCheckpoint: one checkpoint at a time");
  const std::string name = fmt::format("step-{:08d}", step);
  // World rank 0 (node 0's leader) owns the directory: it makes the temporary one, every
  // leader that holds a part streams its file into it, and commitNodesCheckpoint() renames it
  // into place once all are complete.
  int pid0 = getpid();
  MPI_CHECK(MPI_Bcast(&pid0, 1, MPI_INT, 0, ctx_.world));
  const std::string tmp = joinPath(root, fmt::format(".{}.tmp-{}", name, pid0));
  const bool owner = ctx_.world_rank == 0;
  std::string problem;
  auto agree = [&] {
    try {
      agreeOrThrow(ctx_.world, problem.empty(), problem);
    } catch (...) {
      stream_.reset();  // cancels this leader's file
      if (owner) removeTree(tmp);  // no half-written checkpoint stays behind
      throw;
    }
  };
  if (owner) {
    try {
      makeDirectories(root);
      removeTree(tmp);
      makeDirectories(tmp);
    } catch (const std::exception& e) {
      problem = fmt::format("writing the checkpoint of step {} to {} failed: {}", step, root, e.what());
    }
  }
  agree();
  if (leader_ && (state_.sharded || owner)) {
    try {
      beginStream(root, step, state, keep, overwrite, note, tmp, optimizerFileName(ctx_, opts_));
    } catch (const std::exception& e) {
      problem = fmt::format("writing the checkpoint of step {} to {} failed on node {}: {}", step,
                            root, ctx_.node_id, e.what());
    }
  }
  agree();
  nodes_ckpt_ = NodesCheckpoint{root, tmp, step, state, keep, overwrite, note};
}

void Trainer::commitNodesCheckpoint() {
  using namespace formats;
  SLIDEDP_ASSERT(nodes_ckpt_.has_value(), "commitNodesCheckpoint without a checkpoint");
  const NodesCheckpoint ck = std::move(*nodes_ckpt_);
  nodes_ckpt_.reset();
  const std::string name = fmt::format("step-{:08d}", ck.step);
  const std::string final_dir = joinPath(ck.root, name);
  const bool owner = ctx_.world_rank == 0;
  std::string problem, line;  // line: "file bytes xxh3" of this leader's file
  double seconds = 0;
  if (stream_) {
    const std::string error = stream_->finish();
    if (!error.empty()) {
      problem = fmt::format("node {}: {}", ctx_.node_id, error);
    } else {
      line = fmt::format("{} {} {}", optimizerFileName(ctx_, opts_), stream_->digest().bytes,
                         stream_->digest().xxh3);
      seconds = stream_->seconds();
    }
    stream_.reset();
  }
  auto agree = [&] {
    try {
      agreeOrThrow(ctx_.world, problem.empty(), problem);
    } catch (...) {
      if (owner) removeTree(ck.tmp_dir);  // no half-written checkpoint stays behind
      throw;
    }
  };
  agree();
  const std::string lines = gatherLines(ctx_, line);
  if (owner) {
    try {
      nlohmann::json j = ck.state;
      j["step"] = ck.step;
      j["format"] = 1;
      j["nodes"] = nodesRecord(ctx_, opts_);
      j["files"] = nlohmann::json::object();
      uint64_t total = 0;
      std::istringstream in(lines);
      for (std::string file; in >> file;) {
        uint64_t bytes = 0;
        std::string xxh3;
        in >> bytes >> xxh3;
        j["files"][file] = {{"bytes", bytes}, {"xxh3", xxh3}};
        total += bytes;
      }
      writeFileAtomic(joinPath(ck.tmp_dir, "trainer_state.json"), j.dump(1) + "\n");
      removeTree(final_dir);  // a checkpoint of the same step from an earlier, resumed run
      if (std::rename(ck.tmp_dir.c_str(), final_dir.c_str()) != 0)
        throwUserError("cannot rename {} to {}: {}", ck.tmp_dir, final_dir, std::strerror(errno));
      if (int fd = ::open(ck.root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); fd >= 0) {
        ::fsync(fd);
        ::close(fd);
      }
      publishAndPrune(ck.root, name, ck.step, ck.keep, ck.overwrite);
      if (ck.note)
        ck.note(fmt::format("checkpoint of step {} written to {} ({} in {} file(s), one per leader "
                            "holding a part; node 0's in {:.2f} s to the fsync)", ck.step, final_dir,
                            shm::formatBytes(total), j["files"].size(), seconds));
    } catch (const std::exception& e) {
      problem = fmt::format("writing the checkpoint of step {} to {} failed: {}", ck.step, ck.root, e.what());
    }
  }
  agree();
}

void Trainer::checkRunOptions(const TrainOptions& o) const {
  const std::string problem = worker_ ? worker_->runOptionsProblem(o) : std::string();
  agreeOrThrow(ctx_.world, problem.empty(),
               problem.empty() ? problem : fmt::format("{}: {}", ctx_.describe(), problem));
}

void Trainer::setRunOptions(const TrainOptions& o) {
  if (o.max_grad_norm > 0 && !spec_.grad_accumulation)
    throw AgreedError("clipping was switched on for a run created without the gradient "
                      "accumulation region (TrainOptions::reserve_grad_accumulation)");
  if (plan_.split_embedding && o.reduction != ReductionRoute::kCpu)
    throw AgreedError(fmt::format("reduction route {} after a start with the row-split embedding "
                                  "update (planned for the cpu route).\nHINT: --embedding-update dense",
                                  routeName(o.reduction)));
  const bool new_tail = o.update_tail_units != plan_.tail_units;
  if (new_tail && ctx_.num_nodes > 1)
    throw AgreedError(fmt::format("--update-tail-units {} after a start with {}: the tail changes "
                                  "between steps on one node only (the leaders' parts follow the "
                                  "chunk plan)", o.update_tail_units, plan_.tail_units));
  opts_.delivery = o.delivery;
  opts_.reduction = o.reduction;
  opts_.max_grad_norm = o.max_grad_norm;
  opts_.gpu_profile = o.gpu_profile;
  opts_.gpu_profile_step = o.gpu_profile_step;
  opts_.memory_snapshot = o.memory_snapshot;
  opts_.memory_snapshot_step = o.memory_snapshot_step;
  opts_.offload_activations = o.offload_activations;
  opts_.activations = o.activations;
  opts_.max_kept_layers = o.max_kept_layers;
  opts_.mlp_tile_tokens = o.mlp_tile_tokens;
  opts_.accumulation_steps = o.accumulation_steps;
  // A streamed checkpoint follows the leader's update order (plan_.updateOrder): finished first.
  if (new_tail) finishCheckpoints();
  if (leader_) leader_->setRunOptions(opts_);
  if (worker_) worker_->setRunOptions(opts_);
  if (new_tail) {
    // Every worker's hand-offs of the last step are in (the leader took them all before its
    // step returned; Worker::setRunOptions waited for the hand-off thread), so no chunk is in
    // flight while the plan is reordered. The same chunks per step: the ring's sequence
    // numbers run on.
    MPI_CHECK(MPI_Barrier(ctx_.world));
    plan_ = plan_.withTail(o.update_tail_units);
    shards_ = nodeShardsOf(plan_, ctx_, opts_);
    opts_.update_tail_units = o.update_tail_units;
    if (leader_) leader_->planChanged();
    if (worker_) worker_->planChanged();
  }
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
  // maxima over ranks; [12..15]: the leaders' checkpoint writers; [17]: a stop was requested
  double times[18] = {0};
  std::string writer_error;
  // The step's agreement: every rank's figures, summed and maxed, and the stop request (a
  // signal or the stop file: the job stops after this step, every rank alike).
  auto agree = [&] {
    times[17] = JobGuard::stopRequested() ? 1 : 0;
    double all[5], tmax[18];
    MPI_CHECK(MPI_Allreduce(mine, all, 5, MPI_DOUBLE, MPI_SUM, ctx_.world));
    rec.batch_tokens = static_cast<int64_t>(all[3]);
    rec.T = static_cast<int64_t>(all[4]);
    MPI_CHECK(MPI_Allreduce(times, tmax, 18, MPI_DOUBLE, MPI_MAX, ctx_.world));
    if (tmax[14] > 0) agreeOrThrow(ctx_.world, writer_error.empty(), writer_error);
    if (nodes_ckpt_ && tmax[15] == 0) commitNodesCheckpoint();  // every rank: every file is over
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
    rec.offloaded_layers = static_cast<int>(tmax[16]);
    rec.stop_requested = tmax[17] > 0;
    rec.tokens = static_cast<int64_t>(all[2]);
    rec.loss = all[0] / all[2];
    rec.grad_norm = all[1];
    double lr = rec.lr;
    MPI_CHECK(MPI_Bcast(&lr, 1, MPI_DOUBLE, 0, ctx_.node));
    rec.lr = lr;
  };
  if (leader_) {
    const bool in_flight = stream_ != nullptr;
    // A streamed checkpoint that is over (published or failed) is collected at the agreement,
    // so its error ends the job at the end of this step rather than going unnoticed. Several
    // nodes: it is committed in the agreement once no leader's file is still being written.
    auto writerFlags = [&] {
      if (ctx_.num_nodes == 1 && stream_ && stream_->finished()) writer_error = finishStream();
      times[13] = in_flight ? 1 : 0;
      times[14] = writer_error.empty() ? 0 : 1;
      times[15] = stream_ && !stream_->finished() ? 1 : 0;
    };
    // Early agreement (runtime/train_options.h): agreed once the workers' backward is over,
    // from inside the leader's step, before it updates the tail's layers; the leader's own
    // figures (norm, times) are its own at the end of the step (one node: the job's).
    // An agreed error there (a failed checkpoint writer) is thrown once the leader's step is
    // over: the workers' hand-off threads are still writing the tail's chunks, and a leader that
    // stopped taking them would leave the workers' teardown joining a blocked thread.
    bool agreed = false;
    std::exception_ptr agreed_error;
    std::function<void()> early;
    if (earlyStepAgreement(opts_, plan_.tail_units, ctx_.num_nodes))
      early = [&] {
        rec.lr = optim::scheduledLr(opts_.lrSchedule(), step - 1);
        writerFlags();
        try {
          agree();
        } catch (const AgreedError&) {
          agreed_error = std::current_exception();
        }
        agreed = true;
      };
    const LeaderStepStats ls = leader_->step(step, early);
    if (agreed_error) std::rethrow_exception(agreed_error);
    if (ctx_.node_id == 0) mine[1] = ls.grad_norm;  // the same global norm on every leader
    rec.lr = ls.lr;
    times[7] = ls.wait_s;
    times[8] = ls.reduce_update_s;
    times[12] = ls.checkpoint_wait_s;
    for (const auto& u : ls.units) {
      rec.leader_unit_update_ns.push_back(static_cast<double>(u.begin_ns));
      rec.leader_unit_update_ns.push_back(static_cast<double>(u.end_ns));
      if (u.end_ns > u.begin_ns)
        rec.trace_events.push_back({{"name", fmt::format("reduce + AdamW unit {}", u.unit)},
                                    {"ph", "X"}, {"pid", ctx_.world_rank}, {"tid", 0},
                                    {"ts", u.begin_ns / 1e3}, {"dur", (u.end_ns - u.begin_ns) / 1e3}});
    }
    if (!agreed) {
      writerFlags();
      agree();
    } else {
      rec.grad_norm = ls.grad_norm;
      rec.leader_wait_s = ls.wait_s;
      rec.leader_update_s = ls.reduce_update_s;
      rec.checkpoint_wait_s = std::max(rec.checkpoint_wait_s, ls.checkpoint_wait_s);
    }
  } else {
    const GlobalBatch gb = data.batch(step);
    // The leaders never see the batch: a worker throwing here would leave them waiting for its
    // gradients. The constructor checked batch_rows against the workers; a source yielding fewer
    // rows than it promised breaks the contract, and the job ends (abort) instead of hanging.
    SLIDEDP_ASSERT(gb.B >= opts_.batch_rows, "step {}: the batch source yielded {} rows, fewer "
                   "than TrainOptions::batch_rows = {} (the fewest of any step)", step, gb.B,
                   opts_.batch_rows);
    const LocalBatch lb = rowsForWorker(gb, ctx_.num_workers, ctx_.worker_rank);
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
    times[16] = ws.offloaded_layers;
    for (const auto& t : ws.trace)
      rec.trace_events.push_back({{"name", t.name}, {"ph", "X"}, {"pid", ctx_.world_rank},
                                  {"tid", t.thread}, {"ts", t.begin_ns / 1e3},
                                  {"dur", (t.end_ns - t.begin_ns) / 1e3}});
    for (const auto& b : ws.backward) {
      rec.worker_backward_ns.push_back(b.unit);
      rec.worker_backward_ns.push_back(static_cast<double>(b.begin_ns));
      rec.worker_backward_ns.push_back(static_cast<double>(b.end_ns));
    }
    agree();
  }
  rec.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return rec;
}

EvalRecord Trainer::evaluate(int64_t after_step, BatchSource& data, int64_t num_batches) {
  const auto t0 = std::chrono::steady_clock::now();
  EvalRecord rec;
  rec.after_step = after_step;
  rec.batches = num_batches;
  // loss sum, targets, ranks that stopped early (a graceful stop requested during it)
  double mine[3] = {0, 0, 0}, all[3] = {0, 0, 0};
  std::string problem;
  // The leader has nothing to do: it polls instead of spinning in a blocking collective, so
  // the workers keep its cores (200 us: well under an eval batch's forward pass).
  const auto finish = [&](MPI_Request& req) {
    for (int done = 0;;) {
      MPI_CHECK(MPI_Test(&req, &done, MPI_STATUS_IGNORE));
      if (done) return;
      if (leader_) std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  };
  for (int64_t b = 1; b <= num_batches; ++b) {
    // Before each batch every rank agrees whether to go on (a sharded delivery's all-gather
    // needs every worker): not after a worker's error (it reaches the agreement below, not the
    // next batch's collectives), nor after a stop (Ctrl-C, SIGTERM, the launcher's stop file)
    // on any rank, the leaders' included, which would otherwise wait for the whole eval set.
    int flags[2] = {problem.empty() ? 0 : 1, JobGuard::stopRequested() ? 1 : 0}, any[2] = {0, 0};
    MPI_Request req;
    MPI_CHECK(MPI_Iallreduce(flags, any, 2, MPI_INT, MPI_MAX, ctx_.world, &req));
    finish(req);
    if (any[0] > 0) break;
    if (any[1] > 0) {
      mine[2] = 1;
      break;
    }
    if (!worker_) continue;
    try {
      const GlobalBatch gb = data.batch(b);
      const LocalBatch lb = rowsForWorker(gb, ctx_.num_workers, ctx_.worker_rank);
      const auto [loss, count] = worker_->evaluate(after_step, lb);
      mine[0] += loss;
      mine[1] += static_cast<double>(count);
    } catch (const UserError& e) {
      problem = e.what();
    }
  }
  MPI_Request req;
  MPI_CHECK(MPI_Iallreduce(mine, all, 3, MPI_DOUBLE, MPI_SUM, ctx_.world, &req));
  finish(req);
  agreeOrThrow(ctx_.world, problem.empty(), problem);
  rec.interrupted = all[2] > 0;
  if (rec.interrupted) {  // a partial mean would read as the held-out loss: none is reported
    rec.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return rec;
  }
  rec.tokens = static_cast<int64_t>(all[1]);
  if (rec.tokens == 0)
    throwUserError("evaluation after step {}: the {} eval batch(es) hold no unmasked target",
                   after_step, num_batches);
  rec.loss = all[0] / all[1];
  rec.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return rec;
}

uint64_t Trainer::workerGatherBytes(bool sharded_delivery) const {
  if (!state_.copy_sharded) return 0;
  const int G = ctx_.local_size - 1;
  return NodeShards::gatherBufferBytes(plan_, G, G > 1 && sharded_delivery,
                                       ctx_.device == DeviceKind::kCuda ? opts_.window_slots : 1,
                                       opts_.bf16_compute ? 2 : 4);
}

}  // namespace slidedp
