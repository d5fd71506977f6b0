// Under mpirun, e.g. -np 9 --virtual-node-size=3 (3 nodes x 2 workers): a global batch with
// fewer rows than workers is refused by the Trainer's constructor, on every rank alike
// (AgreedError), before any start-up work. Before this check a worker without a row threw in
// step() while the leaders waited for its gradients: with the default wait (no deadline) the
// job hung (the harness's 120 s timeout named it); with TrainOptions::wait_timeout_s = 60 every
// rank failed after 60 s (issue 17, 3 nodes x 2 workers on the 4-row reference batch).
#include <gtest/gtest.h>
#include <mpi.h>
#include <unistd.h>

#include <chrono>
#include <string>

#include "runtime/rank_context.h"
#include "shm/segment.h"
#include "common/mpi_test_args.h"
#include "train/trainer.h"

using namespace slidedp;
using slidedp::test::arg;
using slidedp::test::sharedDir;

namespace {

/// Constructs a Trainer with `rows` and returns the AgreedError's message ("" when none was
/// thrown; another exception fails the test: the refusal must be agreed by every rank).
std::string constructionError(const RankContext& ctx, const std::string& model_dir, int64_t rows,
                              const std::string& shm_name) {
  TrainOptions o;
  o.batch_rows = rows;
  o.chunk_numel = 1000;
  o.leader_threads = 1;
  o.wait_timeout_s = 60;
  try {
    Trainer t(ctx, model_dir, o, shm_name);
  } catch (const AgreedError& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "rank " << ctx.world_rank << ": not an AgreedError: " << e.what();
    return e.what();
  }
  return "";
}

}  // namespace

TEST(TrainerBatchRows, FewerRowsThanWorkersIsRefusedBeforeStartUp) {
  RankOptions ropts;
  ropts.virtual_node_size = std::atoi(arg("virtual-node-size", "0").c_str());
  RankContext ctx = makeRankContext(ropts);
  const int G = ctx.num_workers;
  ASSERT_GE(G, 2) << "run with 2 workers or more";
  int pid0 = getpid();
  MPI_Bcast(&pid0, 1, MPI_INT, 0, MPI_COMM_WORLD);
  const std::string model = sharedDir() + "/models/stories260K";
  const std::string name = fmt::format("slidedp-rows-{}", pid0);

  // One row fewer than the workers (4 rows for 3 nodes x 2 workers when G = 6: two workers
  // would get none): refused, with the numbers and what to do, every rank the same message.
  const auto t0 = std::chrono::steady_clock::now();
  const std::string e = constructionError(ctx, model, G - 2, name);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_NE(e.find(fmt::format("the global batch has {} rows but there are {} workers ({} node(s) x {})",
                               G - 2, G, ctx.num_nodes, G / ctx.num_nodes)),
            std::string::npos)
      << "rank " << ctx.world_rank << ": " << e;
  EXPECT_NE(e.find(fmt::format("HINT: a global batch of {} rows or more", G)), std::string::npos) << e;
  for (int n = 0; n < ctx.num_nodes; ++n)
    EXPECT_FALSE(shm::Segment::exists(ctx.num_nodes > 1 ? fmt::format("{}-n{}", name, n) : name));
  if (ctx.world_rank == 0) std::printf("refused on every rank after %.3f s: %s\n", s, e.c_str());

  // Before start-up work: checked before the model is read (a directory without one is not
  // what is reported), and batch_rows must be given at all.
  const std::string e2 = constructionError(ctx, "/nonexistent/slidedp-model", G - 1, name);
  EXPECT_NE(e2.find(fmt::format("the global batch has {} rows", G - 1)), std::string::npos) << e2;
  const std::string e3 = constructionError(ctx, model, 0, name);
  EXPECT_NE(e3.find("TrainOptions::batch_rows must be the rows of the global batch (>= 1), got 0"),
            std::string::npos)
      << e3;

  // One row per worker is enough (the boundary): the Trainer starts.
  EXPECT_EQ(constructionError(ctx, model, G, name), "");
  freeRankContext(ctx);
}
