// Long sequences are refused up front, before any rank allocates (issue 14): a --seq-len
// beyond what the model config covers (max_position_embeddings, rope scaling), and a job whose
// host RAM (state, staging, pinned offload, per-token buffers) exceeds MemAvailable, with the
// needed and available bytes. Both end every rank with exit status 2 (an agreed
// configuration error) before the leader creates the segment: the "host memory:" line is
// printed right before it, and the refused-sequence case never reaches that line.
#include <gtest/gtest.h>

#include "common/subprocess.h"
#include "shm/segment.h"

using namespace slidedp::test;
using slidedp::shm::Segment;

namespace {
std::vector<std::string> train(std::vector<std::string> mpirun_extra, std::vector<std::string> extra) {
  std::vector<std::string> a = {SLIDEDP_MPIRUN_BIN, "--oversubscribe", "--bind-to", "none"};
  a.insert(a.end(), mpirun_extra.begin(), mpirun_extra.end());
  for (const char* s : {"-np", "3", SLIDEDP_WORKER_BIN, "--device", "cpu", "--batch-size", "2",
                        "--steps", "1", "--model"})
    a.push_back(s);
  a.push_back(stories());
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
  EXPECT_NE(r.output.find("host state and gradient staging"), std::string::npos) << r.output;
  EXPECT_FALSE(Segment::exists(name));
  // The same job with the real MemAvailable runs.
  Result ok = wait(start(train({}, {"--seq-len", "64", "--shm-name", name})), 180);
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
  EXPECT_NE(ok.output.find("host memory: the job needs"), std::string::npos) << ok.output;
}
