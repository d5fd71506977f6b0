// `--resume DIR` alone: the checkpoint's saved configuration as the run's --config (see
// resume_config.h).
#include "apps/resume_config.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "apps/command_line.h"
#include "apps/path_options.h"
#include "common/errors.h"
#include "formats/fs_util.h"
#include "train/checkpoint_dir.h"

namespace slidedp {

namespace {

/// Whether the saved key names a path option (apps/path_options.h; a relative value is relative
/// to where the run started).
bool isPathKey(const CLI::App& app, const std::string& key) {
  const CLI::Option* opt = app.get_option_no_throw("--" + key);
  return opt != nullptr && isPathOption(*opt);
}

/// A saved value without its quotes: CLI11 writes "..." and, for a one-character value or one
/// holding '"', '...'.
std::string unquoted(std::string v) {
  if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front()) v = v.substr(1, v.size() - 2);
  return v;
}


/// The flags of a configuration in --config format (`key=value` lines) as a command line's
/// words, `--key value` (`--key` for a switch that is on), leaving out `skip` and the flags
/// `args` gives. A value that is the path `gone` or lies under it (the run's --tokenizer in its
/// model directory) is written under `NEW_PLACE` instead, as the model's --flag is.
std::string configAsFlags(const std::string& config, const CLI::App& app, const std::string& skip,
                          const std::vector<std::string>& args, const std::string& gone) {
  std::string dir = gone;  // "/x/model/" is the directory "/x/model"
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  std::istringstream in(config);
  std::string out;
  for (std::string line; std::getline(in, line);) {
    const size_t eq = line.find('=');
    if (line.empty() || line[0] == '#' || eq == std::string::npos) continue;  // a comment
    const std::string key = line.substr(0, eq);
    std::string value = unquoted(line.substr(eq + 1));
    if (!dir.empty() && value.rfind(dir, 0) == 0 && (value.size() == dir.size() || value[dir.size()] == '/'))
      value = "NEW_PLACE" + value.substr(dir.size());
    const CLI::Option* opt = app.get_option_no_throw("--" + key);
    if (key == skip || opt == nullptr) continue;  // not an option of this binary: not passable
    bool given = false;  // under any of its names (--shuffle / --no-shuffle)
    for (const std::string& name : opt->get_lnames()) given |= flagCount(args, "--" + name) > 0;
    if (given) continue;
    const bool is_switch = opt->get_expected_min() == 0;
    out += " --" + key;
    if (is_switch && value == "true") continue;
    out += is_switch ? "=" + shellWord(value) : " " + shellWord(value);
  }
  return out;
}

}  // namespace

std::string shellWord(const std::string& value) {
  const bool plain = !value.empty() && value.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                                               "0123456789_./:@%+,=-") == std::string::npos;
  if (plain) return value;
  std::string out = "'";
  for (char c : value) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string savedConfigValue(const std::string& config, const std::string& key) {
  std::istringstream in(config);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(key + "=", 0) == 0) return unquoted(line.substr(key.size() + 1));
  return "";
}

ResumeConfig savedConfigForResume(const std::vector<std::string>& args, const CLI::App& app) {
  ResumeConfig out;
  bool resume_given = false, ckdir_given = false;
  std::string dir = flagValue(args, "--resume", &resume_given);
  for (const char* f : {"--model", "--model-config", "--config"})
    if (flagCount(args, f) > 0) return out;  // the run's flags are on the command line (or in its CONFIG)
  nlohmann::json st;
  try {
    if (dir == "auto") {  // --resume auto --checkpoint-dir DIR: DIR's checkpoint, when it has one
      dir = flagValue(args, "--checkpoint-dir", &ckdir_given);
      if (!ckdir_given || dir.empty() || (listStepCheckpoints(dir).empty() &&
                                          !formats::isRegularFile(formats::joinPath(dir, "latest"))))
        return out;
    }
    if (!resume_given || dir.empty()) return out;
    out.step_dir = resolveCheckpoint(dir);
    // the directory the resumed checkpoint lies in, by its real path (symlinks, ".", "..",
    // trailing slashes resolved): DIR, or the parent of a step-* DIR; "" for a step directory
    // of another name (a copy renamed: no checkpoint directory it belongs to)
    std::error_code ec;
    const std::filesystem::path real_step = std::filesystem::canonical(out.step_dir, ec);
    if (ec) {
      out.checkpoint_dir.clear();
    } else if (formats::samePath(out.step_dir, dir)) {
      const std::string name = real_step.filename().string();
      out.checkpoint_dir = name.rfind("step-", 0) == 0 ? real_step.parent_path().string() : std::string();
    } else {
      out.checkpoint_dir = std::filesystem::canonical(dir, ec).string();
      if (ec) out.checkpoint_dir.clear();
    }
    out.state_file = formats::joinPath(out.step_dir, "trainer_state.json");
    st = readTrainerState(out.step_dir);
  } catch (const UserError& e) {
    throw ResumeConfigError(e.what(), false);
  }
  const bool sweep_given = flagCount(args, "--route-sweep") > 0;
  if (!st.contains("configuration") || !st["configuration"].is_string())
    throw ResumeConfigError(fmt::format("{} saves no configuration (written by an older slidedp), so "
                                        "--resume alone cannot bring back the run's flags.\nHINT: give "
                                        "the run's whole command again with --resume {} added",
                                        out.state_file, dir), false);
  const std::string run_dir = st.contains("working_directory") && st["working_directory"].is_string()
                                  ? st["working_directory"].get<std::string>()
                                  : std::string();
  out.run_dir = run_dir;
  const std::string here = formats::currentDirectory();
  std::istringstream in(st["configuration"].get<std::string>());
  std::string kept;
  for (std::string line; std::getline(in, line);) {
    const size_t eq = line.find('=');
    if (eq == std::string::npos) {  // a comment (the planned policy's note)
      kept += line + "\n";
      continue;
    }
    const std::string key = line.substr(0, eq), value = unquoted(line.substr(eq + 1));
    if (key == "checkpoint-dir" && flagCount(args, "--checkpoint-dir") == 0 && !value.empty()) {
      const std::string saved = value[0] == '/' || run_dir.empty() ? value : formats::joinPath(run_dir, value);
      if (!formats::samePath(saved, out.checkpoint_dir)) {  // a copy or a moved directory
        out.saved_checkpoint_dir = saved;
        const std::string& d = out.checkpoint_dir;
        if (d.empty())
          throw ResumeConfigError(fmt::format("the checkpoint {} lies outside the run's --checkpoint-dir {} "
                                              "and in no checkpoint directory of its own (its name is not "
                                              "step-*), so this run has nowhere to checkpoint that would not "
                                              "write into (and prune) {}.\nHINT: give --checkpoint-dir",
                                              out.step_dir, saved, saved), false);
        if (d.find_first_of("\"\\") != std::string::npos)
          throw ResumeConfigError(fmt::format("the checkpoint {} lies outside the run's --checkpoint-dir {}, "
                                              "and its directory's path cannot be written to a --config "
                                              "file.\nHINT: give --checkpoint-dir", out.step_dir, saved), false);
        kept += key + "=\"" + d + "\"\n";
        continue;
      }
    }
    // One run's intents, not its continuation's: --resume is the command line's; a fault to
    // inject; leave to replace another run's checkpoints; a configuration file of its own.
    if (key == "resume" || key == "kill-at" || key == "overwrite-checkpoints" || key == "config") continue;
    if (key == "route-sweep" && !value.empty() && !sweep_given)
      throw ResumeConfigError(fmt::format("{} is a checkpoint of a --route-sweep benchmark ({}), which "
                                          "does not resume.\nHINT: continue one of its variants as a run: "
                                          "--resume {} --route-sweep \"\" and that variant's flags",
                                          out.state_file, value, dir), false);
    // A value equal to its default is left out: the resume then counts as given only what the
    // run set (a defaulted --batch-size stays defaulted for reference data; the planner's knobs
    // the run set, or --policy auto planned, stay, so the same policy runs). A switch's default
    // reads "" or "false".
    if (const CLI::Option* opt = app.get_option_no_throw("--" + key)) {
      const std::string d = opt->get_default_str();
      if (value == d || (value == "false" && d.empty() && opt->get_expected_min() == 0)) continue;
    }
    // A relative path is relative to the directory the run started in, which the checkpoint
    // records: taken from there when this run starts elsewhere.
    if (!run_dir.empty() && run_dir != here && isPathKey(app, key)) {
      const bool reference = key == "data" && value.rfind("reference:", 0) == 0;
      const std::string path = reference ? value.substr(10) : value;
      const bool special = key == "data" && (value == "synthetic" || value.rfind("synthetic-packed:", 0) == 0);
      if (!path.empty() && path[0] != '/' && !special) {
        const std::string abs = (reference ? "reference:" : "") + formats::joinPath(run_dir, path);
        // "..." takes backslash escapes, '...' (a TOML literal) none; a path holding both '"'
        // and '\'' cannot be written: refused rather than read from the wrong directory
        const bool plain = abs.find_first_of("\"\\") == std::string::npos;
        if (!plain && abs.find('\'') != std::string::npos)
          throw ResumeConfigError(fmt::format("the run's --{} {} is relative to {}, and that path cannot "
                                              "be written to a --config file.\nHINT: run from {}, or give "
                                              "the run's command with --resume added", key, path, run_dir,
                                              run_dir), false);
        kept += key + "=" + (plain ? "\"" + abs + "\"" : "'" + abs + "'") + "\n";
        out.moved_paths.push_back("--" + key);
        continue;
      }
    }
    kept += line + "\n";
  }
  // The model the run trained from, gone since (moved, or a scratch disk cleaned): --model on
  // the command line means the run's whole command (the saved flags are not read then), so the
  // fix is that command, which is spelt out here from the saved flags.
  for (const char* key : {"model", "model-config"}) {
    const std::string saved = savedConfigValue(kept, key);
    if (saved.empty()) continue;
    const std::string path = saved[0] == '/' || run_dir.empty() ? saved : formats::joinPath(run_dir, saved);
    std::error_code ec;
    if (std::filesystem::exists(path, ec) || ec) continue;
    throw ResumeConfigError(fmt::format("the checkpoint {} was trained from --{} {}, which is not there {}, "
                                        "so --resume alone cannot start.\nHINT: add "
                                        "the model's place now and the run's flags that this command does "
                                        "not give (saved in {}):\n  --{} NEW_PLACE{}",
                                        out.step_dir, key, path,
                                        saved[0] != '/' && run_dir.empty()
                                            ? "from this directory (the checkpoint does not record where "
                                              "the run started; an older slidedp)"
                                            : "any more (moved or removed)",
                                        out.state_file, key,
                                        configAsFlags(kept, app, key, args, path)), false);
  }
  const char* tmp = std::getenv("TMPDIR");
  std::string path = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/slidedp-resume-XXXXXX";
  const int fd = ::mkstemp(path.data());
  if (fd < 0)
    throw ResumeConfigError(fmt::format("cannot create a temporary file {} for the configuration saved "
                                        "in {}: {}.\nHINT: point TMPDIR at a writable directory",
                                        path, out.state_file, std::strerror(errno)), true);
  const bool ok = ::write(fd, kept.data(), kept.size()) == static_cast<ssize_t>(kept.size());
  const int err = errno;
  ::close(fd);
  if (!ok) {
    ::unlink(path.c_str());
    throw ResumeConfigError(fmt::format("cannot write the configuration saved in {} to {}: {}.\nHINT: "
                                        "point TMPDIR at a directory with room", out.state_file, path,
                                        std::strerror(err)), true);
  }
  out.file = path;
  return out;
}

}  // namespace slidedp
