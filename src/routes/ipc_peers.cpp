// CUDA IPC set-up, handshake and tear-down shared by the IPC routes (see ipc_peers.h).
#include "routes/ipc_peers.h"

#include <array>
#include <cstring>
#include <exception>
#include <new>

#include "common/errors.h"
#include "cuda/checks.h"

namespace slidedp::routes {

namespace {

constexpr int kBusIdBytes = 64;

template <class T>
std::vector<T> allgather(const T& mine, MPI_Comm comm, int n) {
  std::vector<T> all(n);
  MPI_CHECK(MPI_Allgather(&mine, sizeof(T), MPI_BYTE, all.data(), sizeof(T), MPI_BYTE, comm));
  return all;
}

}  // namespace

IpcPeers::IpcPeers(const RouteEnv& env, size_t bytes, int num_events, int num_counters, const char* route)
    : env_(env), bytes_(bytes), num_events_(num_events), num_counters_(num_counters) {
  const RankContext& ctx = *env.ctx;
  const int G = env.G, w = env.w;
  SLIDEDP_ASSERT(bytes > 0 && num_events > 0 && num_counters > 0, "IPC peers need a buffer, events and counters");
  // Every worker on this host: IPC handles and the counters' shared memory do not cross hosts.
  MPI_CHECK(MPI_Comm_split_type(ctx.node_workers, MPI_COMM_TYPE_SHARED, w, MPI_INFO_NULL, &comm_));
  int here = 0, workers = 0;
  MPI_CHECK(MPI_Comm_size(comm_, &here));
  MPI_CHECK(MPI_Comm_size(ctx.node_workers, &workers));
  std::string problem;
  if (here != workers || workers != G)
    problem = fmt::format("the '{}' route needs every worker on one host (CUDA IPC does not cross "
                          "hosts): {} of the {} workers share {}'s host.\nHINT: use the NCCL routes "
                          "(--delivery sharded, --reduction gpu) across hosts",
                          route, here, workers, ctx.describe());
  agreeOrThrow(ctx.node_workers, problem.empty(), problem);

  // Peer access between every pair of GPUs (the same GPU twice is fine: copies stay on it).
  const int dev = env.device.index();
  std::array<char, kBusIdBytes> bus{};
  CUDA_CHECK(cudaDeviceGetPCIBusId(bus.data(), kBusIdBytes, dev));
  const auto buses = allgather(bus, comm_, G);
  for (int p = 0; p < G && problem.empty(); ++p) {
    if (std::strcmp(buses[p].data(), bus.data()) == 0) continue;
    int peer_dev = -1, can = 0;
    if (cudaDeviceGetByPCIBusId(&peer_dev, buses[p].data()) != cudaSuccess) {
      (void)cudaGetLastError();
      problem = fmt::format("the '{}' route: GPU {} of worker {} is not visible to worker {} (GPU {}), "
                            "so peer access between them cannot be checked.\nHINT: make every GPU "
                            "visible to every worker (launcher/slidedp-run does)",
                            route, buses[p].data(), p, w, bus.data());
      break;
    }
    CUDA_CHECK(cudaDeviceCanAccessPeer(&can, dev, peer_dev));
    if (!can)
      problem = fmt::format("the '{}' route needs peer access between the GPUs, and GPU {} (worker {}) "
                            "cannot access GPU {} (worker {}) (cudaDeviceCanAccessPeer = 0; consumer "
                            "GPUs often have none).\nHINT: use the NCCL routes (--delivery sharded, "
                            "--reduction gpu), which go through host memory where peer access is missing",
                            route, bus.data(), w, buses[p].data(), p);
  }
  agreeOrThrow(ctx.node_workers, problem.empty(), problem);

  // The buffer and its handle.
  buffers_.assign(G, nullptr);
  CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&buffers_[w]), bytes));
  cudaIpcMemHandle_t mem{};
  CUDA_CHECK(cudaIpcGetMemHandle(&mem, buffers_[w]));
  const auto mems = allgather(mem, comm_, G);
  for (int p = 0; p < G; ++p) {
    if (p == w) continue;
    void* ptr = nullptr;
    CUDA_CHECK(cudaIpcOpenMemHandle(&ptr, mems[p], cudaIpcMemLazyEnablePeerAccess));
    buffers_[p] = static_cast<char*>(ptr);
  }
  // The events and their handles.
  events_.assign(static_cast<size_t>(G) * num_events, nullptr);
  for (int i = 0; i < num_events; ++i) {
    cudaEvent_t e = nullptr;
    CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventInterprocess | cudaEventDisableTiming));
    events_[w * num_events + i] = e;
    cudaIpcEventHandle_t h{};
    CUDA_CHECK(cudaIpcGetEventHandle(&h, e));
    const auto hs = allgather(h, comm_, G);
    for (int p = 0; p < G; ++p)
      if (p != w) CUDA_CHECK(cudaIpcOpenEventHandle(&events_[p * num_events + i], hs[p]));
  }
  // The counters: one shared block, allocated by the first worker, zeroed before anyone reads it.
  const size_t counter_bytes = static_cast<size_t>(G) * num_counters * sizeof(shm::PaddedCounter);
  void* base = nullptr;
  MPI_CHECK(MPI_Win_allocate_shared(w == 0 ? counter_bytes + shm::kCacheLine : 0, 1, MPI_INFO_NULL,
                                    comm_, &base, &win_));
  MPI_Aint size = 0;
  int disp = 0;
  MPI_CHECK(MPI_Win_shared_query(win_, 0, &size, &disp, &base));
  auto addr = reinterpret_cast<uintptr_t>(base);
  addr = (addr + shm::kCacheLine - 1) / shm::kCacheLine * shm::kCacheLine;
  counters_ = reinterpret_cast<shm::PaddedCounter*>(addr);
  if (w == 0)
    for (int i = 0; i < G * num_counters; ++i) new (&counters_[i]) shm::PaddedCounter();
  MPI_CHECK(MPI_Barrier(comm_));
}

IpcPeers::~IpcPeers() {
  if (std::uncaught_exceptions() > 0) return;  // the job is aborting: no collective, no frees
  // No peer may still copy from this worker's buffer, nor this worker from theirs.
  (void)cudaDeviceSynchronize();
  MPI_Barrier(comm_);
  const int G = env_.G, w = env_.w;
  for (int p = 0; p < G; ++p)
    if (p != w && buffers_[p]) (void)cudaIpcCloseMemHandle(buffers_[p]);
  for (cudaEvent_t e : events_)
    if (e) (void)cudaEventDestroy(e);
  if (buffers_[w]) (void)cudaFree(buffers_[w]);
  MPI_Win_free(&win_);
  MPI_Comm_free(&comm_);
}

void IpcPeers::recordAndPublish(int c, int ev, uint64_t use, cudaStream_t stream) const {
  CUDA_CHECK(cudaEventRecord(event(env_.w, ev), stream));
  counter(env_.w, c).store(use);  // release: the record above is issued
}

void IpcPeers::waitRecorded(int p, int c, int ev, uint64_t use, cudaStream_t stream, const char* what) const {
  env_.seg->control().waitAtLeast(counter(p, c), use, env_.wait_timeout_s, env_.ctx->describe(), [&] {
    return fmt::format("worker {} of {} to record its '{}' event {} for use {}", p, env_.G, what, ev, use);
  });
  CUDA_CHECK(cudaStreamWaitEvent(stream, event(p, ev), 0));
}

}  // namespace slidedp::routes
