#!/usr/bin/env bash
# The update tail on CUDA: 4 steps of qwen3-tiny (random init, fp32 and bf16) with and without
# --update-tail-units, the prebuilt worker; losses and every optimizer-state tensor compared, and
# the run without the tail repeated (the GPU's embedding backward adds with atomics: the run-to-run
# noise the comparison is judged against).
set -u
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
TORCH_LIB=$(python3 -c 'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "lib"))')
export LD_LIBRARY_PATH=$(pwd)/.prebuilt/lib:$TORCH_LIB:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
for prec in fp32 bf16; do
  for m in 0 0b 2; do
    rm -rf /tmp/ck-$prec-$m
    mpirun --bind-to none -np 2 .prebuilt/bin/slidedp_worker --device cuda --model-config tools/configs/qwen3-tiny.json \
      --batch-size 4 --seq-len 128 --steps 4 --precision $prec --policy manual --update-tail-units ${m%b} \
      --metrics $OUT/tail-$prec-$m.csv --checkpoint-dir /tmp/ck-$prec-$m --checkpoint-every 4 > $OUT/tail-$prec-$m.log 2>&1
    echo "$prec m=$m rc=$? losses: $(cut -d, -f3 $OUT/tail-$prec-$m.csv | tail -4 | tr '\n' ' ')"
  done
  python3 - "$prec" <<'PY'
import json, struct, sys
p = sys.argv[1]
def load(m):
    b = open(f'/tmp/ck-{p}-{m}/step-00000004/optimizer.safetensors', 'rb').read()
    n = struct.unpack('<Q', b[:8])[0]; h = json.loads(b[8:8 + n]); d = b[8 + n:]
    return {k: d[v['data_offsets'][0]:v['data_offsets'][1]] for k, v in h.items() if k != '__metadata__'}
import numpy as np
def diff(a, b):  # the largest relative difference of any fp32 element, over every tensor
    worst = 0.0
    for k in a:
        x, y = np.frombuffer(a[k], np.float32), np.frombuffer(b[k], np.float32)
        d = np.abs(x - y) / np.maximum(np.maximum(np.abs(x), np.abs(y)), 1e-30)
        worst = max(worst, float(d.max()) if d.size else 0.0)
    return worst
a, a2, b = load('0'), load('0b'), load('2')
print(p, len(a), 'tensors; the same run again: identical', all(a[k] == a2[k] for k in a), 'max rel diff', diff(a, a2),
      '| tail 2 against tail 0: identical', all(a[k] == b[k] for k in a), 'max rel diff', diff(a, b))
PY
done
ls /dev/shm | grep -c slidedp || true
