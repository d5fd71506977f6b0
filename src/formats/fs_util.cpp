// POSIX file-system helpers (see fs_util.h for why not std::filesystem).
#include "formats/fs_util.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

#include "common/errors.h"

namespace slidedp::formats {

bool pathExists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

bool isDirectory(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool isRegularFile(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool samePath(const std::string& a, const std::string& b) {
  struct stat sa {}, sb {};
  return !a.empty() && !b.empty() && ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 &&
         sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

std::string pathInside(const std::string& dir, const std::string& path) {
  char d[PATH_MAX], f[PATH_MAX];
  if (dir.empty() || path.empty() || ::realpath(dir.c_str(), d) == nullptr ||
      ::realpath(path.c_str(), f) == nullptr)
    return "";
  const std::string ds(d), fs(f);
  const size_t n = ds == "/" ? 0 : ds.size();
  if (fs.size() <= n + 1 || fs.compare(0, n, ds, 0, n) != 0 || fs[n] != '/') return "";
  return fs.substr(n + 1);
}

std::string currentDirectory() {
  char buf[PATH_MAX];
  return ::getcwd(buf, sizeof buf) != nullptr ? std::string(buf) : std::string();
}

std::string joinPath(const std::string& a, const std::string& b) {
  if (a.empty()) return b;
  return a.back() == '/' ? a + b : a + "/" + b;
}

std::string parentPath(const std::string& path) {
  auto pos = path.find_last_of('/');
  if (pos == std::string::npos) return ".";
  if (pos == 0) return "/";
  return path.substr(0, pos);
}

void makeDirectories(const std::string& path) {
  if (path.empty() || isDirectory(path)) return;
  std::string parent = parentPath(path);
  if (parent != path && parent != "." && parent != "/") makeDirectories(parent);
  if (::mkdir(path.c_str(), 0755) != 0 && errno != EEXIST)
    throwUserError("{}: cannot create directory: {}", path, std::strerror(errno));
}

std::vector<std::string> listDirectory(const std::string& path) {
  DIR* d = ::opendir(path.c_str());
  if (!d) throwUserError("{}: cannot list directory: {}", path, std::strerror(errno));
  std::vector<std::string> names;
  while (struct dirent* e = ::readdir(d)) {
    std::string n = e->d_name;
    if (n != "." && n != "..") names.push_back(n);
  }
  ::closedir(d);
  return names;
}

bool removeFile(const std::string& path) { return ::unlink(path.c_str()) == 0; }

void removeTree(const std::string& path) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) return;
  if (S_ISDIR(st.st_mode)) {
    for (const auto& n : listDirectory(path)) removeTree(joinPath(path, n));
    ::rmdir(path.c_str());
  } else {
    ::unlink(path.c_str());
  }
}

std::string readFileBytes(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throwUserError("{}: cannot open: {}", path, std::strerror(errno));
  std::string out;
  char buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      throwUserError("{}: read failed: {}", path, std::strerror(err));
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return out;
}

}  // namespace slidedp::formats
