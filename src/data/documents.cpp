// JSONL and text readers (see documents.h).
#include "data/documents.h"

#include <sentencepiece_processor.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include <nlohmann/json.hpp>

#include "common/errors.h"
#include "common/utf8.h"

namespace slidedp::data {

void DocumentSet::add(const std::vector<int32_t>& ids, const std::vector<int32_t>& labels) {
  if (offsets.empty()) offsets.push_back(0);
  const std::vector<int32_t>& src = labels.empty() ? ids : labels;
  const size_t n = ids.size();
  tokens.insert(tokens.end(), ids.begin(), ids.end());
  for (size_t t = 0; t + 1 < n; ++t) targets.push_back(src[t + 1]);
  if (n > 0) targets.push_back(-100);
  offsets.push_back(static_cast<int64_t>(tokens.size()));
}

namespace {

std::ifstream openText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throwUserError("cannot open data file {}: {}\nHINT: check the --data path.", path,
                   std::strerror(errno));
  }
  return in;
}

bool isBlank(const std::string& s) {
  for (char c : s) {
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n' && c != '\f' && c != '\v') return false;
  }
  return true;
}

// Refuses binary data given as text: a NUL byte or invalid UTF-8 in the first MiB.
void checkIsText(const std::string& path) {
  std::ifstream in = openText(path);
  std::string buf(1 << 20, '\0');
  in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
  buf.resize(static_cast<size_t>(in.gcount()));
  const bool cut = buf.size() == (size_t{1} << 20);  // a sequence may continue past the window
  size_t at = 0;
  if (const char* why = utf8Problem(buf.data(), buf.size(), &at, cut))
    throwUserError("{}: not text: {} at byte {} (binary data?)\nHINT: token files go to --data "
                   "as .bin/.npy or a prepared file; text must be UTF-8.", path, why, at);
}

// Reads an integer array field of a JSONL object into `out`.
void readIds(const nlohmann::json& arr, const char* field, const std::string& path, int64_t line,
             int64_t vocab_size, bool allowIgnore, std::vector<int32_t>& out) {
  if (!arr.is_array()) {
    throwUserError("{}:{}: \"{}\" is not an array of integers\nHINT: each line must look like "
                   "{{\"input_ids\": [1, 2, 3], \"labels\": [-100, 2, 3]}}.", path, line, field);
  }
  out.clear();
  out.reserve(arr.size());
  for (size_t i = 0; i < arr.size(); ++i) {
    const auto& v = arr[i];
    if (!v.is_number_integer()) {
      throwUserError("{}:{}: {}[{}] = {} is not an integer", path, line, field, i, v.dump());
    }
    const int64_t x = v.get<int64_t>();
    if (!(allowIgnore && x == -100) && (x < 0 || x >= vocab_size)) {
      throwUserError("{}:{}: {}[{}] = {} is outside [0, vocab_size = {}){}\nHINT: the data was "
                     "tokenised for another vocabulary.", path, line, field, i, x, vocab_size,
                     allowIgnore ? " and is not -100" : "");
    }
    out.push_back(static_cast<int32_t>(x));
  }
}

}  // namespace

DocumentSet readJsonl(const std::string& path, int64_t vocab_size) {
  std::ifstream in = openText(path);
  DocumentSet docs;
  docs.offsets.push_back(0);
  std::string text;
  std::vector<int32_t> ids, labels;
  int64_t line = 0;
  int64_t labelled = 0, same = 0, next = 0, firstLabelled = 0;  // the shifted-labels check
  while (std::getline(in, text)) {
    ++line;
    if (isBlank(text)) continue;
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
      throwUserError("{}:{}: not valid JSON ({})\nHINT: JSONL holds one JSON object per line.",
                     path, line, e.what());
    }
    if (!j.is_object()) {
      throwUserError("{}:{}: the line is a JSON {}, not an object\nHINT: each line must look "
                     "like {{\"input_ids\": [1, 2, 3]}}.", path, line, j.type_name());
    }
    auto it = j.find("input_ids");
    if (it == j.end() && (j.contains("messages") || j.contains("prompt") || j.contains("text"))) {
      throw UntokenisedRecords(fmt::format(
          "{}:{}: a {} record holds text, not token ids (no \"input_ids\")", path, line,
          j.contains("messages") ? "chat (\"messages\")"
                                 : j.contains("prompt") ? "prompt/completion" : "\"text\""));
    }
    if (it == j.end()) {
      throwUserError("{}:{}: the object has no \"input_ids\"\nHINT: each line must look like "
                     "{{\"input_ids\": [1, 2, 3], \"labels\": [-100, 2, 3]}} (labels optional); "
                     "tokenise raw text first.", path, line);
    }
    readIds(*it, "input_ids", path, line, vocab_size, false, ids);
    if (ids.empty()) {
      throwUserError("{}:{}: \"input_ids\" is empty\nHINT: drop empty documents.", path, line);
    }
    labels.clear();
    auto lt = j.find("labels");
    if (lt != j.end() && !lt->is_null()) {
      readIds(*lt, "labels", path, line, vocab_size, true, labels);
      if (labels.size() != ids.size()) {
        throwUserError("{}:{}: \"labels\" has {} values but \"input_ids\" has {}\nHINT: labels "
                       "are aligned with input_ids (as transformers expects: -100 = ignored, "
                       "the shift happens in the loss).", path, line, labels.size(), ids.size());
      }
      for (size_t t = 0; t < labels.size(); ++t) {
        if (labels[t] == -100) continue;
        ++labelled;
        same += labels[t] == ids[t];
        next += t + 1 < ids.size() && labels[t] == ids[t + 1];
      }
      if (firstLabelled == 0) firstLabelled = line;
    }
    docs.add(ids, labels);
  }
  if (labelled >= 16 && 2 * same < labelled && 10 * next >= 9 * labelled) {
    throwUserError("{}: the labels look already shifted: {} of {} labels equal the NEXT input id "
                   "(labels[t] == input_ids[t+1]) and only {} equal input_ids[t] (first labelled "
                   "line {})\nHINT: give labels in transformers' unshifted form, aligned with "
                   "input_ids (labels[t] = input_ids[t], or -100 where not trained); the runtime "
                   "shifts them, as transformers' loss does.", path, next, labelled, same,
                   firstLabelled);
  }
  if (docs.numDocuments() == 0) {
    throwUserError("{}: no document (the file is empty or has only blank lines)\nHINT: write "
                   "one JSON object with \"input_ids\" per line.", path);
  }
  return docs;
}

DocumentSet readText(const std::string& path, const std::string& tokenizer, int64_t vocab_size) {
  if (tokenizer.empty()) {
    throwUserError("text data {} needs a tokenizer, none was given\nHINT: pass --tokenizer with the "
                   "model's SentencePiece tokenizer.model, or tokenise the text first with any Hugging "
                   "Face tokenizer: launcher/slidedp-run prepare --model DIR --input {} --out FILE.tok",
                   path, path);
  }
  sentencepiece::SentencePieceProcessor sp;
  const auto status = sp.Load(tokenizer);
  if (!status.ok()) {
    throwUserError("cannot load the SentencePiece tokenizer {}: {}\nHINT: pass --tokenizer with an "
                   "existing SentencePiece tokenizer.model; for a model with only a tokenizer.json, "
                   "tokenise the text first: launcher/slidedp-run prepare --model DIR --input TEXT "
                   "--out FILE.tok", tokenizer, status.ToString());
  }
  const int bos = sp.bos_id();
  if (bos < 0) {
    throwUserError("tokenizer {} has no BOS piece; text documents are prefixed with BOS",
                   tokenizer);
  }
  if (bos >= vocab_size) {
    throwUserError("tokenizer {}: BOS id {} >= vocab_size {}\nHINT: the tokenizer does not "
                   "belong to the model.", tokenizer, bos, vocab_size);
  }
  checkIsText(path);
  std::ifstream in = openText(path);
  DocumentSet docs;
  docs.offsets.push_back(0);
  std::string line, doc;
  std::vector<int> pieces;
  std::vector<int32_t> ids;
  const std::vector<int32_t> noLabels;
  int64_t lineNo = 0, docStartLine = 1;
  auto flush = [&]() {
    if (doc.empty()) return;
    pieces.clear();
    const auto st = sp.Encode(doc, &pieces);
    if (!st.ok()) {
      throwUserError("{}:{}: SentencePiece cannot encode the paragraph: {}", path, docStartLine,
                     st.ToString());
    }
    ids.assign(1, bos);
    for (int p : pieces) {
      if (p < 0 || p >= vocab_size) {
        throwUserError("{}:{}: tokenizer {} produced id {} >= vocab_size {}\nHINT: the "
                       "tokenizer does not belong to the model.", path, docStartLine, tokenizer,
                       p, vocab_size);
      }
      ids.push_back(p);
    }
    docs.add(ids, noLabels);
    doc.clear();
  };
  while (std::getline(in, line)) {
    ++lineNo;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (isBlank(line)) {
      flush();
      continue;
    }
    if (doc.empty()) docStartLine = lineNo;
    else doc += ' ';
    doc += line;
  }
  flush();
  if (docs.numDocuments() == 0) {
    throwUserError("{}: no text (the file is empty or blank)\nHINT: documents are paragraphs "
                   "separated by blank lines.", path);
  }
  return docs;
}

}  // namespace slidedp::data
