// The part of every delivery route that is the same: the window's slots, their ready/free
// events, the copy stream and the busy-time account (see delivery.h).
#include "routes/delivery.h"

#include <ATen/ATen.h>

#include <cstring>

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
    for (int k = 0; k < env_.window_slots; ++k) {
      slot_ready_.push_back(std::make_shared<at::cuda::CUDAEvent>());
      slot_free_.push_back(std::make_shared<at::cuda::CUDAEvent>());
    }
  }
#endif
  if (allocate_window)
    for (int k = 0; k < env_.window_slots; ++k)
      window_.push_back(at::empty({env_.window_numel}, at::TensorOptions().dtype(env_.cdtype).device(env_.device)));
}

Delivery::~Delivery() = default;

const char* Delivery::hostUnit(int u) const {
  const auto& unit = env_.state->units[u];
  const char* region = deliveryRegion(*env_.state, env_.cdtype == at::kFloat);
  if (env_.cdtype == at::kFloat)
    return reinterpret_cast<const char*>(env_.seg->regionAs<float>(region) + unit.offset);
  return reinterpret_cast<const char*>(env_.seg->regionAs<uint16_t>(region) + unit.offset);
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
  if (!env_.cuda) {
    const uint64_t t0 = shm::monotonicNs();
    fill(u, slot);
    cpu_busy_s_ += (shm::monotonicNs() - t0) * 1e-9;
  }
#ifdef SLIDEDP_WITH_CUDA
  if (env_.cuda) {
    c10::cuda::CUDAStreamGuard guard(*copy_stream_);
    slot_free_[slot]->block(*copy_stream_);  // the slot's previous compute is done
    events_.emplace_back(std::make_shared<at::cuda::CUDAEvent>(cudaEventDefault),
                         std::make_shared<at::cuda::CUDAEvent>(cudaEventDefault));
    events_.back().first->record(*copy_stream_);
    fill(u, slot);
    slot_ready_[slot]->record(*copy_stream_);
    events_.back().second->record(*copy_stream_);
  }
#endif
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
