# DLM_RUNTIME_ONLY=ON (tests/gpu/run.sh): configure only runtime/, kernels/ (with CUDA) and
# tests/gpu, for a GPU machine that has the CUDA toolkit and CMake but not LLVM 19 or ANTLR.
# Needs OpenBLAS, zlib and threads for the runtime; GoogleTest from the system or from a source
# tree given as -DDLM_GTEST_SOURCE=<googletest>.
find_package(ZLIB REQUIRED)
find_package(Threads REQUIRED)
find_library(OPENBLAS_LIBRARY NAMES openblas REQUIRED)
set(DLM_OPENBLAS ${OPENBLAS_LIBRARY})
find_path(OPENBLAS_INCLUDE_DIR NAMES cblas.h
          PATHS /usr/include/x86_64-linux-gnu/openblas-pthread /usr/include/openblas REQUIRED)
find_package(GTest QUIET)
if(NOT GTest_FOUND)
  set(DLM_GTEST_SOURCE "" CACHE PATH "googletest source tree when GTest is not installed")
  if(NOT DLM_GTEST_SOURCE)
    message(FATAL_ERROR "DLM_RUNTIME_ONLY: GoogleTest not found; pass -DDLM_GTEST_SOURCE=<googletest source tree>")
  endif()
  add_subdirectory(${DLM_GTEST_SOURCE} ${CMAKE_BINARY_DIR}/googletest EXCLUDE_FROM_ALL)
  add_library(GTest::gtest ALIAS gtest)
  add_library(GTest::gtest_main ALIAS gtest_main)
endif()

# The point of this mode is the CUDA side, so nvcc is required.
find_program(NVCC_EXECUTABLE nvcc HINTS /usr/local/cuda/bin REQUIRED)
set(DLM_HAVE_CUDA ON)
message(STATUS "dlm: runtime-only build, CUDA backend ON (${NVCC_EXECUTABLE})")

enable_testing()
add_subdirectory(${CMAKE_SOURCE_DIR}/runtime ${CMAKE_BINARY_DIR}/runtime)
add_subdirectory(${CMAKE_SOURCE_DIR}/kernels ${CMAKE_BINARY_DIR}/kernels)
add_subdirectory(${CMAKE_SOURCE_DIR}/tests/gpu ${CMAKE_BINARY_DIR}/tests/gpu)
