# FlashAttention-3's Hopper kernels (third_party/flash-attention-3, its README says which
# subset): target slidedp_fa3 where nvcc exists, unless -DSLIDEDP_FLASH_ATTENTION_3=OFF.
# The three CUDA files are compiled by custom commands with exactly upstream's flags
# (hopper/setup.py: sm_90a only, -O3, fast math, the FLASHATTENTION_DISABLE_* of the left-out
# features) rather than the project's CUDA flags, which carry Caffe2's sm_90 -gencode: wgmma
# and TMA exist only on sm_90a. Cost: about 2 min and 6.5 GB of memory for the backward file
# on one core (nvcc 13.0).
option(SLIDEDP_FLASH_ATTENTION_3 "Build FlashAttention-3 (sm_90a) for Hopper GPUs" ON)
set(SLIDEDP_FA3_ENABLED OFF)
if(SLIDEDP_CUDA_ENABLED AND SLIDEDP_FLASH_ATTENTION_3)
  if(CMAKE_CUDA_COMPILER_VERSION VERSION_LESS 12.3)
    message(STATUS "slidedp: FlashAttention-3 needs nvcc 12.3 or newer (found "
                   "${CMAKE_CUDA_COMPILER_VERSION}); Hopper attention stays on cuDNN")
  else()
    set(SLIDEDP_FA3_ENABLED ON)
  endif()
endif()
message(STATUS "slidedp: FlashAttention-3 ${SLIDEDP_FA3_ENABLED}")
if(NOT SLIDEDP_FA3_ENABLED)
  return()
endif()

set(_fa3 ${CMAKE_SOURCE_DIR}/third_party/flash-attention-3)
set(_fa3_features
  -DFLASHATTENTION_DISABLE_PAGEDKV -DFLASHATTENTION_DISABLE_SPLIT -DFLASHATTENTION_DISABLE_APPENDKV
  -DFLASHATTENTION_DISABLE_LOCAL -DFLASHATTENTION_DISABLE_SOFTCAP -DFLASHATTENTION_DISABLE_PACKGQA
  -DFLASHATTENTION_DISABLE_FP16 -DFLASHATTENTION_DISABLE_FP8 -DFLASHATTENTION_DISABLE_VARLEN
  -DFLASHATTENTION_DISABLE_CLUSTER -DFLASHATTENTION_DISABLE_HDIM64 -DFLASHATTENTION_DISABLE_HDIM96
  -DFLASHATTENTION_DISABLE_HDIM192 -DFLASHATTENTION_DISABLE_HDIM256 -DFLASHATTENTION_DISABLE_SM8x
  -DFLASH_ATTENTION_DISABLE_HDIMDIFF64 -DFLASH_ATTENTION_DISABLE_HDIMDIFF192)
set(_fa3_includes -I${_fa3}/hopper -I${_fa3}/cutlass/include)
if(EXISTS ${CUDAToolkit_INCLUDE_DIRS}/cccl)   # CUDA 13 keeps CCCL (cuda/std) there
  list(APPEND _fa3_includes -I${CUDAToolkit_INCLUDE_DIRS}/cccl)
endif()
set(_fa3_nvcc_flags
  -O3 -std=c++17 --use_fast_math --expt-relaxed-constexpr --expt-extended-lambda -lineinfo
  -DCUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED -DCUTLASS_ENABLE_GDC_FOR_SM90
  -DCUTLASS_DEBUG_TRACE_LEVEL=0 -DNDEBUG
  -D__CUDA_NO_HALF_OPERATORS__ -D__CUDA_NO_HALF_CONVERSIONS__
  -D__CUDA_NO_BFLOAT16_CONVERSIONS__ -D__CUDA_NO_HALF2_OPERATORS__
  -gencode arch=compute_90a,code=sm_90a -Xcompiler=-fPIC -w
  ${_fa3_features} ${_fa3_includes})
file(GLOB_RECURSE _fa3_headers ${_fa3}/hopper/*.h ${_fa3}/hopper/*.hpp)
set(_fa3_objects)
foreach(_src hopper/instantiations/flash_fwd_hdim128_bf16_sm90.cu
             hopper/instantiations/flash_bwd_hdim128_bf16_sm90.cu
             hopper/flash_prepare_scheduler.cu)
  get_filename_component(_name ${_src} NAME_WE)
  set(_obj ${CMAKE_CURRENT_BINARY_DIR}/fa3/${_name}.o)
  add_custom_command(
    OUTPUT ${_obj}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_CURRENT_BINARY_DIR}/fa3
    COMMAND ${CMAKE_CUDA_COMPILER_LAUNCHER} ${CMAKE_CUDA_COMPILER} ${_fa3_nvcc_flags}
            -c ${_fa3}/${_src} -o ${_obj}
    DEPENDS ${_fa3}/${_src} ${_fa3_headers}
    COMMENT "FlashAttention-3: ${_name} (sm_90a)"
    VERBATIM)
  list(APPEND _fa3_objects ${_obj})
endforeach()
set_source_files_properties(${_fa3_objects} PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)

add_library(slidedp_fa3 STATIC ${_fa3}/hopper/flash_api.cpp ${_fa3_objects})
target_include_directories(slidedp_fa3 SYSTEM PRIVATE ${_fa3}/hopper ${_fa3}/cutlass/include)
target_compile_definitions(slidedp_fa3 PRIVATE CUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED)
target_compile_options(slidedp_fa3 PRIVATE -w ${_fa3_features})
target_link_libraries(slidedp_fa3 PUBLIC ${TORCH_LIBRARIES} CUDA::cudart)
set_target_properties(slidedp_fa3 PROPERTIES POSITION_INDEPENDENT_CODE ON)
