// Where the threads a rank starts beside its OpenMP team may run.
//
// The one fact this file exists for: with OMP_PROC_BIND/OMP_PLACES set (launcher/slidedp-run
// sets OMP_PROC_BIND=close OMP_PLACES=cores for every rank), libgomp binds the initial thread to
// the first place, one core, before main() runs, and a std::thread inherits the CPU mask of the
// thread that creates it. So every helper thread the main thread starts (the checkpoint writer
// and its I/O threads, the staging pool's page toucher, copy threads, the worker's hand-off
// thread) would share that one core with the team's thread 0, and a pass split statically over
// the team waits for its slowest thread. On the 1xH200 machine (4B, 14 leader cores) that is
// what the streamed checkpoint's copies ran into: 8 copy threads at 4.4-5.3 GB/s, an AdamW
// update of 7.6 s instead of 1.3 s beside them, and steps 1-3 slowed 20-30 s by the page
// toucher (tools/bench/results/2026-12-02-h200x1-qwen3-4b/README.md).
#pragma once

#include <string>

namespace slidedp {

/// Widens the calling thread's CPU mask to every CPU of this process's OpenMP places (the
/// cores the launcher gave the rank), so it runs wherever the team leaves room instead of on
/// the initial thread's core. Call first thing in a thread that the (bound) main thread
/// started; threads it starts afterwards inherit the wider mask. No places (OMP_PLACES unset,
/// nothing bound): leaves the mask as it is. Returns false when the mask could not be set (the
/// thread keeps its mask; nothing else changes). Any thread; no OpenMP region is started.
bool useAllRankCores();

/// The calling thread under SCHED_IDLE (Linux: per thread; threads it starts inherit it): it runs
/// only on a core nothing else wants, and a team thread waking on that core preempts it at
/// once. Background threads share the rank's cores with its OpenMP team, a static split over
/// bound threads, so a core taken from one thread of the team for even a time slice makes the
/// whole pass late, and the leader runs ~1000 passes a step at 4B. Nice 19 was not enough: with
/// the checkpoint writer's threads at nice 19 on every leader core, every step while the 4B
/// checkpoint was written took ~0.4 s more (2.2-2.6 s against 1.8-1.9 s; 1xH200, 0e2abbb). The
/// leader idles through every forward and between chunks, so an idle-class thread still
/// progresses. Where SCHED_IDLE is refused: nice 19; where that is refused too: as it is.
void lowerThreadPriority();

/// CPUs this rank may run its OpenMP team on: every CPU of its OpenMP places where OMP_PLACES is
/// set (the launcher's cores for the rank, whatever the calling thread's own mask: libgomp binds
/// the initial thread to one of them), else the calling thread's affinity mask (mpirun's binding,
/// numactl's), else the online CPUs. The leader's CPU check and the planner's core count use it:
/// the initial thread's own mask read 1 of 16 CPUs under the launcher, and the leader warned of a
/// one-core binding that was not there (1xH200 logs of 2026-12-05). Any thread.
int rankCpuCount();

/// CPUs this process's cgroup may use: cgroup v2's cpuset.cpus.effective (v1: cpuset.cpus) of
/// its cgroup, the set a container or a Slurm allocation gives the node's ranks, which mpirun's
/// per-rank binding does not narrow; the online CPUs where neither is readable. Any thread.
int nodeCpuCount();
/// The count of a Linux CPU list ("0-3,8,10-11" -> 7); 0 when it does not parse. Pure.
int cpuListCount(const std::string& list);

/// The leader runs every AdamW update on the CPUs it may use (its affinity). Started bare under
/// mpirun, which binds each rank to one core by default when it starts two ranks or fewer, a
/// 1-GPU job's leader gets one core: on 1xH200 the 4B default job ran 7 740 tok/s with a 3.45 s
/// update against 19 585 tok/s through launcher/slidedp-run (2026-12-04). Returns a warning with
/// the remedy when the leader may use fewer than half of the node's CPUs (`online`: nodeCpuCount)
/// beyond one per worker (2 `allowed` < `online` - `workers`), else "". Pure; train_job.cpp's
/// leader logs it.
std::string leaderCpuWarning(int allowed, int online, int workers);

}  // namespace slidedp
