// A directory of files written elsewhere first (a staging directory beside it), then put in
// place by renames: a failed or killed write leaves the directory as it was.
#pragma once

#include <functional>
#include <string>

namespace slidedp::formats {

/// The staging directory for `dir`, on its file system (renames, no copies): inside it,
/// `dir/.tmp-<tag>-<pid>`, when `dir` exists (its parent need not be writable); else its
/// sibling `dir` (without a trailing '/') + ".tmp-<tag>-<pid>". Removed first when it exists
/// (a killed earlier attempt of this pid's number).
std::string stagingDirFor(const std::string& dir, const std::string& tag);

/// Puts the files of `staging` (flat: regular files only) in place as `dir`:
/// - `dir` absent: one rename of `staging` (atomic: `dir` is whole or absent);
/// - `dir` an existing directory: each file renamed over its namesake (each atomic), then the
///   files of `dir` that `owned(name)` says belong to the output but `staging` did not hold
///   are removed (e.g. the shards of an earlier, larger save), then `staging` is removed.
///   Files of others in `dir` (owned false) stay.
/// The parent directories are fsynced. Throws UserError naming the file on I/O failure (then
/// `staging` is left for the caller to remove). Not thread-safe for the same `dir`.
void publishStagedDirectory(const std::string& staging, const std::string& dir,
                            const std::function<bool(const std::string&)>& owned);

}  // namespace slidedp::formats
