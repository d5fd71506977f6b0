// Packed, shuffled, resumable global batches (see data_loader.h for the rules).
#include "data/data_loader.h"

#include <algorithm>
#include <cctype>
#include <climits>

#include <unistd.h>

#include <fmt/format.h>

#include "common/errors.h"
#include "data/permutation.h"
#include "formats/file_digest.h"
#include "formats/fs_util.h"

namespace slidedp::data {
namespace {

std::string extensionOf(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  const size_t dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  std::string e = path.substr(dot);
  std::transform(e.begin(), e.end(), e.begin(), [](unsigned char c) { return std::tolower(c); });
  return e;
}

std::string prepareCommand(const DataSpec& spec) {
  return fmt::format("launcher/slidedp-run prepare --model {} --input {} --out {}.tok",
                     spec.model_dir.empty() ? "MODEL_DIR" : spec.model_dir, spec.path, spec.path);
}

}  // namespace

std::string resolveDataFormat(const DataSpec& spec) {
  if (!formats::isRegularFile(spec.path))
    throwUserError("data file {} {}.\nHINT: check the {} path", spec.path,
                   formats::isDirectory(spec.path) ? "is a directory, not a file" : "does not exist", spec.option);
  std::string f = spec.format;
  if (f == "txt") f = "text";
  if (f == "auto" && PreparedFile::detect(spec.path)) return "prepared";
  if (f == "auto") {
    const std::string e = extensionOf(spec.path);
    if (e == ".bin") return "bin";
    if (e == ".npy") return "npy";
    if (e == ".jsonl") return "jsonl";
    if (e == ".txt") return "text";
    throwUserError("cannot tell the format of data file {} from its extension '{}'\nHINT: use "
                   ".bin (llm.c / nanoGPT tokens), .npy, .jsonl (input_ids, labels), .txt "
                   "(with a tokenizer) or a file of tools/data/prepare.py, or set the format "
                   "with --data-format (prepared, bin, npy, jsonl, text).",
                   spec.path, e);
  }
  if (f != "bin" && f != "npy" && f != "jsonl" && f != "text" && f != "prepared") {
    throwUserError("unknown data format '{}' for {}\nHINT: use auto, prepared, bin, npy, jsonl or "
                   "text.", f, spec.path);
  }
  return f;
}


std::unique_ptr<DataLoader> DataLoader::open(const DataSpec& spec) {
  if (spec.batch_size < 1 || spec.seq_len < 1) {
    throwUserError("data: batch size B = {} and sequence length T = {} must both be >= 1",
                   spec.batch_size, spec.seq_len);
  }
  if (spec.vocab_size < 1 || spec.vocab_size > INT32_MAX) {
    throwUserError("data: vocab_size = {} must be in [1, 2^31)\nHINT: pass the model's "
                   "config.json vocab_size.", spec.vocab_size);
  }
  if (spec.pad_token_id < 0 || spec.pad_token_id >= spec.vocab_size) {
    throwUserError("data: pad_token_id {} is outside [0, vocab_size = {})", spec.pad_token_id,
                   spec.vocab_size);
  }
  std::unique_ptr<DataLoader> L(new DataLoader(spec));
  L->format_ = resolveDataFormat(spec);
  const int64_t T = spec.seq_len;
  L->epochBegin_[0] = 0;
  if (L->format_ == "bin" || L->format_ == "npy") {
    L->stream_ = std::make_unique<TokenFile>(
        L->format_ == "bin" ? TokenFile::openBin(spec.path, spec.token_dtype, spec.vocab_size)
                            : TokenFile::openNpy(spec.path));
    const int64_t n = L->stream_->size();
    if (n == 0) {
      throwUserError("data file {} ({}) holds no token\nHINT: the file is empty; check the "
                     "tokenisation step.", spec.path, L->stream_->kind());
    }
    if (n < T + 1) {
      throwUserError("data file {} holds {} tokens, fewer than one row of T+1 = {} tokens\n"
                     "HINT: use more data or a smaller sequence length.", spec.path, n, T + 1);
    }
    L->stream_->checkIds(spec.vocab_size);
    L->windows_ = (n - 1) / T;
    L->content_ = L->contentFingerprint();
    return L;
  }
  if (L->format_ == "prepared") {
    if (spec.token_dtype != "auto")
      throwUserError("data: token_dtype '{}' does not apply to {}: a prepared file records its "
                     "dtype in its header", spec.token_dtype, spec.path);
    L->prepared_ = std::make_unique<PreparedFile>(
        PreparedFile::open(spec.path, spec.vocab_size, spec.model_dir));
    L->buildPieces(L->prepared_->docOffsets(), L->prepared_->numDocuments());
    L->content_ = L->contentFingerprint();
    return L;
  }
  if (spec.token_dtype != "auto") {
    throwUserError("data: token_dtype '{}' applies to .bin files only, not {} ({})",
                   spec.token_dtype, spec.path, L->format_);
  }
  if (L->format_ == "text" && spec.tokenizer.empty() && !spec.model_dir.empty() &&
      ::access((spec.model_dir + "/tokenizer.json").c_str(), R_OK) == 0)
    throwUserError("text data {}: the model {} has a Hugging Face tokenizer.json (no SentencePiece "
                   "tokenizer.model), which the runtime does not run\nHINT: tokenise it first, with "
                   "the model's own tokenizer:\n  {}\nthen pass {} {}.tok", spec.path,
                   spec.model_dir, prepareCommand(spec), spec.option, spec.path);
  try {
    L->docs_ = L->format_ == "jsonl" ? readJsonl(spec.path, spec.vocab_size)
                                     : readText(spec.path, spec.tokenizer, spec.vocab_size);
  } catch (const UntokenisedRecords& e) {
    // `prepare` needs transformers' tokenizer (tokenizer.json or tokenizer_config.json): a
    // model with only a SentencePiece tokenizer.model cannot take that way (prepare refuses it).
    const auto has = [&](const char* f) { return ::access((spec.model_dir + "/" + f).c_str(), R_OK) == 0; };
    if (!spec.model_dir.empty() && has("tokenizer.model") && !has("tokenizer.json") && !has("tokenizer_config.json"))
      throwUserError("{}\nHINT: records are tokenised with the model's Hugging Face tokenizer and its "
                     "chat template, and {} has only a SentencePiece tokenizer.model: use a model "
                     "directory with tokenizer.json and tokenizer_config.json (its Hugging Face "
                     "export), or write the records' text to a .txt file and pass that ({} "
                     "FILE.txt, plain text, no chat template)", e.what(), spec.model_dir, spec.option);
    throwUserError("{}\nHINT: tokenise it with the model's tokenizer (chat template applied, only "
                   "the replies trained):\n  {}\nthen pass {} {}.tok", e.what(),
                   prepareCommand(spec), spec.option, spec.path);
  }
  const DocumentSet& d = L->docs_;
  L->buildPieces(d.offsets.data(), d.numDocuments());
  L->content_ = L->contentFingerprint();
  return L;
}

void DataLoader::buildPieces(const int64_t* offsets, int64_t D) {
  const int64_t T = spec_.seq_len;
  // Whether tokens [b, b + len) of a document ending at `end` predict a trained token (as
  // fillDocumentRow labels them). A piece without one (the prompt-only start of a long
  // conversation split at T, a fully masked document) would only cost compute, and a step of
  // such pieces alone would have nothing to average the loss over: it is left out.
  auto hasTarget = [&](int64_t b, int64_t len, int64_t end) {
    for (int64_t g = b; g < b + len; ++g)
      if (prepared_ ? g + 1 < end && prepared_->trained(g + 1) : docs_.targets[g] != -100) return true;
    return false;
  };
  docPieces_.reserve(D + 1);
  docPieces_.push_back(0);
  for (int64_t doc = 0; doc < D; ++doc) {
    for (int64_t b = offsets[doc]; b < offsets[doc + 1]; b += T) {
      const int64_t len = std::min<int64_t>(T, offsets[doc + 1] - b);
      if (!hasTarget(b, len, offsets[doc + 1])) {
        ++untrainedPieces_;
        continue;
      }
      pieceBegin_.push_back(b);
      pieceLen_.push_back(static_cast<int32_t>(len));
    }
    docPieces_.push_back(static_cast<int64_t>(pieceBegin_.size()));
  }
  if (pieceBegin_.empty())
    throwUserError("data file {} ({}): no token of its {} documents is a trained target (every label is "
                   "-100), there is nothing to {}\nHINT: check the loss mask (tools/data/prepare.py: "
                   "replies are trained, prompts are not; --train-on-all trains every token; a "
                   "document of one token has no target)",
                   spec_.path, spec_.option, D, spec_.option == "--eval-data" ? "measure" : "learn");
}

uint64_t DataLoader::epochKey(int64_t epoch) const {
  return splitmix64(splitmix64(spec_.seed) ^ splitmix64(0xE90C0000ull + uint64_t(epoch)));
}

const DataLoader::EpochPlan& DataLoader::plan(int64_t epoch) {
  for (const auto& p : plans_) {
    if (p.epoch == epoch) return p;
  }
  EpochPlan p;
  p.epoch = epoch;
  const int64_t D = numDocuments();
  const Permutation perm(spec_.shuffle ? uint64_t(D) : 0, epochKey(epoch));
  p.order.reserve(pieceBegin_.size());
  p.rowBegin.push_back(0);
  int64_t used = 0;
  for (int64_t i = 0; i < D; ++i) {
    const int64_t doc = spec_.shuffle ? int64_t(perm(uint64_t(i))) : i;
    for (int64_t q = docPieces_[doc]; q < docPieces_[doc + 1]; ++q) {
      if (used + pieceLen_[q] > spec_.seq_len) {
        p.rowBegin.push_back(static_cast<int64_t>(p.order.size()));
        used = 0;
      }
      p.order.push_back(q);
      used += pieceLen_[q];
    }
  }
  p.rowBegin.push_back(static_cast<int64_t>(p.order.size()));
  if (plans_.size() >= 2) plans_.erase(plans_.begin());
  plans_.push_back(std::move(p));
  return plans_.back();
}

int64_t DataLoader::rowsInEpoch(int64_t epoch) {
  if (stream_) return windows_;
  return static_cast<int64_t>(plan(epoch).rowBegin.size()) - 1;
}

std::pair<int64_t, int64_t> DataLoader::locate(int64_t g) {
  if (stream_) return {g / windows_, g % windows_};
  // The latest known epoch starting at or before g (begins grow with the epoch).
  auto it = epochBegin_.begin();
  for (auto jt = epochBegin_.begin(); jt != epochBegin_.end(); ++jt) {
    if (jt->second <= g) it = jt;
  }
  int64_t e = it->first, begin = it->second;
  for (;;) {
    const int64_t rows = rowsInEpoch(e);
    if (g < begin + rows) return {e, g - begin};
    begin += rows;
    ++e;
    epochBegin_[e] = begin;
  }
}

void DataLoader::fillStreamRow(int64_t epoch, int64_t row, int64_t* ids, int64_t* labels,
                               int64_t* pos, std::vector<int64_t>& buf) {
  const int64_t T = spec_.seq_len;
  int64_t w = row;
  if (spec_.shuffle) w = int64_t(Permutation(uint64_t(windows_), epochKey(epoch))(uint64_t(row)));
  buf.resize(T + 1);
  stream_->read(w * T, T + 1, spec_.vocab_size, buf.data());
  const int64_t s = spec_.stream_doc_start;
  int64_t p = 0;
  for (int64_t t = 0; t < T; ++t) {
    if (s >= 0 && t > 0 && buf[t] == s) p = 0;
    ids[t] = buf[t];
    pos[t] = p++;
    labels[t] = (s >= 0 && buf[t + 1] == s) ? -100 : buf[t + 1];
  }
}

void DataLoader::fillDocumentRow(int64_t epoch, int64_t row, int64_t* ids, int64_t* labels,
                                 int64_t* pos) {
  const EpochPlan& p = plan(epoch);
  int64_t t = 0;
  for (int64_t k = p.rowBegin[row]; k < p.rowBegin[row + 1]; ++k) {
    const int64_t q = p.order[k];
    const int64_t b = pieceBegin_[q];
    if (prepared_) {
      // target[i] = the next token where the mask trains it, within the document.
      const int64_t* off = prepared_->docOffsets();
      const int64_t end = *std::upper_bound(off, off + prepared_->numDocuments() + 1, b);
      for (int64_t i = 0; i < pieceLen_[q]; ++i, ++t) {
        const int64_t g = b + i;
        ids[t] = prepared_->token(g);
        labels[t] = g + 1 < end && prepared_->trained(g + 1) ? prepared_->token(g + 1) : -100;
        pos[t] = i;
      }
      continue;
    }
    for (int64_t i = 0; i < pieceLen_[q]; ++i, ++t) {
      ids[t] = docs_.tokens[b + i];
      labels[t] = docs_.targets[b + i];
      pos[t] = i;
    }
  }
  SLIDEDP_ASSERT(t <= spec_.seq_len, "row of {} tokens > T = {}", t, spec_.seq_len);
  for (int64_t i = 0; t < spec_.seq_len; ++i, ++t) {
    ids[t] = spec_.pad_token_id;
    labels[t] = -100;
    pos[t] = i;
  }
}

GlobalBatch DataLoader::batch(int64_t step) {
  if (step < 1) throwUserError("data: batch(step) needs step >= 1, got {}", step);
  const int64_t B = spec_.batch_size, T = spec_.seq_len;
  GlobalBatch out;
  out.B = B;
  out.T = T;
  out.input_ids.resize(B * T);
  out.labels.resize(B * T);
  out.position_ids.resize(B * T);
  std::vector<int64_t> buf;
  int64_t epoch = 0;
  for (int64_t r = 0; r < B; ++r) {
    const int64_t g = (step - 1) * B + r;
    auto [e, row] = locate(g);
    epoch = e;
    int64_t* ids = out.input_ids.data() + r * T;
    int64_t* lab = out.labels.data() + r * T;
    int64_t* pos = out.position_ids.data() + r * T;
    if (stream_) fillStreamRow(e, row, ids, lab, pos, buf);
    else fillDocumentRow(e, row, ids, lab, pos);
  }
  lastStep_ = step;
  lastEpoch_ = epoch;
  lastEpochBegin_ = stream_ ? epoch * windows_ : epochBegin_.at(epoch);
  return out;
}

std::string DataLoader::contentFingerprint() const {
  const int64_t n = numTokens();
  constexpr int64_t kAll = int64_t{1} << 22, kRuns = 64, kRun = kAll / kRuns;
  formats::StreamDigest digest;
  std::vector<int64_t> buf;
  auto feed = [&](int64_t begin, int64_t count) {
    buf.resize(static_cast<size_t>(2 * count));
    int64_t* ids = buf.data();
    int64_t* trained = buf.data() + count;
    if (stream_) {
      stream_->read(begin, count, spec_.vocab_size, ids);
      std::fill(trained, trained + count, 1);
    } else {
      for (int64_t i = 0; i < count; ++i) {
        ids[i] = prepared_ ? prepared_->token(begin + i) : docs_.tokens[begin + i];
        trained[i] = prepared_ ? prepared_->trained(begin + i) : docs_.targets[begin + i];
      }
    }
    digest.update(buf.data(), buf.size() * sizeof(int64_t));
  };
  if (n <= kAll) {
    feed(0, n);
  } else {
    for (int64_t r = 0; r < kRuns; ++r) feed((n - kRun) * r / (kRuns - 1), kRun);
  }
  return digest.finish().xxh3;
}

nlohmann::json DataLoader::cursorJson() const {
  return nlohmann::json{{"step", lastStep_},
                        {"epoch", lastEpoch_},
                        {"epoch_first_row", lastEpochBegin_},
                        {"seed", spec_.seed},
                        {"batch_size", spec_.batch_size},
                        {"seq_len", spec_.seq_len},
                        {"shuffle", spec_.shuffle},
                        {"num_tokens", numTokens()},
                        {"num_documents", numDocuments()},
                        {"num_pieces", stream_ ? windows_ : static_cast<int64_t>(pieceBegin_.size())},
                        {"format", format_},
                        {"content", content_}};
}

std::string DataLoader::restore(const nlohmann::json& c) {
  const char* kFields[] = {"step",    "epoch",      "epoch_first_row", "seed",
                           "batch_size", "seq_len", "shuffle",         "num_tokens",
                           "num_documents", "format"};
  if (!c.is_object()) {
    throwUserError("data cursor is not a JSON object: {}\nHINT: pass the \"data\" entry the "
                   "checkpoint saved.", c.dump());
  }
  for (const char* f : kFields) {
    if (!c.contains(f)) {
      throwUserError("data cursor lacks \"{}\": {}\nHINT: pass the \"data\" entry the "
                     "checkpoint saved.", f, c.dump());
    }
  }
  const nlohmann::json now = cursorJson();
  for (const char* f : {"seed", "batch_size", "seq_len", "shuffle", "num_tokens",
                        "num_documents", "format"}) {
    if (c.at(f) != now.at(f)) {
      throwUserError("data cursor does not match this run: {} was {} at the checkpoint, is {} "
                     "now\nHINT: resume with the same data file, seed, batch size, sequence "
                     "length and shuffle setting; to train the checkpoint's weights on other "
                     "data or shapes, export them (a run with --resume and --export) and start "
                     "a new run with --model on that directory", f, c.at(f).dump(),
                     now.at(f).dump());
    }
  }
  // Pieces (since 2026-12-07; the rows follow them): a cursor without the count was saved by a
  // slidedp that kept the pieces without a trained target, whose rows differ where there are any.
  if (c.contains("num_pieces") && c.at("num_pieces") != now.at("num_pieces"))
    throwUserError("data cursor does not match this run: num_pieces was {} at the checkpoint, is {} now"
                   "\nHINT: resume with the same data file and sequence length", c.at("num_pieces").dump(),
                   now.at("num_pieces").dump());
  if (!c.contains("num_pieces") && untrainedPieces_ > 0)
    throwUserError("data cursor of an older slidedp, which packed the {} pieces of {} without a trained "
                   "target into its rows (they are left out now): the rows of its epoch {} differ, so "
                   "the resume would skip or repeat documents of that epoch.\nHINT: finish the run with "
                   "the slidedp that wrote the checkpoint, or export its weights (--resume with --export) "
                   "and start a new run with --model on them", untrainedPieces_, spec_.path,
                   c.at("epoch").dump());
  const int64_t step = c.at("step").get<int64_t>();
  const int64_t epoch = c.at("epoch").get<int64_t>();
  const int64_t first = c.at("epoch_first_row").get<int64_t>();
  const int64_t lastRow = step * spec_.batch_size - 1;
  if (step < 0 || epoch < 0 || first < 0 || (step > 0 && first > lastRow)) {
    throwUserError("data cursor is inconsistent: {}", c.dump());
  }
  if (!stream_ && step > 0) epochBegin_[epoch] = first;
  lastStep_ = step;
  lastEpoch_ = epoch;
  lastEpochBegin_ = first;
  // The tokens themselves (cursors written since the twenty-second session): the counts can match on other data (an edited or
  // another file); the rows at the cursor are then of this data, not the run's.
  if (c.contains("content") && c.at("content").is_string() && c.at("content").get<std::string>() != content_)
    return fmt::format("the data {} holds other tokens than the checkpoint's run trained on (the same counts: "
                       "an edited or another file; content digest {} at the checkpoint, {} now): the run "
                       "goes on at the cursor's rows of this data", spec_.path,
                       c.at("content").get<std::string>(), content_);
  return "";
}

int64_t DataLoader::numTokens() const {
  return stream_ ? stream_->size() : prepared_ ? prepared_->numTokens() : docs_.numTokens();
}

int64_t DataLoader::numDocuments() const {
  return stream_ ? 1 : prepared_ ? prepared_->numDocuments() : docs_.numDocuments();
}

std::string DataLoader::describe() const {
  const std::string order =
      spec_.shuffle ? fmt::format("shuffled (seed {})", spec_.seed) : std::string("file order");
  if (stream_) {
    return fmt::format("data: {} {}: {} tokens, {} windows of T+1 = {} per epoch, B = {}, T = "
                       "{}, {}{}", stream_->kind(), spec_.path, stream_->size(), windows_,
                       spec_.seq_len + 1, spec_.batch_size, spec_.seq_len, order,
                       spec_.stream_doc_start >= 0
                           ? fmt::format(", documents start at token {}", spec_.stream_doc_start)
                           : std::string());
  }
  return fmt::format("data: {} {}: {} documents, {} tokens ({} pieces of <= T{}), packed into "
                     "rows without splitting documents, B = {}, T = {}, {}{}", format_, spec_.path,
                     numDocuments(), numTokens(), pieceBegin_.size(),
                     untrainedPieces_ > 0 ? fmt::format("; {} more without a trained target left out "
                                                        "(prompt-only pieces, fully masked documents, last pieces of one token)",
                                                        untrainedPieces_)
                                          : std::string(),
                     spec_.batch_size, spec_.seq_len, order,
                     prepared_ ? "; " + prepared_->describe() : std::string());
}

}  // namespace slidedp::data
