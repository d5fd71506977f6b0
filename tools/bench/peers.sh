#!/usr/bin/env bash
# The peer benchmark in one call on the GPU machine: slidedp against FSDP2, FSDP2 + CPU offload
# and DeepSpeed ZeRO-Offload, each also with Liger-Kernel (the *_liger systems), on the same
# model shape, sequence length(s) and global batches
# (tools/bench/compare.py does the work; every argument goes to it), writing logs, CSV, JSONL,
# the summary and the plot into ${OUT:-./bench-out}.
#
#   bash tools/bench/peers.sh --config tools/configs/qwen3-4b.json --seq-len 4096 \
#       --batches 4,8,16 --gpus 0 [--systems ...] [--slidedp-args "..."] [--time-budget S]
#   bash tools/bench/peers.sh ... --seq-lens 65536,131072 --batches 1 \
#       --systems slidedp,fsdp2_liger_ac                     # long sequences
#
# Before that it
#   1. installs the wheels of .whl/ (tools/bench/fetch_peer_wheels.sh fetches them on a machine
#      with PyPI: DeepSpeed, liger-kernel, hjson, pydantic, ...) into /tmp/site and puts it on
#      PYTHONPATH;
#   2. JIT-builds DeepSpeed's CPU Adam op once, timed, with its log in $OUT/deepspeed-op-build.log,
#      so that no rank of the deepspeed runs compiles inside a timed or timeout-bound job.
# The one design decision: nothing is installed outside /tmp/site and torch's extension cache,
# so the machine's Python stays as it was lent.
# Environment: OUT (output folder), SLIDEDP_PYTHON (interpreter with torch; default python3),
# SLIDEDP_WORKER (slidedp binary; default build/bin/slidedp_worker), SLIDEDP_WHL_DIR (the wheels;
# default <repo>/.whl), SLIDEDP_SITE (where they are installed; default /tmp/site).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
py="${SLIDEDP_PYTHON:-python3}"
out="${OUT:-$root/bench-out}"
whl="${SLIDEDP_WHL_DIR:-$root/.whl}"
site="${SLIDEDP_SITE:-/tmp/site}"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

die() { echo "peers.sh: error: $1" >&2; [[ $# -gt 1 ]] && echo "HINT: $2" >&2; exit 2; }

# what compare.py will be asked for (its own checks come later; these only steer the set-up)
# (the default is compare.py's DEFAULT_SYSTEMS; tests/launcher/test_peer_bench.sh checks they agree)
device=cuda systems="slidedp,fsdp2,fsdp2_ac,fsdp2_liger,fsdp2_liger_ac,fsdp2_offload,deepspeed,deepspeed_liger" args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  case "${args[i]}" in
    --out) out="${args[i + 1]:-}" ;;
    --out=*) out="${args[i]#--out=}" ;;
    --device) device="${args[i + 1]:-}" ;;
    --device=*) device="${args[i]#--device=}" ;;
    --systems) systems="${args[i + 1]:-}" ;;
    --systems=*) systems="${args[i]#--systems=}" ;;
    --from-results|--from-results=*|-h|--help) exec "$py" "$here/compare.py" "$@" ;;
  esac
done
mkdir -p "$out"
echo "peers.sh: output in $out"

command -v "$py" >/dev/null || die "$py not found" "set SLIDEDP_PYTHON to an interpreter with torch"
"$py" -c 'import torch, transformers' 2>/dev/null \
  || die "$py cannot import torch and transformers" "set SLIDEDP_PYTHON to an interpreter that has them"
"$py" -m torch.distributed.run --help >/dev/null 2>&1 \
  || die "torchrun (python -m torch.distributed.run) does not start with $py"
if [[ "$device" == cuda ]]; then
  command -v nvidia-smi >/dev/null || die "nvidia-smi not found: this is not the GPU machine" \
    "run there, or pass --device cpu for a test run"
  n="$("$py" -c 'import torch; print(torch.cuda.device_count() if torch.cuda.is_available() else 0)')"
  [[ "$n" -gt 0 ]] || die "torch sees no GPU (torch.cuda.is_available() is False)" \
    "check nvidia-smi and CUDA_VISIBLE_DEVICES"
  echo "peers.sh: torch sees $n GPU(s): $(nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c | xargs)"
fi

# 1. wheels that travelled in .whl/
if compgen -G "$whl/*.whl" >/dev/null; then
  echo "peers.sh: installing $(ls "$whl"/*.whl | wc -l) wheel(s) from $whl into $site"
  if ! "$py" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
      --target "$site" "$whl"/*.whl >"$out/wheel-install.log" 2>&1; then
    cat "$out/wheel-install.log" >&2
    die "installing the wheels of $whl failed (log $out/wheel-install.log)" \
      "they are cp312 manylinux wheels: run with Python 3.12 (SLIDEDP_PYTHON), or refetch them"
  fi
  export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}"
  export PATH="$site/bin:$PATH"
else
  echo "peers.sh: no wheels in $whl (tools/bench/fetch_peer_wheels.sh fetches them): using what $py has"
fi

# 2. Liger-Kernel (only when a _liger system runs): its import once, so a missing wheel is
#    said here; its cutedsl/ascend back-ends print import warnings, harmless
if [[ ",$systems," == *_liger* ]]; then
  if v="$("$py" -c 'import liger_kernel.transformers; from importlib.metadata import version; print(version("liger-kernel"))' 2>"$out/liger-import.log" | tail -1)" && [[ -n "$v" ]]; then
    echo "peers.sh: Liger-Kernel $v imports (warnings, if any, in $out/liger-import.log)"
  else
    echo "peers.sh: warning: $py cannot import liger_kernel (no .whl/?); the _liger rows will" \
         "show the error. HINT: run tools/bench/fetch_peer_wheels.sh on a machine with PyPI" >&2
    tail -3 "$out/liger-import.log" >&2
  fi
fi

# 3. DeepSpeed's CPU Adam, built once (only when a deepspeed system runs)
if [[ ",$systems," == *,deepspeed* ]]; then
  if "$py" -c 'import deepspeed' 2>/dev/null; then
    export MAX_JOBS="${MAX_JOBS:-$(nproc)}"
    log="$out/deepspeed-op-build.log"
    t0=$(date +%s%N)
    if "$py" -c "from deepspeed.ops.op_builder import CPUAdamBuilder; m = CPUAdamBuilder().load(); print('loaded', m.__file__)" >"$log" 2>&1; then
      ms=$((($(date +%s%N) - t0) / 1000000))
      echo "peers.sh: DeepSpeed CPUAdam op ready in $((ms / 1000)).$(printf %03d $((ms % 1000))) s" \
           "($(tail -1 "$log"); log $log)"
    else
      echo "peers.sh: warning: building DeepSpeed's CPUAdam op failed (log $log); the deepspeed" \
           "rows will show the error. Last lines:" >&2
      tail -15 "$log" >&2
    fi
  else
    echo "peers.sh: warning: $py cannot import deepspeed (no .whl/?); the deepspeed rows will" \
         "show the error. HINT: run tools/bench/fetch_peer_wheels.sh on a machine with PyPI" >&2
  fi
fi

cd "$root"
exec "$py" "$here/compare.py" --python "$(command -v "$py")" --out "$out" "$@"
