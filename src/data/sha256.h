// SHA-256 of a file's bytes (FIPS 180-4), for the tokenizer identity a prepared token file
// records (tools/data/prepare.py writes hashlib.sha256 of the tokenizer file; the runtime
// compares it with the model directory's). A small self-contained implementation, so the data
// library needs no crypto dependency; checked against the standard's test vectors.
#pragma once

#include <string>

namespace slidedp::data {

/// Lower-case hex SHA-256 of `bytes`.
std::string sha256Hex(const std::string& bytes);
/// Lower-case hex SHA-256 of the file at `path`. Throws UserError when it cannot be read.
std::string sha256File(const std::string& path);

}  // namespace slidedp::data
