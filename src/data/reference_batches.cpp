#include "data/reference_batches.h"

#include "common/errors.h"

namespace slidedp::data {

ReferenceBatches::ReferenceBatches(const std::string& path) : f_(formats::SafetensorsFile::open(path)) {
  while (f_.find(fmt::format("step{}.input_ids", n_)) != nullptr) ++n_;
  if (n_ == 0) throwUserError("{} holds no step0.input_ids / step0.labels tensors", path);
}

GlobalBatch ReferenceBatches::batch(int64_t step) {
  const int64_t s = (step - 1) % n_;
  const auto& ids = f_.get(fmt::format("step{}.input_ids", s));
  const auto& labels = f_.get(fmt::format("step{}.labels", s));
  if (ids.dtype != formats::DType::I64 || ids.shape.size() != 2 || labels.shape != ids.shape ||
      labels.dtype != formats::DType::I64)
    throwUserError("{}: step{}.input_ids/labels must be int64 [B, T] of one shape", f_.path(), s);
  GlobalBatch b;
  b.B = ids.shape[0];
  b.T = ids.shape[1];
  const auto* pi = reinterpret_cast<const int64_t*>(f_.data(ids));
  const auto* pl = reinterpret_cast<const int64_t*>(f_.data(labels));
  b.input_ids.assign(pi, pi + ids.numel());
  b.labels.assign(pl, pl + labels.numel());
  return b;
}

}  // namespace slidedp::data
