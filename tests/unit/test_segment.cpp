// Segment: create / open / validation / lifetime in one process (two mappings) and with a
// forked, killed owner for stale-segment clean-up.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include "common/errors.h"
#include "shm/segment.h"

using namespace slidedp;
using namespace slidedp::shm;

namespace {
std::string uniqueName(const char* tag) {
  return fmt::format("slidedp-test-{}-{}", tag, getpid());
}
Layout smallLayout() {
  Layout l;
  l.add("params", DType::kF32, 1000);
  l.add("grads", DType::kBF16, 333);
  return l;
}
}  // namespace

TEST(Segment, CreateOpenShareAndRemove) {
  const std::string name = uniqueName("basic");
  {
    Segment leader = Segment::create(name, 42, smallLayout(), ControlDims{3, 5, 2});
    EXPECT_TRUE(Segment::exists(name));
    EXPECT_TRUE(leader.isOwner());
    EXPECT_EQ(leader.bytes() % kRegionAlignment, 0u);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(leader.region("params")) % kRegionAlignment, 0u);
    Segment worker = Segment::open(name, 42, 1.0);
    EXPECT_FALSE(worker.isOwner());
    EXPECT_EQ(worker.layout().regions().size(), leader.layout().regions().size());
    EXPECT_EQ(worker.layout().at("grads").offset, leader.layout().at("grads").offset);
    EXPECT_EQ(worker.control().numRanks(), 3u);
    EXPECT_EQ(worker.control().numLayers(), 5u);
    // Two mappings of one segment: writes through one are seen through the other.
    leader.regionAs<float>("params")[999] = 3.5f;
    EXPECT_EQ(worker.regionAs<float>("params")[999], 3.5f);
    worker.control().layerVersion(4).store(7);
    EXPECT_EQ(leader.control().layerVersion(4).load(), 7u);
    // Regions start zeroed.
    EXPECT_EQ(worker.regionAs<float>("params")[0], 0.0f);
  }
  EXPECT_FALSE(Segment::exists(name)) << "owner's destructor must remove the segment";
}

// Leader-only regions (create's `leader_only`: the optimizer state with GPU workers) live in
// the leader's own memory: not in the shared file, which a worker maps without them, and on a
// 2 MiB boundary (transparent huge pages), zero-filled and writable; the shared regions keep
// their place and size.
TEST(Segment, LeaderOnlyRegionsAreTheLeadersOwnMemory) {
  const std::string name = uniqueName("leaderonly");
  Layout l;
  l.add("master", DType::kF32, 3 << 20);  // 12 MiB
  l.add("copy", DType::kBF16, 3 << 20);
  l.add("moment", DType::kF32, 1000);
  Segment shared = Segment::create(uniqueName("allshared"), 7, l, ControlDims{2, 3, 2});
  Segment leader = Segment::create(name, 7, l, ControlDims{2, 3, 2}, {"master", "moment"});
  EXPECT_EQ(leader.bytes() + (12u << 20) + 4096u, shared.bytes()) << "the shared file holds only the copy";
  EXPECT_GE(leader.leaderBytes(), (12u << 20) + 4000u);
  EXPECT_EQ(shared.leaderBytes(), 0u);
  auto* master = leader.regionAs<float>("master");
  auto* moment = leader.regionAs<float>("moment");
  EXPECT_EQ(reinterpret_cast<uintptr_t>(master) % (2u << 20), 0u);
  const char* file = static_cast<const char*>(leader.base());
  for (const void* p : {static_cast<const void*>(master), static_cast<const void*>(moment)})
    EXPECT_TRUE(p < file || p >= file + leader.bytes()) << "a leader-only region inside the shared file";
  EXPECT_EQ(master[0], 0.0f);
  EXPECT_EQ(master[(3 << 20) - 1], 0.0f);
  master[(3 << 20) - 1] = 1.5f;
  moment[999] = 2.5f;
  Segment worker = Segment::open(name, 7, 1.0);
  EXPECT_EQ(worker.layout().find("master"), nullptr);
  EXPECT_THROW(worker.region("master"), std::out_of_range);
  EXPECT_EQ(worker.leaderBytes(), 0u);
  // the shared region is the same memory in both
  leader.regionAs<uint16_t>("copy")[5] = 0x3f80;
  EXPECT_EQ(worker.regionAs<uint16_t>("copy")[5], 0x3f80);
  // a move keeps the leader's own memory (the Trainer moves its Segment into place)
  Segment moved = std::move(leader);
  EXPECT_EQ(moved.regionAs<float>("master")[(3 << 20) - 1], 1.5f);
  EXPECT_EQ(moved.regionAs<float>("moment")[999], 2.5f);
}

TEST(Segment, OpenValidates) {
  const std::string name = uniqueName("validate");
  Segment leader = Segment::create(name, 7, smallLayout(), ControlDims{2, 1, 1});
  try {
    Segment::open(name, 8, 0.1);
    FAIL() << "wrong job id accepted";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("belongs to job"), std::string::npos) << e.what();
  }
  try {
    Segment::open(uniqueName("missing"), 7, 0.1);
    FAIL() << "missing segment accepted";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("did not appear"), std::string::npos) << e.what();
  }
  // A name in use by a live owner is refused, not taken over.
  try {
    Segment::create(name, 9, smallLayout(), ControlDims{2, 1, 1});
    FAIL() << "existing segment overwritten";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("already exists"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(Segment::exists(name));
}

TEST(Segment, TooLargeFailsUpFrontWithNeededAndAvailable) {
  const std::string name = uniqueName("huge");
  Layout l;
  const uint64_t free_bytes = Segment::shmFreeBytes();
  ASSERT_GT(free_bytes, 0u);
  l.add("state", DType::kU8, free_bytes + (1ull << 30));
  try {
    Segment::create(name, 1, l, ControlDims{2, 1, 1});
    FAIL() << "oversized segment created";
  } catch (const UserError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("needs"), std::string::npos) << m;
    EXPECT_NE(m.find("free"), std::string::npos) << m;
    EXPECT_NE(m.find(std::to_string(free_bytes / 4096 * 4096).substr(0, 3)), std::string::npos) << m;
    EXPECT_NE(m.find("HINT"), std::string::npos) << m;
  }
  EXPECT_FALSE(Segment::exists(name));
}

TEST(Segment, StaleSegmentOfDeadOwnerIsRemovedLiveOneKept) {
  const std::string stale = uniqueName("stale");
  const std::string live = uniqueName("live");
  Segment mine = Segment::create(live, 6, smallLayout(), ControlDims{2, 1, 1});
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // The "crashed job": creates its segment and dies by SIGKILL (no destructor runs).
    Segment s = Segment::create(stale, 5, smallLayout(), ControlDims{2, 1, 1});
    raise(SIGKILL);
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status));
  ASSERT_TRUE(Segment::exists(stale)) << "the killed owner should have left its segment";

  const auto removed = Segment::removeStaleSegments();
  bool saw = false;
  for (const auto& s : removed) {
    EXPECT_NE(s.name, live) << "a live owner's segment was removed";
    if (s.name == stale) {
      saw = true;
      EXPECT_EQ(s.owner_pid, child);
      EXPECT_GT(s.bytes, 0u);
    }
  }
  EXPECT_TRUE(saw);
  EXPECT_FALSE(Segment::exists(stale));
  EXPECT_TRUE(Segment::exists(live));
}

TEST(Segment, ProcessIdentity) {
  EXPECT_TRUE(processAlive(getpid(), processStartTime(getpid())));
  EXPECT_FALSE(processAlive(getpid(), processStartTime(getpid()) + 1)) << "pid reuse not detected";
  EXPECT_FALSE(processAlive(0, 0));
  EXPECT_GT(processStartTime(getpid()), 0u);
}

TEST(ProcessState, StoppedRunningAndGone) {
  // What the watchdog's stall verdict reads: 'T' for a SIGSTOPped process.
  const pid_t child = fork();
  if (child == 0) {
    for (;;) pause();
  }
  ASSERT_GT(child, 0);
  EXPECT_NE(slidedp::shm::processState(child), '\0');
  EXPECT_NE(slidedp::shm::processState(child), 'T');
  kill(child, SIGSTOP);
  char st = '\0';
  for (int i = 0; i < 200 && (st = slidedp::shm::processState(child)) != 'T'; ++i)
    usleep(5000);
  EXPECT_EQ(st, 'T');
  kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT_EQ(slidedp::shm::processState(child), '\0');
}
