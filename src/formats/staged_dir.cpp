#include "formats/staged_dir.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <set>
#include <vector>

#include "common/errors.h"
#include "formats/fs_util.h"

namespace slidedp::formats {

namespace {

std::string withoutTrailingSlash(std::string p) {
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  return p;
}

void fsyncDirectory(const std::string& dir) {
  if (int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

/// Removes the entries of `parent` named `prefix` + <pid> whose process no longer exists.
void removeDeadStaging(const std::string& parent, const std::string& prefix) {
  if (!isDirectory(parent)) return;
  for (const auto& name : listDirectory(parent)) {
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string digits = name.substr(prefix.size());
    if (digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 9) continue;
    const pid_t pid = static_cast<pid_t>(std::stol(digits));
    if (pid > 0 && ::kill(pid, 0) != 0 && errno == ESRCH) removeTree(joinPath(parent, name));
  }
}

}  // namespace

std::string stagingDirFor(const std::string& dir, const std::string& tag) {
  const std::string d = withoutTrailingSlash(dir);
  const bool inside = isDirectory(d);
  const std::string parent = inside ? d : parentPath(d);
  const std::string prefix = inside ? fmt::format(".tmp-{}-", tag)
                                    : fmt::format("{}.tmp-{}-", d.substr(d.find_last_of('/') + 1), tag);
  removeDeadStaging(parent, prefix);
  const std::string s = joinPath(parent, prefix + std::to_string(::getpid()));
  removeTree(s);
  return s;
}

void publishStagedDirectory(const std::string& staging, const std::string& dir_in, const PublishRules& rules) {
  const std::string dir = withoutTrailingSlash(dir_in);
  if (!pathExists(dir)) {
    if (std::rename(staging.c_str(), dir.c_str()) != 0)
      throwUserError("cannot rename {} to {}: {}", staging, dir, std::strerror(errno));
    fsyncDirectory(parentPath(dir));
    return;
  }
  if (!isDirectory(dir)) throwUserError("{} exists and is not a directory", dir);
  std::vector<std::string> names = listDirectory(staging);
  for (const auto& name : names)
    if (isDirectory(joinPath(dir, name)))
      throwUserError("cannot put {} in place: {} is a directory", name, joinPath(dir, name));
  const std::set<std::string> fresh(names.begin(), names.end());
  const std::string staging_name = staging.substr(staging.find_last_of('/') + 1);
  auto stale = [&](const std::string& name) {
    return !fresh.count(name) && name != staging_name && rules.owned && rules.owned(name) &&
           isRegularFile(joinPath(dir, name));
  };
  for (const auto& name : listDirectory(dir))
    if (rules.remove_first && rules.remove_first(name) && stale(name)) removeFile(joinPath(dir, name));
  std::stable_sort(names.begin(), names.end(), [&](const std::string& a, const std::string& b) {
    return rules.order ? rules.order(a) < rules.order(b) : false;
  });
  for (const auto& name : names) {
    const std::string from = joinPath(staging, name), to = joinPath(dir, name);
    if (std::rename(from.c_str(), to.c_str()) != 0)
      throwUserError("cannot rename {} to {}: {}", from, to, std::strerror(errno));
  }
  for (const auto& name : listDirectory(dir))
    if (stale(name)) removeFile(joinPath(dir, name));
  fsyncDirectory(dir);
  removeTree(staging);
}

}  // namespace slidedp::formats
