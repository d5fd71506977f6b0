// The decoder's math in LibTorch (see decoder.h). The only TU of slidedp_model that includes
// the full <torch/torch.h> (autograd API); keep it that way, it compiles slowly.
#include "model/decoder.h"

#include <ATen/record_function.h>
#include <torch/torch.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <tuple>

#include "common/errors.h"
#include "kernels/flash_attention3.h"
#include "kernels/layer_ops.h"
#include "kernels/residual_gemm.h"
#include "model/decoder_parts.h"
#include "model/kv_cache.h"
#include "model/mlp_tiles.h"

namespace slidedp::model {

namespace {

using at::Tensor;

using detail::Scope;
using detail::scoped;

// repeat_kv: [B, KV, T, D] -> [B, KV * rep, T, D].
Tensor repeatKv(const Tensor& x, int64_t rep) {
  if (rep == 1) return x;
  auto s = x.sizes();
  return x.unsqueeze(2)
      .expand({s[0], s[1], rep, s[2], s[3]})
      .reshape({s[0], s[1] * rep, s[2], s[3]});
}

// The parameters of a decoder unit, by role, as views into the flat buffer.
struct LayerParams {
  Tensor inNorm, q, qb, k, kb, v, vb, o, ob, qNorm, kNorm, postNorm, gate, gateb, up, upb, down,
      downb;
  Tensor qkv;  // [Q + 2 KV*D, C]: q, k, v weights as one matrix when adjacent (no biases)
  Tensor gu;   // [2I, C]: gate, up weights as one matrix when adjacent (no biases)
};

// A [rows, C] view over a run of adjacent weights (a.data + a.numel == b.data, ...), or undefined.
Tensor adjacentRows(const std::vector<const Tensor*>& parts) {
  int64_t rows = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    const Tensor& p = *parts[i];
    if (i > 0) {
      const Tensor& prev = *parts[i - 1];
      if (p.storage_offset() != prev.storage_offset() + prev.numel() || p.size(1) != prev.size(1))
        return Tensor();
    }
    rows += p.size(0);
  }
  const Tensor& first = *parts[0];
  return first.as_strided({rows, first.size(1)}, {first.size(1), 1}, first.storage_offset());
}

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
  if (!p.qb.defined()) p.qkv = adjacentRows({&p.q, &p.k, &p.v});
  if (!p.gateb.defined()) p.gu = adjacentRows({&p.gate, &p.up});
  return p;
}

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
  // LlamaRotaryEmbedding.forward: float32 tables (rope.h), then the compute dtype.
  ropeCosSin(c, pos, &ctx.cos, &ctx.sin);
  ctx.cos = ctx.cos.to(dtype);
  ctx.sin = ctx.sin.to(dtype);
  if (positionIds.defined() && T > 1) {
    auto boundary = pos.narrow(1, 1, T - 1) != (pos.narrow(1, 0, T - 1) + 1);  // [B, T-1]
    if (boundary.any().item<bool>()) {
      auto starts = at::cat({at::ones({B, 1}, boundary.options()), boundary}, 1);
      if (device.is_cuda() && dtype == at::kBFloat16) {  // variable-length attention
        auto first = starts.reshape({-1}).nonzero().reshape({-1}).to(at::kInt);
        ctx.cuSeqlens = at::cat({first, at::full({1}, B * T, first.options())});
        const int64_t docs = first.numel();
        ctx.maxSeqlen = (ctx.cuSeqlens.narrow(0, 1, docs) - ctx.cuSeqlens.narrow(0, 0, docs))
                            .max()
                            .item<int64_t>();
        return ctx;
      }
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

void embeddingBackwardRows(const ModelConfig& c, const at::Tensor& rows, const at::Tensor& gradOut,
                           at::Tensor& gradRowsFlat) {
  const int64_t C = c.hiddenSize;
  SLIDEDP_ASSERT(gradRowsFlat.numel() % C == 0, "packed rows must be [rows * C]");
  auto g = gradRowsFlat.view({gradRowsFlat.numel() / C, C});
  g.index_add_(0, rows.to(gradOut.device(), at::kLong).reshape({-1}),
               gradOut.reshape({-1, C}).to(g.scalar_type()));
}

namespace {

using detail::addmmAccumulate;

void addBiasGrad(const Tensor& g, const Tensor& dy) {
  if (g.defined()) const_cast<Tensor&>(g).add_(dy.sum(0, /*keepdim=*/false, at::kFloat));
}

// y [N, out] = x [N, in] @ w^T (+ b).
Tensor project(const Tensor& x, const Tensor& w, const Tensor& b) {
  return b.defined() ? at::addmm(b, x, w.t()) : kernels::mm(x, w.t());
}

// q, k, v projections as one [N, Q + 2 KV*D] matrix.
Tensor projectQkv(const LayerParams& p, const Tensor& h) {
  if (p.qkv.defined()) return kernels::mm(h, p.qkv.t());
  return at::cat({project(h, p.q, p.qb), project(h, p.k, p.kb), project(h, p.v, p.vb)}, 1);
}

// gate, up projections as one [N, 2I] matrix.
Tensor projectGateUp(const LayerParams& p, const Tensor& h) {
  if (p.gu.defined()) return kernels::mm(h, p.gu.t());
  return at::cat({project(h, p.gate, p.gateb), project(h, p.up, p.upb)}, 1);
}

// The gradient of y = x @ w^T (+ b) with respect to x; w's (and b's) gradient added to gw
// (gb), fp32.
// `name` labels the two GEMMs for the profiler (name.dW, name.dX).
Tensor backProject(const Tensor& dy, const Tensor& x, const Tensor& w, const Tensor& gw,
                   const Tensor& gb, const char* name) {
  {
    Scope s(name, ".dW");
    addmmAccumulate(gw, dy.t(), x);
    addBiasGrad(gb, dy);
  }
  Scope s(name, ".dX");
  return kernels::mm(dy, w);
}

bool fusedAttention(const Tensor& q, const AttentionContext& ctx) {
  return q.is_cuda() && q.scalar_type() == at::kBFloat16 && !ctx.mask.defined();
}

// Whether cuDNN's attention may take these operands: each spans (from its first to its last
// element, strides included) fewer than 2^31 elements. At 512K tokens the Qwen3-4B shape's q is
// exactly 2^31 elements and v, a view into the [N, Q + 2 KV*D] projections, spans 3.2e9;
// FlashAttention-2 indexes with 64-bit offsets (index_t = int64_t in flash.h), cuDNN's limit is
// not documented, and torch's dispatcher (sdp_utils.cpp check_cudnn_tensor_shapes, torch 2.11)
// checks head dims and alignment, not lengths. SLIDEDP_CUDNN_LARGE=1 lifts the limit (for the
// GPU test that compares the two kernels at 512K, tests/model/test_long_sequence_gpu.cpp).
bool cudnnAttentionSafe(std::initializer_list<const Tensor*> operands) {
  static const bool lifted = [] {
    const char* v = std::getenv("SLIDEDP_CUDNN_LARGE");
    return v && v[0] == '1';
  }();
  if (lifted) return true;
  for (const Tensor* t : operands)
    if (kernels::elementSpan(*t) >= (int64_t{1} << 31)) return false;
  return true;
}

// CPU tensors of a dtype ATen's CPU flash attention takes (what SDPA dispatches to on CPU).
bool cpuFlashAttention(const Tensor& q) {
  return q.is_cpu() && (q.scalar_type() == at::kFloat || q.scalar_type() == at::kBFloat16);
}

// The packed-document mask as the additive mask the CPU flash kernel takes (0 where attended,
// -inf elsewhere, q's dtype: SDPA's own conversion of a bool mask), or none.
std::optional<Tensor> cpuMask(const AttentionContext& ctx, const Tensor& q) {
  if (!ctx.mask.defined()) return std::nullopt;
  return at::zeros(ctx.mask.sizes(), q.options())
      .masked_fill_(ctx.mask.logical_not(), -std::numeric_limits<double>::infinity());
}

std::atomic<int>& attentionKernelFlag() {
  static std::atomic<int> k{[] {
    const char* v = std::getenv("SLIDEDP_ATTENTION");
    const std::string name = v ? v : "";
    if (name == "flash") return static_cast<int>(AttentionKernel::kFlash);
    if (name == "cudnn") return static_cast<int>(AttentionKernel::kCudnn);
    if (name == "fa3") return static_cast<int>(AttentionKernel::kFa3);
    return static_cast<int>(AttentionKernel::kAuto);
  }()};
  return k;
}

// Whether FlashAttention-3 takes the [B, T, heads, D] views of q, k, v (it runs on them as they
// are: no transposes, no copies); where not, the caller runs cuDNN, logged once when
// FlashAttention-3 was asked for by name (under auto the fallback is the documented choice).
bool fa3Takes(const Tensor& q, const Tensor& k, const Tensor& v, int64_t T) {
  if (kernels::flashAttention3Supports(q, k, v)) return true;
  if (attentionKernel() != AttentionKernel::kFa3) return false;
  static std::atomic<bool> logged{false};
  if (!logged.exchange(true))
    std::fprintf(stderr, "slidedp: FlashAttention-3 does not take attention at T=%lld (%s; it "
                 "needs an H100/H200, bf16, head dim 128 and operands under 2^32 elements); "
                 "using cuDNN for such shapes\n", (long long)T,
                 kernels::flashAttention3Built() ? "this device or shape"
                                                 : "not in this build");
  return false;
}

struct AttnShape {
  int64_t B, T, H, KV, D;
  double scale;
};

// [N, heads, D] (or [N, heads * D] with row stride) -> [B, heads, T, D] view.
Tensor headsView(const Tensor& t, const AttnShape& s, int64_t heads) {
  return t.view({s.B, s.T, heads, s.D}).transpose(1, 2);
}

// Attention forward: q [N, H, D], k [N, KV, D], v [N, KV*D] (a view into qkv) -> [N, H*D].
Tensor attentionForward(const Tensor& q, const Tensor& k, const Tensor& v, const AttnShape& s,
                        const AttentionContext& ctx, LayerActivations* keep) {
  const int64_t N = s.B * s.T;
  if (ctx.cuSeqlens.defined()) {
    // Packed documents: variable-length FlashAttention-2 on the [N, heads, D] rows as they are
    // (no transposes), GQA native, causal inside each document.
    auto r = at::_flash_attention_forward(q, k, v.view({N, s.KV, s.D}), ctx.cuSeqlens, ctx.cuSeqlens,
                                          ctx.maxSeqlen, ctx.maxSeqlen, 0.0, /*is_causal=*/true,
                                          /*return_debug_mask=*/false, s.scale);
    Tensor out = std::get<0>(r);  // [N, H, D]
    if (keep) {
      keep->attnKernel = AttentionKernel::kFlash;
      keep->attnOut4 = out;
      keep->lse = std::get<1>(r);
      keep->philoxSeed = std::get<2>(r);
      keep->philoxOffset = std::get<3>(r);
    }
    return out.view({N, s.H * s.D});
  }
  const bool fused = fusedAttention(q, ctx);
  AttentionKernel kernel = resolveAttentionKernel(attentionKernel());
  if (fused && kernel == AttentionKernel::kFa3) {
    Tensor q4 = q.view({s.B, s.T, s.H, s.D}), k4 = k.view({s.B, s.T, s.KV, s.D}),
           v4 = v.view({s.B, s.T, s.KV, s.D});
    if (fa3Takes(q4, k4, v4, s.T)) {
      auto r = kernels::flashAttention3Forward(q4, k4, v4, s.scale, /*causal=*/true);
      if (keep) {
        keep->attnKernel = AttentionKernel::kFa3;
        keep->attnOut4 = r.out;
        keep->lse = r.lse;
      }
      return r.out.view({N, s.H * s.D});
    }
  }
  auto q4 = headsView(q, s, s.H), k4 = headsView(k, s, s.KV), v4 = headsView(v, s, s.KV);
  if (fused) {
    // FlashAttention-2 or cuDNN in ATen: GQA without repeating k/v; they save only the output
    // and the log-sum-exp.
    if (kernel == AttentionKernel::kFa3) kernel = AttentionKernel::kCudnn;  // not taken above
    if (kernel == AttentionKernel::kCudnn && !cudnnAttentionSafe({&q4, &k4, &v4})) {
      static std::atomic<bool> logged{false};
      if (!logged.exchange(true))
        std::fprintf(stderr, "slidedp: attention at T=%lld: an operand spans 2^31 elements or more, "
                     "beyond what cuDNN's attention is known to address correctly; using "
                     "FlashAttention-2 (64-bit offsets) for such shapes "
                     "(SLIDEDP_CUDNN_LARGE=1 keeps cuDNN)\n", (long long)s.T);
      kernel = AttentionKernel::kFlash;
    }
    decltype(at::_scaled_dot_product_flash_attention(q4, k4, v4)) r;
    if (kernel == AttentionKernel::kCudnn) {
      try {
        r = at::_scaled_dot_product_cudnn_attention(q4, k4, v4, std::nullopt,
                                                    /*compute_log_sumexp=*/true, 0.0,
                                                    /*is_causal=*/true, false, s.scale);
      } catch (const c10::Error& e) {
        std::fprintf(stderr, "slidedp: cuDNN attention refused [B=%lld, H=%lld, KV=%lld, T=%lld, "
                     "D=%lld] (%.200s); using FlashAttention-2 from now on\n", (long long)s.B,
                     (long long)s.H, (long long)s.KV, (long long)s.T, (long long)s.D, e.what());
        setAttentionKernel(AttentionKernel::kFlash);
        kernel = AttentionKernel::kFlash;
      }
    }
    if (kernel == AttentionKernel::kFlash)
      r = at::_scaled_dot_product_flash_attention(q4, k4, v4, 0.0, /*is_causal=*/true,
                                                  /*return_debug_mask=*/false, s.scale);
    Tensor out4 = std::get<0>(r);
    Tensor out = out4.transpose(1, 2).reshape({N, s.H * s.D});
    if (keep) {
      keep->attnKernel = kernel;
      keep->attnOut4 = out4;
      keep->lse = std::get<1>(r);
      keep->cumSeqQ = std::get<2>(r);
      keep->cumSeqK = std::get<3>(r);
      keep->philoxSeed = std::get<6>(r);
      keep->philoxOffset = std::get<7>(r);
    }
    return out;
  }
  const int64_t rep = s.H / s.KV;
  auto kr = repeatKv(k4, rep), vr = repeatKv(v4, rep);
  if (keep && cpuFlashAttention(q)) {
    // CPU workers keeping activations: ATen's CPU flash kernel, which SDPA runs on CPU anyway
    // (the same output bit for bit), called directly for its log-sum-exp, so backward never
    // recomputes the attention (attentionBackward).
    auto r = at::_scaled_dot_product_flash_attention_for_cpu(q4, kr, vr, 0.0, !ctx.mask.defined(),
                                                             cpuMask(ctx, q), s.scale);
    keep->attnKernel = AttentionKernel::kFlash;
    keep->attnOut4 = std::get<0>(r);
    keep->lse = std::get<1>(r);
    return keep->attnOut4.transpose(1, 2).reshape({N, s.H * s.D});
  }
  Tensor attn = ctx.mask.defined()
                    ? at::scaled_dot_product_attention(q4, kr, vr, ctx.mask, 0.0, false, s.scale)
                    : at::scaled_dot_product_attention(q4, kr, vr, {}, 0.0, true, s.scale);
  return attn.transpose(1, 2).reshape({N, s.H * s.D});
}

// Attention backward: dout [N, H*D] -> dq [N, H, D], dk [N, KV, D], dv [N, KV*D].
std::tuple<Tensor, Tensor, Tensor> attentionBackward(const Tensor& dout, const Tensor& q,
                                                     const Tensor& k, const Tensor& v,
                                                     const AttnShape& s,
                                                     const AttentionContext& ctx,
                                                     const LayerActivations& a) {
  const int64_t N = s.B * s.T;
  if (ctx.cuSeqlens.defined() && a.lse.defined()) {  // packed documents (attentionForward)
    auto g = at::_flash_attention_backward(
        dout.reshape({N, s.H, s.D}), q, k, v.view({N, s.KV, s.D}), a.attnOut4, a.lse, ctx.cuSeqlens,
        ctx.cuSeqlens, ctx.maxSeqlen, ctx.maxSeqlen, 0.0, /*is_causal=*/true, a.philoxSeed,
        a.philoxOffset, s.scale);
    return {std::get<0>(g), std::get<1>(g), std::get<2>(g).reshape({N, s.KV * s.D})};
  }
  if (a.attnKernel == AttentionKernel::kFa3 && a.lse.defined()) {
    auto g = kernels::flashAttention3Backward(
        dout.reshape({s.B, s.T, s.H, s.D}), q.view({s.B, s.T, s.H, s.D}),
        k.view({s.B, s.T, s.KV, s.D}), v.view({s.B, s.T, s.KV, s.D}), a.attnOut4, a.lse, s.scale,
        /*causal=*/true);
    return {std::get<0>(g).view({N, s.H, s.D}), std::get<1>(g).view({N, s.KV, s.D}),
            std::get<2>(g).view({N, s.KV * s.D})};
  }
  auto q4 = headsView(q, s, s.H), k4 = headsView(k, s, s.KV), v4 = headsView(v, s, s.KV);
  auto do4 = headsView(dout, s, s.H);
  Tensor dq, dk, dv;
  if (fusedAttention(q, ctx) && a.lse.defined()) {
    const Tensor& out4 = a.attnOut4;
    if (do4.strides() != out4.strides()) do4 = at::empty_like(out4).copy_(do4);  // O's layout
    auto g = a.attnKernel == AttentionKernel::kCudnn
                 ? at::_scaled_dot_product_cudnn_attention_backward(
                       do4, q4, k4, v4, out4, a.lse, a.philoxSeed, a.philoxOffset, Tensor(),
                       a.cumSeqQ, a.cumSeqK, s.T, s.T, 0.0, /*is_causal=*/true, s.scale)
                 : at::_scaled_dot_product_flash_attention_backward(
                       do4, q4, k4, v4, out4, a.lse, a.cumSeqQ, a.cumSeqK, s.T, s.T, 0.0,
                       /*is_causal=*/true, a.philoxSeed, a.philoxOffset, s.scale);
    dq = std::get<0>(g);
    dk = std::get<1>(g);
    dv = std::get<2>(g);
  } else if (cpuFlashAttention(q) && a.lse.defined()) {
    // CPU flash backward from the kept output and log-sum-exp (what autograd would call); the
    // repeated k/v heads' gradients summed back per KV head as repeat_kv's backward does.
    const int64_t rep = s.H / s.KV;
    auto g = at::_scaled_dot_product_flash_attention_for_cpu_backward(
        do4.to(q4.scalar_type()), q4, repeatKv(k4, rep), repeatKv(v4, rep), a.attnOut4, a.lse, 0.0,
        !ctx.mask.defined(), cpuMask(ctx, q), s.scale);
    dq = std::get<0>(g);
    dk = std::get<1>(g);
    dv = std::get<2>(g);
    if (rep > 1) {
      dk = dk.reshape({s.B, s.KV, rep, s.T, s.D}).sum(2);
      dv = dv.reshape({s.B, s.KV, rep, s.T, s.D}).sum(2);
    }
  } else {
    // Recompute the attention under autograd (CPU workers, fp32, packed-document masks).
    torch::AutoGradMode enable(true);
    const int64_t rep = s.H / s.KV;
    auto ql = q4.detach().requires_grad_(true), kl = k4.detach().requires_grad_(true),
         vl = v4.detach().requires_grad_(true);
    auto kr = repeatKv(kl, rep), vr = repeatKv(vl, rep);
    Tensor attn = ctx.mask.defined()
                      ? at::scaled_dot_product_attention(ql, kr, vr, ctx.mask, 0.0, false, s.scale)
                      : at::scaled_dot_product_attention(ql, kr, vr, {}, 0.0, true, s.scale);
    auto g = torch::autograd::grad({attn}, {ql, kl, vl}, {do4.to(attn.scalar_type())});
    dq = g[0];
    dk = g[1];
    dv = g[2];
  }
  return {dq.transpose(1, 2).reshape({N, s.H, s.D}), dk.transpose(1, 2).reshape({N, s.KV, s.D}),
          dv.transpose(1, 2).reshape({N, s.KV * s.D})};
}

AttnShape attnShape(const ModelConfig& c, int64_t B, int64_t T) {
  return {B, T, c.numHeads, c.numKvHeads, c.headDim, 1.0 / std::sqrt(static_cast<double>(c.headDim))};
}

// cos/sin [B, T, D] -> [N, D].
Tensor rows2d(const Tensor& t, int64_t N) { return t.reshape({N, t.size(-1)}); }

}  // namespace

int64_t LayerActivations::bytes() const {
  int64_t b = 0;
  std::vector<const void*> seen;
  for (const Tensor* t : {&x, &rstd1, &rstd2, &qkv, &rq, &rk, &attn, &attnOut4, &lse, &h1, &gu}) {
    if (!t->defined()) continue;
    const void* p = t->storage().data();
    if (std::find(seen.begin(), seen.end(), p) != seen.end()) continue;
    seen.push_back(p);
    b += static_cast<int64_t>(t->storage().nbytes());
  }
  return b;
}

bool LayerActivations::isAttentionOnly() const { return attn.defined() && !qkv.defined(); }

void LayerActivations::copyAttention(const LayerActivations& o) {
  attn = o.attn;
  attnOut4 = o.attnOut4;
  lse = o.lse;
  cumSeqQ = o.cumSeqQ;
  cumSeqK = o.cumSeqK;
  philoxSeed = o.philoxSeed;
  philoxOffset = o.philoxOffset;
  attnKernel = o.attnKernel;
}

LayerActivations LayerActivations::attentionOnly() const {
  SLIDEDP_ASSERT(lse.defined(), "the attention-output policy needs the attention's log-sum-exp "
                 "(a fused or CPU flash attention kept by decoderLayerForward)");
  LayerActivations r;
  r.x = x;
  r.copyAttention(*this);
  return r;
}

AttentionKernel attentionKernel() { return static_cast<AttentionKernel>(attentionKernelFlag().load()); }
void setAttentionKernel(AttentionKernel k) { attentionKernelFlag().store(static_cast<int>(k)); }
const char* attentionKernelName(AttentionKernel k) {
  switch (k) {
    case AttentionKernel::kCudnn: return "cuDNN";
    case AttentionKernel::kFa3: return "FlashAttention-3";
    case AttentionKernel::kFlash: return "FlashAttention-2";
    case AttentionKernel::kAuto: return "auto (FlashAttention-3 where built and taken, else cuDNN)";
  }
  return "?";
}
AttentionKernel defaultAttentionKernel() { return AttentionKernel::kAuto; }
AttentionKernel resolveAttentionKernel(AttentionKernel k) {
  if (k != AttentionKernel::kAuto) return k;
  return kernels::flashAttention3Built() ? AttentionKernel::kFa3 : AttentionKernel::kCudnn;
}

namespace {

// The MLP half's weights and gradient views for the tiled path (mlp_tiles.h), or 0 tile rows
// when the layer runs untiled: below the length threshold, or an MLP with biases or with
// gate and up apart.
int64_t mlpTiles(const ModelConfig& c, const LayerParams& p, int64_t N, at::ScalarType dtype) {
  if (!p.gu.defined() || p.downb.defined()) return 0;
  return mlpTileRows(c, N, static_cast<int64_t>(c10::elementSize(dtype)));
}
MlpWeights mlpWeights(const ModelConfig& c, const LayerParams& p) {
  return {p.postNorm, p.gu, p.down, c.rmsNormEps};
}

// decoderLayerForward; with `saved` (an attention-output keep, LayerActivations::attentionOnly)
// the attention is not run: its saved output and log-sum-exp stand in, and `keep` receives
// them with everything else recomputed (the attention-output policy's backward). Without
// `output` (a recompute: only `keep` is wanted) nothing that only the layer's output needs
// runs: not the SwiGLU product and the down projection (the tiled MLP: none of it; backward
// takes rstd2 from its own per-tile norm), nor, with `saved`, the q/k norm + RoPE (backward
// recomputes it and takes its rstd); an undefined tensor is returned.
at::Tensor layerForward(const ModelConfig& c, const UnitLayout& unit, const at::Tensor& flat,
                        const at::Tensor& x, const AttentionContext& ctx, LayerActivations* keep,
                        const LayerActivations* saved, bool output = true) {
  SLIDEDP_ASSERT(!ctx.kvCache || (!keep && !saved), "layerForward: the KV cache is for forward-only decoding");
  SLIDEDP_ASSERT(output ? !saved : keep != nullptr,
                 "layerForward: a kept attention output is only recomputed around (no output), and a "
                 "forward without its output must keep its activations");
  const int64_t B = x.size(0), T = x.size(1), C = c.hiddenSize, N = B * T;
  const int64_t H = c.numHeads, KV = c.numKvHeads, D = c.headDim, Q = H * D;
  const AttnShape s = attnShape(c, B, T);
  LayerParams p = layerParams(unit, flat);
  auto x2 = x.reshape({N, C}).contiguous();
  // Attention (LlamaAttention.forward / Qwen3Attention.forward).
  auto n1 = scoped("fwd.input_norm", [&] { return kernels::rmsNormForward(x2, p.inNorm, c.rmsNormEps); });
  Tensor qkv = scoped("fwd.qkv_proj", [&] { return projectQkv(p, n1.y); });  // [N, Q + 2 KV*D]
  kernels::QkRopeResult qk;
  if (!saved) {
    qk = scoped("fwd.qk_norm_rope", [&] {
      return kernels::qkNormRopeForward(qkv, H, KV, D, c.qkNorm ? p.qNorm : Tensor(),
                                        c.qkNorm ? p.kNorm : Tensor(), c.rmsNormEps,
                                        rows2d(ctx.cos, N), rows2d(ctx.sin, N));
    });
  }
  Tensor attn;
  if (saved) {  // the attention-output policy: the kept output and its log-sum-exp
    attn = saved->attn;
    if (keep) keep->copyAttention(*saved);
  } else if (ctx.kvCache) {  // incremental decoding: over the cached tokens and the new ones
    attn = cachedAttention(qk.q, qk.k, qkv.narrow(1, Q + KV * D, KV * D), B, T, H, KV, D, s.scale,
                           *ctx.kvCache, unit.index);
  } else {
    attn = scoped("fwd.attention", [&] {
      return attentionForward(qk.q, qk.k, qkv.narrow(1, Q + KV * D, KV * D), s, ctx, keep);
    });
  }
  // h1 = x + o_proj(attn): the residual add in the GEMM's epilogue (kernels/residual_gemm.h).
  Tensor h1 = scoped("fwd.o_proj", [&] {
    Tensor t = kernels::addmmResidual(x2, attn, p.o);
    if (p.ob.defined()) t.add_(p.ob);
    return t;
  });
  if (keep) {  // the attention half's tensors (rq, rk undefined where qk was skipped)
    keep->x = x;
    keep->rstd1 = n1.rstd;
    keep->qkv = qkv;
    keep->rq = qk.rq;
    keep->rk = qk.rk;
    keep->attn = attn;
    keep->h1 = h1;
  }
  // MLP (LlamaMLP: down(silu(gate(x)) * up(x))), tiled along the tokens for long sequences
  // (mlp_tiles.h: a kept layer then keeps h1 and rstd2, not gate|up).
  if (const int64_t tile = mlpTiles(c, p, N, flat.scalar_type()); tile > 0) {
    if (!output) return Tensor();
    Tensor y = mlpForwardTiled(mlpWeights(c, p), h1, tile, keep ? &keep->rstd2 : nullptr);
    return y.view({B, T, C});
  }
  auto n2 = scoped("fwd.post_norm", [&] { return kernels::rmsNormForward(h1, p.postNorm, c.rmsNormEps); });
  Tensor gu = scoped("fwd.gate_up_proj", [&] { return projectGateUp(p, n2.y); });  // [N, 2I]
  if (keep) {
    keep->rstd2 = n2.rstd;
    keep->gu = gu;
  }
  if (!output) return Tensor();
  Tensor act = scoped("fwd.swiglu", [&] { return kernels::swigluForward(gu); });
  Tensor y = scoped("fwd.down_proj", [&] {
    Tensor t = kernels::addmmResidual(h1, act, p.down);
    if (p.downb.defined()) t.add_(p.downb);
    return t;
  });
  return y.view({B, T, C});
}

}  // namespace

at::Tensor decoderLayerForward(const ModelConfig& c, const UnitLayout& unit, const at::Tensor& flat,
                               const at::Tensor& x, const AttentionContext& ctx,
                               LayerActivations* keep) {
  return layerForward(c, unit, flat, x, ctx, keep, nullptr);
}

void decoderLayerRecompute(const ModelConfig& c, const UnitLayout& unit, const at::Tensor& flat,
                           const at::Tensor& x, const AttentionContext& ctx, LayerActivations& keep,
                           const LayerActivations* saved) {
  SLIDEDP_ASSERT(!saved || saved->isAttentionOnly(),
                 "decoderLayerRecompute: `saved` must be an attention-output keep (attentionOnly())");
  // x and saved may live in keep (decoderLayerRecompute(.., acts.x, ctx, acts)): hold them first
  const at::Tensor input = x;
  const LayerActivations attention = saved ? *saved : LayerActivations();
  keep = LayerActivations();
  layerForward(c, unit, flat, input, ctx, &keep, saved ? &attention : nullptr, /*output=*/false);
}

at::Tensor decoderLayerBackward(const ModelConfig& c, const UnitLayout& unit, const at::Tensor& flat,
                                const LayerActivations& a, const at::Tensor& gradOut,
                                const AttentionContext& ctx, const at::Tensor& gradFlatAccum,
                                const std::function<void()>& onMlpGradients) {
  if (a.isAttentionOnly()) {
    // The attention-output policy: recompute the layer around the kept attention output
    // (norm, q/k/v, o_proj, MLP), never the attention itself, then back-propagate as if kept.
    LayerActivations full;
    {
      Scope sc("bwd.recompute_around_attention");
      layerForward(c, unit, flat, a.x, ctx, &full, &a, /*output=*/false);
    }
    return decoderLayerBackward(c, unit, flat, full, gradOut, ctx, gradFlatAccum, onMlpGradients);
  }
  const int64_t B = a.x.size(0), T = a.x.size(1), C = c.hiddenSize, N = B * T;
  const int64_t H = c.numHeads, KV = c.numKvHeads, D = c.headDim, Q = H * D, KVD = KV * D;
  const AttnShape s = attnShape(c, B, T);
  SLIDEDP_ASSERT(gradFlatAccum.scalar_type() == at::kFloat && gradFlatAccum.numel() == unit.numel,
                 "the gradient accumulator of unit {} must be fp32 [{}]", unit.index, unit.numel);
  LayerParams p = layerParams(unit, flat);
  LayerParams g = layerParams(unit, gradFlatAccum);
  const auto dtype = flat.scalar_type();
  auto dy = gradOut.reshape({N, C}).to(dtype).contiguous();
  Tensor dh1;
  if (!a.gu.defined()) {  // the forward ran the MLP tiled (mlp_tiles.h): so does backward
    SLIDEDP_ASSERT(p.gu.defined() && !p.downb.defined(), "tiled MLP activations for a biased MLP");
    const int64_t tile = std::max<int64_t>(mlpTiles(c, p, N, dtype), 0);
    dh1 = mlpBackwardTiled(mlpWeights(c, p), {g.postNorm, g.gu, g.down}, a.h1, a.rstd2, dy,
                           tile > 0 ? tile : N);
  } else {
    // ---- MLP: y = h1 + down(act), act = swiglu(gu), gu = [gate | up](norm2(h1)).
    // dact = dy @ W_down first; then one pass over gu gives dgu and the recomputed act that the
    // down projection's weight gradient needs (no separate recompute pass over gu).
    Tensor dact = scoped("bwd.down_proj.dX", [&] { return kernels::mm(dy, p.down); });
    Tensor act;
    Tensor dgu = scoped("bwd.swiglu", [&] { return kernels::swigluBackward(dact, a.gu, &act); });
    dact = Tensor();
    {
      Scope sc("bwd.down_proj", ".dW");
      addmmAccumulate(g.down, dy.t(), act);
      addBiasGrad(g.downb, dy);
    }
    act = Tensor();
    Tensor h2 = scoped("bwd.post_norm_recompute",
                       [&] { return kernels::rmsNormApply(a.h1, a.rstd2, p.postNorm); });
    Tensor dh2;
    if (p.gu.defined()) {
      dh2 = backProject(dgu, h2, p.gu, g.gu, Tensor(), "bwd.gate_up_proj");
    } else {
      const int64_t I = c.intermediateSize;
      dh2 = backProject(dgu.narrow(1, 0, I), h2, p.gate, g.gate, g.gateb, "bwd.gate_proj");
      dh2.add_(backProject(dgu.narrow(1, I, I), h2, p.up, g.up, g.upb, "bwd.up_proj"));
    }
    dgu = Tensor();
    h2 = Tensor();
    dh1 = scoped("bwd.post_norm", [&] {  // + dy: the residual branch of y = h1 + mlp
      return kernels::rmsNormBackward(dh2, a.h1, a.rstd2, p.postNorm, g.postNorm, dy);
    });
    dh2 = Tensor();
  }
  if (onMlpGradients) onMlpGradients();  // g.postNorm, g.gate/up/down (and biases) are complete
  // ---- attention: h1 = x + o_proj(attn).
  Tensor dattn = backProject(dh1, a.attn, p.o, g.o, g.ob, "bwd.o_proj");
  const Tensor wq = c.qkNorm ? p.qNorm : Tensor(), wk = c.qkNorm ? p.kNorm : Tensor();
  auto cos = rows2d(ctx.cos, N), sin = rows2d(ctx.sin, N);
  auto qk = scoped("bwd.qk_norm_rope_recompute", [&] {
    return kernels::qkNormRopeForward(a.qkv, H, KV, D, wq, wk, c.rmsNormEps, cos, sin);
  });
  auto [dq, dk, dv] = scoped("bwd.attention", [&] {
    return attentionBackward(dattn, qk.q, qk.k, a.qkv.narrow(1, Q + KVD, KVD), s, ctx, a);
  });
  dattn = Tensor();
  qk.q = Tensor();
  qk.k = Tensor();
  if (a.rq.defined()) {  // else (an attention-output recompute) the rstd just recomputed
    qk.rq = a.rq;
    qk.rk = a.rk;
  }
  Tensor dqkv = at::empty({N, Q + 2 * KVD}, a.qkv.options());
  {
    Scope sc("bwd.qk_norm_rope");
    kernels::qkNormRopeBackward(dq, dk, a.qkv, H, KV, D, wq, wk, qk, cos, sin, dqkv,
                                c.qkNorm ? g.qNorm : Tensor(), c.qkNorm ? g.kNorm : Tensor());
    dqkv.narrow(1, Q + KVD, KVD).copy_(dv);
  }
  dq = dk = dv = Tensor();
  auto x2 = a.x.reshape({N, C}).contiguous();
  Tensor h = scoped("bwd.input_norm_recompute", [&] { return kernels::rmsNormApply(x2, a.rstd1, p.inNorm); });
  Tensor dh;
  if (p.qkv.defined()) {
    dh = backProject(dqkv, h, p.qkv, g.qkv, Tensor(), "bwd.qkv_proj");
  } else {
    dh = backProject(dqkv.narrow(1, 0, Q), h, p.q, g.q, g.qb, "bwd.q_proj");
    dh.add_(backProject(dqkv.narrow(1, Q, KVD), h, p.k, g.k, g.kb, "bwd.k_proj"));
    dh.add_(backProject(dqkv.narrow(1, Q + KVD, KVD), h, p.v, g.v, g.vb, "bwd.v_proj"));
  }
  dqkv = Tensor();
  h = Tensor();
  Tensor dx = scoped("bwd.input_norm", [&] {  // + dh1: the residual branch of h1 = x + attn
    return kernels::rmsNormBackward(dh, x2, a.rstd1, p.inNorm, g.inNorm, dh1);
  });
  return dx.view({B, T, C});
}

UnitGrads decoderLayerBackward(const ModelConfig& c, const UnitLayout& unit, const at::Tensor& flat,
                               const at::Tensor& x, const at::Tensor& gradOut,
                               const AttentionContext& ctx) {
  LayerActivations acts;
  decoderLayerRecompute(c, unit, flat, x, ctx, acts);
  UnitGrads r;
  r.gradFlat = at::zeros({unit.numel}, flat.options().dtype(at::kFloat));
  r.gradInput = decoderLayerBackward(c, unit, flat, acts, gradOut, ctx, r.gradFlat);
  return r;
}

HeadResult headForwardBackward(const ModelConfig& c, const UnitLayout& headUnit,
                               const at::Tensor& headFlat, const at::Tensor& embedFlat,
                               const at::Tensor& hidden, const at::Tensor& labels,
                               int64_t chunkTokens, double gradScale) {
  SLIDEDP_ASSERT(chunkTokens >= 0, "chunkTokens must be >= 0 (0: auto)");
  const int64_t C = c.hiddenSize, V = c.vocabSize, N = hidden.numel() / C;
  const int64_t chunk = lossChunkTokens(chunkTokens, V);
  HeadResult r;
  const ParamEntry& normE = headUnit.get("model.norm.weight");
  auto normW = headFlat.narrow(0, normE.offset, normE.numel);
  auto h2 = hidden.reshape({N, C}).contiguous();
  auto n = scoped("head.norm", [&] { return kernels::rmsNormForward(h2, normW, c.rmsNormEps); });  // [N, C]
  auto W = lmHeadWeight(c, headUnit, headFlat, embedFlat);    // [V, C]
  auto f32 = headFlat.options().dtype(at::kFloat);
  r.gradHeadFlat = at::zeros({headUnit.numel}, f32);
  Tensor gradW;  // [V, C] fp32: a view into the head's (or, tied, the embedding's) gradient
  if (c.tieWordEmbeddings) {
    r.gradEmbedFlat = at::zeros({embedFlat.numel()}, f32);
    gradW = r.gradEmbedFlat.narrow(0, 0, V * C).view({V, C});
  } else {
    const ParamEntry& e = headUnit.get("lm_head.weight");
    gradW = r.gradHeadFlat.narrow(0, e.offset, e.numel).view({V, C});
  }
  std::optional<Scope> selectScope(std::in_place, "head.select_targets");
  auto flatLabels = labels.to(hidden.device(), at::kLong).reshape({-1});
  SLIDEDP_ASSERT(flatLabels.numel() == N, "labels must be [B, T] like hidden");
  auto sel = (flatLabels != kIgnoreIndex).nonzero().reshape({-1});  // targets only
  r.count = sel.numel();
  auto normedSel = n.y.index_select(0, sel);
  auto labelsSel = flatLabels.index_select(0, sel);
  auto gradNormedSel = at::empty_like(normedSel);
  auto lossAcc = at::zeros({}, f32.dtype(at::kDouble));
  selectScope.reset();
  for (int64_t s = 0; s < r.count; s += chunk) {
    const int64_t m = std::min(chunk, r.count - s);
    auto hc = normedSel.narrow(0, s, m);  // [m, C]
    auto logits = scoped("head.logits", [&] { return kernels::mm(hc, W.t()); });  // [m, V], compute dtype
    // loss rows; logits become scale * (softmax - onehot) in place.
    {
      Scope sc("head.cross_entropy");
      lossAcc += kernels::softmaxCrossEntropyInPlace(logits, labelsSel.narrow(0, s, m), gradScale)
                     .sum(at::kDouble);
    }
    auto out = gradNormedSel.narrow(0, s, m);
    {
      Scope sc("head.lm_head.dX");
      kernels::mmOut(out, logits, W);
    }
    Scope sc("head.lm_head.dW");
    addmmAccumulate(gradW, logits.t(), hc);
  }
  r.lossSum = lossAcc.item<double>();
  Scope sc("head.norm_backward");
  auto gradNormed = at::zeros_like(n.y).index_copy_(0, sel, gradNormedSel);
  auto normG = r.gradHeadFlat.narrow(0, normE.offset, normE.numel);
  r.gradHidden = kernels::rmsNormBackward(gradNormed, h2, n.rstd, normW, normG).view(hidden.sizes());
  return r;
}

at::Tensor headLogits(const ModelConfig& c, const UnitLayout& headUnit, const at::Tensor& headFlat,
                      const at::Tensor& embedFlat, const at::Tensor& hidden) {
  const ParamEntry& normE = headUnit.get("model.norm.weight");
  const int64_t C = c.hiddenSize;
  auto h2 = hidden.reshape({-1, C}).contiguous();
  auto normed = kernels::rmsNormForward(h2, headFlat.narrow(0, normE.offset, normE.numel), c.rmsNormEps).y;
  auto W = lmHeadWeight(c, headUnit, headFlat, embedFlat);
  auto sizes = hidden.sizes().vec();
  sizes.back() = c.vocabSize;
  return at::mm(normed, W.t()).to(at::kFloat).view(sizes);
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

}  // namespace slidedp::model
