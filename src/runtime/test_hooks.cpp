#include "runtime/test_hooks.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <thread>

#include "common/log.h"

namespace slidedp {

void testHookSlowStep(int world_rank, int64_t step) {
  const char* v = std::getenv("SLIDEDP_TEST_SLOW_STEP");
  if (v == nullptr || *v == '\0') return;
  int rank = -1;
  long long at = -1;
  double seconds = 0;
  if (std::sscanf(v, "%d:%lld:%lf", &rank, &at, &seconds) != 3 || seconds < 0)
    throw std::runtime_error(std::string("SLIDEDP_TEST_SLOW_STEP=") + v +
                             ": expected RANK:STEP:SECONDS");
  if (rank != world_rank || at != step) return;
  SLIDEDP_LOG_WARN("test hook: rank {} sleeps {:.1f} s in step {} (SLIDEDP_TEST_SLOW_STEP)",
                   world_rank, seconds, step);
  std::this_thread::sleep_for(std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000)));
}

double testHookSlowCheckpointUnit() {
  const char* v = std::getenv("SLIDEDP_TEST_SLOW_CHECKPOINT");
  if (v == nullptr || *v == '\0') return 0;
  double seconds = 0;
  if (std::sscanf(v, "%lf", &seconds) != 1 || seconds < 0)
    throw std::runtime_error(std::string("SLIDEDP_TEST_SLOW_CHECKPOINT=") + v + ": expected SECONDS");
  SLIDEDP_LOG_WARN("test hook: the checkpoint writer sleeps {:.3f} s after each unit "
                   "(SLIDEDP_TEST_SLOW_CHECKPOINT)", seconds);
  return seconds;
}

void testHookSlowStartup(int world_rank) {
  const char* v = std::getenv("SLIDEDP_TEST_SLOW_STARTUP");
  if (v == nullptr || *v == '\0') return;
  double seconds = 0;
  if (std::sscanf(v, "%lf", &seconds) != 1 || seconds < 0)
    throw std::runtime_error(std::string("SLIDEDP_TEST_SLOW_STARTUP=") + v + ": expected SECONDS");
  if (world_rank == 0)
    SLIDEDP_LOG_WARN("test hook: every rank sleeps {:.1f} s in start-up (SLIDEDP_TEST_SLOW_STARTUP)",
                     seconds);
  std::this_thread::sleep_for(std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000)));
}

int testHookInputsOnGpu() {
  const char* v = std::getenv("SLIDEDP_TEST_INPUTS_ON_GPU");
  if (v == nullptr || *v == '\0') return -1;
  char* end = nullptr;
  const long n = std::strtol(v, &end, 10);
  if (*end != '\0' || n < 0)
    throw std::runtime_error(std::string("SLIDEDP_TEST_INPUTS_ON_GPU must be a count >= 0, got ") + v);
  return static_cast<int>(n);
}

uint64_t testHookMemAvailable(uint64_t real) {
  const char* v = std::getenv("SLIDEDP_TEST_MEM_AVAILABLE");
  if (v == nullptr || *v == '\0') return real;
  return std::strtoull(v, nullptr, 10);
}

}  // namespace slidedp
