#include "common/log.h"
#include "common/log_line.h"

#include <spdlog/cfg/env.h>
#include <spdlog/sinks/stdout_color_sinks.h>

namespace slidedp {

void setLogIdentity(const std::string& who, spdlog::level::level_enum level) {
  auto logger = spdlog::stderr_color_mt("slidedp:" + who);
  logger->set_pattern("[%H:%M:%S.%e] [" + who + "] [%^%l%$] %v");
  logger->set_level(level);
  spdlog::set_default_logger(logger);
  spdlog::cfg::load_env_levels();  // SPDLOG_LEVEL=debug (or info, ...) overrides the level above
}

void logWarning(const std::string& line) { SLIDEDP_LOG_WARN("{}", line); }

void logInfo(const std::string& line) { SLIDEDP_LOG_INFO("{}", line); }

bool debugLogEnabled() { return spdlog::default_logger_raw()->should_log(spdlog::level::debug); }

void logDebug(const std::string& line) { SLIDEDP_LOG_DEBUG("{}", line); }

}  // namespace slidedp
