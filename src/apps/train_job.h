// The training job of slidedp_worker: its options (declared once, with defaults and units,
// for --help), the data sources, the per-step log line and metrics, and route sweeps for
// benchmarks. Collective: every rank runs runTrainJob with the same options.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/rank_context.h"
#include "runtime/train_options.h"

namespace slidedp {

struct TrainJobOptions {
  std::string model;         // HF directory (config.json + safetensors)
  std::string model_config;  // or: a config.json to initialise randomly
  uint64_t seed = 1234;
  std::string data = "synthetic";  // synthetic | reference:FILE.safetensors | a data file
  std::string eval_data;           // held-out data file (any format of --data); "" = none
  int64_t eval_every = 0;          // evaluate every N steps (0: only at the end); with eval_data
  int64_t eval_batches = 0;        // global batches per evaluation (0: the whole eval set once)
  std::string data_format = "auto";
  std::string tokenizer;           // SentencePiece tokenizer.model (text data)
  std::string token_dtype = "auto";
  bool shuffle = true;
  int64_t doc_start_token = -1;
  int64_t batch_size = 8;          // global rows per step
  int64_t seq_len = 256;           // T
  bool batch_size_given = false;   // --batch-size / --seq-len given (flag or config file): set
  bool seq_len_given = false;      //   by the caller after parsing (reference: data checks them)
  int64_t steps = 10;
  std::string route_sweep;         // "replicated/cpu,sharded/gpu,..." (steps each)
  int64_t warmup_steps = 1;        // steps excluded from the summary (per route)
  std::string export_dir;          // write a HF directory at the end
  bool export_bf16 = true;
  std::string metrics;             // JSONL (or CSV), one record per step
  std::string trace;               // Chrome trace of step trace_step
  std::string gpu_profile;         // torch-profiler trace + table of step trace_step's GPU work
  std::string memory_snapshot;     // the caching allocator's snapshot after step trace_step
  int64_t trace_step = 2;
  std::string config_file;         // --config FILE ("" = none): an input the outputs must not overwrite
  bool data_given = false;         // --data given (flag or config file): a resume without it
                                   //   of a run trained on a file is refused
  bool trace_step_given = false;   // --trace-step given: beyond --steps it is an error (the
                                   // default 2 then traces the last step)
  std::string checkpoint_dir;
  int64_t checkpoint_every = 0;
  int keep_checkpoints = 2;
  std::string checkpoint_mode = "stream";  // stream (written while training continues) | blocking
  bool checkpoint_at_end = true;   // also checkpoint after the last step (a stop always does)
  std::string checkpoint_staging = "auto";  // GiB of host memory for streamed copies | auto
  std::string checkpoint_io = "auto";  // auto | direct | buffered (CheckpointRequest::io)
  double checkpoint_write_rate = 0;  // MB/s cap of a checkpoint's write (0: as fast as the disk)
  bool overwrite_checkpoints = false;  // replace another run's checkpoints in checkpoint_dir
  std::string resume;
  std::string resolved_config;     // the resolved configuration (saved with checkpoints)
  std::string shm_name;
  std::string delivery = "replicated";
  std::string reduction = "cpu";
  std::string node_layout = "sharded";  // across nodes: sharded | replicated
  std::string schedule = "constant";
  std::string precision = "auto";  // auto | bf16 | fp32
  std::string activations = "auto";  // recompute | keep | auto
  std::string attention = "auto";    // auto | fa3 | cudnn | flash
  std::string embedding_update = "split";  // split | dense
  std::string embedding_lookup = "host";   // host | window
  std::string gemm_algorithm = "library";  // library | timed
  std::string grad_buckets = "split";      // split (a layer's MLP gradient first) | whole
  double heartbeat_timeout_s = 30;
  double stall_timeout_s = 10;
  std::string policy = "auto";       // auto (the planner's best, planner/) | manual (the flags);
                                     // when not given: apps/policy_choice.h decides
  bool policy_given = false;         // --policy named (command line or --config)
  std::vector<std::string> policy_knobs_given;  // the planner's knob flags named (policyKnobsGiven)
  std::string machine;               // --policy auto: a machine description instead of the cache
  std::string calibration;           // --policy auto: the calibration cache (slidedp plan wrote it)
  TrainOptions train;
};

/// Declares every training option on `app` (group "Training").
void addTrainOptions(CLI::App& app, TrainJobOptions& o);

/// Runs the job; returns the process exit status (0). Throws on errors (AgreedError for
/// configuration errors every rank sees).
int runTrainJob(const RankContext& ctx, TrainJobOptions o);

}  // namespace slidedp
