// Replicated across nodes: every node holds the whole state. The node's gradient chunk (its G
// staged sub-slots summed, or the workers' one reduced copy) is MPI_Allreduce'd in place over
// the leaders, and every leader runs the same AdamW update on the whole chunk, so the N copies
// stay bit-identical (the same sum on every leader: Open MPI's allreduce gives every rank the
// same result; tests/runtime checks the copies agree). Host memory per node: 14 B/param.
#include <mpi.h>

#include <vector>

#include "common/errors.h"
#include "leader/node_layout.h"

namespace slidedp {

namespace {

class ReplicatedNodeLayout final : public NodeLayout {
 public:
  explicit ReplicatedNodeLayout(const NodeLayoutEnv& env)
      : NodeLayout(env), grad_(static_cast<size_t>(env.plan->chunk_numel)) {}
  const char* name() const override { return "replicated"; }

  optim::GradView gradient(int64_t i, const optim::GradView& staged, int64_t n) override {
    if (n < 0) n = env_.plan->chunks[i].numel();
    sumStaged(staged, grad_.data(), n);
    MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, grad_.data(), static_cast<int>(n), MPI_FLOAT, MPI_SUM,
                            env_.ctx->leaders));
    slot_[0] = grad_.data();
    return optim::GradView{slot_, 1, optim::DType::kF32};
  }

 private:
  std::vector<float> grad_;  // [chunk_numel] fp32: the node's, then every node's, gradient
  const void* slot_[1] = {nullptr};
};

}  // namespace

std::unique_ptr<NodeLayout> makeReplicatedNodeLayout(const NodeLayoutEnv& env) {
  return std::make_unique<ReplicatedNodeLayout>(env);
}

}  // namespace slidedp
