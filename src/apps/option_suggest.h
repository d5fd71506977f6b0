// "Did you mean ...?" for a misspelt flag or --config key (slidedp_worker and slidedp_plan).
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

}  // namespace slidedp
