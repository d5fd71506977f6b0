// runtime/accumulation_passes.h: the passes of --gradient-accumulation-steps N over a worker's
// rows, which the worker runs, the step-time model prices and the host estimate pins.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "runtime/accumulation_passes.h"

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
