// "Did you mean ...?" for a misspelt flag or --config key (see option_suggest.h).
#include "apps/option_suggest.h"

#include <algorithm>

#include <fmt/format.h>

#include "apps/command_line.h"

namespace slidedp {

namespace {

size_t editDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

void collectOptions(const CLI::App& app, std::vector<const CLI::Option*>& out) {
  for (const CLI::Option* o : app.get_options()) out.push_back(o);
  for (const CLI::App* g : app.get_subcommands([](const CLI::App*) { return true; }))
    collectOptions(*g, out);
}

}  // namespace

std::vector<const CLI::Option*> allOptions(const CLI::App& app) {
  std::vector<const CLI::Option*> opts;
  collectOptions(app, opts);
  return opts;
}

std::vector<std::string> longFlagNames(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* o : allOptions(app))
    for (const std::string& n : o->get_lnames()) names.push_back("--" + n);
  return names;
}

std::string closestName(const std::string& name, const std::vector<std::string>& names) {
  std::string best;
  size_t best_d = std::max<size_t>(2, name.size() / 4) + 1;
  for (const std::string& n : names)
    if (const size_t d = editDistance(name, n); d < best_d) best_d = d, best = n;
  return best;
}

std::string didYouMean(const std::string& name) {
  return name.empty() ? "" : fmt::format(" (did you mean {}?)", name);
}

std::string explainConfigError(const std::string& msg, const std::string& config_file,
                               const std::vector<std::string>& flags) {
  const std::string prefix = "INI was not able to parse ";  // CLI11's words for an unknown key
  if (msg.rfind(prefix, 0) != 0) return msg;
  const std::string key = msg.substr(prefix.size());
  if (const auto dot = key.find('.'); dot != std::string::npos)  // "[training]" then "steps = 2"
    return fmt::format("--config {}: a [{}] section; the keys are the flags' names at the top "
                       "level, with no sections (e.g. steps = 100, not [training] steps = 100)",
                       config_file, key.substr(0, dot));
  const std::string near = closestName("--" + key, flags);
  return fmt::format("unknown key '{}' in --config {}{}", key, config_file,
                     didYouMean(near.empty() ? "" : near.substr(2)));
}

std::string explainRepeatedOption(const std::string& msg, const std::vector<std::string>& args) {
  const std::string repeated = ": At Most 1 required but received ";
  const auto at = msg.find(repeated);
  if (at == std::string::npos || msg.rfind("--", 0) != 0) return msg;
  const std::string flag = msg.substr(0, at);
  const std::string count = msg.substr(at + repeated.size());
  // Not all on the command line: the --config file gave several values to one key (a list,
  // or an unquoted value with a space, "lr = 1e-3 x").
  return flagCount(args, flag) >= 2
             ? fmt::format("{} was given {} times; give each option once (a flag on the command "
                           "line already overrides the same option of a --config file)", flag, count)
             : fmt::format("{} has {} values in the --config file; give it one (a list [a, b] or "
                           "a value with a space is several values; quote a string: key = \"text\")",
                           flag, count);
}

}  // namespace slidedp
