#include "runtime/rank_context.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "common/errors.h"
#include "common/log.h"

namespace slidedp {

const char* roleName(Role r) { return r == Role::kLeader ? "leader" : "worker"; }
const char* deviceName(DeviceKind d) { return d == DeviceKind::kCuda ? "cuda" : "cpu"; }

std::string RankContext::describe() const {
  if (role == Role::kLeader) return fmt::format("leader {} (node {})", world_rank, node_id);
  if (device == DeviceKind::kCuda)
    return fmt::format("worker {} (node {}, gpu {})", world_rank, node_id, gpu);
  return fmt::format("worker {} (node {}, cpu)", world_rank, node_id);
}

template <typename... Args>
[[noreturn]] static void throwAgreed(fmt::format_string<Args...> f, Args&&... args) {
  throw AgreedError(fmt::format(f, std::forward<Args>(args)...));
}

static int g_launched = -1;  // -1 unknown, 0 no, 1 yes

static bool launcherVariablesSet() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE",
                        "MPI_LOCALNRANKS", "SLURM_STEP_NUM_TASKS"})
    if (std::getenv(v) != nullptr) return true;
  return false;
}

void noteLaunchEnvironment() { g_launched = launcherVariablesSet() ? 1 : 0; }

bool startedByMpiLauncher() { return g_launched >= 0 ? g_launched == 1 : launcherVariablesSet(); }

void agreeOrThrow(MPI_Comm comm, bool ok, const std::string& message) {
  int rank = 0, size = 0;
  MPI_CHECK(MPI_Comm_rank(comm, &rank));
  MPI_CHECK(MPI_Comm_size(comm, &size));
  int mine = ok ? size : rank;  // the lowest failing rank wins the MIN
  int first = size;
  MPI_CHECK(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm));
  if (first == size) return;
  int len = rank == first ? static_cast<int>(message.size()) : 0;
  MPI_CHECK(MPI_Bcast(&len, 1, MPI_INT, first, comm));
  std::string text(static_cast<size_t>(len), '\0');
  if (rank == first) text = message;
  MPI_CHECK(MPI_Bcast(text.data(), len, MPI_CHAR, first, comm));
  throw AgreedError(text);
}

RankContext makeRankContext(const RankOptions& opts) {
  RankContext ctx;
  ctx.world = MPI_COMM_WORLD;
  MPI_CHECK(MPI_Comm_rank(ctx.world, &ctx.world_rank));
  MPI_CHECK(MPI_Comm_size(ctx.world, &ctx.world_size));
  char host[256] = {0};
  gethostname(host, sizeof(host) - 1);
  ctx.hostname = host;
  ctx.device = opts.device;

  if (ctx.world_size < 2) {
    if (!startedByMpiLauncher())
      throwAgreed(
          "slidedp_worker was started without mpirun. It runs as 1 host leader + G workers per "
          "node.\nHINT: mpirun -np 3 slidedp_worker ... (1 leader + 2 workers), or "
          "launcher/slidedp-run, which computes the rank count from --gpus");
    throwAgreed("slidedp_worker needs at least 2 ranks (1 host leader + at least 1 worker), "
                   "got {}.\nHINT: mpirun -np 1+G slidedp_worker ..., G = number of GPUs",
                   ctx.world_size);
  }
  if (opts.virtual_node_size < 0 || opts.virtual_node_size == 1)
    throwAgreed("--virtual-node-size must be 0 (real nodes) or >= 2, got {}",
                   opts.virtual_node_size);

  // Real shared-memory node, then (optionally) blocks of virtual_node_size within it.
  MPI_Comm shared = MPI_COMM_NULL;
  MPI_CHECK(MPI_Comm_split_type(ctx.world, MPI_COMM_TYPE_SHARED, ctx.world_rank, MPI_INFO_NULL,
                                &shared));
  int shared_rank = 0, shared_size = 0;
  MPI_CHECK(MPI_Comm_rank(shared, &shared_rank));
  MPI_CHECK(MPI_Comm_size(shared, &shared_size));
  if (opts.virtual_node_size >= 2) {
    int bad = shared_size % opts.virtual_node_size != 0 ? 1 : 0, any_bad = 0;
    MPI_CHECK(MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, ctx.world));
    if (any_bad) {
      MPI_CHECK(MPI_Comm_free(&shared));
      throwAgreed("--virtual-node-size {} does not divide the {} ranks of host {} (world size "
                  "{}): every virtual node is 1 leader + {} workers.\nHINT: start N x {} ranks "
                  "per host (mpirun -np {} for 2 virtual nodes)", opts.virtual_node_size,
                  shared_size, ctx.hostname, ctx.world_size, opts.virtual_node_size - 1,
                  opts.virtual_node_size, 2 * opts.virtual_node_size);
    }
    MPI_CHECK(MPI_Comm_split(shared, shared_rank / opts.virtual_node_size, shared_rank,
                             &ctx.node));
    MPI_CHECK(MPI_Comm_free(&shared));
  } else {
    ctx.node = shared;
  }
  MPI_CHECK(MPI_Comm_rank(ctx.node, &ctx.local_rank));
  MPI_CHECK(MPI_Comm_size(ctx.node, &ctx.local_size));
  ctx.role = ctx.local_rank == 0 ? Role::kLeader : Role::kWorker;

  // Leaders communicator; node ids are the leaders' ranks in it, broadcast within the node.
  MPI_CHECK(MPI_Comm_split(ctx.world, ctx.isLeader() ? 0 : MPI_UNDEFINED, ctx.world_rank,
                           &ctx.leaders));
  if (ctx.isLeader()) {
    MPI_CHECK(MPI_Comm_rank(ctx.leaders, &ctx.node_id));
    MPI_CHECK(MPI_Comm_size(ctx.leaders, &ctx.num_nodes));
  }
  int ids[2] = {ctx.node_id, ctx.num_nodes};
  MPI_CHECK(MPI_Bcast(ids, 2, MPI_INT, 0, ctx.node));
  ctx.node_id = ids[0];
  ctx.num_nodes = ids[1];

  MPI_CHECK(MPI_Comm_split(ctx.world, ctx.isLeader() ? MPI_UNDEFINED : 0, ctx.world_rank,
                           &ctx.workers));
  MPI_CHECK(MPI_Comm_split(ctx.node, ctx.isLeader() ? MPI_UNDEFINED : 0, ctx.local_rank,
                           &ctx.node_workers));
  if (!ctx.isLeader()) {
    MPI_CHECK(MPI_Comm_rank(ctx.workers, &ctx.worker_rank));
    MPI_CHECK(MPI_Comm_size(ctx.workers, &ctx.num_workers));
  }
  int nw = ctx.num_workers;
  MPI_CHECK(MPI_Allreduce(&nw, &ctx.num_workers, 1, MPI_INT, MPI_MAX, ctx.world));

  // Every node needs a worker; CUDA workers need a GPU each. GPUs belong to the physical
  // node: virtual nodes on one machine share its GPUs, so a worker's GPU is its index among
  // the workers of the physical node.
  std::string problem;
  if (ctx.local_size < 2)
    problem = fmt::format(
        "node {} ({}) has only its leader (world rank {}) and no worker. Every node needs "
        "1 leader + at least 1 worker.\nHINT: start 1+G ranks per node (mpirun -np 1+G, or "
        "--map-by ppr:1+G:node), and a --virtual-node-size that leaves every virtual node >= 2 "
        "ranks", ctx.node_id, ctx.hostname, ctx.world_rank);
  // The cross-node layouts give every node the same share of the batch and of the state
  // exchanges; a node with fewer workers would only be slower, but the hand-off protocol and
  // the per-node staging are sized for one G, so unequal nodes are refused.
  int sizes[2] = {ctx.local_size, -ctx.local_size}, range[2] = {0, 0};
  MPI_CHECK(MPI_Allreduce(sizes, range, 2, MPI_INT, MPI_MAX, ctx.world));
  if (problem.empty() && range[0] != -range[1])
    problem = fmt::format(
        "the nodes have different worker counts (between {} and {} per node; this node {} has "
        "{}). Every node runs 1 leader + the same G workers.\nHINT: --map-by ppr:1+G:node "
        "(launcher/slidedp-run --nodes N does it), and the same GPU count on every host",
        -range[1] - 1, range[0] - 1, ctx.node_id, ctx.local_size - 1);
  MPI_Comm physical = MPI_COMM_NULL;
  MPI_CHECK(MPI_Comm_split_type(ctx.world, MPI_COMM_TYPE_SHARED, ctx.world_rank, MPI_INFO_NULL,
                                &physical));
  int is_worker = ctx.isLeader() ? 0 : 1, workers_before = 0, workers_here = 0;
  MPI_CHECK(MPI_Exscan(&is_worker, &workers_before, 1, MPI_INT, MPI_SUM, physical));
  MPI_CHECK(MPI_Allreduce(&is_worker, &workers_here, 1, MPI_INT, MPI_SUM, physical));
  int physical_rank = 0;
  MPI_CHECK(MPI_Comm_rank(physical, &physical_rank));
  if (physical_rank == 0) workers_before = 0;  // MPI_Exscan leaves rank 0's result undefined
  MPI_CHECK(MPI_Comm_free(&physical));
  // Test-only: SLIDEDP_TEST_SHARE_GPU=1 puts every worker on GPU 0, so routes between workers
  // (CUDA IPC works between processes on one GPU; NCCL does not) run on a 1-GPU machine.
  const char* share_env = std::getenv("SLIDEDP_TEST_SHARE_GPU");
  const bool share_gpu = share_env && std::string(share_env) == "1";
  if (!ctx.isLeader() && ctx.device == DeviceKind::kCuda) {
    ctx.gpu = share_gpu ? 0 : workers_before;
    if (problem.empty() && workers_here > opts.visible_gpus && !(share_gpu && opts.visible_gpus >= 1)) {
      const char* cvd = std::getenv("CUDA_VISIBLE_DEVICES");
      problem = fmt::format(
          "host {} has {} workers but {} GPU(s) are visible{}. Each worker drives one GPU.\n"
          "HINT: start 1+{} ranks per node (or fewer virtual nodes), make more GPUs visible, "
          "or run CPU workers (launcher/slidedp-run --cpu-workers N; under mpirun directly: "
          "--device cpu)",
          ctx.hostname, workers_here, opts.visible_gpus,
          cvd ? fmt::format(" (CUDA_VISIBLE_DEVICES={})", cvd) : std::string(), opts.visible_gpus);
    }
  }
  agreeOrThrow(ctx.world, problem.empty(), problem);
  return ctx;
}

void freeRankContext(RankContext& ctx) {
  for (MPI_Comm* c : {&ctx.node, &ctx.workers, &ctx.node_workers, &ctx.leaders})
    if (*c != MPI_COMM_NULL) MPI_Comm_free(c);
}

std::string gatherLines(const RankContext& ctx, const std::string& line) {
  int len = static_cast<int>(line.size());
  std::vector<int> lens(ctx.world_rank == 0 ? ctx.world_size : 1), displs;
  MPI_CHECK(MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, ctx.world));
  std::string all;
  if (ctx.world_rank == 0) {
    int total = 0;
    for (int l : lens) displs.push_back(total), total += l;
    all.resize(static_cast<size_t>(total));
  }
  MPI_CHECK(MPI_Gatherv(line.data(), len, MPI_CHAR, all.data(), lens.data(), displs.data(),
                        MPI_CHAR, 0, ctx.world));
  if (ctx.world_rank != 0) return "";
  std::string out;
  for (int r = 0; r < ctx.world_size; ++r)
    if (lens[r] > 0) out += all.substr(displs[r], lens[r]) + "\n";
  return out;
}

std::string topologyTable(const RankContext& ctx) {
  const std::string mine = fmt::format(
      "{:>5} {:>5} {:>6} {:>6} {:<7} {:>7} {:>6} {:<4} {:>8} {}", ctx.world_rank, ctx.node_id,
      ctx.local_rank, ctx.local_size, roleName(ctx.role),
      ctx.worker_rank >= 0 ? std::to_string(ctx.worker_rank) : "-",
      ctx.gpu >= 0 ? std::to_string(ctx.gpu) : "-",
      ctx.isLeader() ? "host" : deviceName(ctx.device), getpid(), ctx.hostname);
  const std::string header = fmt::format(
      "{:>5} {:>5} {:>6} {:>6} {:<7} {:>7} {:>6} {:<4} {:>8} {}\n", "rank", "node", "local",
      "nlocal", "role", "worker", "gpu", "dev", "pid", "host");
  const std::string rows = gatherLines(ctx, mine);
  return ctx.world_rank == 0 ? header + rows : std::string();
}

}  // namespace slidedp
