// What CLI11's TOML/INI reader lets through in a --config file (slidedp_worker, slidedp_plan).
#pragma once

#include <string>

namespace slidedp {

/// The first line of the --config file `path` whose value opens a quote it does not close
/// (`model = "/data/m` : CLI11 keeps the quote as part of the value, so the run would fail later
/// on a path that begins with '"'), as "--config FILE line N: ...", or "" when every value's
/// quotes are closed (or the file cannot be read: CLI11 has reported that already).
/// Multi-line strings (`"""`, `'''`) are not checked. Any thread.
std::string unclosedQuoteInConfig(const std::string& path);

}  // namespace slidedp
