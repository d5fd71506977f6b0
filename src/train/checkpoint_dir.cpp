// A --checkpoint-dir on disk (see checkpoint_dir.h).
#include "train/checkpoint_dir.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>

#include "common/errors.h"
#include "formats/checkpoint.h"
#include "formats/file_digest.h"
#include "formats/fs_util.h"
#include "shm/segment.h"  // processAlive

namespace slidedp {

namespace {

constexpr const char* kStatePrefix = "step-";

/// "step-00000025" -> 25; -1 when `name` is not a step directory's name.
int64_t stepOfName(const std::string& name) {
  const size_t n = std::char_traits<char>::length(kStatePrefix);
  if (name.size() <= n || name.compare(0, n, kStatePrefix) != 0 || name.size() > n + 18) return -1;
  for (size_t i = n; i < name.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(name[i]))) return -1;
  return std::stoll(name.substr(n));
}

/// Whether step directory `dir` holds its optimizer state: optimizer.safetensors (one node, or
/// replicated), or every node's optimizer-node<k>-of-<N>.safetensors (sharded across N nodes).
bool hasOptimizerState(const std::string& dir) {
  using namespace formats;
  if (isRegularFile(joinPath(dir, "optimizer.safetensors"))) return true;
  for (const auto& f : listDirectory(dir)) {
    unsigned k = 0, n = 0;
    char tail[16] = {0};
    if (std::sscanf(f.c_str(), "optimizer-node%u-of-%u.%15s", &k, &n, tail) != 3 ||
        std::string(tail) != "safetensors" || n == 0 || n > 65536)
      continue;
    for (unsigned i = 0; i < n; ++i)
      if (!isRegularFile(joinPath(dir, fmt::format("optimizer-node{}-of-{}.safetensors", i, n)))) return false;
    return true;
  }
  return false;
}

std::string listNames(const std::vector<StepCheckpoint>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) {
    if (i == 3 && v.size() > 5) {
      s += fmt::format(", ... ({} more)", v.size() - 4);
      i = v.size() - 1;
    }
    s += (s.empty() ? "" : ", ") + v[i].name + (v[i].complete ? "" : " (incomplete)");
  }
  return s;
}

/// The step directory name a `latest` file holds (publishAndPrune writes it with a newline).
std::string readLatestName(const std::string& latest) {
  std::string name = formats::readFileBytes(latest);
  while (!name.empty() && (name.back() == '\n' || name.back() == ' ')) name.pop_back();
  return name;
}
}  // namespace

std::vector<StepCheckpoint> listStepCheckpoints(const std::string& root) {
  using namespace formats;
  std::vector<StepCheckpoint> out;
  if (!isDirectory(root)) return out;
  for (const auto& name : listDirectory(root)) {
    const int64_t step = stepOfName(name);
    const std::string dir = joinPath(root, name);
    if (step < 0 || !isDirectory(dir)) continue;
    out.push_back({step, name, dir,
                   isRegularFile(joinPath(dir, "trainer_state.json")) && hasOptimizerState(dir)});
  }
  std::sort(out.begin(), out.end(),
            [](const StepCheckpoint& a, const StepCheckpoint& b) { return a.step < b.step; });
  return out;
}

std::string resolveCheckpoint(const std::string& path, std::string* note) {
  using namespace formats;
  if (!isDirectory(path))
    throwUserError("{} does not exist{}.\nHINT: pass the --checkpoint-dir of an earlier run, or one "
                   "of its step-* directories", path, pathExists(path) ? " as a directory" : "");
  if (isRegularFile(joinPath(path, "trainer_state.json"))) return path;
  const std::string latest = joinPath(path, "latest");
  if (isRegularFile(latest)) {
    const std::string name = readLatestName(latest);
    // What to pass instead: the complete checkpoints only (an incomplete one cannot resume).
    std::vector<StepCheckpoint> complete;
    for (const auto& c : listStepCheckpoints(path))
      if (c.complete) complete.push_back(c);
    const std::string instead =
        complete.empty() ? fmt::format("{} holds no complete checkpoint to resume from instead", path)
                         : fmt::format("pass one of its complete step directories to --resume, the newest "
                                       "{} ({})", complete.back().dir, listNames(complete));
    if (stepOfName(name) < 0)  // not a step directory's name: damaged (its bytes are not shown)
      throwUserError("{} does not name a step directory: it holds {} byte(s), not a step-NNNNNNNN "
                     "name (a damaged file?).\nHINT: {}", latest, name.size(), instead);
    const std::string dir = joinPath(path, name);
    if (isRegularFile(joinPath(dir, "trainer_state.json"))) return dir;
    throwUserError("{} names {}, which holds no trainer_state.json (a checkpoint removed by "
                   "hand?).\nHINT: {}", latest, dir, instead);
  }
  const auto steps = listStepCheckpoints(path);
  for (auto it = steps.rbegin(); it != steps.rend(); ++it) {
    if (!it->complete) continue;
    if (note)
      *note = fmt::format("{} has no `latest` file; resuming from its newest complete checkpoint "
                          "{}", path, it->dir);
    return it->dir;
  }
  if (!steps.empty())
    throwUserError("{} holds step directories ({}) but none is a complete checkpoint (each needs "
                   "trainer_state.json and its optimizer state, optimizer*.safetensors).\nHINT: restore them, or pass "
                   "another --checkpoint-dir", path, listNames(steps));
  throwUserError("{} is not a checkpoint: it has neither trainer_state.json nor a `latest` "
                 "file.\nHINT: pass the --checkpoint-dir of an earlier run, or one of its "
                 "step-* directories", path);
}

nlohmann::json readTrainerState(const std::string& step_dir) {
  const std::string file = formats::joinPath(step_dir, "trainer_state.json");
  try {
    return nlohmann::json::parse(formats::readFileBytes(file));
  } catch (const nlohmann::json::exception& e) {
    throwUserError("{} is not valid JSON: {}", file, e.what());
  }
}

bool verifyCheckpointFiles(const std::string& step_dir) {
  const nlohmann::json st = readTrainerState(step_dir);
  if (!st.contains("files") || !st["files"].is_object()) return false;
  for (auto it = st["files"].begin(); it != st["files"].end(); ++it) {
    formats::FileDigest want;
    try {
      want.bytes = it.value().at("bytes").get<uint64_t>();
      want.xxh3 = it.value().at("xxh3").get<std::string>();
    } catch (const nlohmann::json::exception& e) {
      throwUserError("{}/trainer_state.json: files.{} is malformed: {}", step_dir, it.key(), e.what());
    }
    formats::verifyFileDigest(formats::joinPath(step_dir, it.key()), want);
  }
  return true;
}

namespace {

/// What root/latest says of the step directories `steps`: the step it names (-1: no `latest`,
/// or it names none of them) and the interrupted publications: step directories newer than
/// that one and renamed into place after `latest` was last written (rename sets a directory's
/// ctime), i.e. a job was killed between a checkpoint's rename and the update of `latest`. A
/// `latest` edited by hand to name an older step leaves the newer checkpoints out of that set.
struct LatestView {
  std::string name;
  int64_t published = -1;
  std::vector<StepCheckpoint> interrupted;
};

LatestView viewLatest(const std::string& root, const std::vector<StepCheckpoint>& steps) {
  LatestView v;
  const std::string latest = formats::joinPath(root, "latest");
  struct stat latest_st {};
  if (!formats::isRegularFile(latest) || ::stat(latest.c_str(), &latest_st) != 0) return v;
  v.name = readLatestName(latest);
  for (const auto& s : steps)
    if (s.name == v.name) v.published = s.step;
  if (v.published < 0) return v;
  const auto ns = [](const timespec& t) { return int64_t{t.tv_sec} * 1000000000 + t.tv_nsec; };
  for (const auto& s : steps) {
    struct stat st {};
    if (s.step > v.published && ::stat(s.dir.c_str(), &st) == 0 && ns(st.st_ctim) >= ns(latest_st.st_mtim))
      v.interrupted.push_back(s);
  }
  return v;
}

}  // namespace

void checkCheckpointRootBeforeStart(const std::string& root, int64_t start_step, bool overwrite) {
  using namespace formats;
  const auto steps = listStepCheckpoints(root);
  if (steps.empty() || overwrite) return;
  // An interrupted publication (viewLatest) is not another run's checkpoint: it does not count
  // (the run that continues moves it aside: setAsideInterruptedPublications).
  const LatestView view = viewLatest(root, steps);
  std::vector<StepCheckpoint> newer;
  for (const auto& s : steps)
    if (s.step > start_step && std::none_of(view.interrupted.begin(), view.interrupted.end(),
                                            [&](const StepCheckpoint& i) { return i.step == s.step; }))
      newer.push_back(s);
  if (newer.empty()) return;
  if (start_step == 0)
    throwUserError("--checkpoint-dir {} already holds the checkpoints of another run ({}); "
                   "starting a new run there would move `latest` back and prune them.\nHINT: "
                   "continue that run with --resume auto, pass another --checkpoint-dir, or "
                   "--overwrite-checkpoints to replace it", root, listNames(steps));
  // `latest` itself may name the older step (edited by hand): the newest is then named.
  const bool latest_older = view.published >= 0 && view.published < newer.back().step;
  throwUserError("--checkpoint-dir {} holds checkpoints newer than step {}, where this run "
                 "continues ({}){}; writing there would move `latest` back and prune them.\nHINT: "
                 "resume from the newest (--resume {}), pass another --checkpoint-dir, or "
                 "--overwrite-checkpoints to replace the newer ones", root, start_step,
                 listNames(newer),
                 latest_older ? fmt::format(", and {}/latest names {}, not the newest", root, view.name)
                              : std::string(),
                 latest_older ? newer.back().dir : root);
}

std::string lockCheckpointRoot(const std::string& root) {
  static std::set<std::string> locked;  // this process's: a second call for a root is a no-op
  if (locked.count(root) != 0) return "";
  const std::string path = formats::joinPath(root, ".slidedp.lock");
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  const bool note = fd >= 0;
  if (fd < 0 && errno == EACCES) fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);  // another user's file
  if (fd < 0)
    throwUserError("--checkpoint-dir {}: cannot open its lock file {}: {}", root, path, std::strerror(errno));
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    if (err == ENOSYS || err == EOPNOTSUPP || err == ENOLCK) {  // a file system without flock
      ::close(fd);
      locked.insert(root);
      return fmt::format("--checkpoint-dir {}: its file system takes no lock ({}): nothing keeps a "
                         "second job from writing there at the same time", root, std::strerror(err));
    }
    char holder[256] = {0};
    const ssize_t n = ::pread(fd, holder, sizeof(holder) - 1, 0);
    ::close(fd);
    std::string who = n > 0 ? std::string(holder, static_cast<size_t>(n)) : std::string();
    while (!who.empty() && (who.back() == '\n' || who.back() == ' ')) who.pop_back();
    if (err != EWOULDBLOCK)
      throwUserError("--checkpoint-dir {}: cannot lock {}: {}", root, path, std::strerror(err));
    throwUserError("--checkpoint-dir {} is in use by another running job ({}): two jobs writing one "
                   "checkpoint directory prune and overwrite each other's checkpoints.\nHINT: pass "
                   "another --checkpoint-dir, or wait for that job to end (its lock goes with it)",
                   root, who.empty() ? "its lock file names no process" : who);
  }
  if (note) {
    char host[256] = {0};
    ::gethostname(host, sizeof(host) - 1);
    const std::string me = fmt::format("pid {} on {}\n", ::getpid(), host);
    if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, me.data(), me.size(), 0) != static_cast<ssize_t>(me.size())) {
      // the lock holds without the note; a second job's message then names no process
    }
  }
  locked.insert(root);  // fd stays open (and locked) until the process exits
  return "";
}

std::vector<std::string> setAsideInterruptedPublications(const std::string& root) {
  std::vector<std::string> moved;
  for (const auto& s : viewLatest(root, listStepCheckpoints(root)).interrupted) {
    const std::string aside = formats::joinPath(root, fmt::format(".{}.interrupted-{}", s.name, ::getpid()));
    if (::rename(s.dir.c_str(), aside.c_str()) != 0)
      throwUserError("--checkpoint-dir {}: cannot move {} aside to {}: {}", root, s.dir, aside,
                     std::strerror(errno));
    moved.push_back(aside);
  }
  return moved;
}

void publishAndPrune(const std::string& root, const std::string& name, int64_t step, int keep,
                     bool overwrite) {
  using namespace formats;
  writeFileAtomic(joinPath(root, "latest"), name + "\n");
  std::vector<StepCheckpoint> older;
  for (const auto& s : listStepCheckpoints(root)) {
    if (s.step > step) {
      if (overwrite) removeTree(s.dir);
      continue;  // never pruned otherwise: checkCheckpointRootBeforeStart refused the run
    }
    older.push_back(s);
  }
  for (size_t i = 0; keep > 0 && i + static_cast<size_t>(keep) < older.size(); ++i)
    removeTree(older[i].dir);
  // Temporary directories of writers that died mid-checkpoint (".step-N.tmp-<pid>").
  for (const auto& e : listDirectory(root)) {
    const size_t at = e.rfind(".tmp-");
    if (e.rfind(".step-", 0) != 0 || at == std::string::npos) continue;
    const long pid = std::atol(e.c_str() + at + 5);
    // A zombie counts as dead: a leader that exited after mpirun may wait to be reaped.
    if (pid > 0 && !shm::processAlive(pid, 0)) removeTree(joinPath(root, e));
  }
}

}  // namespace slidedp
