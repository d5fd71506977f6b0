// Small POSIX file-system helpers for checkpoint I/O.
// Design decision: no std::filesystem in code that may be linked with LibTorch: the torch
// wheel's libtorch.so / libtorch_cpu.so export their own std::filesystem symbols, which
// interpose on ours at run time (std::filesystem::remove_all crashed through a null pointer in
// a test binary). These helpers call libc only.
#pragma once

#include <string>
#include <vector>

namespace slidedp::formats {

bool pathExists(const std::string& path);
bool isDirectory(const std::string& path);
bool isRegularFile(const std::string& path);
/// Whether both paths exist and name the same file or directory (after links and "..").
bool samePath(const std::string& a, const std::string& b);
/// `path` relative to the directory `dir` when it lies inside it ("w/model.safetensors" for
/// dir "m" and path "m/w/model.safetensors"); "" when it does not, or either does not exist.
/// Both are resolved with realpath(3) first (symbolic links, "." and "..").
std::string pathInside(const std::string& dir, const std::string& path);
/// The current working directory ("" when it cannot be read).
std::string currentDirectory();
/// "a" + "b" -> "a/b" (no doubled slash).
std::string joinPath(const std::string& a, const std::string& b);
/// The directory part of a path ("." when there is none).
std::string parentPath(const std::string& path);
/// mkdir -p; throws UserError on failure.
void makeDirectories(const std::string& path);
/// Names (not paths) in a directory, without "." and ".."; throws UserError when unreadable.
std::vector<std::string> listDirectory(const std::string& path);
/// unlink; returns false when it failed (e.g. absent).
bool removeFile(const std::string& path);
/// rm -r (files, symlinks and directories; symlinks are not followed). Absent is fine.
void removeTree(const std::string& path);
/// Whole file as bytes; throws UserError.
std::string readFileBytes(const std::string& path);

}  // namespace slidedp::formats
