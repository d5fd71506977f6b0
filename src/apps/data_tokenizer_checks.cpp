#include "apps/data_tokenizer_checks.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/errors.h"

namespace slidedp {

std::string unverifiedTokenizerWarning(const std::string& option, const std::string& path,
                                       const data::PreparedFile& file, const model::ModelConfig& cfg,
                                       const std::string& model_dir) {
  if (file.tokenizerVerified() || model_dir.empty()) return "";
  std::string s;
  if (file.tokenizerFile().empty() || file.tokenizerSha256().empty())
    s = fmt::format("{} {} records no tokenizer (file name and SHA-256) in its header, so it cannot be checked "
                    "against the model's", option, path);
  else
    s = fmt::format("{} {} was prepared with a {} (sha256 {}) that cannot be checked against the model: {} has "
                    "no readable {}", option, path, file.tokenizerFile(), file.tokenizerSha256().substr(0, 12),
                    model_dir, file.tokenizerFile());
  const int64_t eos = file.tokenizerEosId();
  const auto& model_eos = cfg.eosTokenIds;
  if (eos >= 0 && !model_eos.empty() && std::find(model_eos.begin(), model_eos.end(), eos) == model_eos.end()) {
    std::string ids;
    for (int64_t id : model_eos) ids += (ids.empty() ? "" : ", ") + std::to_string(id);
    s += fmt::format(", and its EOS id {} is not the model's (eos_token_id {}): it is most likely another "
                     "model's tokenizer, and the run would learn another token code", eos, ids);
  }
  return s + "\nHINT: prepare the data with this model's own Hugging Face tokenizer (tools/data/prepare.py "
             "--tokenizer <its Hugging Face directory>), or for plain text pass the .txt to --data (tokenised "
             "with the model's tokenizer.model)";
}

void checkSameTokenizer(const std::string& data_path, const data::PreparedFile& data,
                        const std::string& eval_path, const data::PreparedFile& eval) {
  const std::string a = data.tokenizerSha256(), b = eval.tokenizerSha256();
  if (a.empty() || b.empty() || a == b) return;
  throwUserError("--eval-data {} was prepared with another tokenizer than --data {} ({} sha256 {} against {} "
                 "sha256 {}): its loss would be of other token ids\nHINT: prepare both with the model's "
                 "tokenizer (tools/data/prepare.py --tokenizer <the model's directory>)", eval_path, data_path,
                 eval.tokenizerFile(), b.substr(0, 12), data.tokenizerFile(), a.substr(0, 12));
}

}  // namespace slidedp
