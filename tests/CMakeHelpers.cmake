# kp_add_test(NAME SOURCES ... LIBS ... [LABELS ...]): one GoogleTest executable registered with
# CTest. Tests that need a GPU call GTEST_SKIP() with the reason when none is found, so CI shows
# them as skipped, never as passed. Test targets, and only they, know the source folder
# (KP_SOURCE_DIR, read through tests/source_tree.h, which an environment variable overrides).
include(GoogleTest)
function(kp_add_test_paths target)
  target_compile_definitions(${target} PRIVATE KP_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
endfunction()

function(kp_add_test name)
  # COST: ctest starts costlier tests first (a clean clone has no timings yet), so a long one
  # runs beside the others instead of alone at the end.
  cmake_parse_arguments(ARG "" "COST" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_LIBS} GTest::gtest GTest::gtest_main)
  kp_add_test_paths(${name})
  set(props SKIP_REGULAR_EXPRESSION "\\[  SKIPPED \\]")
  if(ARG_LABELS)
    list(APPEND props LABELS "${ARG_LABELS}")
  endif()
  if(ARG_COST)
    list(APPEND props COST ${ARG_COST})
  endif()
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60 PROPERTIES ${props})
endfunction()
