#!/usr/bin/env bash
# One call on the GPU machine: set-up (no registry there: it uses the machine's own torch
# 2.11), CUDA build, the GPU tests, the layer benchmark, slidedp's own benchmark and the peer
# comparison (tools/bench/peers.sh); logs to $OUT (or ./gpu-logs). Works on 1..8 GPUs.
#
#   bash tools/gpu-check.sh [steps...]
#     steps, run in the order given: build test layer profile slidedp default memory reserve placement packed peers longest ipc plan ckpt tail main realrun finetune adamw
#     (default: build test layer slidedp)
#   Environment (each optional):
#     SLIDEDP_BENCH_CONFIG    model shape of `slidedp` and `peers` (default tools/configs/qwen3-4b.json
#                             on one GPU, qwen3-8b.json on more)
#     SLIDEDP_BENCH_SWEEP     --route-sweep of `slidedp` (default: the route @8 and @16, and @8 with
#                             every layer recomputed)
#     SLIDEDP_PEERS_ARGS      extra arguments of tools/bench/peers.sh (e.g. --systems, --batches,
#                             --time-budget S; long sequences: "--seq-lens 65536,131072 --batches 1
#                             --systems slidedp,fsdp2_liger_ac", which override the --seq-len 4096
#                             given here)
#     SLIDEDP_RESERVE_ARGS    extra arguments of tools/bench/reserve_check.py (`reserve`: the first
#                             step's GPU reserve estimate vs measured per length, 2-layer cut;
#                             "--lengths none": no jobs), SLIDEDP_RESERVE_TIMEOUT (default 400),
#                             SLIDEDP_RESERVE_CAL_LENGTHS (lengths whose calibration is timed, with
#                             the reserve it measured), SLIDEDP_RESERVE_AUTO_T (a --policy auto job
#                             of that length on its calibration; default 0: none)
#     SLIDEDP_PLACEMENT_ARGS  extra arguments of tools/bench/placement_check.py (`placement`: three
#                             jobs of 64K tokens, inputs on the GPU / split by a budget / in host
#                             memory; ~4 min on 1xH200), SLIDEDP_PLACEMENT_TIMEOUT (default 560)
#     SLIDEDP_BENCH_EXTRA     `slidedp`: more slidedp_worker flags (an A/B of one flag, e.g.
#                             "--grad-buckets whole"); SLIDEDP_BENCH_TAG: suffix of its log and
#                             metrics names (bench-slidedp-TAG.log), so calls in a row keep each
#     SLIDEDP_BENCH_PROFILE   `slidedp`: profile this step's GPU work (--gpu-profile, --trace-step;
#                             a route sweep counts steps across its variants): per-scope,
#                             per-stream table and compute-stream gaps in bench-slidedp.log, the
#                             traces in gpu-profile.tgz
#     SLIDEDP_LAYER_ROWS / SLIDEDP_LAYER_ITERS / SLIDEDP_LAYER_CONFIGS  `layer`: rows (default 4),
#                             timed iterations (5), shapes (tools/configs/qwen3-{4b,8b}.json);
#                             SLIDEDP_LAYER_VARIANTS / SLIDEDP_LAYER_ROUNDS: bench_layer's --variants
#                             (default all) and --rounds (default 1; an A/B of kernels: 3 or more,
#                             alternating order), SLIDEDP_LAYER_TIMEOUT (default 120 s a shape)
#                             Both `layer` and `slidedp` sample clocks and power (smi-*.csv,
#                             tools/bench/smi_summary.py)
#     SLIDEDP_BUILD_TARGETS   what `build` builds (default: what the other steps run)
#     SLIDEDP_LONGEST_ARGS    extra arguments of tools/bench/longest_seq.py (`longest`: the longest
#                             trainable sequence of slidedp and FSDP2 + Liger + AC on GPU 0, batch 1,
#                             doubling then bisection, within a 540 s budget; e.g. --systems slidedp
#                             --start 262144, or the --known-ok/--known-fail a previous call printed);
#                             SLIDEDP_LONGEST_TIMEOUT: the search's bound in seconds (default 590;
#                             longer only detached, tools/gpu-detached.sh)
#     SLIDEDP_CKPT_DIR        `ckpt`: the file system its checkpoints go to, in a subdirectory
#                             slidedp-ckpt-bench it creates and removes (default: the checkout's). A
#                             Qwen3-4B checkpoint is 48.3 GB: with room for two it writes two, with
#                             room for one, one. SLIDEDP_CKPT_CONFIG: the shape (default qwen3-4b)
#     SLIDEDP_CKPT_EVERY      `ckpt`: --checkpoint-every (default 100, issue 20's interval; the run
#                             has 99 steps, ~170 s, after its last checkpoint, room for the 4B write's
#                             60-80 s on the 1xH200 disk: a write still running after the last step
#                             counts as cost; the steps after it give the drift-bracketed figure,
#                             tools/bench/ckpt_cost.py), SLIDEDP_CKPT_MODE stream (default) or blocking,
#                             SLIDEDP_CKPT_STAGING: --checkpoint-staging (default auto),
#                             SLIDEDP_CKPT_WRITE_RATE: --checkpoint-write-rate MB/s (default 0: uncapped),
#                             SLIDEDP_CKPT_IO: --checkpoint-io auto|direct|buffered (default auto),
#                             SLIDEDP_CKPT_BATCH / SLIDEDP_CKPT_SEQ (default 8 / 4096);
#                             SLIDEDP_CKPT_REPEATS: pairs of runs (without, with), interleaved
#                             (default 1); with more, the costs' median and spread (ckpt-cost.txt)
#                             and the pairs' files in ckpt-repeats.tgz (a 4B pair takes ~8 min:
#                             run it detached, tools/gpu-detached.sh);
#                             SLIDEDP_CKPT_DIRTY_BYTES (opt-in, root): vm.dirty_bytes during the
#                             checkpoint run (e.g. 60000000000), restored after
#     SLIDEDP_TAIL_BATCH / SLIDEDP_TAIL_PAIRS / SLIDEDP_TAIL_STEPS / SLIDEDP_TAIL_SEQ  `tail`: the
#                             update tail --policy auto chooses against the same plan without it,
#                             interleaved pairs (default batch 4, 2 pairs, 10 steps, seq 4096);
#                             SLIDEDP_TAIL_UNITS: compare this M instead of the plan's
#     SLIDEDP_PLAN_CONFIG     model shape of `plan` (default tools/configs/qwen3-4b.json)
#     SLIDEDP_PLAN_JOBS       `plan`'s jobs, "seq|budget GiB|variant,..." joined by ';' (default:
#                             tools/bench/plan_check.py DEFAULT_JOBS, 13 variants, seq 4K-128K;
#                             ~11 min on 1xH200: run it through tools/gpu-detached.sh)
#     SLIDEDP_MEMORY_ARGS     `memory`: the job's flags (default: --seq-len 16384 --batch-size 1
#                             --activations auto --gpu-memory-budget 22), SLIDEDP_MEMORY_TIMEOUT (300)
#     SLIDEDP_DEFAULT_LONG    `default`: the long sequence of its third job (default 262144; 0: skip);
#                             SLIDEDP_DEFAULT_TIMEOUT its bound in seconds (default 400)
#     SLIDEDP_PLAN_TIMEOUT    `plan`'s bound in seconds (default 900)
#     SLIDEDP_PLAN_ARGS       extra arguments of plan_check.py (e.g. --auto none, or --auto 262144,1,0
#                             --auto-steps 1 --auto-timeout 500 with SLIDEDP_PLAN_JOBS=""); a sweep split
#                             over several calls: SLIDEDP_PLAN_JOBS per call, then locally
#                             plan_check.py --summarize DIR1/plan DIR2/plan (the folders of plan.tgz)
#
# A step longer than one call (10 minutes) runs detached across chained calls:
#   bash tools/gpu-detached.sh start NAME -- bash tools/gpu-check.sh STEP, then ... wait NAME.
#
# Fixtures from ../shared do not travel to that machine: copy what tests need into .gpu/shared
# (git-ignored) and carry it: mkdir -p .gpu/shared/{models,reference,data} && cp -r
# ../shared/models/stories260K .gpu/shared/models/ && cp ../shared/reference/* .gpu/shared/reference/
# && cp ../shared/data/kjv.txt .gpu/shared/data/. DeepSpeed, Liger-Kernel and their missing
# dependencies travel as wheels in .whl (tools/bench/fetch_peer_wheels.sh); carry it for `peers`.
# `test` without `build` (no build here): the GPU tests `bash tools/gpu-prebuild.sh --tests` built
# with the binaries (.prebuilt/ctest; tools/prebuilt-tests.sh); carry .prebuilt and .gpu.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$(pwd)/gpu-logs}
mkdir -p "$OUT"
STEPS=${*:-build test layer slidedp}
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export SLIDEDP_BUILD_DIR=${SLIDEDP_BUILD_DIR:-$(pwd)/build-gpu}
export SLIDEDP_JOBS=${SLIDEDP_JOBS:-$(nproc)}
B=$SLIDEDP_BUILD_DIR
EXTRA="-DCMAKE_BUILD_TYPE=Release"
[ -d .gpu/shared ] && EXTRA="$EXTRA -DSLIDEDP_SHARED_DIR=$(pwd)/.gpu/shared" && export SLIDEDP_SHARED_DIR=$(pwd)/.gpu/shared
export SLIDEDP_CMAKE_ARGS="$EXTRA ${SLIDEDP_CMAKE_ARGS:-}"
NGPU=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
GPUS=$(seq -s, 0 $((NGPU > 0 ? NGPU - 1 : 0)))
if [ "$NGPU" -gt 1 ]; then DEF_CONFIG=tools/configs/qwen3-8b.json; ROUTE=sharded/gpu; else DEF_CONFIG=tools/configs/qwen3-4b.json; ROUTE=replicated/cpu; fi
CONFIG=${SLIDEDP_BENCH_CONFIG:-$DEF_CONFIG}
rc=0
step() { echo "=== $1 ($(date +%T))"; }
has() { [[ " $STEPS " == *" $1 "* ]]; }
{ nvidia-smi; nvidia-smi topo -m; lscpu | head -20; free -g; df -h /dev/shm; } > "$OUT/machine.txt" 2>&1
echo "GPUs: $NGPU; $(nproc) CPUs; $(free -g | awk '/Mem:/ {print $2}') GiB RAM; /dev/shm $(df -h /dev/shm | awk 'NR==2 {print $2}')"
# /dev/shm holds the host state (14 B/param): a VM may mount it small; tmpfs size is a limit only.
# Only on a GPU machine: a CPU dry run (e.g. tests/launcher/test_ckpt_bench.sh) leaves it alone.
if [ "$(id -u)" -eq 0 ] && [ "$NGPU" -gt 0 ]; then
  shm_g=$(df -BG /dev/shm | awk 'NR==2 {gsub("G", "", $2); print $2}')
  [ "${shm_g:-0}" -lt 200 ] && mount -o remount,size=${SLIDEDP_SHM_SIZE:-240G} /dev/shm 2>/dev/null \
    && echo "/dev/shm remounted: $(df -h /dev/shm | awk 'NR==2 {print $2}')"
fi
# Binaries built elsewhere for this torch (tools/gpu-prebuild.sh), when they start here.
BIN=$B/bin
if [ -x .prebuilt/bin/slidedp_worker ]; then
  TORCH_LIB=$(python3 -c 'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "lib"))')
  NCCL_LIB=$(python3 -c 'import os, nvidia.nccl; print(os.path.join(list(nvidia.nccl.__path__)[0], "lib"))' 2>/dev/null || true)
  export LD_LIBRARY_PATH=$(pwd)/.prebuilt/lib:$TORCH_LIB:${NCCL_LIB:+$NCCL_LIB:}/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
  if .prebuilt/bin/slidedp_worker --help > "$OUT/prebuilt-check.log" 2>&1; then
    BIN=$(pwd)/.prebuilt/bin
    echo "using prebuilt binaries ($(head -1 .prebuilt/COMMIT | cut -c1-10)$(grep -q dirty .prebuilt/COMMIT && echo ', uncommitted changes'))"
  else
    echo "prebuilt binaries do not start here ($(tail -1 "$OUT/prebuilt-check.log")): building"
  fi
fi
# (not when SLIDEDP_PEERS_ARGS names --systems without a deepspeed one: e.g. the long-sequence run)
if has peers && [ -d .whl ] && ! [[ "${SLIDEDP_PEERS_ARGS:-}" == *--systems* && "${SLIDEDP_PEERS_ARGS:-}" != *deepspeed* ]]; then
  # DeepSpeed's CPU Adam op compiles in the background while slidedp builds and runs.
  ( python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
    && PYTHONPATH=/tmp/site python3 -c "from deepspeed.ops.op_builder import CPUAdamBuilder; CPUAdamBuilder().load()" ) \
    > "$OUT/deepspeed-prebuild.log" 2>&1 &
fi
# GPU clocks, power and throttle reasons every 250 ms while a benchmark runs ($OUT/smi-NAME.csv):
# whether a slower run is a slower clock (sustained power or heat) or slower code.
smi_start() {
  [ "$NGPU" -gt 0 ] || return 0
  local reasons=clocks_event_reasons.active  # the older drivers' name: clocks_throttle_reasons
  nvidia-smi --query-gpu=$reasons --format=csv,noheader > /dev/null 2>&1 || reasons=clocks_throttle_reasons.active
  nvidia-smi --query-gpu=timestamp,index,clocks.sm,clocks.mem,power.draw,temperature.gpu,utilization.gpu,$reasons \
    --format=csv,noheader -lms 250 > "$OUT/smi-$1.csv" 2>&1 & SMI_PID=$!
  SMI_CSV="$OUT/smi-$1.csv"
}
smi_stop() {
  [ -n "${SMI_PID:-}" ] || return 0
  kill "$SMI_PID" 2>/dev/null; wait "$SMI_PID" 2>/dev/null; SMI_PID=
  python3 tools/bench/smi_summary.py "$SMI_CSV" 2>&1 | tail -4
}
do_build() {
  step build
  DEF_TARGETS="slidedp_worker slidedp_plan slidedp_generate bench_layer bench_ipc test_layer_ops_gpu test_decoder_gpu test_long_sequence_gpu test_reference_equivalence test_gpu_job test_flash_attention3_gpu"
  SLIDEDP_BUILD_TARGETS=${SLIDEDP_BUILD_TARGETS:-$DEF_TARGETS} bash tools/setup.sh > "$OUT/build.log" 2>&1 || { rc=1; tail -40 "$OUT/build.log"; }
  grep -E "slidedp:|error" "$OUT/build.log" | head -8
}
do_test() {
  step "test (GPU tests; the CPU suite runs in CI)"
  if [ ! -f "$B/CTestTestfile.cmake" ] && [ "$BIN" = "$(pwd)/.prebuilt/bin" ] && [ -f .prebuilt/ctest/ORIGIN ]; then
    # Nothing built here: the GPU tests prebuilt with the binaries (tools/gpu-prebuild.sh --tests).
    timeout 300 bash tools/prebuilt-tests.sh --output-on-failure -L gpu -j 3 > "$OUT/ctest-gpu.log" 2>&1 || rc=1
  else
    timeout 300 ctest --test-dir "$B" --output-on-failure -L gpu -j 3 > "$OUT/ctest-gpu.log" 2>&1 || rc=1
  fi
  grep -E "tests passed|Failed|\*\*\*|Test +#|step [0-9]: |worst|overlapping|Not Run" "$OUT/ctest-gpu.log" | tail -40
}
do_layer() {
  step "layer: one decoder layer + the head, fused vs eager, kept vs recompute"
  for cfg in ${SLIDEDP_LAYER_CONFIGS:-tools/configs/qwen3-4b.json tools/configs/qwen3-8b.json}; do
    smi_start "layer-$(basename "$cfg" .json)"
    timeout ${SLIDEDP_LAYER_TIMEOUT:-120} "$BIN/bench_layer" --config "$cfg" --rows ${SLIDEDP_LAYER_ROWS:-4} --seq-len 4096 \
      --iters ${SLIDEDP_LAYER_ITERS:-5} --rounds ${SLIDEDP_LAYER_ROUNDS:-1} \
      ${SLIDEDP_LAYER_VARIANTS:+--variants "$SLIDEDP_LAYER_VARIANTS"} 2>&1 | tee -a "$OUT/bench-layer.log" | grep -E "bench_layer|RESULT|ROUND|kept|rror"
    smi_stop
  done
}
do_profile() {
  step "profile: per-op GPU time of one decoder layer and the head (bench_layer --profile)"
  mkdir -p "$OUT/traces"
  for spec in ${SLIDEDP_PROFILE_SHAPES:-qwen3-4b:8 qwen3-4b:4 qwen3-8b:4}; do
    cfg=${spec%%:*}; rows=${spec##*:}
    mkdir -p "$OUT/traces/$cfg-r$rows"
    timeout 240 "$BIN/bench_layer" --config "tools/configs/$cfg.json" --rows "$rows" --seq-len 4096 \
      --iters 5 --profile 1 --trace-dir "$OUT/traces/$cfg-r$rows" > "$OUT/traces/$cfg-r$rows.log" 2>&1 || rc=1
    cat "$OUT/traces/$cfg-r$rows.log" >> "$OUT/profile.log"
    grep -E "bench_layer:|RESULT name=(fused_cudnn|fused_fa3|profile)|compute stream:" "$OUT/traces/$cfg-r$rows.log"
  done
  tar czf "$OUT/profile-traces.tgz" -C "$OUT" traces && rm -rf "$OUT/traces"
}
do_slidedp() {
  step "slidedp: $CONFIG, seq 4096, $NGPU GPU(s)"
  SWEEP=${SLIDEDP_BENCH_SWEEP:-$ROUTE@8,$ROUTE+recompute@8,$ROUTE@16}
  local prof=()
  [ -n "${SLIDEDP_BENCH_PROFILE:-}" ] && prof=(--gpu-profile "$OUT/gpu-profile/step.json" --trace-step "$SLIDEDP_BENCH_PROFILE")
  local tag=${SLIDEDP_BENCH_TAG:+-$SLIDEDP_BENCH_TAG}
  # shellcheck disable=SC2206  # word splitting of the extra flags is intended
  local extra=(${SLIDEDP_BENCH_EXTRA:-})
  smi_start "slidedp$tag"
  SLIDEDP_WORKER=$BIN/slidedp_worker timeout ${SLIDEDP_BENCH_TIMEOUT:-300} launcher/slidedp-run --gpus "$GPUS" --worker-threads 2 -- \
    --model-config "$CONFIG" --seq-len 4096 --steps ${SLIDEDP_BENCH_STEPS:-3} --warmup-steps 1 --lr 1e-5 \
    --route-sweep "$SWEEP" --metrics "$OUT/bench-slidedp$tag.jsonl" --trace "$OUT/trace$tag.json" "${prof[@]}" \
    "${extra[@]}" > "$OUT/bench-slidedp$tag.log" 2>&1 || rc=1
  smi_stop
  grep -E "model |step [0-9]+/|summary|^variant|@[0-9]+ |error|Error" "$OUT/bench-slidedp$tag.log" | cut -c1-400 | tail -30
  if [ -d "$OUT/gpu-profile" ]; then
    cat "$OUT"/gpu-profile/*.txt >> "$OUT/bench-slidedp$tag.log"
    grep -hE "^PROFILE|compute stream:" "$OUT"/gpu-profile/*.txt
    tar czf "$OUT/gpu-profile.tgz" -C "$OUT" gpu-profile && rm -rf "$OUT/gpu-profile"
  fi
}
do_placement() {
  step "placement: recomputed layers' inputs on the GPU, split by the budget, or all in host memory ($CONFIG)"
  SLIDEDP_WORKER=$BIN/slidedp_worker timeout ${SLIDEDP_PLACEMENT_TIMEOUT:-560} python3 tools/bench/placement_check.py \
    --config "$CONFIG" --out "$OUT/placement" ${SLIDEDP_PLACEMENT_ARGS:-} > "$OUT/placement.log" 2>&1 || rc=1
  cut -c1-400 "$OUT/placement.log" | tail -14
}
do_default() {
  # Issue 13: --policy auto is the default on GPU workers. Three jobs with no policy flag: through
  # the launcher (it calibrates the shape, the job runs the planner's best), the same as a bare
  # mpirun job on an empty calibration cache (the flags as given, said so), and one 256K-token
  # sequence through the launcher (SLIDEDP_DEFAULT_LONG tokens, 0: skip).
  step "default: no policy flags on GPU workers (--policy auto by default; bare mpirun falls back)"
  local cal=$OUT/default/calibration.json long=${SLIDEDP_DEFAULT_LONG:-262144} cfg=$CONFIG
  mkdir -p "$OUT/default"
  SLIDEDP_WORKER=$BIN/slidedp_worker SLIDEDP_PLAN=$BIN/slidedp_plan timeout 240 launcher/slidedp-run --gpus "$GPUS" -- \
    --model-config "$CONFIG" --seq-len 4096 --batch-size 8 --steps 6 --calibration "$cal" \
    --metrics "$OUT/default/launcher.jsonl" > "$OUT/default/launcher.log" 2>&1 || rc=1
  # "policy auto" also matches its warning when the plan does not hold (a long line and its HINT)
  grep -E "planning first|policy auto|policy manual|step 6/|rror|HINT" "$OUT/default/launcher.log" | cut -c1-700
  timeout 180 mpirun --bind-to none -x NCCL_NVLS_ENABLE=0 -np $((NGPU + 1)) "$BIN/slidedp_worker" --device cuda \
    --model-config "$CONFIG" --seq-len 4096 --batch-size 8 --steps 3 --calibration "$OUT/default/empty.json" \
    > "$OUT/default/bare.log" 2>&1 || rc=1
  grep -E "policy auto:|policy manual|step 3/|rror" "$OUT/default/bare.log" | cut -c1-300
  if [ "$long" -gt 0 ]; then
    cfg=$(python3 -c "import sys; sys.path.insert(0, 'tools/bench'); from model_config import raised_config; print(raised_config('$CONFIG', $long, '$OUT/default'))")
    SLIDEDP_WORKER=$BIN/slidedp_worker SLIDEDP_PLAN=$BIN/slidedp_plan timeout ${SLIDEDP_DEFAULT_TIMEOUT:-400} launcher/slidedp-run --gpus "$GPUS" -- \
      --model-config "$cfg" --seq-len "$long" --batch-size 1 --steps 1 --calibration "$cal" \
      --metrics "$OUT/default/long.jsonl" > "$OUT/default/long.log" 2>&1 || rc=1
    grep -E "planning first|policy auto:|policy manual|step 1/|rror" "$OUT/default/long.log" | cut -c1-300
  fi
  tar czf "$OUT/default.tgz" -C "$OUT" default && rm -rf "$OUT/default"
}
do_reserve() {
  # The first step's GPU reserve estimate against the measured one, per length, on a 2-layer cut
  # of the config (tools/bench/reserve_check.py; SLIDEDP_RESERVE_ARGS="--lengths ..." its lengths,
  # "--lengths none" none), then per SLIDEDP_RESERVE_CAL_LENGTHS: the time slidedp_plan takes to
  # calibrate that length on a fresh cache, and the reserve calibration measured; then, for
  # SLIDEDP_RESERVE_AUTO_T (0: skip), a 2-step --policy auto job on that cache (debug lines).
  step "reserve: the first step's reserve estimate vs measured ($CONFIG, batch 1)"
  mkdir -p "$OUT/reserve"
  if [[ "${SLIDEDP_RESERVE_ARGS:-}" != *"--lengths none"* && "${SLIDEDP_RESERVE_ARGS:-}" != *"--lengths=none"* ]]; then
    SLIDEDP_WORKER=$BIN/slidedp_worker timeout ${SLIDEDP_RESERVE_TIMEOUT:-400} python3 tools/bench/reserve_check.py \
      --config "$CONFIG" --out "$OUT/reserve" ${SLIDEDP_RESERVE_ARGS:-} > "$OUT/reserve.log" 2>&1 || rc=1
    cut -c1-300 "$OUT/reserve.log" | tail -12
  fi
  cut2() {  # a 2-layer copy of $CONFIG for T=$1 tokens (paths through the environment, not the code)
    CUT_T=$1 CUT_CONFIG=$CONFIG CUT_DIR=$OUT/reserve python3 -c "import os, sys; sys.path.insert(0, 'tools/bench'); from reserve_check import cut_config; print(cut_config(os.environ['CUT_CONFIG'], int(os.environ['CUT_T']), 2, os.environ['CUT_DIR'])[0])"
  }
  for T in ${SLIDEDP_RESERVE_CAL_LENGTHS:-262144}; do
    [ "$T" = 0 ] && continue
    local cfg cal=$OUT/reserve/calibration-$T.json t0=$(date +%s.%N)
    cfg=$(cut2 "$T")
    timeout 300 "$BIN/slidedp_plan" --model-config "$cfg" --seq-len "$T" --batch-size 1 --top 1 \
      --calibration "$cal" --recalibrate > "$OUT/reserve/plan-$T.log" 2>&1 || rc=1
    echo "calibration of T=$T: $(T0=$t0 python3 -c "import os, time; print(f'{time.time() - float(os.environ[\"T0\"]):.1f}')") s (slidedp_plan --recalibrate); $(CAL=$cal python3 -c "import json, os; d = list(json.load(open(os.environ['CAL'])).values())[0]; print('reserve', round(d['gpu'].get('reserve_gib', 0), 2), 'GiB;', d['provenance'].get('reserve', ''))" 2>&1)"
  done
  local T=${SLIDEDP_RESERVE_AUTO_T:-0}
  if [ "$T" != 0 ]; then
    local cfg
    cfg=$(cut2 "$T")
    SPDLOG_LEVEL=debug SLIDEDP_WORKER=$BIN/slidedp_worker SLIDEDP_PLAN=$BIN/slidedp_plan timeout 300 \
      launcher/slidedp-run --gpus 0 -- --model-config "$cfg" --seq-len "$T" --batch-size 1 --steps 2 \
      --lr 1e-5 --policy auto --calibration "$OUT/reserve/calibration-$T.json" > "$OUT/reserve/auto-$T.log" 2>&1 || rc=1
    grep -E "policy auto:|inputs to pinned|GPU peak|step [0-9]/|rror" "$OUT/reserve/auto-$T.log" | cut -c1-400
  fi
  tar czf "$OUT/reserve.tgz" -C "$OUT" reserve && rm -rf "$OUT/reserve"
}
do_memory() {
  # The CUDA caching allocator of one job through step 2 (--memory-snapshot): what it reserves
  # beyond what is allocated, by stream and block, at the moment of the peak reservation
  # (tools/bench/memory_summary.py). Default: 16K tokens under a 22 GiB budget, the sweep's
  # auto@1 variant (issue 13: its 4 kept layers predicted, 0 kept).
  step "memory: the caching allocator's snapshot of one job (reserved vs allocated)"
  mkdir -p "$OUT/memory"
  SPDLOG_LEVEL=debug SLIDEDP_WORKER=$BIN/slidedp_worker timeout ${SLIDEDP_MEMORY_TIMEOUT:-300} launcher/slidedp-run \
    --gpus 0 --worker-threads 2 -- --model-config "$CONFIG" --lr 1e-5 --steps 2 --trace-step 2 \
    ${SLIDEDP_MEMORY_ARGS:---seq-len 16384 --batch-size 1 --activations auto --gpu-memory-budget 22} \
    --memory-snapshot "$OUT/memory/snapshot.pickle" > "$OUT/memory/job.log" 2>&1 || rc=1
  grep -E "step [0-9]+/|debug|rror" "$OUT/memory/job.log" | cut -c1-300
  python3 tools/bench/memory_summary.py "$OUT/memory/snapshot-w0.pickle" | tee "$OUT/memory/summary.txt" || rc=1
  gzip -f "$OUT"/memory/*.pickle
}
do_packed() {
  step "packed: rows of packed documents (256-2048 tokens, variable-length attention) vs plain rows"
  SWEEP=${SLIDEDP_PACKED_SWEEP:-$ROUTE@8,$ROUTE@16}
  for data in synthetic synthetic-packed:256:2048; do
    SLIDEDP_WORKER=$BIN/slidedp_worker timeout ${SLIDEDP_BENCH_TIMEOUT:-300} launcher/slidedp-run --gpus "$GPUS" --worker-threads 2 -- \
      --model-config "$CONFIG" --seq-len 4096 --steps ${SLIDEDP_BENCH_STEPS:-3} --warmup-steps 1 --lr 1e-5 \
      --data "$data" --route-sweep "$SWEEP" > "$OUT/bench-packed-${data%%:*}.log" 2>&1 || rc=1
    echo "--- data $data"
    grep -E "^variant|@[0-9]+ |error|Error" "$OUT/bench-packed-${data%%:*}.log" | cut -c1-300 | tail -8
  done
}
do_peers() {
  step "peers: slidedp vs FSDP2 (eager, Liger) / FSDP2 + CPU offload / DeepSpeed ZeRO-Offload (eager, Liger)"
  wait  # the DeepSpeed op build
  tail -3 "$OUT/deepspeed-prebuild.log" 2>/dev/null
  SLIDEDP_WORKER=$BIN/slidedp_worker SLIDEDP_PLAN=$BIN/slidedp_plan OUT=$OUT/peers bash tools/bench/peers.sh --config "$CONFIG" \
    --seq-len 4096 --gpus "$GPUS" --launcher-args "--worker-threads 2" ${SLIDEDP_PEERS_ARGS:-} \
    > "$OUT/peers.log" 2>&1 || rc=1
  sed -n '/^slidedp vs peers:/,/^runs:/p' "$OUT/peers.log" | head -80  # the table and summary
  tail -8 "$OUT/peers.log"
  # The device tool brings back a few files only: the comparison's folder goes as one archive.
  tar czf "$OUT/peers.tgz" -C "$OUT" peers && rm -rf "$OUT/peers"
}
do_longest() {
  step "longest: the longest trainable sequence, slidedp vs FSDP2 + Liger + AC ($CONFIG, batch 1, GPU 0)"
  if compgen -G ".whl/*.whl" > /dev/null && ! python3 -c 'import liger_kernel' 2>/dev/null; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site \
      .whl/*.whl > "$OUT/longest-wheels.log" 2>&1 || tail -3 "$OUT/longest-wheels.log"
    export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
  fi
  free -g | head -2
  SLIDEDP_WORKER=$BIN/slidedp_worker timeout ${SLIDEDP_LONGEST_TIMEOUT:-590} python3 tools/bench/longest_seq.py --config "$CONFIG" \
    --python python3 --out "$OUT/longest" ${SLIDEDP_LONGEST_ARGS:-} > "$OUT/longest.log" 2>&1 || rc=1
  cat "$OUT/longest.log" | cut -c1-400
  # A probe killed by the kernel leaves its trace there (when readable).
  dmesg 2>/dev/null | grep -iE "out of memory|oom-kill|killed process" | tail -5
  tar czf "$OUT/longest.tgz" -C "$OUT" longest && rm -rf "$OUT/longest"
}
do_main() {
  step main
  SLIDEDP_WORKER=$B/bin/slidedp_worker timeout 120 launcher/slidedp-run > "$OUT/main-job.log" 2>&1 || rc=1
  grep -E "workers:|worker [0-9]|hand-off|done" "$OUT/main-job.log" | head -10
}
do_realrun() {
  step "real run: stories260K fine-tuned on the KJV text (bf16)"
  SLIDEDP_WORKER=$B/bin/slidedp_worker timeout 180 launcher/slidedp-run --gpus "$GPUS" --worker-threads 2 -- \
    --model "$SLIDEDP_SHARED_DIR/models/stories260K" --data "$SLIDEDP_SHARED_DIR/data/kjv.txt" \
    --steps 40 --batch-size 8 --seq-len 128 --lr 1e-3 --warmup 5 --schedule cosine \
    --metrics "$OUT/realrun.jsonl" --export "$OUT/realrun-model" --export-fp32 > "$OUT/realrun.log" 2>&1 || rc=1
  grep -E "mpirun|step (1|10|20|30|40)/|exported|error" "$OUT/realrun.log" | cut -c1-220
  $B/bin/slidedp_generate --model "$OUT/realrun-model" --prompt "And God said" --max-new-tokens 24 --device cuda 2>&1 | tail -2
  rm -rf "$OUT/realrun-model"
}
do_finetune() {
  step "finetune: HF tokenizer + chat data -> prepare -> train (GPU workers, bf16) with held-out eval -> export -> generate"
  SLIDEDP_E2E_LAUNCH="--gpus $GPUS --worker-threads 2" SLIDEDP_E2E_RTOL=2e-2 timeout 600 \
    bash tests/data/test_finetune_e2e.sh python3 "$BIN/slidedp_worker" "$SLIDEDP_SHARED_DIR" \
    > "$OUT/finetune.log" 2>&1 || rc=1
  grep -E "eval loss|held-out|generate:|FAIL|passed|rror" "$OUT/finetune.log" | cut -c1-300 | tail -20
}
do_plan() {
  step "plan: the step-time model, predicted vs measured over a sweep, and --policy auto"
  SLIDEDP_WORKER=$BIN/slidedp_worker SLIDEDP_PLAN=$BIN/slidedp_plan timeout "${SLIDEDP_PLAN_TIMEOUT:-900}" python3 tools/bench/plan_check.py \
    --bin "$BIN" --out "$OUT/plan" --config "${SLIDEDP_PLAN_CONFIG:-tools/configs/qwen3-4b.json}" --gpus "$GPUS" \
    ${SLIDEDP_PLAN_ARGS:-} > "$OUT/plan.log" 2>&1 || rc=1
  tail -30 "$OUT/plan.log"
  tar czf "$OUT/plan.tgz" -C "$OUT" plan && rm -rf "$OUT/plan"
}
do_ckpt() {
  # Issue 20: "checkpoint every 100 steps at 4B costs <= 3% of throughput". The same job twice
  # (random init, synthetic data, batch 8, seq 4096), without checkpoints and with streamed ones
  # every K steps; tools/bench/ckpt_cost.py turns the step times into the cost of one checkpoint
  # and its share of 100 steps (a RESULT line).
  local dir=${SLIDEDP_CKPT_DIR:-$(pwd)}/slidedp-ckpt-bench mode=${SLIDEDP_CKPT_MODE:-stream}
  local config=${SLIDEDP_CKPT_CONFIG:-tools/configs/qwen3-4b.json}
  local every=${SLIDEDP_CKPT_EVERY:-100} rows=${SLIDEDP_CKPT_BATCH:-8} T=${SLIDEDP_CKPT_SEQ:-4096} bytes free n steps
  local dev=(--gpus "$GPUS"); [ "$NGPU" -eq 0 ] && dev=(--cpu-workers 1)  # CPU: a dry run of the logic
  step "ckpt: the cost of a $mode checkpoint ($config, batch $rows, seq $T): steps without and with --checkpoint-every $every"
  rm -rf "$dir" && mkdir -p "$dir" || { rc=1; return; }
  bytes=$(python3 tools/bench/ckpt_cost.py --checkpoint-bytes "$config") || { rc=1; return; }
  free=$(df -B1 --output=avail "$dir" | tail -1 | tr -d ' ')
  if [ "$(df --output=fstype "$dir" | tail -1 | tr -d ' ')" = tmpfs ]; then
    # In RAM (e.g. /dev/shm): its size is only a limit; the job's host state (14 B/param, also in
    # /dev/shm) and 16 GiB of head room come first.
    local ram=$(( $(awk '/MemAvailable/ {print $2}' /proc/meminfo) * 1024 - bytes / 12 * 14 - (16 << 30) ))
    [ "$ram" -lt "$free" ] && free=$ram
  fi
  # Checkpoints on disk at once: the kept one (--keep-checkpoints 1) and the one being written.
  if [ "$free" -ge $(( bytes * 2 + (2 << 30) )) ]; then n=2
  elif [ "$free" -ge $(( bytes + (1 << 30) )) ]; then n=1
  else
    echo "ckpt: skipped: $dir has $((free >> 30)) GiB free, one checkpoint needs $((bytes >> 30)) GiB; set SLIDEDP_CKPT_DIR to a larger disk"
    rc=1; return
  fi
  steps=$(( n * every + every - 1 ))  # n checkpoints, then every-1 steps; none after the last step
  echo "ckpt: $dir: $((free >> 30)) GiB free, $n checkpoint(s) of $((bytes >> 30)) GiB at steps $every$([ $n = 2 ] && echo " and $((2 * every))") of $steps;" \
       "vm.dirty_ratio $(cat /proc/sys/vm/dirty_ratio 2>/dev/null) dirty_bytes $(cat /proc/sys/vm/dirty_bytes 2>/dev/null) (the page cache absorbs a write up to that limit, then the disk paces it)"
  df -h "$dir" | tail -1
  local common=(--model-config "$config" --batch-size "$rows" --seq-len "$T" --warmup-steps 1
                --lr 1e-5 --delivery "${ROUTE%/*}" --reduction "${ROUTE#*/}")
  # SLIDEDP_CKPT_REPEATS pairs (without, with), interleaved so that the machine's drift (its
  # step time moves +-10% between runs minutes apart) falls on both sides alike.
  local reps=${SLIDEDP_CKPT_REPEATS:-1} r sfx costs=()
  for (( r = 1; r <= reps; r++ )); do
    sfx=; [ "$reps" -gt 1 ] && sfx="-r$r" && echo "ckpt: pair $r of $reps"
    # Without checkpoints, then with; each run ~(30-60 s start-up + steps x ~1.7 s) on 1x H200.
    # (the run without checkpoints only gives the median step: 16 steps at most)
    SLIDEDP_WORKER=$BIN/slidedp_worker timeout 300 launcher/slidedp-run "${dev[@]}" --worker-threads 2 -- \
      "${common[@]}" --steps $(( steps < 16 ? steps : 16 )) --metrics "$OUT/ckpt-base$sfx.jsonl" > "$OUT/ckpt-base$sfx.log" 2>&1 || rc=1
    # Opt-in (root): a larger dirty limit for the checkpoint run only, so the page cache absorbs
    # the whole write at memory speed and the disk catches up in the background; restored after.
    local old_ratio old_bytes
    if [ -n "${SLIDEDP_CKPT_DIRTY_BYTES:-}" ]; then
      old_ratio=$(cat /proc/sys/vm/dirty_ratio); old_bytes=$(cat /proc/sys/vm/dirty_bytes)
      echo "$SLIDEDP_CKPT_DIRTY_BYTES" > /proc/sys/vm/dirty_bytes && echo "ckpt: vm.dirty_bytes set to $SLIDEDP_CKPT_DIRTY_BYTES for the run"
    fi
    # The kernel's side of the write during the run (ckpt-kernel.txt): every 2 s the CPU time by
    # kind (user, system, idle, I/O wait, stolen by the hypervisor) and memory (vmstat), then the
    # reclaim/writeback counters and the per-CPU times before and after.
    local vmpid=
    { echo "== before"; grep -E "^(pgscan|pgsteal|allocstall|nr_dirty |nr_writeback )" /proc/vmstat; grep "^cpu" /proc/stat; } > "$OUT/ckpt-kernel$sfx.txt" 2>/dev/null
    command -v vmstat > /dev/null && { vmstat -w -t 2 > "$OUT/ckpt-vmstat$sfx.tmp" 2>&1 & vmpid=$!; }
    SLIDEDP_WORKER=$BIN/slidedp_worker timeout 560 launcher/slidedp-run "${dev[@]}" --worker-threads 2 -- \
      "${common[@]}" --steps "$steps" --metrics "$OUT/ckpt-run$sfx.jsonl" --checkpoint-dir "$dir" --checkpoint-every "$every" \
      --checkpoint-mode "$mode" --checkpoint-staging "${SLIDEDP_CKPT_STAGING:-auto}" --checkpoint-at-end false --keep-checkpoints 1 \
      --checkpoint-write-rate "${SLIDEDP_CKPT_WRITE_RATE:-0}" --checkpoint-io "${SLIDEDP_CKPT_IO:-auto}" \
      > "$OUT/ckpt-run$sfx.log" 2>&1 || rc=1
    [ -n "$vmpid" ] && kill "$vmpid" 2>/dev/null
    { echo "== after"; grep -E "^(pgscan|pgsteal|allocstall|nr_dirty |nr_writeback )" /proc/vmstat; grep "^cpu" /proc/stat
      echo "== vmstat -w -t 2 during the run"; cat "$OUT/ckpt-vmstat$sfx.tmp" 2>/dev/null; } >> "$OUT/ckpt-kernel$sfx.txt"
    rm -f "$OUT/ckpt-vmstat$sfx.tmp"
    if [ -n "${old_ratio:-}" ]; then
      if [ "$old_bytes" -gt 0 ]; then echo "$old_bytes" > /proc/sys/vm/dirty_bytes; else echo "$old_ratio" > /proc/sys/vm/dirty_ratio; fi
      echo "ckpt: vm.dirty_ratio $(cat /proc/sys/vm/dirty_ratio) dirty_bytes $(cat /proc/sys/vm/dirty_bytes) restored"
    fi
    grep -E "\] (checkpoint|the checkpoint|waited|step ($every|$((every + 1))|$((every + 2)))/)|rror" "$OUT/ckpt-run$sfx.log" \
      | cut -c1-330 | tail -14
    python3 tools/bench/ckpt_cost.py --base "$OUT/ckpt-base$sfx.jsonl" --run "$OUT/ckpt-run$sfx.jsonl" \
      --log "$OUT/ckpt-run$sfx.log" --label "mode=$mode config=$(basename "$config" .json)" | tee "$OUT/ckpt-cost$sfx.txt" | tail -8 || rc=1
    rm -rf "$dir" && mkdir -p "$dir"
    costs+=("$OUT/ckpt-cost$sfx.txt")
  done
  if [ "$reps" -gt 1 ]; then
    python3 tools/bench/ckpt_cost.py --summary "${costs[@]}" | tee "$OUT/ckpt-cost.txt" || rc=1
    tar czf "$OUT/ckpt-repeats.tgz" -C "$OUT" $(cd "$OUT" && ls ckpt-*-r[0-9]* 2>/dev/null) \
      && (cd "$OUT" && rm -f ckpt-*-r[0-9]*)
  fi
  rm -rf "$dir"
  return 0
}
do_tail() {
  # The update tail --policy auto chooses (the model's leader-bound case: batch 4 on 1xH200)
  # against none: the plan's own flags (what --policy auto runs) in one job whose --route-sweep
  # alternates +tailM and none, SLIDEDP_TAIL_PAIRS pairs (the leader's AdamW rate drifts +-10%
  # between jobs minutes apart on the shared host; alternating variants of one job falls on both
  # sides alike); SLIDEDP_TAIL_UNITS=M compares that M instead. tools/bench/tail_ab.py's RESULT
  # line: the measured step ratio beside the model's (slidedp_plan --evaluate of both, on the
  # same calibration). ~4 min on 1xH200 (calibration ~1 min, start-up, 4 x 10 steps).
  local rows=${SLIDEDP_TAIL_BATCH:-4} pairs=${SLIDEDP_TAIL_PAIRS:-2} steps=${SLIDEDP_TAIL_STEPS:-10}
  local T=${SLIDEDP_TAIL_SEQ:-4096} config=$CONFIG cal=$OUT/tail-calibration.json
  local dev=(--gpus "$GPUS") plan_dev=(--gpus "$NGPU" --device cuda)
  # CPU (no GPU): a dry run of the logic on the small shape CI plans with
  if [ "$NGPU" -eq 0 ]; then
    dev=(--cpu-workers 1) plan_dev=(--gpus 1 --device cpu) config=tests/planner/qwen3-cpu-check.json T=${SLIDEDP_TAIL_SEQ:-256}
  fi
  step "tail: the update tail vs none ($config, batch $rows, seq $T, $pairs pair(s) of $steps steps)"
  local common=(--model-config "$config" --batch-size "$rows" --seq-len "$T" --calibration "$cal")
  SLIDEDP_PLAN=$BIN/slidedp_plan SLIDEDP_WORKER=$BIN/slidedp_worker timeout 300 launcher/slidedp-run "${dev[@]}" --plan -- \
    "${common[@]}" --top 3 > "$OUT/tail-plan.log" 2>&1 || { rc=1; tail -5 "$OUT/tail-plan.log"; return 0; }
  grep -E "^best:|run it with:" "$OUT/tail-plan.log"
  local flags m base
  flags=$(sed -n 's/^  run it with: //p' "$OUT/tail-plan.log" | tail -1)
  m=${SLIDEDP_TAIL_UNITS:-$(grep -o -- '--update-tail-units [0-9]*' <<< "$flags" | awk '{print $2}')}
  [ -z "$m" ] && echo "tail: the plan chose no update tail at this shape (SLIDEDP_TAIL_UNITS=M compares one)" && return 0
  base=$(sed 's/ --update-tail-units [0-9]*//' <<< "$flags")
  # the model's step of each side, on the same calibration
  predict() {  # shellcheck disable=SC2086  # the plan's flags, word-split
    "$BIN/slidedp_plan" "${common[@]}" "${plan_dev[@]}" --evaluate $base --update-tail-units "$1" 2>&1 \
      | sed -n 's/^PREDICTION step_s=\([0-9.]*\).*/\1/p'
  }
  local tail_s none_s; tail_s=$(predict "$m"); none_s=$(predict 0)
  echo "tail: M = $m; predicted $tail_s s/step with it, $none_s without"
  # The sweep's items carry the route and offload; the plan's other flags are the job's.
  local route mods="" job sweep="" p
  route="$(grep -o -- '--delivery [a-z-]*' <<< "$base" | awk '{print $2}')/$(grep -o -- '--reduction [a-z-]*' <<< "$base" | awk '{print $2}')"
  [[ "$base" == *--offload-activations* ]] && mods="+offload"
  job=$(sed -E 's/ ?--(delivery|reduction) [a-z-]+//g; s/ ?--offload-activations//' <<< "$base")
  for (( p = 1; p <= pairs; p++ )); do sweep+="${sweep:+,}$route$mods+tail$m@$rows,$route$mods@$rows"; done
  # shellcheck disable=SC2086  # the plan's flags, word-split
  SLIDEDP_WORKER=$BIN/slidedp_worker timeout 500 launcher/slidedp-run "${dev[@]}" --worker-threads 2 -- \
    "${common[@]}" --steps "$steps" --warmup-steps 2 --lr 1e-5 --policy manual $job --route-sweep "$sweep" \
    --metrics "$OUT/tail.jsonl" > "$OUT/tail.log" 2>&1 || rc=1
  grep -E "rror|^variant|@$rows " "$OUT/tail.log" | cut -c1-200 | tail -8
  python3 tools/bench/tail_ab.py "$OUT/tail.jsonl" --predicted-tail "${tail_s:-0}" --predicted-none "${none_s:-0}" \
    | tee "$OUT/tail-ab.txt" || rc=1
}
do_adamw() {
  step "adamw"
  timeout 120 bash tools/bench/bench_adamw.sh --build "$B" --n 256M --threads $(nproc) > "$OUT/bench-adamw.log" 2>&1 || rc=1
  tail -25 "$OUT/bench-adamw.log"
}
do_ipc() {
  step "ipc: CUDA IPC peer-copy rate between 2 ranks (the IPC routes' copy engines)"
  SHARE=$([ "$NGPU" -lt 2 ] && echo --share-gpu)
  IPC_BIN=$BIN/bench_ipc; [ -x "$IPC_BIN" ] || IPC_BIN=$B/bin/bench_ipc
  timeout 120 mpirun --bind-to none -np 2 "$IPC_BIN" --mib 256 --iters 20 $SHARE > "$OUT/bench-ipc.log" 2>&1 || rc=1
  grep -E "bench_ipc|RESULT|rror" "$OUT/bench-ipc.log"
}
for s in $STEPS; do
  declare -F "do_$s" >/dev/null || { echo "gpu-check.sh: unknown step '$s' (steps: build test layer profile slidedp default memory reserve placement packed peers longest ipc plan ckpt tail main realrun finetune adamw)"; exit 2; }
  "do_$s"
done
echo "=== done rc=$rc ($(date +%T))"
exit $rc
