# Tests of probe/ (included from tests/CMakeLists.txt after find_package(GTest) and include(GoogleTest)).
#
#   probe_tests            unit tests on synthetic tables the test writes itself, and of the block
#                          cache on its own (labels probe;unit)
#   probe_stress           many threads, tiny cache, checked answers (labels probe;tsan): the
#                          ThreadSanitizer test when built with -DDTB_SANITIZE=thread
#   probe_consistency      exhaustive successor consistency on real 2-4 piece databases (probe;slow)
#   probe_c_api            the C API from a C99 program (probe;e2e)
#   probe_install_consumer `cmake --install` then a consumer project using find_package(dtb) (probe;install)
#   probe_portable_build   a default configure adds no -march=native, DTB_NATIVE=ON does (probe;install)
#   probe_cli_*            `dtb probe` and `dtb bench probe` (probe;e2e)
#
# The real databases come from `dtb gen --pieces 4`: the gen suite's fixture db4 when it is
# defined (tests/gen_tests.cmake), otherwise a fixture of our own.

if(NOT TARGET PkgConfig::ZSTD)
  pkg_check_modules(ZSTD REQUIRED IMPORTED_TARGET libzstd)
endif()
if(NOT TARGET PkgConfig::XXHASH)
  pkg_check_modules(XXHASH REQUIRED IMPORTED_TARGET libxxhash)
endif()

if(TEST cli_gen_2_4)
  set(DTB_PROBE_DB_FIXTURE db4)
  set(DTB_PROBE_DB ${CMAKE_CURRENT_BINARY_DIR}/db4)
else()
  set(DTB_PROBE_DB_FIXTURE probe_db4)
  set(DTB_PROBE_DB ${CMAKE_CURRENT_BINARY_DIR}/probe-db4)
  add_test(NAME probe_gen_db4 COMMAND $<TARGET_FILE:dtb> gen --pieces 4 --out ${DTB_PROBE_DB})
  set_tests_properties(probe_gen_db4 PROPERTIES FIXTURES_SETUP probe_db4 LABELS "probe;e2e" TIMEOUT 3600)
endif()

# Unit tests on synthetic tables.
add_executable(probe_tests probe/tablebase_test.cpp probe/alloc_test.cpp probe/block_cache_test.cpp
  probe/resident_test.cpp)
target_link_libraries(probe_tests PRIVATE dtb_probe PkgConfig::ZSTD PkgConfig::XXHASH GTest::gtest_main)
gtest_discover_tests(probe_tests
  TEST_PREFIX "probe."
  TEST_LIST probe_tests_TESTS
  DISCOVERY_TIMEOUT 60)
# gtest_discover_tests (CMake 3.25) splits every ';' of PROPERTIES, so a list such as LABELS
# "probe;unit" cannot pass through it; label the discovered tests from a file that ctest reads
# after the discovered list.
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/probe_tests_labels.cmake
  "foreach(t IN LISTS probe_tests_TESTS)\n  set_tests_properties(\"\${t}\" PROPERTIES LABELS \"probe;unit\")\nendforeach()\n")
set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${CMAKE_CURRENT_BINARY_DIR}/probe_tests_labels.cmake)

# Concurrency stress test: the one to run under ThreadSanitizer (ctest -L tsan).
add_executable(probe_stress_test probe/stress_test.cpp)
target_link_libraries(probe_stress_test PRIVATE dtb_probe PkgConfig::ZSTD PkgConfig::XXHASH GTest::gtest_main)
add_test(NAME probe_stress COMMAND probe_stress_test)
set_tests_properties(probe_stress PROPERTIES LABELS "probe;tsan" TIMEOUT 1200
  ENVIRONMENT "TSAN_OPTIONS=halt_on_error=1 second_deadlock_stack=1")

# Exhaustive successor consistency on the real databases (one ctest test; about 85 million
# positions, a minute or two on two cores).
add_executable(probe_consistency_tests probe/consistency_test.cpp)
target_link_libraries(probe_consistency_tests PRIVATE dtb_probe GTest::gtest_main)
add_test(NAME probe_consistency COMMAND probe_consistency_tests)
set_tests_properties(probe_consistency PROPERTIES
  LABELS "probe;slow"
  FIXTURES_REQUIRED ${DTB_PROBE_DB_FIXTURE}
  ENVIRONMENT "DTB_PROBE_DB=${DTB_PROBE_DB};DTB_PROBE_DB_PIECES=4"
  TIMEOUT 3600)

# The C API, compiled as C99.
add_executable(probe_c_api_test probe/c_api_test.c)
set_target_properties(probe_c_api_test PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF)
target_include_directories(probe_c_api_test PRIVATE ${PROJECT_SOURCE_DIR})
target_link_libraries(probe_c_api_test PRIVATE dtb_probe)
add_test(NAME probe_c_api COMMAND probe_c_api_test ${DTB_PROBE_DB})
set_tests_properties(probe_c_api PROPERTIES LABELS "probe;e2e" FIXTURES_REQUIRED ${DTB_PROBE_DB_FIXTURE})

# The command line: dtb probe and dtb bench probe.
add_test(NAME probe_cli COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/probe/cli_test.sh $<TARGET_FILE:dtb> ${DTB_PROBE_DB})
set_tests_properties(probe_cli PROPERTIES LABELS "probe;e2e" FIXTURES_REQUIRED ${DTB_PROBE_DB_FIXTURE})

# Install the package, then build the example consumer against it (C++ and C). Skipped in
# sanitizer builds, whose libraries a plain consumer cannot link.
if(NOT DTB_SANITIZE)
add_test(NAME probe_install_consumer
  COMMAND ${CMAKE_COMMAND}
    -DBUILD_DIR=${PROJECT_BINARY_DIR}
    -DEXAMPLE_DIR=${PROJECT_SOURCE_DIR}/probe/examples/engine
    -DWORK_DIR=${CMAKE_CURRENT_BINARY_DIR}/probe-install
    -DDB_DIR=${DTB_PROBE_DB}
    -DCMAKE_GENERATOR=${CMAKE_GENERATOR}
    -P ${CMAKE_CURRENT_LIST_DIR}/probe/consumer_test.cmake)
set_tests_properties(probe_install_consumer PROPERTIES
  LABELS "probe;install" FIXTURES_REQUIRED ${DTB_PROBE_DB_FIXTURE} TIMEOUT 600)
endif()

# A default configure is portable (no -march=native); DTB_NATIVE=ON is not.
add_test(NAME probe_portable_build
  COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${PROJECT_SOURCE_DIR} -DWORK_DIR=${CMAKE_CURRENT_BINARY_DIR}/portable-build
    -P ${CMAKE_CURRENT_LIST_DIR}/probe/portable_build_test.cmake)
set_tests_properties(probe_portable_build PROPERTIES LABELS "probe;install" TIMEOUT 300)

# The command line on hostile database folders (named pipes, folders, devices under a database
# file's name, folders without databases) and on option values refused at parsing.
add_test(NAME probe_cli_hostile COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/probe/cli_hostile_test.sh $<TARGET_FILE:dtb>)
set_tests_properties(probe_cli_hostile PROPERTIES LABELS "probe;e2e" TIMEOUT 600)
