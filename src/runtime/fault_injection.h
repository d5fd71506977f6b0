// Fault injection for the test suite (slidedp_worker --kill-at): a rank SIGKILLs itself when it
// reaches a named phase of a given step, as the OOM killer or a node failure would, so tests can
// check what every phase leaves behind (all ranks gone, no segment, the last complete
// checkpoint intact). Disarmed (the default), killPoint() is one load and a branch.
#pragma once

#include <cstdint>
#include <string>

namespace slidedp {

/// Arms the hook from "PHASE@STEP" or "PHASE@STEP:RANK" (RANK: world rank, default 0), for
/// this process of world rank `world_rank`. PHASE: step (start of the step, every role),
/// update (leader: half of the step's chunks updated, workers mid-backward), checkpoint
/// (leader: the step's checkpoint file written, not yet renamed into place) or export (leader:
/// about to write the export). "" disarms. Throws UserError on a malformed spec.
void armKillPoint(const std::string& spec, int world_rank);

/// SIGKILLs this process if the hook is armed for (`phase`, `step`) on this rank.
void killPoint(const char* phase, int64_t step);

}  // namespace slidedp
