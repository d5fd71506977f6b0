// Test-only fault injection through the environment, for the system tests of liveness
// (tests/system/test_liveness.cpp). Nothing here runs unless its variable is set; a job
// never sets it.
//
//   SLIDEDP_TEST_SLOW_STEP=RANK:STEP:SECONDS
//       world rank RANK sleeps SECONDS on its main thread at the start of step STEP, while
//       its watchdog keeps heartbeating: a legitimately long step (a long GPU kernel, a long
//       CPU update) as its peers see it.
//   SLIDEDP_TEST_SLOW_CHECKPOINT=SECONDS
//       the leader's checkpoint writer sleeps SECONDS after each unit it has written: a slow
//       disk, so a test can see what a streamed checkpoint overlaps and what waits for it.
//   SLIDEDP_TEST_SLOW_STARTUP=SECONDS
//       every rank of a training job sleeps SECONDS where it reads the data: a long start-up
//       (a large corpus, a large model), so a test can stop a job before step 1.
//   SLIDEDP_TEST_MEM_AVAILABLE=BYTES
//       the host RAM the up-front memory check (runtime/host_memory.h) takes as available.
//   SLIDEDP_TEST_INPUTS_ON_GPU=N
//       GPU workers place as if their budget held exactly N recomputed layers' inputs beside
//       the rest (worker/input_placement.h): the first L - N go to pinned host memory, on a
//       model too small for any budget to force it.
#pragma once

#include <cstdint>

namespace slidedp {

/// Applies SLIDEDP_TEST_SLOW_STEP for (world_rank, step). Main thread, every rank, once per
/// step. Throws std::runtime_error when the variable is set but malformed.
void testHookSlowStep(int world_rank, int64_t step);

/// SLIDEDP_TEST_SLOW_CHECKPOINT in seconds (0 when unset). Throws std::runtime_error when the
/// variable is set but malformed.
double testHookSlowCheckpointUnit();

/// Applies SLIDEDP_TEST_SLOW_STARTUP (main thread, every rank, once). Throws
/// std::runtime_error when the variable is set but malformed.
void testHookSlowStartup(int world_rank);

/// SLIDEDP_TEST_MEM_AVAILABLE when set, else `real`.
uint64_t testHookMemAvailable(uint64_t real);

/// SLIDEDP_TEST_INPUTS_ON_GPU when set (>= 0), else -1. Throws std::runtime_error when the
/// variable is set but malformed.
int testHookInputsOnGpu();

}  // namespace slidedp
