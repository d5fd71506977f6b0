// A directory of files written elsewhere first (a staging directory), then put in place by
// renames: a failed write leaves the directory as it was.
#pragma once

#include <functional>
#include <string>

namespace slidedp::formats {

/// The staging directory for `dir`, on its file system (renames, no copies): inside it,
/// `dir/.tmp-<tag>-<pid>`, when `dir` exists (its parent need not be writable); else its
/// sibling `dir` (without a trailing '/') + ".tmp-<tag>-<pid>". Removed first when it exists,
/// and so are the staging directories of `tag` left there by processes that no longer exist
/// on this host (a killed earlier write: each holds a whole output).
std::string stagingDirFor(const std::string& dir, const std::string& tag);

/// How publishStagedDirectory treats the names of an output.
struct PublishRules {
  /// Whether a file of `dir` belongs to the output (removed when the new output lacks it, e.g.
  /// the shards of an earlier, larger save); files of others stay.
  std::function<bool(const std::string&)> owned;
  /// The order files are renamed in (lower first; equal: any order): what a reader looks at
  /// first (a config) last, so that it names files already in place.
  std::function<int(const std::string&)> order;
  /// Owned files the new output lacks that are removed before any rename (one that would make
  /// a reader take the earlier files, e.g. a shard index beside a new single file).
  std::function<bool(const std::string&)> remove_first;
};

/// Puts the files of `staging` (flat: regular files only) in place as `dir`:
/// - `dir` absent: one rename of `staging` (atomic: `dir` is whole or absent);
/// - `dir` an existing directory: after checking that no file's place is a directory, the
///   remove_first files go, then each file is renamed over its namesake in `order` (each rename
///   atomic; the set is not: a crash between two renames leaves some files new, some old), then
///   the other owned files the output lacks are removed, then `staging`.
/// The directories are fsynced. Throws UserError naming the file on I/O failure (`staging` is
/// left for the caller to remove). Not thread-safe for the same `dir`.
void publishStagedDirectory(const std::string& staging, const std::string& dir, const PublishRules& rules);

}  // namespace slidedp::formats
