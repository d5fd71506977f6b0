// What the system tests read back from a job: a number of a step's log line and the losses of
// a --metrics CSV file. Header-only, used by tests/system/.
#pragma once

#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/subprocess.h"  // readFile

namespace slidedp::test {

/// The number after `key` in the log line of step `step` (-1 when absent).
inline double stepField(const std::string& log, int step, const std::string& key) {
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);) {
    if (line.find(fmt::format("step {}/", step)) == std::string::npos) continue;
    std::smatch m;
    if (std::regex_search(line, m, std::regex(key + " ([0-9.]+)"))) return std::stod(m[1]);
  }
  return -1;
}

/// step -> the value of column `name` (as written) of a --metrics CSV file written from step 1,
/// the column found in its header line ("step,..."; a resumed run's file has none: empty then,
/// as when no column has that name).
inline std::map<int, std::string> metricsColumn(const std::string& csv, const std::string& name) {
  std::map<int, std::string> out;
  std::istringstream in(readFile(csv));
  auto split = [](const std::string& line) {
    std::vector<std::string> cols;
    std::stringstream ls(line);
    for (std::string c; std::getline(ls, c, ',');) cols.push_back(c);
    return cols;
  };
  size_t col = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("step,", 0) == 0) {
      if (col == 0) {
        const auto head = split(line);
        for (size_t i = 1; i < head.size(); ++i)
          if (head[i] == name) col = i;
        if (col == 0) return out;
      }
      continue;
    }
    const auto cols = split(line);
    if (col > 0 && cols.size() > col) out[std::stoi(cols[0])] = cols[col];
  }
  return out;
}

/// step -> loss (the third column, as written) of a --metrics CSV file; header lines ("step,...")
/// are skipped wherever they are (a resumed run appends without one).
inline std::map<int, std::string> metricsLosses(const std::string& csv) {
  std::map<int, std::string> out;
  std::istringstream in(readFile(csv));
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("step,", 0) == 0) continue;
    std::vector<std::string> cols;
    std::stringstream ls(line);
    for (std::string c; std::getline(ls, c, ',');) cols.push_back(c);
    if (cols.size() > 2) out[std::stoi(cols[0])] = cols[2];
  }
  return out;
}

}  // namespace slidedp::test
