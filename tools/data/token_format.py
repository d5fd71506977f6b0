"""The slidedp token file: what tools/data/prepare.py writes and src/data/prepared_file.h reads.

One file, memory-mapped by every rank, little-endian:

    bytes [0, 8)        magic b"SLIDEDPT"
    bytes [8, 12)       uint32 format version (1)
    bytes [12, 16)      uint32 length of the JSON header in bytes (n)
    bytes [16, 16 + n)  the JSON header (UTF-8), padded with spaces to the data start
    sections, each starting at a multiple of 4096 bytes (offsets in the header):
      tokens       [num_tokens]      uint16 (vocab_size <= 65536) or uint32: the token ids
      loss_mask    [num_tokens]      uint8: 1 = the token is a training target (the loss of
                                     predicting it from the tokens before it counts), 0 = not
      doc_offsets  [num_documents+1] int64: document d is tokens [doc_offsets[d], doc_offsets[d+1])

The mask is transformers' unshifted `labels` convention: labels[t] = ids[t] where mask[t] = 1,
else -100; the runtime shifts (the target of position t is labels[t + 1], within a document).

The JSON header: {"format": "slidedp-tokens", "version": 1, "dtype": "uint16"|"uint32",
"vocab_size": V (the tokenizer's, len(tokenizer)), "num_tokens", "num_documents",
"num_target_tokens" (mask = 1 at positions > 0 of a document: the targets the runtime trains
on), "tokenizer": {"file": "tokenizer.json"|"tokenizer.model", "sha256": hex digest of that
file's bytes, "name_or_path", "eos_token_id", "bos_token_id"}, "source": {...}, "sections":
{"tokens": {"offset", "bytes"}, "loss_mask": {...}, "doc_offsets": {...}}}.
"""
import json
import struct

import numpy as np

MAGIC = b"SLIDEDPT"
VERSION = 1
ALIGN = 4096


def _align(x):
    return (x + ALIGN - 1) // ALIGN * ALIGN


def write(path, tokens, mask, doc_offsets, vocab_size, tokenizer_info, source):
    """Writes a token file. tokens: int array [N]; mask: uint8 [N]; doc_offsets: int64 [D+1]."""
    dtype = np.uint16 if vocab_size <= 65536 else np.uint32
    tokens = np.asarray(tokens)
    if tokens.size and (tokens.min() < 0 or tokens.max() >= vocab_size):
        raise ValueError(f"token id outside [0, {vocab_size})")
    tokens = tokens.astype(dtype)
    mask = np.asarray(mask, dtype=np.uint8)
    doc_offsets = np.asarray(doc_offsets, dtype=np.int64)
    n = int(tokens.size)
    target = int(mask.sum()) - int(mask[doc_offsets[:-1]].sum()) if n else 0
    header = {
        "format": "slidedp-tokens", "version": VERSION, "dtype": np.dtype(dtype).name,
        "vocab_size": int(vocab_size), "num_tokens": n,
        "num_documents": int(doc_offsets.size - 1), "num_target_tokens": target,
        "tokenizer": tokenizer_info, "source": source, "sections": {},
    }
    sizes = {"tokens": tokens.nbytes, "loss_mask": mask.nbytes, "doc_offsets": doc_offsets.nbytes}
    # The header's size depends on the offsets it records: lay out until it fits.
    start = ALIGN
    while True:
        off = start
        for name in ("tokens", "loss_mask", "doc_offsets"):
            header["sections"][name] = {"offset": off, "bytes": sizes[name]}
            off = _align(off + sizes[name])
        blob = json.dumps(header, indent=1).encode()
        if 16 + len(blob) <= start:
            break
        start = _align(16 + len(blob))
    with open(path, "wb") as f:
        f.write(MAGIC + struct.pack("<II", VERSION, len(blob)) + blob)
        for name, arr in (("tokens", tokens), ("loss_mask", mask), ("doc_offsets", doc_offsets)):
            f.write(b"\0" * (header["sections"][name]["offset"] - f.tell()))
            f.write(arr.tobytes())
    return header


def read(path):
    """(header, tokens, loss_mask, doc_offsets) of a token file, the arrays memory-mapped."""
    with open(path, "rb") as f:
        head = f.read(16)
        if len(head) < 16 or head[:8] != MAGIC:
            raise ValueError(f"{path}: not a slidedp token file (no {MAGIC!r} magic)")
        version, n = struct.unpack("<II", head[8:16])
        header = json.loads(f.read(n))
    mm = np.memmap(path, mode="r", dtype=np.uint8)
    s = header["sections"]

    def section(name, dt):
        o, b = s[name]["offset"], s[name]["bytes"]
        return mm[o:o + b].view(dt)

    return (header, section("tokens", np.dtype(header["dtype"])), section("loss_mask", np.uint8),
            section("doc_offsets", np.int64))
