// Tokenised documents held in memory (JSONL with input_ids/labels, plain text + SentencePiece),
// with their next-token targets already computed.
// Design decision: the label rule is applied once, per whole document, at load:
//   target[t] = L[t+1] for t < n-1, and target[n-1] = -100,
// where L = the document's "labels" (JSONL) or its input_ids (text, JSONL without labels).
// This is exactly the shift transformers' causal-LM loss applies to (input_ids, labels), so a
// row holding one document gives the same loss as transformers on that document; packing and
// splitting later only copy (token, target) pairs and never change a target.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/errors.h"

namespace slidedp::data {

/// Documents as one flat token array plus offsets.
struct DocumentSet {
  std::vector<int32_t> tokens;   // all documents back to back
  std::vector<int32_t> targets;  // next-token targets per token (-100 = ignored), as above
  std::vector<int64_t> offsets;  // document d is [offsets[d], offsets[d+1]); size = docs + 1

  int64_t numDocuments() const { return static_cast<int64_t>(offsets.size()) - 1; }
  int64_t numTokens() const { return static_cast<int64_t>(tokens.size()); }
  /// Appends one document; `labels` empty (targets from input_ids) or of ids.size() values.
  void add(const std::vector<int32_t>& ids, const std::vector<int32_t>& labels);
};

/// A JSONL record of raw text (chat "messages", "prompt"/"completion", "text") where token ids
/// were expected: the caller adds the command that tokenises it (tools/data/prepare.py).
class UntokenisedRecords : public UserError {
 public:
  using UserError::UserError;
};

/// Reads a JSONL file: one JSON object per non-blank line with "input_ids" (non-empty array of
/// integers in [0, vocab_size)) and optional "labels" (same length; each -100 or in
/// [0, vocab_size)). Throws UserError naming file and line for: a line that is not valid JSON or
/// not an object, a missing/empty/non-integer input_ids, an id out of range, labels of another
/// length or with a bad value; and for a file with no document. Labels follow transformers'
/// convention: aligned with input_ids, NOT shifted (labels[t] = input_ids[t] or -100; the
/// shift happens here). Labels that look already shifted (over the file, of at least 16
/// labels, fewer than half equal input_ids[t] and at least 90% equal input_ids[t+1]) are
/// refused. A record without input_ids but with "messages", "prompt" or "text" throws
/// UntokenisedRecords.
DocumentSet readJsonl(const std::string& path, int64_t vocab_size);

/// Reads plain text and tokenises it with the SentencePiece model `tokenizer`: documents are
/// paragraphs separated by blank (empty or whitespace-only) lines; inside a document lines are
/// joined with one space (a trailing '\r' is dropped); each document is encoded on its own
/// and prefixed with the tokenizer's bos_id(). This reproduces shared/reference/
/// kjv_head_tokens.safetensors from shared/data/kjv.txt. Throws UserError when `tokenizer` is
/// empty or cannot be loaded, the tokenizer has no BOS, an id is >= vocab_size (tokenizer and
/// model disagree), the file is binary (a NUL byte or invalid UTF-8 in its first MiB), or the
/// text has no document.
DocumentSet readText(const std::string& path, const std::string& tokenizer, int64_t vocab_size);

}  // namespace slidedp::data
