#include "cuda/device.h"

#include <cuda_runtime.h>

#include <cmath>
#include <cstdlib>
#include <vector>

#include "cuda/checks.h"
#include "cuda/fill.h"

namespace slidedp::cuda {

int visibleDeviceCount(std::string* why) {
  int n = 0;
  cudaError_t rc = cudaGetDeviceCount(&n);
  if (rc != cudaSuccess) {
    if (why) *why = cudaGetErrorString(rc);
    cudaGetLastError();  // clear the sticky-free error
    return 0;
  }
  return n;
}

std::string describeDevice(int gpu) {
  cudaDeviceProp p{};
  CUDA_CHECK(cudaGetDeviceProperties(&p, gpu));
  char bus[32] = {0};
  cudaDeviceGetPCIBusId(bus, sizeof(bus), gpu);
  return fmt::format("{}, {:.1f} GiB, cc {}.{}, PCI {}", p.name,
                     p.totalGlobalMem / double(1 << 30), p.major, p.minor, bus);
}

bool peerAccessBetween(int n, std::string* why) {
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b) {
      if (a == b) continue;
      int can = 0;
      CUDA_CHECK(cudaDeviceCanAccessPeer(&can, a, b));
      if (!can) {
        if (why) *why = fmt::format("GPU {} cannot access GPU {} (cudaDeviceCanAccessPeer = 0)", a, b);
        return false;
      }
    }
  return true;
}

HostRegistration::HostRegistration(void* ptr, size_t bytes) {
  CUDA_CHECK(cudaHostRegister(ptr, bytes, cudaHostRegisterPortable | cudaHostRegisterMapped));
  ptr_ = ptr;
}
const void* HostRegistration::mappedPointer(const void* p) {
  void* d = nullptr;
  CUDA_CHECK(cudaHostGetDevicePointer(&d, const_cast<void*>(p), 0));
  return d;
}
HostRegistration::HostRegistration(HostRegistration&& o) noexcept : ptr_(o.ptr_) {
  o.ptr_ = nullptr;
}
HostRegistration& HostRegistration::operator=(HostRegistration&& o) noexcept {
  if (this != &o) {
    if (ptr_) cudaHostUnregister(ptr_);
    ptr_ = o.ptr_;
    o.ptr_ = nullptr;
  }
  return *this;
}
HostRegistration::~HostRegistration() {
  if (ptr_) cudaHostUnregister(ptr_);
}

NcclCommunicator::NcclCommunicator(MPI_Comm comm) {
  setenv("NCCL_NVLS_ENABLE", "0", /*overwrite=*/0);
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  ncclUniqueId id{};
  if (rank == 0) NCCL_CHECK(ncclGetUniqueId(&id));
  MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, comm);
  NCCL_CHECK(ncclCommInitRank(&comm_, size, id, rank));
}

NcclCommunicator::~NcclCommunicator() {
  if (comm_) ncclCommDestroy(comm_);
}

void NcclCommunicator::abort() {
  if (comm_) ncclCommAbort(comm_);
  comm_ = nullptr;
}

double ncclAllReduceCheck(const NcclCommunicator& nccl, int rank, int size, size_t numel) {
  float* buf = nullptr;
  CUDA_CHECK(cudaMalloc(&buf, numel * sizeof(float)));
  std::vector<float> host(numel);
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));
  CUDA_CHECK(fill(buf, numel, static_cast<float>(rank + 1), stream));
  NCCL_CHECK(ncclAllReduce(buf, buf, numel, ncclFloat, ncclSum, nccl.get(), stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  CUDA_CHECK(cudaMemcpy(host.data(), buf, numel * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaStreamDestroy(stream));
  CUDA_CHECK(cudaFree(buf));
  const double want = size * (size + 1) / 2.0;
  double err = 0;
  for (float v : host) err = std::max(err, std::abs(v - want));
  return err;
}

}  // namespace slidedp::cuda
