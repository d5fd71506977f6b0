// Fault injection (--kill-at, runtime/fault_injection.h): a rank SIGKILLed at each phase of a
// step, for each role that reaches it, as the OOM killer or a node failure would. For every
// case: every rank is gone within the heartbeat timeout, no segment is left, no export appears,
// `latest` names a complete checkpoint whose checksums verify and from which the run resumes,
// and the killed writer's temporary directory goes with the next checkpoint.
//
// Checkpoints every 2 steps of 6, streamed (the default): the checkpoint of step 4 is written
// while step 5 runs, so a kill in step 5 leaves `latest` at 4 when the write had finished, else
// at 2 (the previous checkpoint, intact: only the temporary directory is lost). A kill inside
// the checkpoint writer (streamed, or blocking, or the blocking one after the last step) always
// leaves the previous one.
#include <gtest/gtest.h>

#include <set>

#include "common/subprocess.h"
#include "shm/segment.h"

using namespace std::chrono;
using namespace slidedp::test;
using slidedp::shm::Segment;

namespace {

std::vector<std::string> train(std::vector<std::string> extra) {
  std::vector<std::string> a = {SLIDEDP_MPIRUN_BIN, "--oversubscribe", "--bind-to", "none", "-np",
                                "3", SLIDEDP_WORKER_BIN, "--device", "cpu", "--model", stories(),
                                "--batch-size", "4", "--seq-len", "32", "--chunk-numel", "5000",
                                "--leader-threads", "1"};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

std::string latestOf(const std::string& dir) {
  std::string s = readFile(dir + "/latest");
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

bool exists(const std::string& p) { return access(p.c_str(), F_OK) == 0; }

struct Case {
  std::string kill_at;           // PHASE@STEP:RANK (rank 0: the leader; 1, 2: workers)
  std::set<int> latest;          // the steps `latest` may name afterwards
  std::vector<std::string> extra = {};
};

}  // namespace

TEST(FaultMatrix, ARankKilledAtEachPhaseLeavesTheLastCompleteCheckpointResumable) {
  const std::vector<Case> cases = {
      {"step@5:0", {2, 4}},        // leader, start of the step (checkpoint 4 streaming)
      {"step@5:2", {2, 4}},        // a worker, start of the step
      {"forward@5:1", {2, 4}},     // a worker, half of the forward done
      {"backward@5:1", {2, 4}},    // a worker, half of the backward done
      {"handoff@5:2", {2, 4}},     // a worker's hand-off thread, mid-unit
      {"update@5:0", {2, 4}},      // leader, half of the chunks updated
      {"checkpoint@4:0", {2}},     // leader's writer thread, half of the streamed checkpoint
      {"checkpoint@4:0", {2}, {"--checkpoint-mode", "blocking"}},
      {"checkpoint@6:0", {4}},     // the checkpoint after the last step (complete before exit)
      {"export@6:0", {6}},         // leader, about to export
      // the update tail (layers 1..3 after the embedding, the step agreed before their update):
      // the leader killed in the tail while the workers run the next forward; a worker's
      // hand-off thread killed in it
      {"update@5:0", {2, 4}, {"--update-tail-units", "3"}},
      {"handoff@5:1", {2, 4}, {"--update-tail-units", "3"}},
  };
  const double heartbeat_s = 5;
  for (const auto& c : cases) {
    const std::string label = c.kill_at + (c.extra.empty() ? "" : " " + c.extra[1]);
    const std::string d = fmt::format("/tmp/slidedp-fault-{}", getpid());
    std::system(("rm -rf " + d + " " + d + ".*").c_str());
    const std::string name = fmt::format("slidedp-fault-{}", getpid());
    const std::string pids_file = d + ".pids";
    std::vector<std::string> args = {"--steps", "6", "--checkpoint-dir", d, "--checkpoint-every", "2",
                                     "--keep-checkpoints", "0", "--export", d + ".export",
                                     "--kill-at", c.kill_at, "--shm-name", name, "--pid-file",
                                     pids_file, "--heartbeat-timeout", "5"};
    args.insert(args.end(), c.extra.begin(), c.extra.end());
    Proc p = start(train(args));
    const auto pids = waitForPids(pids_file, 3);
    ASSERT_EQ(pids.size(), 3u) << label;
    ASSERT_TRUE(waitForText(p, "--kill-at: this rank kills itself", 120)) << label << "\n" << readFile(p.log);
    const auto killed = steady_clock::now();
    Result r = wait(p, 60);
    EXPECT_TRUE(waitAllGone(pids, heartbeat_s + 5)) << label << ": a rank outlived the job";
    const double gone_s = duration<double>(steady_clock::now() - killed).count();
    const std::string latest = latestOf(d);
    std::printf("--kill-at %s: all ranks gone %.2f s later; latest %s\n", label.c_str(), gone_s,
                latest.c_str());
    EXPECT_LT(gone_s, heartbeat_s) << label << "\n" << r.output;
    EXPECT_NE(r.exit_code, 0) << label << "\n" << r.output;
    EXPECT_FALSE(Segment::exists(name)) << label << ": segment left\n" << r.output;
    EXPECT_FALSE(exists(d + ".export/config.json")) << label;
    ASSERT_EQ(latest.rfind("step-", 0), 0u) << label << ": no checkpoint\n" << r.output;
    const int step = std::stoi(latest.substr(5));
    EXPECT_TRUE(c.latest.count(step)) << label << ": latest is " << latest << "\n" << r.output;
    // Resumable: its checksums verify (before anything is loaded) and the run continues.
    Result again = wait(start(train({"--steps", std::to_string(step + 2), "--checkpoint-dir", d,
                                     "--resume", "auto"})));
    EXPECT_EQ(again.exit_code, 0) << label << "\n" << again.output;
    EXPECT_NE(again.output.find(fmt::format("at step {}", step + 1)), std::string::npos)
        << label << "\n" << again.output;
    EXPECT_NE(again.output.find(fmt::format("step {}/{}", step + 2, step + 2)), std::string::npos)
        << label << "\n" << again.output;
    // The killed writer's temporary directory went with the next checkpoint.
    EXPECT_NE(std::system(("ls -a " + d + " | grep -q '\\.tmp-'").c_str()), 0)
        << label << ": a temporary checkpoint directory is left";
    std::system(("rm -rf " + d + " " + d + ".*").c_str());
  }
}

TEST(FaultMatrix, AnUnknownPhaseIsRefusedWithTheListOfPhases) {
  Result r = wait(start(train({"--steps", "2", "--kill-at", "optimizer@1"})));
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("step, forward, backward, handoff, update, checkpoint or export"),
            std::string::npos) << r.output;
}

// A kill that could never fire is refused before the first step, not ignored: a phase the named
// rank's role never reaches (forward on the leader, update on a worker), a rank the job does not
// have, a step outside the run's, trailing characters, a checkpoint or an export the run does
// not write. The job has 3 ranks (0 the leader, 1 and 2 workers) and 2 steps.
TEST(FaultMatrix, AKillThatCouldNeverFireIsRefused) {
  const std::pair<const char*, const char*> cases[] = {
      {"forward@2:0", "rank 0 is a leader, which runs no forward"},
      {"handoff@2", "rank 0 is a leader, which runs no handoff"},
      {"update@2:1", "rank 1 is a worker, which runs no update"},
      {"backward@2:0", "rank 0 is a leader, which runs no backward"},
      {"step@2:3", "rank 3 is not in this job, which has 3 ranks (0..2)"},
      {"step@0:1", "STEP must be a step of the run (1..2), got 0"},
      {"step@3:1", "STEP must be a step of the run (1..2), got 3"},
      {"step@2x", "STEP and RANK must be integers (PHASE@STEP[:RANK]), got '2x'"},
      {"step@2:1:5", "got '1:5'"},
      {"checkpoint@2:0", "the run writes no checkpoint after step 2.\nHINT: give --checkpoint-dir"},
      {"export@2:0", "the run exports nothing"}};
  for (const auto& [spec, expected] : cases) {
    Result r = wait(start(train({"--steps", "2", "--kill-at", spec})));
    EXPECT_EQ(r.exit_code, 2) << spec << "\n" << r.output;
    EXPECT_NE(r.output.find(expected), std::string::npos) << spec << "\n" << r.output;
    EXPECT_EQ(r.output.find("step 1/"), std::string::npos) << spec << ": it trained";
    EXPECT_EQ(r.output.find("kills itself"), std::string::npos) << spec;
  }
}
