// One line to the process's log (common/log.h) from a translation unit that cannot include
// spdlog: the LibTorch ones (worker.cpp, kernels/lt_matmul.cpp), whose bundled fmt clashes with the system's.
#pragma once

#include <string>

namespace slidedp {

/// Logs `line` at warn level through the process's logger (its rank prefix included).
/// Thread-safe.
void logWarning(const std::string& line);

/// Logs `line` at info level (shown on rank 0, and on every rank with --log-all-ranks).
/// Thread-safe.
void logInfo(const std::string& line);

/// Whether debug lines are logged (SPDLOG_LEVEL=debug, see setLogIdentity). Thread-safe.
bool debugLogEnabled();

/// Logs `line` at debug level through the process's logger. Thread-safe.
void logDebug(const std::string& line);

}  // namespace slidedp
