// runtime/accumulation_passes.h: the passes of --gradient-accumulation-steps N over a worker's
// rows, which the worker runs, the step-time model prices and the host estimate pins; and
// runtime/accumulator_fit.h, the start-up check that their fp32 accumulators fit the GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "runtime/accumulation_passes.h"
#include "runtime/accumulator_fit.h"

using slidedp::largestPassRows;
using slidedp::passRowRange;
using slidedp::passSizes;

// Every row in exactly one pass, the passes in order, sizes within one row of each other, the
// largest equal to largestPassRows and the distinct sizes equal to passSizes, for 1..40 rows and
// every N the rows allow.
TEST(AccumulationPasses, ConsecutivePassesCoverEveryRowOnce) {
  for (int64_t rows = 1; rows <= 40; ++rows) {
    for (int64_t N = 1; N <= rows; ++N) {
      int64_t next = 0, smallest = rows, largest = 0;
      std::set<int64_t> sizes;
      for (int64_t q = 0; q < N; ++q) {
        const slidedp::PassRows p = passRowRange(rows, N, q);
        ASSERT_EQ(p.begin, next) << rows << " rows, N " << N << ", pass " << q;
        ASSERT_GE(p.rows(), 1) << rows << " rows, N " << N << ", pass " << q;
        next = p.end;
        smallest = std::min(smallest, p.rows());
        largest = std::max(largest, p.rows());
        sizes.insert(p.rows());
      }
      EXPECT_EQ(next, rows) << rows << " rows, N " << N;
      EXPECT_LE(largest - smallest, 1) << rows << " rows, N " << N;
      EXPECT_EQ(largest, largestPassRows(rows, N)) << rows << " rows, N " << N;
      const std::vector<int64_t> listed = passSizes(rows, N);
      EXPECT_EQ(std::set<int64_t>(listed.begin(), listed.end()), sizes) << rows << " rows, N " << N;
      EXPECT_EQ(listed.front(), largest) << "largest first";
    }
  }
}

// Hand-worked: 5 rows in 2 passes are rows [0, 2) and [2, 5); 12 in 4 are 3 each.
TEST(AccumulationPasses, HandWorkedSplits) {
  EXPECT_EQ(passRowRange(5, 2, 0).end, 2);
  EXPECT_EQ(passRowRange(5, 2, 1).begin, 2);
  EXPECT_EQ(passRowRange(5, 2, 1).end, 5);
  EXPECT_EQ(largestPassRows(5, 2), 3);
  EXPECT_EQ(passSizes(5, 2), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(passSizes(12, 4), (std::vector<int64_t>{3}));
  EXPECT_EQ(passRowRange(12, 4, 3).begin, 9);
}

// runtime/accumulator_fit.h: one pass never needs accumulators; several are refused exactly when
// the accumulators and the window exceed the limit, with the sizes, the limit named and a hint.
TEST(AccumulatorFit, RefusedOnlyAboveTheLimitWithSizesAndHint) {
  const int64_t gib = int64_t{1} << 30;
  // Qwen3-4B-like: 4.02 G parameters -> 16.1 GB of fp32 accumulators, a 1.2 GiB window.
  const int64_t acc = 4 * int64_t{4022468096}, win = gib * 6 / 5;
  const std::string gpu = "the GPU's memory";
  EXPECT_EQ(slidedp::accumulatorsOverBudget(1, acc, win, 10 * gib, gpu), "");
  EXPECT_EQ(slidedp::accumulatorsOverBudget(2, acc, win, acc + win, gpu), "");
  EXPECT_EQ(slidedp::accumulatorsOverBudget(2, acc, win, 80 * gib, gpu), "");
  EXPECT_NE(slidedp::accumulatorsOverBudget(2, acc, win, acc + win - 1, gpu), "");
  const std::string tight = slidedp::accumulatorsOverBudget(4, acc, win, 10 * gib, "its --gpu-memory-budget");
  for (const char* part : {"--gradient-accumulation-steps 4", "15.0 GiB of accumulators", "window's 1.2 GiB",
                           "more than its --gpu-memory-budget, 10.0 GiB", "HINT: --gradient-accumulation-steps 1",
                           "without +gaN", "--micro-batch-rows"})
    EXPECT_NE(tight.find(part), std::string::npos) << "missing '" << part << "' in: " << tight;
}

// The limit: a given --gpu-memory-budget only under --activations auto (the policy that honours
// it), else the GPU's memory, also for the default budget (its 3 GiB margin is the policy's).
TEST(AccumulatorFit, LimitIsTheGivenBudgetUnderAutoElseTheGpu) {
  const int64_t gib = int64_t{1} << 30;
  const slidedp::AccumulatorLimit given = slidedp::accumulatorLimit(true, true, 14 * gib, 79 * gib);
  EXPECT_EQ(given.bytes, 14 * gib);
  EXPECT_EQ(given.what, "its --gpu-memory-budget");
  for (const auto& [budget_given, autopolicy] : {std::pair{true, false}, {false, true}, {false, false}}) {
    const slidedp::AccumulatorLimit l = slidedp::accumulatorLimit(budget_given, autopolicy, 76 * gib, 79 * gib);
    EXPECT_EQ(l.bytes, 79 * gib) << budget_given << autopolicy;
    EXPECT_EQ(l.what, "the GPU's memory") << budget_given << autopolicy;
  }
  // the default budget (GPU less 3 GiB) no longer refuses accumulators that fit the GPU itself
  const int64_t acc = 77 * gib, win = gib;
  const slidedp::AccumulatorLimit d = slidedp::accumulatorLimit(false, true, 76 * gib, 79 * gib);
  EXPECT_EQ(slidedp::accumulatorsOverBudget(2, acc, win, d.bytes, d.what), "");
}
