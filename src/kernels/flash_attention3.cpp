// FlashAttention-3 through its own C++ entry points (third_party/flash-attention-3/hopper/
// flash_api.cpp: mha_fwd, mha_bwd), declared here as upstream defines them.
#include "kernels/flash_attention3.h"

#include <ATen/ATen.h>
#include <ATen/record_function.h>

#include <cstdlib>
#include <initializer_list>
#include <optional>

#ifdef SLIDEDP_HAVE_FA3
#include <ATen/cuda/CUDAContext.h>

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor> mha_fwd(
    at::Tensor q, at::Tensor k, at::Tensor v, std::optional<at::Tensor> k_new_,
    std::optional<at::Tensor> v_new_, std::optional<at::Tensor> q_v_,
    std::optional<at::Tensor> out_, std::optional<at::Tensor> cu_seqlens_q_,
    std::optional<at::Tensor> cu_seqlens_k_, std::optional<at::Tensor> cu_seqlens_k_new_,
    std::optional<at::Tensor> seqused_q_, std::optional<at::Tensor> seqused_k_,
    std::optional<int64_t> max_seqlen_q_, std::optional<int64_t> max_seqlen_k_,
    std::optional<at::Tensor> page_table_, std::optional<at::Tensor> kv_batch_idx_,
    std::optional<at::Tensor> leftpad_k_, std::optional<at::Tensor> rotary_cos_,
    std::optional<at::Tensor> rotary_sin_, std::optional<at::Tensor> seqlens_rotary_,
    std::optional<at::Tensor> q_descale_, std::optional<at::Tensor> k_descale_,
    std::optional<at::Tensor> v_descale_, std::optional<double> softmax_scale_, bool is_causal,
    int64_t window_size_left, int64_t window_size_right, int64_t attention_chunk,
    double softcap, bool is_rotary_interleaved, std::optional<at::Tensor> scheduler_metadata_,
    int64_t num_splits, std::optional<bool> pack_gqa_, int64_t sm_margin);

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor> mha_bwd(
    at::Tensor dout, at::Tensor q, at::Tensor k, at::Tensor v, at::Tensor out,
    at::Tensor softmax_lse, std::optional<at::Tensor> dq_, std::optional<at::Tensor> dk_,
    std::optional<at::Tensor> dv_, std::optional<at::Tensor> cu_seqlens_q_,
    std::optional<at::Tensor> cu_seqlens_k_, std::optional<at::Tensor> seqused_q_,
    std::optional<at::Tensor> seqused_k_, std::optional<int64_t> max_seqlen_q_,
    std::optional<int64_t> max_seqlen_k_, std::optional<double> softmax_scale_, bool is_causal,
    int64_t window_size_left, int64_t window_size_right, double softcap, bool deterministic,
    int64_t sm_margin);
#endif

namespace slidedp::kernels {

bool flashAttention3Built() {
#ifdef SLIDEDP_HAVE_FA3
  return true;
#else
  return false;
#endif
}

bool flashAttention3Supports(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v) {
#ifdef SLIDEDP_HAVE_FA3
  if (!q.is_cuda() || q.scalar_type() != at::kBFloat16 || q.dim() != 4 || q.size(3) != 128)
    return false;
  const cudaDeviceProp* p = at::cuda::getDeviceProperties(q.get_device());
  if (p->major != 9 || p->minor != 0) return false;
  static const bool large = [] {  // SLIDEDP_FA3_LARGE=1: no 2^32 limit (see the header)
    const char* e = std::getenv("SLIDEDP_FA3_LARGE");
    return e && e[0] == '1';
  }();
  for (const at::Tensor* t : {&q, &k, &v}) {
    if (t->stride(-1) != 1 || t->scalar_type() != at::kBFloat16) return false;
    if (!large && elementSpan(*t) >= (int64_t{1} << 32)) return false;
  }
  return true;
#else
  (void)q, (void)k, (void)v;
  return false;
#endif
}

AttentionForwardResult flashAttention3Forward(const at::Tensor& q, const at::Tensor& k,
                                              const at::Tensor& v, double scale, bool causal) {
#ifdef SLIDEDP_HAVE_FA3
  // Profiler scope with q as [B, H, T, D], the shape src/profiling/gpu_profile.cpp counts
  // attention FLOPs from.
  RECORD_FUNCTION("slidedp::flash_attention3_forward", std::vector<c10::IValue>{q.transpose(1, 2)});
  auto r = mha_fwd(q, k, v, std::nullopt, std::nullopt, std::nullopt, /*out_=*/std::nullopt,
                   std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt,
                   std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt,
                   std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt,
                   std::nullopt, scale, causal, /*window_size_left=*/-1,
                   /*window_size_right=*/causal ? 0 : -1, /*attention_chunk=*/0,
                   /*softcap=*/0.0, /*is_rotary_interleaved=*/false,
                   /*scheduler_metadata_=*/std::nullopt, /*num_splits=*/1,
                   /*pack_gqa_=*/std::nullopt, /*sm_margin=*/0);
  return {std::get<0>(r), std::get<1>(r)};
#else
  TORCH_CHECK(false, "slidedp was built without FlashAttention-3 (nvcc < 12.3 or "
              "-DSLIDEDP_FLASH_ATTENTION_3=OFF)");
  return {};
#endif
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> flashAttention3Backward(
    const at::Tensor& dout, const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
    const at::Tensor& out, const at::Tensor& lse, double scale, bool causal) {
#ifdef SLIDEDP_HAVE_FA3
  RECORD_FUNCTION("slidedp::flash_attention3_backward", std::vector<c10::IValue>{q.transpose(1, 2)});
  at::Tensor dq = at::empty(q.sizes(), q.options());
  at::Tensor dk = at::empty(k.sizes(), k.options());
  at::Tensor dv = at::empty(v.sizes(), v.options());
  mha_bwd(dout, q, k, v, out, lse, dq, dk, dv, std::nullopt, std::nullopt, std::nullopt,
          std::nullopt, std::nullopt, std::nullopt, scale, causal, /*window_size_left=*/-1,
          /*window_size_right=*/causal ? 0 : -1, /*softcap=*/0.0, /*deterministic=*/false,
          /*sm_margin=*/0);
  return {dq, dk, dv};
#else
  TORCH_CHECK(false, "slidedp was built without FlashAttention-3 (nvcc < 12.3 or "
              "-DSLIDEDP_FLASH_ATTENTION_3=OFF)");
  return {};
#endif
}

}  // namespace slidedp::kernels
