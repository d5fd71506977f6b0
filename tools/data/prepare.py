#!/usr/bin/env python3
"""Tokenise training data with the model's own Hugging Face tokenizer into a slidedp token file.

    python tools/data/prepare.py --tokenizer /models/Qwen3-8B --input chat.jsonl --out train.tok
    launcher/slidedp-run prepare --tokenizer /models/Qwen3-8B --input chat.jsonl --out train.tok

Inputs (format by --format, or detected from the extension and the first record):
  text              a .txt file; documents are paragraphs separated by blank lines
                    (--text-docs line: one per line; file: the whole file); every token trained
  jsonl text        {"text": "..."} per line (--text-field); every token trained
  chat              {"messages": [{"role": "system"|"user"|"assistant", "content": "..."}, ...]}
                    (the OpenAI / TRL convention): the tokenizer's chat template is applied and
                    only the assistant turns (their content and the end-of-turn token after it)
                    are trained, unless --train-on-all
  prompt/completion {"prompt": "...", "completion": "..."}: only the completion (and EOS) is
                    trained; prompt/completion given as lists of messages are treated as chat
The EOS token is appended to each document unless it already ends with it (--no-eos: never).

Output: one memory-mappable file (format: tools/data/token_format.py) with the token ids
(uint16, or uint32 when the vocabulary exceeds 65,536), a per-token loss mask, the document
boundaries, and a header recording dtype, vocabulary size, the tokenizer file's SHA-256 and the
counts. Train on it with `--data OUT` (the runtime checks the header against --model).
Tokenisation runs on --workers processes (default: all cores); a summary is printed at the end.
"""
import argparse
import hashlib
import json
import multiprocessing as mp
import os
import re
import signal
import sys
import tempfile

# A tokeniser process (spawned: it imports this module first) ignores SIGINT from its start: a
# Ctrl-C to the process group is the parent's alone (it stops the pool), with no tracebacks.
if mp.parent_process() is not None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import token_format  # noqa: E402


class DataError(Exception):
    """A problem with the user's input: printed as 'prepare: error: ...' with a hint."""


class NothingToPredict(Exception):
    """A record without a next-token target (empty text, one token, a conversation without an
    assistant reply): left out and counted, as datasets of real records hold a few such."""


# ---- the tokenizer ----------------------------------------------------------------------------
def tokenizer_file(path):
    """The file whose bytes identify the tokenizer: tokenizer.json, else tokenizer.model."""
    if os.path.isfile(path):
        return path
    for name in ("tokenizer.json", "tokenizer.model"):
        if os.path.isfile(os.path.join(path, name)):
            return os.path.join(path, name)
    raise DataError(f"{path} has neither tokenizer.json nor tokenizer.model\n"
                    "HINT: pass the model's directory (Hugging Face format) or its tokenizer.json")


def load_tokenizer(path):
    import transformers
    from transformers import AutoTokenizer, PreTrainedTokenizerFast
    # Documents longer than model_max_length are fine here (the runtime splits them into rows
    # of T tokens); transformers' warning about it is noise.
    transformers.logging.set_verbosity_error()
    if os.path.isdir(path):
        return AutoTokenizer.from_pretrained(path)
    d = os.path.dirname(os.path.abspath(path))
    if os.path.basename(path) == "tokenizer.json" and os.path.isfile(os.path.join(d, "tokenizer_config.json")):
        return AutoTokenizer.from_pretrained(d)
    return PreTrainedTokenizerFast(tokenizer_file=path)


def sha256_of(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


# ---- records ------------------------------------------------------------------------------------
_UTF8_HINT = "HINT: convert the file to UTF-8, e.g. iconv -f LATIN1 -t UTF-8 IN > OUT"
_KINDS = ('records are {"text": ...} (--text-field), {"messages": [...]} (chat) or '
          '{"prompt": ..., "completion": ...}')


def incomplete_pair(rec, where):
    """The error for a record holding only one of "prompt" and "completion", else None."""
    has, lacks = ("prompt", "completion") if "prompt" in rec else ("completion", "prompt")
    if has in rec and lacks not in rec:
        return DataError(f"{where}: \"{has}\" without \"{lacks}\": the prompt/completion pair is "
                         f"incomplete\nHINT: {_KINDS}; give both fields")
    return None


def detect_format(path, first):
    if path.endswith(".txt") or first is None:
        return "text"
    if not isinstance(first, dict):
        raise DataError(f"{path}:1: a JSON {type(first).__name__}, not an object")
    if "messages" in first:
        return "chat"
    if "prompt" in first and "completion" in first:
        return "prompt-completion"
    if "input_ids" in first:
        raise DataError(f"{path}: the records already hold input_ids (tokenised data)\n"
                        "HINT: pass this file to the runtime directly (--data FILE.jsonl)")
    return "jsonl-text"


def read_records(path, fmt, text_docs):
    """Yields (line number, record) of the input."""
    if fmt == "text":
        with open(path, "rb") as f:
            raw = f.read()
        if b"\0" in raw[:1 << 20]:
            raise DataError(f"{path}: holds NUL bytes: binary data, not text\n"
                            "HINT: token files go to the runtime directly (--data FILE.bin)")
        try:
            text = raw.decode("utf-8-sig")  # a leading BOM is not text
        except UnicodeDecodeError as e:
            raise DataError(f"{path}: not UTF-8 text ({e})\n{_UTF8_HINT}")
        if text_docs == "file":
            if text.strip():
                yield 1, text
            return
        lines = re.sub(r"\r*\n|\r", "\n", text).split("\n")  # CRLF, CR CR LF and bare CR too
        if text_docs == "line":
            for i, line in enumerate(lines):
                if line.strip():
                    yield i + 1, line
            return
        doc, start = [], 1
        for i, line in enumerate(lines):
            if line.strip():
                if not doc:
                    start = i + 1
                doc.append(line.rstrip("\r"))
            elif doc:
                yield start, "\n".join(doc)
                doc = []
        if doc:
            yield start, "\n".join(doc)
        return
    with open(path, "rb") as f:
        n = 0  # lines so far, bare-CR line ends (classic Mac) counted as lines
        for i, raw in enumerate(f):
            try:  # per line, to name it; a BOM may start the file
                line = raw.decode("utf-8-sig" if i == 0 else "utf-8")
            except UnicodeDecodeError as e:
                raise DataError(f"{path}:{n + 1}: not UTF-8 text ({e})\n{_UTF8_HINT}")
            n += 1
            if not line.strip():
                continue
            try:
                yield n, json.loads(line)
                continue
            except json.JSONDecodeError as e:
                err = e
            # Records split by bare CRs: a JSON string cannot hold a raw CR, so each piece is a
            # line of its own (tried only where the whole line is not one JSON value).
            body = line.rstrip("\r\n")
            if "\r" not in body:
                raise DataError(f"{path}:{n}: not valid JSON ({err})\n"
                                "HINT: JSONL holds one JSON object per line")
            first = n
            for k, piece in enumerate(body.split("\r")):
                n += k > 0
                if not piece.strip():
                    continue
                try:
                    yield n, json.loads(piece)
                except json.JSONDecodeError as e:
                    # the first piece not JSON either: the line is no CR-separated records (a raw
                    # CR inside a string, say), and the whole line's error says what is wrong
                    raise DataError(f"{path}:{n}: not valid JSON ({err if n == first else e})\n"
                                    "HINT: JSONL holds one JSON object per line")


# ---- tokenisation (runs in the worker processes) ------------------------------------------------
_TOK = None
_OPT = None


def _init(tok_path, opt):
    global _TOK, _OPT
    _TOK = load_tokenizer(tok_path)
    _OPT = opt


def _special_strings(tok):
    return sorted({t for t in tok.all_special_tokens} |
                  {str(t) for t in getattr(tok, "added_tokens_decoder", {}).values() if getattr(t, "special", False)},
                  key=len, reverse=True)


def chat_spans(tok, messages, text):
    """Character spans [a, b) of `text` (the rendered conversation) that are assistant turns:
    each assistant message's content and the special token (end of turn) right after it."""
    specials = _special_strings(tok)
    spans, cursor = [], 0
    for m in messages:
        content = m.get("content")
        if not isinstance(content, str):
            raise DataError("a message's content is not a string")
        if not content.strip():
            continue
        needle = content
        at = text.find(needle, cursor)
        if at < 0:  # templates may strip the content
            needle = content.strip()
            at = text.find(needle, cursor)
        if at < 0:
            raise DataError(f"the chat template does not render the {m.get('role')} message's "
                            f"content verbatim ({content[:60]!r})")
        end = at + len(needle)
        if m.get("role") == "assistant":
            for s in specials:
                if s and text.startswith(s, end):
                    end += len(s)
                    break
            spans.append((at, end))
        cursor = end
    return spans


def message_text(content, where):
    """A message's content as one string: a string as is; OpenAI-style parts
    [{"type": "text", "text": ...}, ...] joined in order with no separator (as multimodal chat
    templates render them; most templates take string content only). Other parts are refused."""
    if isinstance(content, str) or content is None:  # None: e.g. an assistant's tool-call turn
        return content
    expected = ("HINT: \"content\" is a string or a list of {\"type\": \"text\", \"text\": \"...\"} "
                "parts (text-only training)")
    if not isinstance(content, list):
        raise DataError(f"{where}: a message's \"content\" is a JSON {type(content).__name__} "
                        f"({json.dumps(content)[:40]}), not a string\n{expected}")
    texts = []
    for part in content:
        kind = part.get("type") if isinstance(part, dict) else f"JSON {type(part).__name__}"
        if kind != "text":
            raise DataError(f"{where}: a message's content has a part of type {json.dumps(kind)} "
                            f"({json.dumps(part)[:60]}); only text parts are supported\n{expected}")
        if not isinstance(part.get("text"), str):
            raise DataError(f"{where}: a text part without a string \"text\" ({json.dumps(part)[:60]})\n{expected}")
        texts.append(part["text"])
    return "".join(texts)


def tokenize_chat(tok, messages, where):
    if not isinstance(messages, list) or not messages:
        raise DataError(f"{where}: \"messages\" must be a non-empty list of {{role, content}}")
    for m in messages:
        if not isinstance(m, dict) or "role" not in m or "content" not in m:
            raise DataError(f"{where}: each message needs \"role\" and \"content\", got {json.dumps(m)[:80]}")
    messages = [dict(m, content=message_text(m["content"], where)) for m in messages]
    if not getattr(tok, "chat_template", None):
        raise DataError(f"the tokenizer has no chat template, needed for chat data ({where})\n"
                        "HINT: use a chat/instruct model's tokenizer, or give prompt/completion records")
    text = tok.apply_chat_template(messages, tokenize=False, add_generation_prompt=False)
    if messages[-1].get("role") == "assistant":
        text = text.rstrip()
    enc = tok(text, add_special_tokens=False, return_offsets_mapping=True)
    ids = enc["input_ids"]
    if _OPT["train_on_all"]:
        return ids, [1] * len(ids)
    try:
        spans = chat_spans(tok, messages, text)
    except DataError as e:
        raise DataError(f"{where}: {e}")
    if not spans:
        raise NothingToPredict("no assistant message with content")
    mask = []
    for a, b in enc["offset_mapping"]:
        mask.append(int(any(a < e and b > s for s, e in spans) if b > a else
                        any(s <= a < e for s, e in spans)))
    return ids, mask


def tokenize_record(item):
    """(ids, mask) of one record, EOS appended per the options."""
    where, rec = item
    tok, opt = _TOK, _OPT
    fmt = opt["format"]
    if fmt == "text":
        ids = tok(rec, add_special_tokens=True)["input_ids"]
        mask = [1] * len(ids)
    else:
        if not isinstance(rec, dict):
            raise DataError(f"{where}: the line is a JSON {type(rec).__name__}, not an object")
        if fmt == "jsonl-text":
            text = rec.get(opt["text_field"])
            if not isinstance(text, str):
                if text is None and incomplete_pair(rec, where):
                    raise incomplete_pair(rec, where)
                raise DataError(f"{where}: no string field \"{opt['text_field']}\"\n"
                                "HINT: set --text-field, or give chat (messages) or prompt/completion records")
            if not text.strip():
                raise NothingToPredict("empty text")
            ids = tok(text, add_special_tokens=True)["input_ids"]
            mask = [1] * len(ids)
        elif fmt == "chat":
            if "messages" not in rec:
                raise DataError(f"{where}: no \"messages\" (the first record was chat)")
            ids, mask = tokenize_chat(tok, rec["messages"], where)
        else:
            p, c = rec.get("prompt"), rec.get("completion")
            if isinstance(p, list) and isinstance(c, list):
                ids, mask = tokenize_chat(tok, p + c, where)
            elif isinstance(p, str) and isinstance(c, str):
                pi = tok(p, add_special_tokens=True)["input_ids"]
                ci = tok(c, add_special_tokens=False)["input_ids"]
                ids = pi + ci
                mask = [1 if opt["train_on_all"] else 0] * len(pi) + [1] * len(ci)
            elif incomplete_pair(rec, where):
                raise incomplete_pair(rec, where)
            else:
                raise DataError(f"{where}: \"prompt\" and \"completion\" must both be strings or both "
                                "lists of messages")
    eos = opt["eos"]
    if eos is not None and (not ids or ids[-1] != eos):
        ids = ids + [eos]
        mask = mask + [1]
    if len(ids) < 2:
        raise NothingToPredict(f"{len(ids)} token")
    return ids, mask


def _work(chunk):
    """A chunk of records -> (ids int64 [n], mask uint8 [n], lengths int64 [docs], left out:
    [(where, why)] of the records with nothing to predict), compact arrays (5-9 bytes a token)
    rather than Python lists; or the first error's message."""
    ids, mask, lengths, left_out = [], [], [], []
    for item in chunk:
        try:
            i, m = tokenize_record(item)
        except NothingToPredict as e:
            left_out.append((item[0], str(e)))
            continue
        except DataError as e:
            return str(e)
        ids.extend(i)
        mask.extend(m)
        lengths.append(len(i))
    return (np.asarray(ids, dtype=np.int64), np.asarray(mask, dtype=np.uint8),
            np.asarray(lengths, dtype=np.int64), left_out)


# ---- main ---------------------------------------------------------------------------------------
def histogram(lengths):
    lines, lo = [], 1
    while lo <= max(lengths):
        hi = lo * 2
        n = int(((lengths >= lo) & (lengths < hi)).sum())
        if n:
            lines.append(f"  [{lo:>7}, {hi:>7}) tokens: {n:>9} {'#' * max(1, int(40 * n / len(lengths)))}")
        lo = hi
    return "\n".join(lines)


def prepare(args):
    # the input's kind first: records that are already tokenised need no tokenizer at all
    first = None
    if not args.input.endswith(".txt"):
        for _, rec in read_records(args.input, "jsonl", None):
            first = rec
            break
    fmt = args.format if args.format != "auto" else detect_format(args.input, first)
    tok_file = tokenizer_file(args.tokenizer)
    if os.path.basename(tok_file) == "tokenizer.model" and not os.path.isfile(
            os.path.join(args.tokenizer, "tokenizer_config.json")):
        if args.input.endswith(".txt"):
            hint = "the runtime tokenises text with tokenizer.model itself: pass the .txt to --data directly"
        else:  # JSONL records (chat or text fields): they need transformers' tokenizer
            hint = ("JSONL records (chat messages, prompt/completion) are tokenised with the model's "
                    "Hugging Face tokenizer and its chat template, which this model directory lacks: use "
                    "a model directory with tokenizer.json and tokenizer_config.json (a Hugging Face "
                    "export of it), or write the records' text to a .txt file and pass that to --data "
                    "(plain text, no chat template)")
        raise DataError(f"{args.tokenizer} has only a SentencePiece tokenizer.model (no tokenizer.json or "
                        f"tokenizer_config.json) for transformers to load\nHINT: {hint}")
    try:
        tok = load_tokenizer(args.tokenizer)
    except (OSError, ValueError) as e:
        raise DataError(f"transformers cannot load the tokenizer of {args.tokenizer}: {e}")
    eos = None if args.no_eos else tok.eos_token_id
    if eos is None and not args.no_eos:
        raise DataError(f"the tokenizer {args.tokenizer} has no EOS token\nHINT: pass --no-eos")
    opt = {"format": fmt, "text_field": args.text_field, "train_on_all": args.train_on_all, "eos": eos}
    records = list(read_records(args.input, "text" if fmt == "text" else "jsonl", args.text_docs))
    if not records:
        raise DataError(f"{args.input}: no document (empty or blank)")
    items = [(f"{args.input}:{line}", rec) for line, rec in records]
    chunks = [items[i:i + args.chunk] for i in range(0, len(items), args.chunk)]
    workers = max(1, min(args.workers or os.cpu_count() or 1, len(chunks)))
    from tqdm import tqdm
    bar = tqdm(total=len(items), unit="doc", desc="tokenising", disable=args.quiet, file=sys.stderr)
    results = []
    pool = None
    try:
        if workers == 1:
            _init(args.tokenizer, opt)
            it = map(_work, chunks)
        else:
            pool = mp.get_context("spawn").Pool(workers, _init, (args.tokenizer, opt))
            it = pool.imap(_work, chunks)
        for c, r in zip(chunks, it):
            if isinstance(r, str):
                raise DataError(r)
            results.append(r)
            bar.update(len(c))
    finally:
        bar.close()
        if pool is not None:
            pool.terminate()
    left_out = [x for r in results for x in r[3]]
    if len(left_out) == len(items):
        raise DataError(f"{args.input}: none of its {len(items)} record(s) has anything to predict "
                        f"(first: {left_out[0][0]}: {left_out[0][1]})\n"
                        "HINT: check --format and --text-field; chat records need an assistant reply "
                        "(or --train-on-all)")
    lengths = np.concatenate([r[2] for r in results])
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    tokens = np.concatenate([r[0] for r in results])
    mask = np.concatenate([r[1] for r in results])
    vocab = len(tok)
    info = {"file": os.path.basename(tok_file), "sha256": sha256_of(tok_file),
            "name_or_path": os.path.abspath(args.tokenizer), "eos_token_id": tok.eos_token_id,
            "bos_token_id": tok.bos_token_id}
    source = {"input": os.path.abspath(args.input), "format": fmt, "train_on_all": args.train_on_all,
              "eos_appended": eos is not None}
    tmp = args.out + ".tmp"
    try:
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        header = token_format.write(tmp, tokens, mask, offsets, vocab, info, source)
        os.replace(tmp, args.out)
        args.written = True
    except BaseException as e:
        if os.path.isfile(tmp):
            os.remove(tmp)
        if isinstance(e, OSError):
            raise DataError(f"cannot write {args.out}: {e.strerror or e}\n"
                            "HINT: choose a writable location with space for --out")
        raise
    n, d, tgt = header["num_tokens"], header["num_documents"], header["num_target_tokens"]
    print(f"prepared {args.out}: {fmt}, {d} documents, {n} tokens, {tgt} trained targets, "
          f"masked fraction {1 - tgt / max(1, n - d):.3f} (of the {n - d} next-token positions), "
          f"{header['dtype']} ids, vocab {vocab}, tokenizer {info['file']} sha256 {info['sha256'][:12]}")
    print(f"document length (tokens): min {lengths.min()}, median {int(np.median(lengths))}, "
          f"max {lengths.max()}, mean {lengths.mean():.1f}\n{histogram(lengths)}")
    if left_out:
        reasons = {}
        for where, why in left_out:
            reasons.setdefault(why, []).append(where)
        print(f"left out {len(left_out)} record(s) with nothing to predict: " +
              "; ".join(f"{len(w)} {why} (first {w[0]})" for why, w in sorted(reasons.items())))
    if args.seq_len and (lengths > args.seq_len).any():
        print(f"note: {(lengths > args.seq_len).sum()} document(s) are longer than --seq-len {args.seq_len}; "
              "the runtime splits them into pieces of T tokens")
    return header


def check_paths(inp, out):
    """Refuses an --input that is not a readable regular file and an --out that cannot be
    written or would overwrite the input, before any work."""
    if os.path.isdir(inp):
        raise DataError(f"--input {inp} is a directory\nHINT: pass a .txt or .jsonl file")
    if not os.path.exists(inp):
        raise DataError(f"cannot read {inp}: no such file")
    if not os.path.isfile(inp):
        raise DataError(f"--input {inp} is not a regular file (a device, pipe or socket)\n"
                        "HINT: pass a .txt or .jsonl file (save a stream to one first)")
    if not os.access(inp, os.R_OK):
        raise DataError(f"cannot read {inp}: permission denied")
    with open(inp, "rb") as f:
        if f.read(len(token_format.MAGIC)) == token_format.MAGIC:
            raise DataError(f"--input {inp} is a slidedp token file already (prepared)\n"
                            f"HINT: train on it as it is: --data {inp}")
    if not out:
        raise DataError("--out is empty\nHINT: name the token file to write, e.g. --out train.tok")
    if os.path.isdir(out) or out.endswith(os.sep):
        raise DataError(f"--out {out} is a directory\n"
                        f"HINT: name the token file in it, e.g. --out {os.path.join(out, 'train.tok')}")
    if os.path.exists(out) and not os.path.isfile(out):
        raise DataError(f"--out {out} exists and is not a regular file\nHINT: name a new file, e.g. train.tok")
    for o in (out, out + ".tmp"):  # the output, and the temporary it is written to first
        if os.path.exists(o) and os.path.samefile(o, inp):  # the same path, a link to it, ...
            raise DataError(f"--out {out} would overwrite the input {inp}\n"
                            "HINT: write the token file elsewhere, e.g. --out train.tok")
    parent = os.path.dirname(os.path.abspath(out))
    while not os.path.exists(parent):  # created when written: check the nearest existing folder
        parent = os.path.dirname(parent)
    if not os.path.isdir(parent):
        raise DataError(f"cannot write {out}: {parent} is not a directory")
    if parent == os.path.dirname(os.path.abspath(out)):
        try:
            with tempfile.TemporaryFile(dir=parent):  # a probe, removed when closed
                pass
        except OSError as e:
            raise DataError(f"cannot write {out}: cannot create files in {parent} ({e.strerror or e})\n"
                            "HINT: choose a writable location for --out")
    elif not os.access(parent, os.W_OK | os.X_OK):
        raise DataError(f"cannot write {out}: {parent} is not writable\n"
                        "HINT: choose a writable location for --out")


def _count(minimum):
    """An argparse type: an integer >= minimum."""
    def parse(s):
        try:
            v = int(s)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not an integer: {s!r}")
        if v < minimum:
            raise argparse.ArgumentTypeError(f"must be >= {minimum}, got {v}")
        return v
    return parse


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__[__doc__.index("Inputs"):])
    ap.add_argument("--tokenizer", "--model", required=True,
                    help="the model's Hugging Face directory (tokenizer.json, tokenizer_config.json) "
                         "or a tokenizer.json")
    ap.add_argument("--input", required=True, help=".txt or .jsonl")
    ap.add_argument("--out", required=True, help="the token file to write (e.g. train.tok)")
    ap.add_argument("--format", default="auto",
                    choices=["auto", "text", "jsonl-text", "chat", "prompt-completion"])
    ap.add_argument("--text-field", default="text", help="JSONL text records: the field holding the text")
    ap.add_argument("--text-docs", default="paragraph", choices=["paragraph", "line", "file"],
                    help=".txt: what a document is (paragraphs separated by blank lines, lines, the file)")
    ap.add_argument("--train-on-all", action="store_true",
                    help="chat and prompt/completion: train on every token, not only the replies")
    ap.add_argument("--no-eos", action="store_true", help="do not append the EOS token to documents")
    ap.add_argument("--workers", type=_count(0), default=0, help="tokeniser processes (0: all cores)")
    ap.add_argument("--chunk", type=_count(1), default=256, help="records per task")
    ap.add_argument("--seq-len", type=_count(1), default=None, help="report documents longer than this")
    ap.add_argument("--quiet", action="store_true", help="no progress bar")
    args = ap.parse_args(argv)
    try:
        check_paths(args.input, args.out)
        prepare(args)
    except DataError as e:
        print(f"prepare: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # the output is written whole or not at all (a temporary renamed)
        print(f"\nprepare: interrupted; {args.out} " +
              ("was written (the summary was cut short)" if getattr(args, "written", False) else "was not written"),
              file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
