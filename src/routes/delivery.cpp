// The part of every delivery route that is the same: the window's slots, their ready/free
// events, the copy stream and the busy-time account (see delivery.h).
#include "routes/delivery.h"

#include <ATen/ATen.h>

#include <cstring>

#include "common/errors.h"
#include "routes/node_gather.h"
#include "runtime/host_state_layout.h"
#include "shm/control_block.h"

#ifdef SLIDEDP_WITH_CUDA
#include <c10/cuda/CUDAGuard.h>
#include <cuda_runtime_api.h>

#include "cuda/checks.h"
#endif

namespace slidedp::routes {

Delivery::Delivery(const RouteEnv& env, bool allocate_window)
    : env_(env), es_(at::elementSize(env.cdtype)) {
#ifdef SLIDEDP_WITH_CUDA
  if (env_.cuda) {
    copy_stream_ = c10::cuda::getStreamFromPool(false, env_.device.index());
    for (int k = 0; k < env_.slots(); ++k) {
      slot_ready_.push_back(std::make_shared<at::cuda::CUDAEvent>());
      slot_free_.push_back(std::make_shared<at::cuda::CUDAEvent>());
    }
  }
#endif
  if (allocate_window)
    for (int k = 0; k < env_.slots(); ++k)
      window_.push_back(at::empty({env_.slotNumel(k)}, at::TensorOptions().dtype(env_.cdtype).device(env_.device)));
  // Fully sharded: CPU workers copy synchronously, one buffer; GPU workers one per slot, so a
  // gather never overwrites what a queued host-to-device copy still reads (grown on first use).
  if (env_.node_gather) gathered_.resize(env_.cuda ? env_.slots() : 1);
  slot_unit_.assign(env_.slots(), -1);
  slot_step_.assign(env_.slots(), -1);
}

Delivery::~Delivery() = default;

const char* Delivery::localCopy(int u) const {
  const auto& span = env_.state->copy[u];
  const char* region = deliveryRegion(*env_.state, env_.cdtype == at::kFloat);
  if (env_.cdtype == at::kFloat)
    return reinterpret_cast<const char*>(env_.seg->regionAs<float>(region) + span.offset);
  return reinterpret_cast<const char*>(env_.seg->regionAs<uint16_t>(region) + span.offset);
}

void Delivery::copyUnitRange(void* dst, int u, int64_t b, int64_t e) {
  if (!env_.node_gather) {
    if (e > b) copyFromHost(dst, localCopy(u) + b * es_, static_cast<size_t>(e - b) * es_);
    return;
  }
  SLIDEDP_ASSERT(filling_slot_ >= 0 && !range_copied_, "copyUnitRange outside deliver() or twice in one fill");
  range_copied_ = true;
  at::Tensor& buf = gathered_[env_.cuda ? filling_slot_ : 0];
#ifdef SLIDEDP_WITH_CUDA
  if (env_.cuda) slot_ready_[filling_slot_]->synchronize();  // the last copy out of buf is done
#endif
  // Every worker of this index on every node gathers, an empty range included (the collective).
  const int64_t need = env_.node_gather->span(u, b, e).second;
  if (!buf.defined() || buf.numel() < need)
    buf = at::empty({std::max<int64_t>(need, 1)}, at::TensorOptions().dtype(env_.cdtype).pinned_memory(env_.cuda));
  const int64_t first = env_.node_gather->gather(u, b, e, localCopy(u), buf.data_ptr());
  if (e > b)
    copyFromHost(dst, static_cast<const char*>(buf.data_ptr()) + (b - first) * es_,
                 static_cast<size_t>(e - b) * es_);
}

void Delivery::copyFromHost(void* dst, const void* src, size_t bytes) {
  if (bytes == 0) return;
  if (!env_.cuda) {
    std::memcpy(dst, src, bytes);
    return;
  }
#ifdef SLIDEDP_WITH_CUDA
  CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, copy_stream_->stream()));
#endif
}

at::Tensor Delivery::deliver(int u, int slot) {
  SLIDEDP_ASSERT(slot >= 0 && slot < static_cast<int>(window_.size()), "window slot {} of {}", slot,
                 window_.size());
  const int64_t n = env_.layout->units[u].numel;
  SLIDEDP_ASSERT(n <= window_[slot].numel(), "unit {} ({} elements) does not fit window slot {} ({})", u, n,
                 slot, window_[slot].numel());
  slot_unit_[slot] = u;
  slot_step_[slot] = step_;
  if (!env_.cuda) {
    const uint64_t t0 = shm::monotonicNs();
    filling_slot_ = slot, range_copied_ = false;
    fill(u, slot);
    filling_slot_ = -1;
    cpu_busy_s_ += (shm::monotonicNs() - t0) * 1e-9;
  }
#ifdef SLIDEDP_WITH_CUDA
  if (env_.cuda) {
    filling_slot_ = slot, range_copied_ = false;
    c10::cuda::CUDAStreamGuard guard(*copy_stream_);
    slot_free_[slot]->block(*copy_stream_);  // the slot's previous compute is done
    events_.emplace_back(std::make_shared<at::cuda::CUDAEvent>(cudaEventDefault),
                         std::make_shared<at::cuda::CUDAEvent>(cudaEventDefault));
    events_.back().first->record(*copy_stream_);
    fill(u, slot);  // fully sharded: its copyUnitRange gathers on the host, then queues the copy
    filling_slot_ = -1;
    slot_ready_[slot]->record(*copy_stream_);
    events_.back().second->record(*copy_stream_);
  }
#endif
  return window_[slot].narrow(0, 0, n);
}

at::Tensor Delivery::held(int u, int slot) const {
  const int64_t n = env_.layout->units[u].numel;
  SLIDEDP_ASSERT(slot >= 0 && slot < static_cast<int>(window_.size()) && slot_unit_[slot] == u,
                 "unit {} is not in window slot {} (it holds unit {})", u, slot,
                 slot >= 0 && slot < static_cast<int>(slot_unit_.size()) ? slot_unit_[slot] : -2);
  SLIDEDP_ASSERT(slot_step_[slot] == step_, "unit {} in window slot {} was delivered {} step(s) ago, not in this "
                 "one (a delivery the window schedule needs was skipped)", u, slot, step_ - slot_step_[slot]);
  return window_[slot].narrow(0, 0, n);
}

void Delivery::use(int slot) {
#ifdef SLIDEDP_WITH_CUDA
  if (env_.cuda) slot_ready_[slot]->block(c10::cuda::getCurrentCUDAStream(env_.device.index()));
#endif
}

void Delivery::release(int slot) {
#ifdef SLIDEDP_WITH_CUDA
  if (env_.cuda) slot_free_[slot]->record(c10::cuda::getCurrentCUDAStream(env_.device.index()));
#endif
}

void Delivery::beginStep() {
  ++step_;
  cpu_busy_s_ = 0;
#ifdef SLIDEDP_WITH_CUDA
  events_.clear();
#endif
}

double Delivery::busySeconds() {
#ifdef SLIDEDP_WITH_CUDA
  if (env_.cuda) {
    double s = 0;
    for (auto& [b, e] : events_) {
      e->synchronize();
      s += b->elapsed_time(*e) * 1e-3;
    }
    return s;
  }
#endif
  return cpu_busy_s_;
}

}  // namespace slidedp::routes
