// A --checkpoint-dir on disk: its step directories (root/step-<8 digits>/, each holding
// optimizer.safetensors and trainer_state.json), the `latest` file naming the newest, and the
// rules that keep a run from losing another's checkpoints:
//  - resuming picks `latest`, or, when `latest` is missing, the newest complete step directory
//    (never "start over" while checkpoints are there);
//  - a run that would write into a directory holding checkpoints newer than its own start is
//    refused before start-up unless it was asked to replace them (--overwrite-checkpoints), so
//    `latest` never moves back and pruning never deletes another run's newest steps;
//  - every file's size and XXH3-64 digest are recorded in trainer_state.json and verified
//    before the state is loaded.
// Leader-side, no MPI: the trainer (train/trainer.cpp) and the job (apps/) call these.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace slidedp {

/// One step directory of a checkpoint root.
struct StepCheckpoint {
  int64_t step = 0;
  std::string name;       // "step-00000025"
  std::string dir;        // root/name
  bool complete = false;  // trainer_state.json and the optimizer state (optimizer.safetensors,
                          // or every node's optimizer-node<k>-of-<N>.safetensors) present
};

/// Every `step-<digits>` directory under `root`, ascending by step (empty when `root` does not
/// exist). Temporary directories of a checkpoint being written (".step-*.tmp-*") are not listed.
std::vector<StepCheckpoint> listStepCheckpoints(const std::string& root);

/// A checkpoint to resume from: `path` is a step directory (holding trainer_state.json) or a
/// checkpoint root. For a root: the step directory `latest` names, or, without a `latest` file,
/// the newest complete step directory (then `note`, when given, says so). Throws UserError when
/// `latest` names a directory that is not a checkpoint, or when there is no checkpoint at all.
std::string resolveCheckpoint(const std::string& path, std::string* note = nullptr);

/// trainer_state.json of a step directory. Throws UserError.
nlohmann::json readTrainerState(const std::string& step_dir);

/// Verifies the digests trainer_state.json records for the files of `step_dir` ("files":
/// {name: {"bytes": N, "xxh3": hex}}). Throws UserError naming the damaged file. Returns false
/// (nothing verified) for a checkpoint written before digests were recorded.
bool verifyCheckpointFiles(const std::string& step_dir);

/// Before start-up: throws UserError when `root` holds step directories newer than
/// `start_step` (the step this run continues from; 0 for a fresh run) and `overwrite` is false
/// (the message names them and says how to continue, replace or avoid them). Directories newer
/// than the one `latest` names do not count: a kill between a checkpoint's rename into place
/// and the update of `latest` leaves one, and the run resumed from `latest` replaces it.
void checkCheckpointRootBeforeStart(const std::string& root, int64_t start_step, bool overwrite);

/// Takes an exclusive lock on the checkpoint root `root` (an existing directory) for the rest
/// of this process's life: flock(2) on root/.slidedp.lock, which the kernel releases when the
/// process ends, however it ends (kill -9 included), and which no exec'd child inherits. The
/// file records the holder (pid and host) for the message. Throws UserError naming the holder
/// when another process holds it: two jobs writing one checkpoint root would prune and
/// overwrite each other's checkpoints and both report success. World rank 0 calls it; a
/// second call for the same root is a no-op. A lock file of another user is locked read-only
/// (without the holder note); on a file system that takes no flock it returns a warning to
/// print (no lock), else "".
std::string lockCheckpointRoot(const std::string& root);

/// Moves each interrupted publication under `root` (a step directory newer than the one
/// `latest` names, renamed into place after `latest` was last written: the job was killed
/// before it updated `latest`) aside to root/.step-N.interrupted-<pid>, where no later resume
/// takes it for another run's checkpoint. A run that continues from `latest` calls it (world
/// rank 0, holding the lock) once checkCheckpointRootBeforeStart has passed. Returns the new
/// paths. Throws UserError when a rename fails.
std::vector<std::string> setAsideInterruptedPublications(const std::string& root);

/// After root/name has been renamed into place: replaces root/latest atomically, then removes
/// (a) with `overwrite`, step directories newer than `step` (what is left of the run this one
/// replaces), and (b) beyond the newest `keep` (keep <= 0: none removed) of those at or below
/// `step`, and (c) the temporary directories of writers that died mid-checkpoint. Throws
/// UserError on I/O errors.
void publishAndPrune(const std::string& root, const std::string& name, int64_t step, int keep,
                     bool overwrite);

}  // namespace slidedp
