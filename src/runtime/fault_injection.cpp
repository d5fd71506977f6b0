// Fault injection for tests (see fault_injection.h).
#include "runtime/fault_injection.h"

#include <signal.h>
#include <unistd.h>

#include <cstring>

#include "common/errors.h"

namespace slidedp {

namespace {
// Set once by armKillPoint on the main thread before any other thread exists; read-only after,
// from the main thread, a worker's hand-off thread and the leader's checkpoint writer.
std::string g_phase;  // "" = disarmed
int64_t g_step = -1;
}  // namespace

void armKillPoint(const std::string& spec, int world_rank, int world_size, bool is_leader,
                  const KillPointRun& run) {
  g_phase.clear();
  if (spec.empty()) return;
  const size_t at = spec.find('@');
  const size_t colon = spec.find(':', at == std::string::npos ? 0 : at);
  const std::string phase = spec.substr(0, at);
  static const char* const kPhases[] = {"step", "forward", "backward", "handoff", "update",
                                        "checkpoint", "export"};
  bool known = false;
  for (const char* p : kPhases) known |= phase == p;
  if (at == std::string::npos || !known)
    throwUserError("--kill-at '{}': expected PHASE@STEP[:RANK] with PHASE step, forward, backward, "
                   "handoff, update, checkpoint or export", spec);
  int64_t step = 0, rank = 0;
  // the whole text of each field, or the spec is refused ("2x" is not step 2)
  auto integer = [&](const std::string& text, int64_t* out) {
    size_t used = 0;
    try {
      *out = std::stoll(text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (text.empty() || used != text.size())
      throwUserError("--kill-at '{}': STEP and RANK must be integers (PHASE@STEP[:RANK]), got '{}'",
                     spec, text);
  };
  integer(spec.substr(at + 1, colon == std::string::npos ? std::string::npos : colon - at - 1), &step);
  if (colon != std::string::npos) integer(spec.substr(colon + 1), &rank);
  if (step < 1 || step > run.last_step)
    throwUserError("--kill-at '{}': STEP must be a step of the run (1..{}), got {}", spec,
                   run.last_step, step);
  if (phase == "checkpoint") {
    const bool at_end = step == run.last_step && run.checkpoint_at_end;
    const bool periodic = run.checkpoint_every > 0 && step % run.checkpoint_every == 0;
    if (!run.checkpoints || !(at_end || periodic))
      throwUserError("--kill-at '{}': the run writes no checkpoint after step {}.\nHINT: {}", spec,
                     step, !run.checkpoints ? "give --checkpoint-dir"
                                            : "a step --checkpoint-every divides, or the last step");
  }
  if (phase == "export" && (!run.exports || step != run.last_step))
    throwUserError("--kill-at '{}': the run exports {}.\nHINT: {}", spec,
                   run.exports ? fmt::format("after its last step ({}) only", run.last_step) : "nothing",
                   run.exports ? fmt::format("export@{}", run.last_step) : "give --export DIR");
  if (rank < 0 || rank >= world_size)
    throwUserError("--kill-at '{}': rank {} is not in this job, which has {} ranks (0..{})", spec,
                   rank, world_size, world_size - 1);
  if (rank != world_rank) return;
  const bool worker_phase = phase == "forward" || phase == "backward" || phase == "handoff";
  const bool leader_phase = phase == "update" || phase == "checkpoint" || phase == "export";
  if (is_leader && worker_phase)
    throwUserError("--kill-at '{}': rank {} is a leader, which runs no {}; forward, backward and "
                   "handoff are a worker's phases.\nHINT: name a worker's rank after the colon "
                   "(the topology table lists each rank's role), e.g. {}@{}:{}", spec, rank, phase,
                   phase, step, rank + 1 < world_size ? rank + 1 : rank - 1);
  if (!is_leader && leader_phase)
    throwUserError("--kill-at '{}': rank {} is a worker, which runs no {}; update, checkpoint and "
                   "export are a leader's phases.\nHINT: name a leader's rank after the colon "
                   "(rank 0 is node 0's leader), e.g. {}@{}:0", spec, rank, phase, phase, step);
  g_phase = phase;
  g_step = step;
}

void killPoint(const char* phase, int64_t step) {
  if (g_phase.empty() || step != g_step || g_phase != phase) return;
  const char msg[] = "slidedp: --kill-at: this rank kills itself (SIGKILL)\n";
  ssize_t rc = ::write(STDERR_FILENO, msg, sizeof msg - 1);
  (void)rc;
  ::kill(::getpid(), SIGKILL);
}

}  // namespace slidedp
