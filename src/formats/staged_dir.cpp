#include "formats/staged_dir.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <set>

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

}  // namespace

std::string stagingDirFor(const std::string& dir, const std::string& tag) {
  const std::string d = withoutTrailingSlash(dir);
  const std::string s = isDirectory(d) ? joinPath(d, fmt::format(".tmp-{}-{}", tag, ::getpid()))
                                       : fmt::format("{}.tmp-{}-{}", d, tag, ::getpid());
  removeTree(s);
  return s;
}

void publishStagedDirectory(const std::string& staging, const std::string& dir_in,
                            const std::function<bool(const std::string&)>& owned) {
  const std::string dir = withoutTrailingSlash(dir_in);
  if (!pathExists(dir)) {
    if (std::rename(staging.c_str(), dir.c_str()) != 0)
      throwUserError("cannot rename {} to {}: {}", staging, dir, std::strerror(errno));
    fsyncDirectory(parentPath(dir));
    return;
  }
  if (!isDirectory(dir)) throwUserError("{} exists and is not a directory", dir);
  std::set<std::string> names;
  for (const auto& name : listDirectory(staging)) {
    const std::string from = joinPath(staging, name), to = joinPath(dir, name);
    if (isDirectory(to))
      throwUserError("cannot put {} in place: {} is a directory", name, to);
    if (std::rename(from.c_str(), to.c_str()) != 0)
      throwUserError("cannot rename {} to {}: {}", from, to, std::strerror(errno));
    names.insert(name);
  }
  for (const auto& name : listDirectory(dir))
    if (!names.count(name) && owned(name) && isRegularFile(joinPath(dir, name)))
      removeFile(joinPath(dir, name));
  fsyncDirectory(dir);
  removeTree(staging);
}

}  // namespace slidedp::formats
