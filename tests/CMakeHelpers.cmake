# kp_add_test(NAME SOURCES ... LIBS ... [LABELS ...]): one GoogleTest executable registered with
# CTest. Tests that need a GPU call GTEST_SKIP() with the reason when none is found, so CI shows
# them as skipped, never as passed. Test targets, and only they, know the source folder
# (KP_SOURCE_DIR, read through tests/source_tree.h, which an environment variable overrides).
include(GoogleTest)
# Test sources are compiled without optimisation: they are a third of a clean build's compile time
# and -O0 compiles them about a third faster (tests/analysis/remedies_test.cpp: 10.9 s -> 6.9 s);
# the code they exercise lives in the libraries, which keep the build type's -O2.
function(kp_test_target_settings target)
  target_compile_definitions(${target} PRIVATE KP_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  target_compile_options(${target} PRIVATE $<$<CONFIG:RelWithDebInfo,Release>:-O0>)
endfunction()

# KP_TEST_CACHE_DIR for a test that builds CUTLASS candidates: one compile cache they share, in the
# build tree (its keys carry source, flags, toolchain and guard policy, so a hit is always valid).
function(kp_use_test_cache target)
  target_compile_definitions(${target} PRIVATE KP_TEST_CACHE_DIR="${PROJECT_BINARY_DIR}/test-cache")
endfunction()

function(kp_add_test name)
  # COST: ctest starts costlier tests first (a clean clone has no timings yet), so a long one
  # runs beside the others instead of alone at the end.
  # RESOURCE_LOCK: tests holding the same lock never run at once (they share a cache, and the
  # second finds the first's builds).
  cmake_parse_arguments(ARG "" "COST;RESOURCE_LOCK" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_LIBS} GTest::gtest GTest::gtest_main)
  kp_test_target_settings(${name})
  set(props SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]")
  if(ARG_LABELS)
    list(APPEND props LABELS "${ARG_LABELS}")
  endif()
  if(ARG_COST)
    list(APPEND props COST ${ARG_COST})
  endif()
  if(ARG_RESOURCE_LOCK)
    list(APPEND props RESOURCE_LOCK ${ARG_RESOURCE_LOCK})
  endif()
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60 PROPERTIES ${props})
endfunction()
