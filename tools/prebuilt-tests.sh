#!/usr/bin/env bash
# Runs, without building, the GPU tests that `tools/gpu-prebuild.sh --tests` built on a machine
# without a GPU (the GPU machine's build of them takes most of a device call). The bundle is
# .prebuilt/bin (the programs), .prebuilt/ctest/bin.tar.xz (the test binaries), tree/ (the
# CTest files of that build) and ORIGIN (the paths it was made with). The test binaries hold
# the paths of the build they came from (the build folder, the fixtures in .gpu/shared, mpirun),
# so the CTest tree goes back to that build folder under the same checkout path, its bin/ links
# to the programs and the unpacked test binaries, and the Python and mpirun named in the CTest
# files become this machine's.
#
#   bash tools/prebuilt-tests.sh -L gpu --output-on-failure -j 3     # arguments go to ctest
#
# Exits 2, before any test, with what to do instead when: there is no bundle, it was built for
# a checkout at another path, the build folder already holds a build of its own, or this
# machine has no python3. Run by tools/gpu-check.sh's `test` when nothing was built there.
set -euo pipefail
cd "$(dirname "$0")/.."
bundle=.prebuilt/ctest
fail() { echo "prebuilt-tests: $*" >&2; exit 2; }
[ -f "$bundle/ORIGIN" ] || fail "no $bundle/ORIGIN here: run \`bash tools/gpu-prebuild.sh --tests\` where the code is built and carry .prebuilt"
origin() { sed -n "s/^$1=//p" "$bundle/ORIGIN"; }
root=$(origin root) build=$(origin build) python=$(origin python) mpirun=$(origin mpirun)
[ -n "$root" ] && [ -n "$build" ] || fail "$bundle/ORIGIN lacks root= or build=: rebuild the bundle (tools/gpu-prebuild.sh --tests)"
[ "$root" = "$(pwd)" ] || fail "the tests were built for a checkout at $root (their binaries hold that path); this one is at $(pwd): build them here instead (tools/gpu-check.sh build test)"
[ -f "$build/CMakeCache.txt" ] && fail "$build holds a build of its own (CMakeCache.txt): run ctest there, or remove it"
py_here=$(command -v python3) || fail "no python3 on PATH (the reference fixtures are made with it)"
mpi_here=$(command -v mpirun || true)
echo "prebuilt-tests: tests of $(origin commit | cut -c1-10), built for $build"
rm -rf "$build" && mkdir -p "$build/bin"
cp -r "$bundle/tree/." "$build/"
# The test binaries come xz-compressed (bin.tar.xz -> $bundle/bin); Python's tarfile, as xz
# itself may be missing here.
if [ -f "$bundle/bin.tar.xz" ]; then
  rm -rf "$bundle/bin"
  "$py_here" -c 'import sys, tarfile
with tarfile.open(sys.argv[1]) as t:
    t.extractall(sys.argv[2], **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))' \
    "$bundle/bin.tar.xz" "$bundle" \
    || fail "$bundle/bin.tar.xz does not unpack: rebuild the bundle (tools/gpu-prebuild.sh --tests)"
fi
for f in .prebuilt/bin/* "$bundle"/bin/*; do
  if [ -e "$f" ]; then ln -sfn "$(pwd)/$f" "$build/bin/$(basename "$f")"; fi
done
# The interpreter and mpirun of the build machine, in the CTest files, become this machine's.
subst=(-e "s|$python|$py_here|g")
if [ -n "$mpirun" ] && [ -n "$mpi_here" ] && [ "$mpirun" != "$mpi_here" ]; then
  subst+=(-e "s|$mpirun|$mpi_here|g")
  echo "prebuilt-tests: mpirun is $mpi_here here, $mpirun where the tests were built: the tests that" \
       "start mpirun themselves (test_gpu_job) name the latter and will fail to start"
fi
find "$build" -name CTestTestfile.cmake -exec sed -i "${subst[@]}" {} +
# The binaries load LibTorch's libraries and those in .prebuilt/lib (tools/gpu-check.sh sets the
# same path; without it, run by hand, every test failed with "libtorch.so: cannot open").
torch_lib=$("$py_here" -c 'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "lib"))' 2>/dev/null || true)
[ -n "$torch_lib" ] || echo "prebuilt-tests: $py_here has no torch: the test binaries will find LibTorch only on LD_LIBRARY_PATH"
export LD_LIBRARY_PATH="$(pwd)/.prebuilt/lib${torch_lib:+:$torch_lib}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
ctest --test-dir "$build" "$@"
