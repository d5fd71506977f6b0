// A --checkpoint-dir's rules (train/checkpoint_dir.h) on directories made by hand: which step
// directories keep a run from starting there.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "common/errors.h"
#include "train/checkpoint_dir.h"

using namespace slidedp;

namespace {
void put(const std::string& path, const std::string& text) { std::ofstream(path) << text; }
void stepDir(const std::string& root, int step) {
  const std::string d = root + "/step-0000000" + std::to_string(step);
  std::system(("mkdir -p " + d).c_str());
  put(d + "/trainer_state.json", "{\"step\": " + std::to_string(step) + "}\n");
  put(d + "/optimizer.safetensors", "x");
}
}  // namespace

// A kill between a streamed checkpoint's rename into place and the update of `latest` leaves a
// complete step directory newer than `latest` (seen in test_fault_matrix, --kill-at step@5:2):
// the run resumed from `latest` may write there (it replaces that step's directory), while the
// checkpoints `latest` covers still keep an older start out unless overwriting.
TEST(CheckpointDir, ADirectoryNewerThanLatestIsAnInterruptedPublicationNotAnotherRun) {
  const std::string root = "/tmp/slidedp-ckdir-" + std::to_string(getpid());
  std::system(("rm -rf " + root).c_str());
  stepDir(root, 2);
  stepDir(root, 4);
  put(root + "/latest", "step-00000002\n");
  EXPECT_EQ(resolveCheckpoint(root), root + "/step-00000002");
  EXPECT_NO_THROW(checkCheckpointRootBeforeStart(root, 2, false));
  EXPECT_THROW(checkCheckpointRootBeforeStart(root, 0, false), UserError);  // a new run: step 2 is there
  put(root + "/latest", "step-00000004\n");
  EXPECT_THROW(checkCheckpointRootBeforeStart(root, 2, false), UserError);  // 4 is published
  EXPECT_NO_THROW(checkCheckpointRootBeforeStart(root, 2, true));
  std::remove((root + "/latest").c_str());
  EXPECT_THROW(checkCheckpointRootBeforeStart(root, 2, false), UserError);  // no `latest`: all count
  std::system(("rm -rf " + root).c_str());
}
