#!/usr/bin/env bash
# Prepares the main job's embedded default in OUT_DIR (idempotent; run by tools/setup.sh):
#   kjv.txt          the King James Bible from Debian's bible-kjv-text (via its `bible`
#                    program), one verse a line, chapters separated by a blank line
#   tokenizer.model  a 512-piece SentencePiece BPE vocabulary trained on it (spm_train,
#                    byte fallback; <unk>=0 <s>=1 </s>=2)
# The model is tools/configs/kjv-tiny-llama.json (random init) and the job's settings are
# tools/configs/default-job.toml.
set -euo pipefail
OUT=${1:?usage: prepare_default_job.sh OUT_DIR}
mkdir -p "$OUT"
if [ ! -s "$OUT/kjv.txt" ]; then
  command -v bible >/dev/null || { echo "prepare_default_job: the 'bible' program (Debian package bible-kjv) is missing; HINT: apt-get install bible-kjv" >&2; exit 1; }
  bible gen1:1-rev22:21 2>/dev/null | awk '
    /^[ ]+[0-9]+ / { if (verse != "") print verse; sub(/^[ ]+[0-9]+ /, ""); verse = $0; next }
    /^[^ ].* [0-9]+$/ { if (verse != "") print verse; verse = ""; if (started) print ""; started = 1; next }
    /^$/ { next }
    { sub(/^[ ]+/, ""); verse = verse " " $0 }
    END { if (verse != "") print verse }' > "$OUT/kjv.txt.tmp"
  mv "$OUT/kjv.txt.tmp" "$OUT/kjv.txt"
fi
if [ ! -s "$OUT/tokenizer.model" ]; then
  spm_train --input="$OUT/kjv.txt" --model_prefix="$OUT/tokenizer" --vocab_size=512 \
    --model_type=bpe --byte_fallback=true --character_coverage=1.0 --minloglevel=2 \
    --unk_id=0 --bos_id=1 --eos_id=2 --pad_id=-1 > "$OUT/spm_train.log" 2>&1
fi
echo "[setup] default job data: $OUT/kjv.txt ($(wc -l < "$OUT/kjv.txt") lines), $OUT/tokenizer.model"
