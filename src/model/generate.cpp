// Autoregressive decoding with a KV cache (decoder.h: generate).
#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include <algorithm>
#include <vector>

#include "common/errors.h"
#include "model/decoder.h"
#include "model/kv_cache.h"

namespace slidedp::model {

std::vector<int64_t> generate(const ModelConfig& c, const ParamLayout& layout,
                              const std::vector<at::Tensor>& units,
                              const std::vector<int64_t>& prompt, const GenerateOptions& o) {
  if (prompt.empty()) throwUserError("generate: the prompt needs at least one token (e.g. BOS)");
  KvCache cache;
  cache.max_positions = std::min<int64_t>(static_cast<int64_t>(prompt.size()) + o.maxNewTokens, c.maxPositionEmbeddings);
  std::vector<int64_t> pending = prompt, out;  // tokens not yet run through the layers
  auto gen = at::make_generator<at::CPUGeneratorImpl>(o.seed);
  for (int64_t i = 0; i < o.maxNewTokens; ++i) {
    if (cache.past + static_cast<int64_t>(pending.size()) >= c.maxPositionEmbeddings)
      break;  // no position left for a new token
    at::Tensor logits = decodeStep(c, layout, units, pending, cache);
    int64_t next;
    if (o.temperature <= 0) {
      next = logits.argmax().item<int64_t>();
    } else {
      auto probs = at::softmax(logits.to(at::kDouble) / o.temperature, -1);
      if (o.topP < 1.0) {
        auto sorted = probs.sort(-1, /*descending=*/true);
        auto sp = std::get<0>(sorted), idx = std::get<1>(sorted);
        auto keep = (sp.cumsum(-1) - sp) < o.topP;  // always keeps the first
        sp = sp * keep.to(sp.scalar_type());
        probs = at::zeros_like(probs).scatter_(0, idx, sp);
      }
      next = at::multinomial(probs, 1, false, gen).item<int64_t>();
    }
    out.push_back(next);
    pending = {next};
    if (o.onToken) o.onToken(next);
    if (o.stopAtEos &&
        std::find(c.eosTokenIds.begin(), c.eosTokenIds.end(), next) != c.eosTokenIds.end())
      break;
  }
  return out;
}

}  // namespace slidedp::model
