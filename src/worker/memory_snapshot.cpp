#include "worker/memory_snapshot.h"

#include <fstream>
#include <optional>

#include "common/errors.h"

#ifdef SLIDEDP_WITH_CUDA
#include <torch/csrc/cuda/memory_snapshot.h>
#endif

namespace slidedp {

void startMemoryHistory() {
#ifdef SLIDEDP_WITH_CUDA
  // enabled "all": record alloc/free events; context "all": the state and the trace; stacks
  // "python": none in this process (no interpreter), so no C++ unwinding either.
  torch::cuda::_record_memory_history(std::optional<std::string>("all"), std::optional<std::string>("all"),
                                      "python", 2000000);
#else
  throwUserError("--memory-snapshot needs a CUDA build and GPU workers");
#endif
}

void writeMemorySnapshot(const std::string& path) {
#ifdef SLIDEDP_WITH_CUDA
  const std::string pickled = torch::cuda::_memory_snapshot_pickled();
  torch::cuda::_record_memory_history(std::optional<std::string>(), std::optional<std::string>("all"),
                                      "python", 2000000);  // enabled = None: stop
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(pickled.data(), static_cast<std::streamsize>(pickled.size()));
  if (!f.flush())
    throwUserError("--memory-snapshot: cannot write {}.\nHINT: give a path in a writable directory", path);
#else
  (void)path;
  throwUserError("--memory-snapshot needs a CUDA build and GPU workers");
#endif
}

}  // namespace slidedp
