// The copy-engine rate the CUDA IPC routes run at (src/routes/sharded_ipc_delivery.cpp,
// ipc_reduction.cpp): under mpirun with 2 ranks, each allocates a buffer with cudaMalloc, exports
// it with cudaIpcGetMemHandle, and pulls the other rank's buffer with cudaMemcpyAsync
// (DeviceToDevice through the IPC mapping), alone and both at once; plus each rank's pinned H2D
// of the same size for scale. --share-gpu puts both ranks on GPU 0 (what the 1-GPU machine can
// show: a same-GPU copy through IPC); otherwise rank r uses GPU r. Prints one RESULT line per
// measurement (GB/s, 1e9 bytes per second).
//
//   mpirun -np 2 bench_ipc [--mib 256] [--iters 20] [--share-gpu]
//
// (the defaults shown; --help lists them.) A bad option or value: rank 0 prints the message,
// every rank finalizes MPI and exits 2; the command line is parsed before any CUDA call, so
// --help and its errors need no GPU.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "bench_cli.h"  // defines: the command line (CLI11) and its validators
#include "common/errors.h"
#include "cuda/checks.h"
#include "cuda/device.h"

namespace {

namespace bench = slidedp::bench;

double timeCopies(cudaStream_t s, int iters, void* dst, const void* src, size_t bytes, cudaMemcpyKind kind,
                  MPI_Comm comm) {
  cudaEvent_t a, b;
  CUDA_CHECK(cudaEventCreate(&a));
  CUDA_CHECK(cudaEventCreate(&b));
  CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, kind, s));  // warm-up
  CUDA_CHECK(cudaStreamSynchronize(s));
  MPI_CHECK(MPI_Barrier(comm));
  CUDA_CHECK(cudaEventRecord(a, s));
  for (int i = 0; i < iters; ++i) CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, kind, s));
  CUDA_CHECK(cudaEventRecord(b, s));
  CUDA_CHECK(cudaEventSynchronize(b));
  float ms = 0;
  CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
  CUDA_CHECK(cudaEventDestroy(a));
  CUDA_CHECK(cudaEventDestroy(b));
  return static_cast<double>(bytes) * iters / (ms * 1e-3) / 1e9;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  size_t mib = 256;
  int iters = 20;
  bool share = false;
  CLI::App app{"bench_ipc: the copy-engine rate of CUDA IPC peer copies between 2 ranks (run as "
               "mpirun -np 2 bench_ipc), alone and both at once, beside each rank's pinned H2D",
               "bench_ipc"};
  app.add_option("--mib", mib, "Bytes per copy, MiB (2^20 B); each rank allocates 2 device "
                 "buffers and 1 pinned host buffer of this size")
      ->check(bench::intInRange(1, 1 << 20))
      ->capture_default_str();
  app.add_option("--iters", iters, "Timed copies per measurement (after one warm-up copy)")
      ->check(bench::intAtLeast(1))
      ->capture_default_str();
  app.add_flag("--share-gpu", share, "Both ranks on GPU 0 (a same-GPU copy through IPC: what a "
               "1-GPU machine can show); otherwise rank r uses GPU r");
  // Every rank parses the same command line and ends alike; rank 0 alone prints, and each
  // rank finalizes MPI before it exits, so mpirun sees a clean exit (0 after --help, else 2).
  if (const auto rc = bench::parseCommandLine(app, argc, argv, /*print=*/rank == 0)) {
    MPI_Finalize();
    return *rc;
  }
  if (size != 2) {
    if (rank == 0) std::fprintf(stderr, "bench_ipc: run with exactly 2 ranks (mpirun -np 2), got %d\n", size);
    MPI_Finalize();
    return 2;
  }
  try {
    const int dev = share ? 0 : rank;
    CUDA_CHECK(cudaSetDevice(dev));
    const int peer = 1 - rank;
    int peer_dev = share ? 0 : peer, can = 1;
    if (peer_dev != dev) CUDA_CHECK(cudaDeviceCanAccessPeer(&can, dev, peer_dev));
    const size_t bytes = mib << 20;
    char *mine = nullptr, *local = nullptr, *host = nullptr;
    CUDA_CHECK(cudaMalloc(&mine, bytes));
    CUDA_CHECK(cudaMalloc(&local, bytes));
    CUDA_CHECK(cudaMallocHost(&host, bytes));
    CUDA_CHECK(cudaMemset(mine, rank + 1, bytes));
    std::memset(host, 0, bytes);
    cudaIpcMemHandle_t h{}, ph{};
    CUDA_CHECK(cudaIpcGetMemHandle(&h, mine));
    MPI_CHECK(MPI_Sendrecv(&h, sizeof h, MPI_BYTE, peer, 0, &ph, sizeof ph, MPI_BYTE, peer, 0, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE));
    void* theirs = nullptr;
    CUDA_CHECK(cudaIpcOpenMemHandle(&theirs, ph, cudaIpcMemLazyEnablePeerAccess));
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cudaDeviceProp prop{};
    CUDA_CHECK(cudaGetDeviceProperties(&prop, dev));
    if (rank == 0) {
      std::string why;
      const int ngpu = slidedp::cuda::visibleDeviceCount();
      const bool all = slidedp::cuda::peerAccessBetween(ngpu, &why);
      std::printf("bench_ipc: %s, %zu MiB x %d, %s, peer access %d, copy engines %d; peer access between "
                  "all %d GPUs: %s\n", prop.name, mib, iters, share ? "both ranks on GPU 0" : "rank r on GPU r",
                  can, prop.asyncEngineCount, ngpu, all ? "yes" : why.c_str());
    }
    // Alone: rank 1 pulls rank 0's buffer while rank 0 waits.
    double alone = 0;
    if (rank == 1) alone = timeCopies(s, iters, local, theirs, bytes, cudaMemcpyDeviceToDevice, MPI_COMM_SELF);
    MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    // Both at once, as in an all-gather of 2 shards.
    const double both = timeCopies(s, iters, local, theirs, bytes, cudaMemcpyDeviceToDevice, MPI_COMM_WORLD);
    const double h2d = timeCopies(s, iters, local, host, bytes, cudaMemcpyHostToDevice, MPI_COMM_WORLD);
    // Correctness of the pulled bytes: the peer's fill value.
    unsigned char probe = 0;
    CUDA_CHECK(cudaMemcpy(local, theirs, 4096, cudaMemcpyDeviceToDevice));
    CUDA_CHECK(cudaMemcpy(&probe, local + 7, 1, cudaMemcpyDeviceToHost));
    double both_all[2], h2d_all[2];
    MPI_CHECK(MPI_Gather(&both, 1, MPI_DOUBLE, both_all, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD));
    MPI_CHECK(MPI_Gather(&h2d, 1, MPI_DOUBLE, h2d_all, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD));
    MPI_CHECK(MPI_Bcast(&alone, 1, MPI_DOUBLE, 1, MPI_COMM_WORLD));
    int ok = probe == static_cast<unsigned char>(peer + 1), all_ok = 0;
    MPI_CHECK(MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD));
    if (rank == 0) {
      std::printf("RESULT ipc_pull_alone_GBps %.1f\n", alone);
      std::printf("RESULT ipc_pull_both_GBps %.1f %.1f (sum %.1f)\n", both_all[0], both_all[1], both_all[0] + both_all[1]);
      std::printf("RESULT h2d_pinned_both_GBps %.1f %.1f\n", h2d_all[0], h2d_all[1]);
      std::printf("RESULT pulled_bytes_correct %s\n", all_ok ? "yes" : "NO");
    }
    CUDA_CHECK(cudaIpcCloseMemHandle(theirs));
    MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    CUDA_CHECK(cudaFree(mine));
    CUDA_CHECK(cudaFree(local));
    CUDA_CHECK(cudaFreeHost(host));
    MPI_Finalize();
    return all_ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_ipc rank %d: %s\n", rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return 1;
}
