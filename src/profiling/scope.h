// A named range for the profiler (profiling/gpu_profile.h, the Chrome trace of a torch
// profiler session): an at::RecordFunction of USER_SCOPE, which costs a thread-local check when
// no profiler is active. GPU work launched inside it is attributed to its name.
#pragma once

#include <ATen/record_function.h>

#include <string>

namespace slidedp::profiling {

class Scope {
 public:
  /// `suffix` is appended to `name` when given. Thread: the range belongs to the calling thread.
  explicit Scope(const char* name, const char* suffix = nullptr) : rf_(at::RecordScope::USER_SCOPE) {
    if (rf_.isActive()) rf_.before(suffix ? std::string(name) + suffix : std::string(name));
  }

 private:
  at::RecordFunction rf_;
};

/// f() inside Scope(name); returns what f returns.
template <class F>
auto scoped(const char* name, F&& f) {
  Scope s(name);
  return f();
}

}  // namespace slidedp::profiling
