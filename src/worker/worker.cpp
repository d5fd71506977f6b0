// Worker implementation (see worker.h). The only TU of the runtime that includes LibTorch;
// it compiles fmt header-only from LibTorch's bundled copy (src/model/CMakeLists.txt).
#include "worker/worker.h"

#include <mpi.h>

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>
#include <torch/types.h>
#include <torch/utils.h>

#include <array>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <fstream>
#include <functional>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>
#include <tuple>

#include "common/errors.h"
#include "common/log_line.h"
#include "common/thread_placement.h"
#include "model/decoder.h"
#include "model/layer_flops.h"
#include "model/memory_terms.h"
#include "model/mlp_tiles.h"
#include "formats/fs_util.h"
#include "kernels/lt_matmul.h"
#include "profiling/gpu_profile.h"
#include "profiling/scope.h"
#include "profiling/scope_bytes.h"
#include "common/bf16.h"
#include "routes/node_gather.h"
#include "routes/registry.h"
#include "runtime/accumulation_passes.h"
#include "runtime/accumulator_fit.h"
#include "runtime/fault_injection.h"
#include "runtime/host_memory.h"
#include "runtime/test_hooks.h"
#include "runtime/token_rows.h"
#include "runtime/window_schedule.h"
#include "shm/control_block.h"
#include "worker/input_placement.h"
#include "worker/memory_snapshot.h"
#include "worker/pinned_pool.h"
#ifdef SLIDEDP_WITH_CUDA
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime_api.h>

#include "cuda/checks.h"
#include "cuda/device.h"
#endif

namespace slidedp {

namespace {
uint64_t nowNs() { return shm::monotonicNs(); }
double sec(uint64_t a, uint64_t b) { return (b - a) * 1e-9; }
// Unit gradients the backward may have queued for the hand-off thread while the layers' inputs
// are in host memory (see the backward loop): the GPU keeps two layers of work queued.
constexpr int kPendingGradients = 3;
const std::function<void()> kNoHook;
}  // namespace

/// A unit's gradient on its way to the leader.
struct HandoffJob {
  int64_t step = 0;
  int unit = 0;
  at::Tensor grad;     // contiguous, fp32 or bf16 (staging dtype), on the compute device: what
                       // the reduction route left for the leader (routes/reduction.h)
  int64_t offset = 0;  // element of the unit where grad[0] belongs
  int subslot = 0;     // staging sub-slot it goes to
  ChunkPass pass = ChunkPass::kWhole;  // kEmbeddingTokens: grad is packed (TokenRows order);
                                       // kEmbeddingDense without grad: publish, write nothing
  // The pass's chunks of the unit this job writes: [chunk_first, chunk_end) of its list in plan
  // order (a gradient bucket, ChunkPlan::bucket_splits), or all of them (chunk_end < 0).
  int64_t chunk_first = 0, chunk_end = -1;
  bool ends_unit = true;  // the unit's last job (counted by waitPendingUnits)
#ifdef SLIDEDP_WITH_CUDA
  std::shared_ptr<at::cuda::CUDAEvent> ready;  // grad computed (recorded on its stream)
#endif
};

struct Worker::Impl {
  const RankContext& ctx;
  const shm::Segment& seg;
  HostStateSpec spec;
  const HostStateLayout& state;
  const model::ModelConfig& config;
  const model::ParamLayout& layout;
  const ChunkPlan& plan;
  TrainOptions opts;
  int G = 1, w = 0;
  int64_t base_step = 0;  // steps before this run (resume)
  bool cuda = false;
  at::Device device = at::kCPU;
  at::ScalarType cdtype = at::kFloat;   // compute dtype
  at::ScalarType sdtype = at::kFloat;   // staging dtype
  int64_t max_window_numel = 0;        // elements per rotating window slot
  int64_t resident_numel = 0;          // elements of the resident slot (0: none)
  WindowSchedule sched;                // which slot holds which unit (runtime/window_schedule.h)
  // The routes (src/routes/): the delivery owns the window (K slots and the resident one).
  // Fully sharded across nodes: the delivery copy's all-gather between the nodes (declared
  // first: the delivery points to it).
  std::unique_ptr<routes::NodeGather> node_gather;
  std::unique_ptr<routes::RouteResources> route_resources;
  std::unique_ptr<routes::Delivery> delivery;
  std::unique_ptr<routes::Reduction> reduction;
  std::vector<std::vector<int64_t>> unit_chunks;  // per unit: indices into plan.chunks
  std::vector<int64_t> first_bucket_chunks;       // per unit: chunks of its first bucket (0: one)
  std::vector<int64_t> dense_chunks, token_chunks;  // the row-split embedding's two passes
  // The step's token rows (the row-split embedding update): the union over every worker of
  // the input tokens' bitmap; read by the hand-off thread until the step's waitIdle().
  std::vector<uint64_t> token_words;
  TokenRows token_rows;

  // hand-off thread
  std::mutex mu;
  std::condition_variable cv;
  std::deque<HandoffJob> queue;
  int in_flight = 0;
  int units_in_flight = 0;  // jobs queued or running that end their unit
  bool stopping = false;
  std::exception_ptr handoff_error;
  std::thread handoff_thread;
  double d2h_busy_s = 0;     // summed by the hand-off thread (guarded by mu)
  std::vector<TraceSpan> handoff_trace;  // hand-off thread spans of this step (guarded by mu)
  // Activation policy (auto): the budget, and the reserve above the end-of-forward level that
  // the head and backward of the previous step needed (-1: not measured yet).
  int64_t budget_bytes = 0;
  int64_t gpu_total_bytes = 0;  // the GPU's memory (cudaMemGetInfo's total)
  int64_t measured_reserve = -1;
  int64_t measured_tokens = -1;    // the step's tokens the reserve was measured for
  int64_t measured_passes = 0;     // and its accumulation steps
  bool recording_memory = false;   // --memory-snapshot: the allocator's history is recorded
  int64_t fragmentation = 0;       // peak reserved - peak allocated bytes of the last step that
                                   // grew the allocator's reserve (see the end of trainStep)

  // Exact-size pinned host buffers of offloaded layer inputs (pinned_pool.h), reused across
  // steps; every copy into or out of them runs on offload_stream.
  std::shared_ptr<HostBufferPool> offload_pool;
  size_t step_offload_bytes = 0;      // pinned bytes this step's offloaded inputs took
  size_t prev_step_offload_bytes = 0;  // and the previous step's
  int64_t host_short_warned_step = 0;  // the step hostRoomFor() last warned in

#ifdef SLIDEDP_WITH_CUDA
  std::optional<c10::cuda::CUDAStream> d2h_stream, offload_stream;
  // Timing events of the phase boundaries on the compute stream.
  std::shared_ptr<at::cuda::CUDAEvent> timedEvent() {
    return std::make_shared<at::cuda::CUDAEvent>(cudaEventDefault);
  }
  // The host regions this worker DMAs from/to, page-locked for the GPU (cudaHostRegister):
  // the delivery source (bf16 copy or FP32 master) and the gradient staging ring.
  std::vector<cuda::HostRegistration> registrations;
  // The embedding's delivery copy in host memory, mapped (the host lookup; else undefined).
  at::Tensor host_embedding;
#endif

  Impl(const RankContext& c, const shm::Segment& s, const HostStateSpec& sp,
       const HostStateLayout& st, const model::ModelConfig& cfg, const model::ParamLayout& l,
       const ChunkPlan& p, const TrainOptions& o)
      : ctx(c), seg(s), spec(sp), state(st), config(cfg), layout(l), plan(p), opts(o) {
    G = spec.num_workers;
    w = ctx.local_rank - 1;
    cuda = ctx.device == DeviceKind::kCuda;
    cdtype = opts.bf16_compute ? at::kBFloat16 : at::kFloat;
    sdtype = opts.bf16_staging ? at::kBFloat16 : at::kFloat;
    if (opts.window_slots < 2)
      throwUserError("window_slots (K) must be >= 2 so the next delivery overlaps compute; got {}",
                     opts.window_slots);
    if (opts.offload_activations && !cuda)
      throwUserError("--offload-activations applies to GPU workers only (CPU workers keep "
                     "activations in host memory already)");
    indexPlan();
    // The resident embedding: tied, the delivery copy whole on the node (fully sharded across
    // nodes, each slot has a pinned gather buffer the host budget counts K of).
    sched.K = opts.window_slots;
    sched.L = static_cast<int>(config.numLayers);
    sched.resident = config.tieWordEmbeddings && !state.copy_sharded && sched.L >= 1;
    std::vector<int64_t> numels;
    for (const auto& u : layout.units) numels.push_back(u.numel);
    std::tie(max_window_numel, resident_numel) = sched.slotNumels(numels, G);
#ifdef SLIDEDP_WITH_CUDA
    if (cuda) {
      device = at::Device(at::kCUDA, static_cast<c10::DeviceIndex>(ctx.gpu));
      c10::cuda::set_device(static_cast<c10::DeviceIndex>(ctx.gpu));
      d2h_stream = c10::cuda::getStreamFromPool(false, device.index());
      offload_stream = c10::cuda::getStreamFromPool(false, device.index());
      offload_pool = HostBufferPool::create(/*pinned=*/true);
      for (const char* name : {deliveryRegion(state, cdtype == at::kFloat), kStagingRegion}) {
        const shm::Region& r = seg.layout().at(name);
        registrations.emplace_back(seg.region(name), (r.bytes() + 4095) / 4096 * 4096);
      }
      // The host lookup (runtime/window_schedule.h): the embedding's delivery copy, whole on
      // this node (resident), as a device tensor the lookup's gather reads through PCIe.
      sched.host_lookup = sched.resident && opts.host_embedding_lookup;
      if (sched.lookupFromHost()) {
        const char* region = deliveryRegion(state, cdtype == at::kFloat);
        const size_t es = cdtype == at::kFloat ? 4 : 2;
        const char* copy = static_cast<const char*>(seg.region(region)) + state.copy[0].offset * es;
        host_embedding = at::for_blob(const_cast<void*>(cuda::HostRegistration::mappedPointer(copy)),
                                      {layout.units[0].numel})
                             .options(at::TensorOptions().dtype(cdtype).device(device))
                             .target_device(device)
                             .make_tensor();
      }
      setBudget(opts.gpu_memory_budget_gib);
    }
#endif
    if (!cuda) at::set_num_threads(1);  // CPU workers share the host with the leader
    model::setAttentionKernel(opts.attention == AttentionChoice::kFlash ? model::AttentionKernel::kFlash
                              : opts.attention == AttentionChoice::kCudnn ? model::AttentionKernel::kCudnn
                              : opts.attention == AttentionChoice::kFa3   ? model::AttentionKernel::kFa3
                                                                          : model::AttentionKernel::kAuto);
    model::setMlpTileTokens(opts.mlp_tile_tokens);
    kernels::setGemmAlgorithm(opts.timed_gemm_algorithms ? kernels::GemmAlgorithm::kTimed
                                                         : kernels::GemmAlgorithm::kLibrary);
    if (opts.activations == ActivationPolicy::kAttentionOutput && !attentionOutputAvailable())
      throwUserError("--activations attention-output needs the attention's log-sum-exp, which "
                     "fp32 GPU workers do not keep.\nHINT: use --precision bf16 (the default on GPUs)");
    // Last: the routes' set-up is collective over the workers (NCCL communicators, IPC handles).
    if (state.copy_sharded)
      node_gather = std::make_unique<routes::NodeGather>(ctx, plan, state, at::elementSize(cdtype));
    route_resources = std::make_unique<routes::RouteResources>(routeEnv());
    makeRoutes();
    handoff_thread = std::thread([this] { handoffLoop(); });
  }

  ~Impl() {
    {
      std::lock_guard<std::mutex> lock(mu);
      stopping = true;
    }
    cv.notify_all();
    if (handoff_thread.joinable()) handoff_thread.join();
#ifdef SLIDEDP_WITH_CUDA
    // No offload copy may still read a pinned buffer the pool frees (errors ignored: teardown).
    if (cuda && offload_stream) (void)cudaStreamSynchronize(offload_stream->stream());
#endif
  }

  // ---- routes ----------------------------------------------------------------------------
  routes::RouteEnv routeEnv() const {
    routes::RouteEnv e;
    e.ctx = &ctx;
    e.seg = &seg;
    e.spec = &spec;
    e.state = &state;
    e.layout = &layout;
    e.G = G;
    e.w = w;
    e.cuda = cuda;
    e.device = device;
    e.cdtype = cdtype;
    e.sdtype = sdtype;
    e.window_slots = opts.window_slots;
    e.window_numel = max_window_numel;
    e.resident_numel = resident_numel;
    e.wait_timeout_s = opts.wait_timeout_s;
    e.node_gather = node_gather.get();
    return e;
  }
  /// (Re)creates the delivery and reduction of opts. Collective over the workers.
  void makeRoutes() {
    delivery.reset();  // an IPC route's buffers go before the next route allocates its own
    reduction.reset();
    delivery = routes::makeDelivery(routeEnv(), opts.delivery, *route_resources);
    reduction = routes::makeReduction(routeEnv(), opts.reduction, *route_resources);
  }

  // ---- activation policy -------------------------------------------------------------------
  void setBudget(double gib) {
#ifdef SLIDEDP_WITH_CUDA
    size_t free_b = 0, total_b = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    const int64_t total = static_cast<int64_t>(total_b);
    gpu_total_bytes = total;
    budget_bytes = gib > 0 ? static_cast<int64_t>(gib * (1ull << 30)) : total - (int64_t{3} << 30);
    if (budget_bytes > total)
      throwUserError("--gpu-memory-budget {} GiB exceeds GPU {}'s {:.1f} GiB", gib, ctx.gpu,
                     total / double(1ull << 30));
#else
    (void)gib;
#endif
  }

  /// Why `o`'s --gradient-accumulation-steps N > 1 cannot run here, or "": its fp32
  /// accumulators (every unit's, allocated up front in step()) and the window exceed the GPU
  /// before any activation (runtime/accumulator_fit.h). The limit is the GPU's memory, or the
  /// --gpu-memory-budget given under --activations auto (the only policy that honours it).
  std::string accumulatorsProblem(const TrainOptions& o) const {
    if (!cuda) return {};
    int64_t numel = 0;
    for (int u = 1; u < layout.numUnits(); ++u) numel += layout.units[u].numel;
    if (config.tieWordEmbeddings || !plan.split_embedding) numel += layout.units[0].numel;
    // the window and the budget are the job's (a variant changes neither)
    const int64_t window = (opts.window_slots * max_window_numel + resident_numel) *
                           static_cast<int64_t>(at::elementSize(cdtype));
    const AccumulatorLimit limit = accumulatorLimit(
        opts.gpu_memory_budget_gib > 0, o.activations == ActivationPolicy::kAuto, budget_bytes, gpu_total_bytes);
    return accumulatorsOverBudget(o.accumulation_steps, 4 * numel, window, limit.bytes, limit.what);
  }

  /// The caching allocator's byte counters of this worker's GPU (zeros on CPU workers).
  struct MemStat {
    int64_t allocated = 0, peak_allocated = 0, reserved = 0, peak_reserved = 0;
  };
  MemStat memStat() const {
#ifdef SLIDEDP_WITH_CUDA
    if (cuda) {
      const auto st = c10::cuda::CUDACachingAllocator::getDeviceStats(device.index());
      // What the routes hold outside the allocator (IPC buffers) counts as allocated all along.
      const int64_t routes = delivery->deviceBytes() + reduction->deviceBytes();
      return {st.allocated_bytes[0].current + routes, st.allocated_bytes[0].peak + routes,
              st.reserved_bytes[0].current + routes, st.reserved_bytes[0].peak + routes};
    }
#endif
    return {};
  }
  /// unit_chunks, dense_chunks, token_chunks and first_bucket_chunks from `plan` (at
  /// construction, and after the plan changed between steps: Worker::planChanged).
  void indexPlan() {
    unit_chunks.assign(static_cast<size_t>(layout.numUnits()), {});
    dense_chunks.clear();
    token_chunks.clear();
    for (int64_t i = 0; i < plan.chunksPerStep(); ++i) {
      const ChunkPass pass = plan.chunks[i].pass;
      (pass == ChunkPass::kWhole ? unit_chunks[plan.chunks[i].unit]
       : pass == ChunkPass::kEmbeddingDense ? dense_chunks : token_chunks).push_back(i);
    }
    first_bucket_chunks.assign(layout.numUnits(), 0);
    for (int u = 0; u < layout.numUnits(); ++u)
      for (int64_t i : unit_chunks[u])
        first_bucket_chunks[u] += plan.bucketSplit(u) > 0 && plan.chunks[i].begin >= plan.bucketSplit(u);
  }
  /// A new batch shape: what was measured for the old one no longer holds, and the cached blocks
  /// of its sizes go back to the device.
  /// A step of another shape (`tokens` per accumulation step, `passes` of them: with several
  /// the gradients are allocated before the forward, so the reserve above it is another):
  /// what the last one measured does not apply.
  void newShape(int64_t tokens, int64_t passes) {
    if (tokens == measured_tokens && passes == measured_passes) return;
    measured_reserve = -1;
    fragmentation = 0;
    measured_tokens = tokens;
    measured_passes = passes;
#ifdef SLIDEDP_WITH_CUDA
    if (cuda) {
      c10::cuda::CUDACachingAllocator::emptyCache();
      // The old shape's pinned buffers: freed once no copy of the offload stream reads them.
      CUDA_CHECK(cudaStreamSynchronize(offload_stream->stream()));
      offload_pool->clear();
      prev_step_offload_bytes = 0;
    }
#endif
  }
  void resetPeak() const {
#ifdef SLIDEDP_WITH_CUDA
    if (cuda) c10::cuda::CUDACachingAllocator::resetPeakStats(device.index());
#endif
  }

  /// Rows per MLP tile of a micro-batch of `mb_tokens` tokens (0: untiled; model/mlp_tiles.h).
  int64_t mlpTile(int64_t mb_tokens) const {
    return model::mlpTileRows(config, mb_tokens, at::elementSize(cdtype));
  }

  /// Whether this worker's kept layers carry the attention's log-sum-exp, so a layer may keep
  /// only its attention output (model::keepsAttentionLse).
  bool attentionOutputAvailable() const { return model::keepsAttentionLse(cuda, cdtype); }

  /// Bytes a kept decoder layer holds beyond its input, for `tokens` tokens (the tensors of
  /// model::LayerActivations other than x) in micro-batches of `mb_tokens` (a tiled MLP keeps
  /// no gate/up output).
  int64_t keptBytes(int64_t tokens, int64_t mb_tokens) const {
    return model::keptLayerBytes(memoryShape(), tokens, mlpTile(mb_tokens) > 0);
  }
  /// This worker's layer shape for the memory formulas (model/memory_terms.h).
  model::LayerMemoryShape memoryShape() const {
    return model::LayerMemoryShape::of(config, at::elementSize(cdtype), cuda);
  }

  /// Bytes a layer keeping only its attention output holds beyond its input, for `tokens`
  /// tokens: the output [tokens, Q] and the fp32 log-sum-exp [H] per token.
  int64_t attentionOutputBytes(int64_t tokens) const {
    return model::attentionOutputBytes(memoryShape(), tokens);
  }

  /// Whether the GPU budget is better spent keeping the attention output of every remaining
  /// layer before keeping any whole (auto): model::attentionOutputFirst (layer_flops.h).
  bool attentionOutputFirst(int64_t T, int64_t tokens, int64_t mb_tokens) const {
    if (!attentionOutputAvailable()) return false;
    const auto s = model::LayerFlopsShape::of(config, layout.units[1].numel, T, int64_t(at::elementSize(cdtype)));
    return model::attentionOutputFirst(s, double(mb_tokens), attentionOutputBytes(tokens) / double(tokens),
                                       keptBytes(tokens, mb_tokens) / double(tokens));
  }

  /// What the head and the backward need above the end-of-forward level (a shape estimate
  /// until the first step has measured it): the head's logits chunk and fp32 gradients, one
  /// recomputed layer's activations and temporaries per micro-batch, three fp32 unit gradients.
  /// The estimate is about twice what a step measures at the 4B shape (2.0-2.7x from 4K to 576K
  /// tokens, tools/bench/results/2026-12-04e-h200x1-reserve/); under --policy auto the first
  /// step takes calibration's measured reserve for its model and shape where that is smaller
  /// (opts.first_step_reserve_bytes, set by train_job.cpp where its conditions hold). Until
  /// measured, the update tail's fp32 gradients are added whole (tailGradientBytes); a measured
  /// reserve holds them already (they are allocated in the backward, above the forward's level).
  int64_t reserveBytes(int64_t tokens, int64_t mb_tokens) const {
    if (measured_reserve >= 0) return measured_reserve + measured_reserve / 20 + (int64_t{256} << 20);
    const int64_t estimate = shapeReserveBytes(tokens, mb_tokens);
    return (opts.first_step_reserve_bytes > 0 ? std::min(estimate, opts.first_step_reserve_bytes) : estimate) +
           tailGradientBytes();
  }

  /// The update tail's fp32 gradients (layers 1..ChunkPlan::tail_units), held from their
  /// backward until their hand-off; 0 with several accumulation steps (the accumulators,
  /// allocated up front, are those gradients). Bytes.
  int64_t tailGradientBytes() const {
    if (opts.accumulation_steps > 1) return 0;
    int64_t bytes = 0;
    for (int u = 1; u <= plan.tail_units; ++u) bytes += 4 * layout.units[u].numel;
    return bytes;
  }

  /// reserveBytes' shape estimate (model::reserveEstimateBytes; the step-time model prices
  /// the same).
  int64_t shapeReserveBytes(int64_t tokens, int64_t mb_tokens) const {
    int64_t max_unit = 0;
    for (const auto& u : layout.units) max_unit = std::max(max_unit, u.numel);
    return model::reserveEstimateBytes(memoryShape(), tokens, mb_tokens,
                                       model::lossChunkTokens(opts.loss_chunk_tokens, config.vocabSize),
                                       mlpTile(mb_tokens), layout.units[0].numel,
                                       layout.units.back().numel, max_unit);
  }

  // ---- delivery (routes/delivery.h) -------------------------------------------------------
  at::Tensor deliver(int u, int slot) { return delivery->deliver(u, slot); }
  at::Tensor held(int u, int slot) { return delivery->held(u, slot); }
  void use(int slot) { delivery->use(slot); }
  void release(int slot) { delivery->release(slot); }

  void waitVersion(int u, int64_t version, double* waited) {
    const shm::ControlBlock& cb = seg.control();
    const uint64_t t0 = nowNs();
    cb.waitAtLeast(cb.layerVersion(u), static_cast<uint64_t>(version), opts.wait_timeout_s,
                   ctx.describe(), [&] { return fmt::format("layer_version[unit {}]", u); });
    *waited += sec(t0, nowNs());
  }

  // ---- layer-boundary activations (CUDA: placed on the GPU or in pinned host memory) ------
  /// Keeps `x` (a recomputed layer's input, on the device) for backward: as is, or (`to_host`)
  /// as a copy in an exact-size pinned host buffer (offload_pool; torch's pinned allocator would
  /// round it up to a power of two), made on the offload stream once the compute stream has
  /// produced it. A new buffer that would leave the host less than hostHeadroomBytes() (the
  /// OOM killer would end the job) is not made: `x` stays on the GPU, with a warning naming the
  /// bytes (the GPU budget's reserve is an estimate until a step has measured it; if the GPU
  /// does run out, that error names the step).
  at::Tensor keepActivation(const at::Tensor& x, bool to_host, int unit, int64_t step) {
#ifdef SLIDEDP_WITH_CUDA
    if (cuda && to_host) {
      SLIDEDP_ASSERT(x.is_contiguous(), "an offloaded activation must be contiguous");
      const size_t bytes = x.nbytes();
      if (!offload_pool->hasIdle(bytes) && !hostRoomFor(bytes, unit, step)) return x;
      step_offload_bytes += HostBuffer::roundUp(bytes);
      auto compute = c10::cuda::getCurrentCUDAStream(device.index());
      at::cuda::CUDAEvent produced;
      produced.record(compute);
      produced.block(*offload_stream);
      std::shared_ptr<HostBuffer> buf = offload_pool->acquire(bytes);
      CUDA_CHECK(cudaMemcpyAsync(buf->data(), x.data_ptr(), bytes, cudaMemcpyDeviceToHost,
                                 offload_stream->stream()));
      // x may be freed by the caller; the allocator must not reuse it before the copy ends.
      c10::cuda::CUDACachingAllocator::recordStream(x.storage().data_ptr(), *offload_stream);
      // The host tensor owns the buffer: dropping it returns the buffer to the pool.
      return at::from_blob(buf->data(), x.sizes(), [buf](void*) mutable { buf.reset(); },
                           x.options().device(at::kCPU));
    }
#else
    (void)to_host, (void)unit, (void)step;
#endif
    return x;
  }

  /// What a new pinned buffer must leave the host (bytes of MemAvailable;
  /// runtime/host_memory.h pinnedHeadroomBytes).
  static int64_t hostHeadroomBytes() { return static_cast<int64_t>(pinnedHeadroomBytes(memTotalBytes())); }
  bool hostRoomFor(size_t bytes, int unit, int64_t step) {
    const uint64_t avail = memAvailableBytes();
    if (avail == 0) return true;  // unknown (no /proc/meminfo): cudaHostAlloc's own error remains
    if (static_cast<int64_t>(avail) - static_cast<int64_t>(bytes) >= hostHeadroomBytes()) return true;
    const double gib = double(1ull << 30);
    if (host_short_warned_step != step)
      logWarning(fmt::format("{}: step {}: layer {}'s input ({:.2f} GiB) and the later offloaded ones "
                       "stay on the GPU beyond its budget estimate: the host has {:.1f} GiB "
                       "available, {:.1f} GiB of which stay free for the leader and the page "
                       "cache (pinned layer inputs held: {:.1f} GiB). If the GPU runs out, use a "
                       "shorter --seq-len, fewer rows per worker or a machine with more RAM",
                       ctx.describe(), step, unit, bytes / gib, avail / gib,
                       hostHeadroomBytes() / gib, offload_pool->bytesHeld() / gib));
    host_short_warned_step = step;
    return false;
  }

  /// Starts bringing unit u's kept inputs back to the device (those in pinned host memory);
  /// returns the device tensors, usable on the compute stream after awaitActivations().
  std::vector<at::Tensor> prefetchActivations(const std::vector<at::Tensor>& kept,
                                              std::shared_ptr<void>* ready) {
#ifdef SLIDEDP_WITH_CUDA
    const bool any_host = std::any_of(kept.begin(), kept.end(), [](const at::Tensor& t) { return t.is_cpu(); });
    if (cuda && any_host) {
      std::vector<at::Tensor> dev;
      // Allocated from the compute stream's pool (one pool for every activation: blocks of the
      // offload stream's own pool stayed reserved beside it, and the budget's fragmentation
      // term grew with them); the copy starts once the compute stream has reached this point,
      // so no kernel queued before still uses the block, and one layer's backward hides it.
      for (const auto& h : kept) dev.push_back(h.is_cpu() ? at::empty(h.sizes(), h.options().device(device)) : h);
      at::cuda::CUDAEvent allocated;
      allocated.record(c10::cuda::getCurrentCUDAStream(device.index()));
      allocated.block(*offload_stream);
      for (size_t i = 0; i < kept.size(); ++i) {  // pinned (pinned_pool.h): asynchronous H2D
        if (!kept[i].is_cpu()) continue;
        CUDA_CHECK(cudaMemcpyAsync(dev[i].data_ptr(), kept[i].data_ptr(), kept[i].nbytes(),
                                   cudaMemcpyHostToDevice, offload_stream->stream()));
        // freed without awaitActivations (an error): not reused before the copy ends
        c10::cuda::CUDACachingAllocator::recordStream(dev[i].storage().data_ptr(), *offload_stream);
      }
      auto ev = std::make_shared<at::cuda::CUDAEvent>();
      ev->record(*offload_stream);
      *ready = ev;
      return dev;
    }
#endif
    return kept;
  }

  void awaitActivations(const std::shared_ptr<void>& ready, const std::vector<at::Tensor>& dev) {
#ifdef SLIDEDP_WITH_CUDA
    if (ready) {
      auto compute = c10::cuda::getCurrentCUDAStream(device.index());
      static_cast<at::cuda::CUDAEvent*>(ready.get())->block(compute);
      (void)dev;  // allocated on the compute stream (prefetchActivations): nothing to record
    }
#endif
  }

  /// The host lookup's embedding (runtime/window_schedule.h): the [numel] delivery copy in
  /// host memory as a device tensor (set up by the constructor; undefined without the lookup).
  at::Tensor hostEmbedding() const {
#ifdef SLIDEDP_WITH_CUDA
    return host_embedding;
#else
    return at::Tensor();
#endif
  }

  /// A tied LM head's embedding (`*embed_flat`): still resident from the forward, or delivered
  /// again (runtime/window_schedule.h); its slot, marked in use, or -1 when untied.
  int headEmbedding(at::Tensor* embed_flat) {
    if (!config.tieWordEmbeddings) return -1;
    const int slot = sched.headEmbeddingSlot();
    *embed_flat = sched.headDeliversEmbedding() ? deliver(0, slot) : held(0, slot);
    use(slot);
    return slot;
  }

  // ---- hand-off --------------------------------------------------------------------------
  void enqueue(HandoffJob job) {
    {
      std::unique_lock<std::mutex> lock(mu);
      if (handoff_error) std::rethrow_exception(handoff_error);
      units_in_flight += job.ends_unit;
      queue.push_back(std::move(job));
      ++in_flight;
    }
    cv.notify_all();
  }

  /// Waits until fewer than `n` units' hand-offs are queued or running (n >= 1).
  void waitPendingUnits(int n) {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return units_in_flight < n || handoff_error; });
    if (handoff_error) std::rethrow_exception(handoff_error);
  }

  void waitIdle() {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return in_flight == 0 || handoff_error; });
    if (handoff_error) std::rethrow_exception(handoff_error);
  }

  void handoffLoop() {
    useAllRankCores();  // not only the main thread's core (common/thread_placement.h)
#ifdef SLIDEDP_WITH_CUDA
    if (cuda) c10::cuda::set_device(device.index());
#endif
    for (;;) {
      HandoffJob job;
      {
        std::unique_lock<std::mutex> lock(mu);
        cv.wait(lock, [&] { return stopping || !queue.empty(); });
        if (queue.empty()) return;
        job = std::move(queue.front());
        queue.pop_front();
      }
      try {
        runJob(job);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mu);
        handoff_error = std::current_exception();
      }
      {
        std::lock_guard<std::mutex> lock(mu);
        --in_flight;
        units_in_flight -= job.ends_unit;
        job = HandoffJob();  // drop the gradient before signalling
      }
      cv.notify_all();
    }
  }

  /// Writes job's gradient into the staging ring, chunk by chunk in plan order, publishing
  /// each chunk as soon as it is there.
  void runJob(const HandoffJob& job) {
    const uint64_t job_begin = nowNs();
    struct Record {
      Impl* self;
      const HandoffJob& job;
      uint64_t begin;
      ~Record() {
        std::lock_guard<std::mutex> lock(self->mu);
        self->handoff_trace.push_back({fmt::format("hand-off unit {}{}", job.unit, job.ends_unit ? "" : " (first bucket)"),
                                       1, begin, nowNs()});
      }
    } record{this, job, job_begin};
    const shm::ControlBlock& cb = seg.control();
    const int S = spec.num_slots;
    const size_t es = at::elementSize(sdtype);
    auto* staging = static_cast<char*>(seg.region(kStagingRegion));
    const bool write = job.grad.defined();
    const auto* g = write ? static_cast<const char*>(job.grad.data_ptr()) : nullptr;
    const int64_t g0 = job.offset, g1 = job.offset + (write ? job.grad.numel() : 0);
#ifdef SLIDEDP_WITH_CUDA
    if (cuda && job.ready) job.ready->block(*d2h_stream);
#endif
    const std::vector<int64_t>& chunks = job.pass == ChunkPass::kWhole ? unit_chunks[job.unit]
                                         : job.pass == ChunkPass::kEmbeddingDense ? dense_chunks
                                                                                  : token_chunks;
    const int64_t chunk_end = job.chunk_end < 0 ? static_cast<int64_t>(chunks.size()) : job.chunk_end;
    for (int64_t ci = job.chunk_first; ci < chunk_end; ++ci) {
      const int64_t i = chunks[ci];
      const Chunk& c = plan.chunks[i];
      const int64_t k = plan.sequence(job.step - base_step, i);
      const int slot = static_cast<int>(k % S);
      const uint64_t use = static_cast<uint64_t>(k / S);
      cb.waitAtLeast(cb.chunkConsumed(slot, ctx.local_rank), use, opts.wait_timeout_s,
                     ctx.describe(), [&] {
                       return fmt::format("chunk_consumed[slot {}][local rank {}] (step {}, unit {})",
                                          slot, ctx.local_rank, job.step, c.unit);
                     });
      // The part of the chunk inside the gradient (the whole chunk, or the part inside this
      // worker's reduced shard), into the sub-slot the reduction route chose. A token-pass
      // chunk is the packed range of its token rows, from the slot's start.
      int64_t cb0 = c.begin, ce0 = c.end;
      if (job.pass == ChunkPass::kEmbeddingTokens)
        cb0 = token_rows.packedIndex(c.begin), ce0 = token_rows.packedIndex(c.end);
      const int64_t a = std::max(cb0, g0), b = std::min(ce0, g1);
      char* dst = staging + HostStateLayout::stagingOffset(spec, slot, job.subslot) * es +
                  (a - cb0) * es;
      if (b > a) {
        const char* src = g + (a - g0) * es;
        const uint64_t t0 = nowNs();
        if (!cuda) std::memcpy(dst, src, (b - a) * es);
#ifdef SLIDEDP_WITH_CUDA
        if (cuda) {
          CUDA_CHECK(cudaMemcpyAsync(dst, src, (b - a) * es, cudaMemcpyDeviceToHost,
                                     d2h_stream->stream()));
          CUDA_CHECK(cudaStreamSynchronize(d2h_stream->stream()));
        }
#endif
        std::lock_guard<std::mutex> lock(mu);
        d2h_busy_s += sec(t0, nowNs());
      }
      cb.chunkReady(slot, ctx.local_rank).store(use + 1);  // release: publishes dst
      if (job.unit == (static_cast<int>(config.numLayers) + 1) / 2) killPoint("handoff", job.step);  // tests: mid-hand-off
    }
  }

  /// Sends unit u's gradient (fp32 [numel] on the device, summed over micro-batches) on its
  /// reduction route, then to the hand-off thread.
  /// `pass`: the row-split embedding's passes (grad undefined for an untied dense pass:
  /// the chunks are published without data; the cpu route, so nothing to reduce).
  void handOff(int64_t step, int u, at::Tensor grad_fp32, ChunkPass pass = ChunkPass::kWhole) {
    if (!grad_fp32.defined()) {
      HandoffJob job;
      job.step = step;
      job.unit = u;
      job.pass = pass;
      job.subslot = w;
      enqueue(std::move(job));
      return;
    }
    enqueueReduced(step, u, pass, reduction->reduce(u, grad_fp32), 0, -1, true);
  }

  /// Gradient buckets (ChunkPlan::bucket_splits): hands off decoder unit u's first bucket,
  /// [split, numel) of `grad_fp32`, which its backward has completed (decoderLayerBackward's
  /// onMlpGradients), while the rest of that backward runs. Only on a route that reduces
  /// buckets; returns whether it did (then handOffRest() sends the rest, else handOff() all).
  bool handOffFirstBucket(int64_t step, int u, const at::Tensor& grad_fp32) {
    const int64_t split = plan.bucketSplit(u), n = grad_fp32.numel();
    if (split <= 0 || !reduction->reducesBuckets()) return false;
    enqueueReduced(step, u, ChunkPass::kWhole,
                   reduction->reduceBucket(u, grad_fp32.narrow(0, split, n - split), split), 0,
                   first_bucket_chunks[u], false);
    return true;
  }
  /// The rest, [0, split), after the unit's backward.
  void handOffRest(int64_t step, int u, const at::Tensor& grad_fp32) {
    const int64_t split = plan.bucketSplit(u);
    enqueueReduced(step, u, ChunkPass::kWhole, reduction->reduceBucket(u, grad_fp32.narrow(0, 0, split), 0),
                   first_bucket_chunks[u], -1, true);
  }

  /// Queues a reduced gradient for chunks [first, end) of the pass's chunk list of unit u
  /// (end < 0: to its end); its CUDA readiness is the route's event or the current stream's
  /// work queued so far.
  void enqueueReduced(int64_t step, int u, ChunkPass pass, routes::ReducedGradient r, int64_t first,
                      int64_t end, bool ends_unit) {
    HandoffJob job;
    job.step = step;
    job.unit = u;
    job.pass = pass;
    job.grad = std::move(r.grad);
    job.offset = r.offset;
    job.subslot = r.subslot;
    job.chunk_first = first;
    job.chunk_end = end;
    job.ends_unit = ends_unit;
#ifdef SLIDEDP_WITH_CUDA
    if (cuda) {
      job.ready = std::move(r.ready);
      if (!job.ready) {
        job.ready = std::make_shared<at::cuda::CUDAEvent>();
        job.ready->record(c10::cuda::getCurrentCUDAStream(device.index()));
      }
    }
#endif
    enqueue(std::move(job));
  }

  // ---- one step --------------------------------------------------------------------------
  WorkerStepStats step(int64_t s, const LocalBatch& batch) {
    WorkerStepStats st;
    c10::InferenceMode no_inference(false);
    at::NoGradGuard no_grad;
    const int L = static_cast<int>(config.numLayers);
    const int head = layout.headUnit();
    if (batch.rows < 1) throwUserError("worker {} has no rows in step {}", ctx.describe(), s);
    config.checkSequenceLength(batch.T);
    for (int64_t id : batch.input_ids)
      if (id < 0 || id >= config.vocabSize)
        throwUserError("token id {} is outside the vocabulary [0, {}) of the model.\nHINT: the "
                       "data was tokenised with another tokenizer", id, config.vocabSize);

    // Global token count, agreed before backward: the loss is sum / global count.
    for (int64_t l : batch.labels) st.local_tokens += l != model::kIgnoreIndex;
    MPI_CHECK(MPI_Allreduce(&st.local_tokens, &st.global_tokens, 1, MPI_INT64_T, MPI_SUM, ctx.workers));
    if (st.global_tokens == 0)
      throwUserError("step {}: the global batch has no unmasked target token (all labels are -100)", s);
    const double grad_scale = 1.0 / static_cast<double>(st.global_tokens);
    // The row-split embedding update: the step's token rows, the union over the workers; the
    // first worker publishes them to the leader (by step parity: the leader may still read the
    // previous step's) before any hand-off of this step.
    if (plan.split_embedding) {
      // After an early agreement the previous step's token-pass hand-off (the first of its
      // tail) may still read token_rows: wait until only the tail's layers are in flight.
      waitPendingUnits(plan.tail_units + 1);
      token_words.assign(static_cast<size_t>(TokenRows::wordsFor(config.vocabSize)), 0);
      TokenRows::mark(batch.input_ids.data(), static_cast<int64_t>(batch.input_ids.size()), token_words.data());
      MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, token_words.data(), static_cast<int>(token_words.size()),
                              MPI_UINT64_T, MPI_BOR, ctx.workers));
      if (w == 0)
        std::memcpy(seg.regionAs<uint64_t>(kTokenRowsRegion) + (s % 2) * spec.token_row_words,
                    token_words.data(), token_words.size() * sizeof(uint64_t));
      token_rows = TokenRows(token_words.data(), config.vocabSize, config.hiddenSize);
    }

    // Micro-batches on the device, in accumulation steps: --gradient-accumulation-steps N runs
    // N forward + backward passes over consecutive parts of the rows (sizes differ by at most
    // one row), the layers delivered again for each, the gradients summed on the device and
    // handed off in the last; within a pass the micro-batches go layer by layer.
    const int64_t passes = opts.accumulation_steps;
    if (passes < 1 || passes > batch.rows)
      throwUserError("--gradient-accumulation-steps {} on worker {} with {} rows: every accumulation "
                     "step needs at least one row.\nHINT: --gradient-accumulation-steps {} or fewer, or "
                     "a larger --batch-size", passes, ctx.describe(), batch.rows, batch.rows);
    struct Micro {
      at::Tensor ids, labels, pos;
      at::Tensor token_rows;  // split embedding: each id's row in the packed token rows
      model::AttentionContext attn;
      at::Tensor h;  // running hidden state / gradient
    };
    const auto i64 = at::TensorOptions().dtype(at::kLong);
    // Pass p's micro-batches on the device, made as the pass begins (and dropped after it).
    auto passMicroBatches = [&](int64_t p) {
      std::vector<Micro> mbs;
      profiling::Scope to_device("worker.batch_to_device");
      const PassRows pr = passRowRange(batch.rows, passes, p);
      const int64_t p0 = pr.begin, p1 = pr.end;
      const int64_t mb_rows = opts.micro_batch_rows > 0 ? opts.micro_batch_rows : p1 - p0;
      for (int64_t r0 = p0; r0 < p1; r0 += mb_rows) {
        const int64_t r = std::min(mb_rows, p1 - r0);
        Micro m;
        m.ids = at::from_blob(const_cast<int64_t*>(batch.input_ids.data()) + r0 * batch.T, {r, batch.T}, i64).to(device);
        m.labels = at::from_blob(const_cast<int64_t*>(batch.labels.data()) + r0 * batch.T, {r, batch.T}, i64).to(device);
        if (!batch.position_ids.empty())
          m.pos = at::from_blob(const_cast<int64_t*>(batch.position_ids.data()) + r0 * batch.T, {r, batch.T}, i64).to(device);
        m.attn = model::makeAttentionContext(config, r, batch.T, m.pos, cdtype, device);
        if (plan.split_embedding) {
          at::Tensor rows = at::empty({r, batch.T}, i64);  // owns its data (CPU workers keep it)
          int64_t* packed = rows.data_ptr<int64_t>();
          const int64_t* ids = batch.input_ids.data() + r0 * batch.T;
          for (int64_t i = 0; i < r * batch.T; ++i) packed[i] = token_rows.rank(ids[i]);
          m.token_rows = rows.to(device);
        }
        mbs.push_back(std::move(m));
      }
      return mbs;
    };

    // Phase boundaries on the compute stream (CUDA) for busy times.
    delivery->beginStep();
    {
      std::lock_guard<std::mutex> lock(mu);
      d2h_busy_s = 0;
      handoff_trace.clear();
    }
#ifdef SLIDEDP_WITH_CUDA
    // per accumulation step: forward start, forward end, head end, backward end
    std::vector<std::array<std::shared_ptr<at::cuda::CUDAEvent>, 4>> ev(static_cast<size_t>(passes));
#endif
    std::vector<Micro> first_mbs = passMicroBatches(0);
    uint64_t t0 = nowNs();
    // The step's shape: an accumulation step's tokens (the largest, when they differ by a row).
    const int64_t pass_rows = largestPassRows(batch.rows, passes);
    const int64_t tokens = pass_rows * batch.T;
    const int64_t mb_tokens = std::min(opts.micro_batch_rows > 0 ? opts.micro_batch_rows : pass_rows, pass_rows) * batch.T;
    const int64_t boundary_bytes = tokens * config.hiddenSize * static_cast<int64_t>(at::elementSize(cdtype));
    newShape(tokens, passes);
    const int64_t reserve = reserveBytes(tokens, mb_tokens) + fragmentation;
    const bool attn_first = attentionOutputFirst(batch.T, tokens, mb_tokens);
    resetPeak();
    const int64_t reserved_at_start = memStat().reserved;
    int64_t step_peak = 0, step_peak_reserved = 0, pass_reserve = 0, last_forward_level = 0;
    size_t pass_offload_bytes = 0;
    // Gradients, fp32 per unit, summed over the micro-batches (and accumulation steps). With
    // several accumulation steps every unit's is allocated up front, so each step's activation
    // choices see them in the allocated bytes; else as each unit's backward begins.
    const auto f32 = at::TensorOptions().dtype(at::kFloat).device(device);
    std::vector<at::Tensor> grads(layout.numUnits());
    at::Tensor g_embed, packed;  // the embedding's (and, split, its packed token rows')
    const bool embed_grad = config.tieWordEmbeddings || !plan.split_embedding;
    if (passes > 1) {
      profiling::Scope zero("worker.grad_zero");
      for (int u = 1; u < layout.numUnits(); ++u) grads[u] = at::zeros({layout.units[u].numel}, f32);
      if (embed_grad) g_embed = at::zeros({layout.units[0].numel}, f32);
      if (plan.split_embedding) packed = at::zeros({token_rows.packedNumel()}, f32);
    }
    for (int64_t pass = 0; pass < passes; ++pass) {
      std::vector<Micro> mbs = pass == 0 ? std::move(first_mbs) : passMicroBatches(pass);
      const bool last_pass = pass + 1 == passes;
      // trace names: "pass p: " before each with several accumulation steps
      const std::string tp = passes > 1 ? fmt::format("pass {}: ", pass + 1) : std::string();
#ifdef SLIDEDP_WITH_CUDA
      auto mark = [&](int i) {
        if (!cuda) return;
        ev[pass][i] = timedEvent();
        ev[pass][i]->record(c10::cuda::getCurrentCUDAStream(device.index()));
      };
#else
      auto mark = [&](int) {};
#endif
      // What the step line reports of the activations: the last accumulation step's.
      st.kept_layers = st.attention_output_layers = st.offloaded_layers = 0;
      st.kept_bytes = 0;
      // ---- forward: units 0..L, each through every micro-batch ------------------------------
      if (pass > 0) t0 = nowNs();
      mark(0);
      std::vector<std::vector<at::Tensor>> acts(L + 1);  // acts[u][mb]: input of a recomputed unit u
      std::vector<std::vector<model::LayerActivations>> kept(L + 1);  // kept[u][mb]: kept unit u
      int offloaded_inputs = 0;  // recomputed layers 1..this keep their input in pinned host memory
      step_offload_bytes = 0;
      if (pass > 0) resetPeak();
      // Deliveries follow the window schedule (runtime/window_schedule.h): unit u in forwardSlot(u);
      // with the resident embedding, layer 1 goes first and the embedding stays until the head.
      at::Tensor layer_one;
      if (sched.layerOneFirst()) {
        waitVersion(1, s - 1, &st.delivery_wait_s);
        layer_one = deliver(1, sched.forwardSlot(1));
      }
      waitVersion(0, s - 1, &st.delivery_wait_s);
      // The host lookup reads the rows of version s-1 from host memory (the leader does not
      // write them again before this step's head has handed off its gradient); the copy into
      // the resident slot, for the head, follows layer 2's (embeddingDeliveryUnit).
      at::Tensor cur = sched.lookupFromHost() ? hostEmbedding() : deliver(0, sched.forwardSlot(0));
      for (int u = 0; u <= L; ++u) {
        if (u == (L + 1) / 2) killPoint("forward", s);  // tests: half of the forward done
        const int slot = sched.forwardSlot(u);
        at::Tensor next;
        const int next_unit = u < L ? u + 1 : head;
        if (u == 0 && layer_one.defined()) {
          next = layer_one;
        } else {
          waitVersion(next_unit, s - 1, &st.delivery_wait_s);
          next = deliver(next_unit, sched.forwardSlot(next_unit));  // prefetch overlaps this unit's compute
        }
        if (u == sched.embeddingDeliveryUnit()) deliver(0, sched.forwardSlot(0));
        if (!(u == 0 && sched.lookupFromHost())) use(slot);
        const uint64_t fwd_begin = nowNs();
        // Keep this layer's activations, or only its attention output? (auto: while what it
        // keeps, the boundary inputs of the layers after it and the reserve of head + backward
        // fit the budget; at long sequences the attention output of every remaining layer first,
        // see attentionOutputFirst.) --max-kept-layers caps the whole keeps only. A recomputed
        // layer's input goes to pinned host memory with --offload-activations, or when the GPU
        // cannot hold every recomputed layer's input (worker/input_placement.h: the first
        // offloaded_inputs layers; decided at layer 1, then no layer fits a keep).
        const bool offload_all = cuda && opts.offload_activations;
        if (u == 1 && cuda && !offload_all && opts.activations != ActivationPolicy::kKeep &&
            opts.activations != ActivationPolicy::kAttentionOutput) {
          offloaded_inputs = offloadedInputLayers(budget_bytes, memStat().allocated, reserve,
                                                  boundary_bytes, static_cast<int>(L));
          if (const int n = testHookInputsOnGpu(); n >= 0) offloaded_inputs = std::max(0, L - n);
          if (debugLogEnabled())
            logDebug(fmt::format("step {}: budget {} B, allocated {} B, reserve {} B (fragmentation {} B), one "
                                 "input {} B: {} of {} inputs to pinned host memory",
                                 s, budget_bytes, memStat().allocated, reserve, fragmentation, boundary_bytes,
                                 offloaded_inputs, L));
        }
        bool keep = false, attn_only = false;
        if (u > 0) {
          const bool may_keep = opts.max_kept_layers < 0 || st.kept_layers < opts.max_kept_layers;
          if (opts.activations == ActivationPolicy::kKeep) keep = may_keep;
          if (opts.activations == ActivationPolicy::kAttentionOutput) attn_only = true;
          if (opts.activations == ActivationPolicy::kAuto) {
            // The layers after this one hold their inputs on the GPU, unless they are recomputed
            // with their input in pinned host memory (planner/cost_model.cpp gpuPeakBytes counts
            // an offloaded layer as 0 GPU bytes, the same way).
            const int64_t later_on_gpu = offload_all ? 0 : L - std::max<int64_t>(u, offloaded_inputs);
            const int64_t later_inputs = later_on_gpu * boundary_bytes;
            const int64_t free_b = budget_bytes - memStat().allocated - later_inputs - reserve;
            const int64_t k = keptBytes(tokens, mb_tokens), a = attentionOutputBytes(tokens);
            if (!cuda) {
              keep = may_keep;
            } else if (attn_first) {
              // room for this keep and the attention output of every later layer (with its
              // input, which such a layer keeps on the GPU even when offloading)
              keep = may_keep && free_b >= k + (L - u) * (a + (offload_all ? boundary_bytes : 0));
              attn_only = !keep && free_b >= a;
            } else {
              keep = may_keep && free_b >= k;
              attn_only = !keep && attentionOutputAvailable() && free_b >= a;
            }
          }
        }
        if (u <= offloaded_inputs) keep = attn_only = false;  // (an attention output smaller than
                                                              // an input would otherwise fit)
        const bool input_to_host = offload_all || u <= offloaded_inputs;
        bool offloaded = false;  // (keepActivation leaves it on the GPU when the host is short)
        for (auto& m : mbs) {
          if (u == 0) {
            profiling::Scope scope("worker.embedding");
            m.h = model::embeddingForward(config, cur, m.ids);
          } else if (attn_only && !keep) {
            model::LayerActivations full;
            m.h = model::decoderLayerForward(config, layout.units[u], cur, m.h, m.attn, &full);
            kept[u].push_back(full.attentionOnly());
            st.kept_bytes += kept[u].back().bytes();
          } else if (keep) {
            kept[u].emplace_back();
            m.h = model::decoderLayerForward(config, layout.units[u], cur, m.h, m.attn, &kept[u].back());
            st.kept_bytes += kept[u].back().bytes();
          } else {
            acts[u].push_back(keepActivation(m.h, input_to_host, u, s));
            offloaded |= acts[u].back().is_cpu() && cuda;
            m.h = model::decoderLayerForward(config, layout.units[u], cur, m.h, m.attn);
          }
        }
        if (keep) ++st.kept_layers;
        if (attn_only && !keep) ++st.attention_output_layers;
        if (offloaded) ++st.offloaded_layers;
        if (!(u == 0 && sched.resident)) release(slot);  // the resident embedding: after the head
        st.trace.push_back({fmt::format("{}forward unit {}{}", tp, u,
                                        u == 0 && sched.lookupFromHost() ? " (lookup from host memory)" : ""),
                            0, fwd_begin, nowNs()});
        cur = next;
      }
      st.forward_s += sec(t0, nowNs());
      mark(1);
      const MemStat at_forward_end = memStat();
      const int64_t forward_level = at_forward_end.allocated;
      step_peak = std::max(step_peak, at_forward_end.peak_allocated);
      step_peak_reserved = std::max(step_peak_reserved, at_forward_end.peak_reserved);
      resetPeak();

      // ---- head: forward + backward of final norm, LM head and chunked cross-entropy --------
      t0 = nowNs();
      at::Tensor head_flat = cur;
      const int head_slot = sched.forwardSlot(head);
      at::Tensor embed_flat;
      const int embed_slot = headEmbedding(&embed_flat);  // version s-1 (unit 0 is updated last)
      use(head_slot);
      std::optional<profiling::Scope> zero_scope(std::in_place, "worker.grad_zero");
      if (!grads[head].defined()) grads[head] = at::zeros({layout.units[head].numel}, f32);
      at::Tensor& g_head = grads[head];
      // The embedding's gradient: tied, the LM head's share now (+ the lookup's at the end);
      // with the row-split update an untied embedding has nothing until the lookup.
      if (embed_grad && !g_embed.defined()) g_embed = at::zeros({layout.units[0].numel}, f32);
      zero_scope.reset();
      for (auto& m : mbs) {
        model::HeadResult r = model::headForwardBackward(config, layout.units[head], head_flat, embed_flat,
                                                         m.h, m.labels, opts.loss_chunk_tokens, grad_scale);
        st.loss_sum += r.lossSum;
        profiling::Scope scope("worker.head_grad_sum");
        g_head.add_(r.gradHeadFlat.to(at::kFloat));
        if (r.gradEmbedFlat.defined()) g_embed.add_(r.gradEmbedFlat.to(at::kFloat));
        m.h = r.gradHidden;
      }
      release(head_slot);
      if (embed_slot >= 0) release(embed_slot);
      if (last_pass) {
        handOff(s, head, g_head);
        g_head = at::Tensor();
        if (plan.split_embedding) {
          // Every row's gradient as of now: final for the rows outside the step's tokens, which
          // the leader updates while the layers' backward runs.
          handOff(s, 0, g_embed, ChunkPass::kEmbeddingDense);
          g_embed = at::Tensor();
        }
      }
      st.head_s += sec(t0, nowNs());
      st.trace.push_back({tp + "head: norm + LM head + loss, fwd+bwd", 0, t0, nowNs()});
      mark(2);

      // ---- backward: decoder units L..1, recomputed from their saved inputs -----------------
      t0 = nowNs();
      // Layer L first: with the resident embedding it is still in its forward slot.
      cur = sched.backwardDeliversFirst() ? deliver(L, sched.backwardSlot(L)) : held(L, sched.backwardSlot(L));
      std::shared_ptr<void> act_ready, next_act_ready;
      std::vector<at::Tensor> act_dev = prefetchActivations(acts[L], &act_ready), next_act_dev;
      // The update tail's layers (ChunkPlan::tail_units): handed off after the embedding, in
      // forward order, each whole (no early bucket: its chunks follow the embedding's).
      std::vector<at::Tensor> tail_grads(static_cast<size_t>(plan.tail_units) + 1);
      for (int u = L; u >= 1; --u) {
        if (u == (L + 1) / 2) killPoint("backward", s);  // tests: half of the backward done
        const int slot = sched.backwardSlot(u);
        at::Tensor next;
        if (u > 1) {
          next = deliver(u - 1, sched.backwardSlot(u - 1));
          next_act_dev = prefetchActivations(acts[u - 1], &next_act_ready);
        }
        use(slot);
        awaitActivations(act_ready, act_dev);
        UnitBackwardSpan span{u, nowNs(), 0};
        if (!grads[u].defined())
          grads[u] = profiling::scoped("worker.grad_zero", [&] { return at::zeros({layout.units[u].numel}, f32); });
        at::Tensor g = grads[u];
        // The MLP's bucket goes to the leader once the last micro-batch's MLP backward is issued.
        bool first_bucket_sent = false;
        const std::function<void()> mlp_done = [&] { first_bucket_sent = handOffFirstBucket(s, u, g); };
        const bool in_tail = u <= plan.tail_units;
        for (size_t i = 0; i < mbs.size(); ++i) {
          const std::function<void()>& hook = last_pass && !in_tail && i + 1 == mbs.size() ? mlp_done : kNoHook;
          if (!kept[u].empty()) {
            mbs[i].h = model::decoderLayerBackward(config, layout.units[u], cur, kept[u][i], mbs[i].h,
                                                   mbs[i].attn, g, hook);
            kept[u][i] = model::LayerActivations();  // free it now
          } else {
            model::LayerActivations a;  // recompute
            model::decoderLayerRecompute(config, layout.units[u], cur, act_dev[i], mbs[i].attn, a);
            mbs[i].h = model::decoderLayerBackward(config, layout.units[u], cur, a, mbs[i].h,
                                                   mbs[i].attn, g, hook);
          }
        }
        acts[u].clear();
        kept[u].clear();
        act_dev = std::move(next_act_dev);
        act_ready = std::move(next_act_ready);
        next_act_dev.clear();
        next_act_ready.reset();
        release(slot);
        // With inputs in host memory a layer's backward frees no GPU input, so gradients queued
        // for the hand-off thread while this thread issues ahead of the GPU would pile up (one
        // fp32 unit each: 8 GiB above the 64K-token step's working set on 1xH200, 2026-12-03):
        // issue at most kPendingGradients ahead of the hand-offs then. Such layers run long
        // (long sequences), so the GPU still has the next ones queued.
        if (last_pass) {
          if (cuda && (opts.offload_activations || offloaded_inputs > 0)) waitPendingUnits(kPendingGradients);
          if (in_tail)
            tail_grads[u] = g;
          else if (first_bucket_sent)
            handOffRest(s, u, g);
          else
            handOff(s, u, g);
          grads[u] = at::Tensor();  // the hand-off holds it until the leader has it
        }
        span.end_ns = nowNs();
        st.backward.push_back(span);
        st.trace.push_back({fmt::format("{}backward unit {}", tp, u), 0, span.begin_ns, span.end_ns});
        cur = next;
      }
      // ---- embedding: its gradient (plus the tied LM head's share) goes last ----------------
      UnitBackwardSpan span{0, nowNs(), 0};
      std::optional<profiling::Scope> embed_scope(std::in_place, "worker.embedding_backward");
      if (plan.split_embedding) {
        // Only the token rows, packed: [rows, C] fp32.
        if (!packed.defined()) packed = at::zeros({token_rows.packedNumel()}, f32);
        for (auto& m : mbs) model::embeddingBackwardRows(config, m.token_rows, m.h, packed);
        if (last_pass) handOff(s, 0, packed, ChunkPass::kEmbeddingTokens), packed = at::Tensor();
      } else {
        for (auto& m : mbs) model::embeddingBackward(config, m.ids, m.h, g_embed);
        if (last_pass) handOff(s, 0, g_embed), g_embed = at::Tensor();
      }
      for (int u = 1; u <= plan.tail_units && last_pass; ++u) handOff(s, u, std::move(tail_grads[u]));
      embed_scope.reset();
      span.end_ns = nowNs();
      st.backward.push_back(span);
      st.trace.push_back({tp + "backward unit 0 (embedding)", 0, span.begin_ns, span.end_ns});
      st.backward_s += sec(t0, nowNs());
      mark(3);
      // The pool reuses buffers of one size: passes of equal rows share theirs; passes that
      // differ by a row hold both sets (the next step reuses them; runtime/host_memory.h counts
      // them).
      pass_offload_bytes = batch.rows % passes == 0 ? std::max(pass_offload_bytes, step_offload_bytes)
                                                    : pass_offload_bytes + step_offload_bytes;
      if (!last_pass) {
        // this accumulation step's head + backward above its forward level (the last one's is
        // taken after the hand-offs, below)
        const MemStat m = memStat();
        pass_reserve = std::max(pass_reserve, m.peak_allocated - forward_level);
        step_peak = std::max(step_peak, m.peak_allocated);
        step_peak_reserved = std::max(step_peak_reserved, m.peak_reserved);
      } else {
        last_forward_level = forward_level;
      }
    }  // accumulation steps
    step_offload_bytes = pass_offload_bytes;
    const uint64_t t1 = nowNs();
    // Early agreement: the update tail's hand-offs go on beside the next step's forward (the
    // queue keeps them ahead of that step's, Trainer::step agrees without them).
    if (!earlyStepAgreement(opts, plan.tail_units, ctx.num_nodes)) waitIdle();
    st.handoff_wait_s = sec(t1, nowNs());
    {
      std::lock_guard<std::mutex> lock(mu);
      st.d2h_s = d2h_busy_s;
      st.trace.insert(st.trace.end(), handoff_trace.begin(), handoff_trace.end());
    }
    if (cuda) {
      const MemStat at_end = memStat();
      measured_reserve = std::max<int64_t>({0, pass_reserve, at_end.peak_allocated - last_forward_level});
      st.gpu_peak_bytes = std::max(step_peak, at_end.peak_allocated);
      // What the allocator held beyond what was allocated at the peak (fragmentation) also has
      // to fit the budget next step: measured when this step made the allocator reserve more
      // (kGrowthBytes or more). A step served from blocks an earlier step cached says nothing of
      // it: those blocks may be ones a step with more kept layers needed, and counting them
      // would make a lighter step's cache look like fragmentation and shrink the next step's
      // keeps (the 16K/22 GiB sweep of 2026-12-04, step 6: counted so, 20.9 GB of "fragmentation"
      // with step 5's 32.4 GB reserve cached, against 9.2 GB measured at step 5); the last
      // measure stays.
      constexpr int64_t kGrowthBytes = int64_t{64} << 20;
      const int64_t peak_reserved = std::max(step_peak_reserved, at_end.peak_reserved);
      if (peak_reserved >= reserved_at_start + kGrowthBytes)
        fragmentation = std::max<int64_t>(0, peak_reserved - st.gpu_peak_bytes);
      if (debugLogEnabled())
        logDebug(fmt::format("step {}: GPU peak {} B allocated, {} B reserved ({} B at the start); reserve "
                             "above the forward level {} B, fragmentation {} B",
                             s, st.gpu_peak_bytes, peak_reserved, reserved_at_start, measured_reserve,
                             fragmentation));
#ifdef SLIDEDP_WITH_CUDA
      // The first step's reserve is an estimate (reserveBytes): it may have offloaded more
      // inputs than the measured one does. Pinned buffers neither this step nor the one before
      // needed go back to the host (once the offload stream's copies are over); the placement
      // moves by a few layers between steps as the measured reserve does (64K tokens under a
      // 20.8 GiB budget: 36, 29, 34 inputs offloaded), and pinning them again costs ~0.1 s/GiB.
      const size_t keep_pinned = std::max(step_offload_bytes, prev_step_offload_bytes);
      prev_step_offload_bytes = step_offload_bytes;
      if (offload_pool->bytesIdle() > keep_pinned) {
        CUDA_CHECK(cudaStreamSynchronize(offload_stream->stream()));
        offload_pool->trim(keep_pinned);
      }
#endif
    }
    st.compute_forward_s = st.forward_s;
    st.compute_head_s = st.head_s;
    st.compute_backward_s = st.backward_s;
    st.h2d_s = delivery->busySeconds();
#ifdef SLIDEDP_WITH_CUDA
    if (cuda) {
      ev.back()[3]->synchronize();
      st.compute_forward_s = st.compute_head_s = st.compute_backward_s = 0;
      for (const auto& e : ev) {
        st.compute_forward_s += e[0]->elapsed_time(*e[1]) * 1e-3;
        st.compute_head_s += e[1]->elapsed_time(*e[2]) * 1e-3;
        st.compute_backward_s += e[2]->elapsed_time(*e[3]) * 1e-3;
      }
    }
#endif
    return st;
  }

  // ---- held-out loss: forward only (no activations kept, no gradient, no hand-off) ---------
  std::pair<double, int64_t> evaluate(int64_t s, const LocalBatch& batch) {
    c10::InferenceMode no_inference(false);
    at::NoGradGuard no_grad;
    const int L = static_cast<int>(config.numLayers);
    const int head = layout.headUnit();
    config.checkSequenceLength(batch.T);
    for (int64_t id : batch.input_ids)
      if (id < 0 || id >= config.vocabSize)
        throwUserError("eval data: token id {} is outside the vocabulary [0, {}) of the model", id,
                       config.vocabSize);
    // (no --micro-batch-rows: an accumulation step's rows at once, as a training pass takes them)
    const int64_t eval_passes = std::clamp<int64_t>(opts.accumulation_steps, 1, std::max<int64_t>(batch.rows, 1));
    const int64_t mb_rows = opts.micro_batch_rows > 0 ? opts.micro_batch_rows
                                                      : std::max<int64_t>((batch.rows + eval_passes - 1) / eval_passes, 1);
    const auto i64 = at::TensorOptions().dtype(at::kLong);
    struct Micro {
      at::Tensor ids, labels, h;
      model::AttentionContext attn;
    };
    std::vector<Micro> mbs;
    int64_t count = 0;
    for (int64_t l : batch.labels) count += l != model::kIgnoreIndex;
    for (int64_t r0 = 0; r0 < batch.rows; r0 += mb_rows) {
      const int64_t r = std::min(mb_rows, batch.rows - r0);
      Micro m;
      m.ids = at::from_blob(const_cast<int64_t*>(batch.input_ids.data()) + r0 * batch.T, {r, batch.T}, i64).to(device);
      m.labels = at::from_blob(const_cast<int64_t*>(batch.labels.data()) + r0 * batch.T, {r * batch.T}, i64).to(device);
      at::Tensor pos;
      if (!batch.position_ids.empty())
        pos = at::from_blob(const_cast<int64_t*>(batch.position_ids.data()) + r0 * batch.T, {r, batch.T}, i64).to(device);
      m.attn = model::makeAttentionContext(config, r, batch.T, pos, cdtype, device);
      mbs.push_back(std::move(m));
    }
    // Every worker delivers every unit in the same order (the sharded route all-gathers), in
    // the step's window slots (the resident embedding stays until the head; no layer-1-first:
    // the leader is idle during an evaluation).
    double waited = 0;
    waitVersion(0, s, &waited);
    at::Tensor cur = deliver(0, sched.forwardSlot(0));
    for (int u = 0; u <= L; ++u) {
      const int slot = sched.forwardSlot(u);
      const int next_unit = u < L ? u + 1 : head;
      waitVersion(next_unit, s, &waited);
      at::Tensor next = deliver(next_unit, sched.forwardSlot(next_unit));
      use(slot);
      for (auto& m : mbs)
        m.h = u == 0 ? model::embeddingForward(config, cur, m.ids)
                     : model::decoderLayerForward(config, layout.units[u], cur, m.h, m.attn);
      if (!(u == 0 && sched.resident)) release(slot);
      cur = next;
    }
    const int slot = sched.forwardSlot(head);
    at::Tensor embed_flat;
    const int embed_slot = headEmbedding(&embed_flat);
    use(slot);
    const int64_t chunk = model::lossChunkTokens(opts.loss_chunk_tokens, config.vocabSize);
    at::Tensor loss = at::zeros({}, at::TensorOptions().dtype(at::kDouble).device(device));
    for (auto& m : mbs) {
      const at::Tensor h = m.h.reshape({-1, config.hiddenSize});
      for (int64_t i = 0; i < h.size(0); i += chunk) {
        const int64_t n = std::min(chunk, h.size(0) - i);
        const at::Tensor logits = model::headLogits(config, layout.units[head], cur, embed_flat, h.narrow(0, i, n));
        loss += at::cross_entropy_loss(logits, m.labels.narrow(0, i, n), {}, at::Reduction::Sum,
                                       model::kIgnoreIndex).to(at::kDouble);
      }
    }
    release(slot);
    if (embed_slot >= 0) release(embed_slot);
    return {loss.item<double>(), count};
  }
};

Worker::Worker(const RankContext& ctx, const shm::Segment& seg, const HostStateSpec& spec,
               const HostStateLayout& state, const model::ModelConfig& config,
               const model::ParamLayout& layout, const ChunkPlan& plan, const TrainOptions& opts)
    : impl_(std::make_unique<Impl>(ctx, seg, spec, state, config, layout, plan, opts)) {}

Worker::~Worker() = default;

WorkerStepStats Worker::step(int64_t step, const LocalBatch& batch) {
  try {
#ifdef SLIDEDP_WITH_CUDA
    const TrainOptions& o = impl_->opts;
    // --memory-snapshot: the allocator's trace from this run's first step through the traced one.
    const bool snapshot = impl_->cuda && !o.memory_snapshot.empty() && step <= o.memory_snapshot_step;
    if (snapshot && !impl_->recording_memory) startMemoryHistory(), impl_->recording_memory = true;
    WorkerStepStats st = impl_->cuda && step == o.gpu_profile_step && !o.gpu_profile.empty()
                             ? profiledStep(step, batch)
                             : impl_->step(step, batch);
    if (snapshot && step == o.memory_snapshot_step) {
      // the hand-off's frees too; not with an early agreement: the leader takes the tail's
      // chunks only after the agreement this step has not reached yet (a wait here would hang)
      if (!earlyStepAgreement(o, impl_->plan.tail_units, impl_->ctx.num_nodes)) impl_->waitIdle();
      writeMemorySnapshot(workerPath(o.memory_snapshot, ".pickle"));
      impl_->recording_memory = false;
    }
    return st;
#else
    return impl_->step(step, batch);
#endif
  } catch (const c10::OutOfMemoryError& e) {
    throwUserError("{}: the GPU ran out of memory in step {} ({}).\nHINT: use --activations auto "
                   "(or lower --gpu-memory-budget), fewer --micro-batch-rows, or a smaller batch{}",
                   impl_->ctx.describe(), step, std::string(e.what()).substr(0, 300),
                   impl_->opts.accumulation_steps > 1
                       ? fmt::format("; or --gradient-accumulation-steps 1: its {} passes keep every "
                                     "layer's fp32 gradient on the GPU (4 B/param)",
                                     impl_->opts.accumulation_steps)
                       : std::string());
  }
}

#ifdef SLIDEDP_WITH_CUDA
// `path` with -w<worker> before its extension (`default_ext` when it has none, or .txt, which
// --gpu-profile's table takes), its directory made: path.json -> path-w<worker>.json.
std::string Worker::workerPath(const std::string& path, const std::string& default_ext) const {
  std::string base = path, ext;
  if (const size_t dot = base.rfind('.'); dot != std::string::npos && base.find('/', dot) == std::string::npos)
    ext = base.substr(dot), base.resize(dot);
  if (ext.empty() || ext == ".txt") ext = default_ext;
  const std::string stem = fmt::format("{}-w{}", base, impl_->ctx.worker_rank);
  if (const std::string dir = formats::parentPath(stem); !dir.empty()) formats::makeDirectories(dir);
  return stem + ext;
}

// The step under the torch profiler: path.json -> path-w<worker>.json (the trace; .json also for
// a path ending in .txt or without an extension) and path-w<worker>.txt (the table).
WorkerStepStats Worker::profiledStep(int64_t step, const LocalBatch& batch) {
  const Impl& m = *impl_;
  const std::string path = workerPath(m.opts.gpu_profile, ".json");
  const size_t dot = path.rfind('.');
  const std::string stem = path.substr(0, dot), ext = path.substr(dot);
  const double tokens = static_cast<double>(batch.rows * batch.T);
  WorkerStepStats st;
  const profiling::ProfileResult r = profiling::profileScopes(
      fmt::format("step {} on worker {} ({} rows x {} tokens)", step, m.ctx.worker_rank, batch.rows,
                  batch.T),
      [&] { st = impl_->step(step, batch); },
      profiling::decoderScopeBytes(m.config, tokens, static_cast<double>(m.config.numLayers)),
      stem + ext);
  if (!formats::isRegularFile(stem + ext))
    throwUserError("--gpu-profile: the trace {}{} was not written.\nHINT: give a path in a writable "
                   "directory", stem, ext);
  std::ofstream txt(stem + ".txt", std::ios::trunc);
  txt << r.table;
  if (!txt.flush())
    throwUserError("--gpu-profile: cannot write {}.txt.\nHINT: give a path in a writable directory", stem);
  return st;
}
#endif

std::pair<double, int64_t> Worker::evaluate(int64_t after_step, const LocalBatch& batch) {
  try {
    return impl_->evaluate(after_step, batch);
  } catch (const c10::OutOfMemoryError& e) {
    throwUserError("{}: the GPU ran out of memory evaluating after step {} ({}).\nHINT: set "
                   "--micro-batch-rows (evaluation runs a worker's rows at once otherwise)",
                   impl_->ctx.describe(), after_step, std::string(e.what()).substr(0, 300));
  }
}

void Worker::setBaseStep(int64_t s0) { impl_->base_step = s0; }

void Worker::planChanged() {
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    SLIDEDP_ASSERT(impl_->in_flight == 0, "the chunk plan changed with {} hand-off(s) in flight",
                   impl_->in_flight);
  }
  impl_->indexPlan();
  // The reserve a step measured held the old tail's gradients (or none): the next step takes
  // the estimate again, with the new tail's (reserveBytes).
  impl_->measured_reserve = -1;
  impl_->measured_tokens = -1;
}

std::string Worker::runOptionsProblem(const TrainOptions& o) const { return impl_->accumulatorsProblem(o); }

void Worker::setRunOptions(const TrainOptions& o) {
  impl_->waitIdle();
  // Every check before the first assignment: a refused change leaves the options as they were.
  if (o.offload_activations && !impl_->cuda)
    throwUserError("--offload-activations applies to GPU workers only");
  if (o.activations == ActivationPolicy::kAttentionOutput && !impl_->attentionOutputAvailable())
    throwUserError("--activations attention-output needs bf16 GPU workers or CPU workers");
  const bool new_routes = o.delivery != impl_->opts.delivery || o.reduction != impl_->opts.reduction;
  impl_->opts.delivery = o.delivery;
  impl_->opts.reduction = o.reduction;
  if (new_routes) impl_->makeRoutes();  // collective: every worker switches together
  impl_->opts.max_grad_norm = o.max_grad_norm;
  impl_->opts.gpu_profile = o.gpu_profile;
  impl_->opts.gpu_profile_step = o.gpu_profile_step;
  impl_->opts.memory_snapshot = o.memory_snapshot;
  impl_->opts.memory_snapshot_step = o.memory_snapshot_step;
  impl_->opts.offload_activations = o.offload_activations;
  impl_->opts.activations = o.activations;
  impl_->opts.max_kept_layers = o.max_kept_layers;
  impl_->opts.accumulation_steps = o.accumulation_steps;
  impl_->opts.mlp_tile_tokens = o.mlp_tile_tokens;
  model::setMlpTileTokens(o.mlp_tile_tokens);
}

}  // namespace slidedp
