// The decoder's math in LibTorch (see decoder.h). The only TU of slidedp_model that includes
// the full <torch/torch.h> (autograd API); keep it that way, it compiles slowly.
#include "model/decoder.h"

#include <torch/torch.h>

#include <cmath>

#include "common/errors.h"

namespace slidedp::model {

namespace {

using at::Tensor;

// LlamaRMSNorm.forward: computed in float32, cast back, then scaled by the weight.
Tensor rmsNorm(const Tensor& x, const Tensor& weight, double eps) {
  auto xf = x.to(at::kFloat);
  auto var = xf.pow(2).mean(-1, /*keepdim=*/true);
  xf = xf * at::rsqrt(var + eps);
  return weight * xf.to(x.scalar_type());
}

Tensor rotateHalf(const Tensor& x) {
  int64_t half = x.size(-1) / 2;
  return at::cat({-x.narrow(-1, half, half), x.narrow(-1, 0, half)}, -1);
}

// apply_rotary_pos_emb with unsqueeze_dim=1: x [B, H, T, D], cos/sin [B, T, D].
Tensor applyRope(const Tensor& x, const Tensor& cos, const Tensor& sin) {
  auto c = cos.unsqueeze(1), s = sin.unsqueeze(1);
  return x * c + rotateHalf(x) * s;
}

// repeat_kv: [B, KV, T, D] -> [B, KV * rep, T, D].
Tensor repeatKv(const Tensor& x, int64_t rep) {
  if (rep == 1) return x;
  auto s = x.sizes();
  return x.unsqueeze(2)
      .expand({s[0], s[1], rep, s[2], s[3]})
      .reshape({s[0], s[1] * rep, s[2], s[3]});
}

Tensor linear(const Tensor& x, const Tensor& w, const Tensor* b) {
  return b ? at::linear(x, w, *b) : at::linear(x, w);
}

// The parameters of a decoder unit, by role, as views into the flat buffer.
struct LayerParams {
  Tensor inNorm, q, qb, k, kb, v, vb, o, ob, qNorm, kNorm, postNorm, gate, gateb, up, upb, down,
      downb;
};

LayerParams layerParams(const UnitLayout& unit, const Tensor& flat) {
  auto views = unitParamViews(unit, flat);
  LayerParams p;
  const std::string prefix = "model.layers." + std::to_string(unit.layer) + ".";
  const struct {
    const char* suffix;
    Tensor LayerParams::*field;
  } kRoles[] = {{"input_layernorm.weight", &LayerParams::inNorm},
                {"self_attn.q_proj.weight", &LayerParams::q},
                {"self_attn.q_proj.bias", &LayerParams::qb},
                {"self_attn.k_proj.weight", &LayerParams::k},
                {"self_attn.k_proj.bias", &LayerParams::kb},
                {"self_attn.v_proj.weight", &LayerParams::v},
                {"self_attn.v_proj.bias", &LayerParams::vb},
                {"self_attn.o_proj.weight", &LayerParams::o},
                {"self_attn.o_proj.bias", &LayerParams::ob},
                {"self_attn.q_norm.weight", &LayerParams::qNorm},
                {"self_attn.k_norm.weight", &LayerParams::kNorm},
                {"post_attention_layernorm.weight", &LayerParams::postNorm},
                {"mlp.gate_proj.weight", &LayerParams::gate},
                {"mlp.gate_proj.bias", &LayerParams::gateb},
                {"mlp.up_proj.weight", &LayerParams::up},
                {"mlp.up_proj.bias", &LayerParams::upb},
                {"mlp.down_proj.weight", &LayerParams::down},
                {"mlp.down_proj.bias", &LayerParams::downb}};
  for (size_t i = 0; i < unit.params.size(); ++i) {
    const std::string& name = unit.params[i].name;
    bool found = false;
    for (const auto& r : kRoles) {
      if (name == prefix + r.suffix) {
        p.*(r.field) = views[i];
        found = true;
        break;
      }
    }
    SLIDEDP_ASSERT(found, "decoder unit {} has unknown parameter {}", unit.index, name);
  }
  return p;
}

const Tensor* opt(const Tensor& t) { return t.defined() ? &t : nullptr; }

// The LM head weight [V, C]: lm_head.weight, or the embedding when tied.
Tensor lmHeadWeight(const ModelConfig& config, const UnitLayout& headUnit, const Tensor& headFlat,
                    const Tensor& embedFlat) {
  if (config.tieWordEmbeddings) {
    SLIDEDP_ASSERT(embedFlat.defined(), "tied embeddings: the head needs unit 0's buffer");
    return embedFlat.narrow(0, 0, config.vocabSize * config.hiddenSize)
        .view({config.vocabSize, config.hiddenSize});
  }
  const ParamEntry& e = headUnit.get("lm_head.weight");
  return headFlat.narrow(0, e.offset, e.numel).view(e.shape);
}

}  // namespace

at::Tensor ropeInvFreq(const ModelConfig& c) {
  const int64_t D = c.headDim;
  // _compute_default_rope_parameters
  auto invFreq = 1.0 / at::pow(c.rope.theta, at::arange(0, D, 2, at::kLong).to(at::kFloat) /
                                                 static_cast<double>(D));
  if (c.rope.type == RopeConfig::Type::Llama3) {
    // _compute_llama3_parameters
    const double factor = c.rope.factor, low = c.rope.lowFreqFactor, high = c.rope.highFreqFactor;
    const double oldLen = static_cast<double>(c.rope.originalMaxPositionEmbeddings);
    const double lowFreqWavelen = oldLen / low, highFreqWavelen = oldLen / high;
    auto wavelen = 2 * M_PI / invFreq;
    auto invFreqLlama = at::where(wavelen > lowFreqWavelen, invFreq / factor, invFreq);
    auto smooth = (oldLen / wavelen - low) / (high - low);
    auto smoothed = (1 - smooth) * invFreqLlama / factor + smooth * invFreqLlama;
    auto isMedium = at::logical_not(wavelen < highFreqWavelen)
                        .logical_and(at::logical_not(wavelen > lowFreqWavelen));
    invFreq = at::where(isMedium, smoothed, invFreqLlama);
  }
  return invFreq;
}

AttentionContext makeAttentionContext(const ModelConfig& c, int64_t B, int64_t T,
                                      const at::Tensor& positionIds, at::ScalarType dtype,
                                      at::Device device) {
  at::Tensor pos = positionIds.defined()
                       ? positionIds.to(device, at::kLong)
                       : at::arange(T, at::TensorOptions().dtype(at::kLong).device(device))
                             .unsqueeze(0)
                             .expand({B, T});
  SLIDEDP_ASSERT(pos.dim() == 2 && pos.size(0) == B && pos.size(1) == T,
                 "position_ids must be [B, T] = [{}, {}]", B, T);
  AttentionContext ctx;
  // LlamaRotaryEmbedding.forward: freqs = pos * inv_freq in float32, emb = cat(freqs, freqs).
  auto invFreq = ropeInvFreq(c).to(device);
  auto freqs = pos.to(at::kFloat).unsqueeze(-1) * invFreq;  // [B, T, D/2]
  auto emb = at::cat({freqs, freqs}, -1);
  ctx.cos = emb.cos().to(dtype);  // attention_scaling is 1 for default and llama3
  ctx.sin = emb.sin().to(dtype);
  if (positionIds.defined() && T > 1) {
    auto boundary = pos.narrow(1, 1, T - 1) != (pos.narrow(1, 0, T - 1) + 1);  // [B, T-1]
    if (boundary.any().item<bool>()) {
      auto starts = at::cat({at::ones({B, 1}, boundary.options()), boundary}, 1);
      auto doc = starts.to(at::kInt).cumsum(1);          // [B, T]
      auto same = doc.unsqueeze(2) == doc.unsqueeze(1);  // [B, T, T]
      auto causal = at::ones({T, T}, same.options()).tril();
      ctx.mask = same.logical_and(causal).unsqueeze(1);  // [B, 1, T, T]
    }
  }
  return ctx;
}

std::vector<at::Tensor> unitParamViews(const UnitLayout& unit, const at::Tensor& flat) {
  SLIDEDP_ASSERT(flat.dim() == 1 && flat.numel() == unit.numel,
                 "unit {} buffer has {} elements, layout says {}", unit.index, flat.numel(),
                 unit.numel);
  std::vector<at::Tensor> v;
  v.reserve(unit.params.size());
  for (const auto& p : unit.params) v.push_back(flat.narrow(0, p.offset, p.numel).view(p.shape));
  return v;
}

at::Tensor embeddingForward(const ModelConfig& c, const at::Tensor& embedFlat,
                            const at::Tensor& inputIds) {
  auto w = embedFlat.narrow(0, 0, c.vocabSize * c.hiddenSize).view({c.vocabSize, c.hiddenSize});
  return at::embedding(w, inputIds.to(embedFlat.device(), at::kLong));
}

void embeddingBackward(const ModelConfig& c, const at::Tensor& inputIds, const at::Tensor& gradOut,
                       at::Tensor& gradEmbedFlat) {
  auto g = gradEmbedFlat.narrow(0, 0, c.vocabSize * c.hiddenSize).view({c.vocabSize, c.hiddenSize});
  auto ids = inputIds.to(gradOut.device(), at::kLong).reshape({-1});
  g.index_add_(0, ids, gradOut.reshape({-1, c.hiddenSize}).to(g.scalar_type()));
}

at::Tensor decoderLayerForward(const ModelConfig& c, const UnitLayout& unit, const at::Tensor& flat,
                               const at::Tensor& x, const AttentionContext& ctx) {
  const int64_t B = x.size(0), T = x.size(1), H = c.numHeads, KV = c.numKvHeads, D = c.headDim;
  LayerParams p = layerParams(unit, flat);
  // Attention (LlamaAttention.forward / Qwen3Attention.forward).
  auto h = rmsNorm(x, p.inNorm, c.rmsNormEps);
  auto q = linear(h, p.q, opt(p.qb)).view({B, T, H, D});
  auto k = linear(h, p.k, opt(p.kb)).view({B, T, KV, D});
  auto v = linear(h, p.v, opt(p.vb)).view({B, T, KV, D});
  if (c.qkNorm) {
    q = rmsNorm(q, p.qNorm, c.rmsNormEps);
    k = rmsNorm(k, p.kNorm, c.rmsNormEps);
  }
  q = applyRope(q.transpose(1, 2), ctx.cos, ctx.sin);
  k = applyRope(k.transpose(1, 2), ctx.cos, ctx.sin);
  v = v.transpose(1, 2);
  k = repeatKv(k, H / KV);
  v = repeatKv(v, H / KV);
  const double scale = 1.0 / std::sqrt(static_cast<double>(D));
  at::Tensor attn;
  if (ctx.mask.defined())
    attn = at::scaled_dot_product_attention(q, k, v, ctx.mask, 0.0, false, scale);
  else
    attn = at::scaled_dot_product_attention(q, k, v, {}, 0.0, true, scale);
  attn = attn.transpose(1, 2).reshape({B, T, H * D});
  auto h1 = x + linear(attn, p.o, opt(p.ob));
  // MLP (LlamaMLP: down(silu(gate(x)) * up(x))).
  auto h2 = rmsNorm(h1, p.postNorm, c.rmsNormEps);
  auto m = linear(at::silu(linear(h2, p.gate, opt(p.gateb))) * linear(h2, p.up, opt(p.upb)), p.down,
                  opt(p.downb));
  return h1 + m;
}

UnitGrads decoderLayerBackward(const ModelConfig& c, const UnitLayout& unit, const at::Tensor& flat,
                               const at::Tensor& x, const at::Tensor& gradOut,
                               const AttentionContext& ctx) {
  torch::AutoGradMode enable(true);
  auto flatLeaf = flat.detach().requires_grad_(true);
  auto xLeaf = x.detach().requires_grad_(true);
  auto y = decoderLayerForward(c, unit, flatLeaf, xLeaf, ctx);
  auto grads = torch::autograd::grad({y}, {xLeaf, flatLeaf}, {gradOut.to(y.scalar_type())});
  return {grads[0], grads[1]};
}

HeadResult headForwardBackward(const ModelConfig& c, const UnitLayout& headUnit,
                               const at::Tensor& headFlat, const at::Tensor& embedFlat,
                               const at::Tensor& hidden, const at::Tensor& labels,
                               int64_t chunkTokens, double gradScale) {
  SLIDEDP_ASSERT(chunkTokens > 0, "chunkTokens must be positive");
  const int64_t C = c.hiddenSize;
  torch::AutoGradMode enable(true);
  HeadResult r;
  auto flatLeaf = headFlat.detach().requires_grad_(true);
  auto hLeaf = hidden.detach().requires_grad_(true);
  const ParamEntry& normE = headUnit.get("model.norm.weight");
  auto normW = flatLeaf.narrow(0, normE.offset, normE.numel);
  auto normed = rmsNorm(hLeaf, normW, c.rmsNormEps).reshape({-1, C});  // [N, C]
  auto W = lmHeadWeight(c, headUnit, headFlat.detach(),
                        embedFlat.defined() ? embedFlat.detach() : embedFlat);
  auto flatLabels = labels.to(hidden.device(), at::kLong).reshape({-1});
  SLIDEDP_ASSERT(flatLabels.numel() == normed.size(0), "labels must be [B, T] like hidden");
  auto sel = (flatLabels != kIgnoreIndex).nonzero().reshape({-1});  // targets only
  r.count = sel.numel();
  auto normedSel = normed.detach().index_select(0, sel);
  auto labelsSel = flatLabels.index_select(0, sel);
  auto gradNormedSel = at::zeros_like(normedSel);
  auto gradW = at::zeros(W.sizes(), W.options().dtype(at::kFloat));
  auto lossAcc = at::zeros({}, W.options().dtype(at::kDouble));
  for (int64_t s = 0; s < r.count; s += chunkTokens) {
    int64_t n = std::min(chunkTokens, r.count - s);
    auto hc = normedSel.narrow(0, s, n);                 // [n, C]
    auto yc = labelsSel.narrow(0, s, n);                 // [n]
    auto logits = at::matmul(hc, W.t()).to(at::kFloat);  // [n, V]
    auto lse = logits.logsumexp(-1);                     // [n]
    auto picked = logits.gather(1, yc.unsqueeze(1)).squeeze(1);
    lossAcc += (lse - picked).to(at::kDouble).sum();
    // d/dlogits of the summed cross-entropy: softmax - onehot.
    auto dlogits = (logits - lse.unsqueeze(1)).exp_();
    dlogits.scatter_add_(1, yc.unsqueeze(1), at::full({n, 1}, -1.0f, dlogits.options()));
    if (gradScale != 1.0) dlogits.mul_(gradScale);
    auto dl = dlogits.to(W.scalar_type());
    gradNormedSel.narrow(0, s, n).copy_(at::matmul(dl, W));
    gradW.add_(at::matmul(dl.t(), hc).to(at::kFloat));
  }
  r.lossSum = lossAcc.item<double>();
  auto gradNormed = at::zeros_like(normed).index_copy_(0, sel, gradNormedSel);
  auto grads = torch::autograd::grad({normed}, {hLeaf, flatLeaf}, {gradNormed});
  r.gradHidden = grads[0];
  r.gradHeadFlat = grads[1];
  if (c.tieWordEmbeddings) {
    r.gradEmbedFlat = at::zeros({embedFlat.numel()}, embedFlat.options());
    r.gradEmbedFlat.narrow(0, 0, gradW.numel()).copy_(gradW.reshape({-1}));
  } else {
    const ParamEntry& e = headUnit.get("lm_head.weight");
    r.gradHeadFlat.narrow(0, e.offset, e.numel).copy_(gradW.reshape({-1}));
  }
  return r;
}

at::Tensor headLogits(const ModelConfig& c, const UnitLayout& headUnit, const at::Tensor& headFlat,
                      const at::Tensor& embedFlat, const at::Tensor& hidden) {
  const ParamEntry& normE = headUnit.get("model.norm.weight");
  auto normed = rmsNorm(hidden, headFlat.narrow(0, normE.offset, normE.numel), c.rmsNormEps);
  auto W = lmHeadWeight(c, headUnit, headFlat, embedFlat);
  return at::matmul(normed, W.t()).to(at::kFloat);
}

std::vector<at::Tensor> unitTensors(const HostModel& model, at::ScalarType dtype,
                                    at::Device device) {
  std::vector<at::Tensor> v;
  for (const auto& u : model.units) {
    auto t = at::from_blob(const_cast<float*>(u.data()), {static_cast<int64_t>(u.size())},
                           at::TensorOptions().dtype(at::kFloat));
    v.push_back(dtype == at::kFloat && device.is_cpu() ? t : t.to(device, dtype));
  }
  return v;
}

at::Tensor modelLogits(const ModelConfig& c, const ParamLayout& layout,
                       const std::vector<at::Tensor>& units, const at::Tensor& inputIds,
                       const at::Tensor& positionIds) {
  at::NoGradGuard noGrad;
  auto dev = units[0].device();
  auto ids = inputIds.to(dev, at::kLong);
  const int64_t B = ids.size(0), T = ids.size(1);
  auto ctx = makeAttentionContext(c, B, T, positionIds, units[0].scalar_type(), dev);
  auto h = embeddingForward(c, units[0], ids);
  for (int64_t l = 0; l < c.numLayers; ++l) {
    int u = layout.decoderUnit(static_cast<int>(l));
    h = decoderLayerForward(c, layout.units[u], units[u], h, ctx);
  }
  int hu = layout.headUnit();
  return headLogits(c, layout.units[hu], units[hu], units[0], h);
}

std::vector<int64_t> generate(const ModelConfig& c, const ParamLayout& layout,
                              const std::vector<at::Tensor>& units,
                              const std::vector<int64_t>& prompt, const GenerateOptions& o) {
  if (prompt.empty()) throwUserError("generate: the prompt needs at least one token (e.g. BOS)");
  std::vector<int64_t> seq = prompt, out;
  auto gen = at::make_generator<at::CPUGeneratorImpl>(o.seed);
  for (int64_t i = 0; i < o.maxNewTokens; ++i) {
    if (static_cast<int64_t>(seq.size()) >= c.maxPositionEmbeddings) break;
    auto ids = at::tensor(seq, at::kLong).unsqueeze(0);
    auto logits = modelLogits(c, layout, units, ids).select(1, ids.size(1) - 1)[0].cpu();
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
    seq.push_back(next);
    if (o.stopAtEos &&
        std::find(c.eosTokenIds.begin(), c.eosTokenIds.end(), next) != c.eosTokenIds.end())
      break;
  }
  return out;
}

}  // namespace slidedp::model
