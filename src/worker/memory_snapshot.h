// The CUDA caching allocator's memory snapshot of a worker (slidedp_worker --memory-snapshot):
// what it reserves beyond what is allocated, per stream and segment, and the trace of every
// allocation and free with its size and stream while recording. The file is torch's pickled
// snapshot (torch.cuda.memory._snapshot() format), read by https://pytorch.org/memory_viz or
// torch.cuda._memory_viz; no stacks are recorded (the binaries are stripped, and symbolising
// C++ stacks of a whole step takes minutes), so tell tensors apart by size and order.
#pragma once

#include <string>

namespace slidedp {

/// Starts recording the allocator's alloc/free trace (up to 2,000,000 events) of this process's
/// GPUs. GPU workers only (a CUDA build); the calling thread is the worker's step thread.
void startMemoryHistory();

/// Writes the snapshot (segments, blocks, the trace since startMemoryHistory) to `path` and
/// stops recording. Throws UserError when the file cannot be written.
void writeMemorySnapshot(const std::string& path);

}  // namespace slidedp
