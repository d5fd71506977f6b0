// Which of slidedp_worker's options hold a path (apps/path_options.h): `--resume DIR` alone takes
// a saved relative value of one from the directory the run started in (apps/resume_config.cpp),
// so a string option that is a path but not marked would be read from the wrong directory.
#include <CLI/CLI.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "apps/path_options.h"
#include "apps/worker_options.h"

namespace slidedp {
namespace {

std::vector<const CLI::Option*> allOptions(const CLI::App& app) {
  std::vector<const CLI::Option*> out = app.get_options();
  for (const CLI::App* group : app.get_subcommands({}))
    for (const CLI::Option* o : group->get_options()) out.push_back(o);
  return out;
}

// Every string option is either marked FILE/DIR or named here as a value that is not a path; a
// new string option must be put on one side.
TEST(PathOptions, EveryStringOptionIsAPathOrListedAsNone) {
  CLI::App app;
  WorkerOptions o;
  addWorkerOptions(app, o);
  const std::vector<std::string> not_paths = {
      "--device", "--shm-name", "--grad-dtype", "--activations", "--attention", "--checkpoint-io",
      "--checkpoint-mode", "--checkpoint-staging", "--data-format", "--delivery",
      "--embedding-lookup", "--embedding-update", "--fail-message", "--gemm-algorithm",
      "--grad-buckets", "--kill-at", "--node-layout", "--policy", "--precision", "--reduction",
      "--route-sweep", "--schedule", "--token-dtype"};
  int paths = 0;
  for (const CLI::Option* opt : allOptions(app)) {
    const std::string name = opt->get_name();
    if (isPathOption(*opt)) {
      ++paths;
      EXPECT_EQ(std::count(not_paths.begin(), not_paths.end(), name), 0) << name << " is marked a path";
      continue;
    }
    if (opt->get_type_name() != "TEXT") continue;
    EXPECT_EQ(std::count(not_paths.begin(), not_paths.end(), name), 1)
        << name << " takes text: mark it fileOption/dirOption (apps/path_options.h) if it is a "
        << "path, else add it to this test's list";
  }
#ifdef SLIDEDP_WITH_TRAINING
  for (const char* p : {"--model", "--model-config", "--data", "--eval-data", "--tokenizer",
                        "--checkpoint-dir", "--export", "--metrics", "--trace", "--gpu-profile",
                        "--memory-snapshot", "--machine", "--calibration", "--resume"})
    EXPECT_TRUE(isPathOption(*app.get_option(p))) << p;
  EXPECT_EQ(paths, 15);
#endif
  EXPECT_TRUE(isPathOption(*app.get_option("--pid-file")));
}

}  // namespace
}  // namespace slidedp
