// Reduction among GPU workers through CUDA IPC: each worker copies its unit gradient (fp32) into
// one of R exported gradient buffers, pulls the peers' slices of its own shard from their buffers
// with cudaMemcpyAsync peer copies (copy engines) into a local [G, shard] gather buffer, and sums
// them in one kernel; it hands off its reduced shard to the slot's single sub-slot, as the NCCL
// route does. All of it runs on the route's own stream, after the compute stream's gradient; the
// hand-off waits for the returned event, so the next unit's backward does not.
//
// Protocol of the n-th reduction (use = n + 1, buffer b = n mod R) on worker w, every worker
// reducing the same units in the same order (ipc_peers.h says why each cross-process event wait
// is preceded by a host wait on the owner's counter):
//   1. every peer p has finished reading w's buffer b for use - R: host wait read_count[p] >=
//      use - R, then wait for event read[p][b];
//   2. copy the gradient into w's buffer b; record written[w][b], publish written_count[w] = use;
//   3. for every worker p: (peers: host wait written_count[p] >= use, wait for written[p][b])
//      copy p's buffer b [shard of w] into row p of the gather buffer;
//   4. record read[w][b], publish read_count[w] = use;
//   5. sum the G rows (one kernel, rows in worker order), convert to the staging dtype.
// p records written[p][b] again only for use + R, after its step 1 waits for w's read_count >=
// use (step 4 here, after w's step-3 waits); p records read[p][b] again only at use + R, after its
// step-3 wait for w's written_count >= use + R (w's step 2 of use + R, after w's step-1 wait).
// The gather buffer is reused by the next use only after this use's sum (same stream).
#include <ATen/ATen.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

#include <algorithm>
#include <memory>

#include "cuda/checks.h"
#include "routes/ipc_peers.h"
#include "routes/route_impls.h"
#include "runtime/chunk_plan.h"

namespace slidedp::routes {

namespace {

constexpr int kBuffers = 2;  // R: gradient buffers per worker (a unit's copy-in overlaps peers' reads of the previous one)

class IpcReduction final : public Reduction {
 public:
  explicit IpcReduction(const RouteEnv& env)
      : Reduction(env), stream_(c10::cuda::getStreamFromPool(false, env.device.index())) {
    for (const auto& u : env_.layout->units) shard_max_ = std::max(shard_max_, ChunkPlan::shardNumel(u.numel, env_.G));
    buffer_bytes_ = env_.G * shard_max_ * static_cast<int64_t>(sizeof(float));
    peers_ = std::make_unique<IpcPeers>(env_, static_cast<size_t>(kBuffers * buffer_bytes_), 2 * kBuffers, 2, name());
    gather_ = at::empty({env_.G, shard_max_}, at::TensorOptions().dtype(at::kFloat).device(env_.device));
  }
  const char* name() const override { return "gpu-ipc"; }
  int64_t deviceBytes() const override { return static_cast<int64_t>(peers_->bytes()); }

  ReducedGradient reduce(int u, const at::Tensor& grad_fp32) override {
    enum { kWritten = 0, kRead = 1 };  // counters
    const int G = env_.G, w = env_.w;
    const uint64_t use = ++uses_;
    const int b = static_cast<int>((use - 1) % kBuffers);
    const int written_ev = b, read_ev = kBuffers + b;
    const int64_t n = env_.layout->units[u].numel;
    const auto [sb, se] = ChunkPlan::shard(n, G, w);
    const int64_t len = se - sb;
    const cudaStream_t rs = stream_.stream();
    SLIDEDP_ASSERT(grad_fp32.is_contiguous() && grad_fp32.numel() == n && grad_fp32.scalar_type() == at::kFloat,
                   "unit {}'s gradient: contiguous fp32 [{}]", u, n);
    // The gradient is written on the compute stream; read here on rs (and freed by the caller).
    at::cuda::CUDAEvent produced;
    produced.record(c10::cuda::getCurrentCUDAStream(env_.device.index()));
    produced.block(stream_);
    c10::cuda::CUDACachingAllocator::recordStream(grad_fp32.storage().data_ptr(), stream_);
    if (use > kBuffers)  // 1.
      for (int p = 0; p < G; ++p)
        if (p != w) peers_->waitRecorded(p, kRead, read_ev, use - kBuffers, rs, "read gradient buffer");
    char* mine = peers_->buffer(w) + b * buffer_bytes_;  // 2.
    CUDA_CHECK(cudaMemcpyAsync(mine, grad_fp32.data_ptr(), n * sizeof(float), cudaMemcpyDeviceToDevice, rs));
    peers_->recordAndPublish(kWritten, written_ev, use, rs);
    auto* gather = static_cast<char*>(gather_.data_ptr());
    for (int p = 0; p < G; ++p) {  // 3.
      if (p != w) peers_->waitRecorded(p, kWritten, written_ev, use, rs, "written gradient buffer");
      if (len > 0)
        CUDA_CHECK(cudaMemcpyAsync(gather + p * shard_max_ * sizeof(float),
                                   peers_->buffer(p) + b * buffer_bytes_ + sb * sizeof(float),
                                   len * sizeof(float), cudaMemcpyDeviceToDevice, rs));
    }
    peers_->recordAndPublish(kRead, read_ev, use, rs);  // 4.
    ReducedGradient r;  // 5.
    {
      c10::cuda::CUDAStreamGuard guard(stream_);
      r.grad = gather_.narrow(1, 0, len).sum(0).to(env_.sdtype).contiguous();
      r.ready = std::make_shared<at::cuda::CUDAEvent>();
      r.ready->record(stream_);
    }
    r.offset = sb;
    r.subslot = 0;
    return r;
  }

 private:
  c10::cuda::CUDAStream stream_;
  std::unique_ptr<IpcPeers> peers_;
  int64_t shard_max_ = 0, buffer_bytes_ = 0;
  at::Tensor gather_;  // [G, shard_max] fp32: row p = worker p's slice of this worker's shard
  uint64_t uses_ = 0;  // reductions so far (the same on every worker)
};

}  // namespace

std::unique_ptr<Reduction> makeIpcReduction(const RouteEnv& env, RouteResources&) {
  return std::make_unique<IpcReduction>(env);
}

}  // namespace slidedp::routes
