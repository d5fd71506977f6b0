// Where the tests' shared fixtures are (../shared, or the folder the build was configured with).
#pragma once

#include <cstdlib>
#include <string>

namespace slidedp::test {

/// The shared fixtures' folder: $SLIDEDP_SHARED_DIR, else the one the build was configured with.
inline std::string sharedDir() {
  const char* env = std::getenv("SLIDEDP_SHARED_DIR");
  return env ? env : SLIDEDP_SHARED_DIR;
}
/// The real stories260K model of the shared fixtures (Hugging Face format).
inline std::string stories() { return sharedDir() + "/models/stories260K"; }

}  // namespace slidedp::test
