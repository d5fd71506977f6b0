#include "leader/leader.h"

#include <omp.h>

#include <cmath>
#include <cstring>
#include <functional>

#include "common/errors.h"
#include "formats/safetensors.h"
#include "model/hf_checkpoint.h"
#include "runtime/fault_injection.h"
#include "runtime/token_rows.h"
#include "common/bf16.h"
#include "shm/control_block.h"

namespace slidedp {

namespace {
double seconds(uint64_t a, uint64_t b) { return (b - a) * 1e-9; }
}  // namespace

Leader::Leader(const RankContext& ctx, const shm::Segment& seg, const HostStateSpec& spec,
               const HostStateLayout& state, const model::ParamLayout& layout,
               const ChunkPlan& plan, const NodeShards& shards, const TrainOptions& opts)
    : ctx_(ctx), seg_(seg), spec_(spec), state_(state), layout_(layout), plan_(plan),
      shards_(shards), opts_(opts),
      engine_(optim::EngineOptions{opts.leader_threads, optim::Isa::kAuto, false}),
      num_workers_(spec.num_workers) {
  SLIDEDP_ASSERT(ctx.isLeader(), "Leader constructed on a worker");
  SLIDEDP_ASSERT(shards.parts.size() == plan.chunks.size(), "node shards of another plan");
  node_layout_ = makeNodeLayout(opts.node_layout, NodeLayoutEnv{&ctx, &seg, &state, &plan,
                                                                &shards, &engine_});
  SLIDEDP_ASSERT(sharded() == (std::string(node_layout_->name()).find("sharded") != std::string::npos),
                 "segment sharded {} but node layout {}", sharded(), node_layout_->name());
  indexPlan();
  if (opts.max_grad_norm > 0 && !spec.grad_accumulation)
    throwUserError("clipping needs the gradient accumulation region (HostStateSpec.grad_accumulation)");
  // Weight-decay spans per unit: ndim >= 2 decays, ndim < 2 does not (shared/README.md recipe);
  // alignment padding joins the preceding parameter's span (its values stay 0 either way).
  for (const auto& unit : layout.units) {
    std::vector<DecaySpan> spans;
    for (size_t i = 0; i < unit.params.size(); ++i) {
      const auto& p = unit.params[i];
      const int64_t end = i + 1 < unit.params.size() ? unit.params[i + 1].offset : unit.numel;
      const double wd = optim::decayFor(p.shape, opts.weight_decay);
      if (!spans.empty() && spans.back().weight_decay == wd)
        spans.back().end = end;
      else
        spans.push_back({i == 0 ? 0 : p.offset, end, wd});
    }
    decay_.push_back(std::move(spans));
  }
  if (plan.split_embedding) {
    const auto& shape = layout.units[0].params.at(0).shape;
    SLIDEDP_ASSERT(layout.units[0].params.size() == 1 && shape.size() == 2 && decay_[0].size() == 1,
                   "the row-split embedding update needs unit 0 = the [V, C] embedding alone");
    SLIDEDP_ASSERT(!state_.sharded, "the row-split embedding update is not planned sharded across nodes");
    split_ = std::make_unique<EmbeddingRowSplit>(shape[0], shape[1], plan.chunk_numel);
  }
}

void Leader::indexPlan() {
  unit_chunks_.assign(static_cast<size_t>(layout_.numUnits()), {});
  for (int64_t i = 0; i < plan_.chunksPerStep(); ++i)  // each range once: the row-split
    if (plan_.chunks[i].pass != ChunkPass::kEmbeddingDense)  // embedding's token pass covers it
      unit_chunks_[plan_.chunks[i].unit].push_back(i);
}

Leader::~Leader() = default;

float* Leader::master(int u) const {
  return seg_.regionAs<float>(kMasterRegion) + state_.owned[u].offset;
}
float* Leader::expAvg(int u) const {
  return seg_.regionAs<float>(kExpAvgRegion) + state_.owned[u].offset;
}
float* Leader::expAvgSq(int u) const {
  return seg_.regionAs<float>(kExpAvgSqRegion) + state_.owned[u].offset;
}
uint16_t* Leader::bf16Copy(int u) const {
  if (seg_.layout().find(kComputeCopyRegion) == nullptr) return nullptr;
  return seg_.regionAs<uint16_t>(kComputeCopyRegion) + state_.copy[u].offset;
}

void Leader::storeWholeUnit(int u, const float* full) {
  const int64_t owned = shards_.owned_numels[u];
  optim::ChunkState st{master(u), expAvg(u), expAvgSq(u), nullptr, owned};
  engine_.firstTouch(st);  // zeroes m and v too
  float* m = master(u);
  for (int64_t i : unit_chunks_[u]) {
    const OwnedPart& p = shards_.parts[i];
    std::memcpy(m + p.offset, full + p.begin, p.numel() * sizeof(float));
  }
  const int64_t n = layout_.units[u].numel;
  if (state_.copy_sharded) {
    // Only this node's parts, laid out as the master (fp32 compute: the master is the copy).
    if (uint16_t* b = bf16Copy(u))
      for (int64_t e = 0; e < owned; ++e) b[e] = optim::floatToBf16(m[e]);
  } else if (uint16_t* b = bf16Copy(u)) {
#pragma omp parallel for schedule(static) num_threads(engine_.teamFor(n))
    for (int64_t i = 0; i < n; ++i) b[i] = optim::floatToBf16(full[i]);
  } else {
    float* copy = seg_.regionAs<float>(kDeliveryF32Region) + state_.units[u].offset;
    std::memcpy(copy, full, n * sizeof(float));
  }
}

namespace {

/// NaN or +-Inf: every exponent bit set (a bit test, which -ffast-math cannot fold away).
inline int64_t nonFinite(float x) {
  uint32_t b;
  std::memcpy(&b, &x, sizeof b);
  return (b & 0x7f800000u) == 0x7f800000u ? 1 : 0;
}

/// Throws UserError naming the first tensor of `unit` whose values in `full` (the unit's fp32
/// values as loaded from `dir`) are not all finite: training would begin with a NaN loss, and
/// the run would report a diverged step instead of the damaged file.
[[noreturn]] void throwNonFiniteWeights(const std::string& dir, const model::UnitLayout& unit,
                                        const float* full) {
  for (const auto& p : unit.params) {
    int64_t count = 0, first = -1;
    for (int64_t i = 0; i < p.numel; ++i)
      if (nonFinite(full[p.offset + i]) && count++ == 0) first = i;
    if (count > 0)
      throwUserError("{}: tensor '{}' holds {} value(s) that are NaN or infinite (the first at "
                     "element {}): training from it would diverge at step 1.\nHINT: the weights are "
                     "damaged or were saved from a diverged run; use another copy of the model",
                     dir, p.name, count, first);
  }
  throwUserError("{}: a weight of layer unit {} is NaN or infinite", dir, unit.index);
}

}  // namespace

void Leader::loadCheckpoint(const std::string& dir, const model::ModelConfig& config) {
  if (sharded()) {
    const auto ckpt = formats::CheckpointReader::open(dir);
    model::validateCheckpoint(ckpt, config, layout_, /*checkDType=*/false);
    std::vector<float> full;
    for (int u = 0; u < layout_.numUnits(); ++u) {
      full.assign(layout_.units[u].numel, 0.0f);
      model::loadUnit(ckpt, layout_.units[u], full.data());
      const int64_t n = layout_.units[u].numel;
      const float* f = full.data();
      int64_t bad = 0;
#pragma omp parallel for schedule(static) num_threads(engine_.teamFor(n)) reduction(+ : bad)
      for (int64_t i = 0; i < n; ++i) bad += nonFinite(f[i]);
      if (bad > 0) throwNonFiniteWeights(dir, layout_.units[u], f);
      storeWholeUnit(u, full.data());
    }
    return;
  }
  std::vector<float*> buffers;
  for (int u = 0; u < layout_.numUnits(); ++u) {
    optim::ChunkState st{master(u), expAvg(u), expAvgSq(u), bf16Copy(u),
                         layout_.units[u].numel};
    engine_.firstTouch(st);  // zeroes m and v too
    buffers.push_back(master(u));
  }
  const auto ckpt = formats::CheckpointReader::open(dir);
  model::loadUnits(ckpt, config, layout_, buffers, /*checkDType=*/false);
  for (int u = 0; u < layout_.numUnits(); ++u) {
    const float* m = master(u);
    uint16_t* b = bf16Copy(u);
    const int64_t n = layout_.units[u].numel;
    int64_t bad = 0;  // counted in the same pass as the bf16 copy
#pragma omp parallel for schedule(static) num_threads(engine_.teamFor(n)) reduction(+ : bad)
    for (int64_t i = 0; i < n; ++i) {
      b[i] = optim::floatToBf16(m[i]);
      bad += nonFinite(m[i]);
    }
    if (bad > 0) throwNonFiniteWeights(dir, layout_.units[u], m);
  }
}

namespace {
// splitmix64 (Steele, Lea, Flood 2014): a counter-based stream, one value per element.
inline uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
// Standard normal from two 53-bit uniforms (Box-Muller).
inline float normalAt(uint64_t seed, uint64_t i) {
  const uint64_t a = splitmix64(seed ^ (2 * i)), b = splitmix64(seed ^ (2 * i + 1));
  const double u1 = ((a >> 11) + 1.0) * (1.0 / 9007199254740993.0);  // (0, 1]
  const double u2 = (b >> 11) * (1.0 / 9007199254740992.0);
  return static_cast<float>(std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2));
}
}  // namespace

void Leader::initRandom(const model::ModelConfig& config, uint64_t seed) {
  const double std_dev = config.raw.value("initializer_range", 0.02);
  std::vector<float> whole;  // sharded across nodes: the whole unit, then this node's parts
  for (int u = 0; u < layout_.numUnits(); ++u) {
    const auto& unit = layout_.units[u];
    if (sharded()) {
      whole.assign(unit.numel, 0.0f);
    } else {
      optim::ChunkState st{master(u), expAvg(u), expAvgSq(u), bf16Copy(u), unit.numel};
      engine_.firstTouch(st);
    }
    float* m = sharded() ? whole.data() : master(u);
    uint16_t* b = bf16Copy(u);
    for (const auto& p : unit.params) {
      const bool is_norm = p.name.find("norm.weight") != std::string::npos;
      const bool is_bias = p.name.size() >= 5 && p.name.compare(p.name.size() - 5, 5, ".bias") == 0;
      const uint64_t pseed = splitmix64(seed ^ std::hash<std::string>{}(p.name));
      float* dst = m + p.offset;
#pragma omp parallel for schedule(static) num_threads(engine_.teamFor(p.numel))
      for (int64_t i = 0; i < p.numel; ++i)
        dst[i] = is_norm ? 1.0f : is_bias ? 0.0f
                                          : static_cast<float>(std_dev) * normalAt(pseed, i);
    }
    if (sharded()) {
      storeWholeUnit(u, m);
      continue;
    }
#pragma omp parallel for schedule(static) num_threads(engine_.teamFor(unit.numel))
    for (int64_t i = 0; i < unit.numel; ++i) b[i] = optim::floatToBf16(m[i]);
  }
}

void Leader::loadState(const std::string& file) {
  const auto f = formats::SafetensorsFile::open(file);
  for (int u = 0; u < layout_.numUnits(); ++u) {
    const int64_t n = shards_.owned_numels[u];
    optim::ChunkState st{master(u), expAvg(u), expAvgSq(u), sharded() ? nullptr : bf16Copy(u), n};
    engine_.firstTouch(st);
    const std::pair<const char*, float*> parts[] = {
        {"master", master(u)}, {"exp_avg", expAvg(u)}, {"exp_avg_sq", expAvgSq(u)}};
    for (const auto& [what, dst] : parts) {
      const std::string name = fmt::format("unit{}.{}", u, what);
      const formats::TensorInfo& t = f.get(name);
      if (t.numel() != n)
        throwUserError("{}: {} has {} elements but this model's unit {} has {}{}.\nHINT: resume "
                       "with the same model configuration{}", file, name, t.numel(), u, n,
                       sharded() ? " on this node" : "",
                       sharded() ? ", node count, node layout and --chunk-numel" : "");
      f.readFloat32(t, dst);
    }
    if (sharded()) {
      // This node's parts into the delivery copy, then every node's parts from the others.
      for (int64_t i : unit_chunks_[u]) {
        const OwnedPart& p = shards_.parts[i];
        const int64_t at = state_.copy_sharded ? p.offset : p.begin;  // the part in the copy
        if (uint16_t* b = bf16Copy(u))
          for (int64_t e = 0; e < p.numel(); ++e) b[at + e] = optim::floatToBf16(master(u)[p.offset + e]);
        node_layout_->publish(i);
      }
      continue;
    }
    uint16_t* b = bf16Copy(u);
    const float* m = master(u);
#pragma omp parallel for schedule(static) num_threads(engine_.teamFor(n))
    for (int64_t i = 0; i < n; ++i) b[i] = optim::floatToBf16(m[i]);
  }
}

std::vector<float> Leader::gatherMaster(int u) const {
  const int64_t n = layout_.units[u].numel;
  if (!sharded()) return ctx_.node_id == 0 ? std::vector<float>(master(u), master(u) + n) : std::vector<float>();
  const int N = ctx_.num_nodes;
  std::vector<int> counts(N), displs(N);
  for (int p = 0, d = 0; p < N; ++p) {
    counts[p] = static_cast<int>(NodeShards::build(plan_, N, p).owned_numels[u]);
    displs[p] = d;
    d += counts[p];
  }
  std::vector<float> parts(ctx_.node_id == 0 ? n : 0);
  MPI_CHECK(MPI_Gatherv(master(u), static_cast<int>(shards_.owned_numels[u]), MPI_FLOAT,
                        parts.data(), counts.data(), displs.data(), MPI_FLOAT, 0, ctx_.leaders));
  if (ctx_.node_id != 0) return {};
  std::vector<float> full(n);
  for (int p = 0; p < N; ++p) {
    const NodeShards s = NodeShards::build(plan_, N, p);
    for (int64_t i : unit_chunks_[u]) {
      const OwnedPart& part = s.parts[i];
      std::memcpy(full.data() + part.begin, parts.data() + displs[p] + part.offset,
                  part.numel() * sizeof(float));
    }
  }
  return full;
}

std::vector<formats::TensorToWrite> Leader::stateTensors() const {
  std::vector<formats::TensorToWrite> out;
  for (int u = 0; u < layout_.numUnits(); ++u) {
    const int64_t n = shards_.owned_numels[u];
    const std::pair<const char*, const float*> parts[] = {
        {"master", master(u)}, {"exp_avg", expAvg(u)}, {"exp_avg_sq", expAvgSq(u)}};
    for (const auto& [what, src] : parts)
      out.push_back({fmt::format("unit{}.{}", u, what), formats::DType::F32, {n}, src,
                     formats::DType::F32});
  }
  return out;
}

void Leader::setBaseStep(int64_t s0) {
  base_step_ = s0;
  for (int u = 0; u < layout_.numUnits(); ++u)
    seg_.control().layerVersion(u).store(static_cast<uint64_t>(s0));
}

optim::GradView Leader::gradView(int slot, const void** ptrs) const {
  const size_t esize = opts_.bf16_staging ? 2 : 4;
  auto* base = static_cast<const char*>(seg_.region(kStagingRegion));
  const int slots = opts_.reduction == ReductionRoute::kCpu ? num_workers_ : 1;
  for (int w = 0; w < slots; ++w)
    ptrs[w] = base + HostStateLayout::stagingOffset(spec_, slot, w) * esize;
  optim::GradView g;
  g.slots = ptrs;
  g.numSlots = slots;
  g.dtype = opts_.bf16_staging ? optim::DType::kBF16 : optim::DType::kF32;
  return g;
}

void Leader::updateRange(int unit, const OwnedPart& part, const OwnedState& st0,
                         const optim::GradView& grad, float grad_scale, int64_t step, double lr,
                         double* norm_sq) {
  const size_t esize = grad.dtype == optim::DType::kBF16 ? 2 : 4;
  const int64_t begin = part.begin, end = part.end;
  for (const DecaySpan& d : decay_[unit]) {
    const int64_t b = std::max(begin, d.begin), e = std::min(end, d.end);
    if (b >= e) continue;
    const optim::StepConstants c = constants(d.weight_decay, grad_scale, step, lr);
    const void* shifted[optim::kMaxSlots];
    for (int w = 0; w < grad.numSlots; ++w)
      shifted[w] = static_cast<const char*>(grad.slots[w]) + (b - begin) * esize;
    optim::GradView g = grad;
    g.slots = shifted;
    const int64_t o = b - begin;
    optim::ChunkState st{st0.master + o, st0.exp_avg + o, st0.exp_avg_sq + o, st0.bf16 + o, e - b};
    const double nsq = engine_.updateWithNorm(st, g, c);
    if (norm_sq) *norm_sq += nsq;
  }
}

optim::ChunkState Leader::unitState(int u) const {
  return optim::ChunkState{master(u), expAvg(u), expAvgSq(u), bf16Copy(u), layout_.units[u].numel};
}

optim::StepConstants Leader::constants(double weight_decay, float grad_scale, int64_t step,
                                       double lr) const {
  optim::AdamWHyper h;
  h.lr = lr;
  h.beta1 = opts_.beta1;
  h.beta2 = opts_.beta2;
  h.eps = opts_.eps;
  h.weightDecay = weight_decay;
  h.step = step;
  return optim::makeStepConstants(h, grad_scale);
}

void Leader::reduceSlots(float* dst, const optim::GradView& grad, int64_t n) const {
#pragma omp parallel for schedule(static) num_threads(engine_.teamFor(n))
  for (int64_t e = 0; e < n; ++e) dst[e] = optim::slotSum(grad, e);
}

void Leader::embeddingChunk(const Chunk& c, const optim::GradView& grad, int64_t step, double lr,
                            bool clip, double* norm_sq) {
  const int64_t n = c.numel();
  const int threads = engine_.teamFor(n);
  if (c.pass == ChunkPass::kEmbeddingDense) {
    const optim::GradView g = plan_.dense_pass_written ? grad : split_->zeroGradient();
    if (clip) {
      reduceSlots(seg_.regionAs<float>(kGradAccumRegion) + state_.owned[0].offset + c.begin, g, n);
      return;  // its norm once the token pass has added the rest
    }
    // The rows outside the step's token rows are updated now; the token rows' gradient so far
    // is saved for the token pass.
    *norm_sq += split_->denseUpdate(engine_, constants(decay_[0][0].weight_decay, 1.0f, step, lr),
                                    unitState(0), g, c.begin, c.end);
    return;
  }
  if (clip) {
    float* accum = seg_.regionAs<float>(kGradAccumRegion) + state_.owned[0].offset;
    split_->accumulate(accum, grad, c.begin, c.end, threads);
    if (c.last_of_unit) {
      const void* one[1] = {accum};
      *norm_sq += engine_.gradSquaredNorm(optim::GradView{one, 1, optim::DType::kF32},
                                          layout_.units[0].numel, 1.0f);
    }
    return;
  }
  *norm_sq += split_->tokenUpdate(engine_, constants(decay_[0][0].weight_decay, 1.0f, step, lr),
                                  unitState(0), grad, c.begin, c.end);
}

LeaderStepStats Leader::step(int64_t step, const std::function<void()>& agree) {
  const shm::ControlBlock& cb = seg_.control();
  const std::string me = ctx_.describe();
  const int S = spec_.num_slots;
  const bool clip = opts_.max_grad_norm > 0;
  NodeLayout& nodes = *node_layout_;
  LeaderStepStats stats;
  stats.step = step;
  stats.lr = optim::scheduledLr(opts_.lrSchedule(), step - 1);
  std::vector<UnitUpdateSpan> spans(layout_.numUnits());
  double norm_sq = 0;
  float* accum = clip ? seg_.regionAs<float>(kGradAccumRegion) : nullptr;
  const void* ptrs[optim::kMaxSlots];
  std::vector<char> gated(layout_.numUnits(), 0);
  const int64_t agree_at = agree ? plan_.embeddingLastPassStart() : -1;

  for (int64_t i = 0; i < plan_.chunksPerStep(); ++i) {
    if (i == agree_at) agree();
    const Chunk& c = plan_.chunks[i];
    const OwnedPart& part = nodes.owned(i);
    const int64_t k = plan_.sequence(step - base_step_, i);
    const int slot = static_cast<int>(k % S);
    const uint64_t use = static_cast<uint64_t>(k / S);
    const uint64_t t0 = shm::monotonicNs();
    if (idle_) {
      auto in = [&] {
        for (int w = 1; w <= num_workers_; ++w)
          if (cb.chunkReady(slot, w).load() < use + 1) return false;
        return true;
      };
      // --wait-timeout holds here too: the idle work ends at the deadline, and the wait
      // below counts from t0, so its TimeoutError comes on time with the whole wait's length.
      const uint64_t deadline = opts_.wait_timeout_s > 0
                                    ? t0 + static_cast<uint64_t>(opts_.wait_timeout_s * 1e9)
                                    : UINT64_MAX;
      while (!in() && (deadline == UINT64_MAX || shm::monotonicNs() < deadline) && idle_()) {
      }
    }
    // One --wait-timeout deadline, from t0, for the chunk from every worker (the leader's one
    // wait for it), not one per worker in turn.
    for (int w = 1; w <= num_workers_; ++w)
      cb.waitAtLeast(cb.chunkReady(slot, w), use + 1, opts_.wait_timeout_s, me, [&] {
        return fmt::format("chunk_ready[slot {}][local rank {}] (step {}, unit {}, elements "
                           "[{}, {}))", slot, w, step, c.unit, c.begin, c.end);
      }, 100, t0);
    const uint64_t t1 = shm::monotonicNs();
    // The unit's state of the previous step must be written by the streamed checkpoint before
    // its first update here; waited after the gradient is in, so only the exposed part counts.
    uint64_t t_update = t1;
    if (!clip && gate_ && !gated[c.unit]) {
      gated[c.unit] = 1;
      stats.checkpoint_wait_s += gate_(c.unit);
      t_update = shm::monotonicNs();
    }
    if (spans[c.unit].begin_ns == 0) spans[c.unit] = {c.unit, t_update, 0};
    auto release = [&] {
      for (int w = 1; w <= num_workers_; ++w) cb.chunkConsumed(slot, w).store(use + 1);
    };
    // The step's token rows (the row-split embedding), written by the node's first worker
    // before any of its hand-offs.
    if (c.pass == ChunkPass::kEmbeddingDense && c.begin == 0)
      split_->beginStep(seg_.regionAs<uint64_t>(kTokenRowsRegion) + (step % 2) * spec_.token_row_words);
    // Every node's gradient of this node's part (one node: the staged slots themselves). The
    // row-split embedding: an untied dense pass has nothing written (zeros, nothing to
    // exchange), a token pass only its packed token rows.
    const optim::GradView staged = gradView(slot, ptrs);
    const optim::GradView grad =
        c.pass == ChunkPass::kEmbeddingDense && !plan_.dense_pass_written ? staged
        : c.pass == ChunkPass::kEmbeddingTokens
            ? nodes.gradient(i, staged, split_->rows().packedIndex(c.end) - split_->rows().packedIndex(c.begin))
            : nodes.gradient(i, staged);
    if (!nodes.readsStaging()) release();
    if (c.pass != ChunkPass::kWhole) {
      embeddingChunk(c, grad, step, stats.lr, clip, &norm_sq);
    } else if (!clip) {
      updateRange(c.unit, part, nodes.state(i), grad, 1.0f, step, stats.lr, &norm_sq);
      nodes.publish(i);
    } else {
      // Reduce into the full-gradient region (slot order, fp32: the same sum the fused pass
      // computes), its squared norm from the same data.
      float* dst = accum + state_.owned[c.unit].offset + part.offset;
      const int64_t n = part.numel();
      reduceSlots(dst, grad, n);
      const void* one[1] = {dst};
      norm_sq += engine_.gradSquaredNorm(optim::GradView{one, 1, optim::DType::kF32}, n, 1.0f);
    }
    if (nodes.readsStaging()) release();
    if (i == plan_.chunksPerStep() / 2) killPoint("update", step);  // tests: half updated
    const uint64_t t2 = shm::monotonicNs();
    stats.wait_s += seconds(t0, t1);
    stats.reduce_update_s += seconds(t_update, t2);
    if (c.last_of_unit && !clip) {
      cb.layerVersion(c.unit).store(static_cast<uint64_t>(step));
      spans[c.unit].end_ns = shm::monotonicNs();
    }
  }
  stats.grad_norm = std::sqrt(nodes.globalNormSq(norm_sq));
  if (clip) {
    // torch.nn.utils.clip_grad_norm_: coef = max_norm / (total_norm + 1e-6), clamped to 1.
    stats.clip_coef = std::min(1.0, opts_.max_grad_norm / (stats.grad_norm + 1e-6));
    const uint64_t t0 = shm::monotonicNs();
    double gate_s = 0;
    // Unit by unit in update order (the streamed checkpoint writes in it; head, then the
    // embedding, whose next-step forward comes first), each unit's chunks in plan order (the
    // same on every leader: publish() is collective when sharded across nodes).
    for (int u : plan_.updateOrder()) {
      if (gate_) gate_s += gate_(u);
      spans[u].begin_ns = shm::monotonicNs();
      // The row-split embedding's gradient is whole in the region: its token-pass chunks
      // update it (once; unit_chunks_ holds no dense-pass chunk).
      for (int64_t i : unit_chunks_[u]) {
        const OwnedPart& part = nodes.owned(i);
        const void* one[1] = {accum + state_.owned[u].offset + part.offset};
        updateRange(u, part, nodes.state(i), optim::GradView{one, 1, optim::DType::kF32},
                    static_cast<float>(stats.clip_coef), step, stats.lr, nullptr);
        nodes.publish(i);
      }
      cb.layerVersion(u).store(static_cast<uint64_t>(step));
      spans[u].end_ns = shm::monotonicNs();
    }
    stats.reduce_update_s += seconds(t0, shm::monotonicNs()) - gate_s;
    stats.checkpoint_wait_s += gate_s;
  }
  stats.units = std::move(spans);
  return stats;
}

}  // namespace slidedp
