// Path-valued command-line options, marked where they are declared (apps/worker_options.cpp,
// apps/train_job_options.cpp): their help shows FILE or DIR, and `--resume DIR` alone takes a
// saved relative value of one from the directory the run started in (apps/resume_config.cpp).
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace slidedp {

/// Marks `opt` as a file path (its help shows FILE); returns it for chaining.
inline CLI::Option* fileOption(CLI::Option* opt) { return opt->type_name("FILE"); }
/// Marks `opt` as a directory path (its help shows DIR); returns it for chaining.
inline CLI::Option* dirOption(CLI::Option* opt) { return opt->type_name("DIR"); }

/// Whether `opt` was marked by fileOption or dirOption.
inline bool isPathOption(const CLI::Option& opt) {
  // CLI11 appends a validator's description after ':' (e.g. "FILE:FILE" with CLI::ExistingFile)
  const std::string full = opt.get_type_name();
  const std::string t = full.substr(0, full.find(':'));
  return t == "FILE" || t == "DIR";
}

}  // namespace slidedp
