// UTF-8 validity of bytes (text data, prompts): structure only (lead and continuation bytes),
// as the text readers need it to tell text from binary data; overlong forms are not refused.
#pragma once

#include <cstddef>

namespace slidedp {

/// The first problem in bytes [0, n) of `p`: nullptr when they are UTF-8 without a NUL byte,
/// else a phrase ("a NUL byte", "a byte that starts no UTF-8 character", "an invalid UTF-8
/// sequence", "a UTF-8 character cut off by the end"), its offset in `*at`. With
/// `more_follows` (a window of a longer text), a character cut off by the window's end is no
/// problem. Pure; thread-safe.
inline const char* utf8Problem(const char* p, size_t n, size_t* at, bool more_follows = false) {
  for (size_t i = 0; i < n;) {
    const auto c = static_cast<unsigned char>(p[i]);
    const char* why = nullptr;
    size_t len = 0;
    if (c == 0) why = "a NUL byte";
    else if (c < 0x80) len = 1;
    else if ((c >> 5) == 6) len = 2;
    else if ((c >> 4) == 14) len = 3;
    else if ((c >> 3) == 30) len = 4;
    else why = "a byte that starts no UTF-8 character";
    if (!why && i + len > n) {
      if (more_follows) return nullptr;
      why = "a UTF-8 character cut off by the end";
    }
    for (size_t k = 1; !why && k < len; ++k)
      if ((static_cast<unsigned char>(p[i + k]) >> 6) != 2) why = "an invalid UTF-8 sequence";
    if (why) {
      *at = i;
      return why;
    }
    i += len;
  }
  return nullptr;
}

}  // namespace slidedp
