// Host RAM needed by a training job, checked against the node's MemAvailable before any rank
// allocates (issue 14: a 512K-token run's leader was SIGKILLed, most likely by the OOM
// killer, which charges the shared segment's pages to the leader's RSS).
// Design decision: only what slidedp itself allocates in proportion to the model or the
// tokens is counted (the segment, pinned activation offload, per-token host buffers); the
// fixed per-process cost of LibTorch and CUDA (a few GiB per worker, not in proportion to
// anything here) is left out, so the check never refuses a job that fits.
#pragma once

#include <cstdint>
#include <string>

#include "runtime/host_state_layout.h"

namespace slidedp {

/// What a job needs in host RAM, bytes, by part (all ranks of one node together).
struct HostMemoryNeed {
  uint64_t segment_bytes = 0;  // the shared host state (HostStateLayout): FP32 master, m, v
                               // (12 B/param), bf16 copy (2 B/param), gradient staging ring,
                               // clipping's FP32 gradient region
  uint64_t staging_bytes = 0;  // of segment_bytes: the gradient staging ring, --ring-slots x G
                               // x --chunk-numel elements of the gradient dtype
  uint64_t offload_bytes = 0;  // pinned activation offload (--offload-activations): every
                               // decoder layer's boundary activation of every micro-batch,
                               // [rows, T, C] bf16, in exact-size pinned buffers rounded up to
                               // the 4 KiB page (worker/pinned_pool.h; torch's pinned allocator
                               // would round each up to a power of two: a 2.5 GiB activation
                               // took a 4 GiB block)
  uint64_t token_bytes = 0;    // per-token host buffers: token ids, labels and position ids
                               // (int64) of the global batch on every rank, plus each worker's
                               // rows (3 x 8 B x B x T x (ranks + 1))
  uint64_t checkpoint_staging_bytes = 0;  // --checkpoint-staging GiB given explicitly (capped at
                                          // the checkpoint's 12 B/param; auto adapts instead),
                                          // reserved at the start (formats/staging_pool.h)
  uint64_t gather_bytes = 0;   // fully sharded across nodes: the workers' gather buffers
                               // (routes/node_gather.h; NodeShards::gatherSpanNumel each)
  uint64_t checkpoint_io_bytes = 0;  // a direct checkpoint write's aligned bounce buffers
                                     // (formats::directBounceBytes, ~256 MiB, the leader's)
  uint64_t total() const {
    return segment_bytes + offload_bytes + token_bytes + checkpoint_staging_bytes + gather_bytes +
           checkpoint_io_bytes;
  }
  /// "N bytes = 52.43 GiB (host state 52.35 GiB + gradient staging ring 64.00 MiB + pinned
  /// activation offload 0 B + per-token host buffers 24.00 MiB[ + checkpoint staging 10.00 GiB])".
  std::string describe() const;
};

/// The need of a job on one node: `state` as HostStateLayout::build gives it, `ranks` the
/// node's ranks (1 + G), B global rows, T tokens per row, C hidden size, L decoder layers,
/// `offload` whether boundary activations go to pinned host memory (bf16), in micro-batches
/// of `micro_batch_rows` rows (0: all of an accumulation step's rows at once), the worker's
/// B / G rows in `accumulation_steps` passes (the pinned inputs of one pass at a time).
HostMemoryNeed estimateHostMemory(const HostStateLayout& state, int ranks, int64_t B, int64_t T,
                                  int64_t C, int64_t L, bool offload, int64_t micro_batch_rows = 0,
                                  int64_t accumulation_steps = 1);

/// The smallest power of two >= n (n >= 1), as torch's pinned-memory allocator rounds (what
/// the offload path used before its exact-size buffers; kept for the comparison).
uint64_t powerOf2Ceil(uint64_t n);

/// MemAvailable of /proc/meminfo in bytes (the kernel's estimate of what can be allocated
/// without swapping); 0 when unknown.
uint64_t memAvailableBytes();
/// MemTotal of /proc/meminfo in bytes; 0 when unknown.
uint64_t memTotalBytes();

/// What a new pinned buffer of offloaded layer inputs must leave free of a host's RAM of
/// `ram_bytes` (the leader's update passes, the other workers and the page cache need room
/// too): max(4 GiB, 5% of it). The worker keeps an input on the GPU rather than go below it
/// (worker.cpp hostRoomFor); the planner counts it in a policy's host fit (cost_model.cpp).
inline uint64_t pinnedHeadroomBytes(uint64_t ram_bytes) {
  return ram_bytes / 20 > (uint64_t{4} << 30) ? ram_bytes / 20 : uint64_t{4} << 30;
}

/// Throws UserError when `need` exceeds `available` bytes (0: unknown, never throws), with
/// needed vs available bytes by part and what to change.
void checkHostMemory(const HostMemoryNeed& need, uint64_t available);

}  // namespace slidedp
