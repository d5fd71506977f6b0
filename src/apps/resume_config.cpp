// `--resume DIR` alone: the checkpoint's saved configuration as the run's --config (see
// resume_config.h).
#include "apps/resume_config.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "apps/policy_choice.h"  // kPolicyKnobFlags
#include "common/errors.h"
#include "train/checkpoint_dir.h"

namespace slidedp {

namespace {

/// The value of `--name V` or `--name=V` in `args` ("" when absent); `given` tells presence.
std::string flagValue(const std::vector<std::string>& args, const std::string& name, bool* given) {
  *given = false;
  std::string value;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--") break;
    if (args[i] == name) {
      *given = true;
      value = i + 1 < args.size() ? args[i + 1] : "";
    } else if (args[i].rfind(name + "=", 0) == 0) {
      *given = true;
      value = args[i].substr(name.size() + 1);
    }
  }
  return value;
}

std::string unquoted(std::string v) {
  if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
  return v;
}

}  // namespace

ResumeConfig savedConfigForResume(const std::vector<std::string>& args, const CLI::App& app) {
  ResumeConfig out;
  bool resume_given = false;
  const std::string dir = flagValue(args, "--resume", &resume_given);
  if (!resume_given || dir.empty() || dir == "auto") return out;
  for (const char* f : {"--model", "--model-config", "--config"}) {
    bool given = false;
    flagValue(args, f, &given);
    if (given) return out;  // the run's flags are on the command line (or in its CONFIG)
  }
  out.step_dir = resolveCheckpoint(dir);
  const nlohmann::json st = readTrainerState(out.step_dir);
  if (!st.contains("configuration") || !st["configuration"].is_string())
    throwUserError("{}/trainer_state.json saves no configuration (written by an older slidedp), so "
                   "--resume alone cannot bring back the run's flags.\nHINT: give the run's whole "
                   "command again with --resume {} added", out.step_dir, dir);
  std::istringstream in(st["configuration"].get<std::string>());
  std::string kept;
  for (std::string line; std::getline(in, line);) {
    const size_t eq = line.find('=');
    if (eq == std::string::npos) {
      kept += line + "\n";
      continue;
    }
    const std::string key = line.substr(0, eq), value = line.substr(eq + 1);
    if (key == "resume" || key == "kill-at") continue;
    const std::string flag = "--" + key;
    if (std::find_if(std::begin(kPolicyKnobFlags), std::end(kPolicyKnobFlags),
                     [&](const char* k) { return flag == k; }) != std::end(kPolicyKnobFlags))
      if (const CLI::Option* opt = app.get_option_no_throw(flag);
          opt != nullptr && unquoted(value) == opt->get_default_str())
        continue;
    kept += line + "\n";
  }
  const char* tmp = std::getenv("TMPDIR");
  std::string path = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/slidedp-resume-XXXXXX";
  const int fd = ::mkstemp(path.data());
  if (fd < 0) throwUserError("cannot create a temporary file {} for the saved configuration", path);
  const bool ok = ::write(fd, kept.data(), kept.size()) == static_cast<ssize_t>(kept.size());
  ::close(fd);
  if (!ok) {
    ::unlink(path.c_str());
    throwUserError("cannot write the saved configuration to {}", path);
  }
  out.file = path;
  return out;
}

}  // namespace slidedp
