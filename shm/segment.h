// The node's shared host segment: one Boost.Interprocess shared_memory_object per node,
// created and owned by the leader, mapped read-write by every worker of the node.
//
//   [SegmentHeader + region directory][control block][regions of the caller's layout ...]
//
// The header carries a magic, the on-segment format version, the job id and the owner's
// pid and process start time. The owner's identity lets the next job tell a segment left
// behind by a crashed job (owner gone) from one in use, and remove it. Creation checks the
// free space of /dev/shm first, so an oversized state fails up front with needed vs
// available bytes instead of with SIGBUS at first touch.
#pragma once

#include <boost/interprocess/mapped_region.hpp>
#include <boost/interprocess/shared_memory_object.hpp>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "shm/control_block.h"
#include "shm/layout.h"
#include "shm/leader_regions.h"

namespace slidedp::shm {

inline constexpr uint64_t kSegmentMagic = 0x3150444544494c53ull;  // "SLIDEDP1"
inline constexpr uint32_t kSegmentFormatVersion = 2;  // 2: RankSlot::progress
inline constexpr uint32_t kMaxRegions = 1024;
inline constexpr const char* kSegmentPrefix = "slidedp-";
inline constexpr const char* kShmDir = "/dev/shm";

struct RegionEntry {
  char name[kMaxRegionName + 1];
  uint64_t offset;
  uint64_t numel;
  uint32_t dtype;
  uint32_t reserved0;
  uint64_t reserved1;
};
static_assert(sizeof(RegionEntry) == 96, "on-segment format");

struct SegmentHeader {
  uint64_t magic;
  uint32_t format_version;
  uint32_t num_regions;
  uint64_t job_id;
  int64_t owner_pid;
  uint64_t owner_start_time;  // /proc/<pid>/stat field 22 (clock ticks since boot)
  uint64_t total_bytes;
  std::atomic<uint32_t> ready;  // 1 once header, directory and control block are written
  uint32_t reserved0;
  uint64_t reserved1;
  char owner_host[64];
  RegionEntry regions[kMaxRegions];
};
static_assert(std::atomic<uint32_t>::is_always_lock_free);
static_assert(sizeof(SegmentHeader) == 128 + 96 * kMaxRegions, "on-segment format");

/// Dimensions of the control block (see control_block.h).
struct ControlDims {
  uint32_t num_ranks = 0;   // node-local ranks, leader included
  uint32_t num_layers = 0;  // layer-version counters
  uint32_t num_slots = 0;   // staging ring slots
};

/// A segment found in /dev/shm whose owner process is gone.
struct StaleSegment {
  std::string name;
  int64_t owner_pid = 0;
  uint64_t bytes = 0;
};

class Segment {
 public:
  /// Leader: removes stale segments of crashed jobs (same user, owner pid gone), checks
  /// /dev/shm has `bytes` free, creates `name`, writes header + directory + control block
  /// and publishes it (header.ready = 1, release). Regions are zero-filled (tmpfs pages are
  /// allocated at first touch, by whoever touches them first).
  /// Throws UserError if the segment already exists (another live job uses the name) or if
  /// /dev/shm has too little space (the message gives needed and available bytes).
  /// `leader_only`: names of `regions` only the leader touches; they are held in its own
  /// memory (LeaderRegions: transparent huge pages), not in the shared file, and workers do
  /// not see them.
  static Segment create(const std::string& name, uint64_t job_id, const Layout& regions,
                        const ControlDims& dims, const std::vector<std::string>& leader_only = {});

  /// Worker: maps an existing segment read-write, waiting up to `timeout_s` for the leader
  /// to publish it. Throws UserError if it is missing, not a slidedp segment, of another
  /// format version, or of another job (`job_id` differs).
  static Segment open(const std::string& name, uint64_t job_id, double timeout_s = 30.0);

  /// Scans /dev/shm for this user's slidedp segments (any name: --shm-name may have chosen
  /// it) whose owner is gone and removes them. Returns what was removed. Segments of live
  /// owners and files without a slidedp header are left alone (except "slidedp-*" files
  /// without a header untouched for a minute: a crash while creating one). Also removes Open
  /// MPI's vader_segment.* files of this user that no process maps and that are a minute old
  /// (left when mpirun itself was killed with SIGKILL); those are listed with owner_pid 0.
  static std::vector<StaleSegment> removeStaleSegments();

  /// Free bytes of the file system behind /dev/shm (statvfs f_bavail * f_frsize).
  static uint64_t shmFreeBytes();
  /// True if /dev/shm/<name> exists.
  static bool exists(const std::string& name);
  /// Unlinks /dev/shm/<name>; true if it existed. Mappings stay valid until unmapped.
  static bool removeByName(const std::string& name);

  Segment() = default;
  Segment(Segment&&) noexcept;
  Segment& operator=(Segment&&) noexcept;
  /// Unmaps; the owner (leader) also removes the name unless release() was called.
  ~Segment();

  const std::string& name() const { return name_; }
  bool isOwner() const { return owner_; }
  /// Bytes of the shared file (header, control block, shared regions).
  uint64_t bytes() const { return header_ ? header_->total_bytes : 0; }
  /// Bytes of the leader's own regions (create's `leader_only`; 0 on workers).
  uint64_t leaderBytes() const { return leader_.bytes(); }
  /// Of those, the bytes in transparent huge pages now (LeaderRegions::hugePageBytes).
  uint64_t leaderHugePageBytes() const { return leader_.hugePageBytes(); }
  uint64_t jobId() const { return header_->job_id; }
  const Layout& layout() const { return layout_; }
  const ControlBlock& control() const { return control_; }
  void* base() const { return base_; }

  /// Start of region `name` (shared, or the leader's own); throws std::out_of_range naming it
  /// if absent (a leader-only region on a worker included).
  void* region(const std::string& name) const;
  template <typename T>
  T* regionAs(const std::string& name) const {
    return static_cast<T*>(region(name));
  }

  /// Removes the name now (idempotent); the mapping stays valid until destruction.
  void remove();

 private:
  void mapWhole();
  void release();  // unmap, and remove the name if owner
  std::string name_;
  bool owner_ = false;
  bool removed_ = false;
  std::unique_ptr<boost::interprocess::shared_memory_object> shm_;
  std::unique_ptr<boost::interprocess::mapped_region> region_;
  void* base_ = nullptr;
  SegmentHeader* header_ = nullptr;
  Layout layout_;
  ControlBlock control_;
  LeaderRegions leader_;
};

/// Why `name` cannot name a segment in /dev/shm, or "" when it can. A POSIX shared-memory
/// name is one path component: not empty, no '/', not "." or "..", and at most
/// kMaxSegmentNameBytes bytes (NAME_MAX 255 less room for the "-n<node>" suffix of a job on
/// several nodes).
constexpr size_t kMaxSegmentNameBytes = 240;
std::string segmentNameProblem(const std::string& name);

/// Field 22 of /proc/<pid>/stat (start time in clock ticks since boot); 0 if the process
/// does not exist. With the pid it identifies a process across pid reuse.
uint64_t processStartTime(int64_t pid);
/// True if `pid` is a live (not zombie) process whose start time is `start_time`
/// (start_time 0: any).
bool processAlive(int64_t pid, uint64_t start_time);
/// The scheduler state of `pid` (field 3 of /proc/<pid>/stat, the main thread's): 'R'
/// running, 'S' sleeping (also: blocked in a CUDA synchronisation or a futex), 'D' in
/// uninterruptible I/O, 'T' stopped by a signal (SIGSTOP, SIGTSTP), 't' stopped by a debugger,
/// 'Z' zombie; '\0' when there is no such process.
char processState(int64_t pid);

}  // namespace slidedp::shm
