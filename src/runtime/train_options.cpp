#include "runtime/train_options.h"

#include "common/errors.h"

namespace slidedp {

const char* nodeLayoutName(NodeLayoutKind k) {
  return k == NodeLayoutKind::kFullySharded ? "fully-sharded"
         : k == NodeLayoutKind::kSharded    ? "sharded"
                                            : "replicated";
}

NodeLayoutKind parseNodeLayout(const std::string& s) {
  if (s == "replicated") return NodeLayoutKind::kReplicated;
  if (s == "sharded") return NodeLayoutKind::kSharded;
  if (s == "fully-sharded") return NodeLayoutKind::kFullySharded;
  throwUserError("unknown node layout '{}': expected replicated (every node holds the whole "
                 "state), sharded (each node's leader owns 1/N of it) or fully-sharded (the "
                 "delivery copy too)", s);
}

const char* routeName(DeliveryRoute r) {
  switch (r) {
    case DeliveryRoute::kReplicated: return "replicated";
    case DeliveryRoute::kSharded: return "sharded";
    case DeliveryRoute::kShardedIpc: return "sharded-ipc";
  }
  return "?";
}
const char* routeName(ReductionRoute r) {
  switch (r) {
    case ReductionRoute::kCpu: return "cpu";
    case ReductionRoute::kGpu: return "gpu";
    case ReductionRoute::kGpuIpc: return "gpu-ipc";
  }
  return "?";
}

DeliveryRoute parseDeliveryRoute(const std::string& s) {
  if (s == "replicated") return DeliveryRoute::kReplicated;
  if (s == "sharded") return DeliveryRoute::kSharded;
  if (s == "sharded-ipc") return DeliveryRoute::kShardedIpc;
  throwUserError("unknown delivery route '{}': expected replicated, sharded (all-gather by NCCL, "
                 "or MPI on CPU workers) or sharded-ipc (CUDA IPC peer copies, GPU workers)", s);
}

ReductionRoute parseReductionRoute(const std::string& s) {
  if (s == "cpu") return ReductionRoute::kCpu;
  if (s == "gpu") return ReductionRoute::kGpu;
  if (s == "gpu-ipc") return ReductionRoute::kGpuIpc;
  throwUserError("unknown reduction route '{}': expected cpu, gpu (reduce-scatter by NCCL, or MPI "
                 "on CPU workers) or gpu-ipc (CUDA IPC peer copies, GPU workers)", s);
}

const char* policyName(ActivationPolicy p) {
  switch (p) {
    case ActivationPolicy::kRecompute: return "recompute";
    case ActivationPolicy::kKeep: return "keep";
    case ActivationPolicy::kAuto: return "auto";
    case ActivationPolicy::kAttentionOutput: return "attention-output";
  }
  return "?";
}

AttentionChoice parseAttentionChoice(const std::string& s) {
  if (s == "auto") return AttentionChoice::kAuto;
  if (s == "fa3") return AttentionChoice::kFa3;
  if (s == "cudnn") return AttentionChoice::kCudnn;
  if (s == "flash") return AttentionChoice::kFlash;
  throwUserError("unknown attention kernel '{}': expected auto, fa3, cudnn or flash", s);
}

ActivationPolicy parseActivationPolicy(const std::string& s) {
  if (s == "recompute") return ActivationPolicy::kRecompute;
  if (s == "keep") return ActivationPolicy::kKeep;
  if (s == "auto") return ActivationPolicy::kAuto;
  if (s == "attention-output") return ActivationPolicy::kAttentionOutput;
  throwUserError("unknown activation policy '{}': expected recompute, keep, attention-output or auto", s);
}

}  // namespace slidedp
