#include "apps/metrics_resume.h"

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "common/errors.h"
#include "formats/checkpoint.h"  // writeFileAtomic
#include "formats/fs_util.h"

namespace slidedp {

int64_t dropMetricsFromStep(const std::string& path, int64_t first_step, bool csv) {
  if (!formats::isRegularFile(path)) return 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) throwUserError("cannot read the --metrics file {} to resume it", path);
  std::stringstream all;
  all << in.rdbuf();
  const std::string text = all.str();
  std::string kept;
  int64_t dropped = 0;
  size_t begin = 0;
  for (int64_t n = 0; begin < text.size(); ++n) {
    size_t end = text.find('\n', begin);
    const bool torn = end == std::string::npos;  // no newline: the crash cut this write
    if (torn) end = text.size();
    const std::string line = text.substr(begin, end - begin);
    begin = end + 1;
    if (torn) {  // our writer ends every line: a cut one is the crash's, dropped
      ++dropped;
      continue;
    }
    int64_t step = -1;
    bool readable = false;
    if (csv) {
      if (n > 0 || line.rfind("step,", 0) != 0) {  // the header, where the file has one
        try {
          size_t used = 0;
          step = std::stoll(line.substr(0, line.find(',')), &used);
          readable = used > 0;
        } catch (const std::exception&) {
        }
      }
    } else {
      const auto j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
      readable = j.is_object() && j.contains("step") && j["step"].is_number_integer();
      if (readable) step = j["step"].get<int64_t>();
    }
    if (readable && step >= first_step) {
      ++dropped;
      continue;
    }
    kept += line + "\n";
  }
  if (dropped > 0) formats::writeFileAtomic(path, kept);
  return dropped;
}

}  // namespace slidedp
