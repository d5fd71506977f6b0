#!/usr/bin/env bash
# Installs what slidedp needs on a fresh machine and configures + builds it into build/.
# Idempotent and non-interactive: a second run installs nothing and rebuilds incrementally.
#
#   bash tools/setup.sh            # install missing packages, configure, build
#   SLIDEDP_BUILD_DIR=out bash tools/setup.sh
#   SLIDEDP_SKIP_BUILD=1 ...       # install + configure only
#   SLIDEDP_BUILD_TARGETS="slidedp_worker bench_layer" ...   # build only these targets
#
# System side: Debian/Ubuntu packages via apt-get (Open MPI, Boost, numactl/libnuma,
# GoogleTest, nlohmann-json, CLI11, spdlog, fmt, SentencePiece, hwloc, the KJV text).
# Python side: a virtual environment (default ~/.cache/slidedp/venv, shared by every clone
# on the machine) with torch==2.11.0 (its LibTorch is what we link against), transformers
# (the numerical oracle of the tests), safetensors, numpy, sentencepiece. Where a Python
# already has torch 2.11 and transformers (the GPU machine, which has no registry), that
# Python is used and nothing is installed.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
BUILD_DIR=${SLIDEDP_BUILD_DIR:-$ROOT/build}
VENV=${SLIDEDP_VENV:-$HOME/.cache/slidedp/venv}
TORCH_VERSION=2.11.0
TRANSFORMERS_VERSION=5.17.0   # the GPU machine's, and the one shared/ fixtures were made with
# tokenizers (Hugging Face tokenizer.json), jinja2 (chat templates) and tqdm (progress) for
# tools/data/prepare.py and tools/generate.py; transformers pulls tokenizers and tqdm in too.
PY_PACKAGES=("torch==$TORCH_VERSION" "transformers==$TRANSFORMERS_VERSION" "safetensors" "numpy" "sentencepiece" "matplotlib"
             "tokenizers" "jinja2" "tqdm" "protobuf")
APT_PACKAGES=(build-essential cmake ninja-build pkg-config python3-venv
  openmpi-bin libopenmpi-dev libboost-dev libnuma-dev numactl libgtest-dev libgmock-dev
  nlohmann-json3-dev libcli11-dev libspdlog-dev libfmt-dev libsentencepiece-dev
  hwloc libhwloc-dev bible-kjv bible-kjv-text sentencepiece libxxhash-dev)

log() { echo "[setup] $*"; }

# ---- system packages ----------------------------------------------------------------------
missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  log "installing system packages: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  if ! { $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; }; then
    log "WARNING: apt-get could not install: ${missing[*]} (no registry here?)."
    log "         Continuing: CMake below names anything that is really missing."
  fi
else
  log "system packages: all present"
fi

# ---- Python with torch 2.11 ---------------------------------------------------------------
has_stack() {  # $1 = python; true if it has torch 2.11.* and transformers
  "$1" - <<PY >/dev/null 2>&1
import torch, transformers, safetensors, numpy, sentencepiece, tokenizers, jinja2, tqdm
assert torch.__version__.split('+')[0] == "$TORCH_VERSION", torch.__version__
assert transformers.__version__ == "$TRANSFORMERS_VERSION", transformers.__version__
PY
}
PY=${SLIDEDP_PYTHON:-}
if [ -z "$PY" ]; then
  if [ -x "$VENV/bin/python" ] && has_stack "$VENV/bin/python"; then
    PY=$VENV/bin/python
  elif command -v python3 >/dev/null && has_stack "$(command -v python3)"; then
    PY=$(command -v python3)
    log "using $PY, which already has torch $TORCH_VERSION and transformers"
  else
    log "installing ${PY_PACKAGES[*]} into $VENV (several GB the first time)"
    [ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
    "$VENV/bin/python" -m pip install -q "${PY_PACKAGES[@]}"
    PY=$VENV/bin/python
  fi
fi
has_stack "$PY" || { echo "[setup] ERROR: $PY lacks torch $TORCH_VERSION / transformers" >&2; exit 1; }
# protobuf: transformers reads a tokenizer.model through it (without it, a 5-line warning and a
# slower fallback); added to the project's own venv when an older one lacks it.
if [ "$PY" = "$VENV/bin/python" ] && ! "$PY" -c "import google.protobuf" 2>/dev/null; then
  "$PY" -m pip install -q protobuf || log "WARNING: could not install protobuf (tools/generate.py still works)"
fi
log "python: $PY (torch $("$PY" -c 'import torch; print(torch.__version__)'))"

# ---- configure and build ------------------------------------------------------------------
GEN=(); command -v ninja >/dev/null && GEN=(-G Ninja)
if [ ! -f "$BUILD_DIR/CMakeCache.txt" ]; then
  cmake -S "$ROOT" -B "$BUILD_DIR" "${GEN[@]}" -DSLIDEDP_PYTHON="$PY" ${SLIDEDP_CMAKE_ARGS:-}
else
  cmake "$BUILD_DIR" -DSLIDEDP_PYTHON="$PY" ${SLIDEDP_CMAKE_ARGS:-} >/dev/null
fi
if [ -z "${SLIDEDP_SKIP_BUILD:-}" ]; then
  targets=()
  for t in ${SLIDEDP_BUILD_TARGETS:-}; do targets+=(--target "$t"); done
  cmake --build "$BUILD_DIR" -j "${SLIDEDP_JOBS:-$(nproc)}" "${targets[@]}"
  log "built: $BUILD_DIR/bin/slidedp_worker"
fi
# The main job's embedded default: KJV text + a tokenizer trained on it (tools/configs/).
if command -v bible >/dev/null && command -v spm_train >/dev/null; then
  bash "$ROOT/tools/data/prepare_default_job.sh" "$BUILD_DIR/default-job"
else
  log "note: bible/spm_train not found; the default job's data was not prepared"
fi
