// A resume's model against the model its checkpoint was trained as: the parameter counts may
// match while the weights mean something else (another head layout) or the function differs.
#pragma once

#include <string>

#include "model/config.h"

namespace slidedp {

/// What a resume finds between `was` (the model the checkpoint was trained as: the config.json
/// its trainer_state.json records under "model_config") and `now` (this run's model), where
/// the per-unit parameter counts match (checked before this).
struct ModelChange {
  /// Non-empty when the checkpoint's weights would be read as another architecture: another
  /// hidden/MLP width, layer count, vocabulary, attention head count, key/value head count or
  /// head_dim (e.g. 8 heads of 8 read as 4 heads of 16: same counts, other attention). Names
  /// each field with both values; the caller refuses the resume.
  std::string refusal;
  /// Non-empty when the weights keep their meaning but the function changes: rms_norm_eps, the
  /// rotary embedding (type, theta and every scaling parameter), max_position_embeddings (the
  /// dynamic rope's base), sliding_window, model_type. Names each; the caller warns
  /// (a deliberate change, e.g. a longer context by rope scaling, stays possible).
  std::string warning;
};

/// Compares the two configs (pure; no I/O).
ModelChange compareResumedModel(const model::ModelConfig& was, const model::ModelConfig& now);

}  // namespace slidedp
