#!/usr/bin/env bash
# The README's test command: set-up (idempotent), build, then every test under CTest.
# GPU tests are registered only where a GPU is present (see cmake/SlidedpTesting.cmake), so a
# machine without one neither runs nor counts them. Extra arguments go to ctest
# (e.g. -L unit, -R segment).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
BUILD_DIR=${SLIDEDP_BUILD_DIR:-$(pwd)/build}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
ctest --test-dir "$BUILD_DIR" --output-on-failure -j "${SLIDEDP_TEST_JOBS:-2}" "$@"
