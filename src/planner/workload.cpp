#include "planner/workload.h"

#include <algorithm>

#include "common/errors.h"
#include "model/config.h"
#include "model/memory_terms.h"
#include "model/param_layout.h"

namespace slidedp::planner {

int64_t Workload::totalNumel() const {
  int64_t n = 0;
  for (int64_t u : unit_numels) n += u;
  return n;
}

int64_t Workload::maxUnitNumel() const {
  int64_t n = 0;
  for (int64_t u : unit_numels) n = std::max(n, u);
  return n;
}

int64_t Workload::decoderNumel() const {
  int64_t n = 0;
  for (int64_t l = 1; l <= L; ++l) n += unit_numels.at(l);
  return n;
}

double Workload::stepFlops() const {
  const double tokens = static_cast<double>(global_rows) * static_cast<double>(T);
  return 6.0 * static_cast<double>(parameters) * tokens +
         12.0 * static_cast<double>(L * H * D) * static_cast<double>(T) * tokens;
}

Workload makeWorkload(const model::ModelConfig& config, const std::string& model_name, int G,
                      int64_t global_rows, int64_t T, bool cuda) {
  if (G < 1) throwUserError("the plan needs at least one worker, got {}", G);
  if (global_rows < G)
    throwUserError("--batch-size {} is smaller than the {} worker(s): a worker would have no row."
                   "\nHINT: use a global batch of at least one row per worker", global_rows, G);
  if (T < 2) throwUserError("--seq-len must be >= 2, got {}", T);
  const model::ParamLayout layout = model::ParamLayout::build(config);
  Workload w;
  w.model_name = model_name;
  for (const auto& u : layout.units) w.unit_numels.push_back(u.numel);
  w.L = config.numLayers;
  w.C = config.hiddenSize;
  w.I = config.intermediateSize;
  w.H = config.numHeads;
  w.KV = config.numKvHeads;
  w.D = config.headDim;
  w.V = config.vocabSize;
  w.tied = config.tieWordEmbeddings;
  w.qk_norm = config.qkNorm;
  w.mlp_tileable = !config.mlpBias;
  w.parameters = layout.parameterCount();
  if (layout.numUnits() > 2) w.layer_bucket_split = layout.gradientBucketSplits().at(1);
  w.G = G;
  w.global_rows = global_rows;
  w.T = T;
  w.cuda = cuda;
  w.compute_bytes = cuda ? 2 : 4;
  w.flash_lse = model::keepsAttentionLse(cuda, w.compute_bytes);
  return w;
}

}  // namespace slidedp::planner
