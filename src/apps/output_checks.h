// Checks, before start-up, that every output of a training job can be written: the
// checkpoint directory, the export directory, the metrics, trace and GPU profile files. Each
// directory is created (mkdir -p) and a probe file is written and removed in it; the free space
// of each file system is compared with what the run will write there (checkpoints: their size times
// how many are on disk at once), so a read-only path, a path under a file or a full disk is
// reported before the first step with needed vs available bytes, not after the last one.
// World rank 0 calls it (single-node jobs: its file systems are the leader's).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace slidedp {

struct OutputPlan {
  std::string checkpoint_dir;      // "" = none
  uint64_t checkpoint_bytes = 0;   // one checkpoint (optimizer.safetensors + trainer_state.json)
  int64_t checkpoints_written = 0; // how many this run writes (periodic + final)
  int keep = 2;                    // --keep-checkpoints (<= 0: all kept)
  std::string export_dir;          // "" = none
  uint64_t export_bytes = 0;
  std::string model_dir;           // --model, the directory the run loads ("" = random init)
  std::string metrics;             // files, "" = none
  std::string trace;
  std::string gpu_profile;         // --gpu-profile (its directory; workers insert -w<worker>)
  std::string memory_snapshot;     // --memory-snapshot (the same)
  /// What the run reads, (option, path): files (--data, --tokenizer, ...) and directories
  /// (--model, --checkpoint-dir, ...); "" or a path that does not exist is skipped.
  std::vector<std::pair<std::string, std::string>> inputs;
};

/// Throws UserError (message: the option, the path, what failed; for space: needed and
/// available bytes of the file system) for the first output that cannot be written, for an
/// --export that is the --model directory or the --checkpoint-dir (it would overwrite the
/// weights the run starts from, or mix a model into the checkpoints), and for an existing
/// --metrics or --trace file that the run reads: one of `inputs`' files, a model file of the
/// --model directory (config, weights, tokenizer) or a file of a checkpoint (the run would
/// overwrite a model's weights, its data, its state).
void checkOutputPaths(const OutputPlan& plan);

/// Free bytes (statvfs f_bavail * f_frsize) of the file system holding `path`; throws UserError.
uint64_t freeBytesAt(const std::string& path);

}  // namespace slidedp
