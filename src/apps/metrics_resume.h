// A resumed run's --metrics file: the lines of steps it is about to run again are dropped.
#pragma once

#include <cstdint>
#include <string>

namespace slidedp {

/// Rewrites the --metrics file `path` (JSONL, or CSV with a header when `csv`) keeping only the
/// lines of steps before `first_step`, so that a run resumed from its last checkpoint after a
/// crash (whose steps after that checkpoint were written already) appends each step once.
/// Kept as they are: the CSV header (a first line starting "step,"), lines without a readable step (a hand edit), and JSONL
/// objects without "step". A torn last line (the crash cut its write) is dropped. The rewrite
/// is atomic (a temporary file renamed over it). Returns the number of lines dropped (0: the
/// file is left untouched, also when it does not exist). Rank 0 only, before the first step.
/// Throws UserError when the file cannot be read or rewritten.
int64_t dropMetricsFromStep(const std::string& path, int64_t first_step, bool csv);

}  // namespace slidedp
