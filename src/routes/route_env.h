// What a route needs to know about its worker: the rank, the shared segment it reads units from,
// the unit layout, the device and dtypes, the window's shape. Built once by the worker and passed
// to every route it creates (routes/registry.h); read-only afterwards.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>

#include "model/param_layout.h"
#include "runtime/host_state_layout.h"
#include "runtime/rank_context.h"
#include "shm/segment.h"

namespace slidedp::routes {

class NodeGather;

struct RouteEnv {
  const RankContext* ctx = nullptr;
  const shm::Segment* seg = nullptr;
  const HostStateSpec* spec = nullptr;
  const HostStateLayout* state = nullptr;
  const model::ParamLayout* layout = nullptr;
  int G = 1;   // workers of this node (the ranks of ctx->node_workers)
  int w = 0;   // this worker's index among them (= local rank - 1)
  bool cuda = false;
  at::Device device = at::kCPU;
  at::ScalarType cdtype = at::kFloat;  // compute dtype: the window's elements
  at::ScalarType sdtype = at::kFloat;  // staging dtype: what a reduced gradient is handed off in
  int window_slots = 2;                // K
  int64_t window_numel = 0;            // elements per slot: max over its units of max(n, G * shard)
  /// > 0: one more slot, index K, of this many elements, for the unit the worker keeps from the
  /// forward through the head (the tied embedding: worker.cpp, "resident embedding"); the K
  /// rotating slots then hold the other units only. 0: no such slot.
  int64_t resident_numel = 0;
  /// Slots in all: K, plus the resident one.
  int slots() const { return window_slots + (resident_numel > 0 ? 1 : 0); }
  /// Elements of slot k (0 <= k < slots()).
  int64_t slotNumel(int k) const { return k < window_slots ? window_numel : resident_numel; }
  double wait_timeout_s = 300;         // bounded waits on peers (seconds)
  /// Fully sharded across nodes (state->copy_sharded): the worker's all-gather of a unit from
  /// every node's parts, run by Delivery::deliver() before the route's fill(); else null.
  const NodeGather* node_gather = nullptr;
};

}  // namespace slidedp::routes
