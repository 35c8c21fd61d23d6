# PDN reader and draw-rule tests. Included from tests/CMakeLists.txt after find_package(GTest)
# and include(GoogleTest); the test data lives next to this file, in data/pdn/.
set(DTB_PDN_TEST_DATA "${CMAKE_CURRENT_LIST_DIR}/data/pdn")
set(DTB_SAMPLES_DIR "${CMAKE_CURRENT_LIST_DIR}/../samples")

add_executable(pdn_tests ${CMAKE_CURRENT_LIST_DIR}/pdn/pdn_test.cpp)
target_link_libraries(pdn_tests PRIVATE dtb_rules GTest::gtest_main)
target_compile_definitions(pdn_tests PRIVATE
  DTB_PDN_TEST_DATA="${DTB_PDN_TEST_DATA}" DTB_SAMPLES_DIR="${DTB_SAMPLES_DIR}")
gtest_discover_tests(pdn_tests DISCOVERY_TIMEOUT 60)

add_executable(draw_rules_tests ${CMAKE_CURRENT_LIST_DIR}/rules/draw_rules_test.cpp)
target_link_libraries(draw_rules_tests PRIVATE dtb_rules GTest::gtest_main)
target_compile_definitions(draw_rules_tests PRIVATE
  DTB_PDN_TEST_DATA="${DTB_PDN_TEST_DATA}" DTB_SAMPLES_DIR="${DTB_SAMPLES_DIR}")
gtest_discover_tests(draw_rules_tests DISCOVERY_TIMEOUT 60)

# The game analysis, against databases solved in memory.
add_executable(adjudicator_tests ${CMAKE_CURRENT_LIST_DIR}/adjudicate/adjudicator_test.cpp)
target_include_directories(adjudicator_tests PRIVATE ${PROJECT_SOURCE_DIR})
target_link_libraries(adjudicator_tests PRIVATE dtb_adjudicate dtb_gen GTest::gtest_main GTest::gmock)
gtest_discover_tests(adjudicator_tests DISCOVERY_TIMEOUT 60 PROPERTIES LABELS adjudicate)

add_test(NAME adjudicate_cli COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/adjudicate/cli_test.sh $<TARGET_FILE:dtb>
  ${CMAKE_CURRENT_BINARY_DIR}/db4 ${CMAKE_CURRENT_LIST_DIR}/../samples)
set_tests_properties(adjudicate_cli PROPERTIES FIXTURES_REQUIRED db4 LABELS adjudicate)
include(${CMAKE_CURRENT_LIST_DIR}/adjudicate/forced_win_tests.cmake)

# Games judged in parallel on one Tablebase, compared with a serial run: the adjudication's
# ThreadSanitizer test (ctest -L tsan; scripts/test.sh builds it with -DDTB_SANITIZE=thread).
add_executable(adjudicate_parallel_test ${CMAKE_CURRENT_LIST_DIR}/adjudicate/parallel_test.cpp)
target_include_directories(adjudicate_parallel_test PRIVATE ${PROJECT_SOURCE_DIR})
target_link_libraries(adjudicate_parallel_test PRIVATE dtb_adjudicate dtb_gen GTest::gtest_main)
add_test(NAME adjudicate_parallel COMMAND adjudicate_parallel_test)
set_tests_properties(adjudicate_parallel PROPERTIES LABELS "adjudicate;tsan" TIMEOUT 1200
  ENVIRONMENT "TSAN_OPTIONS=halt_on_error=1 second_deadlock_stack=1")
