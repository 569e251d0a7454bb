# DLM_SANITIZE: which sanitizers every target of the build is compiled and linked with, each in a
# build tree of its own (docs/testing.md "Sanitizers"):
#   OFF                 none (the default);
#   ON (or "address")   AddressSanitizer + UndefinedBehaviorSanitizer, LeakSanitizer with them;
#                       `make test-asan` (Debug, build-asan/);
#   thread              ThreadSanitizer; `make test-tsan` (-O2 with line tables, build-tsan/),
#                       which runs the tests tests/tsan.list names (ctest label `tsan`).
# DLM_SANITIZER_FLAGS holds the -fsanitize= flag, for what links outside CMake (AOT executables:
# compiler/codegen/CMakeLists.txt).
set(DLM_SANITIZE OFF CACHE STRING "Sanitizers: OFF, ON or address (ASan + UBSan), thread (TSan)")
set_property(CACHE DLM_SANITIZE PROPERTY STRINGS OFF ON address thread)
set(DLM_SANITIZER_FLAGS "")
set(DLM_TSAN OFF)
if(NOT DLM_SANITIZE)
  # OFF (or any of CMake's false constants).
elseif(DLM_SANITIZE STREQUAL "thread")
  set(DLM_TSAN ON)
  set(DLM_SANITIZER_FLAGS -fsanitize=thread)
  # -g1: line tables (file:line in every report's stacks) without the full debug information,
  # which would double the build's time and size.
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer -g1)
  add_link_options(-fsanitize=thread)
elseif(DLM_SANITIZE MATCHES "^(ON|On|on|1|TRUE|True|true|YES|Yes|yes|address)$")
  set(DLM_SANITIZER_FLAGS -fsanitize=address,undefined)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
else()
  message(FATAL_ERROR "DLM_SANITIZE='${DLM_SANITIZE}': expected OFF, ON, address or thread")
endif()

# What a ThreadSanitizer run is told: third-party suppressions, stop at the first report with
# SIGABRT (TSan's default is exit status 66 at the end, which a test expecting a failure would
# take for one).
set(DLM_TSAN_OPTIONS "")
set(DLM_TSAN_LIT "")
set(DLM_TSAN_GTESTS "")
if(DLM_TSAN)
  set(DLM_TSAN_OPTIONS
      "suppressions=${CMAKE_SOURCE_DIR}/tests/tsan.supp:halt_on_error=1:abort_on_error=1:second_deadlock_stack=1")
  # tests/tsan.list: the lit paths (one ctest entry, tests/CMakeLists.txt) and the gtest
  # executables (dlm_gtest labels their tests) `make test-tsan` runs.
  file(STRINGS ${CMAKE_SOURCE_DIR}/tests/tsan.list tsan_lines REGEX "^[^#]")
  foreach(line IN LISTS tsan_lines)
    if(line MATCHES "^lit +([^ ]+) *$")
      if(NOT EXISTS ${CMAKE_SOURCE_DIR}/${CMAKE_MATCH_1})
        message(FATAL_ERROR "tests/tsan.list: no ${CMAKE_MATCH_1}")
      endif()
      list(APPEND DLM_TSAN_LIT ${CMAKE_SOURCE_DIR}/${CMAKE_MATCH_1})
    elseif(line MATCHES "^gtest +([^ ]+) *$")
      list(APPEND DLM_TSAN_GTESTS ${CMAKE_MATCH_1})
    elseif(NOT line MATCHES "^ *$")
      message(FATAL_ERROR "tests/tsan.list: expected 'lit PATH' or 'gtest NAME', not '${line}'")
    endif()
  endforeach()
endif()
