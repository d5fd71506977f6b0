#include "routes/node_gather.h"

#include <algorithm>

#include "common/errors.h"

namespace slidedp::routes {

NodeGather::NodeGather(const RankContext& ctx, const ChunkPlan& plan, const HostStateLayout& state,
                       size_t element_size)
    : N_(ctx.num_nodes), es_(element_size) {
  SLIDEDP_ASSERT(!ctx.isLeader() && ctx.workers != MPI_COMM_NULL, "NodeGather is for workers");
  SLIDEDP_ASSERT(state.copy_sharded, "NodeGather needs a delivery copy sharded across nodes");
  SLIDEDP_ASSERT(es_ == 2 || es_ == 4, "delivery copy element of {} bytes", es_);
  type_ = es_ == 2 ? MPI_UINT16_T : MPI_FLOAT;
  MPI_CHECK(MPI_Comm_split(ctx.workers, ctx.local_rank, ctx.node_id, &peers_));
  int size = 0;
  MPI_CHECK(MPI_Comm_size(peers_, &size));
  SLIDEDP_ASSERT(size == N_, "{} workers of local rank {} across {} nodes", size, ctx.local_rank, N_);
  const NodeShards mine = NodeShards::build(plan, N_, ctx.node_id);
  units_.resize(state.units.size());
  for (int64_t i = 0; i < plan.chunksPerStep(); ++i) {
    const Chunk& c = plan.chunks[i];
    if (c.pass != ChunkPass::kWhole) continue;  // the row-split embedding is never cut across nodes
    ChunkGather g;
    g.begin = c.begin;
    g.end = c.end;
    g.mine_offset = mine.parts[i].offset;
    g.mine_count = static_cast<int>(mine.parts[i].numel());
    g.counts = NodeShards::partCounts(c, N_);
    g.displs.resize(N_);
    for (int p = 0, d = 0; p < N_; ++p) g.displs[p] = d, d += g.counts[p];
    units_[c.unit].push_back(std::move(g));
  }
  for (auto& chunks : units_)
    std::sort(chunks.begin(), chunks.end(),
              [](const ChunkGather& a, const ChunkGather& b) { return a.begin < b.begin; });
  ranges_ = NodeShards::unitChunkRanges(plan);
}

NodeGather::~NodeGather() {
  if (peers_ != MPI_COMM_NULL) MPI_Comm_free(&peers_);
}

std::pair<int64_t, int64_t> NodeGather::span(int u, int64_t b, int64_t e) const {
  return NodeShards::coveringSpan(ranges_.at(static_cast<size_t>(u)), b, e);
}

int64_t NodeGather::gather(int u, int64_t b, int64_t e, const void* mine, void* dst) const {
  int64_t first = b;  // the first overlapping chunk's begin (chunks are in element order)
  std::vector<MPI_Request> requests;
  const char* src = static_cast<const char*>(mine);
  char* out = static_cast<char*>(dst);
  for (const ChunkGather& g : units_.at(static_cast<size_t>(u))) {
    if (g.end <= b || g.begin >= e) continue;
    if (requests.empty()) first = g.begin;
    requests.push_back(MPI_REQUEST_NULL);
    MPI_CHECK(MPI_Iallgatherv(src + g.mine_offset * es_, g.mine_count, type_,
                              out + (g.begin - first) * es_, g.counts.data(), g.displs.data(), type_,
                              peers_, &requests.back()));
  }
  if (!requests.empty())
    MPI_CHECK(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE));
  return first;
}

}  // namespace slidedp::routes
