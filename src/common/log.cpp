#include "common/log.h"
#include "common/log_line.h"

#include <spdlog/sinks/stdout_color_sinks.h>

namespace slidedp {

void setLogIdentity(const std::string& who, spdlog::level::level_enum level) {
  auto logger = spdlog::stderr_color_mt("slidedp:" + who);
  logger->set_pattern("[%H:%M:%S.%e] [" + who + "] [%^%l%$] %v");
  logger->set_level(level);
  spdlog::set_default_logger(logger);
}

void logWarning(const std::string& line) { SLIDEDP_LOG_WARN("{}", line); }

}  // namespace slidedp
