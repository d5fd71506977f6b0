#include "runtime/host_state_layout.h"

#include <fmt/format.h>

#include <cstdlib>
#include <string>

#include "common/errors.h"

namespace slidedp {

std::vector<int64_t> ModelShape::unitNumels() const {
  const int64_t C = hidden_size, hd = head_dim, q = num_heads * hd, kv = num_kv_heads * hd;
  int64_t layer = 2 * C                               // input + post-attention RMSNorm
                  + C * q + 2 * C * kv + q * C        // q, k, v, o projections
                  + 3 * C * intermediate_size;        // gate, up, down
  if (qkv_bias) layer += q + 2 * kv;
  if (qk_norm) layer += 2 * hd;
  std::vector<int64_t> n;
  n.push_back(vocab_size * C);
  for (int64_t l = 0; l < num_layers; ++l) n.push_back(layer);
  n.push_back(C + (tie_word_embeddings ? 0 : vocab_size * C));
  return n;
}

int64_t ModelShape::numParams() const {
  int64_t s = 0;
  for (int64_t v : unitNumels()) s += v;
  return s;
}

HostStateLayout HostStateLayout::build(const HostStateSpec& spec) {
  if (spec.num_workers < 1) throwUserError("host state needs >= 1 worker, got {}", spec.num_workers);
  if (spec.num_slots < 1) throwUserError("--ring-slots must be >= 1, got {}", spec.num_slots);
  if (spec.chunk_numel < 1) throwUserError("--chunk-numel must be >= 1");
  HostStateLayout h;
  const std::vector<int64_t> numels = spec.unitNumels();
  h.sharded = !spec.owned_numels.empty();
  if (h.sharded && spec.owned_numels.size() != numels.size())
    throwUserError("owned_numels has {} units, the model {}", spec.owned_numels.size(), numels.size());
  // Unit spans, each unit on a kUnitAlignElems boundary; returns the region's element count.
  auto spans = [](const std::vector<int64_t>& ns, std::vector<UnitSpan>& out, bool allow_empty) {
    uint64_t off = 0;
    for (int64_t n : ns) {
      if (n < 0 || (n == 0 && !allow_empty))
        throwUserError("model shape gives a unit with {} parameters", n);
      out.push_back({off, static_cast<uint64_t>(n)});
      off = (off + n + kUnitAlignElems - 1) / kUnitAlignElems * kUnitAlignElems;
    }
    return off;
  };
  const uint64_t off = spans(numels, h.units, false);
  const uint64_t owned = h.sharded ? spans(spec.owned_numels, h.owned, true) : off;
  if (!h.sharded) h.owned = h.units;
  if (spec.shard_copy && !h.sharded) throwUserError("a sharded delivery copy needs sharded state");
  h.copy_sharded = spec.shard_copy;
  h.copy = h.copy_sharded ? h.owned : h.units;
  h.param_region_numel = off;
  h.layout.add(kMasterRegion, shm::DType::kF32, owned);
  h.layout.add(kExpAvgRegion, shm::DType::kF32, owned);
  h.layout.add(kExpAvgSqRegion, shm::DType::kF32, owned);
  if (spec.leader_private_state) h.leader_only = {kMasterRegion, kExpAvgRegion, kExpAvgSqRegion};
  if (h.copy_sharded) {
    if (!spec.f32_delivery) h.layout.add(kComputeCopyRegion, shm::DType::kBF16, owned);
  } else if (h.sharded && spec.f32_delivery) {
    h.layout.add(kDeliveryF32Region, shm::DType::kF32, off);
  } else {
    h.layout.add(kComputeCopyRegion, shm::DType::kBF16, off);
  }
  h.layout.add(kStagingRegion, spec.grad_dtype,
               static_cast<uint64_t>(spec.num_slots) * spec.num_workers * spec.chunk_numel);
  if (spec.grad_accumulation) h.layout.add(kGradAccumRegion, shm::DType::kF32, owned);
  if (spec.token_row_words > 0)
    h.layout.add(kTokenRowsRegion, shm::DType::kU64, 2 * static_cast<uint64_t>(spec.token_row_words));
  if (spec.extra_bytes > 0) h.layout.add(kExtraRegion, shm::DType::kU8, spec.extra_bytes);
  return h;
}

bool optimizerStateInLeaderMemory(bool bf16_compute) {
  const char* e = std::getenv("SLIDEDP_OPTIMIZER_STATE");
  const std::string v = e != nullptr ? e : "";
  if (!v.empty() && v != "leader" && v != "shared")
    throwUserError("SLIDEDP_OPTIMIZER_STATE={}: expected leader (the default: with bf16 compute, "
                   "master and moments in the leader's own memory, with huge pages) or shared (in "
                   "the shared segment)", v);
  return bf16_compute && v != "shared";
}

std::string HostStateLayout::unitsToString() const {
  std::string s = fmt::format("{:<10} {:>14} {:>14}\n", "unit", "params", "offset(elems)");
  for (size_t u = 0; u < units.size(); ++u) {
    const std::string name = u == 0 ? "embed" : u + 1 == units.size() ? "head"
                                                                       : fmt::format("layer.{}", u - 1);
    s += fmt::format("{:<10} {:>14} {:>14}\n", name, units[u].numel, units[u].offset);
  }
  return s;
}

}  // namespace slidedp
