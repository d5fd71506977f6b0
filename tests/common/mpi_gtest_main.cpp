// main() of the multi-process GoogleTest binaries run under mpirun (nccl contrib tests,
// Horovod CI style): initialises MPI, silences the result printer on ranks other than 0,
// agrees on pass/fail across ranks (a test failing on any rank fails the binary on every
// rank), and aborts the job with the rank and test name when one test runs longer than
// SLIDEDP_TEST_TIMEOUT seconds (default 120), so a hang is named instead of waited out.
#include <gtest/gtest.h>
#include <mpi.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>

namespace {

std::mutex g_mu;
std::string g_current;
std::chrono::steady_clock::time_point g_started;
std::atomic<bool> g_done{false};

class TestClock : public testing::EmptyTestEventListener {
  void OnTestStart(const testing::TestInfo& info) override {
    std::lock_guard<std::mutex> lock(g_mu);
    g_current = std::string(info.test_suite_name()) + "." + info.name();
    g_started = std::chrono::steady_clock::now();
  }
  void OnTestEnd(const testing::TestInfo&) override {
    std::lock_guard<std::mutex> lock(g_mu);
    g_current.clear();
  }
};

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  testing::InitGoogleTest(&argc, argv);
  auto& listeners = testing::UnitTest::GetInstance()->listeners();
  if (rank != 0) delete listeners.Release(listeners.default_result_printer());
  listeners.Append(new TestClock);

  const char* t = std::getenv("SLIDEDP_TEST_TIMEOUT");
  const double timeout_s = t ? std::atof(t) : 120.0;
  std::thread watchdog([&] {
    while (!g_done.load()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      std::lock_guard<std::mutex> lock(g_mu);
      if (!g_current.empty() &&
          std::chrono::duration<double>(std::chrono::steady_clock::now() - g_started).count() >
              timeout_s) {
        std::fprintf(stderr, "TIMEOUT: rank %d of %d hung in %s for more than %.0f s\n", rank,
                     size, g_current.c_str(), timeout_s);
        std::fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, 3);
      }
    }
  });

  int failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
  g_done = true;
  watchdog.join();
  int any_failed = 0;
  MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (failed) std::fprintf(stderr, "rank %d of %d: tests FAILED\n", rank, size);
  if (rank == 0)
    std::printf("[mpi] %d ranks: %s\n", size, any_failed ? "FAILED on some rank" : "passed on every rank");
  MPI_Finalize();
  return any_failed;
}
