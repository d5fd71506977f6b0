#!/usr/bin/env bash
# test_finetune_e2e.sh: the README's fine-tuning path end to end, with the README's commands, on
# a Qwen3-architecture model directory whose tokenizer is a real Hugging Face tokenizer.json
# (built offline by tests/data/make_hf_fixture.py: byte-level BPE on the KJV text, ChatML
# template; the model is a tiny random Qwen3 written by transformers):
#   1. launcher/slidedp-run prepare: a chat JSONL -> train.tok and eval.tok (held out);
#   2. launcher/slidedp-run --cpu-workers 2: 12 steps with --eval-data/--eval-every 6, export;
#      the step lines and the metrics carry the held-out loss at steps 6 and 12, and it falls;
#   3. the last held-out loss equals transformers' loss of the exported (fp32) model on the same
#      eval documents (labels = ids where the mask trains them, else -100): rel. error < 1e-4
#      (fp32 on CPU both sides; packing blocks attention between documents);
#   4. launcher/slidedp-run generate --chat: the ids equal transformers' greedy generate on the
#      exported model, and the text is their decoding; and generate on a model with only a
#      SentencePiece tokenizer.model (stories260K) prints text, no traceback;
#   5. the chat JSONL given to the runtime directly, and text with this tokenizer.json model,
#      are refused before the first step with the prepare command in the message;
#   6. a held-out token file of another tokenizer is refused; a model directory without the
#      tokenizer file a token file names is warned that it cannot be checked.
#
#   tests/data/test_finetune_e2e.sh PYTHON SLIDEDP_WORKER SHARED_DIR    (CTest: data_finetune_e2e)
# Environment (tools/gpu-check.sh finetune sets both): SLIDEDP_E2E_LAUNCH, the launcher's
# placement (default --cpu-workers 2), and SLIDEDP_E2E_RTOL, the held-out loss tolerance against
# transformers (default 1e-4: fp32 both sides; bf16 GPU workers need about 2e-2).
set -uo pipefail
PY=${1:?usage: $0 PYTHON SLIDEDP_WORKER SHARED_DIR}
export SLIDEDP_WORKER=${2:?usage: $0 PYTHON SLIDEDP_WORKER SHARED_DIR}
SHARED=${3:?usage: $0 PYTHON SLIDEDP_WORKER SHARED_DIR}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
export ROOT
export SLIDEDP_GENERATE=$(dirname "$SLIDEDP_WORKER")/slidedp_generate
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 HF_HUB_OFFLINE=1
export SLIDEDP_PYTHON=$PY  # the interpreter of `slidedp-run prepare|generate`
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
FAILS=0
fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }
RUN="$ROOT/launcher/slidedp-run"

"$PY" "$ROOT/tests/data/make_hf_fixture.py" "$TMP/base" --kjv "$SHARED/data/kjv.txt" --model \
  > "$TMP/fixture.log" 2>&1 || { cat "$TMP/fixture.log"; fail "fixture"; exit 1; }
# Conversations from the KJV: "Quote Genesis verse n." -> the verse.
"$PY" - "$SHARED/data/kjv.txt" "$TMP" <<'PYEOF'
import json, sys
verses = [l.strip() for l in open(sys.argv[1], encoding="utf-8") if l.strip()][:240]
def conv(i, v):
    return {"messages": [{"role": "system", "content": "You quote the King James Bible."},
                         {"role": "user", "content": f"Quote verse {i + 1}."},
                         {"role": "assistant", "content": v}]}
with open(f"{sys.argv[2]}/train.jsonl", "w") as f:
    for i, v in enumerate(verses[:200]):
        f.write(json.dumps(conv(i, v)) + "\n")
with open(f"{sys.argv[2]}/eval.jsonl", "w") as f:
    for i, v in enumerate(verses[200:]):
        f.write(json.dumps(conv(200 + i, v)) + "\n")
PYEOF

# 1. prepare
"$RUN" prepare --model "$TMP/base" --input "$TMP/train.jsonl" --out "$TMP/train.tok" --quiet \
  > "$TMP/prep.log" 2>&1 || fail "prepare train: exit $?"
"$RUN" prepare --model "$TMP/base" --input "$TMP/eval.jsonl" --out "$TMP/eval.tok" --quiet \
  --seq-len 128 >> "$TMP/prep.log" 2>&1 || fail "prepare eval: exit $?"
cat "$TMP/prep.log"
grep -q "prepared .*train.tok: chat, 200 documents" "$TMP/prep.log" || fail "prepare summary"
grep -q "longer than --seq-len" "$TMP/prep.log" && fail "an eval document is longer than T (the reference below assumes none is split)"

# 2. train with held-out evaluation, export
read -r -a LAUNCH <<< "${SLIDEDP_E2E_LAUNCH:---cpu-workers 2}"
export RTOL=${SLIDEDP_E2E_RTOL:-1e-4}
JOB=("${LAUNCH[@]}" -- --model "$TMP/base" --data "$TMP/train.tok" --eval-data "$TMP/eval.tok"
     --eval-every 6 --steps 12 --batch-size 4 --seq-len 128 --lr 3e-3 --warmup 2 --export "$TMP/ft"
     --export-fp32 --metrics "$TMP/m.jsonl" --shm-name "slidedp-e2e-$$")
"$RUN" "${JOB[@]}" > "$TMP/train.log" 2>&1 || { rc=$?; tail -30 "$TMP/train.log"; fail "training: exit $rc"; }
grep -E "data:|eval |step (1|6|12)/|results|try:|plot:" "$TMP/train.log"
grep -q "tokenizer tokenizer.json matches the model's" "$TMP/train.log" || fail "tokenizer identity not checked"
[ "$(grep -c "eval loss" "$TMP/train.log")" -eq 2 ] || fail "expected 2 step lines with an eval loss"
grep -q "generate.py --model" "$TMP/train.log" || fail "the end-of-run hint does not name tools/generate.py"
"$PY" - "$TMP" <<'PYEOF' || fail "metrics / held-out loss vs transformers"
import json, math, sys
d = sys.argv[1]
rows = [json.loads(l) for l in open(f"{d}/m.jsonl")]
ev = {r["step"]: r["eval_loss"] for r in rows if "eval_loss" in r}
assert sorted(ev) == [6, 12], f"eval_loss at steps {sorted(ev)}, want [6, 12]"
assert all(abs(r["eval_ppl"] - math.exp(r["eval_loss"])) < 1e-6 * r["eval_ppl"] for r in rows if "eval_loss" in r)
assert ev[12] < ev[6] < math.log(1024) + 0.5, f"held-out loss did not fall: {ev}"
print(f"held-out loss: step 6 {ev[6]:.5f}, step 12 {ev[12]:.5f}; train loss {rows[0]['loss']:.4f} -> {rows[-1]['loss']:.4f}")
# transformers on the exported model, the same eval documents
import torch
from transformers import AutoModelForCausalLM
import importlib.util, os
spec = importlib.util.spec_from_file_location("token_format", os.path.join(os.environ["ROOT"], "tools/data/token_format.py"))
tf = importlib.util.module_from_spec(spec); spec.loader.exec_module(tf)
h, t, m, o = tf.read(f"{d}/eval.tok")
model = AutoModelForCausalLM.from_pretrained(f"{d}/ft", dtype=torch.float32).eval()
total, count = 0.0, 0
with torch.no_grad():
    for i in range(len(o) - 1):
        ids = torch.tensor(t[o[i]:o[i + 1]].astype("int64"))[None]
        lab = ids.clone()
        lab[0, torch.tensor(m[o[i]:o[i + 1]] == 0)] = -100
        logits = model(ids).logits.float()
        total += torch.nn.functional.cross_entropy(logits[0, :-1], lab[0, 1:], ignore_index=-100, reduction="sum").item()
        count += int((lab[0, 1:] != -100).sum())
ref = total / count
rel = abs(ev[12] - ref) / ref
print(f"held-out loss after step 12: slidedp {ev[12]:.6f}, transformers {ref:.6f} ({count} targets), rel. error {rel:.2e}")
assert rel < float(os.environ["RTOL"]), (rel, os.environ["RTOL"])
PYEOF

# 4. generate: text in, text out, the ids equal transformers' greedy decoding
"$RUN" generate --model "$TMP/ft" --chat --prompt "Quote verse 3." --max-new-tokens 12 --show-ids \
  > "$TMP/gen.log" 2>&1 || { rc=$?; cat "$TMP/gen.log"; fail "generate: exit $rc"; }
cat "$TMP/gen.log"
"$PY" - "$TMP" <<'PYEOF' || fail "generated ids differ from transformers' greedy decoding"
import ast, sys, torch
from transformers import AutoModelForCausalLM, AutoTokenizer
d = sys.argv[1]
lines = open(f"{d}/gen.log").read().splitlines()
prompt = ast.literal_eval(next(l for l in lines if l.startswith("prompt ids: "))[12:])
got = ast.literal_eval(next(l for l in lines if l.startswith("generated ids: "))[15:])
tok = AutoTokenizer.from_pretrained(f"{d}/ft")
want_prompt = tok.apply_chat_template([{"role": "user", "content": "Quote verse 3."}], tokenize=True,
                                      add_generation_prompt=True, return_dict=True)["input_ids"]
assert prompt == want_prompt, (prompt, want_prompt)
model = AutoModelForCausalLM.from_pretrained(f"{d}/ft", dtype=torch.float32).eval()
out = model.generate(torch.tensor([prompt]), max_new_tokens=12, do_sample=False,
                     eos_token_id=tok.convert_tokens_to_ids("<|im_end|>"))[0, len(prompt):].tolist()
assert got == out, (got, out)
text = tok.decode(got, skip_special_tokens=True)
assert f"[assistant] {text}" in lines, (text, lines)
print(f"generate: {len(got)} ids equal transformers' greedy decoding: {text!r}")
PYEOF

# 4b. a model whose only tokenizer is SentencePiece's tokenizer.model (stories260K; the default
# job's export): generate works whether or not transformers can read it (it needs sentencepiece
# and protobuf; without them it was a 37-line traceback), greedy from the README's BOS prompt.
"$RUN" generate --model "$SHARED/models/stories260K" --prompt "Once upon a time" --max-new-tokens 8 \
  > "$TMP/gen-spm.log" 2>&1 || { rc=$?; cat "$TMP/gen-spm.log"; fail "generate (tokenizer.model only): exit $rc"; }
grep -q "Traceback" "$TMP/gen-spm.log" && { cat "$TMP/gen-spm.log"; fail "generate (tokenizer.model only): a traceback"; }
grep -q "^Once upon a time" "$TMP/gen-spm.log" || { cat "$TMP/gen-spm.log"; fail "generate (tokenizer.model only): no text"; }
# ... encoded as training's data is (BOS + pieces, slidedp_generate's own encoder): transformers
# 5.x loads a lone tokenizer.model as a backend without BOS and the dummy prefix ("hi" became
# [415, 417] instead of [1, 270, 417]) and the model continued another text.
"$RUN" generate --model "$SHARED/models/stories260K" --prompt "hi" --max-new-tokens 6 --show-ids \
  > "$TMP/gen-hi.log" 2>&1 || fail "generate --prompt hi: exit $?"
"$SLIDEDP_GENERATE" --model "$SHARED/models/stories260K" --prompt "hi" --max-new-tokens 6 --print-ids \
  > "$TMP/gen-hi-direct.log" 2>&1 || fail "slidedp_generate --prompt hi: exit $?"
[ "$(tail -1 "$TMP/gen-hi.log")" = "$(tail -1 "$TMP/gen-hi-direct.log")" ] \
  || { cat "$TMP/gen-hi.log" "$TMP/gen-hi-direct.log"; fail "generate and slidedp_generate encode 'hi' differently"; }

# 5. refused before the first step, naming the prepare command
bad() {  # bad NAME MESSAGE DATA
  local out rc
  out=$("$RUN" --cpu-workers 2 -- --model "$TMP/base" --data "$3" --steps 2 --batch-size 2 \
        --seq-len 64 --shm-name "slidedp-e2e-bad-$$" 2>&1); rc=$?
  echo "$1 (exit $rc): $(echo "$out" | grep -m1 -A3 -i "error")"
  [ "$rc" -ne 0 ] || fail "$1: exit 0"
  [[ "$out" == *"$2"* ]] || fail "$1: message lacks '$2'"
  [[ "$out" != *"step 1/"* ]] || fail "$1: a step ran"
}
bad "chat JSONL to the runtime" "slidedp-run prepare --model" "$TMP/train.jsonl"
printf 'In the beginning God created the heaven and the earth.\n' > "$TMP/plain.txt"
bad "text with a tokenizer.json model" "slidedp-run prepare --model" "$TMP/plain.txt"

# 6. the tokenizer behind token files where the model cannot vouch for it (a model directory
# without the tokenizer.json the files name; with it, another tokenizer is refused against the
# model's): a held-out file of another tokenizer (vocabulary 512, the same text) is refused
# against the training file's, and the training file is warned that it is not checked
"$PY" "$ROOT/tests/data/make_hf_fixture.py" "$TMP/other" --kjv "$SHARED/data/kjv.txt" --vocab 512 \
  > "$TMP/fixture-other.log" 2>&1 || fail "fixture (vocabulary 512)"
"$RUN" prepare --model "$TMP/other" --input "$TMP/eval.jsonl" --out "$TMP/eval-other.tok" --quiet \
  > /dev/null 2>&1 || fail "prepare with the other tokenizer: exit $?"
mkdir -p "$TMP/notok" && cp "$TMP/base/config.json" "$TMP/base/"*.safetensors "$TMP/notok/"
out=$("$RUN" --cpu-workers 2 -- --model "$TMP/notok" --data "$TMP/train.tok" --eval-data "$TMP/eval-other.tok" \
      --steps 2 --batch-size 2 --seq-len 64 --shm-name "slidedp-e2e-tok-$$" 2>&1); rc=$?
echo "eval file of another tokenizer (exit $rc): $(echo "$out" | grep -m1 "error")"
[ "$rc" -ne 0 ] || fail "eval file of another tokenizer: exit 0"
[[ "$out" == *"was prepared with another tokenizer than --data"* ]] || fail "eval file of another tokenizer: no message"
[[ "$out" != *"step 1/"* ]] || fail "eval file of another tokenizer: a step ran"
out=$("$RUN" --cpu-workers 2 -- --model "$TMP/notok" --data "$TMP/train.tok" --steps 1 --batch-size 2 \
      --seq-len 64 --shm-name "slidedp-e2e-notok-$$" 2>&1); rc=$?
echo "model without tokenizer.json (exit $rc): $(echo "$out" | grep -m1 "cannot be checked")"
[ "$rc" -eq 0 ] || { echo "$out" | tail -5; fail "model without tokenizer.json: exit $rc"; }
[[ "$out" == *"was prepared with a tokenizer.json (sha256 "*") that cannot be checked against the model: $TMP/notok has no readable tokenizer.json"* ]] \
  || fail "model without tokenizer.json: no warning"

if [ "$FAILS" -eq 0 ]; then echo "finetune e2e: passed"; else echo "finetune e2e: $FAILS FAILED"; exit 1; fi
