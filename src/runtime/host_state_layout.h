// The regions of the host state in the node's segment (design.md, "The shared host state"):
// FP32 master weights, Adam moments m and v, the bf16 copy for delivery (14 bytes/param),
// plus a bounded gradient staging ring of num_slots x G x chunk_numel elements.
// Sharded across N nodes (leader/node_layout.h), master, m, v (and the clipping region) hold
// only the elements this node owns (runtime/node_shards.h: 1/N of every chunk), 12/N bytes per
// parameter, while the delivery copy the workers read stays whole: bf16 (2 B/param) or, for
// fp32 compute, fp32 (4 B/param). Fully sharded (shard_copy), the bf16 copy too holds only the
// node's parts, laid out as master (2/N B/param; fp32 compute delivers from the master itself),
// and the workers all-gather each unit across the nodes as they deliver it (routes/node_gather.h).
// Parameters are stored per layer unit as one flat buffer (embedding, each decoder layer,
// final norm + LM head); every unit starts on a 4 KiB boundary inside each region, so a
// unit moves as one transfer and a chunk is a contiguous range of it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "shm/layout.h"

namespace slidedp {

/// Dimensions of a Llama-family decoder, enough to size its units (names as in HF configs).
struct ModelShape {
  int64_t vocab_size = 512;          // V
  int64_t hidden_size = 64;          // C
  int64_t intermediate_size = 172;
  int64_t num_layers = 5;            // L
  int64_t num_heads = 8;             // H
  int64_t num_kv_heads = 4;
  int64_t head_dim = 8;
  bool tie_word_embeddings = true;
  bool qkv_bias = false;             // Qwen2
  bool qk_norm = false;              // Qwen3

  /// Parameters of unit u: 0 = embedding, 1..L = decoder layers, L+1 = final norm (+ head).
  std::vector<int64_t> unitNumels() const;
  int64_t numParams() const;
};

/// Whether master, m and v go in the leader's own memory (HostStateSpec::leader_private_state):
/// with bf16 compute no worker reads the master (its delivery copy is the bf16 region), so yes,
/// unless SLIDEDP_OPTIMIZER_STATE=shared keeps them in the segment (an A/B of the placement);
/// "leader" or unset: the default. Throws UserError for any other value of the variable.
bool optimizerStateInLeaderMemory(bool bf16_compute);

/// Where each unit lives inside the per-parameter regions (offsets in elements).
struct UnitSpan {
  uint64_t offset = 0;  // elements from the region start; multiple of kUnitAlignElems
  uint64_t numel = 0;
};

inline constexpr uint64_t kUnitAlignElems = 1024;  // 4 KiB of fp32

struct HostStateSpec {
  ModelShape model;             // sizes the units unless unit_numels is given
  std::vector<int64_t> unit_numels;  // the model's real unit sizes (model::ParamLayout)
  int num_workers = 1;          // G on this node
  int num_slots = 4;            // staging ring depth
  uint64_t chunk_numel = 1 << 20;
  shm::DType grad_dtype = shm::DType::kF32;
  uint64_t extra_bytes = 0;     // an extra u8 region (tests: oversized segments)
  bool grad_accumulation = false;  // a full fp32 gradient region (exact global-norm clipping)
  int64_t token_row_words = 0;  // > 0: the row-split embedding update's token-row bitmaps,
                                // 2 (by step parity) x this many u64 words (TokenRows)
  /// Sharded across nodes: per unit, the elements this node owns (NodeShards::owned_numels);
  /// master, m, v and the clipping region are sized by it. Empty: every element (one node, or
  /// the replicated layout).
  std::vector<int64_t> owned_numels;
  /// Sharded across nodes with fp32 compute: the delivery copy is a whole fp32 region
  /// (kDeliveryF32Region) instead of the bf16 one (the master holds only this node's part).
  bool f32_delivery = false;
  /// Sharded across nodes, fully: the delivery copy holds only this node's parts too (spans
  /// HostStateLayout::copy = owned); fp32 compute then delivers from the master's parts.
  bool shard_copy = false;
  /// Master, m and v in the leader's own memory (shm::LeaderRegions: transparent huge pages),
  /// not in the shared segment. Only where no worker reads the master: bf16 compute, whose
  /// delivery copy is a region of its own (fp32 compute delivers from the master, see
  /// deliveryRegion). See HostStateLayout::leader_only.
  bool leader_private_state = false;

  std::vector<int64_t> unitNumels() const {
    return unit_numels.empty() ? model.unitNumels() : unit_numels;
  }
};

struct HostStateLayout {
  shm::Layout layout;            // regions, without the segment's own header/control
  std::vector<UnitSpan> units;   // whole units: every element of each, 4 KiB aligned
  std::vector<UnitSpan> owned;   // spans in master / m / v / clipping (= units unless sharded)
  std::vector<UnitSpan> copy;    // spans in the delivery region (= owned if copy_sharded, else units)
  bool sharded = false;          // master/m/v hold only this node's part
  bool copy_sharded = false;     // the delivery region holds only this node's part too
  uint64_t param_region_numel = 0;
  /// Regions of `layout` only the leader touches, for shm::Segment::create's `leader_only`
  /// (HostStateSpec::leader_private_state: master, m, v); empty: all shared.
  std::vector<std::string> leader_only;

  static HostStateLayout build(const HostStateSpec& spec);
  /// Element offset of (slot, worker) in the staging region.
  static uint64_t stagingOffset(const HostStateSpec& spec, int slot, int worker) {
    return (static_cast<uint64_t>(slot) * spec.num_workers + worker) * spec.chunk_numel;
  }
  std::string unitsToString() const;
};

// Region names (shared by leader and workers).
inline constexpr const char* kMasterRegion = "state.master.f32";
inline constexpr const char* kExpAvgRegion = "state.exp_avg.f32";
inline constexpr const char* kExpAvgSqRegion = "state.exp_avg_sq.f32";
inline constexpr const char* kComputeCopyRegion = "state.params.bf16";
inline constexpr const char* kStagingRegion = "grad.staging";
inline constexpr const char* kExtraRegion = "extra";
inline constexpr const char* kGradAccumRegion = "grad.accum.f32";
inline constexpr const char* kTokenRowsRegion = "embed.token_rows.u64";
inline constexpr const char* kDeliveryF32Region = "state.params.f32";  // sharded, fp32 compute

/// The region a worker delivers units from (its spans: HostStateLayout::copy): the FP32 master
/// (fp32 compute, every element on this node, or this node's parts when the copy is sharded
/// too), the whole fp32 copy (fp32 compute, sharded across nodes) or the bf16 copy.
inline const char* deliveryRegion(const HostStateLayout& h, bool fp32_compute) {
  return !fp32_compute ? kComputeCopyRegion
         : h.sharded && !h.copy_sharded ? kDeliveryF32Region
                                        : kMasterRegion;
}

}  // namespace slidedp
