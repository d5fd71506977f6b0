// "Did you mean ...?" for a misspelt flag or --config key, and what a repeated option was
// (slidedp_worker and slidedp_plan).
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace slidedp {

/// Every option of `app` and of its option groups.
std::vector<const CLI::Option*> allOptions(const CLI::App& app);
/// "--name" for every long name of allOptions(app).
std::vector<std::string> longFlagNames(const CLI::App& app);

/// The name of `names` closest to `name` by edit distance ("--seq-lenn" -> "--seq-len"), or ""
/// when none is within max(2, |name| / 4) edits.
std::string closestName(const std::string& name, const std::vector<std::string>& names);

/// " (did you mean NAME?)", or "" when `name` is empty.
std::string didYouMean(const std::string& name);

/// CLI11's ConfigError for an unknown key of a --config file ("INI was not able to parse KEY")
/// as "unknown key 'KEY' in --config FILE (did you mean NEAR?)", NEAR from `flags` ("--name"
/// forms); any other message unchanged.
std::string explainConfigError(const std::string& cli11_message, const std::string& config_file,
                               const std::vector<std::string>& flags);

/// CLI11's message for an option given more than once ("--steps: At Most 1 required but
/// received 2") as what happened: given N times on the command line `args`, or N values of one
/// --config key (a TOML list, or an unquoted value with a space); any other message unchanged.
std::string explainRepeatedOption(const std::string& cli11_message, const std::vector<std::string>& args);

}  // namespace slidedp
