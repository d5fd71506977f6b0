// One checkpoint of a --checkpoint-dir being written by the leader while training continues
// (issue 20, item 9: "a checkpoint blocks training").
//
// The state of a unit (its FP32 master weights, m and v) is stable from its update in step s
// until its update in step s+1. So the checkpoint of step s is written on a background thread
// (formats/streamed_writer.h), unit by unit in the order step s+1 updates them (the hand-off
// order: head first, embedding last), and the leader's update of unit u in step s+1 first waits
// until the writer is past u, or copies u's state into host memory first when the staging budget
// has room (waitUnit: the only place training can wait for the disk or a copy, reported as the
// step's checkpoint wait). After the last unit: fsync of optimizer.safetensors, then
// trainer_state.json (step, data cursor, configuration, and the file's size and XXH3-64 digest
// computed while streaming), then the temporary directory is renamed into place and `latest`
// replaced (checkpoint_dir.h: publishAndPrune), all on the writer thread.
// A kill or a failure before the rename leaves only root/.step-N.tmp-<pid> (removed by a later
// checkpoint); the previous checkpoint and `latest` stay as they were.
//
// Several nodes: every leader that holds a part of the state (each leader when sharded across
// nodes, node 0's when replicated) streams its own file into one temporary directory that world
// rank 0 made; the trainer commits the directory (trainer_state.json with every file's digest,
// rename, `latest`) on the main threads once every leader's file is complete, since that needs
// MPI and the writer threads never call it.
//
// Leader-side, no MPI: the trainer owns at most one stream at a time, and agrees its error
// (error()) across ranks at the end of the next step.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "formats/checkpoint.h"  // TensorToWrite
#include "formats/streamed_writer.h"

namespace slidedp {

struct CheckpointRequest {
  std::string root;     // --checkpoint-dir
  int64_t step = 0;     // the state after this step
  nlohmann::json state; // trainer_state.json besides "step", "format", "files"
  int keep = 2;         // newest step directories kept (0: all)
  bool overwrite = false;
  /// Called on the writer thread once the checkpoint is published, with a line for the log
  /// (where, how many bytes, how fast). Optional; must not throw.
  std::function<void(const std::string&)> note;
  /// Several nodes: the step's temporary directory, made by world rank 0 and shared by every
  /// leader that writes; the stream then writes only `file` into it and neither creates,
  /// commits (trainer_state.json, rename, `latest`) nor removes the directory: the trainer
  /// does, once every leader's file is complete (Trainer::commitNodesCheckpoint). Empty: one
  /// node, the stream owns root/.step-N.tmp-<pid>/ and commits it itself.
  std::string shared_tmp_dir;
  std::string file = "optimizer.safetensors";  // the state's file name in the step directory
  /// Memory the leader copies units into when the next step updates them before the writer
  /// reached them (formats/streamed_writer.h, staging; formats/staging_pool.h); null: those
  /// updates wait for the disk. The trainer's pool, shared by its successive checkpoints.
  std::shared_ptr<formats::StagingPool> staging;
  /// Training waits until it is written (the last step's, a stop's, --checkpoint-mode
  /// blocking): nothing is updated meanwhile, and the log line says so instead of staging.
  bool blocking = false;
  /// How the leader copies a unit into `staging` (StreamedWriterOptions::copy): its AdamW team
  /// (optim::Engine::copy), idle while the leader copies. Empty: threads started per copy.
  std::function<void(uint8_t* dst, const uint8_t* src, size_t bytes)> copy;
  /// Most bytes per second written (StreamedWriterOptions::max_bytes_per_s); 0: uncapped.
  double max_bytes_per_s = 0;
  /// --checkpoint-io: "direct" (O_DIRECT, StreamedWriterOptions::direct_io), "buffered" (the
  /// page cache), or "auto": direct when `staging` has room (updates never wait for the disk,
  /// and the write stays off the training threads' cores), buffered without (the page cache
  /// is then what lets updates go on before the disk has a unit).
  std::string io = "auto";
  /// Seconds by which a direct write should be done (StreamedWriterOptions::finish_by_s); 0: none.
  double finish_by_s = 0;
  /// Seconds without the leader's pumping after which the writer copies by itself
  /// (StreamedWriterOptions::pump_grace_s); 0: the writer's default (1 s).
  double pump_grace_s = 0;
};

class CheckpointStream {
 public:
  /// Creates root/.step-<8 digits>.tmp-<pid>/ and starts writing its optimizer.safetensors on a
  /// background thread. `unit_tensors[u]`: unit u's tensors (pointing into the segment; they
  /// must not change until waitUnit(u) returned); `order`: the units in write order (every unit
  /// once). `after_unit` (optional) runs on the writer thread after each unit (tests: fault
  /// injection, a slow disk). Main thread of the leader. Throws UserError when the directory
  /// cannot be created.
  CheckpointStream(CheckpointRequest req, std::vector<std::vector<formats::TensorToWrite>> unit_tensors,
                   const std::vector<int>& order, std::function<void(int units_written)> after_unit = {});
  /// Cancels an unfinished write and removes the temporary directory.
  ~CheckpointStream();

  int64_t step() const { return req_.step; }
  /// root/step-<8 digits>, where the checkpoint goes once complete.
  const std::string& finalDir() const { return final_dir_; }

  /// Unit `u` is about to be updated: returns once the checkpoint no longer needs its memory
  /// (written, copied into staging memory, or the write failed); returns the seconds the caller
  /// was held. `poll` as in StreamedSafetensorsWriter::waitGroup. Leader's main thread.
  double waitUnit(int u, const std::function<void()>& poll = {});
  /// The leader has nothing else to do (it waits for a gradient): copies the next unit in write
  /// order that is neither written nor copied into staging (StreamedSafetensorsWriter::
  /// stageNext). True when it copied one; false when there is nothing to copy ahead or no room.
  /// Leader's main thread.
  bool stageNext() { return writer_->stageNext(); }
  /// The leader's idle time lent to the write's copy (StreamedSafetensorsWriter::pumpIdle):
  /// true when it copied. Leader's main thread.
  bool pumpIdle() { return writer_->pumpIdle(); }
  /// True once the write is over (published, or failed).
  bool finished() const { return writer_->finished(); }
  /// Blocks until the write is over; returns "" once the checkpoint is published (with a
  /// shared_tmp_dir: once the file is complete), else the error (the temporary directory is
  /// then removed, unless shared). Idempotent.
  std::string finish();
  /// After a successful finish(): the file's size and XXH3-64 digest, and the seconds it took.
  const formats::FileDigest& digest() const { return writer_->digest(); }
  double seconds() const { return writer_->seconds(); }

 private:
  /// "0.85 GB/s", or "9.1 MB/s" below 0.1 GB/s (a small checkpoint's rate would read 0.00 GB/s).
  static std::string rate(uint64_t bytes, double sec);
  void complete(const formats::FileDigest& digest);  // writer thread

  CheckpointRequest req_;
  std::string name_, tmp_dir_, final_dir_;
  bool shared_ = false;        // req_.shared_tmp_dir given: write the file, commit nothing
  bool direct_ = false;        // O_DIRECT asked of the writer (req_.io, staging, blocking)
  std::vector<int> position_;  // unit -> its index in the write order
  std::unique_ptr<formats::StreamedSafetensorsWriter> writer_;
  bool finished_ = false;
  std::string error_;
};

}  // namespace slidedp
