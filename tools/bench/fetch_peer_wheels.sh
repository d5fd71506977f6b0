#!/usr/bin/env bash
# Fetches, on a development machine with PyPI, the wheels the peer benchmark needs on the GPU
# machine (which has no registry) into the git-ignored .whl/ of the checkout, which travels
# with the working tree: DeepSpeed and the dependencies that machine lacks (hjson, pydantic,
# pydantic-core, annotated-types, typing-inspection, typing-extensions), and Liger-Kernel
# (pure Python + Triton; it requires only torch and triton, which that machine has: checked
# here from the wheel's Requires-Dist), for CPython 3.12 on manylinux x86_64. tools/bench/peers.sh installs them there with
#   python3 -m pip install --no-index --no-deps --target /tmp/site .whl/*.whl
#
# The one design decision: DeepSpeed is only an sdist on PyPI, so it is built here into a
# pure-Python wheel (DS_BUILD_OPS=0, DS_ACCELERATOR=cuda so its build record names the CUDA
# accelerator); its C++ ops (CPU Adam) are JIT-compiled by DeepSpeed on the GPU machine with
# that machine's torch, ninja and compiler (tools/bench/peers.sh does it once up front).
#
# Usage: tools/bench/fetch_peer_wheels.sh [--python PY] [--dest DIR]
#   --python PY   interpreter with torch (for the DeepSpeed build; default: the set-up's venv
#                 ~/.cache/slidedp/venv/bin/python, waiting for it if tools/setup.sh is still
#                 installing torch)
#   --dest DIR    where the wheels go (default: <repo>/.whl)
# Idempotent: a wheel of the pinned version already there is kept; other versions of the same
# package are removed, so .whl/ holds one version of each.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
dest="$root/.whl"
py="${SLIDEDP_PYTHON:-$HOME/.cache/slidedp/venv/bin/python}"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --python) py="$2"; shift 2 ;;
    --dest) dest="$2"; shift 2 ;;
    -h|--help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "fetch_peer_wheels: error: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done

# Pinned versions (PyPI, 2026-12-01). pydantic-core is the exact version pydantic pins.
DEEPSPEED_VERSION=0.19.8
HJSON_VERSION=3.1.0
PYDANTIC_VERSION=2.14.4
ANNOTATED_TYPES_VERSION=0.8.0
TYPING_INSPECTION_VERSION=0.4.5
TYPING_EXTENSIONS_VERSION=4.16.0   # pydantic 2.14.4 needs >= 4.16.0
SETUPTOOLS_VERSION=80.9.0          # build-only (torch 2.11 wants setuptools < 82)
WHEEL_VERSION=0.45.1               # build-only
LIGER_KERNEL_VERSION=0.8.5         # needs torch >= 2.1.2, triton >= 2.3.1 (GPU machine: 2.11, 3.6)
# what the GPU machine has (docs: ../shared/gpu.md); a liger requirement outside it is an error
GPU_MACHINE_HAS="torch triton"

mkdir -p "$dest"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
pip_download=(python3 -m pip download --no-deps --only-binary=:all: --no-cache-dir
              --python-version 3.12 --implementation cp --platform manylinux_2_28_x86_64
              --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64)

norm() { echo "$1" | tr 'A-Z-.' 'a-z__'; }   # wheel file names spell a-b.c as a_b_c

# have NAME VERSION: true when .whl/ has a wheel of NAME at VERSION; removes other versions
have() {
  local n; n="$(norm "$1")"
  local keep=1 f base
  shopt -s nullglob nocaseglob
  for f in "$dest"/*.whl; do
    base="$(basename "$f")"
    [[ "$(norm "${base%%-*}")" == "$n" ]] || continue
    if [[ "$base" == *-"$2"-* ]]; then keep=0; else echo "  removing $base (not $2)"; rm -f "$f"; fi
  done
  shopt -u nullglob nocaseglob
  return $keep
}

fetch() {  # NAME VERSION
  if have "$1" "$2"; then echo "  $1 $2: already in $dest"; return; fi
  echo "  $1 $2: downloading"
  "${pip_download[@]}" -q -d "$dest" "$1==$2"
}

echo "fetch_peer_wheels: cp312 manylinux wheels into $dest"
fetch pydantic "$PYDANTIC_VERSION"
pyd="$(ls "$dest"/pydantic-"$PYDANTIC_VERSION"-*.whl)"
PYDANTIC_CORE_VERSION="$(unzip -p "$pyd" "pydantic-$PYDANTIC_VERSION.dist-info/METADATA" \
  | sed -n 's/^Requires-Dist: pydantic-core==\([0-9.]*\).*/\1/p')"
if [[ -z "$PYDANTIC_CORE_VERSION" ]]; then
  echo "fetch_peer_wheels: error: cannot read the pydantic-core pin from $pyd" >&2; exit 1
fi
echo "  pydantic $PYDANTIC_VERSION pins pydantic-core==$PYDANTIC_CORE_VERSION"
fetch pydantic-core "$PYDANTIC_CORE_VERSION"
fetch hjson "$HJSON_VERSION"
fetch annotated-types "$ANNOTATED_TYPES_VERSION"
fetch typing-inspection "$TYPING_INSPECTION_VERSION"
fetch typing-extensions "$TYPING_EXTENSIONS_VERSION"
fetch liger-kernel "$LIGER_KERNEL_VERSION"
lig="$(ls "$dest"/liger_kernel-"$LIGER_KERNEL_VERSION"-*.whl)"
# its requirements outside extras (cutedsl, cutile, dev, ... are not used)
reqs="$(unzip -p "$lig" '*/METADATA' | sed -n 's/^Requires-Dist: *//p' | grep -v 'extra *==' \
        | sed 's/[ ;<>=!~\[].*//' | sort -u | xargs)"
echo "  liger-kernel $LIGER_KERNEL_VERSION requires: ${reqs:-nothing}"
for r in $reqs; do
  if [[ " $GPU_MACHINE_HAS " != *" $(norm "$r") "* ]]; then
    echo "fetch_peer_wheels: error: liger-kernel $LIGER_KERNEL_VERSION requires '$r', which the" \
         "GPU machine lacks and this script does not fetch" >&2
    echo "HINT: add a fetch line for it (pinned) above this check" >&2
    exit 1
  fi
done

if have deepspeed "$DEEPSPEED_VERSION"; then
  echo "  deepspeed $DEEPSPEED_VERSION: already in $dest"
else
  # the build imports torch: wait for tools/setup.sh's venv if it is still installing
  waited=0
  until "$py" -c 'import torch' 2>/dev/null; do
    if [[ ! -x "$py" && $waited -ge 60 ]] || [[ $waited -ge 3600 ]]; then
      echo "fetch_peer_wheels: error: $py cannot import torch (waited ${waited}s)" >&2
      echo "HINT: run 'bash tools/setup.sh' first, or pass --python PY with torch installed" >&2
      exit 1
    fi
    [[ $waited -eq 0 ]] && echo "  waiting for $py to import torch (tools/setup.sh running?)"
    sleep 20; waited=$((waited + 20))
  done
  echo "  deepspeed $DEEPSPEED_VERSION: building a pure-Python wheel from the sdist with $py"
  python3 -m pip download -q --no-deps --no-binary=:all: --no-cache-dir -d "$tmp/src" \
    "deepspeed==$DEEPSPEED_VERSION"
  "$py" -m pip install -q --no-cache-dir --target "$tmp/build-tools" \
    "setuptools==$SETUPTOOLS_VERSION" "wheel==$WHEEL_VERSION"
  PYTHONPATH="$tmp/build-tools" DS_BUILD_OPS=0 DS_ACCELERATOR=cuda \
    "$py" -m pip wheel -q --no-deps --no-build-isolation --no-cache-dir -w "$tmp/out" \
    "$tmp/src/deepspeed-$DEEPSPEED_VERSION.tar.gz" > "$tmp/build.log" 2>&1 || {
      tail -30 "$tmp/build.log" >&2
      echo "fetch_peer_wheels: error: building the DeepSpeed wheel failed" >&2; exit 1; }
  built=("$tmp"/out/deepspeed-*-py3-none-any.whl)
  if [[ ! -f "${built[0]}" ]]; then
    echo "fetch_peer_wheels: error: no pure-Python deepspeed wheel came out of the build:" >&2
    ls "$tmp/out" >&2; exit 1
  fi
  cp "${built[0]}" "$dest/"
fi

echo "fetch_peer_wheels: $dest:"
ls -l "$dest"/*.whl | awk '{printf "  %9d  %s\n", $5, $NF}'
total_kib="$(du -sk "$dest" | cut -f1)"
echo "  total $((total_kib / 1024)) MiB (${total_kib} KiB)"
if (( total_kib > 32 * 1024 )); then
  echo "fetch_peer_wheels: warning: .whl/ is over 32 MiB; the working tree that travels to the" \
       "GPU machine must stay under 64 MiB" >&2
fi
