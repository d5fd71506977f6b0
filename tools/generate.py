#!/usr/bin/env python3
"""Generate text with a (fine-tuned) model, tokenised and decoded by its own Hugging Face tokenizer.

    tools/generate.py --model runs/qwen3-ft/model --chat --prompt "Who made the heaven?"
    launcher/slidedp-run generate --model DIR --prompt "In the beginning"   # the same

The prompt is encoded with the model directory's tokenizer (tokenizer.json through
transformers' AutoTokenizer; a tokenizer.model alone by slidedp_generate itself, as training's
data is, except with --chat): with --chat as a user message through the chat template
(add_generation_prompt), otherwise as plain text with the tokenizer's special tokens (BOS where
the tokenizer adds one). The ids go to build/bin/slidedp_generate (--prompt-ids), which runs the
model (greedy by default); the new ids are decoded back to text and printed as they come
(--show-ids: the ids too). Exit status 2 with a message for a missing model, tokenizer or binary, or a prompt that is
not UTF-8.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", required=True, help="Hugging Face model directory (with its tokenizer)")
    ap.add_argument("--prompt", required=True, help="prompt text")
    ap.add_argument("--chat", action="store_true",
                    help="wrap the prompt as a user message in the tokenizer's chat template")
    ap.add_argument("--system", default=None, help="--chat: a system message first")
    ap.add_argument("--max-new-tokens", type=int, default=64)
    ap.add_argument("--temperature", type=float, default=0.0, help="0: greedy")
    ap.add_argument("--top-p", type=float, default=1.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    ap.add_argument("--dtype", default="fp32", choices=["fp32", "bf16"])
    ap.add_argument("--show-ids", action="store_true", help="also print the prompt and generated ids")
    ap.add_argument("--binary", default=os.environ.get(
        "SLIDEDP_GENERATE", os.path.join(ROOT, "build", "bin", "slidedp_generate")))
    a = ap.parse_args(argv)
    if not 0 <= a.seed < 2 ** 64:
        ap.error(f"--seed {a.seed}: must be a whole number from 0 to 2^64 - 1")

    def fail(msg, hint=None):
        print(f"generate: error: {msg}" + (f"\nHINT: {hint}" if hint else ""), file=sys.stderr)
        return 2

    for flag, text in (("--prompt", a.prompt), ("--system", a.system)):
        try:  # bytes that are not UTF-8 reach argv as lone surrogates, which no tokenizer takes
            (text or "").encode("utf-8")
        except UnicodeEncodeError as e:
            bad = ord(text[e.start])
            return fail(f"{flag} is not UTF-8 text (byte 0x{bad - 0xDC00:02x} at character {e.start})"
                        if 0xDC80 <= bad <= 0xDCFF else f"{flag} is not UTF-8 text ({e.reason})",
                        "pass the text in UTF-8 (convert it, e.g. with iconv -t UTF-8)")
    if not os.path.isfile(os.path.join(a.model, "config.json")):
        return fail(f"{a.model} is not a model directory (no config.json)")
    if not any(os.path.isfile(os.path.join(a.model, n)) for n in ("tokenizer.json", "tokenizer.model")):
        return fail(f"{a.model} has no tokenizer.json or tokenizer.model",
                    "copy the base model's tokenizer files into it (the export copies them)")
    if not os.access(a.binary, os.X_OK):
        return fail(f"{a.binary} not found", "build it: bash tools/setup.sh")
    sampling = ["--max-new-tokens", str(a.max_new_tokens), "--temperature", str(a.temperature),
                "--top-p", str(a.top_p), "--seed", str(a.seed), "--device", a.device, "--dtype", a.dtype]
    only_spm = not os.path.isfile(os.path.join(a.model, "tokenizer.json"))
    if only_spm and not a.chat:
        # A SentencePiece tokenizer.model alone: slidedp_generate encodes it as training's data
        # does (BOS + the pieces). transformers' AutoTokenizer may load it as a backend that
        # drops BOS and the dummy-prefix space (transformers 5.x: "hi" -> [415, 417] instead
        # of [1, 270, 417]), so the model would continue another text.
        # slidedp_generate decodes with SentencePiece and prints the text as it grows (--print-ids:
        # then the prompt's and the generated ids, as below).
        try:
            rc = subprocess.run([a.binary, "--model", a.model, "--prompt", a.prompt] + sampling
                                + (["--print-ids"] if a.show_ids else [])).returncode
        except KeyboardInterrupt:
            return 130
        return rc if rc >= 0 else 128 - rc
    try:
        from transformers import AutoTokenizer
        tok = AutoTokenizer.from_pretrained(a.model)
    except Exception as e:  # e.g. a SentencePiece tokenizer.model without sentencepiece/protobuf
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        return fail(f"transformers cannot load the tokenizer of {a.model}: {first}",
                    "install what it names into this interpreter"
                    + (", or drop --chat (a plain prompt is encoded by slidedp_generate itself)"
                       if only_spm else ""))
    if a.chat:
        if not getattr(tok, "chat_template", None):
            return fail(f"the tokenizer of {a.model} has no chat template", "drop --chat")
        msgs = ([{"role": "system", "content": a.system}] if a.system else []) + \
            [{"role": "user", "content": a.prompt}]
        ids = tok.apply_chat_template(msgs, tokenize=True, add_generation_prompt=True, return_dict=True)["input_ids"]
    else:
        ids = tok(a.prompt, add_special_tokens=True)["input_ids"]
    cmd = [a.binary, "--model", a.model, "--prompt-ids", ",".join(map(str, ids)), "--print-ids",
           "--stream-ids"] + sampling
    def header():  # the prompt's line, then the reply's start
        print(a.prompt if not a.chat else f"[user] {a.prompt}")
        print("[assistant] " if a.chat else "", end="", flush=True)

    # The new ids come one '+ID' line each as the model chooses them: the text is printed as it
    # grows (a long generation shows from its first token on), then the list of the ids.
    with tempfile.TemporaryFile(mode="w+") as err:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, text=True)
        streamed, printed, last, started = [], "", "", False
        try:
            for line in proc.stdout:
                line = line.strip()
                m = re.fullmatch(r"\+(\d+)", line)
                if not m:
                    last = line or last
                    continue
                if not started:
                    header()
                    started = True
                streamed.append(int(m.group(1)))
                text = tok.decode(streamed, skip_special_tokens=True)
                # held back while the last token ends inside a character (U+FFFD) or the decoding
                # of the longer sequence changes what was printed
                if not text.endswith("\ufffd") and text.startswith(printed):
                    print(text[len(printed):], end="", flush=True)
                    printed = text
            rc = proc.wait()
        except KeyboardInterrupt:  # Ctrl-C: the partial reply ends its line, no traceback
            proc.kill()
            proc.wait()
            print(flush=True)
            return 130
        except BrokenPipeError:  # the reader went away (| head): stop quietly
            proc.kill()
            proc.wait()
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 1
        err.seek(0)
        messages = err.read()
        if rc != 0:
            if started:
                print(flush=True)
            sys.stderr.write(messages or f"generate: {a.binary} ended with status {rc}\n")
            return rc if rc > 0 else 128 - rc
        for line in messages.splitlines():  # on success only its warnings (a full context)
            if "stopped after" in line:
                print(line, file=sys.stderr)
    try:
        new = [int(x) for x in last.split(",")] if last else []
    except ValueError:
        return fail(f"unexpected output of {a.binary}: {last[:200]!r}")
    text = tok.decode(new, skip_special_tokens=True)
    if not started:  # no token streamed (none generated, or a binary without --stream-ids)
        header()
    print(text[len(printed):] if text.startswith(printed) else "\n" + text)
    if a.show_ids:
        print(f"prompt ids: {ids}\ngenerated ids: {new}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
