// Streamed checkpoints (issue 20, item 9; train/checkpoint_stream.h), from outside, as a user
// runs the job: the leader writes checkpoint s while step s+1 runs, and each unit's update in
// step s+1 waits only until that unit is written.
//  - What is written is the state after step s although step s+1 overwrote it meanwhile: the
//    streamed checkpoint is byte-identical to a blocking one, and a run resumed from it ends
//    byte-identical to a straight run. The disk is slowed (SLIDEDP_TEST_SLOW_CHECKPOINT) so the
//    write does overlap step s+1's updates (the step line's ckpt-wait shows they waited), and
//    with staging memory (the default) the updates copy the units instead of waiting.
//  - The leader overlaps: with the disk slowed and the next step's compute slower than the
//    whole write (SLIDEDP_TEST_SLOW_STEP), the step after a checkpoint waits for none of it,
//    while a blocking checkpoint holds training for the whole write.
//  - --checkpoint-write-rate paces a streamed write (and leaves the held last one alone).
//  - A write that fails ends the job at the next step with the error on every rank, the
//    segment removed and no `latest` pointing at a half-written checkpoint.
#include <gtest/gtest.h>

#include <regex>

#include "common/job_log.h"
#include "common/subprocess.h"
#include "shm/segment.h"

using namespace std::chrono;
using namespace slidedp::test;

namespace {

std::vector<std::string> train(std::vector<std::string> env, std::vector<std::string> extra) {
  std::vector<std::string> a = {SLIDEDP_MPIRUN_BIN, "--oversubscribe", "--bind-to", "none"};
  for (const auto& e : env) a.insert(a.end(), {"-x", e});
  for (const char* s : {"-np", "3", SLIDEDP_WORKER_BIN, "--device", "cpu", "--batch-size", "4",
                        "--seq-len", "64", "--chunk-numel", "5000", "--leader-threads", "1"})
    a.push_back(s);
  a.insert(a.end(), {"--model", stories()});
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

std::string tmpDir(const char* tag) {
  const std::string d = fmt::format("/tmp/slidedp-stream-{}-{}", tag, getpid());
  std::system(("rm -rf " + d).c_str());
  return d;
}


/// The number captured by `pattern` (one group) in the log (-1 when absent).
double logNumber(const std::string& log, const std::string& pattern) {
  std::smatch m;
  return std::regex_search(log, m, std::regex(pattern)) ? std::stod(m[1]) : -1;
}

constexpr int kUnits = 7;  // stories260K: embedding, 5 decoder layers, final norm

}  // namespace

TEST(StreamedCheckpoint, IsTheStateOfItsStepAndResumesBitIdentically) {
  // 50 ms per unit: the write (~0.35 s) spans step 3's and step 5's updates (~20 ms steps).
  // Without staging memory (--checkpoint-staging 0) the updates wait for the writer; with it
  // (the default) they copy the units the writer has not reached. Both files must be the
  // blocking checkpoint's, byte for byte.
  const std::vector<std::string> slow_disk = {"SLIDEDP_TEST_SLOW_CHECKPOINT=0.05"};
  const std::string s = tmpDir("s"), c = tmpDir("c"), b = tmpDir("b"), r = tmpDir("r");
  Result streamed = wait(start(train(slow_disk, {"--steps", "6", "--checkpoint-dir", s,
                                                 "--checkpoint-every", "2", "--keep-checkpoints", "0",
                                                 "--checkpoint-staging", "0"})));
  ASSERT_EQ(streamed.exit_code, 0) << streamed.output;
  EXPECT_NE(streamed.output.find("checkpoint of step 2: streaming to"), std::string::npos) << streamed.output;
  // Step 3's updates waited for the writer: the gate held, so what follows tests it.
  EXPECT_GT(stepField(streamed.output, 3, "ckpt-wait"), 0.05) << streamed.output;
  EXPECT_NE(streamed.output.find("0 B of it copied to staging memory in 0.00 s, staging off"),
            std::string::npos) << streamed.output;
  // This run also caps the write at 5 MB/s (--checkpoint-write-rate): step 2's checkpoint
  // (~3 MB) then takes longer than the slowed disk alone (0.35 s); step 4's, at the end, is not
  // paced (training waits for it).
  Result staged = wait(start(train(slow_disk, {"--steps", "4", "--checkpoint-dir", c,
                                               "--checkpoint-every", "2", "--keep-checkpoints", "0",
                                               "--checkpoint-write-rate", "5"})));
  ASSERT_EQ(staged.exit_code, 0) << staged.output;
  EXPECT_NE(staged.output.find("checkpoint writes capped at 5 MB/s"), std::string::npos) << staged.output;
  const double capped_s = logNumber(staged.output, R"(checkpoint of step 2 written to \S+ \(\S+ \S+ in ([0-9.]+) s)");
  const double capped_bytes = static_cast<double>(readFile(c + "/step-00000002/optimizer.safetensors").size());
  EXPECT_GE(capped_s, 0.95 * capped_bytes / 5e6) << staged.output;
  // Step 3's updates copied what the slow writer had not reached instead of waiting for it.
  const double copied = logNumber(staged.output, R"(checkpoint of step 2 written to .* ([0-9.]+) [KMG]i?B of it copied to staging memory)");
  EXPECT_GT(copied, 0) << staged.output;
  EXPECT_LT(stepField(staged.output, 3, "ckpt-wait"), 0.2) << staged.output;
  Result blocking = wait(start(train({}, {"--steps", "4", "--checkpoint-dir", b, "--checkpoint-every",
                                          "2", "--keep-checkpoints", "0", "--checkpoint-mode", "blocking"})));
  ASSERT_EQ(blocking.exit_code, 0) << blocking.output;
  for (const char* step : {"step-00000002", "step-00000004"}) {
    const std::string a = readFile(s + "/" + step + "/optimizer.safetensors");
    ASSERT_GT(a.size(), 1000000u) << step;
    const std::string want = readFile(b + "/" + step + "/optimizer.safetensors");
    EXPECT_TRUE(a == want) << step << ": the streamed checkpoint differs from the blocking one";
    EXPECT_TRUE(readFile(c + "/" + step + "/optimizer.safetensors") == want)
        << step << ": the streamed checkpoint with staging differs from the blocking one";
  }
  // Resume from the streamed checkpoint of step 4 (written while step 5 ran) to step 6.
  Result resumed = wait(start(train({}, {"--steps", "6", "--checkpoint-dir", r, "--resume",
                                         s + "/step-00000004"})));
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_NE(resumed.output.find("at step 5"), std::string::npos) << resumed.output;
  const std::string straight = readFile(s + "/step-00000006/optimizer.safetensors");
  EXPECT_TRUE(straight == readFile(r + "/step-00000006/optimizer.safetensors"))
      << "state after 6 steps differs between the straight run and the one resumed from a "
         "streamed checkpoint";
  std::system(("rm -rf " + s + " " + c + " " + b + " " + r).c_str());
}

TEST(StreamedCheckpoint, TheStepAfterACheckpointDoesNotWaitForTheWholeWrite) {
  // The disk: 0.15 s per unit, >= 1.05 s per checkpoint. The next step: worker 1 starts step 3
  // 2.5 s late (as a long GPU step would), so the leader's updates of step 3 come after the
  // whole write if, and only if, the write ran during the step.
  const double per_unit = 0.15, write_s = kUnits * per_unit;
  const std::vector<std::string> env = {fmt::format("SLIDEDP_TEST_SLOW_CHECKPOINT={}", per_unit),
                                        "SLIDEDP_TEST_SLOW_STEP=1:3:2.5"};
  const std::string d = tmpDir("overlap"), e = tmpDir("blocking");
  Result streamed = wait(start(train(env, {"--steps", "3", "--checkpoint-dir", d, "--checkpoint-every", "2"})));
  ASSERT_EQ(streamed.exit_code, 0) << streamed.output;
  const double start_s = logNumber(streamed.output, R"(checkpoint of step 2: streaming to \S+ while training continues \(([0-9.]+) s to start)");
  const double took_s = logNumber(streamed.output, R"(checkpoint of step 2 written to \S+ \(\S+ \S+ in ([0-9.]+) s)");
  const double waited_s = stepField(streamed.output, 3, "ckpt-wait");
  std::printf("streamed: %.3f s to start, written in %.3f s, step 3 waited %.3f s for it\n",
              start_s, took_s, waited_s);
  ASSERT_GE(start_s, 0) << streamed.output;
  ASSERT_GE(waited_s, 0) << streamed.output;
  EXPECT_GE(took_s, write_s) << streamed.output;
  EXPECT_LT(start_s, 0.2 * write_s) << streamed.output;
  EXPECT_LT(waited_s, 0.2 * write_s) << "step 3 waited for the checkpoint write\n" << streamed.output;
  // The same with --checkpoint-mode blocking: training stops for the whole write.
  Result blocking = wait(start(train(env, {"--steps", "3", "--checkpoint-dir", e, "--checkpoint-every",
                                           "2", "--checkpoint-mode", "blocking"})));
  ASSERT_EQ(blocking.exit_code, 0) << blocking.output;
  const double stopped_s = logNumber(blocking.output, R"(checkpoint of step 2: training stopped ([0-9.]+) s for it)");
  std::printf("blocking: training stopped %.3f s for the checkpoint\n", stopped_s);
  EXPECT_GE(stopped_s, write_s) << blocking.output;
  std::system(("rm -rf " + d + " " + e).c_str());
}

TEST(StreamedCheckpoint, AFailedWriteEndsTheJobAtTheNextStepWithItsError) {
  // The temporary directory disappears while the slowed writer streams (a clean-up script, a
  // full disk would do the same): the write fails, and the job must not go on as if saved.
  // Also with an update tail (--update-tail-units 3): the error is agreed before the leader has
  // taken the tail's chunks (24 of them at --chunk-numel 5000, more than the ring's 4 slots); the
  // leader takes them before it throws (Trainer::step), and the job ends with the same error.
  for (const auto& extra : {std::vector<std::string>{},
                            std::vector<std::string>{"--update-tail-units", "3"}}) {
    const std::string label = extra.empty() ? "no tail" : "tail 3";
    const std::string d = tmpDir("fail");
    const std::string name = fmt::format("slidedp-stream-fail-{}", getpid());
    std::vector<std::string> args = {"--steps", "200", "--checkpoint-dir", d, "--checkpoint-every", "2",
                                     "--shm-name", name};
    args.insert(args.end(), extra.begin(), extra.end());
    Proc p = start(train({"SLIDEDP_TEST_SLOW_CHECKPOINT=0.3"}, args));
    ASSERT_TRUE(waitForText(p, "checkpoint of step 2: streaming to", 120)) << label << "\n" << readFile(p.log);
    std::system(("rm -rf " + d + "/.step-00000002.tmp-*").c_str());
    Result r = wait(p, 120);
    EXPECT_NE(r.exit_code, 0) << label << "\n" << r.output;
    EXPECT_NE(r.output.find("writing the checkpoint of step 2 to " + d + " failed"), std::string::npos)
        << label << "\n" << r.output;
    EXPECT_EQ(r.output.find("step 200/200"), std::string::npos) << label << ": the job went on\n" << r.output;
    EXPECT_FALSE(slidedp::shm::Segment::exists(name)) << label << "\n" << r.output;
    EXPECT_NE(access((d + "/latest").c_str(), F_OK), 0) << label << ": a `latest` names a failed checkpoint";
    std::system(("rm -rf " + d).c_str());
  }
}
