// The attention kernel choice (model/decoder.h AttentionKernel, runtime/train_options.h
// AttentionChoice): kAuto is FlashAttention-3 where the build has it, else cuDNN; a kernel asked
// for by name is kept; FlashAttention-3 declines operands it cannot take (here: CPU tensors)
// instead of failing; `--attention` values parse, and a wrong one is refused with the values it
// takes.
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <string>

#include "common/errors.h"
#include "kernels/flash_attention3.h"
#include "model/decoder.h"
#include "runtime/train_options.h"

using slidedp::model::AttentionKernel;
using slidedp::model::resolveAttentionKernel;

TEST(AttentionChoice, AutoIsFlashAttention3WhereBuiltElseCudnn) {
  EXPECT_EQ(resolveAttentionKernel(AttentionKernel::kAuto),
            slidedp::kernels::flashAttention3Built() ? AttentionKernel::kFa3 : AttentionKernel::kCudnn);
  for (AttentionKernel k : {AttentionKernel::kCudnn, AttentionKernel::kFlash, AttentionKernel::kFa3})
    EXPECT_EQ(resolveAttentionKernel(k), k);
  EXPECT_EQ(slidedp::model::defaultAttentionKernel(), AttentionKernel::kAuto);
}

TEST(AttentionChoice, FlashAttention3DeclinesOperandsItCannotTake) {
  auto q = at::zeros({1, 8, 4, 128}, at::kBFloat16), k = at::zeros({1, 8, 2, 128}, at::kBFloat16);
  EXPECT_FALSE(slidedp::kernels::flashAttention3Supports(q, k, k));  // CPU tensors
}

TEST(AttentionChoice, ParsesTheCliValuesAndRefusesOthers) {
  using slidedp::AttentionChoice;
  EXPECT_EQ(slidedp::parseAttentionChoice("auto"), AttentionChoice::kAuto);
  EXPECT_EQ(slidedp::parseAttentionChoice("fa3"), AttentionChoice::kFa3);
  EXPECT_EQ(slidedp::parseAttentionChoice("cudnn"), AttentionChoice::kCudnn);
  EXPECT_EQ(slidedp::parseAttentionChoice("flash"), AttentionChoice::kFlash);
  try {
    slidedp::parseAttentionChoice("fa2");
    FAIL() << "fa2 was accepted";
  } catch (const slidedp::UserError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("'fa2'"), std::string::npos) << m;
    EXPECT_NE(m.find("auto, fa3, cudnn or flash"), std::string::npos) << m;
  }
}
