#include "planner/policy.h"

#include <fmt/format.h>

#include <algorithm>

namespace slidedp::planner {

const char* layerActivationName(LayerActivation a) {
  switch (a) {
    case LayerActivation::kKeep: return "keep";
    case LayerActivation::kOffload: return "offload";
    case LayerActivation::kRecompute: return "recompute";
    case LayerActivation::kAttentionOutput: return "attention-output";
  }
  return "?";
}

std::vector<LayerActivation> Policy::layers(int64_t L) const {
  std::vector<LayerActivation> v(static_cast<size_t>(L));
  const int64_t kept = kept_layers < 0 ? L : std::min<int64_t>(kept_layers, L);
  const int64_t attn = std::clamp<int64_t>(attention_output_layers, 0, L - kept);
  const int64_t offl = offload ? L : std::max<int64_t>(offloaded_layers, 0);
  for (int64_t l = 0; l < L; ++l)
    v[l] = l < kept                 ? LayerActivation::kKeep
           : l < kept + attn        ? LayerActivation::kAttentionOutput
           : l < kept + attn + offl ? LayerActivation::kOffload
                                    : LayerActivation::kRecompute;
  return v;
}

namespace {
std::string elems(int64_t n) {
  if (n % (int64_t{1} << 20) == 0) return fmt::format("{}M", n >> 20);
  if (n % 1024 == 0) return fmt::format("{}K", n >> 10);
  return std::to_string(n);
}
}  // namespace

std::string Policy::label(int64_t L) const {
  const int64_t kept = kept_layers < 0 ? L : std::min<int64_t>(kept_layers, L);
  const int64_t attn = std::clamp<int64_t>(attention_output_layers, 0, L - kept);
  const int64_t offl = offload ? 0 : std::min<int64_t>(std::max(offloaded_layers, 0), L - kept - attn);
  return fmt::format("{}/{} c{} r{} K{} {}mb{} keep{}/{}{}{}{}{}", routeName(delivery), routeName(reduction),
                     elems(chunk_numel), ring_slots, window,
                     accumulation_steps > 1 ? fmt::format("ga{} ", accumulation_steps) : "",
                     micro_batch_rows > 0 ? std::to_string(micro_batch_rows) : "all", kept, L,
                     attn > 0 ? fmt::format(" attn{}", attn) : "",
                     offload && kept + attn < L ? " offl"
                     : offl > 0                 ? fmt::format(" offl{}", offl)
                                                : std::string(),
                     leader_threads > 0 ? fmt::format(" t{}", leader_threads) : "",
                     tail_units > 0 ? fmt::format(" tail{}", tail_units) : "");
}

std::string Policy::flags(int64_t L) const {
  const int64_t kept = kept_layers < 0 ? L : std::min<int64_t>(kept_layers, L);
  std::string f = fmt::format("--delivery {} --reduction {} --chunk-numel {} --ring-slots {} --window {} "
                              "--micro-batch-rows {}", routeName(delivery), routeName(reduction),
                              chunk_numel, ring_slots, window, micro_batch_rows);
  if (accumulation_steps > 1) f += fmt::format(" --gradient-accumulation-steps {}", accumulation_steps);
  const int64_t attn = std::clamp<int64_t>(attention_output_layers, 0, L - kept);
  if (kept >= L)
    f += " --activations keep";
  else if (kept == 0 && attn >= L)
    f += " --activations attention-output";
  else if (split_fills_budget)
    f += " --activations auto";
  else
    f += fmt::format(" --activations auto --max-kept-layers {}", kept);
  if (offload && kept + attn < L) f += " --offload-activations";
  if (leader_threads > 0) f += fmt::format(" --leader-threads {}", leader_threads);
  if (bf16_staging) f += " --grad-dtype bf16";
  if (tail_units > 0) f += fmt::format(" --update-tail-units {}", tail_units);
  return f;
}

void Policy::apply(TrainOptions& o, int64_t L) const {
  const int64_t kept = kept_layers < 0 ? L : std::min<int64_t>(kept_layers, L);
  o.delivery = delivery;
  o.reduction = reduction;
  o.chunk_numel = chunk_numel;
  o.ring_slots = ring_slots;
  o.window_slots = window;
  o.micro_batch_rows = micro_batch_rows;
  o.accumulation_steps = std::max<int64_t>(1, accumulation_steps);
  const int64_t attn = std::clamp<int64_t>(attention_output_layers, 0, L - kept);
  o.activations = kept == 0 && attn >= L ? ActivationPolicy::kAttentionOutput : ActivationPolicy::kAuto;
  o.max_kept_layers = split_fills_budget && kept < L ? -1 : static_cast<int>(kept);
  o.offload_activations = offload && kept + attn < L;
  o.leader_threads = leader_threads;
  o.bf16_staging = bf16_staging;
  o.update_tail_units = tail_units;
}

}  // namespace slidedp::planner
