// A checkpoint written while training continues (see checkpoint_stream.h).
#include "train/checkpoint_stream.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/errors.h"
#include "formats/fs_util.h"
#include "shm/layout.h"  // formatBytes
#include "train/checkpoint_dir.h"

namespace slidedp {

CheckpointStream::CheckpointStream(CheckpointRequest req,
                                   std::vector<std::vector<formats::TensorToWrite>> unit_tensors,
                                   const std::vector<int>& order,
                                   std::function<void(int)> after_unit)
    : req_(std::move(req)) {
  using namespace formats;
  SLIDEDP_ASSERT(order.size() == unit_tensors.size(), "write order has {} units, the state {}",
                 order.size(), unit_tensors.size());
  name_ = fmt::format("step-{:08d}", req_.step);
  final_dir_ = joinPath(req_.root, name_);
  shared_ = !req_.shared_tmp_dir.empty();
  if (shared_) {
    tmp_dir_ = req_.shared_tmp_dir;  // made (and committed or removed) by the trainer
  } else {
    tmp_dir_ = joinPath(req_.root, fmt::format(".{}.tmp-{}", name_, ::getpid()));
    makeDirectories(req_.root);
    removeTree(tmp_dir_);
    makeDirectories(tmp_dir_);
  }
  position_.assign(unit_tensors.size(), -1);
  std::vector<std::vector<TensorToWrite>> groups;
  for (size_t i = 0; i < order.size(); ++i) {
    const int u = order[i];
    SLIDEDP_ASSERT(u >= 0 && u < static_cast<int>(unit_tensors.size()) && position_[u] < 0,
                   "unit {} twice or out of range in the write order", u);
    position_[u] = static_cast<int>(i);
    groups.push_back(std::move(unit_tensors[u]));
  }
  StreamedWriterOptions wo;
  wo.after_group = std::move(after_unit);
  wo.staging = req_.staging;
  wo.copy = req_.copy;
  wo.max_bytes_per_s = req_.max_bytes_per_s;
  wo.finish_by_s = req_.finish_by_s;
  if (req_.pump_grace_s > 0) wo.pump_grace_s = req_.pump_grace_s;
  direct_ = req_.io == "direct" ||
            (req_.io == "auto" && req_.staging && req_.staging->capacity() > 0 && !req_.blocking);
  wo.direct_io = direct_;
  if (!shared_) wo.on_complete = [this](const FileDigest& d) { complete(d); };
  writer_ = std::make_unique<StreamedSafetensorsWriter>(
      joinPath(tmp_dir_, req_.file), std::move(groups),
      std::map<std::string, std::string>{{"format", "slidedp-optimizer-state-1"}}, std::move(wo));
}

CheckpointStream::~CheckpointStream() {
  writer_->cancel();
  finish();
}

double CheckpointStream::waitUnit(int u, const std::function<void()>& poll) {
  return writer_->releaseGroup(position_.at(u), poll);
}

void CheckpointStream::complete(const formats::FileDigest& digest) {
  using namespace formats;
  nlohmann::json j = req_.state;
  j["step"] = req_.step;
  j["format"] = 1;
  j["files"] = {{req_.file, {{"bytes", digest.bytes}, {"xxh3", digest.xxh3}}}};
  writeFileAtomic(joinPath(tmp_dir_, "trainer_state.json"), j.dump(1) + "\n");
  removeTree(final_dir_);  // a checkpoint of the same step from an earlier, resumed run
  if (std::rename(tmp_dir_.c_str(), final_dir_.c_str()) != 0)
    throwUserError("cannot rename {} to {}: {}", tmp_dir_, final_dir_, std::strerror(errno));
  if (int fd = ::open(req_.root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
  publishAndPrune(req_.root, name_, req_.step, req_.keep, req_.overwrite);
  const double sec = writer_->seconds();  // set by this (the writer) thread before on_complete
  const uint64_t staged = writer_->stagedBytes();
  std::string budget = req_.staging && req_.staging->capacity() > 0
      ? fmt::format("at most {} held at once", shm::formatBytes(req_.staging->capacity()))
      : std::string("staging off: updates waited for the disk where it was behind");
  budget += writer_->directFellBack()
                ? std::string("; O_DIRECT refused by the file system: written through the page cache")
            : direct_ ? fmt::format("; O_DIRECT, {} of it copied in the leader's idle time",
                                   shm::formatBytes(writer_->pumpedBytes()))
                     : std::string("; through the page cache");
  if (req_.note && req_.blocking)
    req_.note(fmt::format("checkpoint of step {} written to {} ({} in {:.2f} s to the fsync, {}; "
                          "training waited for it)", req_.step, final_dir_,
                          shm::formatBytes(digest.bytes), sec, rate(digest.bytes, sec)));
  else if (req_.note)
    req_.note(fmt::format("checkpoint of step {} written to {} ({} in {:.2f} s to the fsync, "
                          "{}; {} of it copied to staging memory in {:.2f} s, {})",
                          req_.step, final_dir_, shm::formatBytes(digest.bytes), sec,
                          rate(digest.bytes, sec), shm::formatBytes(staged),
                          writer_->stagingSeconds(), budget));
}

std::string CheckpointStream::rate(uint64_t bytes, double sec) {
  const double r = sec > 0 ? bytes / sec : 0.0;
  return r >= 1e8 ? fmt::format("{:.2f} GB/s", r / 1e9) : fmt::format("{:.1f} MB/s", r / 1e6);
}

std::string CheckpointStream::finish() {
  if (finished_) return error_;
  error_ = writer_->wait();
  finished_ = true;
  if (!error_.empty()) {
    // No half-written checkpoint stays behind to fill the disk (a shared directory: the
    // trainer removes it once every leader agreed the failure; the writer removed the file).
    if (!shared_) formats::removeTree(tmp_dir_);
    error_ = fmt::format("writing the checkpoint of step {} to {} failed: {}", req_.step,
                         req_.root, error_);
  }
  return error_;
}

}  // namespace slidedp
