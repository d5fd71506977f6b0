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
  int shared_rank = 0;
  MPI_CHECK(MPI_Comm_rank(shared, &shared_rank));
  if (opts.virtual_node_size >= 2) {
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
  if (!ctx.isLeader()) {
    MPI_CHECK(MPI_Comm_rank(ctx.workers, &ctx.worker_rank));
    MPI_CHECK(MPI_Comm_size(ctx.workers, &ctx.num_workers));
  }
  int nw = ctx.num_workers;
  MPI_CHECK(MPI_Allreduce(&nw, &ctx.num_workers, 1, MPI_INT, MPI_MAX, ctx.world));

  // Every node needs a worker; CUDA workers need a GPU each.
  std::string problem;
  if (ctx.local_size < 2)
    problem = fmt::format(
        "node {} ({}) has only its leader (world rank {}) and no worker. Every node needs "
        "1 leader + at least 1 worker.\nHINT: start 1+G ranks per node (mpirun -np 1+G, or "
        "--map-by ppr:1+G:node), and a --virtual-node-size that leaves every virtual node >= 2 "
        "ranks", ctx.node_id, ctx.hostname, ctx.world_rank);
  if (problem.empty() && !ctx.isLeader() && ctx.device == DeviceKind::kCuda) {
    const int workers_here = ctx.local_size - 1;
    if (workers_here > opts.visible_gpus)
      problem = fmt::format(
          "node {} ({}) has {} workers but {} GPU(s) are visible{}{}. Each worker drives one "
          "GPU.\nHINT: start 1+{} ranks on this node, or make more GPUs visible",
          ctx.node_id, ctx.hostname, workers_here, opts.visible_gpus,
          std::getenv("CUDA_VISIBLE_DEVICES") ? " (CUDA_VISIBLE_DEVICES=" : "",
          std::getenv("CUDA_VISIBLE_DEVICES")
              ? std::string(std::getenv("CUDA_VISIBLE_DEVICES")) + ")"
              : std::string(),
          opts.visible_gpus);
    ctx.gpu = ctx.local_rank - 1;
  }
  agreeOrThrow(ctx.world, problem.empty(), problem);
  return ctx;
}

void freeRankContext(RankContext& ctx) {
  for (MPI_Comm* c : {&ctx.node, &ctx.workers, &ctx.leaders})
    if (*c != MPI_COMM_NULL) MPI_Comm_free(c);
}

std::string topologyTable(const RankContext& ctx) {
  const std::string mine = fmt::format(
      "{:>5} {:>5} {:>6} {:>6} {:<7} {:>7} {:>6} {:<4} {:>8} {}", ctx.world_rank, ctx.node_id,
      ctx.local_rank, ctx.local_size, roleName(ctx.role),
      ctx.worker_rank >= 0 ? std::to_string(ctx.worker_rank) : "-",
      ctx.gpu >= 0 ? std::to_string(ctx.gpu) : "-",
      ctx.isLeader() ? "host" : deviceName(ctx.device), getpid(), ctx.hostname);
  constexpr int kLine = 160;
  char line[kLine] = {0};
  std::strncpy(line, mine.c_str(), kLine - 1);
  std::vector<char> all(ctx.world_rank == 0 ? static_cast<size_t>(kLine) * ctx.world_size : 1);
  MPI_CHECK(MPI_Gather(line, kLine, MPI_CHAR, all.data(), kLine, MPI_CHAR, 0, ctx.world));
  if (ctx.world_rank != 0) return "";
  std::string out = fmt::format("{:>5} {:>5} {:>6} {:>6} {:<7} {:>7} {:>6} {:<4} {:>8} {}\n",
                                "rank", "node", "local", "nlocal", "role", "worker", "gpu",
                                "dev", "pid", "host");
  for (int r = 0; r < ctx.world_size; ++r) out += std::string(&all[r * kLine]) + "\n";
  return out;
}

}  // namespace slidedp
