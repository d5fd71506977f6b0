// Fault injection for the test suite (slidedp_worker --kill-at): a rank SIGKILLs itself when it
// reaches a named phase of a given step, as the OOM killer or a node failure would, so tests can
// check what every phase leaves behind (all ranks gone, no segment, the last complete
// checkpoint intact). Disarmed (the default), killPoint() is one load and a branch.
#pragma once

#include <cstdint>
#include <limits>
#include <string>

namespace slidedp {

/// Arms the hook from "PHASE@STEP" or "PHASE@STEP:RANK" (RANK: world rank, default 0), for
/// this process of world rank `world_rank`. PHASE, and the role that reaches it:
///   step        every role: the start of the step
///   forward     worker: half of the step's forward units done (main thread)
///   backward    worker: half of the step's backward units done (main thread)
///   handoff     worker: the hand-off thread, half of a mid-model unit's chunks published
///   update      leader: half of the step's chunks updated
///   checkpoint  leader: the checkpoint writer thread, half of the step's checkpoint's units
///               written (streamed or blocking; not yet fsync'ed or renamed into place)
///   export      leader: about to write the export
/// What the run will do, for the checks below (the defaults check nothing of it).
struct KillPointRun {
  int64_t last_step = std::numeric_limits<int64_t>::max();  // the run's last step (a route sweep: steps x variants)
  bool checkpoints = true;        // a --checkpoint-dir is given
  int64_t checkpoint_every = 0;   // --checkpoint-every (0: at the end only)
  bool checkpoint_at_end = true;
  bool exports = true;            // an --export is given
};

/// "" disarms. Call once, before the process starts threads. Throws UserError on a malformed
/// spec (trailing characters included), a STEP below 1 or after `run.last_step`, a RANK outside
/// [0, world_size), a checkpoint phase at a step with no checkpoint, an export phase without an
/// export or before the last step, and (on the named rank, which alone knows its role:
/// `is_leader`) a phase that rank never reaches, e.g. forward on a leader; every rank calls it
/// and the job agrees on the error (agreeOrThrow), so a kill that could never fire is refused
/// instead of the run going on untouched.
void armKillPoint(const std::string& spec, int world_rank, int world_size, bool is_leader,
                  const KillPointRun& run = {});

/// SIGKILLs this process if the hook is armed for (`phase`, `step`) on this rank. Any thread.
void killPoint(const char* phase, int64_t step);

}  // namespace slidedp
