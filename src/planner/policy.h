// A policy: every knob of a run that changes speed but not the result (design.md, "The
// step-time model and policies"): delivery x reduction route, gradient chunk size, staging ring
// depth, GPU window depth, micro-batch rows, gradient accumulation steps, the per-layer
// activation choice, the leader's AdamW threads and the update tail. The planner prices policies (cost_model.h), searches them (search.h) and maps
// the chosen one onto TrainOptions / command-line flags (what `--policy auto` runs).
//
// Per decoder layer the activation choice is four-way: keep (the tensors its backward needs
// stay on the GPU), attention output (its input, attention output and log-sum-exp stay on the
// GPU; backward recomputes the projections and element-wise parts, never the attention),
// offload (only its input is kept, in pinned host memory, D2H in forward and H2D one layer
// ahead in backward; backward recomputes the forward) or recompute (only its input is kept, on
// the GPU). The runtime keeps layers in forward order (--max-kept-layers N: layers 1..N), then
// keeps the attention output of the next ones while its budget holds (auto), and offloads the
// inputs of every recomputed layer (--offload-activations) or of the first ones, as many as the
// GPU cannot hold (worker/input_placement.h), so the policies it can run are described by
// (kept_layers, attention_output_layers, offload, offloaded_layers); the cost model takes the
// general per-layer vector.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/train_options.h"

namespace slidedp::planner {

enum class LayerActivation : uint8_t { kKeep, kOffload, kRecompute, kAttentionOutput };
const char* layerActivationName(LayerActivation a);

struct Policy {
  DeliveryRoute delivery = DeliveryRoute::kReplicated;
  ReductionRoute reduction = ReductionRoute::kCpu;
  int64_t chunk_numel = int64_t{1} << 22;  // elements per gradient chunk (--chunk-numel)
  int ring_slots = 4;                      // staging ring depth (--ring-slots)
  int window = 2;                          // GPU window depth K (--window)
  int64_t micro_batch_rows = 0;            // rows per micro-batch (0: all of an accumulation
                                           // step's rows)
  int64_t accumulation_steps = 1;          // forward + backward passes per step
                                           // (--gradient-accumulation-steps), each over 1/N of a
                                           // worker's rows, the model delivered again for each
  int kept_layers = -1;                    // layers 1..kept keep activations (-1: all)
  int attention_output_layers = 0;         // the next layers keep their attention output only
  bool split_fills_budget = false;         // (kept_layers, attention_output_layers) is the most
                                           // the budget holds by the model (search.h
                                           // autoLayerSplit): the run keeps what its own
                                           // measured memory holds instead (no cap), at least
                                           // this where the model's memory is right
  bool offload = false;                    // recomputed layers' inputs in pinned host memory
  int offloaded_layers = 0;                // without `offload`: the first this many recomputed
                                           // layers' inputs in pinned host memory (the runtime's
                                           // placement when the GPU cannot hold them all)
  int leader_threads = 0;                  // AdamW threads (0: every leader core)
  int tail_units = 0;                      // update tail (--update-tail-units): layers 1..M
                                           // handed off after the embedding; with an early
                                           // agreement (earlyAgreement) the next forward runs
                                           // beside their update
  bool bf16_staging = false;               // gradients cross in bf16 (--grad-dtype bf16)

  /// Per decoder layer 1..L (index 0 = layer 1), from kept_layers, attention_output_layers,
  /// offload and offloaded_layers.
  std::vector<LayerActivation> layers(int64_t L) const;
  /// "sharded/gpu c4M r4 K2 mb4 keep30/36 offl t12 tail16".
  std::string label(int64_t L) const;
  /// The slidedp_worker flags that run this policy (offloaded_layers has none: the runtime
  /// places the inputs itself, worker/input_placement.h).
  std::string flags(int64_t L) const;
  /// Writes the policy into run options (activations auto capped at kept_layers, so the
  /// runtime's memory check still protects the budget; its auto then keeps the attention
  /// output of the next layers as the budget allows, as attention_output_layers predicts;
  /// every layer attention output: --activations attention-output). With split_fills_budget
  /// no cap: the runtime's auto fills the budget by its measured memory, which the model's
  /// estimate bounds from above (1xH100, Qwen3-4B, 8 x 4096: the model 27 whole keeps, the
  /// runtime 29 and 0.9% faster, tools/bench/results/2026-12-07a-session16).
  void apply(TrainOptions& o, int64_t L) const;
};

}  // namespace slidedp::planner
