#!/usr/bin/env python3
"""tools/data/prepare.py with a real Hugging Face tokenizer, built offline by `tokenizers`
(tests/data/make_hf_fixture.py: a byte-level BPE trained on the KJV text, ChatML template with
{% generation %} markers). Checks: the assistant-only mask equals transformers'
apply_chat_template(return_assistant_tokens_mask=True) on the same conversations; the ids equal
the tokenizer's; prompt/completion and text masks; EOS appended once; the header (dtype, vocab,
SHA-256 of tokenizer.json, counts); uint32 above 65,536; the same bytes from 1 and 2 worker
processes; every malformed input refused with exit 2 and a message, no traceback, no output or
temporary file left and the input unchanged (an --out that is the input, unwritable or a
directory; non-UTF-8 bytes; content that is not text; a token file already prepared); records
with nothing to predict (empty text, no assistant reply) left out and counted; Ctrl-C to the
process group ends with exit 130, no traceback and no output; a UTF-8 BOM and OpenAI-style text
parts accepted. Also tools/generate.py's refusal of a prompt that is not UTF-8 (before any model runs),
of a --seed outside 0..2^64-1, and its text streamed from slidedp_generate's '+ID' lines.

    SLIDEDP_SHARED_DIR=../shared python tests/data/test_prepare.py     (CTest: data_prepare)
"""
import contextlib
import hashlib
import io
import json
import os
import signal
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools", "data"))
sys.path.insert(0, HERE)
import make_hf_fixture  # noqa: E402
import prepare  # noqa: E402
import token_format  # noqa: E402

PREPARE = os.path.join(ROOT, "tools", "data", "prepare.py")
GENERATE = os.path.join(ROOT, "tools", "generate.py")
SHARED = os.environ.get("SLIDEDP_SHARED_DIR", os.path.join(ROOT, "..", "shared"))

CONVERSATIONS = [
    [{"role": "system", "content": "You answer in the words of the King James Bible."},
     {"role": "user", "content": "Who made the heaven and the earth?"},
     {"role": "assistant", "content": "In the beginning God created the heaven and the earth."}],
    [{"role": "user", "content": "What was upon the face of the deep?"},
     {"role": "assistant", "content": "And darkness was upon the face of the deep."},
     {"role": "user", "content": "And then?"},
     {"role": "assistant", "content": "And the Spirit of God moved upon the face of the waters."}],
    [{"role": "user", "content": "Say it with ünïcödé and a newline:\nplease"},
     {"role": "assistant", "content": "Let there be light: ✨\nand there was light."}],
    [{"role": "user", "content": "  leading and trailing spaces  "},
     {"role": "assistant", "content": " And God saw the light, that it was good. "}],
]


def run(*args, subprocess_=False):
    """(exit status, stdout, stderr) of prepare.py: in this process (an exception escaping
    main() fails the test, as a traceback would), or as a command."""
    if subprocess_:
        r = subprocess.run([sys.executable, PREPARE, "--quiet", *args], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
        return r.returncode, r.stdout, r.stderr
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = prepare.main(["--quiet", *args])
    return rc, out.getvalue(), err.getvalue()


class PrepareTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.dir = os.path.join(cls.tmp.name, "tok")
        make_hf_fixture.build(cls.dir, os.path.join(SHARED, "data", "kjv.txt"), 1024, False)
        from transformers import AutoTokenizer
        cls.tok = AutoTokenizer.from_pretrained(cls.dir)
        cls.eos = cls.tok.convert_tokens_to_ids("<|im_end|>")

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def path(self, name):
        return os.path.join(self.tmp.name, name)

    def write_jsonl(self, name, records):
        with open(self.path(name), "w", encoding="utf-8") as f:
            for r in records:
                f.write((r if isinstance(r, str) else json.dumps(r)) + "\n")
        return self.path(name)

    def prepare(self, inp, out, *extra, subprocess_=False):
        rc, so, se = run("--tokenizer", self.dir, "--input", inp, "--out", self.path(out), *extra,
                         subprocess_=subprocess_)
        self.assertEqual(rc, 0, se)
        return token_format.read(self.path(out)), so

    def model_for_generate(self, name):
        """A directory tools/generate.py takes as a model: the fixture's tokenizer and an empty
        config.json (the tests give it a fake slidedp_generate)."""
        model = self.path(name)
        os.makedirs(model, exist_ok=True)
        for name in ("tokenizer.json", "tokenizer_config.json"):
            with open(os.path.join(self.dir, name), "rb") as a, open(os.path.join(model, name), "wb") as b:
                b.write(a.read())
        with open(os.path.join(model, "config.json"), "w") as f:
            f.write("{}")
        return model

    def docs(self, prepared):
        h, t, m, o = prepared
        return [(list(map(int, t[o[d]:o[d + 1]])), list(map(int, m[o[d]:o[d + 1]])))
                for d in range(len(o) - 1)]

    def test_chat_mask_matches_transformers(self):
        inp = self.write_jsonl("chat.jsonl", [{"messages": c} for c in CONVERSATIONS])
        prepared, out = self.prepare(inp, "chat.tok", "--workers", "2", "--chunk", "1", subprocess_=True)
        self.assertIn("chat, 4 documents", out)
        self.assertIn("masked fraction", out)
        for (ids, mask), conv in zip(self.docs(prepared), CONVERSATIONS):
            ref = self.tok.apply_chat_template(conv, tokenize=True, return_dict=True,
                                               return_assistant_tokens_mask=True)
            # The template ends with "<|im_end|>\n"; prepare drops the trailing newline after
            # the last reply (the document ends with the reply's end-of-turn = EOS).
            n = len(ids)
            self.assertEqual(ids, ref["input_ids"][:n])
            self.assertEqual(self.tok.decode(ref["input_ids"][n:]), "\n")
            self.assertEqual(ids[-1], self.eos)
            self.assertEqual(mask, ref["assistant_masks"][:n])
            self.assertGreater(sum(mask), 0)
            self.assertLess(sum(mask), n)

    def test_train_on_all(self):
        inp = self.write_jsonl("chat_all.jsonl", [{"messages": CONVERSATIONS[0]}])
        prepared, _ = self.prepare(inp, "chat_all.tok", "--train-on-all")
        [(ids, mask)] = self.docs(prepared)
        self.assertEqual(mask, [1] * len(ids))

    def test_prompt_completion(self):
        recs = [{"prompt": "And God said,", "completion": " Let there be light."}]
        inp = self.write_jsonl("pc.jsonl", recs)
        prepared, _ = self.prepare(inp, "pc.tok")
        [(ids, mask)] = self.docs(prepared)
        p = self.tok("And God said,")["input_ids"]
        c = self.tok(" Let there be light.", add_special_tokens=False)["input_ids"]
        self.assertEqual(ids, p + c + [self.eos])
        self.assertEqual(mask, [0] * len(p) + [1] * (len(c) + 1))
        # prompt/completion as message lists: chat rules
        recs = [{"prompt": CONVERSATIONS[0][:2], "completion": CONVERSATIONS[0][2:]}]
        prepared2, _ = self.prepare(self.write_jsonl("pc2.jsonl", recs), "pc2.tok")
        prepared3, _ = self.prepare(self.write_jsonl("pc3.jsonl", [{"messages": CONVERSATIONS[0]}]), "pc3.tok")
        self.assertEqual(self.docs(prepared2), self.docs(prepared3))

    def test_text_and_header(self):
        with open(self.path("t.txt"), "w") as f:
            f.write("In the beginning God created the heaven and the earth.\n\n"
                    "And the earth was without form, and void.\nAnd darkness was upon the deep.\n")
        prepared, out = self.prepare(self.path("t.txt"), "t.tok")
        h, t, m, o = prepared
        docs = self.docs(prepared)
        self.assertEqual(len(docs), 2)
        want = self.tok("And the earth was without form, and void.\nAnd darkness was upon the deep.")["input_ids"]
        self.assertEqual(docs[1][0], want + [self.eos])
        self.assertTrue(all(x == 1 for _, mk in docs for x in mk))
        with open(os.path.join(self.dir, "tokenizer.json"), "rb") as f:
            sha = hashlib.sha256(f.read()).hexdigest()
        self.assertEqual(h["tokenizer"]["sha256"], sha)
        self.assertEqual(h["tokenizer"]["file"], "tokenizer.json")
        self.assertEqual(h["dtype"], "uint16")
        self.assertEqual(h["vocab_size"], len(self.tok))
        self.assertEqual(h["num_tokens"], len(t))
        self.assertEqual(h["num_documents"], 2)
        self.assertEqual(h["num_target_tokens"], len(t) - 2)
        with open(self.path("t.tok"), "rb") as f:
            self.assertEqual(f.read(8), b"SLIDEDPT")
        for s in h["sections"].values():
            self.assertEqual(s["offset"] % 4096, 0)

    def test_uint32_above_65536(self):
        token_format.write(self.path("big.tok"), [0, 70000, 151935], [1, 1, 1], [0, 3], 151936,
                           {"file": "tokenizer.json", "sha256": "0" * 64}, {})
        h, t, m, o = token_format.read(self.path("big.tok"))
        self.assertEqual(h["dtype"], "uint32")
        self.assertEqual(list(map(int, t)), [0, 70000, 151935])
        token_format.write(self.path("small.tok"), [0, 65535], [1, 1], [0, 2], 65536, {}, {})
        self.assertEqual(token_format.read(self.path("small.tok"))[0]["dtype"], "uint16")

    def test_parallel_is_deterministic(self):
        recs = [{"messages": c} for c in CONVERSATIONS] * 3
        inp = self.write_jsonl("par.jsonl", recs)
        self.prepare(inp, "p1.tok", "--workers", "1")
        self.prepare(inp, "p2.tok", "--workers", "2", "--chunk", "2", subprocess_=True)
        with open(self.path("p1.tok"), "rb") as a, open(self.path("p2.tok"), "rb") as b:
            self.assertEqual(a.read(), b.read())

    def refused(self, name, lines, want, *extra, raw=None, subprocess_=False):
        if raw is not None:
            with open(self.path(name), "wb") as f:
                f.write(raw)
            inp = self.path(name)
        else:
            inp = self.write_jsonl(name, lines)
        rc, so, se = run("--tokenizer", self.dir, "--input", inp, "--out", self.path(name + ".tok"), *extra,
                         subprocess_=subprocess_)
        self.assertEqual(rc, 2, f"{name}: exit {rc}\n{so}\n{se}")
        self.assertIn(want, se, name)
        self.assertNotIn("Traceback", se, name)
        self.assertFalse(os.path.exists(self.path(name + ".tok")), f"{name}: an output was written")

    def test_malformed_inputs(self):
        self.refused("nojson.jsonl", ['{"messages": [}'], "not valid JSON", subprocess_=True)
        self.refused("noassistant.jsonl", [{"messages": [{"role": "user", "content": "hi"}]}],
                     "no assistant message")
        self.refused("norole.jsonl", [{"messages": [{"content": "hi"}]}], "needs \"role\"")
        self.refused("mixed.jsonl", [{"messages": CONVERSATIONS[0]}, {"text": "x"}], "no \"messages\"")
        self.refused("ids.jsonl", [{"input_ids": [1, 2, 3]}], "already hold input_ids")
        self.refused("notext.jsonl", [{"body": "x"}], "no string field \"text\"")
        self.refused("pcmix.jsonl", [{"prompt": "x", "completion": ["y"]}], "both be strings")
        self.refused("bin.txt", None, "binary data", raw=bytes(range(256)) * 64)
        self.refused("blank.txt", None, "no document", raw=b"\n\n  \n")
        rc, _, se = run("--tokenizer", self.tmp.name, "--input", self.path("chat.jsonl"), "--out", self.path("x.tok"))
        self.assertEqual(rc, 2)
        self.assertIn("neither tokenizer.json nor tokenizer.model", se)
        # a SentencePiece-only model directory (stories260K): the runtime reads its text itself
        rc, _, se = run("--tokenizer", os.path.join(SHARED, "models", "stories260K"), "--input",
                        self.path("blank.txt"), "--out", self.path("sp.tok"))
        self.assertEqual(rc, 2, se)
        self.assertIn("only a SentencePiece tokenizer.model", se)
        self.assertIn("--data directly", se)
        # chat records with that model: no "pass the .txt" for a .jsonl, but what they need
        rc, _, se = run("--tokenizer", os.path.join(SHARED, "models", "stories260K"), "--input",
                        self.path("chat.jsonl"), "--out", self.path("sp.tok"))
        self.assertEqual(rc, 2, se)
        self.assertIn("only a SentencePiece tokenizer.model", se)
        self.assertIn("use a model directory with tokenizer.json and tokenizer_config.json", se)
        self.assertNotIn("--data directly", se)
        # records that are already tokenised, with that model: no tokenizer needed, the runtime takes them
        rc, _, se = run("--tokenizer", os.path.join(SHARED, "models", "stories260K"), "--input",
                        self.write_jsonl("ids.jsonl", [{"input_ids": [1, 2, 3]}]), "--out", self.path("sp.tok"))
        self.assertEqual(rc, 2, se)
        self.assertIn("already hold input_ids", se)
        self.assertIn("pass this file to the runtime directly", se)
        # a tokenizer without a chat template cannot prepare chat data
        notpl = os.path.join(self.tmp.name, "notpl")
        os.makedirs(notpl, exist_ok=True)
        with open(os.path.join(self.dir, "tokenizer_config.json")) as f:
            cfg = json.load(f)
        cfg.pop("chat_template")
        with open(os.path.join(notpl, "tokenizer_config.json"), "w") as f:
            json.dump(cfg, f)
        with open(os.path.join(self.dir, "tokenizer.json")) as a, open(os.path.join(notpl, "tokenizer.json"), "w") as b:
            b.write(a.read())
        inp = self.write_jsonl("c1.jsonl", [{"messages": CONVERSATIONS[0]}])
        rc, _, se = run("--tokenizer", notpl, "--input", inp, "--out", self.path("y.tok"))
        self.assertEqual(rc, 2, se)
        self.assertIn("no chat template", se)

    def test_records_with_nothing_to_predict_are_left_out_and_counted(self):
        # empty text and a conversation without an assistant reply are left out, named in the
        # summary; the other records are prepared as they would be alone
        inp = self.write_jsonl("sparse.jsonl", [{"messages": CONVERSATIONS[0]},
                                                {"messages": [{"role": "user", "content": "hi"}]},
                                                {"messages": CONVERSATIONS[1]}])
        prepared, so = self.prepare(inp, "sparse.tok")
        alone, _ = self.prepare(self.write_jsonl("dense.jsonl", [{"messages": CONVERSATIONS[0]},
                                                                {"messages": CONVERSATIONS[1]}]), "dense.tok")
        self.assertEqual(self.docs(prepared), self.docs(alone))
        self.assertIn(f"left out 1 record(s) with nothing to predict: 1 no assistant message with content "
                      f"(first {inp}:2)", so)
        text = self.write_jsonl("empty.jsonl", [{"text": "In the beginning"}, {"text": ""}, {"text": "  "},
                                                {"text": "God created"}])
        prepared, so = self.prepare(text, "empty.tok")
        self.assertEqual(prepared[0]["num_documents"], 2)
        self.assertIn(f"left out 2 record(s) with nothing to predict: 2 empty text (first {text}:2)", so)

    def test_a_token_file_as_input_points_to_data(self):
        self.prepare(self.write_jsonl("t.jsonl", [{"text": "In the beginning"}]), "t.tok")
        rc, _, se = run("--tokenizer", self.dir, "--input", self.path("t.tok"), "--out", self.path("t2.tok"))
        self.assertEqual(rc, 2, se)
        self.assertIn(f"is a slidedp token file already (prepared)\nHINT: train on it as it is: --data "
                      f"{self.path('t.tok')}", se)
        self.assertFalse(os.path.exists(self.path("t2.tok")))

    def test_ctrl_c_ends_without_a_traceback_or_an_output(self):
        # Ctrl-C reaches the whole process group (the tokeniser processes too)
        with open(self.path("big.txt"), "w") as f:
            for i in range(400000):
                f.write(f"And God said, Let there be light: and there was light {i}.\n\n")
        out = self.path("big.tok")
        p = subprocess.Popen([sys.executable, PREPARE, "--tokenizer", self.dir, "--input", self.path("big.txt"),
                              "--out", out, "--workers", "2", "--chunk", "64"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, start_new_session=True)
        seen = ""
        while "tokenising" not in seen:  # the progress bar: the workers are running
            ch = p.stderr.read(1)
            self.assertTrue(ch, "prepare ended before tokenising: " + seen)
            seen += ch
        os.killpg(p.pid, signal.SIGINT)
        _, se = p.communicate(timeout=60)
        self.assertEqual(p.returncode, 130, seen + se)
        self.assertIn(f"prepare: interrupted; {out} was not written", se)
        self.assertNotIn("Traceback", seen + se)
        self.assertFalse(os.path.exists(out) or os.path.exists(out + ".tmp"))

    def test_out_is_the_input(self):
        inp = self.write_jsonl("self.jsonl", [{"messages": CONVERSATIONS[0]}])
        tmp_in = self.write_jsonl("self2.tok.tmp", [{"messages": CONVERSATIONS[0]}])
        with open(inp, "rb") as f:
            before = f.read()
        os.symlink(inp, self.path("self_link.tok"))
        os.link(inp, self.path("self_hard.tok"))
        # the same path, another spelling of it, a symlink and a hard link to it; an OUT whose
        # temporary OUT.tmp is the input
        for i, out in ((inp, inp), (inp, os.path.join(self.tmp.name, ".", "self.jsonl")),
                       (inp, self.path("self_link.tok")), (inp, self.path("self_hard.tok")),
                       (tmp_in, self.path("self2.tok"))):
            rc, _, se = run("--tokenizer", self.dir, "--input", i, "--out", out)
            self.assertEqual(rc, 2, f"--out {out}: {se}")
            self.assertIn("would overwrite the input", se)
            with open(i, "rb") as f:
                self.assertEqual(f.read(), before, f"--out {out} changed the input")
        self.assertFalse(os.path.exists(self.path("self.jsonl.tmp")))
        self.assertFalse(os.path.exists(self.path("self2.tok")))

    def test_bad_out_paths_leave_nothing(self):
        inp = self.write_jsonl("o.jsonl", [{"messages": CONVERSATIONS[0]}])
        os.makedirs(self.path("prepdir"), exist_ok=True)
        os.mkfifo(self.path("fifo.tok"))
        for out, want in ((self.path("prepdir"), "is a directory"),
                          (self.path("prepdir") + os.sep, "is a directory"),
                          (os.path.join(inp, "x.tok"), "is not a directory"),
                          (self.path("fifo.tok"), "is not a regular file")):
            rc, _, se = run("--tokenizer", self.dir, "--input", inp, "--out", out)
            self.assertEqual(rc, 2, f"--out {out}: {se}")
            self.assertIn(want, se)
            self.assertNotIn("Traceback", se)
            self.assertFalse(os.path.exists(out.rstrip(os.sep) + ".tmp"), f"--out {out}: a .tmp was left")
        self.assertTrue(os.path.isdir(self.path("prepdir")))
        cwd = os.getcwd()
        os.makedirs(self.path("cwd"), exist_ok=True)
        os.chdir(self.path("cwd"))
        try:
            rc, _, se = run("--tokenizer", self.dir, "--input", inp, "--out", "")
        finally:
            os.chdir(cwd)
        self.assertEqual(rc, 2, se)
        self.assertIn("--out is empty", se)
        self.assertEqual(os.listdir(self.path("cwd")), [])
        # a failure while writing (here: the disk fills up) removes the partial temporary
        def full(path, *a):
            with open(path, "wb") as f:
                f.write(b"SLIDEDPT partial")
            raise OSError(28, "No space left on device")
        with mock.patch.object(token_format, "write", full):
            rc, _, se = run("--tokenizer", self.dir, "--input", inp, "--out", self.path("full.tok"))
        self.assertEqual(rc, 2, se)
        self.assertIn("cannot write", se)
        self.assertIn("No space left on device", se)
        self.assertFalse(os.path.exists(self.path("full.tok.tmp")))
        self.assertFalse(os.path.exists(self.path("full.tok")))

    @unittest.skipUnless(os.path.isdir("/proc/self"), "needs Linux /proc (a folder no file can be created in)")
    def test_unwritable_out(self):
        inp = self.write_jsonl("w.jsonl", [{"messages": CONVERSATIONS[0]}])
        rc, _, se = run("--tokenizer", self.dir, "--input", inp, "--out", "/proc/x.tok")
        self.assertEqual(rc, 2, se)
        self.assertIn("cannot write /proc/x.tok", se)
        self.assertIn("HINT:", se)
        self.assertFalse(os.path.exists("/proc/x.tok.tmp"))

    def test_bad_inputs_named(self):
        for inp, want in ((self.tmp.name, "is a directory"), (os.devnull, "is not a regular file"),
                          (self.path("missing.jsonl"), "no such file")):
            rc, _, se = run("--tokenizer", self.dir, "--input", inp, "--out", self.path("in.tok"))
            self.assertEqual(rc, 2, se)
            self.assertIn(want, se)
            self.assertFalse(os.path.exists(self.path("in.tok")))

    def test_bad_numbers_refused_at_parsing(self):
        inp = self.write_jsonl("n.jsonl", [{"messages": CONVERSATIONS[0]}])
        for flag, value in (("--seq-len", "-4"), ("--seq-len", "0"), ("--chunk", "0"), ("--workers", "-1")):
            rc, so, se = run("--tokenizer", self.dir, "--input", inp, "--out", self.path("n.tok"), flag, value,
                             subprocess_=True)
            self.assertEqual(rc, 2, f"{flag} {value}: {so}{se}")
            self.assertIn(f"argument {flag}: must be >=", se)
            self.assertNotIn("Traceback", se)
            self.assertFalse(os.path.exists(self.path("n.tok")))

    def test_jsonl_not_utf8(self):
        self.refused("latin1.jsonl", None, "latin1.jsonl:2: not UTF-8 text",
                     raw=b'{"text": "In the beginning"}\n{"text": "caf\xe9"}\n')

    def test_content_not_text(self):
        self.refused("content5.jsonl", [{"messages": [{"role": "user", "content": "hi"},
                                                      {"role": "assistant", "content": 5}]}],
                     "content5.jsonl:1: a message's \"content\" is a JSON int")
        image = {"type": "image_url", "image_url": {"url": "http://x/y.png"}}
        self.refused("image.jsonl", [{"messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}, image]},
                                                   {"role": "assistant", "content": "And God said"}]}],
                     "image.jsonl:1: a message's content has a part of type \"image_url\"")

    def test_incomplete_prompt_completion(self):
        self.refused("ponly.jsonl", [{"prompt": "And God said,"}],
                     "ponly.jsonl:1: \"prompt\" without \"completion\": the prompt/completion pair is incomplete")
        self.refused("conly.jsonl", [{"prompt": "And God said,", "completion": " Let there be light."},
                                     {"completion": " Let there be light."}],
                     "conly.jsonl:2: \"completion\" without \"prompt\"")

    def test_text_parts_and_bom_accepted(self):
        def parts(conv):  # each message's content split into OpenAI-style text parts
            return [dict(m, content=[{"type": "text", "text": m["content"][:5]},
                                     {"type": "text", "text": m["content"][5:]}]) for m in conv]
        plain, _ = self.prepare(self.write_jsonl("plain.jsonl", [{"messages": c} for c in CONVERSATIONS]), "plain.tok")
        split, _ = self.prepare(self.write_jsonl("parts.jsonl", [{"messages": parts(c)} for c in CONVERSATIONS]),
                                "parts.tok")
        self.assertEqual(self.docs(split), self.docs(plain))
        with open(self.path("plain.jsonl"), "rb") as f:
            body = f.read()
        with open(self.path("bom.jsonl"), "wb") as f:
            f.write(b"\xef\xbb\xbf" + body)
        bom, _ = self.prepare(self.path("bom.jsonl"), "bom.tok")
        self.assertEqual(self.docs(bom), self.docs(plain))
        with open(self.path("bom.txt"), "wb") as f:
            f.write(b"\xef\xbb\xbfIn the beginning God created the heaven and the earth.\n")
        with open(self.path("nobom.txt"), "wb") as f:
            f.write(b"In the beginning God created the heaven and the earth.\n")
        self.assertEqual(self.docs(self.prepare(self.path("bom.txt"), "bom_txt.tok")[0]),
                         self.docs(self.prepare(self.path("nobom.txt"), "nobom_txt.tok")[0]))

    def test_bare_cr_line_ends_are_line_ends(self):
        # classic-Mac line ends (CR alone): each record is a line of its own, as with LF or CRLF
        plain, _ = self.prepare(self.write_jsonl("lf.jsonl", [{"messages": c} for c in CONVERSATIONS]), "lf.tok")
        with open(self.path("lf.jsonl"), "rb") as f:
            body = f.read()
        for name, text in (("cr.jsonl", body.replace(b"\n", b"\r")), ("crlf.jsonl", body.replace(b"\n", b"\r\n"))):
            with open(self.path(name), "wb") as f:
                f.write(text)
            got, _ = self.prepare(self.path(name), name + ".tok")
            self.assertEqual(self.docs(got), self.docs(plain), name)
        # a bad record among them is named by its line, CRs counted as line ends
        with open(self.path("crbad.jsonl"), "wb") as f:
            f.write(body.replace(b"\n", b"\r") + b"{not json\r")
        n = body.count(b"\n")
        rc, _, se = run("--tokenizer", self.dir, "--input", self.path("crbad.jsonl"), "--out", self.path("crbad.tok"))
        self.assertEqual(rc, 2, se)
        self.assertIn(f"crbad.jsonl:{n + 1}: not valid JSON", se)
        # text: paragraphs split by bare CRs as by LFs
        with open(self.path("cr.txt"), "wb") as f:
            f.write(b"In the beginning God created the heaven.\r\rAnd the earth was without form.\r")
        with open(self.path("lf.txt"), "wb") as f:
            f.write(b"In the beginning God created the heaven.\n\nAnd the earth was without form.\n")
        cr, _ = self.prepare(self.path("cr.txt"), "cr_txt.tok")
        lf, _ = self.prepare(self.path("lf.txt"), "lf_txt.tok")
        self.assertEqual(len(self.docs(cr)), 2)
        self.assertEqual(self.docs(cr), self.docs(lf))
        # CR CR LF (line ends converted twice) ends a line once, as LF: one paragraph of two lines
        with open(self.path("crcrlf.txt"), "wb") as f:
            f.write(b"In the beginning God created the heaven.\r\r\nAnd the earth was without form.\r\r\n")
        with open(self.path("lf2.txt"), "wb") as f:
            f.write(b"In the beginning God created the heaven.\nAnd the earth was without form.\n")
        crcrlf, _ = self.prepare(self.path("crcrlf.txt"), "crcrlf.tok")
        self.assertEqual(self.docs(crcrlf), self.docs(self.prepare(self.path("lf2.txt"), "lf2.tok")[0]))
        # a raw CR inside a JSON string is no line end: the whole line's JSON error is named
        with open(self.path("rawcr.jsonl"), "wb") as f:
            f.write(b'{"text": "x\ry"}\n')
        rc, _, se = run("--tokenizer", self.dir, "--input", self.path("rawcr.jsonl"), "--out", self.path("rawcr.tok"))
        self.assertEqual(rc, 2, se)
        self.assertIn("rawcr.jsonl:1: not valid JSON (Invalid control character", se)

    def test_generate_streams_the_text_as_the_ids_come(self):
        model = self.model_for_generate("stream_model")
        ids = self.tok(" God created the heaven and the earth.", add_special_tokens=False)["input_ids"]
        want = self.tok.decode(ids, skip_special_tokens=True)
        binary = self.path("fake_stream.sh")
        for status in (0, 3):  # a run that ends well, and one that fails after its tokens
            with open(binary, "w") as f:
                # a text line that starts with '+' is no token id
                f.write("#!/bin/sh\necho '+5 apples.'\n" + "".join(f"echo +{i}\n" for i in ids)
                        + (f"echo {','.join(map(str, ids))}\n" if status == 0 else "echo 'boom' >&2\n")
                        + f"exit {status}\n")
            os.chmod(binary, 0o755)
            r = subprocess.run([sys.executable, GENERATE, "--model", model, "--binary", binary, "--prompt",
                                "In the beginning", "--show-ids"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
            self.assertEqual(r.returncode, status, r.stderr)
            self.assertNotIn("+", r.stdout)  # the '+ID' lines are read, not shown
            # the text as streamed, complete on its line also when the binary fails after it
            self.assertEqual(r.stdout.splitlines()[:2], ["In the beginning", want])
            if status == 0:
                self.assertIn(f"generated ids: {ids}", r.stdout)
            else:
                self.assertIn("boom", r.stderr)

    def test_generate_refuses_a_negative_seed(self):
        r = subprocess.run([sys.executable, GENERATE, "--model", self.dir, "--prompt", "hi", "--seed", "-1"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("--seed -1: must be a whole number from 0 to 2^64 - 1", r.stderr)
        self.assertNotIn("Traceback", r.stderr)

    def test_generate_refuses_a_prompt_that_is_not_utf8(self):
        model = self.model_for_generate("gen_model")
        binary, ran = self.path("fake_generate.sh"), self.path("fake_generate.ran")
        with open(binary, "w") as f:
            f.write(f"#!/bin/sh\ntouch '{ran}'\necho 1,2\n")
        os.chmod(binary, 0o755)
        env = dict(os.environ, PYTHONUTF8="1")  # argv decoded as UTF-8, bad bytes as surrogates
        for args, flag in (([b"--prompt", b"\xff bad"], "--prompt"),
                           ([b"--chat", b"--system", b"ok \xff", b"--prompt", b"hi"], "--system")):
            r = subprocess.run([sys.executable, GENERATE, "--model", model, "--binary", binary, *args],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
            se = r.stderr.decode("utf-8", "replace")
            self.assertEqual(r.returncode, 2, se)
            self.assertIn(f"generate: error: {flag} is not UTF-8 text (byte 0xff", se)
            self.assertIn("HINT:", se)
            self.assertNotIn("Traceback", se)
            self.assertFalse(os.path.exists(ran), "the model ran")


if __name__ == "__main__":
    unittest.main(verbosity=2)
