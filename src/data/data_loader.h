// The training job's data pipeline: token files or documents -> packed global batches.
//
// Design decision: batch(step) is a pure function of (dataset, spec, step). Global rows form
// one endless sequence, epoch after epoch (no row is dropped at an epoch's end; a batch may
// straddle two epochs); the global batch of step s (1-based) is rows [(s-1)*B, s*B). Every rank
// computes the same global batch and the trainer hands each worker its block of rows
// (rowsForWorker), so sharding is by rows of the global batch, never by files. The resumable
// cursor is therefore little more than the step; it also carries the epoch and the epoch's
// first row (so a resumed run does not re-plan earlier epochs) and a fingerprint of the data
// and spec (so resuming on other data fails loudly instead of silently changing the order).
//
// The exact rules (a row holds T positions; labels are next-token targets, -100 = ignored):
//  * Token streams (.bin, .npy) are cut into W = floor((N-1)/T) windows of T+1 tokens, window
//    w = tokens [w*T, w*T+T] (consecutive windows share one token, so every token after the
//    first is a target once per epoch; the last (N-1) mod T tokens are never used).
//    input_ids = window[0..T), labels = window[1..T], position_ids = 0..T-1. With
//    DataSpec.stream_doc_start = s >= 0 (e.g. BOS) positions also restart at every input
//    token s, and the label predicting s (labels[t] where window[t+1] == s) is -100.
//  * Prepared token files (tools/data/prepare.py): documents whose labels are the ids where the
//    file's loss mask is 1, else -100 (transformers' unshifted labels), then as below; read
//    from the mapping, never copied.
//  * Documents (.jsonl, .txt): each document of n tokens gets targets once, at load:
//    target[t] = L[t+1] (t < n-1), target[n-1] = -100, with L = its JSONL "labels" when given,
//    else its input_ids. This is transformers' shift (logits[t] vs labels[t+1]), so a row gives
//    the same summed loss and count as transformers on the same documents.
//    A document longer than T is split into pieces of T tokens (the last one shorter); each
//    piece keeps its targets (a piece's last target is the first token of the next piece).
//    Rows are packed greedily in epoch order: a piece goes into the current row when it fits in
//    what is left, otherwise the row is closed and the piece starts the next row; pieces are
//    never split. position_ids restart at 0 at each piece; the unused tail of a row is padding
//    (input_ids = pad_token_id, labels = -100, position_ids 0, 1, ... as its own block).
//  * Epoch order: documents (streams: windows) in the order of a keyed Feistel permutation
//    (permutation.h) keyed by (seed, epoch); the pieces of a split document stay consecutive.
//    shuffle = false keeps file order. Deterministic on every platform.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/documents.h"
#include "data/prepared_file.h"
#include "data/token_file.h"
#include "data/batch_source.h"

namespace slidedp::data {

/// What to read and how to batch it. Every knob with its default and meaning.
struct DataSpec {
  std::string path;               // the data file
  std::string option = "--data";  // the option that gave it (--eval-data), for messages
  std::string format = "auto";    // auto (a prepared token file by its magic, else by extension:
                                  // .bin .npy .jsonl .txt), prepared, bin, npy, jsonl, text
  std::string tokenizer;          // SentencePiece tokenizer.model (text only)
  std::string token_dtype = "auto";  // .bin without llm.c header: auto (= uint16 when V <= 65536;
                                     // refused as ambiguous above), uint16, uint32
  std::string model_dir;          // the model's directory ("" = none): prepared files' tokenizer
                                  // identity is checked against its tokenizer file
  int64_t batch_size = 0;         // B: rows of the global batch
  int64_t seq_len = 0;            // T: tokens per row
  uint64_t seed = 0;              // shuffling seed
  int64_t vocab_size = 0;         // V: every token id and label must be in [0, V)
  bool shuffle = true;            // false: file order, every epoch
  int64_t stream_doc_start = -1;  // streams: token id starting a document (positions reset), -1
  int64_t pad_token_id = 0;       // documents: input id of row padding (its labels are -100)
};

/// The format of spec.path: spec.format, or with "auto" a prepared token file by its header, else
/// the extension (.bin .npy .jsonl .txt); "txt" reads as "text". Reads at most the file's
/// header. Throws UserError (with a HINT) for a path that does not exist or is a directory, an
/// extension that tells no format, an unknown spec.format.
std::string resolveDataFormat(const DataSpec& spec);

class DataLoader : public slidedp::BatchSource {
 public:
  /// Opens and validates the data (token files are mmap'd; JSONL and text are tokenised into
  /// memory here). Throws UserError (with a HINT) for: B, T or V < 1; an unknown format or
  /// extension; an unreadable file; a bad llm.c header or .npy (dtype, shape, size); a
  /// headerless .bin with token_dtype auto and V > 65536 (uint16 or uint32 is ambiguous);
  /// empty data; a stream shorter than T+1 tokens; a token id outside [0, V) anywhere in a
  /// token file (one parallel pass over the mapping here, so before the first step); a
  /// prepared file whose header disagrees with the model (PreparedFile::open); a JSONL line
  /// that is not an object, lacks input_ids (chat/prompt/text records: the HINT names the
  /// prepare command), has ids outside [0, V), labels of another length or labels that look
  /// already shifted; text that is binary (NUL bytes, not UTF-8) or without a SentencePiece
  /// tokenizer (a model with tokenizer.json: the HINT names the prepare command); documents
  /// whose every target is -100.
  static std::unique_ptr<DataLoader> open(const DataSpec& spec);

  /// The prepared token file behind this loader (format "prepared"), else nullptr.
  const PreparedFile* prepared() const { return prepared_.get(); }

  /// The global batch of step `step` (>= 1): B rows of T, row-major int64 input_ids, labels
  /// (-100 = ignored) and position_ids, by the rules above. Pure in (data, spec, step); costs
  /// O(B*T) plus, once per epoch met, O(documents) to plan that epoch. Same on every rank.
  /// Throws UserError for step < 1 and for a stream token id outside [0, V) (file, index).
  /// Not thread-safe (it caches epoch plans): one DataLoader per thread.
  GlobalBatch batch(int64_t step) override;

  /// The cursor after the last batch() call: {"step", "epoch", "epoch_first_row", and the
  /// fingerprint "seed", "batch_size", "seq_len", "shuffle", "num_tokens", "num_documents",
  /// "num_pieces", "format", "content"}. The next step to train is step + 1. Before any batch(): step 0.
  nlohmann::json cursorJson() const;
  /// Restores a cursor of cursorJson(); batch(step + 1), ... then continue exactly as an
  /// uninterrupted run. Throws UserError when a field is missing or the fingerprint differs
  /// (other data, seed, B, T, shuffle or pieces; a cursor saved before pieces without a trained
  /// target were left out, on data that has such pieces). Returns a warning (else "") when the
  /// counts match but the tokens differ ("content": contentFingerprint()): an edited or
  /// another file of the same counts, which the resume continues on.
  [[nodiscard]] std::string restore(const nlohmann::json& cursor);
  /// XXH3-64 (16 hex digits) of the token ids and their trained flags: all of them up to 2^22
  /// tokens, else 64 evenly spaced runs of 2^16 (a sample: an edit between them goes unseen).
  /// Computed once at open().
  const std::string& content() const { return content_; }

  /// Tokens in the data (streams: the file's tokens; documents: the sum of their lengths).
  int64_t numTokens() const;
  /// Documents (JSONL lines, text paragraphs); 1 for a token stream.
  int64_t numDocuments() const;
  /// Rows of epoch `epoch` (streams: W, every epoch; documents: depends on the epoch's order).
  int64_t rowsInEpoch(int64_t epoch);
  /// One line for the job's start-up print: format, file, sizes, B, T, rules, seed.
  std::string describe() const;

 private:
  struct EpochPlan {
    int64_t epoch = -1;
    std::vector<int64_t> order;     // piece ids in epoch order
    std::vector<int64_t> rowBegin;  // row r holds order[rowBegin[r] .. rowBegin[r+1])
  };
  explicit DataLoader(const DataSpec& spec) : spec_(spec) {}
  uint64_t epochKey(int64_t epoch) const;
  /// Pieces of at most T tokens of D documents with boundaries offsets[0..D], those without a
  /// trained target left out. Throws UserError when none has one.
  void buildPieces(const int64_t* offsets, int64_t D);
  const EpochPlan& plan(int64_t epoch);
  /// (epoch, row within the epoch) of global row g.
  std::pair<int64_t, int64_t> locate(int64_t g);
  void fillStreamRow(int64_t epoch, int64_t row, int64_t* ids, int64_t* labels, int64_t* pos,
                     std::vector<int64_t>& buf);
  void fillDocumentRow(int64_t epoch, int64_t row, int64_t* ids, int64_t* labels, int64_t* pos);

  DataSpec spec_;
  std::string format_;
  // Token stream.
  std::unique_ptr<TokenFile> stream_;
  int64_t windows_ = 0;
  // Documents (in memory, or a prepared file's mapping), and their pieces of at most T tokens.
  DocumentSet docs_;
  std::unique_ptr<PreparedFile> prepared_;
  std::vector<int64_t> pieceBegin_;  // token offset of each piece
  std::vector<int32_t> pieceLen_;    // its length, 1..T
  std::vector<int64_t> docPieces_;   // document d's pieces are [docPieces_[d], docPieces_[d+1])
  int64_t untrainedPieces_ = 0;      // pieces left out: none of their tokens predicts a trained one
  // Planning state (a cache: batch() results never depend on it).
  std::map<int64_t, int64_t> epochBegin_;  // epoch -> its first global row (known so far)
  std::vector<EpochPlan> plans_;           // the last two epochs planned
  int64_t lastStep_ = 0, lastEpoch_ = 0, lastEpochBegin_ = 0;
  std::string content_;  // contentFingerprint()
  std::string contentFingerprint() const;
};

}  // namespace slidedp::data
