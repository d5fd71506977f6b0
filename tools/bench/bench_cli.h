// The benchmark tools' command lines (tools/bench/*.cpp): CLI11, as src/apps parse theirs, with
// the range validators they share and one way to end on a bad command line.
//
// Design decision: a parse error prints "<tool>: error: <CLI11's message>" and a HINT naming
// --help on stderr and the tool exits 2 (as slidedp's other configuration errors do, and as the
// tools' comments promise); --help prints every option with its default and exits 0. The
// validators give one-line messages ("--rows: must be >= 1, got 0"): CLI11 2.1's
// PositiveNumber prints its bounds as 0.000000 and a 309-digit number. Header-only, CLI11 and
// the standard library only: it is included beside LibTorch, where spdlog's fmt must not come.
#pragma once

#include <CLI/CLI.hpp>

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iomanip>
#include <optional>
#include <sstream>
#include <string>

namespace slidedp::bench {

/// A whole number (decimal, int64 range) >= `min`; for each value of a list option too. In
/// --help: POSITIVE (min 1) and NONNEGATIVE (min 0) as CLI11's own, else ">= min".
inline CLI::Validator intAtLeast(long long min) {
  const std::string bound = ">= " + std::to_string(min);
  return CLI::Validator(
      [min, bound](std::string& v) -> std::string {
        errno = 0;
        char* end = nullptr;
        const long long x = std::strtoll(v.c_str(), &end, 10);
        if (v.empty() || end == v.c_str() || *end != '\0' || errno == ERANGE)
          return "must be a whole number " + bound + ", got '" + v + "'";
        if (x < min) return "must be " + bound + ", got " + v;
        return std::string();
      },
      min == 1 ? "POSITIVE" : min == 0 ? "NONNEGATIVE" : bound);
}

/// A whole number in [min, max]; for each value of a list option too.
inline CLI::Validator intInRange(long long min, long long max) {
  const std::string span = std::to_string(min) + ".." + std::to_string(max), bound = "in " + span;
  return CLI::Validator(
      [min, max, bound](std::string& v) -> std::string {
        errno = 0;
        char* end = nullptr;
        const long long x = std::strtoll(v.c_str(), &end, 10);
        if (v.empty() || end == v.c_str() || *end != '\0' || errno == ERANGE)
          return "must be a whole number " + bound + ", got '" + v + "'";
        if (x < min || x > max) return "must be " + bound + ", got " + v;
        return std::string();
      },
      span);
}

/// A finite number > `min` (`strict`) or >= `min`. In --help: POSITIVE for > 0, else the bound.
inline CLI::Validator numberAbove(double min, bool strict = true) {
  std::ostringstream os;
  os << std::setprecision(10) << (strict ? "> " : ">= ") << min;
  const std::string bound = os.str();
  return CLI::Validator(
      [min, strict, bound](std::string& v) -> std::string {
        char* end = nullptr;
        const double x = std::strtod(v.c_str(), &end);
        if (v.empty() || end == v.c_str() || *end != '\0' || !std::isfinite(x))
          return "must be a number " + bound + ", got '" + v + "'";
        if (strict ? !(x > min) : !(x >= min)) return "must be " + bound + ", got " + v;
        return std::string();
      },
      strict && min == 0 ? "POSITIVE" : bound);
}

/// The model shape the GPU tools (bench_layer, bench_gemm, bench_kernels) measure at, and the
/// device: --config (a config.json; required where `config` starts empty, else its default),
/// --rows, --seq-len and --device-index, each with its default from the fields as given.
struct ShapeOptions {
  std::string config;
  int64_t rows = 0, seq_len = 4096;
  int device_index = 0;
};

inline void addShapeOptions(CLI::App& app, ShapeOptions& o) {
  auto* config = app.add_option("--config", o.config, "Model config.json (the shape), e.g. tools/configs/qwen3-4b.json")
                     ->check(CLI::ExistingFile);
  if (o.config.empty()) config->required();
  else config->capture_default_str();
  app.add_option("--rows", o.rows, "Rows (sequences); N = rows * seq-len tokens")
      ->check(intAtLeast(1))
      ->capture_default_str();
  app.add_option("--seq-len", o.seq_len, "Tokens per row T")->check(intAtLeast(1))->capture_default_str();
  app.add_option("--device-index", o.device_index, "CUDA device")->check(intAtLeast(0))->capture_default_str();
}

/// Parses argv into `app` (whose name is the tool's). Returns nothing when the tool goes on,
/// else the status it should exit with: 0 after --help (printed on stdout), 2 after a bad,
/// missing or unknown option or value (the message on stderr). `print` false: print nothing
/// (an MPI job's ranks other than 0, which parse the same command line and exit alike).
inline std::optional<int> parseCommandLine(CLI::App& app, int argc, char** argv,
                                           bool print = true) {
  app.failure_message([](const CLI::App* a, const CLI::Error& e) {
    return a->get_name() + ": error: " + e.what() + "\nHINT: " + a->get_name() +
           " --help lists every option with its default\n";
  });
  try {
    app.parse(argc, argv);
    return std::nullopt;
  } catch (const CLI::ParseError& e) {
    const int rc = print ? app.exit(e) : e.get_exit_code();
    return rc == 0 ? 0 : 2;
  }
}

}  // namespace slidedp::bench
