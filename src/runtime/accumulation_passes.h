// How a worker's rows split into accumulation steps (--gradient-accumulation-steps N): N
// forward + backward passes over consecutive parts of the rows. The worker runs them
// (worker.cpp step()), the step-time model prices them (planner/cost_model.cpp) and the host
// estimate pins one pass's inputs (runtime/host_memory.cpp): all three from these functions.
#pragma once

#include <cstdint>
#include <vector>

namespace slidedp {

/// Rows [begin, end) of one pass, within a worker's rows.
struct PassRows {
  int64_t begin = 0;
  int64_t end = 0;
  int64_t rows() const { return end - begin; }
};

/// Pass q (0-based) of N over `rows` rows: [q rows / N, (q + 1) rows / N) in integer division,
/// so the passes are consecutive, cover every row once and differ by at most one row (the
/// larger ones last). Needs 1 <= N <= rows and 0 <= q < N (callers check N against the rows
/// first, with the flag's message). Pure.
inline PassRows passRowRange(int64_t rows, int64_t N, int64_t q) {
  return {q * rows / N, (q + 1) * rows / N};
}

/// The largest pass's rows, ceil(rows / N): what one pass's activations and inputs are sized
/// for. Same preconditions. Pure.
inline int64_t largestPassRows(int64_t rows, int64_t N) { return (rows + N - 1) / N; }

/// The distinct pass sizes, largest first: {ceil(rows / N)}, and floor(rows / N) too when N does
/// not divide the rows. Same preconditions. Pure.
inline std::vector<int64_t> passSizes(int64_t rows, int64_t N) {
  std::vector<int64_t> sizes = {largestPassRows(rows, N)};
  if (rows % N != 0) sizes.push_back(rows / N);
  return sizes;
}

}  // namespace slidedp
