// Rank roles and communicators of a slidedp job (design.md, "Processes").
//
//   world    every rank
//   node     ranks sharing memory (MPI_Comm_split_type SHARED), optionally split further into
//            "virtual nodes" of a fixed size to test multi-node logic on one machine
//   workers       every worker of every node (the global token count)
//   node_workers  the workers of this node (the routes' NCCL/MPI collectives between GPUs)
//   leaders       the node-local rank 0 of every node (one per node, by construction): the
//                 cross-node exchange of gradients and parameters (leader/node_layout.h)
//
// Node-local rank 0 is the host leader; node-local ranks 1..G are workers on GPU
// local_rank - 1 (or CPU workers in a CPU run).
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "common/errors.h"

namespace slidedp {

enum class Role { kLeader, kWorker };
enum class DeviceKind { kCpu, kCuda };

const char* roleName(Role r);
const char* deviceName(DeviceKind d);

/// A configuration error every rank agreed on (see agreeOrThrow): each rank exits cleanly
/// with status 2 and rank 0 prints the message once.
class AgreedError : public UserError {
 public:
  using UserError::UserError;
};

struct RankOptions {
  /// Ranks per virtual node (0 = use the real shared-memory nodes). Lets one machine act
  /// as several nodes: ranks are grouped in consecutive blocks of this size within each real
  /// node (1 leader + size - 1 workers each); the ranks of a real node must be a multiple of it.
  int virtual_node_size = 0;
  /// Device of the workers.
  DeviceKind device = DeviceKind::kCpu;
  /// GPUs visible to this process (used only with kCuda; -1 = ask the CUDA runtime).
  int visible_gpus = -1;
};

struct RankContext {
  MPI_Comm world = MPI_COMM_NULL;
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm workers = MPI_COMM_NULL;  // MPI_COMM_NULL on leaders
  MPI_Comm node_workers = MPI_COMM_NULL;  // this node's workers; MPI_COMM_NULL on leaders
  MPI_Comm leaders = MPI_COMM_NULL;  // MPI_COMM_NULL on workers
  int world_rank = 0, world_size = 0;
  int node_id = 0, num_nodes = 0;     // index of this (virtual) node, number of nodes
  int local_rank = 0, local_size = 0; // within the node
  int worker_rank = -1, num_workers = 0;  // among all workers (-1 on leaders)
  Role role = Role::kLeader;
  DeviceKind device = DeviceKind::kCpu;
  int gpu = -1;  // CUDA device of a CUDA worker: its index among the workers of its
                 // physical node (= local_rank - 1 without virtual nodes), else -1; 0 for
                 // every worker under the test-only SLIDEDP_TEST_SHARE_GPU=1
  std::string hostname;

  bool isLeader() const { return role == Role::kLeader; }
  /// "leader 0 (node 0)", "worker 2 (node 0, gpu 1)".
  std::string describe() const;
};

/// Records whether this process was started by an MPI launcher (mpirun/mpiexec/srun with
/// PMI(x)). Call before MPI_Init: a singleton MPI_Init sets the same variables itself.
void noteLaunchEnvironment();
/// What noteLaunchEnvironment() saw (or, if it was not called, the environment now).
bool startedByMpiLauncher();

/// Builds the communicators and roles. Collective over MPI_COMM_WORLD; every rank must
/// call it once after MPI_Init. Throws UserError on every rank (after agreeing) when the job
/// has fewer than 2 ranks, a node has no worker, the nodes have different worker counts, a
/// real node's rank count is not a multiple of the virtual node size, or a node has more
/// workers than GPUs.
RankContext makeRankContext(const RankOptions& opts);

/// Frees the communicators (not world). Collective.
void freeRankContext(RankContext& ctx);

/// Collective over `comm`: if any rank passes ok=false, every rank throws UserError with the
/// message of the lowest failing rank (as AgreedError) (so configuration errors end every rank cleanly, with
/// one message, instead of hanging the ones that passed).
void agreeOrThrow(MPI_Comm comm, bool ok, const std::string& message);

/// Gathers one line of text per rank to world rank 0, in rank order (returned there, one
/// per line, empty lines skipped; "" elsewhere). Collective over ctx.world.
std::string gatherLines(const RankContext& ctx, const std::string& line);

/// One line per rank, gathered to world rank 0 (returned there; "" elsewhere). Collective.
std::string topologyTable(const RankContext& ctx);

}  // namespace slidedp
