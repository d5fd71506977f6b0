// A --checkpoint-dir's rules (train/checkpoint_dir.h) on directories made by hand: which step
// directories keep a run from starting there.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

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
/// root/step-2 published (`latest` names it, written a second earlier), then step-4 renamed
/// into place: what a job killed before it updated `latest` leaves.
void interruptedPublication(const std::string& root) {
  std::system(("rm -rf " + root).c_str());
  stepDir(root, 2);
  put(root + "/latest", "step-00000002\n");
  std::system(("touch -d '-1 second' " + root + "/latest").c_str());
  stepDir(root, 4);
}
}  // namespace

// A kill between a streamed checkpoint's rename into place and the update of `latest` leaves a
// complete step directory newer than `latest` (seen in test_fault_matrix, --kill-at step@5:2):
// the run resumed from `latest` may write there (it replaces that step's directory), while the
// checkpoints `latest` covers, and a directory already in place when `latest` was last written,
// still keep an older start out unless overwriting.
TEST(CheckpointDir, ADirectoryNewerThanLatestIsAnInterruptedPublicationNotAnotherRun) {
  const std::string root = "/tmp/slidedp-ckdir-" + std::to_string(getpid());
  interruptedPublication(root);
  EXPECT_EQ(resolveCheckpoint(root), root + "/step-00000002");
  EXPECT_NO_THROW(checkCheckpointRootBeforeStart(root, 2, false));
  EXPECT_THROW(checkCheckpointRootBeforeStart(root, 0, false), UserError);  // a new run: step 2 is there
  // `latest` rewritten after step 4 was in place (by hand, to resume from step 2): step 4 is a
  // checkpoint of the run, not an interrupted publication; the message names the newest
  ::usleep(50000);  // past the file system's timestamp tick
  put(root + "/latest", "step-00000002\n");
  try {
    checkCheckpointRootBeforeStart(root, 2, false);
    ADD_FAILURE() << "a `latest` moved back by hand let the run overwrite step 4";
  } catch (const UserError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("holds checkpoints newer than step 2, where this run continues (step-00000004), and " +
                     root + "/latest names step-00000002, not the newest"), std::string::npos) << m;
    EXPECT_NE(m.find("--resume " + root + "/step-00000004"), std::string::npos) << m;
  }
  put(root + "/latest", "step-00000004\n");
  EXPECT_THROW(checkCheckpointRootBeforeStart(root, 2, false), UserError);  // 4 is published
  EXPECT_NO_THROW(checkCheckpointRootBeforeStart(root, 2, true));
  std::remove((root + "/latest").c_str());
  EXPECT_THROW(checkCheckpointRootBeforeStart(root, 2, false), UserError);  // no `latest`: all count
  std::system(("rm -rf " + root).c_str());
}

// The run that continues from `latest` after an interrupted publication moves that directory
// aside: a later `latest` (this run's) would otherwise make it look like another run's newer
// checkpoint, and a later resume would be refused, pointed at the abandoned one.
TEST(CheckpointDir, AnInterruptedPublicationIsMovedAsideByTheRunThatContinues) {
  const std::string root = "/tmp/slidedp-ckdir-aside-" + std::to_string(getpid());
  interruptedPublication(root);
  ASSERT_NO_THROW(checkCheckpointRootBeforeStart(root, 2, false));
  const std::vector<std::string> moved = setAsideInterruptedPublications(root);
  ASSERT_EQ(moved.size(), 1u);
  EXPECT_EQ(moved[0], root + "/.step-00000004.interrupted-" + std::to_string(getpid()));
  EXPECT_EQ(::access((moved[0] + "/trainer_state.json").c_str(), F_OK), 0) << "its files are kept";
  ASSERT_EQ(listStepCheckpoints(root).size(), 1u);
  // this run checkpoints step 3 and updates `latest`: a later resume from it is not refused
  ::usleep(50000);
  stepDir(root, 3);
  put(root + "/latest", "step-00000003\n");
  EXPECT_NO_THROW(checkCheckpointRootBeforeStart(root, 3, false));
  EXPECT_TRUE(setAsideInterruptedPublications(root).empty());
  std::system(("rm -rf " + root).c_str());
}

// A damaged `latest` (bytes that are no step name) or one naming a removed checkpoint: the
// message says what the file holds without printing its bytes, and recommends only complete
// step directories, the newest first.
TEST(CheckpointDir, ABadLatestRecommendsOnlyCompleteCheckpoints) {
  const std::string root = "/tmp/slidedp-ckdir-latest-" + std::to_string(getpid());
  std::system(("rm -rf " + root).c_str());
  stepDir(root, 2);
  stepDir(root, 4);
  std::system(("mkdir -p " + root + "/step-00000006").c_str());  // incomplete: no state files
  const auto message = [&] {
    try {
      resolveCheckpoint(root);
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  put(root + "/latest", std::string("\x01\x02\0\xff garbage", 12));
  std::string m = message();
  EXPECT_NE(m.find(root + "/latest does not name a step directory: it holds 12 byte(s)"), std::string::npos) << m;
  EXPECT_EQ(m.find("garbage"), std::string::npos) << m;
  EXPECT_NE(m.find("the newest " + root + "/step-00000004 (step-00000002, step-00000004)"), std::string::npos) << m;
  EXPECT_EQ(m.find("step-00000006"), std::string::npos) << "an incomplete checkpoint was recommended\n" << m;
  put(root + "/latest", "step-00000009\n");
  m = message();
  EXPECT_NE(m.find("names " + root + "/step-00000009, which holds no trainer_state.json"), std::string::npos) << m;
  EXPECT_NE(m.find("the newest " + root + "/step-00000004"), std::string::npos) << m;
  std::system(("rm -rf " + root + "/step-00000002 " + root + "/step-00000004").c_str());
  m = message();
  EXPECT_NE(m.find(root + " holds no complete checkpoint to resume from instead"), std::string::npos) << m;
  std::system(("rm -rf " + root).c_str());
}

// A checkpoint sharded across N nodes holds optimizer-node<k>-of-<N>.safetensors, one per node:
// complete when every node's file is there (it was taken for incomplete, so a run without
// `latest` could not resume from it).
TEST(CheckpointDir, ACheckpointShardedAcrossNodesIsCompleteWithEveryNodesFile) {
  const std::string root = "/tmp/slidedp-ckdir-nodes-" + std::to_string(getpid());
  std::system(("rm -rf " + root).c_str());
  const std::string d = root + "/step-00000003";
  std::system(("mkdir -p " + d).c_str());
  put(d + "/trainer_state.json", "{\"step\": 3}\n");
  put(d + "/optimizer-node0-of-2.safetensors", "x");
  EXPECT_FALSE(listStepCheckpoints(root).at(0).complete);  // node 1's part missing
  put(d + "/optimizer-node1-of-2.safetensors", "x");
  EXPECT_TRUE(listStepCheckpoints(root).at(0).complete);
  EXPECT_EQ(resolveCheckpoint(root), d);  // no `latest`: the newest complete one
  std::system(("rm -rf " + root).c_str());
}
