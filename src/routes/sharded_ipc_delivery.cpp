// Sharded delivery between GPU workers through CUDA IPC: each worker copies its 1/G shard H2D
// into its place in its own window slot, and pulls the other G-1 shards from the peers' slots
// with cudaMemcpyAsync peer copies (copy engines: no SM is taken from the layer's GEMMs, unlike
// NCCL's all-gather kernels). The window (K slots and the resident one, RouteEnv::slots()) is
// one cudaMalloc exported to every peer.
//
// Protocol of the n-th delivery (use = n + 1) into slot k on worker w, all on w's copy stream,
// every worker running the same (unit, slot) sequence (ipc_peers.h says why each cross-process
// event wait is preceded by a host wait on the owner's counter):
//   1. the slot's previous compute on w is done (Delivery::deliver, slot_free);
//   2. every peer p has finished pulling w's shard from w's slot k for the previous use m of k:
//      host wait pulled_count[p] >= m, then wait for event pulled[p][k];
//   3. H2D of w's shard into w's slot k;
//   4. record filled[w][k], publish filled_count[w] = use;
//   5. for every peer p: host wait filled_count[p] >= use, wait for event filled[p][k], copy p's
//      shard from p's slot k into w's slot k;
//   6. record pulled[w][k], publish pulled_count[w] = use; then the slot is ready (deliver()).
// Why the event waits see the right record: p records filled[p][k] again only at its next use
// of slot k, after its step 2 for that use, which waits for w's pulled_count (step 6 here, after
// w's step-5 wait); p records pulled[p][k] again only at its next use of k, after its step 5,
// which waits for w's filled_count of that use (step 4, after w's step-2 wait). No sleeps: slots
// are reused only after the events say every peer's copy of them has completed.
#include <ATen/ATen.h>

#include <memory>

#include "cuda/checks.h"
#include "routes/ipc_peers.h"
#include "routes/route_impls.h"
#include "runtime/chunk_plan.h"

namespace slidedp::routes {

namespace {

class ShardedIpcDelivery final : public Delivery {
 public:
  explicit ShardedIpcDelivery(const RouteEnv& env) : Delivery(env, /*allocate_window=*/false) {
    // The slots back to back in one exported buffer: K of window_numel, then the resident one.
    const int S = env_.slots();
    int64_t bytes = 0;
    for (int k = 0; k < S; ++k) {
      slot_offset_.push_back(bytes);
      bytes += env_.slotNumel(k) * static_cast<int64_t>(elementSize());
    }
    peers_ = std::make_unique<IpcPeers>(env_, static_cast<size_t>(bytes), 2 * S, 2, name());
    for (int k = 0; k < S; ++k)
      window_.push_back(at::from_blob(peers_->buffer(env_.w) + slot_offset_[k], {env_.slotNumel(k)},
                                      at::TensorOptions().dtype(env_.cdtype).device(env_.device)));
    last_use_.assign(S, 0);
  }
  const char* name() const override { return "sharded-ipc"; }
  int64_t deviceBytes() const override { return static_cast<int64_t>(peers_->bytes()); }

 protected:
  void fill(int u, int slot) override {
    enum { kFilled = 0, kPulled = 1 };  // counters
    const int S = env_.slots(), G = env_.G, w = env_.w;
    const int filled_ev = slot, pulled_ev = S + slot;
    const uint64_t use = ++uses_, prev = last_use_[slot];
    last_use_[slot] = use;
    const int64_t n = env_.layout->units[u].numel;
    const size_t es = elementSize();
    const int64_t shard = ChunkPlan::shardNumel(n, G);
    const cudaStream_t stream = copyStream().stream();
    char* mine = peers_->buffer(w) + slot_offset_[slot];
    if (prev > 0)  // 2.
      for (int p = 0; p < G; ++p)
        if (p != w) peers_->waitRecorded(p, kPulled, pulled_ev, prev, stream, "pulled slot");
    const auto [sb, se] = ChunkPlan::shard(n, G, w);  // 3.
    copyUnitRange(mine + w * shard * es, u, sb, se);
    peers_->recordAndPublish(kFilled, filled_ev, use, stream);  // 4.
    for (int p = 0; p < G; ++p) {  // 5.
      if (p == w) continue;
      peers_->waitRecorded(p, kFilled, filled_ev, use, stream, "filled slot");
      const auto [pb, pe] = ChunkPlan::shard(n, G, p);
      if (pe > pb)
        CUDA_CHECK(cudaMemcpyAsync(mine + p * shard * es, peers_->buffer(p) + slot_offset_[slot] + p * shard * es,
                                   (pe - pb) * es, cudaMemcpyDeviceToDevice, stream));
    }
    peers_->recordAndPublish(kPulled, pulled_ev, use, stream);  // 6.
  }

 private:
  std::unique_ptr<IpcPeers> peers_;
  std::vector<int64_t> slot_offset_;  // per slot: its byte offset in every worker's buffer
  uint64_t uses_ = 0;               // deliveries so far (the same on every worker)
  std::vector<uint64_t> last_use_;  // per slot: the use that last filled it (0: none)
};

}  // namespace

std::unique_ptr<Delivery> makeShardedIpcDelivery(const RouteEnv& env, RouteResources&) {
  return std::make_unique<ShardedIpcDelivery>(env);
}

}  // namespace slidedp::routes
