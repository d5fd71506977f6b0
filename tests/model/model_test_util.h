// Helpers shared by the decoder tests: reading reference tensors into at::Tensor, running one
// training step unit by unit exactly as the runtime does (embedding -> layers -> head with
// chunked loss, then backward unit by unit with recompute), and comparing gradients.
#pragma once

#include <ATen/ATen.h>
#include <ATen/core/grad_mode.h>

#include <algorithm>
#include <string>
#include <vector>

#include "formats/safetensors.h"
#include "model/decoder.h"

namespace slidedp::model::test {

inline at::Tensor readTensor(const formats::SafetensorsFile& f, const std::string& name) {
  const formats::TensorInfo& t = f.get(name);
  if (formats::isFloating(t.dtype)) {
    auto out = at::empty(t.shape, at::kFloat);
    f.readFloat32(t, out.data_ptr<float>());
    return out;
  }
  auto out = at::empty(t.shape, at::kLong);
  f.readInt64(t, out.data_ptr<int64_t>());
  return out;
}

struct StepResult {
  double lossSum = 0;
  int64_t count = 0;
  std::vector<at::Tensor> unitGrads;  // per unit, flat, d(gradScale * lossSum)/d(unit)
};

/// One forward+backward over units in the runtime's order.
inline StepResult runStep(const ModelConfig& c, const ParamLayout& layout,
                          const std::vector<at::Tensor>& units, const at::Tensor& ids,
                          const at::Tensor& labels, const at::Tensor& positionIds,
                          int64_t chunkTokens, double gradScale) {
  const auto dev = units[0].device();
  const auto dtype = units[0].scalar_type();
  const int64_t B = ids.size(0), T = ids.size(1);
  auto ctx = makeAttentionContext(c, B, T, positionIds, dtype, dev);
  std::vector<at::Tensor> h;  // unit-boundary activations
  {
    at::NoGradGuard noGrad;
    h.push_back(embeddingForward(c, units[0], ids.to(dev)));
    for (int l = 0; l < c.numLayers; ++l) {
      int u = layout.decoderUnit(l);
      h.push_back(decoderLayerForward(c, layout.units[u], units[u], h.back(), ctx));
    }
  }
  const int hu = layout.headUnit();
  StepResult r;
  r.unitGrads.resize(layout.units.size());
  auto head = headForwardBackward(c, layout.units[hu], units[hu], units[0], h.back(),
                                  labels.to(dev), chunkTokens, gradScale);
  r.lossSum = head.lossSum;
  r.count = head.count;
  r.unitGrads[hu] = head.gradHeadFlat;
  auto g = head.gradHidden;
  for (int l = static_cast<int>(c.numLayers) - 1; l >= 0; --l) {
    int u = layout.decoderUnit(l);
    auto ug = decoderLayerBackward(c, layout.units[u], units[u], h[l], g, ctx);
    r.unitGrads[u] = ug.gradFlat;
    g = ug.gradInput;
  }
  auto ge = at::zeros_like(units[0]);
  embeddingBackward(c, ids.to(dev), g, ge);
  if (head.gradEmbedFlat.defined()) ge.add_(head.gradEmbedFlat);
  r.unitGrads[0] = ge;
  return r;
}

/// max |a - b| / max |b|: the error relative to the tensor's scale.
inline double relMaxError(const at::Tensor& a, const at::Tensor& b) {
  auto a64 = a.to(at::kCPU, at::kDouble), b64 = b.to(at::kCPU, at::kDouble);
  double scale = std::max(b64.abs().max().item<double>(), 1e-30);
  return (a64 - b64).abs().max().item<double>() / scale;
}

/// ||a - b||_2 / ||b||_2: the usual metric for low-precision results, less driven by a few
/// elements than relMaxError.
inline double relL2Error(const at::Tensor& a, const at::Tensor& b) {
  auto a64 = a.to(at::kCPU, at::kDouble), b64 = b.to(at::kCPU, at::kDouble);
  double scale = std::max(b64.norm().item<double>(), 1e-30);
  return (a64 - b64).norm().item<double>() / scale;
}

}  // namespace slidedp::model::test
