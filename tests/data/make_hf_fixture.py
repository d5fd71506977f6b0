#!/usr/bin/env python3
"""A real Hugging Face tokenizer (and optionally a tiny Qwen3 model) built offline for the tests.

    make_hf_fixture.py OUT_DIR [--kjv ../shared/data/kjv.txt] [--model] [--vocab 1024]

Trains a byte-level BPE with `tokenizers` on the first 400 KB of the KJV text, with the special
tokens <|endoftext|>, <|im_start|>, <|im_end|>, and writes OUT_DIR/tokenizer.json and
OUT_DIR/tokenizer_config.json holding a ChatML chat template whose assistant turns are wrapped
in {% generation %} markers (so transformers' apply_chat_template(return_assistant_tokens_mask)
gives the reference mask). With --model also a randomly initialised tiny Qwen3 model
(config.json + model.safetensors, written by transformers' save_pretrained; seed 0).
No network.
"""
import argparse
import json
import os

CHAT_TEMPLATE = (
    "{%- for message in messages %}"
    "{{- '<|im_start|>' + message['role'] + '\\n' }}"
    "{%- if message['role'] == 'assistant' %}"
    "{% generation %}{{- message['content'] + '<|im_end|>' }}{% endgeneration %}{{- '\\n' }}"
    "{%- else %}{{- message['content'] + '<|im_end|>\\n' }}{%- endif %}"
    "{%- endfor %}"
    "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}")
SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]


def build(out, kjv, vocab, with_model):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    os.makedirs(out, exist_ok=True)
    with open(kjv, encoding="utf-8") as f:
        text = f.read(400_000)
    lines = [l for l in text.split("\n") if l.strip()]
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.post_processor = processors.ByteLevel(trim_offsets=False)
    trainer = trainers.BpeTrainer(vocab_size=vocab, special_tokens=SPECIALS, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(lines, trainer)
    tok.save(os.path.join(out, "tokenizer.json"))
    cfg = {"tokenizer_class": "PreTrainedTokenizerFast", "eos_token": "<|im_end|>",
           "pad_token": "<|endoftext|>", "bos_token": None, "model_max_length": 4096,
           "chat_template": CHAT_TEMPLATE}
    with open(os.path.join(out, "tokenizer_config.json"), "w") as f:
        json.dump(cfg, f, indent=1)
    if with_model:
        import torch
        from transformers import Qwen3Config, Qwen3ForCausalLM
        torch.manual_seed(0)
        V = tok.get_vocab_size()
        c = Qwen3Config(vocab_size=V, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                        num_attention_heads=4, num_key_value_heads=2, head_dim=16,
                        max_position_embeddings=1024, tie_word_embeddings=True,
                        eos_token_id=tok.token_to_id("<|im_end|>"),
                        pad_token_id=tok.token_to_id("<|endoftext|>"), bos_token_id=None)
        Qwen3ForCausalLM(c).save_pretrained(out)
    return out


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--kjv", default=os.path.join(here, "../../../shared/data/kjv.txt"))
    ap.add_argument("--vocab", type=int, default=1024)
    ap.add_argument("--model", action="store_true")
    a = ap.parse_args()
    build(a.out, a.kjv, a.vocab, a.model)
