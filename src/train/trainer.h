// A training run: on each node the leader and the workers around one segment, step by step
// (design.md, "One training step"); across nodes the leaders exchange gradients and parameters
// as the node layout says (leader/node_layout.h, TrainOptions::node_layout). Every rank constructs a Trainer and calls step() with the
// same arguments; the leader runs the optimizer (leader/), the workers stream the model
// (worker/). Batches come from a BatchSource every rank can evaluate (each worker takes its
// block of rows of the global batch).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/batch_source.h"  // defines: GlobalBatch, BatchSource
#include "model/config.h"
#include "model/param_layout.h"
#include "runtime/chunk_plan.h"
#include "runtime/host_state_layout.h"
#include "runtime/node_shards.h"
#include "runtime/rank_context.h"
#include "runtime/train_options.h"
#include "formats/staging_pool.h"
#include "shm/segment.h"
#include "train/checkpoint_dir.h"  // resolveCheckpoint, readTrainerState

namespace slidedp {

class CheckpointStream;
class Leader;
class Worker;
struct LeaderStepStats;
struct WorkerStepStats;
struct LocalBatch;


/// Worker w's rows of G (every worker of every node; w = RankContext::worker_rank): contiguous
/// blocks, the first B mod G workers one row more. Throws UserError when B < G (a worker would
/// have no row).
LocalBatch rowsForWorker(const GlobalBatch& batch, int G, int w);

/// Throws UserError unless `batch_rows` (B, TrainOptions::batch_rows) is >= 1 and at least
/// ctx.num_workers (every worker of every node needs a row). Not collective; every rank gets
/// the same answer. Called by the Trainer's constructor before any start-up work.
void checkBatchRows(int64_t batch_rows, const RankContext& ctx);

/// What every rank knows after a step (agreed over MPI at the step's end).
struct StepRecord {
  int64_t step = 0;
  double loss = 0;           // global mean token loss
  double grad_norm = 0;      // before clipping
  double lr = 0;
  int64_t tokens = 0;        // global unmasked target tokens
  int64_t batch_tokens = 0;  // B * T of the global batch
  int64_t T = 0;
  double seconds = 0;        // wall time of the step on this rank
  // Per-resource busy and wait times of the step, seconds (max over the workers):
  double fwd_s = 0, head_s = 0, bwd_s = 0;  // compute
  double h2d_s = 0;             // deliveries (H2D + all-gather)
  double d2h_s = 0;             // gradient hand-offs (D2H into staging)
  double version_wait_s = 0;    // workers waiting for the leader's updates
  double handoff_wait_s = 0;    // workers waiting for their last hand-offs at the step's end
  double leader_wait_s = 0;     // leader waiting for gradient chunks
  double leader_update_s = 0;   // leader's fused reduce + AdamW passes
  double checkpoint_wait_s = 0; // leader waiting for the streamed checkpoint's writer
  bool checkpoint_in_flight = false;  // a streamed checkpoint was being written in this step
  int kept_layers = 0;          // decoder layers with kept activations (max over workers)
  int attention_output_layers = 0;  // decoder layers keeping only their attention output
  int offloaded_layers = 0;     // recomputed layers whose input went to pinned host memory (max)
  int64_t gpu_peak_bytes = 0;   // peak GPU bytes allocated in the step (max over workers)
  bool stop_requested = false;  // a rank was asked to stop (signal, stop file): stop after it
  std::vector<double> leader_unit_update_ns;  // leader: [unit]*2 begin,end (monotonic ns)
  std::vector<double> worker_backward_ns;     // workers: [unit, begin, end]*
  /// This rank's spans as Chrome trace events ("ph":"X", ts/dur in us, pid = world rank).
  nlohmann::json trace_events = nlohmann::json::array();
};

/// The held-out loss after a step (Trainer::evaluate), agreed by every rank.
struct EvalRecord {
  int64_t after_step = 0;
  double loss = 0;        // mean token loss over every unmasked target of the eval batches
  int64_t tokens = 0;     // those targets
  int64_t batches = 0;
  double seconds = 0;     // wall time of the evaluation on this rank
  bool interrupted = false;  // a graceful stop was requested during it: no loss (tokens 0)
};

class Trainer {
 public:
  /// Collective over ctx.world. Loads the model config on every rank; the leader creates the
  /// node's segment (removing stale ones) and reads the checkpoint into it; workers map it.
  /// `shm_name` "" picks a unique name; with several nodes "-n<node>" is appended to a given one
  /// (virtual nodes on one machine each have their segment). Throws AgreedError for configuration errors every rank
  /// sees, UserError for others. First, before any start-up work (reading the model, the
  /// segment): AgreedError when opts.batch_rows is < 1 or fewer than ctx.num_workers
  /// (checkBatchRows).
  /// `model_dir`: a Hugging Face directory (config.json + weights), or with `random_init` a
  /// config.json (or a directory holding one) whose weights are initialised from `seed`.
  /// `resume`: a checkpoint step directory (see saveCheckpoint) to continue from: the FP32
  /// master weights and moments are read from it and the run continues after its step (the
  /// caller verifies its files first: verifyCheckpointFiles).
  Trainer(const RankContext& ctx, const std::string& model_dir, const TrainOptions& opts,
          const std::string& shm_name = "", bool random_init = false, uint64_t seed = 0,
          const std::string& resume = "");
  ~Trainer();

  /// The first step this run executes (1, or the resumed checkpoint's step + 1).
  int64_t firstStep() const { return first_step_; }

  /// Writes a checkpoint of the state after step `step` under `root`:
  /// root/step-<step, 8 digits>/{optimizer.safetensors, trainer_state.json} (sharded across N
  /// nodes: optimizer-node<p>-of-<N>.safetensors, one per node, each written by its leader;
  /// `root` must then be on a file system every node sees), built in a
  /// temporary directory, fsync'ed and renamed into place, then root/latest (a file naming it)
  /// replaced atomically; older step directories beyond `keep` are removed, and with
  /// `overwrite` the step directories newer than `step` (a replaced run's; see
  /// checkpoint_dir.h). `state` (JSON: configuration, data cursor, ...) goes into
  /// trainer_state.json beside "step" and the size and XXH3-64 digest of
  /// optimizer.safetensors ("files"), which a resume verifies. Collective: the leader writes,
  /// every rank returns the directory (or throws the leader's error).
  /// A checkpoint still being streamed (startCheckpoint) is finished first. `note` (leader,
  /// optional) receives the log lines: the checkpoint written (where, size, rate).
  using Note = std::function<void(const std::string&)>;
  std::string saveCheckpoint(const std::string& root, int64_t step, const nlohmann::json& state,
                             int keep = 2, bool overwrite = false, const Note& note = {});

  /// The same checkpoint, streamed (train/checkpoint_stream.h): returns at once and the leader
  /// writes it while the next steps run; the update of a unit in the next step waits only until
  /// that unit is written (StepRecord::checkpoint_wait_s). A checkpoint still being streamed is
  /// finished first. Returns the directory it will have. An error of the write is agreed at the
  /// end of a later step (or by finishCheckpoints) and thrown on every rank as AgreedError.
  /// Collective: every rank calls it after the same step.
  /// `note` also hears, from the main thread, when a previous checkpoint still being written
  /// held training before this one could start.
  /// Several nodes: every leader holding a part streams its own file into one temporary
  /// directory, and the checkpoint is committed (by world rank 0) at the end of the first step
  /// after which no leader is still writing (or by the next checkpoint, finishCheckpoints).
  /// Each leader's updates wait only for its own writer.
  std::string startCheckpoint(const std::string& root, int64_t step, const nlohmann::json& state,
                              int keep = 2, bool overwrite = false, const Note& note = {});
  /// Waits until a streamed checkpoint, if any, is complete (renamed into place, `latest`
  /// updated); throws AgreedError on every rank when its write failed. Collective.
  void finishCheckpoints();
  /// Reserves the host memory streamed checkpoints copy units into when the next step updates
  /// them before the disk has them (--checkpoint-staging, formats/staging_pool.h): `gib` GiB,
  /// capped at the checkpoint's size; < 0: automatic, this host's MemAvailable now (shared by
  /// the leaders on this host: virtual nodes) less max(8 GiB, 10% of MemTotal), capped at the
  /// checkpoint's size; 0: none (updates wait for the disk). Call once, before the first step,
  /// when periodic streamed checkpoints will be written: the pages are faulted in on a
  /// background thread while RAM is still free, and kept for every checkpoint (faulted in
  /// while a checkpoint fills the page cache, 40 GiB copied at 1.4 GB/s on the 4B run).
  /// Returns the bytes reserved (0 on ranks other than a leader). Not collective.
  uint64_t reserveCheckpointStaging(double gib);
  /// Caps the rate the following checkpoints are written at (bytes/s; 0: none), e.g. from
  /// --checkpoint-write-rate (formats::StreamedWriterOptions::max_bytes_per_s). Not collective.
  void setCheckpointWriteRate(double bytes_per_s) { checkpoint_write_rate_ = bytes_per_s; }
  /// --checkpoint-io: auto, direct or buffered (CheckpointRequest::io). Not collective.
  void setCheckpointIo(std::string io) { checkpoint_io_ = std::move(io); }
  /// The pace of the next streamed checkpoint's direct write: `finish_by_s`, seconds by which
  /// it should be done (CheckpointRequest::finish_by_s: the job passes 80% of the time to the
  /// checkpoint after it, or to the last step; 0: none), and `pump_grace_s`, seconds without
  /// the leader's idle-time pumping after which the writer copies by itself
  /// (CheckpointRequest::pump_grace_s: the job passes twice its median step; 0: the writer's
  /// default). Not collective.
  void setCheckpointPace(double finish_by_s, double pump_grace_s) {
    checkpoint_finish_by_s_ = finish_by_s;
    checkpoint_pump_grace_s_ = pump_grace_s;
  }

  /// Switches, for the following steps, what may change between steps without touching the
  /// state layout: delivery and reduction routes, clipping (max_grad_norm; needs the run to
  /// have been created with clipping or TrainOptions::reserve_grad_accumulation) and
  /// activation offload, and the update tail (o.update_tail_units: the chunk plan reordered,
  /// ChunkPlan::withTail, once every hand-off of the last step is in and a streamed checkpoint
  /// is written (finishCheckpoints); one node, else AgreedError). Collective: every rank calls
  /// it between the same two steps.
  void setRunOptions(const TrainOptions& o);
  /// Refuses, before any step, run options no worker's GPU can take (Worker::runOptionsProblem:
  /// --gradient-accumulation-steps' accumulators above the GPU or its budget): AgreedError with
  /// the first failing worker's message on every rank. Collective over ctx.world; changes
  /// nothing. train_job.cpp calls it for every --route-sweep variant as the job starts.
  void checkRunOptions(const TrainOptions& o) const;
  const TrainOptions& options() const { return opts_; }
  int numWorkers() const { return spec_.num_workers; }

  /// One step (1-based, consecutive). Collective. Each worker takes its rows of
  /// data.batch(step) (rowsForWorker), which must hold at least TrainOptions::batch_rows rows:
  /// fewer is a broken contract and aborts the process (SLIDEDP_ASSERT; the job ends), since
  /// the leaders, which do not read the batch, would otherwise wait for the workers' gradients.
  StepRecord step(int64_t step, BatchSource& data);

  /// The held-out loss of the model after step `after_step` (the last step run) on batches
  /// 1..`num_batches` of `data`: forward only through the workers' streaming path (window,
  /// delivery route), no gradient and no optimizer update; the leader only waits. Collective.
  /// Throws UserError when the batches hold no unmasked target. Stops early, with `interrupted`
  /// set and no loss, when a graceful stop is requested on any rank (checked before each
  /// batch, agreed over ctx.world).
  EvalRecord evaluate(int64_t after_step, BatchSource& data, int64_t num_batches);

  const model::ModelConfig& config() const { return config_; }
  const model::ParamLayout& layout() const { return layout_; }
  /// The step's hand-off plan (chunks, buckets), the same on every rank of the node.
  const ChunkPlan& plan() const { return plan_; }
  const shm::Segment& segment() const { return seg_; }
  /// Gathers every rank's trace_events of `rec` to world rank 0 and writes a Chrome/Perfetto
  /// trace file there (open it in ui.perfetto.dev or chrome://tracing). Collective.
  void writeTrace(const std::string& path, const StepRecord& rec) const;
  /// Leader only: the FP32 master weights of unit u this node holds (all of the unit, or its
  /// part when sharded across nodes: see Leader::master).
  const float* master(int unit) const;
  /// Leaders only, collective over ctx.leaders: the whole FP32 master of unit u on node 0's
  /// leader (empty elsewhere).
  std::vector<float> gatherMaster(int unit) const;
  /// Leaders only, collective over ctx.leaders: writes a Hugging Face directory of the current
  /// weights from node 0's leader (sharded across nodes: the parts are gathered there, the
  /// whole model in its memory, 4 B/param, while it writes). Tokenizer files (tokenizer.model,
  /// ...) are copied from `tokenizer_dir` ("" = the model directory).
  void exportHf(const std::string& dir, bool bf16, const std::string& tokenizer_dir = "") const;
  /// Bytes of this node's host state on the leader: the segment (staging and control block
  /// included) and the leader's own regions (master, m, v with bf16 compute).
  uint64_t hostStateBytes() const { return seg_.bytes() + seg_.leaderBytes(); }
  /// Fully sharded across nodes: the host bytes of the gather buffers of this node's workers
  /// together (routes/node_gather.h: one per worker on CPU workers, one per window slot on GPU
  /// workers, each of the largest span a worker gathers); 0 otherwise. `sharded_delivery`:
  /// every delivery of the run is on a sharded route (each worker gathers about 1/G of a
  /// unit; else the whole unit: a --route-sweep with a replicated variant grows them to that).
  uint64_t workerGatherBytes(bool sharded_delivery) const;

 private:
  const RankContext& ctx_;
  TrainOptions opts_;
  std::string model_dir_;
  model::ModelConfig config_;
  model::ParamLayout layout_;
  ChunkPlan plan_;
  NodeShards shards_;  // this node's parts of the chunks (whole chunks unless sharded)
  HostStateSpec spec_;
  HostStateLayout state_;
  shm::Segment seg_;
  int64_t first_step_ = 1;
  std::shared_ptr<formats::StagingPool> staging_pool_;  // leader; reserveCheckpointStaging
  std::string checkpoint_io_ = "auto";  // setCheckpointIo
  double checkpoint_finish_by_s_ = 0;   // setCheckpointPace
  double checkpoint_pump_grace_s_ = 0;  // setCheckpointPace
  double checkpoint_write_rate_ = 0;  // bytes/s, 0: uncapped (setCheckpointWriteRate)
  int leaders_on_host_ = 1;  // leaders of this job on this host (virtual nodes: several)
  /// Leader: finishes the streamed checkpoint, if any; returns its error ("" when none).
  std::string finishStream();
  /// Leader: starts streaming the checkpoint of `step` (throws UserError).
  /// `shared_tmp_dir` and `file`: see CheckpointRequest (several nodes); `blocking`: training
  /// waits for it (CheckpointRequest::blocking).
  void beginStream(const std::string& root, int64_t step, const nlohmann::json& state, int keep,
                   bool overwrite, const Note& note, const std::string& shared_tmp_dir = "",
                   const std::string& file = "optimizer.safetensors", bool blocking = false);
  /// Several nodes (checkpoint_stream.h): world rank 0 makes the step's temporary directory and
  /// every leader holding a part of the state (each one sharded across nodes, node 0's when
  /// replicated) starts streaming its file into it. Collective; throws AgreedError (the
  /// directory removed) when any of it failed.
  void beginNodesCheckpoint(const std::string& root, int64_t step, const nlohmann::json& state,
                            int keep, bool overwrite, const Note& note);
  /// Several nodes: waits for this leader's file, agrees every leader's outcome, and world rank
  /// 0 writes trainer_state.json (every file's digest, the node record), renames the directory
  /// into place and replaces `latest`. Collective; throws AgreedError (directory removed).
  void commitNodesCheckpoint();
  struct NodesCheckpoint {  // several nodes: the checkpoint being streamed, on every rank
    std::string root, tmp_dir;
    int64_t step = 0;
    nlohmann::json state;
    int keep = 2;
    bool overwrite = false;
    Note note;
  };
  std::optional<NodesCheckpoint> nodes_ckpt_;

  std::unique_ptr<Leader> leader_;
  std::unique_ptr<Worker> worker_;
  std::unique_ptr<CheckpointStream> stream_;  // leader: the checkpoint being written, if any
};

}  // namespace slidedp
