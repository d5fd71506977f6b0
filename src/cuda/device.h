// The CUDA side of a worker's set-up: visible GPUs, DMA registration of the shared segment
// (cudaHostRegister, so H2D/D2H of host-state regions run at pinned-memory speed without a
// bounce buffer), and the NCCL communicator among workers from an MPI-broadcast unique id.
// Compiled only where nvcc is found; run only where a GPU is present.
#pragma once

#include <mpi.h>
#include <nccl.h>

#include <cstddef>
#include <string>

namespace slidedp::cuda {

/// Number of GPUs this process sees; 0 (with the runtime's reason in *why) when the CUDA
/// runtime cannot be initialised (no driver, no device).
int visibleDeviceCount(std::string* why = nullptr);

/// "NVIDIA H200, 139.8 GiB, cc 9.0, PCI 0000:1b:00.0" for device `gpu`.
std::string describeDevice(int gpu);

/// Whether every pair of the first `n` visible GPUs can read each other's memory
/// (cudaDeviceCanAccessPeer, both ways): what the CUDA IPC routes need (a planner should not
/// offer them otherwise; routes/ipc_peers.h refuses them). False, with the first pair that
/// cannot in *why; true for n <= 1.
bool peerAccessBetween(int n, std::string* why = nullptr);

/// RAII cudaHostRegister of [ptr, ptr+bytes) (portable: every context of the process may use
/// it; mapped: kernels may read it through PCIe, mappedPointer()). ptr and bytes must be
/// page-aligned (the segment's regions are 4 KiB aligned).
class HostRegistration {
 public:
  HostRegistration() = default;
  HostRegistration(void* ptr, size_t bytes);
  /// The device address of host address `p` inside a registration of this process (the same
  /// address where the device uses host pointers for registered memory), for kernels that
  /// read host memory directly. Throws (the CUDA error) when `p` is not registered.
  static const void* mappedPointer(const void* p);
  HostRegistration(HostRegistration&&) noexcept;
  HostRegistration& operator=(HostRegistration&&) noexcept;
  ~HostRegistration();
  HostRegistration(const HostRegistration&) = delete;
  HostRegistration& operator=(const HostRegistration&) = delete;

 private:
  void* ptr_ = nullptr;
};

/// An NCCL communicator over the ranks of `comm` (typically the workers communicator),
/// created from a unique id made by comm rank 0 and broadcast with MPI. Collective over
/// `comm`; the caller's current CUDA device is the one used. NCCL_NVLS_ENABLE must stay 0
/// (gpu.md): the constructor sets it if unset.
class NcclCommunicator {
 public:
  explicit NcclCommunicator(MPI_Comm comm);
  ~NcclCommunicator();
  NcclCommunicator(const NcclCommunicator&) = delete;
  NcclCommunicator& operator=(const NcclCommunicator&) = delete;
  ncclComm_t get() const { return comm_; }
  /// ncclCommAbort instead of destroy, for failure paths (no peer left hanging).
  void abort();

 private:
  ncclComm_t comm_ = nullptr;
};

/// Smoke test: all-reduce (sum) of `numel` floats of value (rank+1) over `nccl` on the
/// current device; returns the max abs error against the expected sum.
double ncclAllReduceCheck(const NcclCommunicator& nccl, int rank, int size, size_t numel);

}  // namespace slidedp::cuda
