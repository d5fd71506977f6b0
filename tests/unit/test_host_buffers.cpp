// Exact-size host buffers of offloaded activations (worker/pinned_pool.h): sizes rounded to the
// 4 KiB page only (not to a power of two, as torch's pinned allocator does), page alignment,
// reuse across steps by exact size (a steady state allocates nothing), return to the pool from
// any handle, freeing of idle buffers, handles that outlive the pool; and, where a GPU is
// present in a CUDA build, the same with cudaHostAlloc'd (pinned) buffers.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <thread>

#include "worker/pinned_pool.h"
#ifdef SLIDEDP_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

using slidedp::HostBuffer;
using slidedp::HostBufferPool;

namespace {

void exercise(bool pinned) {
  auto pool = HostBufferPool::create(pinned);
  // The 512K-token boundary activation of the Qwen3-4B shape: 2.5 GiB would be a 4 GiB
  // torch block; here its page-rounded size (checked without allocating it).
  EXPECT_EQ(HostBuffer::roundUp(size_t{524288} * 2560 * 2), size_t{524288} * 2560 * 2);
  EXPECT_EQ(HostBuffer::roundUp(80000), 81920u);
  EXPECT_EQ(HostBuffer::roundUp(1), 4096u);
  void* first = nullptr;
  {
    auto a = pool->acquire(80000);
    auto b = pool->acquire(80000);
    auto c = pool->acquire(5000);
    EXPECT_EQ(a->bytes(), 81920u);
    EXPECT_EQ(c->bytes(), 8192u);
    EXPECT_EQ(a->pinned(), pinned);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(a->data()) % HostBuffer::kPage, 0u);
    std::memset(a->data(), 7, a->bytes());  // writable, whole size
    first = a->data();
    EXPECT_EQ(pool->allocations(), 3u);
    EXPECT_EQ(pool->bytesHeld(), 2 * 81920u + 8192u);
    EXPECT_EQ(pool->bytesIdle(), 0u);
    std::thread([a]() mutable { a.reset(); }).join();  // a copy dropped on another thread
  }
  EXPECT_EQ(pool->bytesIdle(), pool->bytesHeld());
  // The next step: the same sizes come back from the pool, nothing new is allocated.
  {
    auto a = pool->acquire(80000), b = pool->acquire(79999), c = pool->acquire(5000);
    EXPECT_EQ(pool->allocations(), 3u);
    EXPECT_TRUE(a->data() == first || b->data() == first);
    auto d = pool->acquire(80000);  // a third of that size: new
    EXPECT_EQ(pool->allocations(), 4u);
  }
  // A step that needs fewer (the first step's reserve estimate offloaded more inputs than
  // the measured one): trim to what it used frees the largest idle buffers first.
  EXPECT_TRUE(pool->hasIdle(80000));
  EXPECT_FALSE(pool->hasIdle(200000));
  EXPECT_EQ(pool->bytesIdle(), 3 * 81920u + 8192u);
  pool->trim(81920u + 8192u);
  EXPECT_EQ(pool->bytesIdle(), 81920u + 8192u);
  EXPECT_EQ(pool->bytesHeld(), 81920u + 8192u);
  EXPECT_TRUE(pool->hasIdle(5000));
  pool->trim(8191u);  // at most 8191 idle: both go (largest first, then the 8 KiB one)
  EXPECT_EQ(pool->bytesIdle(), 0u);
  EXPECT_FALSE(pool->hasIdle(5000));
  pool->acquire(5000);
  pool->clear();
  EXPECT_EQ(pool->bytesHeld(), 0u);
  EXPECT_EQ(pool->bytesIdle(), 0u);
  // A handle that outlives its pool frees its buffer itself.
  auto late = pool->acquire(4096);
  pool.reset();
  EXPECT_EQ(late->bytes(), 4096u);
  late.reset();
}

}  // namespace

TEST(HostBuffers, ExactSizesReusedAcrossSteps) { exercise(/*pinned=*/false); }

TEST(HostBuffers, PinnedWithCudaHostAlloc) {
#ifdef SLIDEDP_WITH_CUDA
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
    (void)cudaGetLastError();
    GTEST_SKIP() << "no GPU: cudaHostAlloc needs a CUDA device";
  }
  exercise(/*pinned=*/true);
  auto pool = HostBufferPool::create(true);
  auto b = pool->acquire(1 << 20);
  cudaPointerAttributes attr{};
  ASSERT_EQ(cudaPointerGetAttributes(&attr, b->data()), cudaSuccess);
  EXPECT_EQ(attr.type, cudaMemoryTypeHost) << "the buffer is page-locked host memory";
#else
  GTEST_SKIP() << "a build without CUDA has no pinned buffers";
#endif
}
