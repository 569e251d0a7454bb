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

# Which LLVM, ANTLR and OpenBLAS an executable links is decided per executable: one marked
# DLM_STATIC_DEPS (dlm_llvm(EXE STATIC), cmake/DlmStaticLink.cmake) gets their static archives,
# every other one the shared libraries. A library names both as
# "$<IF:${DLM_IF_STATIC},STATIC_LIB,SHARED_LIB>"; in its interface the condition is evaluated for
# the executable being linked, so one copy of each library serves both kinds of binary.
set(DLM_IF_STATIC "$<BOOL:$<TARGET_PROPERTY:DLM_STATIC_DEPS>>")

# dlm_llvm(TARGET [STATIC]): see LLVM's headers as SYSTEM and link LLVM: the shared libLLVM, or
# its static component libraries (dlm_llvm_static) in an executable marked STATIC. STATIC (a
# tool: dlm, dlmc, dlm-opt) takes effect with DLM_STATIC_LLVM on: the executable is
# linked non-PIE with the static LLVM, ANTLR and OpenBLAS (no relocations left for the dynamic
# loader, no libLLVM.so), through lld where there is one (a 60+ MB link in seconds).
function(dlm_llvm target)
  cmake_parse_arguments(ARG "STATIC" "" "" ${ARGN})
  target_include_directories(${target} SYSTEM PUBLIC ${LLVM_INCLUDE_DIRS})
  target_compile_definitions(${target} PUBLIC ${LLVM_DEFINITIONS})
  target_link_libraries(${target} PUBLIC "$<IF:${DLM_IF_STATIC},dlm_llvm_static,LLVM>")
  if(ARG_STATIC AND DLM_STATIC_LLVM)
    # No run path: its shared libraries are the system's (it would only add failed opens in
    # LLVM's directory to every start).
    set_target_properties(${target} PROPERTIES DLM_STATIC_DEPS ON SKIP_BUILD_RPATH ON)
    # --as-needed: of the system libraries LLVM's archives name (z3, xml2, ...), only those the
    # linked objects use become dependencies. --gc-sections drops unreferenced functions (-11% size).
    target_link_options(${target} PRIVATE -no-pie LINKER:--as-needed LINKER:--gc-sections
                                          ${DLM_STATIC_LINKER})
    # The C++ runtime too (its ~5000 relocations: -2 ms of CPU per start), except in a CUDA
    # build: there the tools dlopen the CUDA backend, which (like cuBLAS) uses the shared
    # libstdc++, and runtime errors are exceptions thrown across it: one C++ runtime per process.
    # Nor under the sanitizers, whose run-time library replaces operator new and delete.
    if(NOT DLM_HAVE_CUDA AND NOT DLM_SANITIZE)
      target_link_options(${target} PRIVATE -static-libstdc++ -static-libgcc)
    endif()
  endif()
endfunction()

# dlm_gtest(NAME SOURCES... LIBS ...): a GoogleTest executable registered with ctest.
function(dlm_gtest name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  dlm_project_target(${name})
  target_link_libraries(${name} PRIVATE ${ARG_LIBS} GTest::gtest GTest::gtest_main)
  include(GoogleTest)
  if(DLM_TSAN AND name IN_LIST DLM_TSAN_GTESTS)
    # tests/tsan.list names it: `make test-tsan` (ctest -L tsan) runs its tests.
    gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60
                         PROPERTIES LABELS tsan ENVIRONMENT "TSAN_OPTIONS=${DLM_TSAN_OPTIONS}")
  else()
    gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60)
  endif()
endfunction()
