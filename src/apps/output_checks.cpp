// Output paths checked before start-up (see output_checks.h).
#include "apps/output_checks.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <vector>

#include "common/errors.h"
#include "formats/fs_util.h"
#include "model/hf_checkpoint.h"  // tokenizerFileNames
#include "shm/layout.h"  // formatBytes
#include "train/checkpoint_dir.h"

namespace slidedp {

namespace {

/// Whether two existing paths are the same directory (after symbolic links and "..").
bool sameDirectory(const std::string& a, const std::string& b) {
  return formats::isDirectory(a) && formats::samePath(a, b);
}

/// `p` absolute, its existing part resolved (symbolic links, ".."), the rest normalised by name,
/// without a trailing '/' ("./out/ck/" and "out/ck" alike); "" when it cannot be resolved.
std::string resolvedPlace(const std::string& p) {
  namespace fs = std::filesystem;
  if (p.empty()) return "";
  std::error_code ec;
  std::string s = fs::weakly_canonical(fs::absolute(p, ec), ec).lexically_normal().string();
  if (ec) return "";
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

/// Whether two paths, existing or not yet, name one place (resolvedPlace).
bool samePlace(const std::string& a, const std::string& b) {
  const std::string ra = resolvedPlace(a), rb = resolvedPlace(b);
  return !ra.empty() && ra == rb;
}

/// `path` relative to `dir` where it lies inside it, both existing or not yet (resolvedPlace);
/// "" otherwise.
std::string placeInside(const std::string& dir, const std::string& path) {
  const std::string d = resolvedPlace(dir), f = resolvedPlace(path);
  if (d.empty() || f.empty()) return "";
  const std::string r = std::filesystem::path(f).lexically_relative(d).string();
  if (r.empty() || r == "." || r.rfind("..", 0) == 0) return "";
  return r;
}

/// Creates `dir` (and its missing parents) and writes a probe file there. `value`: what the
/// option was given (`dir`, or a file in it), for the messages. `leave_no_trace`: the
/// directories it created are removed again (empty), for an output written only at the end
/// (--export: a run stopped early must not leave an empty export directory behind).
void probeDirectory(const std::string& option, const std::string& value, const std::string& dir,
                    bool leave_no_trace = false) {
  // A file where the path needs a directory (itself or a parent): named as such, before mkdir.
  for (std::string d = dir; !d.empty() && d != "/" && d != "."; d = formats::parentPath(d)) {
    if (formats::pathExists(d)) {
      if (!formats::isDirectory(d))
        throwUserError("{} {}: {} is a file, not a directory.\nHINT: pass a path {}, or move {} aside",
                       option, value, d, value == dir ? "that names a directory" : "in a directory", d);
      break;
    }
    if (formats::parentPath(d) == d) break;
  }
  std::vector<std::string> created;  // deepest first
  for (std::string d = dir; !d.empty() && d != "/" && d != "." && !formats::isDirectory(d);
       d = formats::parentPath(d)) {
    created.push_back(d);
    if (formats::parentPath(d) == d) break;
  }
  struct Undo {
    const std::vector<std::string>& dirs;
    bool on;
    ~Undo() {
      if (on)
        for (const auto& d : dirs) ::rmdir(d.c_str());
    }
  } undo{created, leave_no_trace};
  try {
    formats::makeDirectories(dir);
  } catch (const UserError& e) {
    throwUserError("{} {}: {} cannot be created ({}).\nHINT: pass a path you can write, or create "
                   "it with the right owner first", option, value,
                   value == dir ? std::string("the directory") : "its directory " + dir, e.what());
  }
  if (!formats::isDirectory(dir))
    throwUserError("{} {}: not a directory.\nHINT: pass a directory path", option, dir);
  const std::string probe = formats::joinPath(dir, fmt::format(".slidedp-write-test-{}", getpid()));
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  const bool wrote = fd >= 0 && ::write(fd, "x", 1) == 1;
  const int err = errno;
  if (fd >= 0) ::close(fd);
  ::unlink(probe.c_str());
  if (!wrote)
    throwUserError("{} {}: cannot write there ({}); the run would fail when it first writes "
                   "it.\nHINT: pass a writable path (check permissions, a read-only mount, the "
                   "owner)", option, dir, std::strerror(err));
}

/// Bytes on disk of the files under `path` (st_blocks), 0 when absent.
uint64_t diskBytes(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return 0;
  if (!S_ISDIR(st.st_mode)) return static_cast<uint64_t>(st.st_blocks) * 512;
  uint64_t sum = 0;
  for (const auto& n : formats::listDirectory(path)) sum += diskBytes(formats::joinPath(path, n));
  return sum;
}

dev_t deviceOf(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? st.st_dev : 0;
}

struct Need {
  uint64_t bytes = 0;
  std::vector<std::string> what;
  std::string path;
};

}  // namespace

uint64_t freeBytesAt(const std::string& path) {
  struct statvfs st {};
  if (::statvfs(path.c_str(), &st) != 0)
    throwUserError("{}: cannot read the file system's free space: {}", path, std::strerror(errno));
  return static_cast<uint64_t>(st.f_bavail) * st.f_frsize;
}

namespace {

/// An output file that would overwrite what the run reads: the input file itself, or an
/// existing file inside an input directory (a model's weights, a checkpoint's state). A new
/// file beside them is fine.
void checkNotAnInput(const char* option, const std::string& file, const OutputPlan& p) {
  if (file.empty() || !formats::pathExists(file)) return;
  // A checkpoint root (--checkpoint-dir, a --resume root): only its step directories and
  // `latest` are the run's (files of the user's own beside them are not).
  std::vector<std::pair<std::string, std::string>> inputs;
  for (const auto& [input, path] : p.inputs) {
    const bool root = (input == "--checkpoint-dir" || input == "--resume") && formats::isDirectory(path) &&
                      !formats::isRegularFile(formats::joinPath(path, "trainer_state.json"));
    if (!root) {
      inputs.emplace_back(input, path);
      continue;
    }
    for (const auto& c : listStepCheckpoints(path)) inputs.emplace_back(input, c.dir);
    inputs.emplace_back(input, formats::joinPath(path, "latest"));
  }
  for (const auto& [input, path] : inputs) {
    if (path.empty() || !formats::pathExists(path)) continue;
    if (formats::isDirectory(path)) {
      const std::string inside = formats::pathInside(path, file);
      // A model directory: the files the run loads from it (a file of the user's own beside
      // them, e.g. this run's metrics appended to on a resume, is fine); a checkpoint: all.
      if (inside.empty() || (input == "--model" && !model::isHfModelFile(inside))) continue;
      throwUserError("{} {} is a file inside the {} directory {}: the run would overwrite it "
                     "(it reads that directory).\nHINT: write {} to a file of its own outside it",
                     option, file, input, path, option);
    } else if (formats::samePath(file, path)) {
      throwUserError("{} {} is the {} file the run reads: the run would overwrite it.\nHINT: "
                     "write {} to a file of its own", option, file, input, option);
    }
  }
}

}  // namespace

void checkOutputPaths(const OutputPlan& p) {
  checkNotAnInput("--metrics", p.metrics, p);
  checkNotAnInput("--trace", p.trace, p);
  // Outputs over each other: the later writer would replace the earlier one's file.
  if (!p.metrics.empty() && !p.trace.empty() &&
      samePlace(p.metrics, p.trace))
    throwUserError("--metrics and --trace are the same file {}: the trace would replace the metrics."
                   "\nHINT: give each a file of its own (e.g. metrics.jsonl and trace.json)", p.metrics);
  for (const auto& [option, file] : {std::pair<const char*, const std::string&>{"--metrics", p.metrics},
                                     std::pair<const char*, const std::string&>{"--trace", p.trace}}) {
    if (file.empty()) continue;
    // the export's own files (config.json, the weights, the tokenizer's); a file of the user's
    // beside them is fine
    if (const std::string in_export = placeInside(p.export_dir, file); !in_export.empty() && model::isHfModelFile(in_export))
      throwUserError("{} {} is one of the files the export writes (or clears of an earlier model) in "
                     "--export {} at the end.\nHINT: write {} to a file of its own (e.g. {})", option, file,
                     p.export_dir, option, formats::joinPath(p.export_dir, "metrics.jsonl"));
    // the checkpoint directory's own names: `latest`, the step-* checkpoints and their
    // temporaries (a file of the user's beside them, e.g. metrics.jsonl, is fine)
    const std::string inside = placeInside(p.checkpoint_dir, file);
    const std::string top = inside.substr(0, inside.find('/'));
    if (top == "latest" || top.rfind("step-", 0) == 0 || top.rfind(".step-", 0) == 0)
      throwUserError("{} {} is the --checkpoint-dir's own {} {}, which checkpoints write.\nHINT: "
                     "write {} to another name (e.g. {})", option, file, top == "latest" ? "file" : "entry",
                     top, option, formats::joinPath(p.checkpoint_dir, "metrics.jsonl"));
  }
  if (!p.export_dir.empty() && sameDirectory(p.export_dir, p.model_dir))
    throwUserError("--export {} is the --model directory the run starts from: the export would "
                   "overwrite its weights with the fine-tuned ones.\nHINT: export to a new "
                   "directory, e.g. --export {}-finetuned", p.export_dir, p.model_dir);
  const auto exportIsCheckpointDir = [&] {
    if (!p.export_dir.empty() && (sameDirectory(p.export_dir, p.checkpoint_dir) ||
                                  samePlace(p.export_dir, p.checkpoint_dir)))
      throwUserError("--export {} is also the --checkpoint-dir: the exported model would be mixed "
                     "into the checkpoints.\nHINT: export to a directory of its own (a "
                     "subdirectory of the checkpoint directory is fine)", p.export_dir);
  };
  exportIsCheckpointDir();
  std::map<dev_t, Need> needs;  // per file system: the outputs may share one
  auto add = [&](const std::string& dir, uint64_t bytes, std::string what) {
    Need& n = needs[deviceOf(dir)];
    n.bytes += bytes;
    n.what.push_back(std::move(what));
    if (n.path.empty()) n.path = dir;
  };
  if (!p.checkpoint_dir.empty()) {
    probeDirectory("--checkpoint-dir", p.checkpoint_dir, p.checkpoint_dir);
    exportIsCheckpointDir();  // again, now that it exists (a symbolic link made meanwhile)
    const int64_t n = std::max<int64_t>(p.checkpoints_written, 1);
    const uint64_t size = p.checkpoint_bytes;
    uint64_t bytes = 0;
    std::string why;
    if (p.keep <= 0) {
      bytes = n * size;
      why = fmt::format("{} checkpoint(s) of {} each, all kept (--keep-checkpoints {})", n,
                        shm::formatBytes(size), p.keep);
    } else {
      // Peak: the kept ones plus the one being written; earlier checkpoints in the directory
      // already use space and are pruned as new ones arrive.
      const int64_t at_once = std::min<int64_t>(n, p.keep + 1);
      uint64_t existing = 0;
      for (const auto& s : listStepCheckpoints(p.checkpoint_dir)) existing += diskBytes(s.dir);
      bytes = std::max<uint64_t>(size, at_once * size > existing ? at_once * size - existing : 0);
      why = fmt::format("up to {} checkpoint(s) of {} on disk at once (--keep-checkpoints {} + "
                        "the one being written){}", at_once, shm::formatBytes(size), p.keep,
                        existing ? fmt::format(", less {} the directory's checkpoints already use",
                                               shm::formatBytes(existing)) : "");
    }
    add(p.checkpoint_dir, bytes, fmt::format("--checkpoint-dir {}: {} ({})", p.checkpoint_dir,
                                             shm::formatBytes(bytes), why));
  }
  if (!p.export_dir.empty()) {
    probeDirectory("--export", p.export_dir, p.export_dir, /*leave_no_trace=*/true);
    std::string on = p.export_dir;  // made at the end: its nearest existing ancestor's file system
    while (!formats::isDirectory(on) && formats::parentPath(on) != on) on = formats::parentPath(on);
    add(on, p.export_bytes, fmt::format("--export {}: {}", p.export_dir,
                                                  shm::formatBytes(p.export_bytes)));
  }
  struct OutputFile {
    const char* option;
    const std::string& path;
    const char* example;  // a file name for the hint
  };
  for (const auto& [option, file, example] :
       {OutputFile{"--metrics", p.metrics, "metrics.jsonl"}, OutputFile{"--trace", p.trace, "trace.json"},
        OutputFile{"--gpu-profile", p.gpu_profile, "profile.json"},
        OutputFile{"--memory-snapshot", p.memory_snapshot, "memory.pickle"}}) {
    if (file.empty()) continue;
    if (formats::isDirectory(file))
      throwUserError("{} {}: is a directory; expected a file path.\nHINT: e.g. {}", option, file,
                     formats::joinPath(file, example));
    if (file.back() == '/')  // written at the end, into a directory that this names
      throwUserError("{} {}: ends in '/', a directory's name; expected a file path.\nHINT: e.g. {}",
                     option, file, formats::joinPath(file, example));
    probeDirectory(option, file, formats::parentPath(file));
  }
  for (const auto& [dev, n] : needs) {
    const uint64_t free_bytes = freeBytesAt(n.path);
    if (n.bytes <= free_bytes) continue;
    std::string list;
    for (const auto& w : n.what) list += "\n  " + w;
    throwUserError("not enough disk space for this run's outputs on the file system of {}: they "
                   "need {} ({} bytes) but it has {} ({} bytes) free:{}\nHINT: free space there, "
                   "write to another file system, keep fewer checkpoints (--keep-checkpoints) or "
                   "write fewer (--checkpoint-every)", n.path, shm::formatBytes(n.bytes), n.bytes,
                   shm::formatBytes(free_bytes), free_bytes, list);
  }
}

}  // namespace slidedp
