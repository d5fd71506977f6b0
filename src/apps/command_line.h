// Reading a flag straight from the command line's words, before (or besides) CLI11's parse: a
// `--resume DIR` alone (apps/resume_config.cpp), whether an option came from the line or from a
// --config file, how often a repeated flag was given (apps/slidedp_worker.cpp).
#pragma once

#include <string>
#include <vector>

namespace slidedp {

/// The last value of `--name V` or `--name=V` in `args` ("" when absent or without a value);
/// `given` (may be null) tells whether it is there at all. Stops at a bare "--".
inline std::string flagValue(const std::vector<std::string>& args, const std::string& name,
                             bool* given = nullptr) {
  if (given != nullptr) *given = false;
  std::string value;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--") break;
    if (args[i] == name) {
      if (given != nullptr) *given = true;
      value = i + 1 < args.size() ? args[i + 1] : "";
    } else if (args[i].rfind(name + "=", 0) == 0) {
      if (given != nullptr) *given = true;
      value = args[i].substr(name.size() + 1);
    }
  }
  return value;
}

/// How many times `--name` or `--name=V` appears in `args` (before a bare "--").
inline int flagCount(const std::vector<std::string>& args, const std::string& name) {
  int n = 0;
  for (const std::string& a : args) {
    if (a == "--") break;
    if (a == name || a.rfind(name + "=", 0) == 0) ++n;
  }
  return n;
}

}  // namespace slidedp
