#!/usr/bin/env bash
# Builds slidedp_worker, slidedp_plan and bench_layer here (Release, against the venv's torch 2.11.0+cu130,
# the same wheel as the GPU machine's) into .prebuilt/ (git-ignored), with the shared libraries
# the GPU machine's Ubuntu lacks under the same soname, so that tools/gpu-check.sh can skip the
# build there (minutes of lent GPU time). gpu-check.sh checks the binary starts there and
# builds from source when it does not.
#
#   bash tools/gpu-prebuild.sh        # then carry .prebuilt in the device run
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${SLIDEDP_PREBUILD_DIR:-build-rel}
PY=${SLIDEDP_PYTHON:-$HOME/.cache/slidedp/venv/bin/python}
[ -f "$BUILD/CMakeCache.txt" ] || cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSLIDEDP_PYTHON="$PY"
cmake --build "$BUILD" -j "$(nproc)" --target slidedp_worker slidedp_plan bench_layer
rm -rf .prebuilt && mkdir -p .prebuilt/bin .prebuilt/lib
for b in slidedp_worker slidedp_plan bench_layer; do strip -o ".prebuilt/bin/$b" "$BUILD/bin/$b"; done
# Debian 12's spdlog is soname 1.10 (Ubuntu 24.04 ships 1.12): take ours along.
for l in libspdlog.so.1.10 libfmt.so.9; do cp -L "/lib/x86_64-linux-gnu/$l" .prebuilt/lib/; done
# The header-only xxHash (checkpoint checksums) the GPU machine lacks, for a build there.
mkdir -p .prebuilt/include && cp /usr/include/xxhash.h .prebuilt/include/
git rev-parse HEAD > .prebuilt/COMMIT
git diff --quiet HEAD -- src shm CMakeLists.txt cmake tools/bench || echo "dirty" >> .prebuilt/COMMIT
du -sh .prebuilt
