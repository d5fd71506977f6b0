#include "shm/segment.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <boost/interprocess/exceptions.hpp>
#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "common/errors.h"
#include "common/log.h"

namespace bip = boost::interprocess;

namespace slidedp::shm {

static constexpr const char* kHeaderRegion = "segment.header";
static constexpr const char* kControlRegion = "segment.control";

uint64_t processStartTime(int64_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string s;
  if (!f || !std::getline(f, s)) return 0;
  const size_t close = s.rfind(')');  // the command name may contain spaces and ')'
  if (close == std::string::npos) return 0;
  std::istringstream rest(s.substr(close + 2));
  std::string field;
  // Fields after the name start at 3 (state); the start time is field 22.
  for (int i = 3; i <= 22; ++i)
    if (!(rest >> field)) return 0;
  return std::stoull(field);
}

bool processAlive(int64_t pid, uint64_t start_time) {
  if (pid <= 0) return false;
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string s;
  if (!f || !std::getline(f, s)) return false;
  const size_t close = s.rfind(')');
  if (close == std::string::npos || close + 2 >= s.size()) return false;
  if (s[close + 2] == 'Z' || s[close + 2] == 'X') return false;  // zombie or dead
  return start_time == 0 || processStartTime(pid) == start_time;
}

char processState(int64_t pid) {
  if (pid <= 0) return '\0';
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string s;
  if (!f || !std::getline(f, s)) return '\0';
  const size_t close = s.rfind(')');
  if (close == std::string::npos || close + 2 >= s.size()) return '\0';
  return s[close + 2];
}

uint64_t Segment::shmFreeBytes() {
  struct statvfs st {};
  if (statvfs(kShmDir, &st) != 0) return 0;
  return static_cast<uint64_t>(st.f_bavail) * st.f_frsize;
}

bool Segment::exists(const std::string& name) {
  struct stat st {};
  return ::stat((std::string(kShmDir) + "/" + name).c_str(), &st) == 0;
}

bool Segment::removeByName(const std::string& name) {
  return bip::shared_memory_object::remove(name.c_str());
}

namespace {

/// What /dev/shm/<name> holds, read from its header without mapping it.
struct Inspected {
  bool readable = false;  // a file of this user that could be opened
  bool valid = false;     // a slidedp header (magic)
  int64_t owner_pid = 0;  // when valid
  uint64_t owner_start_time = 0;
  struct stat st {};
};

Inspected inspect(const std::string& name) {
  Inspected r;
  SegmentHeader h{};
  const std::string path = std::string(kShmDir) + "/" + name;
  if (::stat(path.c_str(), &r.st) != 0 || !S_ISREG(r.st.st_mode) || r.st.st_uid != getuid())
    return r;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return r;
  r.readable = true;
  const ssize_t got = ::pread(fd, &h, offsetof(SegmentHeader, owner_host), 0);
  ::close(fd);
  r.valid = got == static_cast<ssize_t>(offsetof(SegmentHeader, owner_host)) &&
            h.magic == kSegmentMagic;
  r.owner_pid = h.owner_pid;
  r.owner_start_time = h.owner_start_time;
  return r;
}

/// Paths under /dev/shm that some process of this user has mapped (from /proc/<pid>/maps).
std::vector<std::string> mappedShmFiles() {
  std::vector<std::string> out;
  DIR* proc = opendir("/proc");
  if (!proc) return out;
  while (dirent* e = readdir(proc)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    std::ifstream maps(std::string("/proc/") + e->d_name + "/maps");
    for (std::string line; std::getline(maps, line);) {
      const size_t at = line.find(" /dev/shm/");
      if (at != std::string::npos) out.push_back(line.substr(at + 10));
    }
  }
  closedir(proc);
  return out;
}

/// Open MPI's shared-memory transport files (vader_segment.<host>.<job>.<rank>) of jobs that
/// died without cleaning up (mpirun killed with SIGKILL): this user's, untouched for a minute
/// and mapped by no process. Open MPI itself never removes another job's.
bool staleMpiFile(const std::string& name, const struct stat& st,
                  const std::vector<std::string>& mapped) {
  if (name.rfind("vader_segment.", 0) != 0) return false;
  const auto age = std::chrono::system_clock::now().time_since_epoch() -
                   std::chrono::seconds(st.st_mtim.tv_sec);
  if (std::chrono::duration_cast<std::chrono::seconds>(age).count() < 60) return false;
  for (const auto& m : mapped)
    if (m.compare(0, name.size(), name) == 0) return false;
  return true;
}

}  // namespace

std::vector<StaleSegment> Segment::removeStaleSegments() {
  // POSIX directory calls, not std::filesystem: LibTorch's libraries export their own
  // std::filesystem symbols, which replace libstdc++'s in binaries that link both.
  // Every file of this user is looked at, not only "slidedp-*" names: a job started with
  // --shm-name leaves a segment of any name when it crashes. A file is removed only when its
  // header is a slidedp one whose owner is gone, or, for a "slidedp-*" name, when it never got
  // a valid header and has been untouched for a minute (the remains of a crash in creation).
  std::vector<StaleSegment> removed;
  std::vector<std::string> names;
  if (DIR* dir = opendir(kShmDir)) {
    while (dirent* e = readdir(dir))
      if (e->d_name[0] != '.') names.emplace_back(e->d_name);
    closedir(dir);
  }
  std::vector<std::string> mapped;
  bool mapped_read = false;
  for (const std::string& name : names) {
    const Inspected in = inspect(name);
    if (!in.readable) continue;
    if (name.rfind("vader_segment.", 0) == 0) {
      if (!mapped_read) mapped = mappedShmFiles(), mapped_read = true;
      if (staleMpiFile(name, in.st, mapped) && ::unlink((std::string(kShmDir) + "/" + name).c_str()) == 0)
        removed.push_back({name, 0, static_cast<uint64_t>(in.st.st_size)});
      continue;
    }
    if (in.valid) {
      if (processAlive(in.owner_pid, in.owner_start_time)) continue;  // in use
    } else {
      if (std::strncmp(name.c_str(), kSegmentPrefix, std::strlen(kSegmentPrefix)) != 0) continue;
      // Not (yet) a valid header: a leader may be creating it right now.
      const auto age = std::chrono::system_clock::now().time_since_epoch() -
                       std::chrono::seconds(in.st.st_mtim.tv_sec);
      if (std::chrono::duration_cast<std::chrono::seconds>(age).count() < 60) continue;
    }
    if (bip::shared_memory_object::remove(name.c_str()))
      removed.push_back({name, in.valid ? in.owner_pid : 0,
                         static_cast<uint64_t>(in.st.st_size)});
  }
  return removed;
}

Segment::Segment(Segment&& o) noexcept { *this = std::move(o); }

Segment& Segment::operator=(Segment&& o) noexcept {
  if (this != &o) {
    release();
    name_ = std::move(o.name_);
    owner_ = o.owner_;
    removed_ = o.removed_;
    shm_ = std::move(o.shm_);
    region_ = std::move(o.region_);
    base_ = o.base_;
    header_ = o.header_;
    layout_ = std::move(o.layout_);
    control_ = o.control_;
    leader_ = std::move(o.leader_);
    o.owner_ = false;
    o.base_ = nullptr;
    o.header_ = nullptr;
  }
  return *this;
}

Segment::~Segment() { release(); }

void Segment::release() {
  region_.reset();
  shm_.reset();
  if (owner_ && !removed_ && !name_.empty()) removeByName(name_);
  owner_ = false;
  removed_ = false;
  base_ = nullptr;
  header_ = nullptr;
  name_.clear();
  layout_ = Layout();
  control_ = ControlBlock();
  leader_ = LeaderRegions();
}

void Segment::remove() {
  if (!name_.empty() && !removed_) {
    removeByName(name_);
    removed_ = true;
  }
}

void* Segment::region(const std::string& name) const {
  if (void* p = leader_.find(name)) return p;
  return static_cast<char*>(base_) + layout_.at(name).offset;
}

std::string segmentNameProblem(const std::string& name) {
  if (name.empty()) return "the name is empty";
  if (name.find('/') != std::string::npos) return "it contains '/'";
  if (name == "." || name == "..") return fmt::format("'{}' is not a file name", name);
  if (name.size() > kMaxSegmentNameBytes)
    return fmt::format("it is {} bytes long, more than {}", name.size(), kMaxSegmentNameBytes);
  return "";
}

Segment Segment::create(const std::string& name, uint64_t job_id, const Layout& regions,
                        const ControlDims& dims, const std::vector<std::string>& leader_only) {
  if (const std::string why = segmentNameProblem(name); !why.empty())
    throwUserError("cannot name a shared segment '{}': {}.\nHINT: --shm-name with letters, digits, "
                   "'-', '_' or '.' only, e.g. --shm-name slidedp-myjob", name, why);
  for (const auto& s : removeStaleSegments()) {
    if (s.owner_pid == 0)
      SLIDEDP_LOG_WARN("removed stale shared-memory file /dev/shm/{} of a crashed job ({})",
                       s.name, formatBytes(s.bytes));
    else
      SLIDEDP_LOG_WARN("removed stale shared segment /dev/shm/{} of a crashed job (owner pid {} "
                       "gone, {})", s.name, s.owner_pid, formatBytes(s.bytes));
  }

  Layout full;
  full.add(kHeaderRegion, DType::kU8, sizeof(SegmentHeader));
  full.add(kControlRegion, DType::kU8,
           ControlBlock::bytesFor(dims.num_ranks, dims.num_layers, dims.num_slots));
  Layout own;  // the leader's own regions (LeaderRegions), out of the shared file
  for (const auto& r : regions.regions())
    (std::find(leader_only.begin(), leader_only.end(), r.name) != leader_only.end() ? own : full)
        .add(r.name, r.dtype, r.numel);
  if (full.regions().size() > kMaxRegions)
    throwUserError("the segment layout has {} regions; at most {} fit the header",
                   full.regions().size(), kMaxRegions);
  const uint64_t total = full.totalBytes();
  const uint64_t free_bytes = shmFreeBytes();
  if (total > free_bytes)
    throwUserError(
        "cannot create the shared segment /dev/shm/{}: it needs {} ({} bytes) but /dev/shm has "
        "only {} ({} bytes) free.\nHINT: enlarge /dev/shm (mount -o remount,size=... /dev/shm; "
        "docker run --shm-size=...), remove other users of it, or shrink the host state "
        "(fewer staging slots, a smaller chunk_numel, a smaller model)",
        name, formatBytes(total), total, formatBytes(free_bytes), free_bytes);

  Segment seg;
  seg.name_ = name;
  try {
    seg.shm_ = std::make_unique<bip::shared_memory_object>(bip::create_only, name.c_str(),
                                                           bip::read_write);
  } catch (const bip::interprocess_exception& e) {
    if (e.get_error_code() == bip::already_exists_error) {
      const Inspected in = inspect(name);
      if (in.valid)
        throwUserError("the shared segment /dev/shm/{} already exists and its owner (pid {}) is "
                       "alive: another job is using this name.\nHINT: pass another --shm-name, "
                       "or stop that job", name, in.owner_pid);
      throwUserError("/dev/shm/{} already exists and is not a slidedp segment of a finished job "
                     "({}), so it is left alone.\nHINT: pass another --shm-name, or remove the "
                     "file if nothing uses it", name,
                     in.readable ? "no slidedp header, or one being written"
                                 : "another user's, or unreadable");
    }
    throwUserError("cannot create the shared segment /dev/shm/{}: {}", name, e.what());
  }
  seg.owner_ = true;  // from here on the destructor removes the name
  try {
    seg.shm_->truncate(static_cast<bip::offset_t>(total));
  } catch (const bip::interprocess_exception& e) {
    throwUserError("cannot size the shared segment /dev/shm/{} to {}: {}", name,
                   formatBytes(total), e.what());
  }
  seg.mapWhole();
  seg.leader_ = LeaderRegions(own);
  auto* h = new (seg.base_) SegmentHeader();
  h->magic = 0;  // published last
  h->format_version = kSegmentFormatVersion;
  h->num_regions = static_cast<uint32_t>(full.regions().size());
  h->job_id = job_id;
  h->owner_pid = getpid();
  h->owner_start_time = processStartTime(getpid());
  h->total_bytes = total;
  gethostname(h->owner_host, sizeof(h->owner_host) - 1);
  for (size_t i = 0; i < full.regions().size(); ++i) {
    const Region& r = full.regions()[i];
    RegionEntry& e = h->regions[i];
    std::strncpy(e.name, r.name.c_str(), kMaxRegionName);
    e.offset = r.offset;
    e.numel = r.numel;
    e.dtype = static_cast<uint32_t>(r.dtype);
  }
  seg.header_ = h;
  seg.layout_ = full;
  const Region& c = full.at(kControlRegion);
  seg.control_ = ControlBlock::initialize(seg.region(kControlRegion), c.bytes(), dims.num_ranks,
                                          dims.num_layers, dims.num_slots);
  h->magic = kSegmentMagic;
  h->ready.store(1, std::memory_order_release);
  return seg;
}

void Segment::mapWhole() {
  region_ = std::make_unique<bip::mapped_region>(*shm_, bip::read_write);
  base_ = region_->get_address();
}

Segment Segment::open(const std::string& name, uint64_t job_id, double timeout_s) {
  Segment seg;
  seg.name_ = name;
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000));
  for (;;) {
    try {
      seg.shm_ = std::make_unique<bip::shared_memory_object>(bip::open_only, name.c_str(),
                                                             bip::read_write);
      bip::offset_t size = 0;
      if (seg.shm_->get_size(size) && size >= static_cast<bip::offset_t>(sizeof(SegmentHeader))) {
        seg.mapWhole();
        auto* h = static_cast<SegmentHeader*>(seg.base_);
        if (h->ready.load(std::memory_order_acquire) == 1) break;
      }
    } catch (const bip::interprocess_exception&) {
      // Not there yet.
    }
    seg.region_.reset();
    seg.shm_.reset();
    if (std::chrono::steady_clock::now() > deadline)
      throwUserError("the shared segment /dev/shm/{} did not appear within {:.0f} s.\nHINT: the "
                     "leader (node-local rank 0) failed to create it; see its error above",
                     name, timeout_s);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  auto* h = static_cast<SegmentHeader*>(seg.base_);
  if (h->magic != kSegmentMagic)
    throwUserError("/dev/shm/{} is not a slidedp segment (magic {:#x})", name, h->magic);
  if (h->format_version != kSegmentFormatVersion)
    throwUserError("/dev/shm/{} has segment format {} but this build reads format {}.\nHINT: "
                   "run the same slidedp build on every rank", name, h->format_version,
                   kSegmentFormatVersion);
  if (h->job_id != job_id)
    throwUserError("/dev/shm/{} belongs to job {:#x}, not to this job {:#x}.\nHINT: another job "
                   "uses the same --shm-name", name, h->job_id, job_id);
  if (h->total_bytes != seg.region_->get_size())
    throwUserError("/dev/shm/{} maps {} bytes but its header says {}", name,
                   seg.region_->get_size(), h->total_bytes);
  seg.header_ = h;
  for (uint32_t i = 0; i < h->num_regions; ++i) {
    const RegionEntry& e = h->regions[i];
    seg.layout_.add(std::string(e.name, strnlen(e.name, sizeof(e.name))),
                    static_cast<DType>(e.dtype), e.numel);
    SLIDEDP_ASSERT(seg.layout_.regions().back().offset == e.offset,
                   "region '{}' offset differs between leader and worker", e.name);
  }
  const Region& c = seg.layout_.at(kControlRegion);
  seg.control_ = ControlBlock::attach(seg.region(kControlRegion), c.bytes());
  return seg;
}

}  // namespace slidedp::shm
