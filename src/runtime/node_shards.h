// Which elements of the model each node owns when the state is sharded across N nodes
// (design.md, "Several nodes"; leader/node_layout.h): every chunk of the ChunkPlan is cut into N
// parts (ChunkPlan::shard(chunk numel, N, p): equal, 64-element aligned, the last ones shorter or
// empty) and node p owns part p of every chunk. Cutting every chunk, rather than every unit,
// gives each leader 1/N of every chunk's update, so the N leaders work in parallel on each chunk
// as it arrives (a per-unit cut would leave all but one leader idle for most chunks).
//
// A node's part of unit u is stored in its owned regions (master, m, v, clipping) as the
// concatenation of its parts of u's chunks in element order. The mapping depends on the chunk
// size, so a sharded checkpoint records it (chunk_numel) and a resume checks it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "runtime/chunk_plan.h"

namespace slidedp {

/// Node p's part of one chunk, in unit elements [begin, end), stored at element `offset` of the
/// node's storage of the unit (add HostStateLayout::owned[unit].offset for the region).
struct OwnedPart {
  int64_t begin = 0, end = 0;
  int64_t offset = 0;
  int64_t numel() const { return end - begin; }
};

struct NodeShards {
  int num_nodes = 1;  // N
  int node = 0;       // p, this node
  std::vector<OwnedPart> parts;        // [chunk index of the plan]: node p's part
  std::vector<int64_t> owned_numels;   // [unit]: elements node p owns

  /// Node `node`'s parts of every chunk of `plan`. Pure; any rank may build any node's shards
  /// (the export gathers with them). Throws UserError when num_nodes < 1 or node is out of range.
  static NodeShards build(const ChunkPlan& plan, int num_nodes, int node);

  /// The element counts of chunk `c`'s N parts, in node order (MPI recvcounts); sums to c.numel().
  static std::vector<int> partCounts(const Chunk& c, int num_nodes);

  /// [unit] -> the [begin, end) of its whole-pass chunks (ChunkPass::kWhole), in element order.
  static std::vector<std::vector<std::pair<int64_t, int64_t>>> unitChunkRanges(const ChunkPlan& plan);
  /// Of one unit's chunk ranges (in element order), those that overlap elements [b, e): the
  /// first one's begin and the element count up to the last one's end; {b, 0} when none does.
  static std::pair<int64_t, int64_t> coveringSpan(const std::vector<std::pair<int64_t, int64_t>>& chunks,
                                                  int64_t b, int64_t e);
  /// Fully sharded (routes/node_gather.h): elements of the largest span one of G workers gathers
  /// for one delivery, the chunks under its range (the whole largest unit on the replicated
  /// route; its 1/G shard widened to chunk bounds on the sharded ones): each gather buffer's
  /// size. Pure.
  static int64_t gatherSpanNumel(const ChunkPlan& plan, int G, bool sharded_route);
  /// Host bytes of a node's G workers' gather buffers: `buffers` each (1 on CPU workers, the
  /// window slots on GPU workers) of gatherSpanNumel elements of `element_size` bytes.
  static uint64_t gatherBufferBytes(const ChunkPlan& plan, int G, bool sharded_route, int buffers,
                                    size_t element_size);
};

}  // namespace slidedp
