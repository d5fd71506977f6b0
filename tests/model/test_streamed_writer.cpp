// The streamed safetensors writer (formats/streamed_writer.h), the core of streamed checkpoints:
// the file holds every group as it was when the writer reached it, although the caller changes
// each group right after waitGroup() released it (as the leader's next update does); the digest
// computed while streaming is the file's; the bytes equal writeSafetensors' for the same tensor
// order; failures (unwritable path, a throwing callback, cancel) are reported, release every
// waiter and leave no partial file. No LibTorch: it runs under tools/sanitize.sh (TSan too).
#include <fcntl.h>
#include <sys/resource.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <memory>
#include <chrono>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "common/errors.h"
#include "formats/checkpoint.h"
#include "formats/file_digest.h"
#include "formats/fs_util.h"
#include "formats/io_pool.h"
#include "formats/safetensors.h"
#include "formats/staging_pool.h"
#include "formats/streamed_writer.h"

using namespace slidedp::formats;

namespace {

std::string tempDir(const std::string& name) {
  const std::string d = "/tmp/slidedp_streamed_" + std::to_string(::getpid()) + "_" + name;
  removeTree(d);
  makeDirectories(d);
  return d;
}

std::string readAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Units of master/exp_avg/exp_avg_sq like the leader's, odd sizes, one larger than a piece.
struct State {
  std::vector<std::vector<float>> bufs;  // [unit*3 + part]
  std::vector<int64_t> numels;
  explicit State(const std::vector<int64_t>& n) : numels(n) {
    std::mt19937 rng(7);
    std::normal_distribution<float> d;
    for (int64_t x : n)
      for (int p = 0; p < 3; ++p) {
        bufs.emplace_back(static_cast<size_t>(x));
        for (auto& v : bufs.back()) v = d(rng);
      }
  }
  std::vector<TensorToWrite> unit(int u) const {
    std::vector<TensorToWrite> t;
    const char* parts[] = {"master", "exp_avg", "exp_avg_sq"};
    for (int p = 0; p < 3; ++p)
      t.push_back({"unit" + std::to_string(u) + "." + parts[p], DType::F32, {numels[u]},
                   bufs[u * 3 + p].data(), DType::F32});
    return t;
  }
};

/// Expects the file at `path` to hold units [0, n) of `before` byte for byte (the state as it
/// was before the caller changed it), `what` naming the case in a failure.
void expectFileHolds(const std::string& path, const State& before, int n, const std::string& what = "") {
  const auto f = SafetensorsFile::open(path);
  for (int u = 0; u < n; ++u)
    for (const auto& t : before.unit(u)) {
      std::vector<float> got(static_cast<size_t>(t.shape[0]));
      f.readFloat32(f.get(t.name), got.data());
      EXPECT_EQ(std::memcmp(got.data(), t.src, got.size() * 4), 0) << t.name << what;
    }
}

}  // namespace

TEST(StreamedWriter, FileHoldsEachGroupAsReleasedWhileTheCallerChangesItAfterwards) {
  const std::string d = tempDir("overlap");
  State st({1001, 77, 300000, 5, 4099});
  const State before = st;
  const std::vector<int> order = {4, 3, 2, 1, 0};  // the leader's hand-off order: last unit first
  std::vector<std::vector<TensorToWrite>> groups;
  for (int u : order) groups.push_back(st.unit(u));
  StreamedWriterOptions o;
  o.piece_bytes = 64 << 10;  // several pieces per large tensor
  o.after_group = [](int) { std::this_thread::sleep_for(std::chrono::milliseconds(5)); };
  int completed = 0;
  o.on_complete = [&](const FileDigest&) { ++completed; };
  StreamedSafetensorsWriter w(d + "/opt.safetensors", std::move(groups), {{"format", "x"}}, o);
  // The "next step": change each unit as soon as the writer is past it.
  double waited = 0;
  for (size_t i = 0; i < order.size(); ++i) {
    waited += w.waitGroup(static_cast<int>(i));
    EXPECT_GE(w.groupsWritten(), static_cast<int>(i) + 1);
    for (int p = 0; p < 3; ++p)
      for (auto& v : st.bufs[order[i] * 3 + p]) v += 1.0f;
  }
  ASSERT_EQ(w.wait(), "");
  EXPECT_EQ(completed, 1);
  EXPECT_GT(waited, 0.0) << "the caller never had to wait: the test did not overlap";
  // Every tensor as it was before the change.
  expectFileHolds(d + "/opt.safetensors", before, 5);
  // The streamed digest is the file's, and the bytes are writeSafetensors' for the same order.
  const FileDigest on_disk = digestFile(d + "/opt.safetensors");
  EXPECT_EQ(w.digest().bytes, on_disk.bytes);
  EXPECT_EQ(w.digest().xxh3, on_disk.xxh3);
  std::vector<TensorToWrite> flat;
  for (int u : order)
    for (const auto& t : before.unit(u)) flat.push_back(t);
  writeSafetensors(d + "/ref.safetensors", flat, {{"format", "x"}});
  EXPECT_TRUE(readAll(d + "/ref.safetensors") == readAll(d + "/opt.safetensors"));
  removeTree(d);
}

TEST(StreamedWriter, AnUnwritablePathIsReportedAndReleasesEveryWaiter) {
  State st({100, 200});
  StreamedSafetensorsWriter w("/nonexistent-dir/x/opt.safetensors", {st.unit(0), st.unit(1)}, {}, {});
  w.waitGroup(1);  // returns (the writer stopped), does not hang
  EXPECT_TRUE(w.finished());
  const std::string e = w.wait();
  EXPECT_NE(e.find("/nonexistent-dir/x/opt.safetensors"), std::string::npos) << e;
  EXPECT_NE(e.find("cannot create"), std::string::npos) << e;
}

// Buffered and direct (O_DIRECT, formats/direct_stream.h: the bounce buffers come back from
// the I/O threads first) alike.
TEST(StreamedWriter, AFailingCallbackOrCancelLeavesNoPartialFile) {
  const std::string d = tempDir("fail");
  State st({5000, 6000, 7000});
  for (const bool direct : {false, true}) {
    {
      StreamedWriterOptions o;
      o.direct_io = direct;
      o.after_group = [](int n) {
        if (n == 2) throw std::runtime_error("disk on fire");
      };
      StreamedSafetensorsWriter w(d + "/a.safetensors", {st.unit(0), st.unit(1), st.unit(2)}, {}, o);
      w.waitGroup(2);  // released although group 2 is never written
      EXPECT_EQ(w.wait(), "disk on fire");
      EXPECT_FALSE(pathExists(d + "/a.safetensors"));
    }
    {
      StreamedWriterOptions o;
      o.direct_io = direct;
      o.piece_bytes = 4096;
      o.after_group = [](int) { std::this_thread::sleep_for(std::chrono::milliseconds(50)); };
      StreamedSafetensorsWriter w(d + "/b.safetensors", {st.unit(0), st.unit(1), st.unit(2)}, {}, o);
      w.waitGroup(0);
      w.cancel();
      const std::string e = w.wait();
      EXPECT_NE(e.find("cancelled"), std::string::npos) << e;
      EXPECT_FALSE(pathExists(d + "/b.safetensors"));
    }
    {
      // Destroyed mid-write: cancelled and joined, no file left.
      StreamedWriterOptions o;
      o.direct_io = direct;
      o.after_group = [](int) { std::this_thread::sleep_for(std::chrono::milliseconds(50)); };
      auto w = std::make_unique<StreamedSafetensorsWriter>(d + "/c.safetensors",
          std::vector<std::vector<TensorToWrite>>{st.unit(0), st.unit(1), st.unit(2)},
          std::map<std::string, std::string>{}, o);
      w.reset();
      EXPECT_FALSE(pathExists(d + "/c.safetensors"));
    }
  }
  removeTree(d);
}

TEST(StreamedWriter, ARateCapPacesTheWriteAndACancelStillEndsItPromptly) {
  const std::string d = tempDir("rate");
  State st({300000, 200000});  // 6 MB of tensors
  const State before = st;
  {
    StreamedWriterOptions o;
    o.piece_bytes = 64 << 10;
    o.max_bytes_per_s = 24e6;  // 6 MB at 24 MB/s: not done before 0.25 s
    const auto t0 = std::chrono::steady_clock::now();
    StreamedSafetensorsWriter w(d + "/a.safetensors", {st.unit(0), st.unit(1)}, {}, o);
    ASSERT_EQ(w.wait(), "");
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_GE(s, 0.24) << "the cap was not applied";
    expectFileHolds(d + "/a.safetensors", before, 2, " (rate-capped write)");
  }
  {  // the same through O_DIRECT (a piece at a time, paced between pieces)
    StreamedWriterOptions o;
    o.piece_bytes = 64 << 10;
    o.max_bytes_per_s = 24e6;
    o.direct_io = true;
    const auto t0 = std::chrono::steady_clock::now();
    StreamedSafetensorsWriter w(d + "/c.safetensors", {st.unit(0), st.unit(1)}, {}, o);
    ASSERT_EQ(w.wait(), "");
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_GE(s, 0.24) << "the cap was not applied to a direct write";
    expectFileHolds(d + "/c.safetensors", before, 2, " (rate-capped direct write)");
  }
  {
    StreamedWriterOptions o;
    o.piece_bytes = 64 << 10;
    o.max_bytes_per_s = 1e3;  // hours at this rate: only the cancel ends it
    StreamedSafetensorsWriter w(d + "/b.safetensors", {st.unit(0), st.unit(1)}, {}, o);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const auto t0 = std::chrono::steady_clock::now();
    w.cancel();
    const std::string e = w.wait();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_NE(e.find("cancelled"), std::string::npos) << e;
    EXPECT_LT(s, 5.0) << "a paced writer did not notice the cancel";
    EXPECT_FALSE(pathExists(d + "/b.safetensors"));
  }
  removeTree(d);
}

TEST(StreamedWriter, AThrowingPollEndsTheWaitAndConvertingTensorsAreRefused) {
  const std::string d = tempDir("poll");
  State st({1000, 1000});
  StreamedWriterOptions o;
  o.after_group = [](int) { std::this_thread::sleep_for(std::chrono::milliseconds(300)); };
  StreamedSafetensorsWriter w(d + "/a.safetensors", {st.unit(0), st.unit(1)}, {}, o);
  EXPECT_THROW(w.waitGroup(1, [] { throw std::runtime_error("job aborted"); }), std::runtime_error);
  EXPECT_EQ(w.wait(), "");
  auto bf16 = st.unit(0);
  bf16[0].dtype = DType::BF16;
  EXPECT_THROW(StreamedSafetensorsWriter(d + "/b.safetensors", {bf16}, {}, {}), slidedp::UserError);
  auto twice = st.unit(0);
  twice.push_back(twice[0]);
  EXPECT_THROW(StreamedSafetensorsWriter(d + "/c.safetensors", {twice}, {}, {}), slidedp::UserError);
  removeTree(d);
}

// Staging: with room for every group, releaseGroup copies a group the writer has not reached
// and returns without waiting for the (slow) disk; the caller changes the memory at once, and
// the file still holds the state as it was at the start. With room for one group only, the
// caller is held part of the time, and the file is still exact.
TEST(StreamedWriter, ReleasedGroupsAreCopiedSoTheCallerDoesNotWaitForASlowDisk) {
  const std::string d = tempDir("staging");
  for (const uint64_t budget : {uint64_t{1} << 30, uint64_t{300000} * 3 * 4}) {
    State st({1001, 77, 300000, 5, 4099, 20000});
    const State before = st;
    const std::vector<int> order = {5, 4, 3, 2, 1, 0};
    std::vector<std::vector<TensorToWrite>> groups;
    for (int u : order) groups.push_back(st.unit(u));
    StreamedWriterOptions o;
    o.piece_bytes = 64 << 10;
    o.staging = std::make_shared<StagingPool>(budget, 2);
    o.staging->waitReady();
    o.copy_threads = 3;
    o.after_group = [](int) { std::this_thread::sleep_for(std::chrono::milliseconds(100)); };  // slow disk
    const std::string path = d + "/opt" + std::to_string(budget) + ".safetensors";
    StreamedSafetensorsWriter w(path, std::move(groups), {{"format", "x"}}, o);
    const auto t0 = std::chrono::steady_clock::now();
    double held = 0;
    for (size_t i = 0; i < order.size(); ++i) {
      held += w.releaseGroup(static_cast<int>(i));
      for (int p = 0; p < 3; ++p)
        for (auto& v : st.bufs[order[i] * 3 + p]) v = -7.0f;  // the "update" overwrites it all
    }
    const double released_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ASSERT_EQ(w.wait(), "");
    if (budget >= (uint64_t{1} << 30)) {
      // 6 groups x 100 ms of "disk" (0.6 s): the caller copied what the writer had not reached.
      EXPECT_LT(released_s, 0.3) << "the caller waited for the disk although staging had room";
      EXPECT_GE(w.stagedBytes(), uint64_t{300000 * 3 * 4});
    } else {
      // Room for the largest group only: the caller waits for room (groups written) at times.
      EXPECT_GT(held, 0.0);
      EXPECT_GT(w.stagedBytes(), 0u);
    }
    expectFileHolds(path, before, 6, " budget " + std::to_string(budget));
    const FileDigest on_disk = digestFile(path);
    EXPECT_EQ(w.digest().xxh3, on_disk.xxh3);
  }
  removeTree(d);
}

// The disk is slow inside each group's write (the writer still reads the caller's memory), and
// the caller releases in write order, as the leader does. Waiting for the group being written,
// the caller copies the groups after it; so it is held about one group's write, not the disk's
// time for all of them (on the first 4B run it chased the writer group by group: 0 B staged).
TEST(StreamedWriter, WhileWaitingForTheGroupBeingWrittenTheCallerCopiesTheNextOnes) {
  const std::string d = tempDir("stage-ahead");
  State st({1001, 77, 300000, 5, 4099, 20000});
  const State before = st;
  std::vector<std::vector<TensorToWrite>> groups;
  for (int u = 0; u < 6; ++u) groups.push_back(st.unit(u));
  uint64_t after_first = 0;  // bytes of groups 1..5
  for (int u = 1; u < 6; ++u)
    for (const auto& t : st.unit(u)) after_first += tensorBytes(t);
  StreamedWriterOptions o;
  o.piece_bytes = 64 << 10;
  o.staging = std::make_shared<StagingPool>(uint64_t{64} << 20, 2);
  o.staging->waitReady();
  o.copy_threads = 2;
  std::atomic<bool> writing0{false};
  o.before_mark = [&](int g) {
    if (g == 0) writing0.store(true);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // slow inside the write
  };
  const std::string path = d + "/opt.safetensors";
  StreamedSafetensorsWriter w(path, std::move(groups), {{"format", "x"}}, o);
  // Group 0 is being written (the writer reads the caller's memory) when the caller releases it.
  while (!writing0.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  const auto t0 = std::chrono::steady_clock::now();
  for (int u = 0; u < 6; ++u) {
    w.releaseGroup(u);
    for (int p = 0; p < 3; ++p)
      for (auto& v : st.bufs[u * 3 + p]) v = -7.0f;  // the "update" overwrites it all
  }
  const double released_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_EQ(w.wait(), "");
  // Groups 1..5 were copied while group 0 was written; without stage-ahead each group the
  // caller needs is the one being written, nothing is staged and the caller is held 6 x 300 ms.
  EXPECT_GE(w.stagedBytes(), after_first) << "the caller waited for the disk instead of copying ahead";
  EXPECT_LT(released_s, 1.2) << "held for the disk's time, not one group's write";
  expectFileHolds(path, before, 6);
  EXPECT_EQ(w.digest().xxh3, digestFile(path).xxh3);
  removeTree(d);
}

// stageNext: with a slow disk, the caller (the leader waiting for the next step's gradients)
// copies groups ahead, one per call, in write order, through its own copy function, so the
// later releases cost nothing; with a pool about one large group's size, what has no room
// waits for the disk. Either way the file is each group as it was before its release.
TEST(StreamedWriter, StageNextCopiesAheadInWriteOrderThroughTheCallersCopy) {
  const std::string d = tempDir("stage-next");
  for (const uint64_t budget : {uint64_t{64} << 20, uint64_t{300000} * 3 * 4}) {
    State st({1001, 77, 300000, 5, 4099, 20000});
    const State before = st;
    std::vector<std::vector<TensorToWrite>> groups;
    uint64_t total = 0;
    for (int u = 0; u < 6; ++u) {
      groups.push_back(st.unit(u));
      for (const auto& t : st.unit(u)) total += tensorBytes(t);
    }
    StreamedWriterOptions o;
    o.piece_bytes = 64 << 10;
    o.staging = std::make_shared<StagingPool>(budget, 2);
    o.staging->waitReady();
    const std::thread::id caller = std::this_thread::get_id();
    std::atomic<uint64_t> copied{0};
    std::atomic<bool> other_thread{false};
    o.copy = [&](uint8_t* dst, const uint8_t* src, size_t n) {
      if (std::this_thread::get_id() != caller) other_thread.store(true);
      std::memcpy(dst, src, n);
      copied.fetch_add(n);
    };
    std::atomic<bool> writing0{false}, staged_ahead{false};
    o.before_mark = [&](int g) {
      if (g == 0) {  // group 0 stays "being written" until the caller has copied ahead (a
        writing0.store(true);  // loaded machine may hold the caller longer than any sleep)
        while (!staged_ahead.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    };
    const std::string path = d + "/opt" + std::to_string(budget) + ".safetensors";
    StreamedSafetensorsWriter w(path, std::move(groups), {{"format", "x"}}, o);
    while (!writing0.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    // The "forward": group 0 is being written from the caller's memory; the caller copies the
    // rest ahead while there is room.
    int calls = 0;
    while (w.stageNext()) ++calls;
    staged_ahead.store(true);
    if (budget >= (uint64_t{64} << 20)) {
      EXPECT_EQ(calls, 5) << "groups 1..5, one per call (group 0 is the writer's)";
      EXPECT_LT(w.groupsWritten(), 6) << "the disk finished before the copies: no test";
    }
    EXPECT_FALSE(w.stageNext()) << "false again: nothing copied since";
    double held = 0;
    for (int u = 0; u < 6; ++u) {
      held += w.releaseGroup(u);
      for (int p = 0; p < 3; ++p)
        for (auto& v : st.bufs[u * 3 + p]) v = -7.0f;  // the "update" overwrites it all
    }
    ASSERT_EQ(w.wait(), "");
    if (budget >= (uint64_t{64} << 20)) {
      // Group 0's write (100 ms) and slack; waiting for the other five too would be >= 0.6 s.
      EXPECT_LT(held, 0.5) << "the releases waited for more than group 0's write";
      EXPECT_EQ(w.stagedBytes(), total - (tensorBytes(st.unit(0)[0]) * 3));
    }
    EXPECT_FALSE(other_thread.load()) << "a copy ran on a thread other than the caller's";
    EXPECT_EQ(copied.load(), w.stagedBytes()) << "every copy went through the caller's function";
    EXPECT_GT(w.stagedBytes(), 0u);
    expectFileHolds(path, before, 6, " budget " + std::to_string(budget));
    EXPECT_EQ(w.digest().xxh3, digestFile(path).xxh3);
  }
  removeTree(d);
}

// The staging pool is a ring: slices in order, back in order; one that does not fit at the
// head is refused (never served out of order), and room comes back as the oldest are released.
TEST(StagingPool, HandsOutSlicesInRingOrderAndRefusesWhatDoesNotFit) {
  StagingPool pool(4u << 20, 2);  // 4 MiB
  EXPECT_EQ(pool.capacity(), uint64_t{4} << 20);
  EXPECT_GE(pool.waitReady(), 0.0);
  const uint64_t mib = 1u << 20;
  auto a = pool.tryAllocate(mib), b = pool.tryAllocate(mib), c = pool.tryAllocate(mib);
  ASSERT_TRUE(a && b && c);
  uint8_t* const base = a.data();
  EXPECT_EQ(b.data(), a.data() + mib);
  EXPECT_EQ(c.data(), b.data() + mib);
  EXPECT_FALSE(pool.tryAllocate(2 * mib)) << "only 1 MiB is left at the head";
  std::memset(c.data(), 0x5a, mib);  // the memory is usable
  a.reset();                         // the oldest comes back: [0, 1 MiB) is free again
  auto d = pool.tryAllocate(mib);    // the head's last MiB
  ASSERT_TRUE(d);
  EXPECT_EQ(d.data(), c.data() + mib);
  auto e = pool.tryAllocate(mib);    // wraps to the front
  ASSERT_TRUE(e);
  EXPECT_EQ(e.data(), base);
  EXPECT_FALSE(pool.tryAllocate(64)) << "full";
  EXPECT_EQ(pool.inUse(), 4 * mib);
  c.reset();  // released out of order: b is still the oldest, so no room yet
  EXPECT_FALSE(pool.tryAllocate(mib));
  b.reset();  // b and c: [1, 3) MiB free
  auto f = pool.tryAllocate(2 * mib);
  ASSERT_TRUE(f);
  EXPECT_EQ(f.data(), base + mib);
  d.reset(); e.reset(); f.reset();
  EXPECT_EQ(pool.inUse(), 0u);
  auto g = pool.tryAllocate(4 * mib);  // empty again: all of it from the start
  ASSERT_TRUE(g);
  EXPECT_EQ(g.data(), base);
  EXPECT_FALSE(pool.tryAllocate(8 * mib));
}

// What a pool reserves is what the host-memory check counts (train_job.cpp): whole 2 MiB pages,
// so a tiny --checkpoint-staging (1e-7 GiB = 107 B) is counted as the 2 MiB it takes.
TEST(StagingPool, ReservesWholePagesAndSaysHowMany) {
  EXPECT_EQ(StagingPool::reservedBytes(0), 0u);
  EXPECT_EQ(StagingPool::reservedBytes(107), StagingPool::kPageBytes);
  EXPECT_EQ(StagingPool::reservedBytes(StagingPool::kPageBytes), StagingPool::kPageBytes);
  EXPECT_EQ(StagingPool::reservedBytes(StagingPool::kPageBytes + 1), 2 * StagingPool::kPageBytes);
  StagingPool pool(107, 1);
  EXPECT_EQ(pool.capacity(), StagingPool::reservedBytes(107));
}

// O_DIRECT (StreamedWriterOptions::direct_io, formats/direct_stream.h): the same bytes as the
// buffered writer, with tensor and piece sizes that are not multiples of the 4 KiB alignment
// (the last block is padded, then the file truncated), the caller changing each group right
// after its release, and staging on; on /tmp and on /dev/shm (tmpfs: O_DIRECT is refused by
// kernels before 6.6, and the writer falls back to the page cache, which it reports).
TEST(StreamedWriter, DirectIoWritesTheBufferedWritersBytesWhereverTheFileSystemTakesIt) {
  for (const char* root_c : {"/tmp", "/dev/shm"}) {
    const std::string root = root_c;
    if (!pathExists(root)) continue;
    const std::string d = root + "/slidedp_streamed_direct_" + std::to_string(::getpid());
    removeTree(d);
    makeDirectories(d);
    for (size_t piece : {size_t{64} << 10, size_t{10000}}) {
      State st({1001, 77, 300000, 5, 4099});
      const State before = st;
      const std::vector<int> order = {4, 3, 2, 1, 0};
      std::vector<std::vector<TensorToWrite>> groups, ref_groups;
      for (int u : order) groups.push_back(st.unit(u));
      for (int u : order) ref_groups.push_back(before.unit(u));
      StreamedWriterOptions o;
      o.piece_bytes = piece;
      o.direct_io = true;
      o.staging = std::make_shared<StagingPool>(1 << 20);
      o.after_group = [](int) { std::this_thread::sleep_for(std::chrono::milliseconds(2)); };
      StreamedSafetensorsWriter w(d + "/direct.safetensors", std::move(groups), {{"format", "x"}}, o);
      for (size_t i = 0; i < order.size(); ++i) {
        w.releaseGroup(static_cast<int>(i));
        for (int p = 0; p < 3; ++p)
          for (auto& v : st.bufs[order[i] * 3 + p]) v -= 3.0f;
      }
      const std::string what = " (" + root + ", piece " + std::to_string(piece) + ")";
      ASSERT_EQ(w.wait(), "") << what;
      expectFileHolds(d + "/direct.safetensors", before, 5, what);
      StreamedWriterOptions b;
      b.piece_bytes = piece;
      StreamedSafetensorsWriter ref(d + "/buffered.safetensors", std::move(ref_groups), {{"format", "x"}}, b);
      ASSERT_EQ(ref.wait(), "") << what;
      EXPECT_TRUE(readAll(d + "/buffered.safetensors") == readAll(d + "/direct.safetensors")) << what;
      const FileDigest on_disk = digestFile(d + "/direct.safetensors");
      EXPECT_EQ(w.digest().bytes, on_disk.bytes) << what;
      EXPECT_EQ(w.digest().xxh3, on_disk.xxh3) << what;
      EXPECT_EQ(w.digest().xxh3, ref.digest().xxh3) << what;
      std::printf("direct write on %s (piece %zu): %s\n", root.c_str(), piece,
                  w.directFellBack() ? "refused, written through the page cache" : "O_DIRECT");
    }
    removeTree(d);
  }
}

// The caller lends its idle time to a direct write (pumpIdle: the leader while it waits for
// gradients): the copy into the bounce buffers is then made by the caller's calls, not by the
// writer thread, and the file is the same; a caller that stops pumping does not stall the write
// (the writer copies itself after pump_grace_s). Buffered writes have nothing to pump.
TEST(StreamedWriter, ACallerPumpingItsIdleTimeMakesTheDirectCopyAndMayStopAnyTime) {
  const std::string d = tempDir("pump");
  State st({1001, 77, 300000, 5, 4099, 250000});
  const State before = st;
  std::vector<std::vector<TensorToWrite>> groups, ref_groups;
  for (int u = 0; u < 6; ++u) groups.push_back(st.unit(u));
  for (int u = 0; u < 6; ++u) ref_groups.push_back(before.unit(u));
  StreamedWriterOptions o;
  o.piece_bytes = 64 << 10;
  o.direct_io = true;
  o.pump_grace_s = 2;  // longer than a loaded machine holds the pumping thread
  // The first group waits until the caller pumps (so the rest is offered to the pump whatever
  // the machine's load), then every group takes a little while.
  std::atomic<bool> pumping{false};
  o.after_group = [&](int n) {
    while (n == 1 && !pumping.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  };
  StreamedSafetensorsWriter w(d + "/pumped.safetensors", std::move(groups), {{"format", "x"}}, o);
  // Under way from its construction: a leader pumping in the wait right after starting the
  // checkpoint keeps pumping (before, pumpIdle said "nothing to do" until the writer thread had
  // put the header, and the leader's idle loop ended for that wait).
  EXPECT_TRUE(w.pumpIdle()) << "a direct write just constructed has nothing to pump";
  // Pump (as a leader between chunks) until some of it was copied here, then stop, as after a
  // last step: the writer copies the rest itself once the grace has passed.
  const auto t0 = std::chrono::steady_clock::now();
  while (w.pumpedBytes() < (2u << 20) && !w.finished() &&
         std::chrono::steady_clock::now() - t0 < std::chrono::seconds(30)) {
    const bool more = w.pumpIdle();
    pumping.store(true);
    if (!more) std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  const uint64_t pumped = w.pumpedBytes();
  ASSERT_EQ(w.wait(), "");
  EXPECT_GE(pumped, 2u << 20) << "the caller's pumping did not make the copy";
  EXPECT_FALSE(w.pumpIdle()) << "a finished writer has nothing to pump";
  StreamedSafetensorsWriter ref(d + "/ref.safetensors", std::move(ref_groups), {{"format", "x"}}, {});
  ASSERT_EQ(ref.wait(), "");
  EXPECT_TRUE(readAll(d + "/ref.safetensors") == readAll(d + "/pumped.safetensors"));
  EXPECT_EQ(w.digest().xxh3, ref.digest().xxh3);
  EXPECT_FALSE(ref.pumpIdle()) << "a buffered write has nothing to pump";
  std::printf("pumped %llu of %llu bytes\n", static_cast<unsigned long long>(pumped),
              static_cast<unsigned long long>(w.digest().bytes));
  removeTree(d);
}

// A direct write the file system refuses (EINVAL: here a buffer, size and offset O_DIRECT cannot
// take) switches the file to buffered writes and is retried (formats/io_pool.h): the bytes
// arrive, and the pool says it fell back.
TEST(IoPool, ARefusedDirectWriteFallsBackToBufferedAndLandsItsBytes) {
  const std::string d = tempDir("iopool");
  const std::string path = d + "/f.bin";
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_DIRECT, 0644);
  if (fd < 0) GTEST_SKIP() << "O_DIRECT refused at open on " << d << " (the writer falls back there at open)";
  std::string bytes(1000, 'x');
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>('a' + i % 26);
  {
    IoPool pool(fd, path, 2, false);
    pool.submit(reinterpret_cast<const uint8_t*>(bytes.data()) + 1, 999, 3);  // unaligned
    pool.drain();
    EXPECT_TRUE(pool.directFellBack());
    EXPECT_FALSE(pool.failed());
  }
  ::close(fd);
  const std::string got = readAll(path);
  ASSERT_EQ(got.size(), 1002u);
  EXPECT_EQ(got.substr(3), bytes.substr(1));
  removeTree(d);
}

// A caller whose pumping is too slow for the schedule (finish_by_s) gets help: the writer thread
// copies beside it whenever fewer bytes are copied than the linear schedule asks, although the
// caller pumps throughout; without a schedule the same slow pumping makes the whole copy.
TEST(StreamedWriter, PumpingBehindTheScheduleIsHelpedByTheWriter) {
  const std::string d = tempDir("behind");
  State st({300000, 250000, 200000});  // ~9 MB
  for (double finish_by : {0.0, 0.05}) {
    StreamedWriterOptions o;
    o.direct_io = true;
    o.finish_by_s = finish_by;
    o.pump_grace_s = 60;      // only the schedule makes the writer copy (a loaded machine may
    o.background = false;     // hold the pumping thread a while; the writer is not starved)
    std::atomic<bool> pumping{false};
    o.after_group = [&](int n) {  // the rest offered once the caller pumps
      while (n == 1 && !pumping.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    };
    StreamedSafetensorsWriter w(d + "/b.safetensors", {st.unit(0), st.unit(1), st.unit(2)}, {}, o);
    // Slow pumping: one 256 KiB slice per 5 ms (~50 MB/s), until the write is done.
    while (!w.finished()) {
      w.pumpIdle();
      pumping.store(true);
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    ASSERT_EQ(w.wait(), "");
    expectFileHolds(d + "/b.safetensors", st, 3, finish_by > 0 ? " (scheduled)" : " (unscheduled)");
    // The header and unit 0 went before the caller pumped; units 1 and 2 were offered to it.
    const uint64_t after_first = w.digest().bytes - static_cast<uint64_t>(300000) * 12;
    if (finish_by > 0)
      EXPECT_LT(w.pumpedBytes(), after_first) << "the writer did not help a pump behind its schedule";
    else
      EXPECT_GE(w.pumpedBytes(), static_cast<uint64_t>(450000) * 12) << "the slow pump did not make the copy";
    std::printf("finish_by %.2f s: pumped %llu of %llu bytes\n", finish_by,
                static_cast<unsigned long long>(w.pumpedBytes()),
                static_cast<unsigned long long>(w.digest().bytes));
    removeTree(d + "/b.safetensors");
  }
  removeTree(d);
}

namespace {
/// Units of three tensors of n floats each, all 1.0 (large: a write of many pieces).
struct BigUnits {
  std::vector<std::vector<float>> bufs;
  std::vector<TensorToWrite> unit(int u, int64_t n) {
    std::vector<TensorToWrite> t;
    for (int p = 0; p < 3; ++p) {
      bufs.emplace_back(static_cast<size_t>(n), 1.0f);
      t.push_back({"u" + std::to_string(u) + "." + std::to_string(p), DType::F32, {n},
                   bufs.back().data(), DType::F32});
    }
    return t;
  }
};

/// RLIMIT_FSIZE of this process lowered to `bytes` (SIGXFSZ ignored: a write past it fails with
/// EFBIG), restored when it goes out of scope.
struct FileSizeLimit {
  rlimit old{};
  explicit FileSizeLimit(rlim_t bytes) {
    std::signal(SIGXFSZ, SIG_IGN);
    ::getrlimit(RLIMIT_FSIZE, &old);
    rlimit lim = old;
    lim.rlim_cur = bytes;
    ok = ::setrlimit(RLIMIT_FSIZE, &lim) == 0;
  }
  ~FileSizeLimit() { ::setrlimit(RLIMIT_FSIZE, &old); }
  bool ok = false;
};
}  // namespace

// The caller pumps, then blocks on the group being fed from its memory (the leader's update
// gate, when the group could not be staged): it cannot pump meanwhile, so the writer copies at
// once instead of waiting out pump_grace_s (found in review: the gate stalled for the grace).
TEST(StreamedWriter, ACallerBlockedOnTheGroupBeingFedIsNotLeftWaitingForItsOwnPumping) {
  const std::string d = tempDir("gate");
  BigUnits b;
  b.bufs.reserve(8);
  std::vector<std::vector<TensorToWrite>> groups = {b.unit(0, 4 << 20), b.unit(1, 1000)};
  StreamedWriterOptions o;
  o.direct_io = true;
  o.pump_grace_s = 60;  // without the fix the release below would wait this long
  StreamedSafetensorsWriter w(d + "/g.safetensors", std::move(groups), {}, o);
  while (w.pumpedBytes() == 0 && !w.finished()) w.pumpIdle();
  const double held = w.releaseGroup(0);
  EXPECT_LT(held, 20.0) << "the release waited for pumping that could not come";
  while (!w.finished()) w.pumpIdle();  // the rest, as the leader's next waits would
  EXPECT_EQ(w.wait(), "");
  removeTree(d);
}

// A direct write that fails (EFBIG past RLIMIT_FSIZE) while the caller pumps is reported with
// its error, the file removed, and pumpIdle() says false from then on; and when it fails on the
// writer's own copy while the caller pumps, the caller's pumping never touches the unwound
// writer's buffers or digest (found in review: a use-after-free; ASan checks it here).
TEST(StreamedWriter, ADirectWriteFailingWhileTheCallerPumpsIsReportedAndNothingDanglesAfterIt) {
  const std::string d = tempDir("pump_fail");
  FileSizeLimit limit(4u << 20);
  ASSERT_TRUE(limit.ok);
  for (double grace : {60.0, 0.0}) {  // the caller's pumping copies; the writer copies
    for (int rep = 0; rep < (grace > 0 ? 1 : 5); ++rep) {
      BigUnits b;
      b.bufs.reserve(8);
      std::vector<std::vector<TensorToWrite>> groups = {b.unit(0, 4 << 20), b.unit(1, 1000)};
      StreamedWriterOptions o;
      o.direct_io = true;
      o.piece_bytes = 1 << 20;
      o.pump_grace_s = grace;
      const std::string path = d + "/f.safetensors";
      StreamedSafetensorsWriter w(path, std::move(groups), {}, o);
      const auto t0 = std::chrono::steady_clock::now();
      while (!w.finished() && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(30)) w.pumpIdle();
      ASSERT_TRUE(w.finished()) << "a failed write went unnoticed while the caller pumped (grace " << grace << ")";
      EXPECT_FALSE(w.pumpIdle());
      const std::string e = w.wait();
      EXPECT_NE(e.find("write failed"), std::string::npos) << e;
      EXPECT_FALSE(pathExists(path));
    }
  }
  removeTree(d);
}
