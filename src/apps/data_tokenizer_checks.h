// The tokenizer behind prepared token files, where the model cannot vouch for it: a model
// directory with only a SentencePiece tokenizer.model cannot check a file prepared with a
// tokenizer.json, and a held-out file must come from the training data's tokenizer.
#pragma once

#include <string>

#include "data/prepared_file.h"
#include "model/config.h"

namespace slidedp {

/// A warning for the prepared file `file` (given as `option` `path`) whose tokenizer was not
/// checked against the model's (PreparedFile::tokenizerVerified false), "" otherwise: it names
/// the file's tokenizer and SHA-256, what the model directory lacks, and, where the header's
/// EOS id is not among the model's eos_token_id, that mismatch (most likely another model's
/// tokenizer: the loss would be of another token code). Pure.
std::string unverifiedTokenizerWarning(const std::string& option, const std::string& path,
                                       const data::PreparedFile& file, const model::ModelConfig& cfg,
                                       const std::string& model_dir);

/// Throws UserError when the training and held-out files were prepared with tokenizers of
/// different SHA-256 (both known): the held-out loss would be of other token ids.
void checkSameTokenizer(const std::string& data_path, const data::PreparedFile& data,
                        const std::string& eval_path, const data::PreparedFile& eval);

}  // namespace slidedp
