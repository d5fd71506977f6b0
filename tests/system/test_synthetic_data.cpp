// Synthetic data as benchmarks use it (slidedp_worker --model-config ... --data synthetic[-packed]),
// observed from outside on CPU workers: packed documents train (position ids restart in each
// document, attention is blocked across them, the last token of each has no target) and a
// malformed specification is refused before start-up.
#include <gtest/gtest.h>

#include <cmath>
#include <regex>

#include "common/subprocess.h"

using namespace slidedp::test;

namespace {
std::vector<std::string> job(const std::string& data) {
  const char* src = std::getenv("SLIDEDP_SOURCE_DIR");
  return {SLIDEDP_MPIRUN_BIN, "--oversubscribe", "--bind-to", "none", "-np", "3", SLIDEDP_WORKER_BIN,
          "--device", "cpu", "--model-config",
          std::string(src ? src : ".") + "/tools/configs/kjv-tiny-llama.json", "--data", data,
          "--batch-size", "4", "--seq-len", "96", "--steps", "3", "--leader-threads", "1"};
}
/// The losses of the step lines ("| loss X |").
std::vector<double> losses(const std::string& out) {
  std::vector<double> v;
  static const std::regex re(R"(\| loss ([0-9.]+) \|)");
  for (auto it = std::sregex_iterator(out.begin(), out.end(), re); it != std::sregex_iterator(); ++it)
    v.push_back(std::stod((*it)[1]));
  return v;
}
}  // namespace

TEST(SyntheticData, PackedDocumentsTrain) {
  Result r = wait(start(job("synthetic-packed:10:40")));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto l = losses(r.output);
  ASSERT_EQ(l.size(), 3u) << r.output;
  // Random tokens over a vocabulary of 512: the loss starts near ln 512 = 6.24 and stays finite.
  for (double x : l) EXPECT_TRUE(std::isfinite(x) && x > 4.0 && x < 8.0) << r.output;
}

TEST(SyntheticData, PackedAndPlainDiffer) {
  // Same seed and tokens: the packed rows' documents see less context and lose the targets at
  // their boundaries, so the first step's loss differs from the plain rows'.
  Result a = wait(start(job("synthetic")));
  Result b = wait(start(job("synthetic-packed:10:40")));
  ASSERT_EQ(a.exit_code, 0) << a.output;
  ASSERT_EQ(b.exit_code, 0) << b.output;
  ASSERT_FALSE(losses(a.output).empty());
  ASSERT_FALSE(losses(b.output).empty());
  EXPECT_NE(losses(a.output)[0], losses(b.output)[0]);
}

TEST(SyntheticData, MalformedPackedSpecIsRefusedUpFront) {
  for (const char* bad : {"synthetic-packed:40:10", "synthetic-packed:1:8", "synthetic-packed:8",
                          "synthetic-packed:a:b"}) {
    Result r = wait(start(job(bad)));
    EXPECT_NE(r.exit_code, 0) << bad;
    EXPECT_NE(r.output.find("synthetic-packed:MIN:MAX"), std::string::npos) << bad << "\n" << r.output;
    EXPECT_EQ(r.output.find("step 1/"), std::string::npos) << "trained before refusing " << bad;
  }
}
