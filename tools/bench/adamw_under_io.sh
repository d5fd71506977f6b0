#!/usr/bin/env bash
# Does a disk write slow the leader's AdamW? bench_adamw (the fused host AdamW and a STREAM
# triad, OpenMP pinned as the launcher pins it) alone, then while `dd` writes to the disk at
# whatever rate it allows: buffered (through the page cache, as the checkpoint writer does),
# and with O_DIRECT (no page cache). Isolates the cost the ckpt step of tools/gpu-check.sh sees
# during a checkpoint write (steps slower while the disk is busy) from the rest of the run.
#
#   bash tools/bench/adamw_under_io.sh BUILD_DIR [DIR_ON_THE_DISK] [THREADS]
set -euo pipefail
build=$1 dir=${2:-$(pwd)} threads=${3:-$(( $(nproc) - 2 ))}
bin=$build/bin/bench_adamw
[ -x "$bin" ] || { echo "adamw_under_io.sh: $bin not found. HINT: cmake --build $build --target bench_adamw" >&2; exit 1; }
file=$dir/adamw-under-io.tmp
bench() { OMP_PROC_BIND=close OMP_PLACES=cores "$bin" --n 512M --threads "$threads" --reps 15 --slots 1 --dtypes f32 \
            | grep -E "^RESULT" | sed "s/^/$1 /"; }
writer() {  # $1: extra dd flags; runs until killed
  dd if=/dev/zero of="$file" bs=8M count=4000 $1 status=none 2>/dev/null &
  echo $!
}
trap 'rm -f "$file"' EXIT
bench quiet
for mode in buffered direct; do
  flags=; [ $mode = direct ] && flags="oflag=direct"
  pid=$(writer "$flags"); sleep 3
  before=$(awk '/^(nr_written)/ {print $2}' /proc/vmstat 2>/dev/null || echo 0)
  t0=$(date +%s.%N)
  bench "dd-$mode"
  t1=$(date +%s.%N)
  after=$(awk '/^(nr_written)/ {print $2}' /proc/vmstat 2>/dev/null || echo 0)
  kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true
  echo "dd-$mode: the disk took $(awk -v a="$after" -v b="$before" -v s="$t0" -v e="$t1" 'BEGIN {printf "%.0f", (a - b) * 4096 / (e - s) / 1e6}') MB/s while it ran"
  rm -f "$file"; sync
done
bench quiet-again
