// What CLI11's TOML/INI reader lets through in a --config file (slidedp_worker, slidedp_plan).
#pragma once

#include <string>

namespace slidedp {

/// The first problem CLI11 would pass over silently in the --config file `path`, as
/// "--config FILE line N: ...\nHINT: ...", or "" when there is none (or the file cannot be
/// read: CLI11 has reported that already):
///  - a value that opens a quote it does not close (`model = "/data/m`: CLI11 keeps the quote as
///    part of the value, so the run would fail later on a path that begins with '"');
///  - a quoted value holding '#' (CLI11 cuts it there, taking the rest for a comment);
///  - a JSON file (its first line opens an object), a UTF-8 byte-order mark (CLI11 reads it as
///    part of the first key), a triple-quoted string (CLI11 keeps its quotes) and a backslash in
///    a double-quoted value (CLI11 does not process TOML's escapes).
/// `written_by_cli11`: the configuration a `--resume DIR` alone saved (CLI11's own writer, whose
/// double-quoted values keep backslashes and which CLI11 reads back as written): the backslash
/// and triple-quote rules do not apply. Any thread.
std::string configFileProblem(const std::string& path, bool written_by_cli11 = false);

}  // namespace slidedp
