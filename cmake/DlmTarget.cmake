# dlm_project_target(TARGET): the flags every target of this project's own code gets:
# warnings as errors (third-party headers come in as SYSTEM, so they do not count).
# -Wmaybe-uninitialized is off: at -O2 GCC 12 reports it inside libstdc++'s std::variant move
# constructor wherever an rt::Value is built from a temporary Tensor (a known false positive of
# that flow-sensitive warning); -Wuninitialized, which does not guess, stays on.
function(dlm_project_target target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Werror -Wno-unused-parameter
                                           -Wno-maybe-uninitialized)
  target_include_directories(${target} PUBLIC ${CMAKE_SOURCE_DIR})
endfunction()

# dlm_llvm(TARGET): link the shared libLLVM and see its headers as SYSTEM.
function(dlm_llvm target)
  target_include_directories(${target} SYSTEM PUBLIC ${LLVM_INCLUDE_DIRS})
  target_compile_definitions(${target} PUBLIC ${LLVM_DEFINITIONS})
  target_link_libraries(${target} PUBLIC LLVM)
endfunction()

# dlm_gtest(NAME SOURCES... LIBS ...): a GoogleTest executable registered with ctest.
function(dlm_gtest name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  dlm_project_target(${name})
  target_link_libraries(${name} PRIVATE ${ARG_LIBS} GTest::gtest GTest::gtest_main)
  include(GoogleTest)
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60)
endfunction()
