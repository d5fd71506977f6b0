# Test registration helpers, used by every tests/*/CMakeLists.txt.
#
#   slidedp_add_gtest(NAME SOURCES s.cpp... [LIBS l...] [LABELS x...] [TIMEOUT s] [GPU])
#       a GoogleTest binary run once by CTest (gtest_main). GPU: built wherever CUDA is built
#       (so CI compiles it), registered with CTest only where a GPU is present.
#   slidedp_add_mpi_gtest(NAME SOURCES ... [LIBS ...] NP 2 3 5 [ARGS ...] [TIMEOUT s])
#       a GoogleTest binary with tests/common/mpi_gtest_main.cpp, registered once per rank
#       count as NAME_npN and run under mpirun (--oversubscribe: CI has 2 cores).
#
# GPU tests: register them only inside if(SLIDEDP_HAVE_GPU) with LABELS gpu, so a machine
# without a GPU neither runs nor counts them (they are never reported as passed there).

include(GoogleTest)

# SLIDEDP_ASSUME_GPUS=N registers the GPU tests as if N GPUs were present: for building them on a
# machine without one for a GPU machine that runs them there (tools/gpu-prebuild.sh --tests).
set(SLIDEDP_ASSUME_GPUS 0 CACHE STRING "Register GPU tests for N GPUs without a GPU here (prebuilding)")
execute_process(COMMAND nvidia-smi -L RESULT_VARIABLE _smi_rc OUTPUT_VARIABLE _smi_out ERROR_QUIET)
if(SLIDEDP_ASSUME_GPUS GREATER 0 AND SLIDEDP_CUDA_ENABLED)
  set(SLIDEDP_HAVE_GPU ON)
  set(SLIDEDP_GPU_COUNT ${SLIDEDP_ASSUME_GPUS})
elseif(_smi_rc EQUAL 0 AND _smi_out MATCHES "GPU 0" AND SLIDEDP_CUDA_ENABLED)
  set(SLIDEDP_HAVE_GPU ON)
  string(REGEX MATCHALL "GPU [0-9]+:" _gpus "${_smi_out}")
  list(LENGTH _gpus SLIDEDP_GPU_COUNT)
else()
  set(SLIDEDP_HAVE_GPU OFF)
  set(SLIDEDP_GPU_COUNT 0)
endif()
message(STATUS "slidedp: GPU tests ${SLIDEDP_HAVE_GPU}, ${SLIDEDP_GPU_COUNT} GPU(s) (registered only where nvidia-smi sees a GPU and CUDA is built, or for SLIDEDP_ASSUME_GPUS)")

# mpirun as root needs these (CI and the GPU machine run as root).
set(SLIDEDP_MPIRUN ${MPIEXEC_EXECUTABLE_FOUND} --oversubscribe --bind-to none
    --mca btl self,vader --mca btl_vader_single_copy_mechanism none)
set(SLIDEDP_TEST_ENV "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1;NCCL_NVLS_ENABLE=0")

function(slidedp_add_gtest name)
  cmake_parse_arguments(A "GPU" "TIMEOUT" "SOURCES;LIBS;LABELS" ${ARGN})
  if(NOT A_TIMEOUT)
    set(A_TIMEOUT 300)
  endif()
  add_executable(${name} ${A_SOURCES})
  target_link_libraries(${name} PRIVATE ${A_LIBS} GTest::gtest GTest::gtest_main)
  if(A_GPU AND NOT SLIDEDP_HAVE_GPU)
    return()
  endif()
  add_test(NAME ${name} COMMAND ${name})
  set_tests_properties(${name} PROPERTIES TIMEOUT ${A_TIMEOUT} LABELS "${A_LABELS}"
                       ENVIRONMENT "${SLIDEDP_TEST_ENV};SLIDEDP_BUILD_DIR=${CMAKE_BINARY_DIR};SLIDEDP_SOURCE_DIR=${CMAKE_SOURCE_DIR}")
endfunction()

function(slidedp_add_mpi_gtest name)
  cmake_parse_arguments(A "" "TIMEOUT" "SOURCES;LIBS;LABELS;NP;ARGS" ${ARGN})
  if(NOT A_TIMEOUT)
    set(A_TIMEOUT 300)
  endif()
  add_executable(${name} ${A_SOURCES} ${CMAKE_SOURCE_DIR}/tests/common/mpi_gtest_main.cpp)
  target_include_directories(${name} PRIVATE ${CMAKE_SOURCE_DIR}/tests)  # tests/common/*.h
  target_link_libraries(${name} PRIVATE ${A_LIBS} GTest::gtest MPI::MPI_C)
  foreach(np ${A_NP})
    add_test(NAME ${name}_np${np}
             COMMAND ${SLIDEDP_MPIRUN} -np ${np} $<TARGET_FILE:${name}> ${A_ARGS})
    set_tests_properties(${name}_np${np} PROPERTIES TIMEOUT ${A_TIMEOUT} LABELS "mpi;${A_LABELS}"
                         PROCESSORS 1
                         ENVIRONMENT "${SLIDEDP_TEST_ENV};SLIDEDP_BUILD_DIR=${CMAKE_BINARY_DIR};SLIDEDP_SOURCE_DIR=${CMAKE_SOURCE_DIR}")
  endforeach()
endfunction()
