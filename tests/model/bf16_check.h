// bf16 vs fp32 unit by unit, and fp32 vs transformers' reference, on one device: shared by
// test_decoder_gpu.cpp (CUDA) and test_decoder_parity.cpp (CPU, so the bf16 code path also
// runs in CI). Every unit in bf16 is fed the same (fp32, then rounded) boundary activations
// and output gradients as the fp32 unit, so errors do not compound across layers.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "formats/safetensors.h"
#include "model/decoder.h"
#include "model/hf_checkpoint.h"
#include "model_test_util.h"

namespace slidedp::model::test {

/// Error bounds.
struct Bf16Tolerances {
  double fp32Grad;  // fp32 on the device vs the float64 reference: relMaxError per tensor
  double bf16Fwd;   // bf16 unit output vs fp32: relMaxError
  double bf16Grad;  // bf16 input/parameter gradients vs fp32: relL2Error per tensor
  double bf16Loss;  // bf16 summed loss vs fp32: relative
};

struct Case {
  std::string modelDir, refPath, idsName, labelsName, posName, gradPrefix;
};

/// "stories260K" (the shared training reference) or a make_references.py case name.
inline Case caseFor(const std::string& name) {
  if (name == "stories260K")
    return {std::string(SLIDEDP_SHARED_DIR) + "/models/stories260K",
            std::string(SLIDEDP_SHARED_DIR) + "/reference/stories260K_kjv.reference.safetensors",
            "step0.input_ids",
            "step0.labels",
            "",
            "grad0."};
  std::string d = std::string(SLIDEDP_MODEL_FIXTURES) + "/" + name;
  return {d + "/model", d + "/reference.safetensors", "input_ids", "labels", "position_ids",
          "grad."};
}

inline void checkBf16AgainstFp32(const std::string& caseName, at::Device dev,
                                 const Bf16Tolerances& tol) {
  Case k = caseFor(caseName);
  auto m = loadHostModel(k.modelDir);
  const auto& c = m.config;
  const auto& layout = m.layout;
  auto ref = slidedp::formats::SafetensorsFile::open(k.refPath);
  auto ids = readTensor(ref, k.idsName).to(dev);
  auto labels = readTensor(ref, k.labelsName).to(dev);
  auto pos = k.posName.empty() ? at::Tensor() : readTensor(ref, k.posName).to(dev);
  auto u32 = unitTensors(m, at::kFloat, dev);
  auto u16 = unitTensors(m, at::kBFloat16, dev);

  // fp32 on the device vs the float64 reference.
  auto r = runStep(c, layout, u32, ids, labels, pos, 64, 1.0);
  double worst32 = 0, worstFwd = 0, worstGrad = 0;
  std::string worstGradName = "-";
  auto noteGrad = [&](double err, const std::string& what) {
    if (err > worstGrad) {
      worstGrad = err;
      worstGradName = what;
    }
  };
  for (const auto& t : ref.tensors()) {
    if (t.name.rfind(k.gradPrefix, 0) != 0) continue;
    std::string name = t.name.substr(k.gradPrefix.size());
    int unit = -1;
    const ParamEntry* e = nullptr;
    ASSERT_TRUE(layout.locate(name, &unit, &e)) << name;
    auto refGrad = readTensor(ref, t.name);
    if (caseName == "stories260K") refGrad = refGrad * static_cast<double>(r.count);  // mean
    double err =
        relMaxError(r.unitGrads[unit].narrow(0, e->offset, e->numel).view(e->shape), refGrad);
    EXPECT_LE(err, tol.fp32Grad) << name;
    worst32 = std::max(worst32, err);
  }

  // bf16 vs fp32, unit by unit, from the same fp32 activations and gradients.
  const int64_t B = ids.size(0), T = ids.size(1);
  auto ctx32 = makeAttentionContext(c, B, T, pos, at::kFloat, dev);
  auto ctx16 = makeAttentionContext(c, B, T, pos, at::kBFloat16, dev);
  std::vector<at::Tensor> h;
  {
    at::NoGradGuard g;
    h.push_back(embeddingForward(c, u32[0], ids));
    for (int l = 0; l < c.numLayers; ++l) {
      int u = layout.decoderUnit(l);
      auto y32 = decoderLayerForward(c, layout.units[u], u32[u], h.back(), ctx32);
      auto y16 = decoderLayerForward(c, layout.units[u], u16[u], h.back().to(at::kBFloat16), ctx16);
      double err = relMaxError(y16, y32);
      EXPECT_LE(err, tol.bf16Fwd) << "forward of layer " << l;
      worstFwd = std::max(worstFwd, err);
      h.push_back(y32);
    }
  }
  const int hu = layout.headUnit();
  auto h32 = headForwardBackward(c, layout.units[hu], u32[hu], u32[0], h.back(), labels, 64);
  auto h16 = headForwardBackward(c, layout.units[hu], u16[hu], u16[0], h.back().to(at::kBFloat16),
                                 labels, 64);
  EXPECT_NEAR(h16.lossSum, h32.lossSum, tol.bf16Loss * h32.lossSum);
  double headDx = relL2Error(h16.gradHidden, h32.gradHidden);
  double headDw = relL2Error(h16.gradHeadFlat, h32.gradHeadFlat);
  EXPECT_LE(headDx, tol.bf16Grad) << "head dx";
  EXPECT_LE(headDw, tol.bf16Grad) << "head dW";
  noteGrad(headDx, "head dx");
  noteGrad(headDw, "head dW");
  if (c.tieWordEmbeddings) {
    double tied = relL2Error(h16.gradEmbedFlat, h32.gradEmbedFlat);
    EXPECT_LE(tied, tol.bf16Grad) << "tied dW";
    noteGrad(tied, "tied lm_head dW");
  }
  auto g = h32.gradHidden;
  for (int l = static_cast<int>(c.numLayers) - 1; l >= 0; --l) {
    int u = layout.decoderUnit(l);
    auto b32 = decoderLayerBackward(c, layout.units[u], u32[u], h[l], g, ctx32);
    auto b16 = decoderLayerBackward(c, layout.units[u], u16[u], h[l].to(at::kBFloat16),
                                    g.to(at::kBFloat16), ctx16);
    double dxErr = relL2Error(b16.gradInput, b32.gradInput);
    EXPECT_LE(dxErr, tol.bf16Grad) << "dx layer " << l;
    noteGrad(dxErr, "dx of layer " + std::to_string(l));
    for (const auto& p : layout.units[u].params) {
      double err = relL2Error(b16.gradFlat.narrow(0, p.offset, p.numel),
                              b32.gradFlat.narrow(0, p.offset, p.numel));
      EXPECT_LE(err, tol.bf16Grad) << p.name;
      noteGrad(err, p.name);
    }
    g = b32.gradInput;
  }
  std::printf(
      "%s on %s: fp32 vs reference worst grad rel err %.3g; bf16 vs fp32: worst forward "
      "%.3g, worst gradient %.3g (%s), loss %.6f vs %.6f\n",
      caseName.c_str(), dev.str().c_str(), worst32, worstFwd, worstGrad, worstGradName.c_str(),
      h16.lossSum, h32.lossSum);
}

}  // namespace slidedp::model::test
