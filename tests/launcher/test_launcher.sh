#!/usr/bin/env bash
# test_launcher.sh: checks launcher/slidedp-run's placement through --dry-run lines (nothing is
# started): this machine's default, CPU workers, a fake 2-socket 4-GPU box described by
# SLIDEDP_TOPOLOGY_FILE (workers on their GPU's node, leader on the remaining cores with
# interleaved memory, NCCL_NVLS_ENABLE=0), a missing numactl, and bad inputs that must fail
# with a clear message. The real run through the launcher is tested by tools/gpu-check.sh and
# the system tests.
#
#   tests/launcher/test_launcher.sh [SLIDEDP_WORKER binary]     (CTest: launcher_dry_run)
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
RUN=$ROOT/launcher/slidedp-run
FAKE=$HERE/topo-2socket-4gpu.txt
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# a stand-in binary: --dry-run only checks that it exists and is executable
BIN=${1:-$TMP/slidedp_worker}
if [ ! -x "$BIN" ]; then
  printf '#!/bin/sh\nexit 0\n' > "$BIN" && chmod +x "$BIN"
fi
export SLIDEDP_WORKER=$BIN
unset SLIDEDP_TOPOLOGY_FILE SLIDEDP_NUMACTL SLIDEDP_WORKER_THREADS CUDA_VISIBLE_DEVICES
# no batch allocation around the checks (the launcher takes the nodes from one)
unset SLURM_JOB_ID SLURM_JOBID SLURM_JOB_NUM_NODES PBS_NODEFILE PBS_JOBID LSB_JOBID LSB_DJOB_HOSTFILE \
  PE_HOSTFILE FLUX_JOB_ID OMPI_MCA_orte_default_hostfile OMPI_MCA_prte_default_hostfile \
  PRTE_MCA_prte_default_hostfile
FAILS=0
CHECKS=0
fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }
pass() { CHECKS=$((CHECKS + 1)); }

# run NAME ARGS...: runs the launcher, keeps stdout+stderr in $OUT, the exit status in $RC and
# the printed mpirun line (the line after 'running:', or 'would run (--dry-run):') in $LINE
run() {
  local name=$1; shift
  OUT=$("$@" 2>&1); RC=$?
  LINE=$(printf '%s\n' "$OUT" | sed -n -E '/(running|would run \(--dry-run\)):$/{n;s/^  //;p}')
  echo "--- $name (exit $RC)"; printf '%s\n' "$OUT" | sed 's/^/    /'
}
expect_rc() { if [ "$RC" -eq "$1" ]; then pass; else fail "$2: exit $RC, expected $1"; fi; }
has() {  # has WHAT TEXT DESCRIPTION
  if [[ "$2" == *"$1"* ]]; then pass; else fail "$3: '$1' missing"; fi
}
hasnt() {
  if [[ "$2" != *"$1"* ]]; then pass; else fail "$3: '$1' present"; fi
}
# contexts: the app contexts of $LINE (one per rank), one per line, the global part dropped
contexts() { printf '%s\n' "$LINE" | sed 's/ : /\n/g' | sed '1s/^.* -np 1 env /-np 1 env /'; }
ctx() { contexts | sed -n "$(( $1 + 1 ))p"; }

# 1. the default on this machine: all visible GPUs, or 2 CPU workers
if command -v nvidia-smi >/dev/null && n=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU') && [ "$n" -gt 0 ]; then
  G=$n; DEV=cuda
else
  G=2; DEV=cpu
fi
run default "$RUN" --dry-run
expect_rc 0 default
has "mpirun --bind-to none" "$LINE" default
# the job's environment in every app context (Open MPI's -x before the first one reaches only it)
[ "$(contexts | grep -c -- "-np 1 env NCCL_NVLS_ENABLE=0 ")" -eq $((1 + G)) ] && pass \
  || fail "default: not every rank's env sets NCCL_NVLS_ENABLE=0"
hasnt " -x " "$LINE" "default (no -x: it would reach the first app context only)"
[ "$(contexts | wc -l)" -eq $((1 + G)) ] && pass || fail "default: $(contexts | wc -l) ranks, expected $((1 + G))"
[ "$(contexts | grep -c -- "--device $DEV")" -eq $((1 + G)) ] && pass || fail "default: not every rank has --device $DEV"
[ "$(id -u)" -eq 0 ] && has "--allow-run-as-root" "$LINE" "default as root"
if [ $((1 + G)) -gt "$(nproc)" ]; then has "--oversubscribe" "$LINE" default; else hasnt "--oversubscribe" "$LINE" default; fi
has "OMP_PROC_BIND=close OMP_PLACES=cores" "$(ctx 0)" "default leader"

# 2. --cpu-workers 3, worker flags after --, a CONFIG file
printf '{}\n' > "$TMP/job.json"
run cpu3 "$RUN" --dry-run --cpu-workers 3 "$TMP/job.json" -- --steps 2 --layers 3
expect_rc 0 cpu3
[ "$(contexts | wc -l)" -eq 4 ] && pass || fail "cpu3: $(contexts | wc -l) ranks, expected 4"
[ "$(contexts | grep -c -- "$BIN --device cpu --config $TMP/job.json --steps 2 --layers 3\$")" -eq 4 ] \
  && pass || fail "cpu3: every rank must end with '$BIN --device cpu --config $TMP/job.json --steps 2 --layers 3'"
if [ 4 -gt "$(nproc)" ]; then has "--oversubscribe" "$LINE" cpu3; else hasnt "--oversubscribe" "$LINE" cpu3; fi
hasnt "CUDA_VISIBLE_DEVICES" "$LINE" cpu3
run "cpu3 --cpu-workers=3" "$RUN" --dry-run --cpu-workers=3
expect_rc 0 "cpu3 (=)"
# --cpu-workers wins over an inherited CUDA_VISIBLE_DEVICES (the GPU default only reads it)
CUDA_VISIBLE_DEVICES=0 run "cpu2 with CUDA_VISIBLE_DEVICES" "$RUN" --dry-run --cpu-workers 2
[ "$(contexts | wc -l)" -eq 3 ] && pass || fail "cpu2 with CUDA_VISIBLE_DEVICES: $(contexts | wc -l) ranks, expected 3"

# 3. the fake 2-socket 4-GPU box: the exact line
export SLIDEDP_TOPOLOGY_FILE=$FAKE
# the line names numactl: this machine's, or a stand-in where it is not installed
if command -v numactl >/dev/null; then
  NUMA=$(command -v numactl)
else
  NUMA=$TMP/numactl; printf '#!/bin/sh\nexit 0\n' > "$NUMA"; chmod +x "$NUMA"
fi
export SLIDEDP_NUMACTL=$NUMA
run fake4 "$RUN" --dry-run --gpus 0,1,2,3
expect_rc 0 fake4
ROOTFLAG=""; [ "$(id -u)" -eq 0 ] && ROOTFLAG=" --allow-run-as-root"
JOBENV="NCCL_NVLS_ENABLE=0 CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=0,1,2,3 PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"
ENVS="env $JOBENV OMP_NUM_THREADS=4 OMP_PROC_BIND=close OMP_PLACES=cores $NUMA"
WANT="mpirun --bind-to none$ROOTFLAG\
 -np 1 env $JOBENV OMP_NUM_THREADS=48 OMP_PROC_BIND=close OMP_PLACES=cores $NUMA --physcpubind=0-23,32-55 --interleave=0,1 $BIN --device cuda\
 : -np 1 $ENVS --physcpubind=24-27 --preferred=0 $BIN --device cuda\
 : -np 1 $ENVS --physcpubind=28-31 --preferred=0 $BIN --device cuda\
 : -np 1 $ENVS --physcpubind=56-59 --preferred=1 $BIN --device cuda\
 : -np 1 $ENVS --physcpubind=60-63 --preferred=1 $BIN --device cuda"
if [ "$LINE" = "$WANT" ]; then pass; else fail "fake4: line differs"; echo "  want: $WANT"; echo "  got:  $LINE"; fi
# the same, by property (so a failure says which property broke)
has "--physcpubind=0-23,32-55 --interleave=0,1" "$(ctx 0)" "fake4 leader: remaining cores, interleaved"
has "OMP_NUM_THREADS=48" "$(ctx 0)" "fake4 leader threads"
for i in 0 1; do has "--preferred=0" "$(ctx $((i + 1)))" "fake4 GPU $i on node 0"; done
for i in 2 3; do has "--preferred=1" "$(ctx $((i + 1)))" "fake4 GPU $i on node 1"; done
[ "$(contexts | grep -c -- "-np 1 env $JOBENV ")" -eq 5 ] && pass || fail "fake4: not every rank's env is the job's"
hasnt "--oversubscribe" "$LINE" "fake4 (64 cores)"
# default on the fake box = all its GPUs
run fake-default "$RUN" --dry-run
[ "$LINE" = "$WANT" ] && pass || fail "fake default: expected the 4-GPU line"
# a subset: GPUs 2,3 both on node 1; the leader keeps node 0 whole
run fake23 "$RUN" --dry-run --gpus 2,3
expect_rc 0 fake23
for i in 1 2; do has "CUDA_VISIBLE_DEVICES=2,3 " "$(ctx $i)" "fake23 worker $i sees GPUs 2,3"; done
has "--physcpubind=0-55 --interleave=0,1" "$(ctx 0)" "fake23 leader"
has "--physcpubind=56-59 --preferred=1" "$(ctx 1)" "fake23 GPU 2"
has "--physcpubind=60-63 --preferred=1" "$(ctx 2)" "fake23 GPU 3"
# --worker-threads
run fake-wt2 "$RUN" --dry-run --gpus 0 --worker-threads 2
has "--physcpubind=30-31 --preferred=0" "$(ctx 1)" "fake --worker-threads 2"
has "OMP_NUM_THREADS=62" "$(ctx 0)" "fake --worker-threads 2 leader"

# 4. a one-node box with a GPU whose NUMA node is unknown, and a small node that is shared
cat > "$TMP/topo-small.txt" <<'EOF'
cores: 0-3
numa_nodes: 0:0-3
gpu 0 numa 0
gpu 1 numa -1
EOF
SLIDEDP_TOPOLOGY_FILE=$TMP/topo-small.txt run small "$RUN" --dry-run --gpus 0,1
expect_rc 0 small
has "--physcpubind=0-1 --localalloc" "$(ctx 0)" "small: leader local on one node"
has "--physcpubind=2-3 --preferred=0" "$(ctx 1)" "small: GPU 0 gets half the node at most"
hasnt "numactl" "$(ctx 2)" "small: GPU 1 (NUMA node unknown) unpinned"
has "NUMA node unknown" "$OUT" "small: says why GPU 1 is unpinned"
SLIDEDP_TOPOLOGY_FILE=$TMP/topo-small.txt run small-cpu "$RUN" --dry-run --cpu-workers 3
has "--cpunodebind=0" "$(ctx 1)" "small cpu3: workers share the node"

# 5. numactl missing: a warning, ranks unpinned, still exit 0
SLIDEDP_NUMACTL=/nonexistent/numactl run no-numactl "$RUN" --dry-run --gpus 0,1
expect_rc 0 no-numactl
has "numactl not found" "$OUT" no-numactl
hasnt "numactl --" "$LINE" no-numactl
[ "$(contexts | grep -c -- "NCCL_NVLS_ENABLE=0")" -eq 3 ] && pass || fail "no-numactl: not every rank sets NCCL_NVLS_ENABLE=0"

bad() {  # bad NAME EXPECTED-MESSAGE ARGS...
  local name=$1 msg=$2; shift 2
  run "$name" "$@"
  [ "$RC" -ne 0 ] && pass || fail "$name: exit 0, expected an error"
  has "$msg" "$OUT" "$name message"
  hasnt "Traceback" "$OUT" "$name (no Python traceback)"
}

# 6. probing through nvidia-smi (a stand-in on PATH): the NUMA Affinity column of
#    `nvidia-smi topo -m` places the workers; N/A there (and no sysfs/hwloc answer for a bus id
#    that does not exist) leaves them unpinned with a note
mkdir -p "$TMP/bin"
cat > "$TMP/bin/nvidia-smi" <<'EOF2'
#!/bin/sh
case "$*" in
  -L) echo "GPU 0: NVIDIA H200 (UUID: GPU-0)"; echo "GPU 1: NVIDIA H200 (UUID: GPU-1)" ;;
  *pci.bus_id*) echo "00000000:99:00.0"; echo "00000000:9A:00.0" ;;
  "topo -m")
    printf '\tGPU0\tGPU1\tNIC0\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n'
    printf 'GPU0\t X \tNV18\tSYS\t0-1\t%s\t\tN/A\n' "$FAKE_NUMA"
    printf 'GPU1\tNV18\t X \tSYS\t0-1\t%s\t\tN/A\n' "$FAKE_NUMA"
    printf 'NIC0\tSYS\tSYS\t X \n\nLegend:\n\n  X    = Self\n' ;;
  *) exit 1 ;;
esac
EOF2
chmod +x "$TMP/bin/nvidia-smi"
SAVED_PATH=$PATH
unset SLIDEDP_TOPOLOGY_FILE
PATH=$TMP/bin:$PATH
FIRST=$(numactl -H 2>/dev/null | sed -n 's/^node \([0-9]*\) cpus: [0-9].*/\1/p' | head -1)
export FAKE_NUMA=${FIRST:-0}
run smi-topo "$RUN" --dry-run
expect_rc 0 smi-topo
has "CUDA_VISIBLE_DEVICES=0,1" "$LINE" "smi-topo: default = the 2 GPUs nvidia-smi lists"
has "--preferred=$FAKE_NUMA" "$(ctx 1)" "smi-topo: GPU 0 on node $FAKE_NUMA"
has "nvidia-smi topo -m" "$OUT" "smi-topo: says where the NUMA node came from"
bad "smi: gpus 2 of 2" "GPU 2 does not exist" "$RUN" --dry-run --gpus 0,2
FAKE_NUMA=N/A run smi-na "$RUN" --dry-run --gpus 1
expect_rc 0 smi-na
has "NUMA node unknown" "$OUT" "smi-na: note"
hasnt "numactl --" "$(ctx 1)" "smi-na: worker unpinned"
PATH=$SAVED_PATH
unset FAKE_NUMA
export SLIDEDP_TOPOLOGY_FILE=$FAKE

# 8. several nodes (issue 17): mpirun with a hostfile, 1 + G ranks per node, each rank running
#    the launcher with --exec-rank to place itself on its own node; or srun under Slurm
printf 'nodeA slots=5\nnodeB slots=5\n' > "$TMP/hosts"
SLIDEDP_TOPOLOGY_FILE=$FAKE run nodes2 "$RUN" --dry-run --nodes 2 --hostfile "$TMP/hosts" --gpus 0,1,2,3 -- --steps 2
expect_rc 0 nodes2
has "--hostfile $TMP/hosts --map-by ppr:5:node -np 10" "$LINE" nodes2
has "-x NCCL_NVLS_ENABLE=0" "$LINE" nodes2
has "slidedp-run --exec-rank --worker-threads 4 --gpus 0,1,2,3 -- --steps 2" "$LINE" nodes2
SLIDEDP_TOPOLOGY_FILE=$FAKE run srun2 "$RUN" --dry-run --nodes 2 --srun --cpu-workers 2
expect_rc 0 srun2
has "srun --nodes=2 --ntasks-per-node=3 --cpu-bind=none --kill-on-bad-exit=1" "$LINE" srun2
has "--exec-rank --worker-threads 4 --cpu-workers 2 --" "$LINE" srun2
SLURM_JOB_NUM_NODES=3 SLIDEDP_TOPOLOGY_FILE=$FAKE run slurm3 "$RUN" --dry-run --gpus 0,1
has "--map-by ppr:3:node -np 9" "$LINE" "slurm3 (SLURM_JOB_NUM_NODES)"
# --plan prices the node count (it is the launcher's flag, not the worker's: passed on)
SLIDEDP_PLAN=$BIN SLIDEDP_TOPOLOGY_FILE=$FAKE run plan-nodes2 "$RUN" --dry-run --plan --nodes 2 --gpus 0,1 -- --network-gbps 400
expect_rc 0 plan-nodes2
has "--gpus 2 --leader-cores 56 --nodes 2 --device cuda --network-gbps 400" "$OUT" "plan-nodes2: --nodes passed to slidedp_plan"
# virtual nodes are priced as the nodes they stand for: 6 ranks in groups of 3 = 2 x 2 workers
SLIDEDP_PLAN=$BIN run plan-vnodes "$RUN" --dry-run --plan --cpu-workers 5 -- --virtual-node-size 3 --network-gbps 100
expect_rc 0 plan-vnodes
has "--gpus 2 --leader-cores" "$OUT" "plan-vnodes: 2 workers per node"
has " --nodes 2 --device cpu" "$OUT" "plan-vnodes: 2 nodes"
# a machine description prices that machine: none of this one's GPUs, cores or device passed
SLIDEDP_PLAN=$BIN SLIDEDP_TOPOLOGY_FILE=$FAKE run plan-machine "$RUN" --dry-run --plan --gpus 0,1 -- --machine tools/machines/h200x8.json --reduction cpu
expect_rc 0 plan-machine
has "plan: $BIN --machine tools/machines/h200x8.json --reduction cpu" "$OUT" "plan-machine: only the run's arguments"
# ... also when the description is a CONFIG key (it passed this machine's GPUs and cores)
printf 'machine = "tools/machines/h200x8.json"\n' > "$TMP/machine.toml"
SLIDEDP_PLAN=$BIN SLIDEDP_TOPOLOGY_FILE=$FAKE run plan-machine-config "$RUN" --dry-run --plan --gpus 0,1 "$TMP/machine.toml" -- --reduction cpu
expect_rc 0 plan-machine-config
has "plan: $BIN --config $TMP/machine.toml --reduction cpu" "$OUT" "plan-machine-config: only the run's arguments"
SLIDEDP_PLAN=$BIN SLIDEDP_TOPOLOGY_FILE=$FAKE run plan-nodes1 "$RUN" --dry-run --plan --gpus 0,1
hasnt "--nodes" "$OUT" "plan-nodes1"
# --policy auto (a worker flag, or a CONFIG key): the plan runs first (it calibrates a shape the
# cache lacks), with the run's arguments, then the job; not with a --machine description
SLIDEDP_PLAN=$BIN SLIDEDP_TOPOLOGY_FILE=$FAKE run auto-plan "$RUN" --dry-run --gpus 0,1 -- --seq-len 512 --policy auto
expect_rc 0 auto-plan
has "--policy auto: planning first" "$OUT" "auto-plan: the plan before the job"
has "$BIN --gpus 2 --leader-cores 56 --device cuda --seq-len 512 --policy auto --top 3" "$OUT" "auto-plan: the run's arguments"
has "mpirun --bind-to none" "$LINE" "auto-plan: then the job"
printf 'seq-len = 512\npolicy = "auto"\n' > "$TMP/auto.toml"
SLIDEDP_PLAN=$BIN SLIDEDP_TOPOLOGY_FILE=$FAKE run auto-plan-config "$RUN" --dry-run --gpus 0,1 "$TMP/auto.toml"
has "--policy auto: planning first" "$OUT" "auto-plan-config: policy = auto in CONFIG"
SLIDEDP_PLAN=$BIN SLIDEDP_TOPOLOGY_FILE=$FAKE run auto-plan-override "$RUN" --dry-run --gpus 0,1 "$TMP/auto.toml" -- --policy manual
hasnt "planning first" "$OUT" "auto-plan-override: --policy manual after -- wins over CONFIG"
SLIDEDP_PLAN=$BIN SLIDEDP_TOPOLOGY_FILE=$FAKE run auto-plan-machine "$RUN" --dry-run --gpus 0,1 -- --policy auto --machine tools/machines/h200x1.json
hasnt "planning first" "$OUT" "auto-plan-machine: a machine description needs no calibration"
SLIDEDP_PLAN=$BIN SLIDEDP_TOPOLOGY_FILE=$FAKE run auto-plan-sweep "$RUN" --dry-run --gpus 0,1 -- --policy auto --route-sweep cpu/cpu@8
hasnt "planning first" "$OUT" "auto-plan-sweep: the job refuses auto with a sweep at once, no plan before"
# the embedded default job run from another directory: its relative paths are missing there
# but under the repository; refused before start-up with where to run from (the worker said
# only "no model config.json here")
run default-elsewhere bash -c "cd '$TMP' && '$RUN' --dry-run --cpu-workers 2 '$ROOT/tools/configs/default-job.toml'"
expect_rc 2 default-elsewhere
has "--model-config tools/configs/kjv-tiny-llama.json: not found from the current directory" "$OUT" "default-elsewhere: named"
has "HINT: run from the repository root (cd $ROOT)" "$OUT" "default-elsewhere: where to run"
# a --policy value the job would refuse is refused before the plan (whose calibration takes
# seconds to minutes), not after it
SLIDEDP_PLAN=$BIN SLIDEDP_TOPOLOGY_FILE=$FAKE run auto-plan-bad "$RUN" --dry-run --gpus 0,1 -- --seq-len 512 --policy fast
expect_rc 2 auto-plan-bad
has "slidedp-run: error: --policy fast: not one of auto, manual" "$OUT" "auto-plan-bad: named"
hasnt "planning first" "$OUT" "auto-plan-bad: no plan first"
# --policy not given: auto is the default on GPU workers without the planner's knob flags
# (src/apps/policy_choice.h); a knob flag (with or without a value, or a CONFIG key) or CPU
# workers keep it manual
SLIDEDP_PLAN=$BIN SLIDEDP_TOPOLOGY_FILE=$FAKE run auto-default "$RUN" --dry-run --gpus 0,1 -- --seq-len 512
has "--policy auto (the default on GPUs): planning first" "$OUT" "auto-default: a GPU run plans by default"
# --resume DIR alone: the job reads the run's flags (model, shape) from the checkpoint, so the
# launcher does not plan first (the plan would lack the model); with --model it plans as usual
SLIDEDP_PLAN=$BIN SLIDEDP_TOPOLOGY_FILE=$FAKE run auto-resume-alone "$RUN" --dry-run --gpus 0,1 -- --resume "$TMP/ck"
hasnt "planning first" "$OUT" "auto-resume-alone: no plan before a resume that brings its flags back"
has "the job reads them from the checkpoint" "$OUT" "auto-resume-alone: said"
SLIDEDP_PLAN=$BIN SLIDEDP_TOPOLOGY_FILE=$FAKE run auto-resume-model "$RUN" --dry-run --gpus 0,1 -- --resume "$TMP/ck" --model-config "$ROOT/tools/configs/kjv-tiny-llama.json"
has "planning first" "$OUT" "auto-resume-model: a resume with its flags plans first"
SLIDEDP_PLAN=$BIN SLIDEDP_TOPOLOGY_FILE=$FAKE run auto-default-knob "$RUN" --dry-run --gpus 0,1 -- --seq-len 512 --offload-activations
hasnt "planning first" "$OUT" "auto-default-knob: --offload-activations keeps the default manual"
printf 'seq-len = 512\nmicro-batch-rows = 2\n' > "$TMP/knob.toml"
SLIDEDP_PLAN=$BIN SLIDEDP_TOPOLOGY_FILE=$FAKE run auto-default-knob-config "$RUN" --dry-run --gpus 0,1 "$TMP/knob.toml"
hasnt "planning first" "$OUT" "auto-default-knob-config: a knob in CONFIG keeps the default manual"
SLIDEDP_PLAN=$BIN run auto-default-cpu "$RUN" --dry-run --cpu-workers 2 -- --seq-len 512
hasnt "planning first" "$OUT" "auto-default-cpu: CPU workers stay manual by default"
# the launcher's knob list is the job's (src/apps/policy_choice.h kPolicyKnobFlags)
cxx_knobs=$(sed -n '/kPolicyKnobFlags\[\] = {/,/};/p' "$ROOT/src/apps/policy_choice.h" | grep -o '"--[a-z-]*"' | tr -d '"' | sort | tr '\n' ' ')
py_knobs=$(sed -n '/^POLICY_KNOBS = (/,/)$/p' "$ROOT/launcher/slidedp-run" | grep -o '"--[a-z-]*"' | tr -d '"' | sort | tr '\n' ' ')
if [ -z "$cxx_knobs" ] || [ "$cxx_knobs" != "$py_knobs" ]; then
  fail "knob lists differ: policy_choice.h [$cxx_knobs] vs slidedp-run [$py_knobs]"
fi
# the worker's list of launcher options (its "an option of launcher/slidedp-run" message,
# src/apps/slidedp_worker.cpp kLauncherFlags) is the launcher's own option list (parse_args)
cxx_launcher=$(sed -n '/kLauncherFlags\[\] = {/,/};/p' "$ROOT/src/apps/slidedp_worker.cpp" | grep -o '"--[a-z-]*"' | tr -d '"' | sort | tr '\n' ' ')
py_launcher=$(sed -n '/^def parse_args/,/^def resolve/p' "$ROOT/launcher/slidedp-run" | grep -oE '^ +elif a (==|\.startswith\() ?"--[a-z-]+' | grep -oE '"--[a-z-]+' | tr -d '"' | grep -vx -- '--help' | sort -u | tr '\n' ' ')
if [ -z "$cxx_launcher" ] || [ "$cxx_launcher" != "$py_launcher" ]; then
  fail "launcher option lists differ: slidedp_worker.cpp kLauncherFlags [$cxx_launcher] vs slidedp-run [$py_launcher]"
fi
# --nodes without a hostfile, --srun or an allocation: refused before mpirun, saying what to do
bad "nodes without hostfile" "--nodes 2, but no hostfile and no batch allocation" "$RUN" --dry-run --nodes 2 --cpu-workers 2
has "HINT: give the nodes with --hostfile FILE" "$OUT" "nodes without hostfile: hostfile hint"
has "salloc/sbatch --nodes=2" "$OUT" "nodes without hostfile: allocation hint"
has "--cpu-workers 5 -- --virtual-node-size 3" "$OUT" "nodes without hostfile: one-machine hint"
hasnt "running:" "$OUT" "nodes without hostfile: nothing started"
SLURM_JOB_ID=7 run "nodes in an allocation" "$RUN" --dry-run --nodes 2 --cpu-workers 2
expect_rc 0 "nodes in an allocation"

# 9. virtual nodes (--virtual-node-size K, a worker flag or CONFIG key): ranks K, 2K, ... are
#    leaders, labelled so and placed on the leader's cores; the workers take the GPUs in order
run vnodes "$RUN" --dry-run --cpu-workers 5 -- --virtual-node-size 3 --steps 2
expect_rc 0 vnodes
has "would run (--dry-run):" "$OUT" "vnodes: a dry run says it runs nothing"
has "4 worker(s) (CPU worker(s)) + 2 leaders (2 virtual nodes)" "$OUT" "vnodes header"
has "rank 3 leader" "$OUT" "vnodes: rank 3 leads virtual node 1"
hasnt "rank 3 worker" "$OUT" "vnodes: rank 3 is no worker"
has "leader of virtual node 1 (--virtual-node-size 3)" "$OUT" "vnodes: why"
[ "$(printf '%s\n' "$OUT" | grep -c '^  rank [0-9] worker')" -eq 4 ] && pass || fail "vnodes: expected 4 worker rows"
# a size that does not divide the ranks: refused by the launcher, before mpirun, with the counts
run vnodes-odd "$RUN" --dry-run --cpu-workers 4 -- --virtual-node-size 3 --steps 2
expect_rc 2 vnodes-odd
has "--virtual-node-size 3 does not divide the 5 ranks" "$OUT" "vnodes-odd: the reason"
has "give 5, 8, 11" "$OUT" "vnodes-odd: counts that fit"
hasnt "mpirun --bind-to" "$OUT" "vnodes-odd: nothing started"
# an option whose value is missing before the worker's flags: named, not "unknown option --model"
run missing-value "$RUN" --dry-run --cpu-workers -- --model m --steps 2
expect_rc 2 missing-value
has "--cpu-workers needs a value" "$OUT" "missing-value: the option named"
hasnt "unknown option" "$OUT" "missing-value: not taken for an unknown option"
# --device among the worker flags: the launcher sets it itself; refused with the reason
run device-twice "$RUN" --dry-run --cpu-workers 2 -- --device cpu --steps 2
expect_rc 2 device-twice
has "--device after -- is set by the launcher itself" "$OUT" "device-twice: the reason"
has "choose the workers with --gpus LIST or --cpu-workers N" "$OUT" "device-twice: the hint"
printf 'virtual-node-size = 2\n' > "$TMP/vnode.toml"
SLIDEDP_TOPOLOGY_FILE=$FAKE run vnodes-gpu "$RUN" --dry-run --gpus 0,1,2 "$TMP/vnode.toml"
expect_rc 0 vnodes-gpu
has "rank 2 leader" "$OUT" "vnodes-gpu: rank 2 leads virtual node 1 (CONFIG key)"
has "rank 3 GPU 1 " "$OUT" "vnodes-gpu: rank 3 drives the second GPU"
has "--physcpubind=0-23,32-63 --interleave=0,1 $BIN" "$(ctx 2)" "vnodes-gpu: rank 2 on the leader's cores"

# what node-local rank 2 of a node execs: GPU 1's worker, pinned on its node as on one node
OUT=$(OMPI_COMM_WORLD_LOCAL_RANK=2 SLIDEDP_TOPOLOGY_FILE=$FAKE "$RUN" --dry-run --exec-rank --gpus 0,1,2,3 -- --steps 2 2>&1); RC=$?
echo "--- exec-rank 2 (exit $RC)"; echo "    $OUT"
expect_rc 0 exec-rank
has "--physcpubind=28-31 --preferred=0 $BIN --device cuda --steps 2" "$OUT" "exec-rank 2"
OUT=$(SLIDEDP_TOPOLOGY_FILE=$FAKE "$RUN" --dry-run --exec-rank --gpus 0,1 2>&1); RC=$?
[ "$RC" -ne 0 ] && pass || fail "exec-rank without a local rank: exit 0"
has "found no node-local rank" "$OUT" "exec-rank without a local rank"

# 10. the job's environment reaches every rank through a real mpirun (not only its line): on the
#     fake 4-GPU box with --gpus 2,3, stand-ins for numactl (runs its command) and the worker
#     (prints what it sees); Open MPI's -x before the first app context once reached the leader only
if command -v mpirun >/dev/null; then
  printf '#!/bin/sh\nwhile [ $# -gt 0 ]; do case "$1" in --*) shift;; *) break;; esac; done\nexec "$@"\n' > "$TMP/numactl-exec"
  printf '#!/bin/sh\necho "rank=$OMPI_COMM_WORLD_RANK cvd=$CUDA_VISIBLE_DEVICES alloc=$PYTORCH_CUDA_ALLOC_CONF nvls=$NCCL_NVLS_ENABLE"\n' > "$TMP/env-worker"
  chmod +x "$TMP/numactl-exec" "$TMP/env-worker"
  OUT=$(OMPI_MCA_rmaps_base_oversubscribe=1 SLIDEDP_TOPOLOGY_FILE=$FAKE SLIDEDP_NUMACTL=$TMP/numactl-exec \
        SLIDEDP_WORKER=$TMP/env-worker timeout 60 "$RUN" --gpus 2,3 -- --policy manual 2>&1); RC=$?
  echo "--- mpirun env (exit $RC)"; printf '%s\n' "$OUT" | sed 's/^/    /'
  expect_rc 0 "mpirun env"
  for r in 0 1 2; do
    has "rank=$r cvd=2,3 alloc=expandable_segments:True nvls=0" "$OUT" "mpirun env: rank $r's environment"
  done
fi

# 7. bad inputs: non-zero exit, a message that says what is wrong
bad "gpus 0,x" "--gpus takes a comma-separated list of GPU indices" "$RUN" --dry-run --gpus 0,x
bad "gpus 7 on 4 GPUs" "GPU 7 does not exist" "$RUN" --dry-run --gpus 7
bad "gpus 1,1" "more than once" "$RUN" --dry-run --gpus 1,1
bad "cpu-workers 0" "--cpu-workers takes a positive integer (got '0')" "$RUN" --dry-run --cpu-workers 0
bad "gpus and cpu-workers" "not both" "$RUN" --dry-run --gpus 0 --cpu-workers 2
bad "unknown option" "unknown option '--bogus'" "$RUN" --dry-run --bogus
bad "repeated option" "--cpu-workers is given 2 times" "$RUN" --dry-run --cpu-workers 2 --cpu-workers=3
bad "nodes 0" "--nodes takes a positive integer (got '0')" "$RUN" --dry-run --nodes 0
bad "missing hostfile" "hostfile '$TMP/nohosts' not found" "$RUN" --dry-run --nodes 2 --hostfile "$TMP/nohosts"
bad "srun and hostfile" "do not go together" "$RUN" --dry-run --nodes 2 --srun --hostfile "$TMP/hosts"
bad "missing config" "config file" "$RUN" --dry-run --gpus 0 "$TMP/none.json"
SLIDEDP_WORKER=$TMP/none bad "missing binary" "HINT: run 'bash tools/setup.sh'" "$RUN" --dry-run
printf 'cores: 0-3\nbogus line\n' > "$TMP/topo-bad.txt"
SLIDEDP_TOPOLOGY_FILE=$TMP/topo-bad.txt bad "bad topology file" "cannot read 'bogus line'" "$RUN" --dry-run
SLIDEDP_TOPOLOGY_FILE=$TMP/nothere.txt bad "missing topology file" "does not exist" "$RUN" --dry-run

echo
if [ "$FAILS" -eq 0 ]; then
  echo "launcher dry-run tests: all $CHECKS checks passed"
else
  echo "launcher dry-run tests: $FAILS of $((CHECKS + FAILS)) checks FAILED"
  exit 1
fi
