// `--resume DIR` given without the run's other flags: the run's own configuration, saved with
// every checkpoint (trainer_state.json "configuration", the resolved flags in --config format),
// is read back as the run's --config, and the command line overrides it.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace slidedp {

/// The value of `key` in a saved configuration (trainer_state.json "configuration", CLI11's
/// --config format: `key=value` lines), without its quotes ("..." or '...'); "" when absent.
std::string savedConfigValue(const std::string& config, const std::string& key);

/// What savedConfigForResume throws; `local`: this rank's own failure (its temporary file).
struct ResumeConfigError : std::runtime_error {
  ResumeConfigError(const std::string& what, bool local_) : std::runtime_error(what), local(local_) {}
  bool local = false;
};

/// The saved configuration a command line resumes with, when it is `--resume DIR` (or
/// `--resume=DIR`, DIR not "auto") without --model, --model-config or --config.
struct ResumeConfig {
  std::string file;      // a private temporary file holding it ("" when the command line
                         // is not such a resume); the caller removes it after parsing
  std::string step_dir;    // the checkpoint DIR resolves to (its `latest`, or DIR itself)
  std::string state_file;  // step_dir/trainer_state.json, which saves the configuration
  std::string run_dir;     // the directory the run started in ("": not recorded, older slidedp)
  std::vector<std::string> moved_paths;  // options whose relative paths were taken from run_dir
  /// The checkpoint resumed lies outside the run's saved --checkpoint-dir (a copy, or a moved
  /// directory): that saved directory ("" otherwise). The resume then checkpoints beside the
  /// checkpoint it resumes (checkpoint_dir), never into (and pruning) the other directory.
  std::string saved_checkpoint_dir, checkpoint_dir;
};

/// Reads the configuration saved in the checkpoint `args` (argv[1..]) resumes from (`--resume
/// DIR`, or `--resume auto` with `--checkpoint-dir DIR` holding a checkpoint) and writes it, in
/// --config format, to a file of its own under $TMPDIR (or /tmp):
///  - left out: `resume` (the command line's --resume takes its place), `kill-at` (a fault
///    injected into one run), `overwrite-checkpoints` (leave to replace another run's
///    checkpoints), `config`, and every value equal to its option's default in `app` (an App
///    with every option added), so that only what the run set counts as given: its model, data
///    and flags, and the knobs its --policy auto planned (the saved configuration records
///    them), which run again as they ran;
///  - relative paths (model, data, checkpoint-dir, export, ...) made absolute from the
///    directory the run started in (trainer_state.json "working_directory") when this one
///    starts elsewhere;
///  - without --checkpoint-dir on the command line, a saved checkpoint-dir other than the
///    directory DIR's checkpoint lies in (DIR, or DIR's parent where DIR is a step-* directory)
///    is replaced by that directory, so resuming a copied checkpoint never writes into, or
///    prunes, the run's original checkpoints.
/// Every rank calls it on the same command line (no MPI: before MPI_Init). Returns an empty
/// `file` when `args` is not such a resume. Throws ResumeConfigError: `local` when writing the
/// file failed (on this rank only), else the same on every rank (DIR is not a checkpoint, its
/// trainer_state.json holds no configuration, written by an older slidedp, or the run was a
/// --route-sweep benchmark and the command line gives no --route-sweep).
ResumeConfig savedConfigForResume(const std::vector<std::string>& args, const CLI::App& app);

/// `value` as one shell word for a HINT's command: as it is when it holds only characters no
/// shell treats specially, else in single quotes.
std::string shellWord(const std::string& value);

}  // namespace slidedp
