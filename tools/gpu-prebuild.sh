#!/usr/bin/env bash
# Builds slidedp_worker, slidedp_plan and bench_layer here (Release, against the venv's torch 2.11.0+cu130,
# the same wheel as the GPU machine's) into .prebuilt/ (git-ignored), with the shared libraries
# the GPU machine's Ubuntu lacks under the same soname, so that tools/gpu-check.sh can skip the
# build there (minutes of lent GPU time). gpu-check.sh checks the binary starts there and
# builds from source when it does not.
#
#   bash tools/gpu-prebuild.sh            # then carry .prebuilt in the device run
#   bash tools/gpu-prebuild.sh --tests    # and the GPU tests (2 MB more, xz; ~1 min more on 2 cores)
#
# --tests also builds the GPU test binaries (registered here as for 1 GPU: SLIDEDP_ASSUME_GPUS)
# against the fixtures in .gpu/shared (which must exist: tools/gpu-check.sh's header says how
# to fill it) and bundles their CTest files into .prebuilt/ctest, so that `tools/gpu-check.sh
# test` runs them there without building (tools/prebuilt-tests.sh); carry .prebuilt and .gpu.
set -euo pipefail
cd "$(dirname "$0")/.."
TESTS=0
case "${1:-}" in
  --tests) TESTS=1 ;;
  "") ;;
  *) echo "gpu-prebuild.sh: unknown argument $1 (usage: gpu-prebuild.sh [--tests])" >&2; exit 2 ;;
esac
BUILD=${SLIDEDP_PREBUILD_DIR:-build-rel}
PY=${SLIDEDP_PYTHON:-$HOME/.cache/slidedp/venv/bin/python}
GPU_TESTS="test_layer_ops_gpu test_decoder_gpu test_long_sequence_gpu test_reference_equivalence test_gpu_job test_flash_attention3_gpu"
CONFIG=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DSLIDEDP_PYTHON="$PY")
if [ "$TESTS" = 1 ]; then
  [ -f .gpu/shared/models/stories260K/config.json ] || { echo "gpu-prebuild.sh --tests: no fixtures in" \
    ".gpu/shared (the test binaries hold their path): fill it first, as tools/gpu-check.sh's header says" >&2; exit 2; }
  CONFIG+=(-DSLIDEDP_ASSUME_GPUS=1 -DSLIDEDP_SHARED_DIR="$(pwd)/.gpu/shared")
fi
# A plain prebuild configures once; --tests (re)configures with the GPU tests registered.
[ -f "$BUILD/CMakeCache.txt" ] && [ "$TESTS" = 0 ] || cmake -S . -B "$BUILD" "${CONFIG[@]}" > /dev/null
TARGETS="slidedp_worker slidedp_plan bench_layer"
[ "$TESTS" = 1 ] && TARGETS="$TARGETS $GPU_TESTS"
# shellcheck disable=SC2086  # the target list, word-split
cmake --build "$BUILD" -j "$(nproc)" --target $TARGETS
rm -rf .prebuilt && mkdir -p .prebuilt/bin .prebuilt/lib
for b in slidedp_worker slidedp_plan bench_layer; do strip -o ".prebuilt/bin/$b" "$BUILD/bin/$b"; done
if [ "$TESTS" = 1 ]; then
  # The test binaries, xz-compressed (24 MB -> 2: they share most of their code; the device
  # call's tree must stay under 64 MiB), and the build's CTest files (what ctest runs, with the
  # paths the binaries were built for).
  mkdir -p .prebuilt/ctest/tree .prebuilt/ctest/bin
  for b in $GPU_TESTS; do strip -o ".prebuilt/ctest/bin/$b" "$BUILD/bin/$b"; done
  tar -C .prebuilt/ctest -cJf .prebuilt/ctest/bin.tar.xz bin && rm -r .prebuilt/ctest/bin
  (cd "$BUILD" && find . -name CTestTestfile.cmake -exec cp --parents {} "$OLDPWD/.prebuilt/ctest/tree" \;)
  { echo "root=$(pwd)"; echo "build=$(cd "$BUILD" && pwd)"; echo "python=$PY"
    echo "mpirun=$(sed -n 's/^MPIEXEC_EXECUTABLE_FOUND:FILEPATH=//p' "$BUILD/CMakeCache.txt")"; echo "commit=$(git rev-parse HEAD)"
  } > .prebuilt/ctest/ORIGIN
  echo "GPU tests: $(ctest --test-dir "$BUILD" -L gpu -N | sed -n 's/^Total Tests: //p') in .prebuilt/ctest (tools/prebuilt-tests.sh runs them)"
fi
# Debian 12's spdlog is soname 1.10 (Ubuntu 24.04 ships 1.12): take ours along.
for l in libspdlog.so.1.10 libfmt.so.9; do cp -L "/lib/x86_64-linux-gnu/$l" .prebuilt/lib/; done
# The header-only xxHash (checkpoint checksums) the GPU machine lacks, for a build there.
mkdir -p .prebuilt/include && cp /usr/include/xxhash.h .prebuilt/include/
git rev-parse HEAD > .prebuilt/COMMIT
git diff --quiet HEAD -- src shm CMakeLists.txt cmake tools/bench || echo "dirty" >> .prebuilt/COMMIT
du -sh .prebuilt
