#!/usr/bin/env bash
# tools/prebuilt-tests.sh (tools/gpu-check.sh's `test` where nothing was built) on a synthetic
# bundle, without a GPU: the CTest tree goes back to the build folder its ORIGIN names, bin/
# links to .prebuilt/bin, the build machine's python and mpirun in the CTest files become this
# machine's, ctest's arguments pass through (-L picks the labels) and a failing test fails the
# script; a missing bundle, a bundle for a checkout at another path and a build folder holding a
# build of its own are refused with exit 2 and what to do, before any test runs.
set -uo pipefail
src="$(cd "$(dirname "$0")/../.." && pwd)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
check() { if eval "$2"; then echo "ok: $1"; else echo "FAIL: $1"; fails=$((fails + 1)); fi; }

co=$tmp/checkout build=$tmp/checkout/build-x
mkdir -p "$co/tools" "$co/.prebuilt/bin" "$co/.prebuilt/ctest/tree/tests"
cp "$src/tools/prebuilt-tests.sh" "$co/tools/"
cat > "$co/.prebuilt/bin/fake_test" <<'SH'
#!/usr/bin/env bash
echo "fake_test in $(pwd) as $0 with: $*"
echo "fake_test LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
exit "${FAKE_RC:-0}"
SH
chmod +x "$co/.prebuilt/bin/fake_test"
# a test binary that comes in the bundle's archive, as gpu-prebuild.sh --tests packs them
mkdir -p "$tmp/pack/bin" && cp "$co/.prebuilt/bin/fake_test" "$tmp/pack/bin/packed_test"
tar -C "$tmp/pack" -cJf "$co/.prebuilt/ctest/bin.tar.xz" bin
echo 'subdirs("tests")' > "$co/.prebuilt/ctest/tree/CTestTestfile.cmake"
cat > "$co/.prebuilt/ctest/tree/tests/CTestTestfile.cmake" <<CT
add_test(gpu_one "$build/bin/fake_test" "/build-machine/venv/bin/python" "/build-machine/bin/mpirun")
set_tests_properties(gpu_one PROPERTIES LABELS "gpu" WORKING_DIRECTORY "$build/tests")
add_test(gpu_packed "$build/bin/packed_test" "packed")
set_tests_properties(gpu_packed PROPERTIES LABELS "gpu" WORKING_DIRECTORY "$build/tests")
add_test(cpu_one "$build/bin/not_in_the_bundle")
set_tests_properties(cpu_one PROPERTIES LABELS "unit" WORKING_DIRECTORY "$build/tests")
CT
origin() { printf 'root=%s\nbuild=%s\npython=/build-machine/venv/bin/python\nmpirun=/build-machine/bin/mpirun\ncommit=0123456789abcdef\n' "$1" "$build" > "$co/.prebuilt/ctest/ORIGIN"; }
origin "$co"
py_here=$(command -v python3) mpi_here=$(command -v mpirun || echo /build-machine/bin/mpirun)

out=$(bash "$co/tools/prebuilt-tests.sh" -L gpu -V 2>&1); rc=$?
check "the gpu-labelled tests run and pass (rc $rc)" '[ $rc -eq 0 ] && grep -q "100% tests passed, 0 tests failed out of 2" <<< "$out"'
check "the packed test binary was unpacked and linked into bin/" 'grep -q "fake_test in $build/tests as $build/bin/packed_test with: packed" <<< "$out"'
check "only the -L gpu test ran" '! grep -q "cpu_one" <<< "$out"'
check "the build machine's python and mpirun became this machine's" 'grep -q "with: $py_here $mpi_here" <<< "$out"'
check "it ran in the build folder's test directory, through bin/" 'grep -q "fake_test in $build/tests as $build/bin/fake_test" <<< "$out"'
check "the binaries find the libraries of .prebuilt/lib" 'grep -q "fake_test LD_LIBRARY_PATH=$co/.prebuilt/lib" <<< "$out"'
check "bin/ links to .prebuilt/bin" '[ "$(readlink "$build/bin/fake_test")" = "$co/.prebuilt/bin/fake_test" ]'
check "the bundle's own files are unchanged" 'grep -q "/build-machine/venv/bin/python" "$co/.prebuilt/ctest/tree/tests/CTestTestfile.cmake"'

out=$(FAKE_RC=1 bash "$co/tools/prebuilt-tests.sh" -L gpu 2>&1); rc=$?
check "a failing test fails the script (rc $rc), and a second run rebuilds the tree" '[ $rc -ne 0 ] && [ $rc -ne 2 ] && grep -q "^0% tests passed" <<< "$out"'

origin /somewhere/else
out=$(bash "$co/tools/prebuilt-tests.sh" -L gpu 2>&1); rc=$?
check "a bundle for another checkout path is refused (rc $rc)" '[ $rc -eq 2 ] && grep -q "built for a checkout at /somewhere/else" <<< "$out" && grep -q "gpu-check.sh build test" <<< "$out"'
origin "$co"

touch "$build/CMakeCache.txt"
out=$(bash "$co/tools/prebuilt-tests.sh" -L gpu 2>&1); rc=$?
check "a build folder with a build of its own is left alone (rc $rc)" '[ $rc -eq 2 ] && grep -q "holds a build of its own" <<< "$out" && [ -f "$build/CMakeCache.txt" ]'
rm -f "$build/CMakeCache.txt"

rm "$co/.prebuilt/ctest/ORIGIN"
out=$(bash "$co/tools/prebuilt-tests.sh" -L gpu 2>&1); rc=$?
check "no bundle: refused with how to make one (rc $rc)" '[ $rc -eq 2 ] && grep -q "gpu-prebuild.sh --tests" <<< "$out"'

[ $fails -eq 0 ] && echo "all checks passed" || { echo "FAIL: $fails check(s)"; exit 1; }
