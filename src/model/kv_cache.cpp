// Cached attention for incremental decoding (kv_cache.h).
#include "model/kv_cache.h"

#include <ATen/core/grad_mode.h>

#include <algorithm>

#include "model/decoder.h"

namespace slidedp::model {

at::Tensor cachedAttention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, int64_t B,
                           int64_t T, int64_t H, int64_t KV, int64_t D, double scale, KvCache& cache,
                           int unit) {
  auto heads = [&](const at::Tensor& t, int64_t n) { return t.reshape({B, T, n, D}).transpose(1, 2); };
  const at::Tensor q4 = heads(q, H), k_new = heads(k, KV), v_new = heads(v, KV);
  const int64_t past = cache.past, S = past + T;  // keys: the cached tokens and the new ones
  at::Tensor& kb = cache.k[unit];
  at::Tensor& vb = cache.v[unit];
  if (!kb.defined() || kb.size(2) < S) {  // grow: at least double, keep what is cached
    int64_t cap = std::max<int64_t>(kb.defined() ? 2 * kb.size(2) : 0, 16);
    if (cache.max_positions > 0) cap = std::min(cap, cache.max_positions);
    cap = std::max(cap, S);
    at::Tensor k2 = at::empty({B, KV, cap, D}, k_new.options()), v2 = at::empty({B, KV, cap, D}, v_new.options());
    if (past > 0) {
      k2.narrow(2, 0, past).copy_(kb.narrow(2, 0, past));
      v2.narrow(2, 0, past).copy_(vb.narrow(2, 0, past));
    }
    kb = k2;
    vb = v2;
  }
  kb.narrow(2, past, T).copy_(k_new);
  vb.narrow(2, past, T).copy_(v_new);
  const at::Tensor k4 = kb.narrow(2, 0, S), v4 = vb.narrow(2, 0, S);
  std::optional<at::Tensor> mask;
  if (T > 1 && S > T) {  // new token i sees keys 0 .. S - T + i
    auto opts = at::TensorOptions().dtype(at::kLong).device(q.device());
    mask = at::arange(S, opts).unsqueeze(0) <= (at::arange(T, opts) + (S - T)).unsqueeze(1);
  }
  // grouped-query attention: each key/value head serves H / KV query heads (enable_gqa)
  at::Tensor out = at::scaled_dot_product_attention(q4, k4, v4, mask, 0.0, /*is_causal=*/T > 1 && S == T,
                                                    scale, /*enable_gqa=*/H != KV);
  return out.transpose(1, 2).reshape({B * T, H * D});
}

at::Tensor decodeStep(const ModelConfig& c, const ParamLayout& layout, const std::vector<at::Tensor>& units,
                      const std::vector<int64_t>& ids, KvCache& cache) {
  at::NoGradGuard noGrad;
  const at::Device dev = units[0].device();
  const int64_t T = static_cast<int64_t>(ids.size());
  auto pos = at::arange(cache.past, cache.past + T, at::TensorOptions().dtype(at::kLong)).unsqueeze(0);
  AttentionContext ctx = makeAttentionContext(c, 1, T, pos, units[0].scalar_type(), dev);
  ctx.kvCache = &cache;
  at::Tensor h = embeddingForward(c, units[0], at::tensor(ids, at::kLong).unsqueeze(0).to(dev));
  for (int64_t l = 0; l < c.numLayers; ++l) {
    const int u = layout.decoderUnit(static_cast<int>(l));
    h = decoderLayerForward(c, layout.units[u], units[u], h, ctx);
  }
  cache.past += T;
  const int hu = layout.headUnit();
  return headLogits(c, layout.units[hu], units[hu], units[0], h.narrow(1, T - 1, 1))[0][0].cpu();
}

}  // namespace slidedp::model
