// CUDA_CHECK / NCCL_CHECK: one check macro per library, printing the library's own error
// string (NCCL checks.h style). They throw std::runtime_error; the job-wide handler
// (runtime/job_guard.h) turns that into an abort of every rank.
#pragma once

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <stdexcept>

#include <fmt/format.h>

#define CUDA_CHECK(call)                                                                    \
  do {                                                                                      \
    cudaError_t cuda_check_rc_ = (call);                                                    \
    if (cuda_check_rc_ != cudaSuccess)                                                      \
      throw std::runtime_error(::fmt::format("{}:{}: {} failed: {} ({})", __FILE__,         \
                                             __LINE__, #call,                               \
                                             cudaGetErrorString(cuda_check_rc_),            \
                                             cudaGetErrorName(cuda_check_rc_)));            \
  } while (0)

#define NCCL_CHECK(call)                                                                    \
  do {                                                                                      \
    ncclResult_t nccl_check_rc_ = (call);                                                   \
    if (nccl_check_rc_ != ncclSuccess)                                                      \
      throw std::runtime_error(::fmt::format("{}:{}: {} failed: {}", __FILE__, __LINE__,    \
                                             #call, ncclGetErrorString(nccl_check_rc_)));   \
  } while (0)
