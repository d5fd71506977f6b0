#!/usr/bin/env bash
# One short call: the review's mends of the new GPU test (the calls' operands held as storages:
# alive after the caller's handles, released with the last call) and the GEMM tests, through
# the prebuilt test bundle, then the decoder's GPU tests (attention under the new default).
cd "$(git rev-parse --show-toplevel)"
S=$SECONDS
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 150 bash tools/prebuilt-tests.sh --output-on-failure -R "test_layer_ops_gpu|test_decoder_gpu|test_flash_attention3_gpu" > "$OUT/ctest-gpu.log" 2>&1; echo "ctest rc=$?"
grep -E "tests passed|Failed|\*\*\*|Test +#" "$OUT/ctest-gpu.log" | tail -6
TORCH_LIB=$(python3 -c 'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "lib"))')
BLD=$(sed -n 's/^build=//p' .prebuilt/ctest/ORIGIN)
LD_LIBRARY_PATH=$(pwd)/.prebuilt/lib:$TORCH_LIB:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-} timeout 60 \
  "$BLD/bin/test_layer_ops_gpu" --gtest_filter='LtCandidateCalls.*:LayerGemm.*' > "$OUT/gemm-tests.log" 2>&1
echo "gemm tests rc=$?"; grep -E "^\[ +(OK|FAILED|SKIPPED|PASSED) +\]|Failure" "$OUT/gemm-tests.log" | head -12
echo "elapsed $((SECONDS - S)) s"
