#!/usr/bin/env bash
# Builds, here (no GPU needed), what the GPU call in call.sh runs: the prebuilt bundle with its
# GPU tests for main + kernels.patch, and two bench_kernels binaries in .ab/ (git-excluded):
#   .ab/bench_kernels_new    main + kernels.patch
#   .ab/bench_kernels_xent2  the same with the cross-entropy's one-read kernel switched off (the
#                            two-read kernel of main), for the A/B of that kernel
# Run from the repository root with kernels.patch applied (git apply <this folder>/kernels.patch).
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
K=src/kernels/layer_kernels.cu
grep -q "softmaxXentCachedKernel" "$K" || { echo "apply kernels.patch first" >&2; exit 2; }
bash tools/gpu-prebuild.sh --tests
mkdir -p .ab
cmake --build build-rel --target bench_kernels
cp build-rel/bin/bench_kernels .ab/bench_kernels_new
sed -i 's/    if constexpr (sizeof(T) == 2) {/    if constexpr (sizeof(T) == 0) {/' "$K"
trap 'sed -i "s/    if constexpr (sizeof(T) == 0) {/    if constexpr (sizeof(T) == 2) {/" "$K"' EXIT
cmake --build build-rel --target bench_kernels
cp build-rel/bin/bench_kernels .ab/bench_kernels_xent2
