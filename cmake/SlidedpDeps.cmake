# Finds every dependency of the build. All come from Debian packages (tools/setup.sh
# installs them) except LibTorch, which comes from PyPI's torch wheel, found the way
# PyTorch C++ projects find it: torch.utils.cmake_prefix_path of a Python interpreter.

find_package(MPI REQUIRED COMPONENTS C)
find_package(Boost 1.74 REQUIRED)                       # Interprocess is header-only
find_package(nlohmann_json 3.10 REQUIRED)
find_package(CLI11 REQUIRED)
find_package(spdlog REQUIRED)
find_package(fmt REQUIRED)
find_package(GTest REQUIRED)
find_package(Threads REQUIRED)
find_package(OpenMP REQUIRED COMPONENTS CXX)
find_library(NUMA_LIBRARY numa REQUIRED)
find_path(NUMA_INCLUDE_DIR numa.h REQUIRED)
add_library(slidedp_numa INTERFACE)
target_link_libraries(slidedp_numa INTERFACE ${NUMA_LIBRARY})
target_include_directories(slidedp_numa INTERFACE ${NUMA_INCLUDE_DIR})

find_program(MPIEXEC_EXECUTABLE_FOUND NAMES mpirun mpiexec REQUIRED)

# ---- CUDA / NCCL (compile wherever nvcc exists; run only where a GPU exists) --------
set(SLIDEDP_CUDA_ENABLED OFF)
if(NOT SLIDEDP_WITH_CUDA STREQUAL "OFF")
  if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    # Architectures come from TORCH_CUDA_ARCH_LIST (below): Caffe2Config overrides
    # CMAKE_CUDA_ARCHITECTURES with its own -gencode flags.
    set(CMAKE_CUDA_ARCHITECTURES OFF)
    set(CMAKE_CUDA_RUNTIME_LIBRARY Shared)
    enable_language(CUDA)
    find_package(CUDAToolkit REQUIRED)
    find_library(NCCL_LIBRARY nccl HINTS ${CUDAToolkit_LIBRARY_DIR} REQUIRED)
    find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS} REQUIRED)
    set(SLIDEDP_CUDA_ENABLED ON)
  elseif(SLIDEDP_WITH_CUDA STREQUAL "ON")
    message(FATAL_ERROR "SLIDEDP_WITH_CUDA=ON but no nvcc was found; install the CUDA toolkit "
                        "or configure with -DSLIDEDP_WITH_CUDA=OFF")
  endif()
endif()
message(STATUS "slidedp: CUDA/NCCL paths ${SLIDEDP_CUDA_ENABLED}")

# ---- LibTorch from the torch wheel -------------------------------------------------
if(NOT SLIDEDP_PYTHON)
  find_program(SLIDEDP_PYTHON_FOUND NAMES python3 REQUIRED)
  set(SLIDEDP_PYTHON ${SLIDEDP_PYTHON_FOUND})
endif()
execute_process(
  COMMAND ${SLIDEDP_PYTHON} -c "import torch; print(torch.utils.cmake_prefix_path); print(torch.__version__)"
  OUTPUT_VARIABLE _torch_out RESULT_VARIABLE _torch_rc ERROR_VARIABLE _torch_err
  OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT _torch_rc EQUAL 0)
  message(FATAL_ERROR "slidedp: '${SLIDEDP_PYTHON}' cannot import torch (${_torch_err}).\n"
                      "HINT: run tools/setup.sh, which installs torch==2.11.0 into a virtual "
                      "environment and passes -DSLIDEDP_PYTHON=<venv>/bin/python to CMake.")
endif()
string(REPLACE "\n" ";" _torch_lines "${_torch_out}")
list(GET _torch_lines 0 _torch_prefix)
list(GET _torch_lines 1 SLIDEDP_TORCH_VERSION)
list(APPEND CMAKE_PREFIX_PATH ${_torch_prefix})
if(NOT TORCH_CUDA_ARCH_LIST)
  # Caffe2Config's default list starts at sm_50, which nvcc 13 no longer accepts.
  set(TORCH_CUDA_ARCH_LIST "9.0")
endif()
if(NOT SLIDEDP_CUDA_ENABLED)
  set(USE_CUDA OFF)          # let Caffe2Config skip the CUDA libraries
endif()
find_package(Torch REQUIRED)
message(STATUS "slidedp: LibTorch ${SLIDEDP_TORCH_VERSION} from ${_torch_prefix}")
