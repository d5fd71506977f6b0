// Errors, in the two tiers of the house style (faiss FaissAssert.h):
//  - SLIDEDP_ASSERT: an internal invariant; prints file:line and aborts the process
//    (the job-wide handler in runtime/ then takes every rank down).
//  - slidedp::UserError (and subclasses): a user or configuration error; the message says
//    what was expected, what was found and what to do (a "HINT:" line, as llm.c prints).
// One check macro per library prints that library's own error string: MPI_CHECK here,
// CUDA_CHECK / NCCL_CHECK in cuda/checks.h.
#pragma once

#include <stdexcept>
#include <string>

#include <fmt/format.h>

namespace slidedp {

/// A user or configuration error (bad flag, bad file, too little memory): clear message,
/// non-zero exit on every rank. Never an internal bug.
class UserError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A bounded wait ran out of time; the message names the rank and the counter.
class TimeoutError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Another rank failed first; the message carries that rank's first error.
class JobAbortedError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

[[noreturn]] void assertFail(const char* expr, const char* file, int line, const std::string& msg);

/// Throws UserError(fmt::format(...)).
template <typename... Args>
[[noreturn]] void throwUserError(fmt::format_string<Args...> f, Args&&... args) {
  throw UserError(fmt::format(f, std::forward<Args>(args)...));
}

}  // namespace slidedp

#define SLIDEDP_ASSERT(cond, ...)                                                        \
  do {                                                                                   \
    if (!(cond)) ::slidedp::assertFail(#cond, __FILE__, __LINE__, ::fmt::format(__VA_ARGS__)); \
  } while (0)

/// Checks an MPI call; on failure throws std::runtime_error with MPI's error string.
#define MPI_CHECK(call)                                                                  \
  do {                                                                                   \
    int mpi_check_rc_ = (call);                                                          \
    if (mpi_check_rc_ != 0) ::slidedp::mpiFail(#call, __FILE__, __LINE__, mpi_check_rc_); \
  } while (0)

namespace slidedp {
[[noreturn]] void mpiFail(const char* call, const char* file, int line, int rc);
}
