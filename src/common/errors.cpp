#include "common/errors.h"

#include <mpi.h>

#include <cstdio>
#include <cstdlib>

namespace slidedp {

void assertFail(const char* expr, const char* file, int line, const std::string& msg) {
  std::fprintf(stderr, "slidedp internal error: %s:%d: assertion '%s' failed: %s\n", file, line,
               expr, msg.c_str());
  std::fflush(stderr);
  std::abort();
}

void mpiFail(const char* call, const char* file, int line, int rc) {
  char text[MPI_MAX_ERROR_STRING] = {0};
  int len = 0;
  MPI_Error_string(rc, text, &len);
  throw std::runtime_error(fmt::format("{}:{}: {} failed: {}", file, line, call, text));
}

}  // namespace slidedp
