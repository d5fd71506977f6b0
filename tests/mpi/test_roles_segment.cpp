// Under mpirun with 2, 3, 5 ranks (and as virtual nodes): rank roles and communicators,
// the node segment created by the leader and mapped by its workers, data and counters
// handed between processes.
#include <gtest/gtest.h>
#include <mpi.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include "common/errors.h"
#include "runtime/host_state_layout.h"
#include "runtime/rank_context.h"
#include "runtime/staging_handoff.h"
#include "shm/segment.h"

using namespace slidedp;

namespace {

int virtualNodeSize() {
  for (const auto& a : testing::internal::GetArgvs())
    if (a.rfind("--virtual-node-size=", 0) == 0) return std::stoi(a.substr(20));
  return 0;
}

RankContext context() {
  RankOptions o;
  o.virtual_node_size = virtualNodeSize();
  return makeRankContext(o);
}

std::string segmentName(const RankContext& ctx, const char* tag) {
  int pid0 = ctx.world_rank == 0 ? getpid() : 0;
  MPI_Bcast(&pid0, 1, MPI_INT, 0, ctx.world);
  return fmt::format("slidedp-mpitest-{}-{}-n{}", tag, pid0, ctx.node_id);
}

}  // namespace

TEST(Roles, LeaderIsLocalRankZeroAndCommunicatorsAreConsistent) {
  RankContext ctx = context();
  EXPECT_EQ(ctx.isLeader(), ctx.local_rank == 0);
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  EXPECT_EQ(ctx.world_size, size);
  // One leader per node, by construction.
  int leaders_here = ctx.isLeader() ? 1 : 0, leaders_on_node = 0, leaders_total = 0;
  MPI_Allreduce(&leaders_here, &leaders_on_node, 1, MPI_INT, MPI_SUM, ctx.node);
  MPI_Allreduce(&leaders_here, &leaders_total, 1, MPI_INT, MPI_SUM, ctx.world);
  EXPECT_EQ(leaders_on_node, 1);
  EXPECT_EQ(leaders_total, ctx.num_nodes);
  EXPECT_EQ(ctx.num_workers, ctx.world_size - ctx.num_nodes);
  if (ctx.isLeader()) {
    EXPECT_NE(ctx.leaders, MPI_COMM_NULL);
    EXPECT_EQ(ctx.workers, MPI_COMM_NULL);
    EXPECT_EQ(ctx.worker_rank, -1);
  } else {
    EXPECT_EQ(ctx.leaders, MPI_COMM_NULL);
    int n = 0;
    MPI_Comm_size(ctx.workers, &n);
    EXPECT_EQ(n, ctx.num_workers);
    EXPECT_GE(ctx.worker_rank, 0);
    EXPECT_LT(ctx.worker_rank, ctx.num_workers);
  }
  // The node's workers: G = local_size - 1 of them, in local-rank order.
  if (!ctx.isLeader()) {
    int n = 0, r = -1;
    MPI_Comm_size(ctx.node_workers, &n);
    MPI_Comm_rank(ctx.node_workers, &r);
    EXPECT_EQ(n, ctx.local_size - 1);
    EXPECT_EQ(r, ctx.local_rank - 1);
  } else {
    EXPECT_EQ(ctx.node_workers, MPI_COMM_NULL);
  }
  // Virtual nodes: consecutive blocks of the requested size in rank order.
  const int v = virtualNodeSize();
  if (v > 0) {
    EXPECT_EQ(ctx.node_id, ctx.world_rank / v);
    EXPECT_EQ(ctx.local_rank, ctx.world_rank % v);
    EXPECT_EQ(ctx.num_nodes, (ctx.world_size + v - 1) / v);
  } else {
    EXPECT_EQ(ctx.num_nodes, 1);
    EXPECT_EQ(ctx.local_rank, ctx.world_rank);
  }
  const std::string table = topologyTable(ctx);
  if (ctx.world_rank == 0) {
    EXPECT_NE(table.find("leader"), std::string::npos);
    EXPECT_NE(table.find("worker"), std::string::npos);
  }
  freeRankContext(ctx);
}

TEST(Roles, VirtualNodeSizeThatDoesNotDivideIsRefused) {
  // world - 1 divides world only for world = 2; on 3+ ranks every rank gets the same error.
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 3) GTEST_SKIP() << "needs >= 3 ranks (a virtual node size of world - 1 that does not divide)";
  RankOptions o;
  o.virtual_node_size = size - 1;
  try {
    RankContext ctx = makeRankContext(o);
    freeRankContext(ctx);
    FAIL() << "virtual node size " << size - 1 << " of " << size << " ranks was accepted";
  } catch (const AgreedError& e) {
    EXPECT_NE(std::string(e.what()).find("does not divide"), std::string::npos) << e.what();
  }
}

TEST(Roles, AgreeOrThrowGivesEveryRankTheSameMessage) {
  RankContext ctx = context();
  const int bad = ctx.world_size - 1;
  try {
    agreeOrThrow(ctx.world, ctx.world_rank != bad, fmt::format("rank {} is unhappy", bad));
    FAIL() << "no rank threw";
  } catch (const AgreedError& e) {
    EXPECT_EQ(std::string(e.what()), fmt::format("rank {} is unhappy", bad));
  }
  EXPECT_NO_THROW(agreeOrThrow(ctx.world, true, ""));
  freeRankContext(ctx);
}

TEST(Segment, LeaderCreatesWorkersMapDataFlowsBothWays) {
  RankContext ctx = context();
  const std::string name = segmentName(ctx, "map");
  shm::Layout layout;
  layout.add("slots", shm::DType::kI64, 64 * 16);
  shm::Segment seg;
  if (ctx.isLeader()) seg = shm::Segment::create(name, 99, layout, {uint32_t(ctx.local_size), 3, 2});
  MPI_Barrier(ctx.world);
  if (!ctx.isLeader()) seg = shm::Segment::open(name, 99, 10.0);
  ASSERT_NE(seg.base(), nullptr);
  EXPECT_EQ(seg.control().numRanks(), static_cast<uint32_t>(ctx.local_size));
  int64_t* slots = seg.regionAs<int64_t>("slots");
  // Each rank writes its identity into its own cache line; everybody reads everybody's.
  slots[ctx.local_rank * 8] = 1000 + ctx.world_rank;
  MPI_Barrier(ctx.node);
  int world_of_local = 0;
  for (int r = 0; r < ctx.local_size; ++r) {
    world_of_local = ctx.world_rank - ctx.local_rank + r;
    EXPECT_EQ(slots[r * 8], 1000 + world_of_local) << "local rank " << r;
  }
  MPI_Barrier(ctx.node);
  if (!ctx.isLeader()) seg = shm::Segment();
  MPI_Barrier(ctx.node);
  if (ctx.isLeader()) seg = shm::Segment();  // owner removes
  MPI_Barrier(ctx.world);
  EXPECT_FALSE(shm::Segment::exists(name));
  freeRankContext(ctx);
}

TEST(Segment, CounterHandOffThroughTheStagingRing) {
  RankContext ctx = context();
  const std::string name = segmentName(ctx, "handoff");
  HostStateSpec spec;
  spec.num_workers = ctx.local_size - 1;
  spec.num_slots = 3;           // rounds wrap the ring many times
  spec.chunk_numel = 10007;     // does not divide anything
  const HostStateLayout state = HostStateLayout::build(spec);
  shm::Segment seg;
  if (ctx.isLeader())
    seg = shm::Segment::create(name, 5, state.layout,
                               {uint32_t(ctx.local_size), uint32_t(state.units.size()), 3});
  MPI_Barrier(ctx.world);
  if (!ctx.isLeader()) seg = shm::Segment::open(name, 5, 10.0);
  const HandoffStats st = runStagingHandoff(ctx, seg, spec, state, 301, 60.0);
  EXPECT_EQ(st.rounds, 301u);
  EXPECT_EQ(st.elements_per_chunk, 10007u);
  if (ctx.isLeader()) {
    // Every worker published every use of every slot, and the leader consumed them all.
    for (uint32_t s = 0; s < 3; ++s)
      for (int r = 1; r < ctx.local_size; ++r) {
        const uint64_t uses = (301 - s + 2) / 3;
        EXPECT_EQ(seg.control().chunkReady(s, r).load(), uses);
        EXPECT_EQ(seg.control().chunkConsumed(s, r).load(), uses);
      }
  }
  MPI_Barrier(ctx.node);
  if (!ctx.isLeader()) seg = shm::Segment();
  MPI_Barrier(ctx.node);
  seg = shm::Segment();
  MPI_Barrier(ctx.world);
  EXPECT_FALSE(shm::Segment::exists(name));
  freeRankContext(ctx);
}
