#include "apps/config_file_checks.h"

#include <fstream>

#include <fmt/format.h>

namespace slidedp {

namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

/// Where the string that opens at value[0] (a '"' or '\'') closes on this line (npos: it does
/// not): '"' strings take backslash escapes, '\'' (TOML literal) strings none.
size_t closingQuote(const std::string& value) {
  const char q = value[0];
  for (size_t i = 1; i < value.size(); ++i) {
    if (q == '"' && value[i] == '\\') {
      ++i;
      continue;
    }
    if (value[i] == q) return i;
  }
  return std::string::npos;
}

}  // namespace

std::string configFileProblem(const std::string& path, bool written_by_cli11) {
  std::ifstream in(path);
  std::string line;
  bool first = true;  // the first line that is not empty or a comment
  for (int n = 1; std::getline(in, line); ++n) {
    if (n == 1 && line.rfind("\xEF\xBB\xBF", 0) == 0)
      return fmt::format("--config {} starts with a UTF-8 byte-order mark, which this config reader "
                         "takes for part of the first key.\nHINT: save the file as UTF-8 without it, "
                         "e.g. sed -i '1s/^\\xEF\\xBB\\xBF//' {}", path, path);
    const std::string t = trim(line);
    if (t.empty() || t[0] == '#' || t[0] == ';') continue;
    if (first && (t[0] == '{' || (t[0] == '[' && t.size() > 1 && (t[1] == '{' || t[1] == '"'))))
      return fmt::format("--config {} line {}: this looks like JSON; a config file is TOML: one "
                         "`key = value` per line, the keys the flags' names without --.\nHINT: e.g. "
                         "tools/configs/default-job.toml", path, n);
    first = false;
    if (t[0] == '[') continue;
    const auto eq = t.find('=');
    if (eq == std::string::npos) continue;
    const std::string key = trim(t.substr(0, eq)), value = trim(t.substr(eq + 1));
    if (value.empty() || (value[0] != '"' && value[0] != '\'')) continue;
    if (!written_by_cli11 && (value.rfind("\"\"\"", 0) == 0 || value.rfind("'''", 0) == 0))
      return fmt::format("--config {} line {}: the value of '{}' is a triple-quoted string, which this "
                         "config reader does not read as TOML does (its quotes would stay in the "
                         "value).\nHINT: one pair of quotes: {} = \"text\"", path, n, key, key);
    const size_t close = closingQuote(value);
    if (close == std::string::npos)
      return fmt::format("--config {} line {}: the value of '{}' opens a quote ({}) that the line does "
                         "not close.\nHINT: close it: {} = \"text\"", path, n, key, value[0], key);
    // CLI11 keeps a '"' string's backslashes as typed: "a\\b" would be the path a\\b, not
    // TOML's a\b.
    if (!written_by_cli11 && value[0] == '"' && value.find('\\') < close)
      return fmt::format("--config {} line {}: the value of '{}' holds a backslash in double quotes, "
                         "whose escapes this config reader does not process (the value would keep "
                         "them as typed).\nHINT: single quotes, which TOML and this reader both take "
                         "literally: {} = '...'", path, n, key, key);
    // CLI11 (2.1) takes a '#' as the start of a comment even inside quotes: the value would be
    // cut there, and its quote kept (a path '"/data/run' in the current directory).
    if (value.find('#') < close)  // (a comment after the closing quote is fine)
      return fmt::format("--config {} line {}: the value of '{}' holds '#', which this config reader "
                         "takes for the start of a comment even inside quotes (the value would be cut "
                         "there).\nHINT: give it on the command line instead (--{} VALUE), or use a "
                         "path without '#'", path, n, key, key);
  }
  return "";
}

}  // namespace slidedp
