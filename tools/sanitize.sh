#!/usr/bin/env bash
# Sanitizer builds of the CPU suite, each in its own build folder (build-asan, build-tsan), with
# the CUDA paths off. ASan+UBSan (address) by default; TSan with `thread`.
#
#   bash tools/sanitize.sh [address|thread] [--all] [ctest arguments...]
#
# What runs: the tests whose code is ours end to end and that do not load LibTorch (the wheel's
# libtorch is not instrumented): shared segment, control block, layouts, roles and segments
# under mpirun (rank roles, the watchdog's job guard, abort propagation), the AdamW kernels and
# schedule, the data loaders, safetensors/checkpoint reading and writing, the streamed checkpoint
# writer and its threads. --all builds and runs every CPU test, slidedp_worker and the
# system tests included (every LibTorch translation unit again with the sanitizer: long).
# Every report fails the test: UBSan does not recover, ASan stops at its first error, LSan
# reports leaks at exit. Open MPI's own leaks (its libraries are not ours) are suppressed in
# tools/sanitizers/lsan.supp; TSan reports inside libgomp/Open MPI in tsan.supp. Each
# suppression says why.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
KIND=address
case "${1:-}" in address|thread) KIND=$1; shift ;; esac
ALL=0
if [ "${1:-}" = "--all" ]; then ALL=1; shift; fi
if [ "$KIND" = address ]; then SAN=address,undefined; DIR=${SLIDEDP_SAN_BUILD_DIR:-$ROOT/build-asan}
else SAN=thread; DIR=${SLIDEDP_SAN_BUILD_DIR:-$ROOT/build-tsan}; fi

PY=${SLIDEDP_PYTHON:-$HOME/.cache/slidedp/venv/bin/python}
[ -x "$PY" ] || PY=$(command -v python3)
GEN=(); command -v ninja >/dev/null && GEN=(-G Ninja)
cmake -S "$ROOT" -B "$DIR" "${GEN[@]}" -DSLIDEDP_PYTHON="$PY" -DSLIDEDP_SANITIZE="$SAN" \
  -DSLIDEDP_WITH_CUDA=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null

TARGETS=(test_shm_layout test_shm_control_block test_shm_segment test_host_state_layout
         test_mpi_roles_segment test_adamw test_lr_schedule test_adamw_reference test_data test_formats
         test_streamed_writer)
REGEX='^(test_shm_|test_host_state_layout|test_mpi_roles_segment|test_adamw|test_lr_schedule|test_data|test_formats|test_streamed_writer)'
if [ "$ALL" = 1 ]; then TARGETS=(all); REGEX='.'; fi
# Builds on a shared machine queue on a lock (SLIDEDP_BUILD_LOCK; none where flock is absent).
LOCKED=(); command -v flock >/dev/null && LOCKED=(flock "${SLIDEDP_BUILD_LOCK:-/tmp/slidedp-build.lock}")
t0=$(date +%s)
"${LOCKED[@]}" cmake --build "$DIR" -j "${SLIDEDP_JOBS:-$(nproc)}" $(printf -- '--target %s ' "${TARGETS[@]}")
echo "[sanitize] $SAN build: $(( $(date +%s) - t0 )) s"

SUPP=$ROOT/tools/sanitizers
# dlclose() as a no-op (see no_dlclose.c), preloaded: Open MPI's unloaded plug-ins stay nameable.
cc -shared -fPIC -O2 -o "$DIR/libno_dlclose.so" "$SUPP/no_dlclose.c"
export LD_PRELOAD="$DIR/libno_dlclose.so${LD_PRELOAD:+:$LD_PRELOAD}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
# verify_asan_link_order=0: the preloaded shim comes before libasan (it allocates nothing);
# fast_unwind_on_malloc=0: full stacks through Open MPI (no frame pointers), so lsan.supp matches.
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:exitcode=99:strict_string_checks=1:detect_stack_use_after_return=1:verify_asan_link_order=0:fast_unwind_on_malloc=0"
export LSAN_OPTIONS="suppressions=$SUPP/lsan.supp:print_suppressions=0"
export TSAN_OPTIONS="suppressions=$SUPP/tsan.supp:halt_on_error=1:exitcode=99"
# TSan: OpenMP regions run on one thread. libgomp is not instrumented, so TSan cannot see its
# barriers and reports the reuse, after a parallel region, of what its threads read as races
# (seen: a stack slot of test_adamw_reference). Our own threads (watchdog, hand-off, control
# block waits, the streamed checkpoint writer and its I/O threads) stay checked.
# test_adamw runs too: its million-element cases are cut to 100003 elements under TSan
# (__SANITIZE_THREAD__ in the test), which took them from ~10 minutes to about one.
EXCLUDE='^$'
if [ "$KIND" = thread ]; then export OMP_THREAD_LIMIT=1; fi
t0=$(date +%s)
status=0
ctest --test-dir "$DIR" --output-on-failure -j "${SLIDEDP_TEST_JOBS:-2}" -R "$REGEX" -E "$EXCLUDE" "$@" || status=$?
echo "[sanitize] $SAN tests: $(( $(date +%s) - t0 )) s"
# A report a test did not turn into a failure (printed by a rank whose exit status was lost)
# still fails the run.
if grep -rlE "ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:|WARNING: ThreadSanitizer" \
     "$DIR/Testing/Temporary/LastTest.log" >/dev/null 2>&1; then
  echo "[sanitize] sanitizer reports in $DIR/Testing/Temporary/LastTest.log" >&2
  status=1
fi
exit $status
