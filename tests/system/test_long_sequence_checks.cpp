// Long sequences are refused up front, before any rank allocates (issue 14): a --seq-len
// beyond what the model config covers (max_position_embeddings, rope scaling), and a job whose
// host RAM (state, staging, pinned offload, per-token buffers) exceeds MemAvailable, with the
// needed and available bytes. Both end every rank with exit status 2 (an agreed
// configuration error) before the leader creates the segment: the "host memory:" line is
// printed right before it, and the refused-sequence case never reaches that line.
#include <gtest/gtest.h>

#include <algorithm>

#include "common/subprocess.h"
#include "shm/segment.h"

using namespace slidedp::test;
using slidedp::shm::Segment;

namespace {
std::vector<std::string> train(std::vector<std::string> mpirun_extra, std::vector<std::string> extra) {
  std::vector<std::string> a = {SLIDEDP_MPIRUN_BIN, "--oversubscribe", "--bind-to", "none"};
  a.insert(a.end(), mpirun_extra.begin(), mpirun_extra.end());
  for (const char* s : {"-np", "3", SLIDEDP_WORKER_BIN, "--device", "cpu", "--batch-size", "2", "--model"})
    a.push_back(s);
  a.push_back(stories());
  if (std::find(extra.begin(), extra.end(), "--steps") == extra.end()) a.insert(a.end(), {"--steps", "1"});
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}
}  // namespace

TEST(LongSequenceChecks, SeqLenBeyondTheConfigIsRefusedBeforeStartUp) {
  const std::string name = fmt::format("slidedp-seqcheck-{}", getpid());
  Result r = wait(start(train({}, {"--seq-len", "524288", "--shm-name", name})), 120);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("sequence length 524288 exceeds what the model config covers: "
                          "max_position_embeddings = 512"),
            std::string::npos) << r.output;
  EXPECT_NE(r.output.find("\"rope_type\": \"yarn\", \"factor\": 1024"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("host memory:"), std::string::npos) << "refused after the config check:\n"
                                                              << r.output;
  EXPECT_FALSE(Segment::exists(name));
}

TEST(LongSequenceChecks, HostMemoryBeyondMemAvailableIsRefusedWithBytes) {
  const std::string name = fmt::format("slidedp-memcheck-{}", getpid());
  Result r = wait(start(train({"-x", "SLIDEDP_TEST_MEM_AVAILABLE=1000000"},
                              {"--seq-len", "64", "--shm-name", name})), 120);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("but only 1000000 bytes = 976.56 KiB are available (MemAvailable)"),
            std::string::npos) << r.output;
  EXPECT_NE(r.output.find("gradient staging ring"), std::string::npos) << r.output;
  EXPECT_FALSE(Segment::exists(name));
  // The same job with the real MemAvailable runs.
  Result ok = wait(start(train({}, {"--seq-len", "64", "--shm-name", name})), 180);
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
  EXPECT_NE(ok.output.find("host memory: the job needs"), std::string::npos) << ok.output;
}

// An explicit --checkpoint-staging is reserved before step 1 (formats/staging_pool.h), so it
// counts in the up-front check: with MemAvailable just above the job's need without it, a
// staging reservation is refused before start-up, naming it and what to do; 0 runs.
TEST(LongSequenceChecks, ExplicitCheckpointStagingCountsInTheUpFrontHostMemoryCheck) {
  const std::string name = fmt::format("slidedp-stagecheck-{}", getpid());
  const std::string dir = fmt::format("/tmp/slidedp-stagecheck-{}", getpid());
  std::system(("rm -rf " + dir).c_str());
  const std::vector<std::string> ckpt = {"--shm-name", name, "--steps", "2", "--checkpoint-dir",
                                         dir, "--checkpoint-every", "1"};
  // The need without staging, as the job prints it ("host memory: the job needs N bytes").
  auto args = ckpt;
  args.insert(args.end(), {"--checkpoint-staging", "0"});
  Result base = wait(start(train({}, args)), 180);
  ASSERT_EQ(base.exit_code, 0) << base.output;
  const std::string key = "host memory: the job needs ";
  const size_t at = base.output.find(key);
  ASSERT_NE(at, std::string::npos) << base.output;
  const uint64_t need = std::stoull(base.output.substr(at + key.size()));
  const std::string avail = "SLIDEDP_TEST_MEM_AVAILABLE=" + std::to_string(need + 4096);
  std::system(("rm -rf " + dir).c_str());
  Result ok = wait(start(train({"-x", avail}, args)), 180);
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
  std::system(("rm -rf " + dir).c_str());
  args = ckpt;
  args.insert(args.end(), {"--checkpoint-staging", "1"});  // 1 GiB: capped at the checkpoint's size
  Result refused = wait(start(train({"-x", avail}, args)), 180);
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_NE(refused.output.find("+ checkpoint staging "), std::string::npos) << refused.output;
  EXPECT_NE(refused.output.find("a smaller --checkpoint-staging (or auto"), std::string::npos)
      << refused.output;
  EXPECT_FALSE(Segment::exists(name));
  std::system(("rm -rf " + dir).c_str());
  // A direct write's bounce buffers (formats::directBounceBytes, 256 MiB) count too: the same
  // job without staging but with --checkpoint-io direct is refused, naming them and the way out.
  args = ckpt;
  args.insert(args.end(), {"--checkpoint-staging", "0", "--checkpoint-io", "direct"});
  Result direct = wait(start(train({"-x", avail}, args)), 180);
  EXPECT_EQ(direct.exit_code, 2) << direct.output;
  EXPECT_NE(direct.output.find("+ checkpoint write buffers 256.00 MiB)"), std::string::npos)
      << direct.output;
  EXPECT_NE(direct.output.find("--checkpoint-io buffered (writes through the page cache"),
            std::string::npos) << direct.output;
  EXPECT_FALSE(Segment::exists(name));
  std::system(("rm -rf " + dir).c_str());
}
