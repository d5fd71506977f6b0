// Nothing lost, nothing silent (issue 20), seen from outside as a user runs the job:
// checkpoints of another run are never pruned or shadowed, a resume without `latest` continues
// from the newest complete checkpoint, damaged checkpoint values are refused, a stopped run
// does not export as if trained, outputs that cannot be written and settings that cannot work
// are refused before start-up (once, with the flag's name), the printed and saved configuration
// is the one that ran, stale segments of any --shm-name are cleaned up, and slidedp_generate
// answers bad input with a message instead of a LibTorch backtrace.
#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "common/subprocess.h"
#include "shm/segment.h"

using namespace std::chrono;
using namespace slidedp::test;
using slidedp::shm::Segment;

namespace {


std::vector<std::string> train(std::vector<std::string> extra) {
  std::vector<std::string> a = {SLIDEDP_MPIRUN_BIN, "--oversubscribe", "--bind-to", "none", "-np",
                                "3", SLIDEDP_WORKER_BIN, "--device", "cpu", "--model", stories(),
                                "--batch-size", "4", "--seq-len", "32", "--chunk-numel", "5000",
                                "--leader-threads", "1"};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

std::string tmpDir(const char* tag) {
  const std::string d = fmt::format("/tmp/slidedp-safety-{}-{}", tag, getpid());
  std::system(("rm -rf " + d + " " + d + ".*").c_str());
  return d;
}

bool exists(const std::string& p) { return access(p.c_str(), F_OK) == 0; }

/// Every /dev/shm path some process maps, one per line (from /proc/<pid>/maps).
std::string mappedShmPaths() {
  std::string out;
  if (DIR* d = opendir("/proc")) {
    while (dirent* e = readdir(d)) {
      if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
      std::ifstream maps(std::string("/proc/") + e->d_name + "/maps");
      for (std::string line; std::getline(maps, line);)
        if (const size_t at = line.find(" /dev/shm/"); at != std::string::npos)
          out += line.substr(at + 1) + "\n";
    }
    closedir(d);
  }
  return out;
}

/// Names in /dev/shm starting with `prefix`.
std::vector<std::string> shmFiles(const std::string& prefix) {
  std::vector<std::string> out;
  if (DIR* d = opendir("/dev/shm")) {
    while (dirent* e = readdir(d))
      if (std::string(e->d_name).rfind(prefix, 0) == 0) out.emplace_back(e->d_name);
    closedir(d);
  }
  return out;
}

std::string latestOf(const std::string& dir) {
  std::string s = readFile(dir + "/latest");
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}


}  // namespace

// Item 1: `latest` lost (a copy that skipped it, a hand edit): --resume auto continues from the
// newest complete checkpoint instead of starting over and pruning the earlier ones.
TEST(CheckpointSafety, ResumeAutoWithoutLatestContinuesFromTheNewestCheckpoint) {
  const std::string d = tmpDir("nolatest");
  Result r1 = wait(start(train({"--steps", "4", "--checkpoint-dir", d, "--checkpoint-every", "2",
                                "--keep-checkpoints", "3"})));
  ASSERT_EQ(r1.exit_code, 0) << r1.output;
  ASSERT_TRUE(exists(d + "/step-00000004/optimizer.safetensors")) << r1.output;
  ASSERT_EQ(std::remove((d + "/latest").c_str()), 0);
  Result r2 = wait(start(train({"--steps", "6", "--checkpoint-dir", d, "--checkpoint-every", "2",
                                "--keep-checkpoints", "3", "--resume", "auto"})));
  ASSERT_EQ(r2.exit_code, 0) << r2.output;
  EXPECT_NE(r2.output.find("has no `latest` file; resuming from its newest complete checkpoint"),
            std::string::npos) << r2.output;
  EXPECT_NE(r2.output.find("at step 5"), std::string::npos) << r2.output;
  EXPECT_EQ(r2.output.find("step 1/6"), std::string::npos) << "started over:\n" << r2.output;
  EXPECT_EQ(latestOf(d), "step-00000006");
  for (const char* s : {"step-00000002", "step-00000004", "step-00000006"})
    EXPECT_TRUE(exists(d + "/" + s + "/optimizer.safetensors")) << s << " lost";
  std::system(("rm -rf " + d).c_str());
}

// Item 1: a new run pointed at a directory of another run is refused before start-up; `latest`
// and the other run's checkpoints stay; --overwrite-checkpoints replaces them on purpose.
TEST(CheckpointSafety, ANewRunInAnotherRunsDirectoryIsRefusedUnlessAskedToOverwrite) {
  const std::string d = tmpDir("reuse");
  Result r1 = wait(start(train({"--steps", "4", "--checkpoint-dir", d, "--checkpoint-every", "2"})));
  ASSERT_EQ(r1.exit_code, 0) << r1.output;
  ASSERT_EQ(latestOf(d), "step-00000004");
  const std::string before = readFile(d + "/step-00000004/optimizer.safetensors");
  Result r2 = wait(start(train({"--steps", "2", "--checkpoint-dir", d})));
  EXPECT_EQ(r2.exit_code, 2) << r2.output;
  EXPECT_NE(r2.output.find("already holds the checkpoints of another run"), std::string::npos) << r2.output;
  EXPECT_NE(r2.output.find("--overwrite-checkpoints"), std::string::npos) << r2.output;
  EXPECT_EQ(r2.output.find("step 1/"), std::string::npos) << "trained before refusing:\n" << r2.output;
  EXPECT_EQ(latestOf(d), "step-00000004") << "latest moved back";
  EXPECT_TRUE(readFile(d + "/step-00000004/optimizer.safetensors") == before);
  EXPECT_TRUE(exists(d + "/step-00000002/optimizer.safetensors"));
  // A resume from an older step of the same directory would shadow the newer ones too.
  Result r3 = wait(start(train({"--steps", "5", "--checkpoint-dir", d, "--resume", d + "/step-00000002"})));
  EXPECT_EQ(r3.exit_code, 2) << r3.output;
  EXPECT_NE(r3.output.find("holds checkpoints newer than step 2"), std::string::npos) << r3.output;
  EXPECT_EQ(latestOf(d), "step-00000004");
  // Asked for: the new run replaces the old one (its newer steps go once the new one exists).
  Result r4 = wait(start(train({"--steps", "3", "--checkpoint-dir", d, "--overwrite-checkpoints"})));
  ASSERT_EQ(r4.exit_code, 0) << r4.output;
  EXPECT_EQ(latestOf(d), "step-00000003");
  EXPECT_FALSE(exists(d + "/step-00000004")) << "the replaced run's newer step is left";
  EXPECT_TRUE(exists(d + "/step-00000003/optimizer.safetensors"));
  std::system(("rm -rf " + d).c_str());
}

// Item 4: values changed on disk after the checkpoint was written are detected on resume.
TEST(CheckpointSafety, DamagedCheckpointValuesAreRefusedOnResume) {
  const std::string d = tmpDir("damaged");
  Result r1 = wait(start(train({"--steps", "2", "--checkpoint-dir", d})));
  ASSERT_EQ(r1.exit_code, 0) << r1.output;
  const std::string file = d + "/step-00000002/optimizer.safetensors";
  ASSERT_NE(readFile(d + "/step-00000002/trainer_state.json").find("\"xxh3\""), std::string::npos);
  {
    // 100 floats of the last tensor set to 1000.0, the file's size unchanged.
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-400 - 4096, std::ios::end);
    const float v = 1000.0f;
    for (int i = 0; i < 100; ++i) f.write(reinterpret_cast<const char*>(&v), 4);
  }
  Result r2 = wait(start(train({"--steps", "4", "--checkpoint-dir", d, "--resume", "auto"})));
  EXPECT_EQ(r2.exit_code, 2) << r2.output;
  EXPECT_NE(r2.output.find(file + " is damaged"), std::string::npos) << r2.output;
  EXPECT_EQ(r2.output.find("step 3/"), std::string::npos) << "trained on damaged values:\n" << r2.output;
  EXPECT_EQ(countOccurrences(r2.output, "is damaged"), 1) << r2.output;
  std::system(("rm -rf " + d).c_str());
}

// Item 3: a stopped run does not write its partial model where the trained one goes. With a
// checkpoint the export is skipped (resume finishes and exports); without one the partial
// weights go to <export>.partial-step-N, said as such.
TEST(CheckpointSafety, AStoppedRunDoesNotExportAsTheTrainedModel) {
  for (bool with_checkpoint : {true, false}) {
    const std::string d = tmpDir(with_checkpoint ? "stopck" : "stopnock");
    const std::string out = d + ".export";
    const std::string pids_file = d + ".pids";
    std::vector<std::string> extra = {"--steps", "100000", "--export", out, "--pid-file", pids_file};
    if (with_checkpoint) extra.insert(extra.end(), {"--checkpoint-dir", d});
    Proc p = start(train(extra));
    const auto pids = waitForPids(pids_file, 3);
    ASSERT_EQ(pids.size(), 3u);
    ASSERT_TRUE(waitForText(p, "step 3/", 120)) << readFile(p.log);
    for (pid_t pid : pids) kill(pid, SIGTERM);
    Result r = wait(p, 120);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(r.output.find("exported the trained model"), std::string::npos) << r.output;
    EXPECT_FALSE(exists(out + "/config.json")) << "partial model exported as the trained one";
    // Nor an empty directory there (the up-front writability check made it and left it).
    EXPECT_FALSE(exists(out)) << "an empty export directory left behind";
    // Every rank knows it stopped; one says so (the lines were printed once per rank).
    EXPECT_EQ(countOccurrences(r.output, "on request"), 1) << r.output;
    // The results block lists only what was written: no trained model at --export.
    const std::string results = r.output.substr(std::min(r.output.size(), r.output.find("results:")));
    EXPECT_NE(results, "") << "no results block:\n" << r.output;
    EXPECT_EQ(results.find("model (Hugging Face format): " + out + "\n"), std::string::npos) << results;
    if (with_checkpoint) {
      EXPECT_EQ(countOccurrences(r.output, "export to " + out + " skipped: the run stopped after step"), 1)
          << r.output;
      EXPECT_EQ(results.find("model"), std::string::npos) << "a skipped export listed:\n" << results;
      const std::string latest = latestOf(d);
      ASSERT_EQ(latest.rfind("step-", 0), 0u) << r.output;
      // The resume finishes the run and exports it.
      const int at = std::stoi(latest.substr(5));
      Result again = wait(start(train({"--steps", std::to_string(at + 1), "--checkpoint-dir", d,
                                       "--resume", "auto", "--export", out})));
      EXPECT_EQ(again.exit_code, 0) << again.output;
      EXPECT_NE(again.output.find("exported the trained model"), std::string::npos) << again.output;
      EXPECT_TRUE(exists(out + "/config.json"));
    } else {
      EXPECT_NE(r.output.find("exported the PARTIAL model"), std::string::npos) << r.output;
      const size_t at = r.output.find("stopped after step ");
      ASSERT_NE(at, std::string::npos) << r.output;
      const int step = std::atoi(r.output.c_str() + at + 19);
      EXPECT_TRUE(exists(fmt::format("{}.partial-step-{}/config.json", out, step))) << r.output;
      EXPECT_NE(results.find(fmt::format("PARTIAL model, stopped after step {} (Hugging Face format): "
                                         "{}.partial-step-{}\n", step, out, step)), std::string::npos)
          << results;
    }
    std::system(("rm -rf " + d + " " + d + ".*").c_str());
  }
}

// A resume of a finished run has nothing to do: it says so once (not once per rank) and its
// results block lists only files that exist (its --trace step never ran).
TEST(CheckpointSafety, AResumeOfAFinishedRunListsOnlyFilesThatExist) {
  const std::string d = tmpDir("finished");
  Result r1 = wait(start(train({"--steps", "2", "--checkpoint-dir", d, "--metrics", d + ".m.jsonl"})));
  ASSERT_EQ(r1.exit_code, 0) << r1.output;
  Result r2 = wait(start(train({"--steps", "2", "--checkpoint-dir", d, "--resume", "auto", "--metrics",
                                d + ".m.jsonl", "--trace", d + ".trace.json"})));
  ASSERT_EQ(r2.exit_code, 0) << r2.output;
  EXPECT_EQ(countOccurrences(r2.output, "the checkpoint is at step 2, and --steps is 2: nothing to do"), 1)
      << r2.output;
  EXPECT_FALSE(exists(d + ".trace.json"));
  const size_t at = r2.output.find("results:");
  ASSERT_NE(at, std::string::npos) << r2.output;
  EXPECT_EQ(r2.output.find("trace:", at), std::string::npos) << "an unwritten trace listed:\n" << r2.output;
  EXPECT_NE(r2.output.find("metrics: " + d + ".m.jsonl", at), std::string::npos) << r2.output;
  std::system(("rm -rf " + d + " " + d + ".*").c_str());
}

// Another --steps on --resume re-derives the LR schedule (as HF Trainer and torchtune do): one
// line says so, with both totals and the next step's lr under each; the same --steps says nothing.
TEST(CheckpointSafety, AnotherStepCountOnResumeSaysTheScheduleChanges) {
  const std::string d = tmpDir("steps");
  const std::vector<std::string> sched = {"--schedule", "cosine", "--warmup", "1", "--lr", "0.001"};
  auto run = [&](std::vector<std::string> extra) {
    extra.insert(extra.end(), sched.begin(), sched.end());
    return wait(start(train(extra)));
  };
  Result r1 = run({"--steps", "4", "--checkpoint-dir", d, "--checkpoint-every", "2"});
  ASSERT_EQ(r1.exit_code, 0) << r1.output;
  const std::string ck = d + "/step-00000002";
  ASSERT_TRUE(exists(ck + "/trainer_state.json")) << r1.output;
  Result same = run({"--steps", "4", "--resume", ck});
  ASSERT_EQ(same.exit_code, 0) << same.output;
  EXPECT_EQ(same.output.find("LR schedule changes"), std::string::npos) << same.output;
  Result longer = run({"--steps", "8", "--resume", ck});
  ASSERT_EQ(longer.exit_code, 0) << longer.output;
  EXPECT_EQ(countOccurrences(longer.output,
                             "the LR schedule changes on this resume: the checkpoint's run had --steps 4 "
                             "(cosine, warmup 1, lr 0.001), this run --steps 8 (cosine, warmup 1, lr "
                             "0.001); from step 3 on it follows this run's schedule over 8 total steps"), 1)
      << longer.output;
  EXPECT_NE(longer.output.find("To keep the checkpoint's schedule, resume with --steps 4"), std::string::npos)
      << longer.output;
  std::system(("rm -rf " + d + " " + d + ".*").c_str());
}

// Two jobs started on one --checkpoint-dir: the second is refused while the first runs (they
// pruned and overwrote each other's checkpoints, and both reported success); the lock goes with
// the first job, however it ends.
TEST(OutputChecks, ASecondJobOnACheckpointDirInUseIsRefused) {
  const std::string d = tmpDir("lock");
  {
    Proc first = start(train({"--steps", "100000", "--checkpoint-dir", d, "--checkpoint-every", "50000"}));
    ASSERT_TRUE(waitForText(first, "step 1/", 120)) << readFile(first.log);
    Result second = wait(start(train({"--steps", "2", "--checkpoint-dir", d, "--overwrite-checkpoints"})));
    EXPECT_EQ(second.exit_code, 2) << second.output;
    EXPECT_NE(second.output.find("--checkpoint-dir " + d + " is in use by another running job (pid "),
              std::string::npos) << second.output;
    EXPECT_EQ(second.output.find("step 1/"), std::string::npos) << second.output;
  }  // the first job is killed (SIGTERM, then SIGKILL to its process group)
  Result after = wait(start(train({"--steps", "2", "--checkpoint-dir", d, "--overwrite-checkpoints"})));
  EXPECT_EQ(after.exit_code, 0) << after.output;
  std::system(("rm -rf " + d).c_str());
}

// Item 2: outputs that cannot be written are refused before start-up, not after the last step.
TEST(OutputChecks, UnwritableOutputPathsAreRefusedBeforeTheFirstStep) {
  const std::string file = tmpDir("notadir");
  { std::ofstream(file) << "a file, not a directory\n"; }
  for (const char* flag : {"--checkpoint-dir", "--export", "--metrics", "--trace"}) {
    const std::string path = file + "/sub/out" + (flag[2] == 'm' ? ".jsonl" : "");
    Result r = wait(start(train({"--steps", "2", flag, path})));
    EXPECT_EQ(r.exit_code, 2) << flag << "\n" << r.output;
    EXPECT_EQ(countOccurrences(r.output, std::string("slidedp: error: ") + flag), 1) << r.output;
    // the file in the way is named (not "pass a directory path" for a file option)
    EXPECT_NE(r.output.find(std::string(flag) + " " + path + ": " + file + " is a file, not a directory"),
              std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("step 1/"), std::string::npos) << flag << " checked too late:\n" << r.output;
  }
  std::remove(file.c_str());
  // a file path ending in '/' names a directory: refused at start-up (it failed after the last
  // step, at the rename of the written file, and the job's end-of-run outputs were lost)
  for (const char* flag : {"--metrics", "--trace"}) {
    const std::string dir = tmpDir("slash") + "/";
    Result r = wait(start(train({"--steps", "2", flag, dir})));
    EXPECT_EQ(r.exit_code, 2) << flag << "\n" << r.output;
    EXPECT_NE(r.output.find(std::string(flag) + " " + dir + ": ends in '/', a directory's name; expected a "
                            "file path"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("step 1/"), std::string::npos) << flag << " checked too late:\n" << r.output;
  }
}

// An export into the model directory the run starts from would overwrite its weights; into the
// checkpoint directory it would mix a model into the checkpoints: both refused before start-up
// (a copy of the model, so a regression cannot overwrite the shared fixture).
TEST(OutputChecks, AnExportOverTheModelOrIntoTheCheckpointDirIsRefused) {
  const std::string m = tmpDir("model-copy"), ck = tmpDir("ck-export");
  std::system(("cp -r " + stories() + " " + m + " && mkdir -p " + ck).c_str());
  const std::string before = readFile(m + "/model.safetensors");
  ASSERT_FALSE(before.empty());
  std::vector<std::string> a = train({"--steps", "2", "--export", m + "/."});
  *(std::find(a.begin(), a.end(), "--model") + 1) = m;
  Result r = wait(start(a));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_EQ(countOccurrences(r.output, "is the --model directory the run starts from"), 1) << r.output;
  EXPECT_EQ(r.output.find("step 1/"), std::string::npos) << r.output;
  EXPECT_TRUE(readFile(m + "/model.safetensors") == before) << "the model was overwritten";
  Result c = wait(start(train({"--steps", "2", "--checkpoint-dir", ck, "--export", ck})));
  EXPECT_EQ(c.exit_code, 2) << c.output;
  EXPECT_EQ(countOccurrences(c.output, "is also the --checkpoint-dir"), 1) << c.output;
  // the same directory not made yet, spelt two ways
  const std::string fresh = tmpDir("ck-export-new");
  Result f = wait(start(train({"--steps", "2", "--checkpoint-dir", fresh, "--export", fresh + "/"})));
  EXPECT_EQ(f.exit_code, 2) << f.output;
  EXPECT_EQ(countOccurrences(f.output, "is also the --checkpoint-dir"), 1) << f.output;
  EXPECT_FALSE(std::filesystem::exists(fresh)) << "the refused run left " << fresh << " behind";
  std::system(("rm -rf " + m + " " + ck + " " + fresh).c_str());
}

// Outputs over an input or over each other (break-it helper): --metrics over the --config
// file (the job file was replaced by metrics), --metrics and --trace one file, --metrics on a
// file the export writes or on the --checkpoint-dir's `latest`: refused before the first step,
// the file left as it was. A metrics file beside the checkpoints is fine.
TEST(OutputChecks, OutputsOverTheConfigOrEachOtherAreRefused) {
  const std::string d = tmpDir("outputs-over");
  std::system(("rm -rf " + d + " && mkdir -p " + d).c_str());
  const std::string cfg = d + "/job.toml";
  { std::ofstream(cfg) << "steps = 2\n"; }
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--config", cfg, "--metrics", cfg}, "--metrics " + cfg + " is the --config file the run reads"},
      {{"--metrics", d + "/m.jsonl", "--trace", d + "/./m.jsonl"}, "--metrics and --trace are the same file"},
      {{"--export", d + "/ex", "--metrics", d + "/ex/config.json"}, "is one of the files the export writes (or clears of an earlier model) in --export " + d + "/ex"},
      {{"--checkpoint-dir", d + "/ck", "--metrics", d + "/ck/latest"}, "is the --checkpoint-dir's own file latest"}};
  for (const auto& [args, want] : cases) {
    Result r = wait(start(train(args)));
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_EQ(countOccurrences(r.output, want), 1) << want << "\n" << r.output;
    EXPECT_EQ(r.output.find("step 1/"), std::string::npos) << r.output;
  }
  EXPECT_EQ(readFile(cfg), "steps = 2\n");
  Result ok = wait(start(train({"--steps", "2", "--checkpoint-dir", d + "/ck", "--metrics", d + "/ck/metrics.jsonl"})));
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
  std::system(("rm -rf " + d).c_str());
}

// An output path that cannot be written is refused before the data is read: tokenising a
// large text corpus takes minutes, and the check used to come after it.
TEST(OutputChecks, AnUnwritableExportIsRefusedBeforeTheCorpusIsTokenised) {
  Result r = wait(start({SLIDEDP_MPIRUN_BIN, "--oversubscribe", "--bind-to", "none", "-np", "3",
                         SLIDEDP_WORKER_BIN, "--device", "cpu", "--model", stories(), "--data",
                         sharedDir() + "/data/kjv.txt", "--batch-size", "2", "--seq-len", "64",
                         "--steps", "2", "--export", "/proc/slidedp-no/out"}));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_EQ(countOccurrences(r.output, "--export /proc/slidedp-no/out: the directory cannot be created"), 1)
      << r.output;
  EXPECT_EQ(r.output.find("data: text"), std::string::npos) << "the corpus was read first:\n" << r.output;
}

// Item 2: the disk space the checkpoints will take is compared with the free space up front.
TEST(OutputChecks, TooLittleDiskSpaceForTheCheckpointsIsRefusedWithNeededAndFreeBytes) {
  const std::string d = tmpDir("space");
  // 10^8 checkpoints of ~3 MB, all kept: ~300 TB.
  Result r = wait(start(train({"--steps", "100000000", "--checkpoint-dir", d, "--checkpoint-every",
                               "1", "--keep-checkpoints", "0"})));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("not enough disk space"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("they need"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("free"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("--keep-checkpoints"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("step 1/"), std::string::npos) << r.output;
  // Keeping 2 of them fits.
  Result ok = wait(start(train({"--steps", "3", "--checkpoint-dir", d, "--checkpoint-every", "1",
                                "--overwrite-checkpoints"})));
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
  std::system(("rm -rf " + d).c_str());
}

// Item 7: settings that cannot work are refused before start-up, once, naming the flag.
// A damaged weight file of --model is named before the data is read and the host state is
// allocated (its header is checked up front; the weights themselves are read at start-up).
TEST(EarlyChecks, ADamagedWeightFileIsNamedBeforeTheDataLoad) {
  const std::string m = fmt::format("/tmp/slidedp-systest-badmodel-{}", getpid());
  std::system(fmt::format("rm -rf {} && cp -r {} {} && truncate -s 100000 {}/model.safetensors", m,
                          stories(), m, m).c_str());
  Result r = wait(start({SLIDEDP_MPIRUN_BIN, "--oversubscribe", "--bind-to", "none", "-np", "3",
                         SLIDEDP_WORKER_BIN, "--device", "cpu", "--model", m, "--batch-size", "4",
                         "--seq-len", "64", "--steps", "2", "--data", sharedDir() + "/data/kjv.txt"}));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_EQ(countOccurrences(r.output, m + "/model.safetensors: tensor 'model.embed_tokens.weight'"), 1) << r.output;
  EXPECT_NE(r.output.find("file truncated?"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("data: text"), std::string::npos) << "the corpus was read first\n" << r.output;
  EXPECT_EQ(r.output.find("host memory:"), std::string::npos) << r.output;
  std::system(("rm -rf " + m).c_str());
}

TEST(EarlyChecks, BadSettingsAreRefusedBeforeStartUpAndPrintedOnce) {
  const std::string ref = "reference:" + sharedDir() + "/reference/stories260K_kjv.reference.safetensors";
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--steps", "2", "--batch-size", "1"}, "--batch-size 1 is smaller than the number of workers (2)"},
      // 2^58 rows x 64 tokens once wrapped the host buffers' size to 0 B and crashed a worker
      {{"--steps", "2", "--batch-size", "288230376151711744"},
       "--batch-size 288230376151711744 x --seq-len 256 is more than 2^40 tokens per step"},
      {{"--steps", "2", "--route-sweep", "replicated/cpu@9223372036854775807"},
       "@9223372036854775807 rows x --seq-len 256 is more than 2^40 tokens per step"},
      {{"--steps", "2", "--beta1", "1.5"}, "--beta1 must be in [0, 1)"},
      {{"--steps", "2", "--beta2", "-0.1"}, "--beta2 must be in [0, 1)"},
      {{"--steps", "2", "--eps", "0"}, "--eps must be a finite number > 0"},
      {{"--steps", "2", "--weight-decay", "-1"}, "--weight-decay must be"},
      {{"--steps", "2", "--lr", "-1"}, "--lr must be"},
      {{"--steps", "5", "--warmup", "10"}, "--warmup 10 is longer than the run (--steps 5)"},
      {{"--steps", "5", "--warmup", "5"}, "--warmup 5 is as long as the run (--steps 5): the learning rate "
                                          "would never reach --lr (it does at step warmup + 1).\nHINT: --warmup 4 or fewer"},
      {{"--steps", "2", "--gradient-accumulation-steps", "0"}, "--gradient-accumulation-steps must be >= 1"},
      {{"--steps", "2", "--gradient-accumulation-steps", "99999999999999999999"},
       "--gradient-accumulation-steps 9223372036854775807 is beyond 999999999"},
      // @rows sizes synthetic batches only: with a data file a variant would run other rows
      {{"--steps", "2", "--data", sharedDir() + "/data/kjv.txt", "--route-sweep", "replicated/cpu@4"},
       "--route-sweep item 'replicated/cpu@4': @4 sets the rows of synthetic batches, and this run reads --data"},
      {{"--steps", "2", "--route-sweep", "replicated/cpu+ga3@4"},
       "--route-sweep item 'replicated/cpu+ga3@4': 3 gradient accumulation steps need at least that many rows"},
      {{"--steps", "2", "--route-sweep", "replicated/cpu+ga0"},
       "--route-sweep item 'replicated/cpu+ga0': '+ga0': +gaN takes a whole number of gradient accumulation steps from 1 to 999999999"},
      {{"--steps", "2", "--route-sweep", "replicated/cpu+ga"},
       "--route-sweep item 'replicated/cpu+ga': '+ga': +gaN takes a whole number"},
      {{"--steps", "2", "--route-sweep", "replicated/cpu+ga2+ga1"}, "--route-sweep item 'replicated/cpu+ga2+ga1': give +gaN once"},
      {{"--steps", "2", "--route-sweep", "replicated/cpu+clip+clip"}, "--route-sweep item 'replicated/cpu+clip+clip': give +clip once"},
      {{"--steps", "2", "--route-sweep", "replicated/cpu, sharded/cpu"},
       "--route-sweep item ' sharded/cpu' holds a space: the items are separated by commas alone.\nHINT: --route-sweep \"replicated/cpu,sharded/cpu\""},
      {{"--steps", "2", "--route-sweep", "replicated/cpu,,sharded/cpu"}, "has an empty item"},
      {{"--steps", "2", "--batch-size", "4", "--gradient-accumulation-steps", "3"},
       "--gradient-accumulation-steps 3 needs at least that many rows on every worker, but --batch-size 4 "
       "over 2 worker(s) gives some only 2.\nHINT: --gradient-accumulation-steps 2 or fewer, or --batch-size 6 or more"},
      {{"--steps", "2", "--steps", "3"}, "--steps was given 2 times"},
      {{"--steps", "2", "--seed", "-1"}, "--seed: must be a whole number from 0 to 2^64 - 1"},
      {{"--steps", "2", "--data", ref, "--seq-len", "32"}, "holds batches of 4 rows x 64 tokens, but --seq-len 32 was asked for"},
      {{"--steps", "2", "--layers", "3"}, "--layers sizes the start-up self-check"},
      {{"--steps", "2", "--fail-rank", "1"}, "--fail-rank applies to the start-up self-check only"},
      {{"--steps", "2", "--hold", "30"}, "--hold applies to the start-up self-check only"},
      {{"--steps", "3", "--trace", "/tmp/slidedp-never.json", "--trace-step", "99"},
       "--trace-step 99 is after the run's last step (--steps 3)"},
      {{"--steps", "2", "--route-sweep", "sharded/cpu+offload"},
       "--route-sweep item 'sharded/cpu+offload': --offload-activations (+offload) applies to GPU workers only"},
      {{"--steps", "2", "--gpu-profile", "/tmp/slidedp-never.json"},
       "--gpu-profile profiles GPU workers, and this run's workers are on the CPU"},
      {{"--steps", "3", "--gpu-profile", "/tmp/slidedp-never.json", "--trace-step", "7"},
       "--trace-step 7 is after the run's last step (--steps 3)"},
      {{"--steps", "2", "--memory-snapshot", "/tmp/slidedp-never.pickle"},
       "--memory-snapshot records the CUDA caching allocator of GPU workers, and this run's workers are on the CPU"},
      {{"--steps", "3", "--memory-snapshot", "/tmp/slidedp-never.pickle", "--trace-step", "5"},
       "--trace-step 5 is after the run's last step (--steps 3)"},
      {{"--steps", "2", "--resume", "auto"}, "--resume auto continues from --checkpoint-dir"},
      {{"--steps", "2", "--resume", "/nonexistent/ckpt"}, "/nonexistent/ckpt does not exist"},
      {{"--steps", "2", "--checkpoint-every", "1"}, "--checkpoint-every 1 needs a --checkpoint-dir"},
      {{"--steps", "2", "--checkpoint-write-rate", "50", "--checkpoint-mode", "blocking"},
       "--checkpoint-write-rate 50 paces streamed checkpoints, but --checkpoint-mode blocking"},
      {{"--steps", "2", "--checkpoint-write-rate", "-5"}, "must be 0 (uncapped) or a number of MB/s from 1 to 1e9"},
      {{"--steps", "2", "--checkpoint-write-rate", "1e-300"}, "must be 0 (uncapped) or a number of MB/s from 1 to 1e9"},
      // Deadlines in seconds: finite and at most 1e9, so the waits' nanosecond sums cannot overflow.
      {{"--steps", "2", "--wait-timeout", "1e12"}, "--wait-timeout: seconds must be a finite number >= 0 and at most 1e9, got 1e12"},
      {{"--steps", "2", "--wait-timeout", "nan"}, "--wait-timeout: seconds must be a finite number >= 0 and at most 1e9, got nan"},
      {{"--steps", "2", "--heartbeat-timeout", "0"}, "--heartbeat-timeout: seconds must be a finite number > 0"},
      {{"--steps", "2", "--stall-timeout", "inf"}, "--stall-timeout: seconds must be a finite number > 0"},
      {{"--steps", "2", "--wait-timeout", "1e-300"}, "--wait-timeout: 1e-300 s is too short to tell a live peer from a dead one: at least 1 s"},
      {{"--steps", "2", "--heartbeat-timeout", "0.001"}, "--heartbeat-timeout: 0.001 s is too short"},
      // An empty value (an unset shell variable) where the default is not empty: CLI11 read it as 0.
      {{"--steps", "2", "--checkpoint-every", ""}, "--checkpoint-every: an empty value (an unset shell variable?)"},
      {{"--steps", "2", "--checkpoint-staging", "0x10"}, "must be auto, or a number of GiB from 0 to 1e9"},
      {{"--steps", "2", "--checkpoint-staging", " 1"}, "must be auto, or a number of GiB from 0 to 1e9"},
      // Refused before the data is read (they used to come after tokenizing, or from the
      // worker's constructor under an internal name).
      {{"--steps", "2", "--data", sharedDir() + "/data/kjv.txt", "--eval-data", sharedDir() + "/data/kjv.txt",
        "--eval-every", "-1"}, "--eval-every and --eval-batches must be >= 0 (got -1 and"},
      {{"--steps", "2", "--data", sharedDir() + "/data/kjv.txt", "--window", "1"}, "--window must be >= 2"},
      // Settings that did nothing without what they apply to (the run ignored them silently).
      {{"--steps", "2", "--data", sharedDir() + "/data/kjv.txt", "--eval-every", "2"},
       "--eval-every 2 without --eval-data: there is no held-out data"},
      {{"--steps", "2", "--data", sharedDir() + "/data/kjv.txt", "--eval-batches", "3"},
       "--eval-batches 3 without --eval-data"},
      {{"--steps", "2", "--eval-data", sharedDir() + "/data/kjv.txt"},
       "--eval-data needs --data to be a data file (not synthetic)"},
      {{"--steps", "2", "--data", sharedDir() + "/data/kjv.txt", "--doc-start-token", "512"},
       "--doc-start-token 512 is not a token of the model (its vocabulary is 0..511)"},
      {{"--steps", "2", "--data", sharedDir() + "/data/kjv.txt", "--doc-start-token", "-2"},
       "--doc-start-token must be a token id >= 0, or -1 (none), got -2"},
      // GPU-only variants on CPU workers (they came after the data load).
      {{"--steps", "2", "--data", sharedDir() + "/data/kjv.txt", "--route-sweep", "replicated/cpu,replicated/cpu+offload"},
       "--route-sweep item 'replicated/cpu+offload': --offload-activations (+offload) applies to GPU workers only"},
      {{"--steps", "2", "--data", sharedDir() + "/data/kjv.txt", "--delivery", "sharded-ipc"},
       "route sharded-ipc/cpu: the CUDA IPC routes (sharded-ipc, gpu-ipc) need GPU workers"},

      {{"--steps", "2", "--data", sharedDir() + "/data/kjv.txt", "--shm-name", "a/b"},
       "'a/b' cannot name a file in /dev/shm: it contains '/'"},
      {{"--steps", "2", "--shm-name", std::string(300, 'x')}, "it is 300 bytes long, more than 240"},
      {{"--steps", "2", "--gemm-algorithm", "fastest"}, "--gemm-algorithm: fastest not in {library,timed}"},
  };
  for (const auto& [args, want] : cases) {
    std::vector<std::string> a = {SLIDEDP_MPIRUN_BIN, "--oversubscribe", "--bind-to", "none", "-np",
                                  "3", SLIDEDP_WORKER_BIN, "--device", "cpu", "--model", stories(),
                                  "--chunk-numel", "5000", "--leader-threads", "1"};
    a.insert(a.end(), args.begin(), args.end());
    Result r = wait(start(a));
    std::string line;
    for (const auto& a : args) line += a + " ";
    EXPECT_EQ(r.exit_code, 2) << line << "\n" << r.output;
    EXPECT_EQ(countOccurrences(r.output, want), 1) << line << "\n" << r.output;
    EXPECT_EQ(r.output.find("step 1/"), std::string::npos) << line << "\n" << r.output;
    EXPECT_EQ(r.output.find("MPI_ABORT"), std::string::npos) << line << "\n" << r.output;
    EXPECT_EQ(r.output.find("data: text"), std::string::npos) << "the corpus was read first: " << line << "\n"
                                                               << r.output;
  }
  // Reference data without --batch-size/--seq-len: its own shape, at most its stored steps.
  auto reference = [&](const char* steps) {
    return wait(start({SLIDEDP_MPIRUN_BIN, "--oversubscribe", "--bind-to", "none", "-np", "3",
                       SLIDEDP_WORKER_BIN, "--device", "cpu", "--model", stories(), "--data", ref,
                       "--steps", steps, "--chunk-numel", "5000", "--leader-threads", "1"}));
  };
  Result wraps = reference("5");
  EXPECT_EQ(wraps.exit_code, 2) << wraps.output;
  EXPECT_NE(wraps.output.find("holds 3 step(s) of batches but the run has 5 steps"), std::string::npos)
      << wraps.output;
  EXPECT_EQ(wraps.output.find("step 1/"), std::string::npos) << wraps.output;
  Result ok = reference("3");
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
  EXPECT_NE(ok.output.find("step 3/3"), std::string::npos) << ok.output;
}

// Item 6: the printed and saved configuration is the one that ran, and feeding the saved one
// back runs the same; --help shows the real defaults.
TEST(Configuration, SavedConfigurationMatchesTheRunAndFeedsBack) {
  const std::string d = tmpDir("config");
  Result r = wait(start(train({"--steps", "1", "--checkpoint-dir", d})));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string state = readFile(d + "/step-00000001/trainer_state.json");
  const std::string printed = r.output.substr(0, r.output.find("node(s)"));
  for (const std::string& text : {printed, state}) {
    EXPECT_NE(text.find("shuffle=true"), std::string::npos) << text;
    EXPECT_NE(text.find("export-bf16=true"), std::string::npos) << text;
    EXPECT_EQ(text.find("\nlayers="), std::string::npos) << "the self-check's shape shown:\n" << text;
    EXPECT_EQ(text.find("\nhidden="), std::string::npos) << text;
  }
  // The saved configuration, fed back as a config file, resolves to the same configuration.
  const size_t at = r.output.find("resolved configuration:\n");
  ASSERT_NE(at, std::string::npos);
  const std::string cfg_text = r.output.substr(at + 24, r.output.find("\n[", at) - at - 24);
  const std::string cfg = d + ".toml";
  { std::ofstream(cfg) << cfg_text; }
  Result again = wait(start({SLIDEDP_MPIRUN_BIN, "--oversubscribe", "--bind-to", "none", "-np", "3",
                             SLIDEDP_WORKER_BIN, "--config", cfg, "--checkpoint-dir", d + ".2"}));
  ASSERT_EQ(again.exit_code, 0) << cfg_text << "\n" << again.output;
  EXPECT_NE(again.output.find("shuffle=true"), std::string::npos) << again.output;
  EXPECT_NE(again.output.find("export-bf16=true"), std::string::npos) << again.output;
  // A misspelt key of a config file is refused before start-up, once, naming it and the
  // closest key (it was dropped silently: the run went on with the default).
  const std::string typo = d + ".typo.toml";
  { std::ofstream(typo) << cfg_text << "\nwarmupp = 3\n"; }
  Result bad = wait(start({SLIDEDP_MPIRUN_BIN, "--oversubscribe", "--bind-to", "none", "-np", "3",
                           SLIDEDP_WORKER_BIN, "--config", typo}));
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_EQ(countOccurrences(bad.output, "unknown key 'warmupp' in --config " + typo +
                                             " (did you mean warmup?)"), 1) << bad.output;
  EXPECT_EQ(bad.output.find("resolved configuration"), std::string::npos) << bad.output;
  // A value whose quote is not closed: CLI11 keeps the quote in the value (the run then failed
  // on a model path beginning with '"'); refused before start-up, naming the file, line and key.
  const std::string unclosed = d + ".unclosed.toml";
  { std::ofstream(unclosed) << "steps = 1\nmodel = \"" << stories() << "\n"; }
  Result quote = wait(start({SLIDEDP_MPIRUN_BIN, "--oversubscribe", "--bind-to", "none", "-np", "3",
                             SLIDEDP_WORKER_BIN, "--config", unclosed}));
  EXPECT_EQ(quote.exit_code, 2) << quote.output;
  EXPECT_EQ(countOccurrences(quote.output, "--config " + unclosed + " line 2: the value of 'model' opens a "
                                               "quote (\") that the line does not close"), 1) << quote.output;
  EXPECT_EQ(quote.output.find("resolved configuration"), std::string::npos) << quote.output;
  // The file as a bare word (e.g. after launcher/slidedp-run's --): refused, saying how to give it.
  Result bare = wait(start({SLIDEDP_MPIRUN_BIN, "--oversubscribe", "--bind-to", "none", "-np", "3",
                            SLIDEDP_WORKER_BIN, cfg}));
  EXPECT_EQ(bare.exit_code, 2) << bare.output;
  EXPECT_EQ(countOccurrences(bare.output, "HINT: " + cfg + " is a file: a configuration file is given as "
                                              "--config " + cfg), 1) << bare.output;
  Result off = wait(start(train({"--steps", "1", "--no-shuffle", "--export-fp32"})));
  ASSERT_EQ(off.exit_code, 0) << off.output;
  EXPECT_NE(off.output.find("shuffle=false"), std::string::npos) << off.output;
  EXPECT_NE(off.output.find("export-bf16=false"), std::string::npos) << off.output;
  Result help = wait(start({SLIDEDP_WORKER_BIN, "--help"}));
  EXPECT_EQ(help.exit_code, 0) << help.output;
  EXPECT_EQ(help.output.find("{false}\n"), std::string::npos) << help.output;
  EXPECT_NE(help.output.find("--no-shuffle{false}=true"), std::string::npos) << help.output;
  EXPECT_NE(help.output.find("--export-fp32{false}=true"), std::string::npos) << help.output;
  std::system(("rm -rf " + d + " " + d + ".*").c_str());
}

// --metrics and --trace used to overwrite whatever they named, the run's own inputs included
// (a model's weights, the data file). An existing file that the run reads, or inside a
// directory it reads (the --model directory, a checkpoint of the --checkpoint-dir), is refused
// before start-up and left as it was; a new file beside them is fine.
TEST(Outputs, AMetricsOrTraceFileIsNeverAnInputOfTheRun) {
  const std::string d = tmpDir("inputs");
  const std::string model = d + "/model", data = d + "/kjv.txt", ckpt = d + "/ckpt";
  std::system(("mkdir -p " + d + " " + ckpt + "/step-00000001 && cp -r " + stories() + " " + model +
               " && cp " + sharedDir() + "/data/kjv.txt " + data + " && echo {} > " + ckpt +
               "/step-00000001/trainer_state.json && echo x > " + ckpt + "/step-00000001/optimizer.safetensors")
                  .c_str());
  const std::string weights = readFile(model + "/model.safetensors");
  auto run = [&](std::vector<std::string> extra) {
    std::vector<std::string> a = {SLIDEDP_MPIRUN_BIN, "--oversubscribe", "--bind-to", "none", "-np", "3",
                                  SLIDEDP_WORKER_BIN, "--device", "cpu", "--model", model, "--data", data,
                                  "--batch-size", "4", "--seq-len", "32", "--steps", "1"};
    a.insert(a.end(), extra.begin(), extra.end());
    return wait(start(a));
  };
  Result w = run({"--metrics", model + "/../model/model.safetensors"});
  EXPECT_EQ(w.exit_code, 2) << w.output;
  EXPECT_EQ(countOccurrences(w.output, "is a file inside the --model directory " + model +
                                           ": the run would overwrite it"), 1) << w.output;
  EXPECT_TRUE(readFile(model + "/model.safetensors") == weights);
  Result t = run({"--trace", data});
  EXPECT_EQ(t.exit_code, 2) << t.output;
  EXPECT_EQ(countOccurrences(t.output, "--trace " + data + " is the --data file the run reads"), 1) << t.output;
  Result c = run({"--checkpoint-dir", ckpt, "--overwrite-checkpoints", "--metrics",
                  ckpt + "/step-00000001/optimizer.safetensors"});
  EXPECT_EQ(c.exit_code, 2) << c.output;
  EXPECT_EQ(countOccurrences(c.output, "is a file inside the --checkpoint-dir directory"), 1) << c.output;
  Result ok = run({"--metrics", model + "/metrics.jsonl"});
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
  // again, the file now there (a resume appends to it): still the user's own file
  Result again = run({"--metrics", model + "/metrics.jsonl"});
  EXPECT_EQ(again.exit_code, 0) << again.output;
  std::system(("rm -rf " + d).c_str());
}

// A step whose gradient norm is non-finite (a finite loss: --lr 50 blows the weights up in its
// update) used to be checkpointed: `latest` then named a checkpoint of NaN weights, and with
// --keep-checkpoints 1 the good one before it was pruned. The job now ends at that step: no
// checkpoint of it, none still streaming completed (its weights gave the non-finite gradient),
// `latest` (if any) naming an earlier step (one committed before the failing step ended).
TEST(Divergence, ANonFiniteGradientNormEndsTheJobBeforeItsCheckpoint) {
  const std::string d = tmpDir("diverged");
  Result r = wait(start(train({"--lr", "50", "--steps", "10", "--checkpoint-dir", d,
                               "--checkpoint-every", "1", "--keep-checkpoints", "1"})));
  EXPECT_NE(r.exit_code, 0) << r.output;
  const size_t at = r.output.find("(diverged); no checkpoint of it is written");
  ASSERT_NE(at, std::string::npos) << r.output;
  const size_t s = r.output.rfind("step ", at);
  const int failed = std::atoi(r.output.c_str() + s + 5);
  ASSERT_GE(failed, 2) << r.output.substr(s, 200);
  // the loss of that step was finite: the norm is what ended it
  EXPECT_NE(r.output.substr(s, at - s).find("the gradient norm is "), std::string::npos) << r.output.substr(s, 200);
  EXPECT_EQ(countOccurrences(r.output, "HINT: a lower --lr, --max-grad-norm to clip"), 1) << r.output;
  // mpirun's SIGTERM to the other ranks is no stop request: nothing is checkpointed "at the
  // end of this step" (they said so after a failure, through the launcher)
  EXPECT_EQ(r.output.find("stop requested"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(d + fmt::format("/step-{:08d}", failed)));
  if (std::filesystem::exists(d + "/latest")) {
    const std::string latest = readFile(d + "/latest");
    EXPECT_LT(std::atoi(latest.c_str() + 5), failed) << latest;  // one committed before the step ended
  }
  std::system(("rm -rf " + d + " " + d + ".*").c_str());
}

// A run that sets training options without a model used to run the start-up self-check and
// exit 0 (e.g. `--steps 5 --lr 0.01`, or `--resume DIR` alone before it read the saved flags);
// an unknown flag got CLI11's "not expected: 128 --seq-lenn" with no suggestion, and a launcher
// option given after the launcher's -- no pointer back. Each is refused once, before start-up.
TEST(CommandLine, TrainingFlagsWithoutAModelAndUnknownFlagsAreRefusedWithTheirFix) {
  const std::vector<std::string> mpi = {SLIDEDP_MPIRUN_BIN, "--oversubscribe", "--bind-to", "none",
                                        "-np", "3", SLIDEDP_WORKER_BIN, "--device", "cpu"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> c = mpi;
    c.insert(c.end(), extra.begin(), extra.end());
    return c;
  };
  Result alone = wait(start(with({"--steps", "5", "--lr", "0.01"})));
  EXPECT_EQ(alone.exit_code, 2) << alone.output;
  EXPECT_EQ(countOccurrences(alone.output, "slidedp: error: --steps, --lr train a model, but neither "
                                           "--model nor --model-config was given"), 1) << alone.output;
  EXPECT_EQ(countOccurrences(alone.output, "to resume a run: --resume DIR alone (its flags come from the "
                                           "checkpoint)"), 1) << alone.output;
  EXPECT_EQ(alone.output.find("segments removed"), std::string::npos) << alone.output;
  // `--resume DIR` alone reads the run's flags from the checkpoint (test_training_job); a DIR
  // that is no checkpoint is said once, before start-up.
  Result missing = wait(start(with({"--resume", "/tmp/no-such-run", "--steps", "5"})));
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
  EXPECT_EQ(countOccurrences(missing.output, "slidedp: error: /tmp/no-such-run does not exist"), 1) << missing.output;
  EXPECT_EQ(missing.output.find("segments removed"), std::string::npos) << missing.output;
  // A default value on the command line, and a saved configuration's keys (every key, flags
  // included) in a --config file, are no training request.
  Result self = wait(start(with({"--steps", "10", "--hold", "0"})));
  EXPECT_EQ(self.exit_code, 0) << self.output;
  EXPECT_NE(self.output.find("segments removed"), std::string::npos) << self.output;
  const std::string saved = fmt::format("/tmp/slidedp-selfcheck-{}.toml", getpid());
  { std::ofstream(saved) << "steps=10\nshuffle=true\noffload-activations=false\nexport-bf16=true\n"; }
  Result fed = wait(start(with({"--config", saved})));
  EXPECT_EQ(fed.exit_code, 0) << fed.output;
  EXPECT_NE(fed.output.find("segments removed"), std::string::npos) << fed.output;
  std::remove(saved.c_str());
  Result typo = wait(start(train({"--seq-lenn", "128"})));
  EXPECT_EQ(typo.exit_code, 2) << typo.output;
  EXPECT_EQ(countOccurrences(typo.output, "unknown option --seq-lenn (did you mean --seq-len?)"), 1) << typo.output;
  Result launcher = wait(start(train({"--cpu-workers", "2"})));
  EXPECT_EQ(launcher.exit_code, 2) << launcher.output;
  EXPECT_EQ(countOccurrences(launcher.output, "--cpu-workers is an option of launcher/slidedp-run, not of "
                                              "slidedp_worker"), 1) << launcher.output;
  EXPECT_EQ(countOccurrences(launcher.output, "HINT: put it before --"), 1) << launcher.output;
}

// Item 5: a crashed job's segment under a custom --shm-name is recognised as stale (its owner
// is gone) and removed at the next start, not refused as "in use"; so are Open MPI's files of
// a job whose mpirun was SIGKILLed.
TEST(StaleSegments, ACustomShmNameOfACrashedJobIsRemovedAtTheNextStart) {
  const std::string name = fmt::format("custom-{}-seg", getpid());
  const std::string pids_file = fmt::format("/tmp/{}.pids", name);
  std::remove(pids_file.c_str());
  auto job = [&](std::vector<std::string> extra) {
    std::vector<std::string> a = {SLIDEDP_MPIRUN_BIN, "--oversubscribe", "--bind-to", "none", "-np",
                                  "3", SLIDEDP_WORKER_BIN, "--device", "cpu", "--shm-name", name};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };
  const auto before = shmFiles("vader_segment.");
  Proc p = start(job({"--pid-file", pids_file, "--hold", "120"}));
  const auto pids = waitForPids(pids_file, 3);
  ASSERT_EQ(pids.size(), 3u);
  waitUntilExists(name);
  ASSERT_TRUE(waitForText(p, "holding for", 60)) << readFile(p.log);  // the segment is published
  // A crash no handler sees: mpirun and every rank SIGKILLed (Open MPI's files stay too).
  kill(p.pid, SIGKILL);
  for (pid_t pid : pids) kill(pid, SIGKILL);
  wait(p, 60);
  ASSERT_TRUE(Segment::exists(name)) << "the crash should leave the segment behind";
  // The crashed job's Open MPI files: new since it started and mapped by no process (another
  // job starting meanwhile has its own mapped).
  std::vector<std::string> left;
  const std::string mapped = mappedShmPaths();
  for (const auto& f : shmFiles("vader_segment."))
    if (std::find(before.begin(), before.end(), f) == before.end() &&
        mapped.find("/dev/shm/" + f + "\n") == std::string::npos)
      left.push_back(f);
  for (const auto& f : left) {  // as if a minute had passed (younger ones may be in creation)
    const struct timespec old_times[2] = {{time(nullptr) - 120, 0}, {time(nullptr) - 120, 0}};
    utimensat(AT_FDCWD, ("/dev/shm/" + f).c_str(), old_times, 0);
  }
  Result next = wait(start(job({})));
  EXPECT_EQ(next.exit_code, 0) << next.output;
  EXPECT_NE(next.output.find("removed stale shared segment /dev/shm/" + name), std::string::npos)
      << next.output;
  EXPECT_FALSE(Segment::exists(name));
  for (const auto& f : left) {
    EXPECT_FALSE(exists("/dev/shm/" + f)) << f << " of the crashed job left\n" << next.output;
    EXPECT_NE(next.output.find("removed stale shared-memory file /dev/shm/" + f), std::string::npos);
  }
  std::printf("Open MPI files left by the crash and removed at the next start: %zu\n", left.size());
  // A file of that name that is not a slidedp segment is left alone, with a clear refusal.
  { std::ofstream(std::string("/dev/shm/") + name) << "someone else's\n"; }
  Result foreign = wait(start(job({})));
  EXPECT_EQ(foreign.exit_code, 2) << foreign.output;
  EXPECT_NE(foreign.output.find("is not a slidedp segment"), std::string::npos) << foreign.output;
  EXPECT_TRUE(Segment::exists(name));
  Segment::removeByName(name);
  std::remove(pids_file.c_str());
}

// Item 8: slidedp_generate answers bad input with a message, not a LibTorch backtrace.
TEST(Generate, BadPromptIdsAndEmptyPromptsAreClearErrors) {
  Result ids = wait(start({SLIDEDP_GENERATE_BIN, "--model", stories(), "--prompt-ids", "708,5000"}));
  EXPECT_EQ(ids.exit_code, 2) << ids.output;
  EXPECT_NE(ids.output.find("id 708 (position 0) is outside the model's vocabulary [0, 512)"),
            std::string::npos) << ids.output;
  EXPECT_EQ(ids.output.find("frame #"), std::string::npos) << ids.output;
  Result empty = wait(start({SLIDEDP_GENERATE_BIN, "--model", stories(), "--no-bos"}));
  EXPECT_EQ(empty.exit_code, 2) << empty.output;
  EXPECT_NE(empty.output.find("HINT: pass --prompt TEXT or --prompt-ids"), std::string::npos) << empty.output;
  Result flag = wait(start({SLIDEDP_GENERATE_BIN, "--model", stories(), "--top-p", "0"}));
  EXPECT_EQ(flag.exit_code, 2) << flag.output;
  EXPECT_NE(flag.output.find("--top-p must be in (0, 1]"), std::string::npos) << flag.output;
  Result ok = wait(start({SLIDEDP_GENERATE_BIN, "--model", stories(), "--prompt-ids", "1,403",
                          "--max-new-tokens", "4"}));
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
  Result file = wait(start({SLIDEDP_GENERATE_BIN, "--model", stories() + "/config.json"}));
  EXPECT_EQ(file.exit_code, 2) << file.output;
  EXPECT_NE(file.output.find("is a file; it takes the model's directory (config.json, *.safetensors, "
                             "tokenizer.model)\nHINT: --model " + stories()), std::string::npos) << file.output;
  // blanks, or the list as --print-ids prints it, are the same prompt
  for (const char* same : {"1 403", "[1, 403]"}) {
    Result r = wait(start({SLIDEDP_GENERATE_BIN, "--model", stories(), "--prompt-ids", same, "--max-new-tokens", "4",
                           "--print-ids"}));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("prompt ids: [1, 403]"), std::string::npos) << same << "\n" << r.output;
  }
  // Conflicting or malformed prompts: refused, not silently one of them or BOS alone.
  const std::vector<std::pair<std::vector<std::string>, std::string>> bad = {
      {{"--prompt", "hi", "--prompt-ids", "1"}, "--prompt excludes --prompt-ids"},
      {{"--prompt-ids", "1,,2"}, "an empty item"},
      {{"--prompt-ids", "1,"}, "an empty item"},
      // digits up to a bad character were taken as the id, the rest dropped ("1.5" -> 1)
      {{"--prompt-ids", "1.5"}, "'1.5' is not a token id"},
      {{"--prompt-ids", "1;2"}, "'1;2' is not a token id"},
      {{"--prompt", "caf\xe9"}, "--prompt is not UTF-8 text: a UTF-8 character cut off by the end at byte 3"},
      {{"--prompt-ids", ""}, "--prompt-ids is empty"}};
  for (const auto& [args, want] : bad) {
    std::vector<std::string> a = {SLIDEDP_GENERATE_BIN, "--model", stories()};
    a.insert(a.end(), args.begin(), args.end());
    Result r = wait(start(a));
    EXPECT_EQ(r.exit_code, 2) << args[0] << "\n" << r.output;
    EXPECT_NE(r.output.find(want), std::string::npos) << r.output;
  }
  // A training checkpoint (step directory or the --checkpoint-dir) is not a model: how to
  // export one; a model whose tokenizer is tokenizer.json: the launcher's generate takes text.
  const std::string ck = tmpDir("generate-ckpt");
  std::system(("mkdir -p " + ck + "/step-00000002 && echo {} > " + ck + "/step-00000002/trainer_state.json && "
               "echo step-00000002 > " + ck + "/latest").c_str());
  for (const std::string& dir : {ck, ck + "/step-00000002"}) {
    Result r = wait(start({SLIDEDP_GENERATE_BIN, "--model", dir, "--prompt", "hi"}));
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find(dir + " is a training checkpoint, not a model directory"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("--export OUT (nothing is trained; the run's flags come from the checkpoint), then pass --model OUT"), std::string::npos) << r.output;
  }
  const std::string hf = ck + "/hf";
  std::system(("mkdir -p " + hf + " && cp " + stories() + "/config.json " + stories() + "/*.safetensors " +
               hf + "/ 2>/dev/null; echo {} > " + hf + "/tokenizer.json").c_str());
  Result text = wait(start({SLIDEDP_GENERATE_BIN, "--model", hf, "--prompt", "hi"}));
  EXPECT_EQ(text.exit_code, 2) << text.output;
  EXPECT_NE(text.output.find("launcher/slidedp-run generate --model DIR --prompt TEXT tokenises with it"),
            std::string::npos) << text.output;
  std::system(("rm -rf " + ck).c_str());
  // Past the model's context (512 positions): it says why it stopped short.
  Result full = wait(start({SLIDEDP_GENERATE_BIN, "--model", stories(), "--prompt-ids", "1",
                            "--max-new-tokens", "600", "--ignore-eos"}));
  EXPECT_EQ(full.exit_code, 0) << full.output;
  EXPECT_NE(full.output.find("stopped after 511 of --max-new-tokens 600: the prompt and the "
                             "generated tokens fill the model's context"), std::string::npos)
      << full.output.substr(0, 2000);
}

// With a tokenizer.model, slidedp_generate prints the text as it grows (a long generation
// showed nothing until its end), then completes its line;
// --print-ids adds the prompt's and the generated ids as tools/generate.py shows them.
TEST(Generate, TheTextIsPrintedAsItGrows) {
  Proc p = start({SLIDEDP_GENERATE_BIN, "--model", stories(), "--max-new-tokens", "511", "--ignore-eos",
                  "--print-ids"});  // the whole context: seconds here, the text's start after ~10 tokens
  ASSERT_TRUE(waitForText(p, "Once upon a time, there was a little girl", 60)) << readFile(p.log);
  int status = 0;
  EXPECT_EQ(waitpid(p.pid, &status, WNOHANG), 0) << "the text came only at the end";
  Result r = wait(p);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("\nprompt ids: [1]\ngenerated ids: ["), std::string::npos) << r.output;
  const size_t ids = r.output.find("generated ids: [");
  ASSERT_NE(ids, std::string::npos);
  EXPECT_EQ(countOccurrences(r.output.substr(ids), ", "), 510) << r.output.substr(ids);
  // the streamed text is the text once, on one line (40 tokens: before the story's end, after
  // which --ignore-eos lets it start again)
  Result s = wait(start({SLIDEDP_GENERATE_BIN, "--model", stories(), "--max-new-tokens", "40"}));
  EXPECT_EQ(s.exit_code, 0) << s.output;
  EXPECT_EQ(countOccurrences(s.output, "Once upon a time"), 1) << s.output;
  EXPECT_NE(s.output.find("\nOnce upon a time, there was a little girl named Lily. She loved to play outside in "
                          "the park. One day, she saw a big, r\n"), std::string::npos) << s.output;
}

// A resume with another model directory of the same shape passes the shape checks; the log says
// whose weights the run continues from, and whose config and tokenizer the export takes. A
// resume whose data cursor differs names a way that exists (not "start the data afresh"). One
// whose model has the checkpoint's parameter counts as another head layout is refused; one with
// another rope_theta is warned.
TEST(ResumeNotes, AnotherModelDirectoryIsNamedAndADataMismatchHintIsActionable) {
  const std::string d = tmpDir("resume-notes");
  const std::string other = d + ".model";
  const std::string kjv = sharedDir() + "/data/kjv.txt";
  std::system(("cp -r " + stories() + " " + other).c_str());
  Result first = wait(start(train({"--steps", "2", "--checkpoint-dir", d, "--data", kjv})));
  ASSERT_EQ(first.exit_code, 0) << first.output;
  std::vector<std::string> a = train({"--steps", "3", "--resume", d, "--checkpoint-dir", d, "--data", kjv});
  a[std::find(a.begin(), a.end(), stories()) - a.begin()] = other;
  Result moved = wait(start(a));
  EXPECT_EQ(moved.exit_code, 0) << moved.output;
  EXPECT_NE(moved.output.find("resuming a checkpoint of --model " + stories() + " with --model " + other),
            std::string::npos) << moved.output;
  Result same = wait(start(train({"--steps", "4", "--resume", d, "--checkpoint-dir", d, "--data", kjv})));
  EXPECT_EQ(same.exit_code, 0) << same.output;  // checkpoint 3 is the other directory's run
  std::vector<std::string> b = train({"--steps", "5", "--resume", d, "--checkpoint-dir", d, "--data", kjv});
  *(std::find(b.begin(), b.end(), std::string("--batch-size")) + 1) = "6";
  Result shape = wait(start(b));
  EXPECT_EQ(shape.exit_code, 2) << shape.output;
  EXPECT_EQ(shape.output.find("start the data afresh"), std::string::npos) << shape.output;
  EXPECT_NE(shape.output.find("start a new run with --model"), std::string::npos) << shape.output;
  // a model directory of another shape: refused before the data load, not "the shapes match"
  const std::string small = d + ".small";
  std::system(("cp -r " + stories() + " " + small + " && sed -i 's/\"num_hidden_layers\": 5/"
               "\"num_hidden_layers\": 2/' " + small + "/config.json").c_str());
  std::vector<std::string> c = train({"--steps", "5", "--resume", d, "--checkpoint-dir", d, "--data", kjv});
  c[std::find(c.begin(), c.end(), stories()) - c.begin()] = small;
  Result other_shape = wait(start(c));
  EXPECT_EQ(other_shape.exit_code, 2) << other_shape.output;
  EXPECT_NE(other_shape.output.find("the checkpoint holds a model of another shape"), std::string::npos)
      << other_shape.output;
  EXPECT_NE(other_shape.output.find("than this run's " + small), std::string::npos) << other_shape.output;
  EXPECT_EQ(other_shape.output.find("the shapes match"), std::string::npos) << other_shape.output;
  // the same parameter counts as another head layout (8 heads of 8 -> 4 heads of 16): refused;
  // another rope_theta (the same weights, another function): warned, and the run goes on
  const std::string heads = d + ".heads", theta = d + ".theta";
  std::system(("cp -r " + stories() + " " + heads + " && sed -i -e 's/\"num_attention_heads\": 8/"
               "\"num_attention_heads\": 4/' -e 's/\"num_key_value_heads\": 4/\"num_key_value_heads\": 2/' "
               "-e 's/\"head_dim\": 8/\"head_dim\": 16/' " + heads + "/config.json").c_str());
  std::system(("cp -r " + stories() + " " + theta + " && sed -i 's/\"rope_theta\": 10000.0/"
               "\"rope_theta\": 500000.0/' " + theta + "/config.json").c_str());
  std::vector<std::string> e = train({"--steps", "5", "--resume", d, "--checkpoint-dir", d, "--data", kjv});
  e[std::find(e.begin(), e.end(), stories()) - e.begin()] = heads;
  Result layout = wait(start(e));
  EXPECT_EQ(layout.exit_code, 2) << layout.output;
  EXPECT_NE(layout.output.find("the checkpoint was trained as another architecture than " + heads +
                               " (num_attention_heads 8 -> 4, num_key_value_heads 4 -> 2, head_dim 8 -> 16)"),
            std::string::npos) << layout.output;
  e[std::find(e.begin(), e.end(), heads) - e.begin()] = theta;
  Result rope = wait(start(e));
  EXPECT_EQ(rope.exit_code, 0) << rope.output;
  EXPECT_NE(rope.output.find(theta + " computes another function than the model the checkpoint was trained "
                             "as (rope_theta 10000 -> 500000)"), std::string::npos) << rope.output;
  std::system(("rm -rf " + d + " " + other + " " + small + " " + heads + " " + theta).c_str());
}

// Malformed --config files are named for what they are (a list or a value with a space, a
// [section]), not "given 2 times" or "unknown key 'training.++'".
TEST(ConfigFile, ListsSpacesAndSectionsGetTheirOwnMessage) {
  const std::string d = tmpDir("config-file");
  std::system(("mkdir -p " + d).c_str());
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"steps = [1, 2]\n", "--steps has 2 values in the --config file"},
      {"lr = 1e-3 garbage\n", "--lr has 2 values in the --config file"},
      {"[training]\nsteps = 2\n", "a [training] section; the keys are the flags' names at the top level"}};
  int i = 0;
  for (const auto& [text, want] : cases) {
    const std::string f = d + "/c" + std::to_string(i++) + ".toml";
    { std::ofstream(f) << text; }
    Result r = wait(start({SLIDEDP_WORKER_BIN, "--config", f, "--device", "cpu"}));
    EXPECT_EQ(r.exit_code, 2) << text << r.output;
    EXPECT_NE(r.output.find(want), std::string::npos) << text << r.output;
  }
  std::system(("rm -rf " + d).c_str());
}

// The data line says how far the run goes through the data (rows per epoch, epochs covered);
// a data set of fewer rows than one step's batch is warned (every step repeats its rows).
TEST(DataCoverage, TheEpochsAreSaidAndASetSmallerThanABatchIsWarned) {
  const std::string d = tmpDir("coverage");
  std::system(("mkdir -p " + d).c_str());
  const std::string small = d + "/small.jsonl";
  { std::ofstream(small) << "{\"input_ids\": [1, 5, 6, 7, 8]}\n{\"input_ids\": [1, 9, 10, 11]}\n"; }
  Result r = wait(start(train({"--steps", "3", "--data", small})));  // B 4, T 32: both in one row
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("data: 1 row(s) of T = 32 per epoch; the run's 3 step(s) of 4 row(s) cover 12 epoch(s)"),
            std::string::npos) << r.output;
  EXPECT_NE(r.output.find("fills 1 row(s) of T = 32, fewer than one step's --batch-size 4: every step repeats "
                          "rows of it"), std::string::npos) << r.output;
  const std::string kjv = sharedDir() + "/data/kjv.txt";
  Result big = wait(start(train({"--steps", "2", "--data", kjv})));
  EXPECT_EQ(big.exit_code, 0) << big.output;
  EXPECT_NE(big.output.find("per epoch; the run's 2 step(s) of 4 row(s) cover"), std::string::npos) << big.output;
  EXPECT_EQ(big.output.find("every step repeats rows"), std::string::npos) << big.output;
  std::system(("rm -rf " + d).c_str());
}
