// The delivery copy's all-gather across nodes, for the fully-sharded node layout (design.md,
// "Several nodes"; --node-layout fully-sharded): each node's segment holds only its parts of the
// copy (node p owns part p of every chunk: runtime/node_shards.h), laid out as its master. A
// worker that delivers elements [b, e) of unit u (the whole unit on the replicated route, its
// 1/G shard on the sharded ones) first gathers the chunks that overlap them into a host buffer,
// from its own node's parts and from the workers of the same index on every other node; the
// route then copies [b, e) from that buffer (Delivery::copyUnitRange).
//
// Traffic per delivery (forward, backward): each worker receives (N-1)/N of the chunks under its
// range: on the sharded routes about (N-1)/N of the unit per node, what the sharded layout's
// all-gather between the leaders moves once per step; on the replicated route G times that. The
// price of 2/N instead of 2 bytes per parameter of host memory per node. The leaders run the
// sharded layout's exchange without its all-gather (gradients reduce-scattered, each updates its
// part).
//
// Rank contract: constructed by every worker of every node (MPI_Comm_split over ctx.workers:
// collective); gather() called from the worker's main thread with the same (unit, range)
// sequence on the workers of one index on every node (the delivery's own contract), each after
// the worker saw its node's leader publish the unit's version. So every node's part is that
// version: a node's leader updates a part only after that node's workers handed in the unit's
// gradient, which follows their gather.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "runtime/chunk_plan.h"
#include "runtime/host_state_layout.h"
#include "runtime/node_shards.h"
#include "runtime/rank_context.h"

namespace slidedp::routes {

class NodeGather {
 public:
  /// `element_size`: bytes per element of the delivery copy (2: bf16, 4: fp32). Collective over
  /// ctx.workers.
  NodeGather(const RankContext& ctx, const ChunkPlan& plan, const HostStateLayout& state,
             size_t element_size);
  ~NodeGather();
  NodeGather(const NodeGather&) = delete;
  NodeGather& operator=(const NodeGather&) = delete;

  /// The chunks of unit u that overlap elements [b, e): their first element and element count
  /// (what gather() fills; NodeShards::coveringSpan).
  std::pair<int64_t, int64_t> span(int u, int64_t b, int64_t e) const;
  /// Fills `dst` ([span(u, b, e).second] elements) with elements span(u, b, e) of unit u: this
  /// node's parts from `mine` (the node's span of the delivery region: [state.copy[u].numel]
  /// elements), every other node's from its worker of this index (which asks for the same
  /// (u, b, e)). One nonblocking all-gather per chunk, then waits for all. Returns the span's
  /// first element.
  int64_t gather(int u, int64_t b, int64_t e, const void* mine, void* dst) const;

 private:
  struct ChunkGather {
    int64_t begin = 0, end = 0;  // the chunk's elements in the unit
    int64_t mine_offset = 0;     // this node's part, in its span of the copy
    int mine_count = 0;
    std::vector<int> counts, displs;  // per node, in elements, displs from `begin`
  };
  int N_ = 1;
  size_t es_ = 2;
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
  MPI_Comm peers_ = MPI_COMM_NULL;  // the workers of this index, one per node, by node id
  std::vector<std::vector<ChunkGather>> units_;  // [unit] -> its chunks in element order
  std::vector<std::vector<std::pair<int64_t, int64_t>>> ranges_;  // [unit] -> their [begin, end)
};

}  // namespace slidedp::routes
