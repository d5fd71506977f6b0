// The real pretrained stories260K (Llama architecture, tied embeddings, GQA 8/4) against the
// project's training reference (transformers in float64): step-0 loss and every gradient,
// computed unit by unit as the runtime does; and greedy decoding of 40 tokens from BOS.
//
// Tolerances (fp32 on CPU vs a float64 reference stored as fp32):
//  - loss: |loss - ref| <= 1e-6 * ref (measured 5e-8);
//  - gradients: per tensor, max|g - ref| <= 5e-5 * max|ref| (measured worst 8.3e-6, layer 1
//    q_proj; fp32 accumulation over 256 tokens and 5 layers). The test prints the worst.
#include <gtest/gtest.h>
#include <sentencepiece_processor.h>

#include "formats/fs_util.h"
#include "formats/safetensors.h"
#include "model/decoder.h"
#include "model/hf_checkpoint.h"
#include "model_test_util.h"

using namespace slidedp::model;
using namespace slidedp::model::test;

namespace {

const std::string kShared = SLIDEDP_SHARED_DIR;
const std::string kStories = kShared + "/models/stories260K";
constexpr double kLossRelTol = 1e-6;
constexpr double kGradRelTol = 5e-5;

}  // namespace

TEST(Stories260K, Step0LossAndEveryGradient) {
  auto m = loadHostModel(kStories);
  auto units = unitTensors(m, at::kFloat, at::kCPU);
  auto ref = slidedp::formats::SafetensorsFile::open(
      kShared + "/reference/stories260K_kjv.reference.safetensors");
  auto ids = readTensor(ref, "step0.input_ids");
  auto labels = readTensor(ref, "step0.labels");
  const int64_t count = (labels != kIgnoreIndex).sum().item<int64_t>();
  // chunkTokens = 50 does not divide the 213 targets: exercises the remainder chunk.
  auto r = runStep(m.config, m.layout, units, ids, labels, at::Tensor(), 50, 1.0 / count);
  EXPECT_EQ(r.count, count);
  const double loss = r.lossSum / r.count;
  const double refLoss = 4.197683946059178;  // stories260K_kjv.reference.json losses[0]
  EXPECT_NEAR(loss, refLoss, kLossRelTol * refLoss);
  int compared = 0;
  double worst = 0;
  std::string worstName;
  for (const auto& t : ref.tensors()) {
    if (t.name.rfind("grad0.", 0) != 0) continue;
    std::string name = t.name.substr(6);
    int unit = -1;
    const ParamEntry* e = nullptr;
    ASSERT_TRUE(m.layout.locate(name, &unit, &e)) << name;
    auto g = r.unitGrads[unit].narrow(0, e->offset, e->numel).view(e->shape);
    double err = relMaxError(g, readTensor(ref, t.name));
    EXPECT_LE(err, kGradRelTol) << name;
    if (err > worst) {
      worst = err;
      worstName = name;
    }
    ++compared;
  }
  EXPECT_EQ(compared, static_cast<int>(m.layout.expectedTensors().size()));
  std::printf("stories260K step 0: loss %.9f (ref %.9f), %d gradients, worst rel err %.3g (%s)\n",
              loss, refLoss, compared, worst, worstName.c_str());
  // Chunk size must not change the result beyond fp32 rounding.
  auto r2 = runStep(m.config, m.layout, units, ids, labels, at::Tensor(), 4096, 1.0 / count);
  EXPECT_NEAR(r2.lossSum, r.lossSum, 1e-9 * r.lossSum + 1e-9);
  for (size_t u = 0; u < units.size(); ++u)
    EXPECT_LE(relMaxError(r2.unitGrads[u], r.unitGrads[u]), 1e-5) << "unit " << u;
}

TEST(Stories260K, GreedyDecodingFromBos) {
  auto m = loadHostModel(kStories);
  auto units = unitTensors(m, at::kFloat, at::kCPU);
  GenerateOptions o;
  o.maxNewTokens = 40;
  o.temperature = 0;
  auto out = generate(m.config, m.layout, units, {*m.config.bosTokenId}, o);
  sentencepiece::SentencePieceProcessor sp;
  ASSERT_TRUE(sp.Load(kStories + "/tokenizer.model").ok());
  std::string text;
  ASSERT_TRUE(sp.Decode(std::vector<int>(out.begin(), out.end()), &text).ok());
  std::printf("greedy: %s\n", text.c_str());
  const std::string expected =
      "Once upon a time, there was a little girl named Lily. She loved to play outside in the "
      "park.";
  EXPECT_EQ(text.substr(0, expected.size()), expected) << text;
}

TEST(Stories260K, SamplingIsSeededAndColdSamplingIsGreedy) {
  auto m = loadHostModel(kStories);
  auto units = unitTensors(m, at::kFloat, at::kCPU);
  GenerateOptions o;
  o.maxNewTokens = 12;
  auto greedy = generate(m.config, m.layout, units, {*m.config.bosTokenId}, o);
  o.temperature = 1.0;
  o.seed = 7;
  auto a = generate(m.config, m.layout, units, {*m.config.bosTokenId}, o);
  auto b = generate(m.config, m.layout, units, {*m.config.bosTokenId}, o);
  EXPECT_EQ(a, b);       // same seed, same tokens
  o.temperature = 1e-4;  // sharp softmax: the argmax wins
  EXPECT_EQ(generate(m.config, m.layout, units, {*m.config.bosTokenId}, o), greedy);
  o.temperature = 1.0;
  o.topP = 1e-6;  // nucleus of one token: greedy again
  EXPECT_EQ(generate(m.config, m.layout, units, {*m.config.bosTokenId}, o), greedy);
}

// Writes stories260K back out as Hugging Face directories (fp32 sharded into small shards, and
// bf16) with slidedp's logits beside them; tools/fixtures/check_export.py (CTest
// model_export_loads_in_transformers) then loads each with transformers and compares.
TEST(Export, ForTransformers) {
  auto m = loadHostModel(kStories);
  const std::string out = SLIDEDP_MODEL_EXPORT_DIR;
  slidedp::formats::removeTree(out);
  auto ref = slidedp::formats::SafetensorsFile::open(
      kShared + "/reference/stories260K_kjv.reference.safetensors");
  auto ids = readTensor(ref, "step0.input_ids").narrow(0, 0, 2).contiguous();
  for (auto dtype : {slidedp::formats::DType::F32, slidedp::formats::DType::BF16}) {
    const std::string dir =
        out + (dtype == slidedp::formats::DType::F32 ? "/f32_sharded" : "/bf16");
    std::vector<const float*> ptrs;
    for (const auto& u : m.units) ptrs.push_back(u.data());
    exportHfModel(dir, m.config, m.layout, ptrs, dtype,
                  dtype == slidedp::formats::DType::F32 ? 300000 : 5ull << 30, kStories);
    EXPECT_EQ(slidedp::formats::pathExists(dir + "/model.safetensors.index.json"),
              dtype == slidedp::formats::DType::F32);
    // slidedp's logits from what was written (bf16 values widened exactly to fp32).
    auto back = loadHostModel(dir);
    auto logits =
        modelLogits(back.config, back.layout, unitTensors(back, at::kFloat, at::kCPU), ids)
            .contiguous();
    std::vector<int64_t> idsShape(ids.sizes().begin(), ids.sizes().end());
    std::vector<int64_t> lShape(logits.sizes().begin(), logits.sizes().end());
    slidedp::formats::writeSafetensors(dir + "/slidedp_logits.safetensors",
                                       {{"input_ids", slidedp::formats::DType::I64, idsShape,
                                         ids.data_ptr<int64_t>(), slidedp::formats::DType::I64},
                                        {"logits", slidedp::formats::DType::F32, lShape,
                                         logits.data_ptr<float>(), slidedp::formats::DType::F32}});
  }
}
