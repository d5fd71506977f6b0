// Logging through spdlog, with the rank and role in every line once the rank context is
// known ("[leader 0/3]", "[worker 2/3]"). Rank 0 logs at info; other ranks at warn unless
// --log-all-ranks, so a job's output reads as one story.
#pragma once

#include <spdlog/spdlog.h>

#include <string>

namespace slidedp {

/// Sets the line prefix (e.g. "leader 0/3") and the level of this process's logger; the
/// environment's SPDLOG_LEVEL (e.g. "debug") overrides `level` on every rank.
/// Thread-safe to call once at start-up; later calls replace the prefix.
void setLogIdentity(const std::string& who, spdlog::level::level_enum level);

}  // namespace slidedp

#define SLIDEDP_LOG_INFO(...) ::spdlog::info(__VA_ARGS__)
#define SLIDEDP_LOG_WARN(...) ::spdlog::warn(__VA_ARGS__)
#define SLIDEDP_LOG_ERROR(...) ::spdlog::error(__VA_ARGS__)
#define SLIDEDP_LOG_DEBUG(...) ::spdlog::debug(__VA_ARGS__)
