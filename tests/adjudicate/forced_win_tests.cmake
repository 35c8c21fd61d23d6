# Tests of the forced-win search (probe/forced_win.hpp) and of the 16-move verdicts it gives.
# Included from tests/adjudicate_tests.cmake, after find_package(GTest) and include(GoogleTest).

# The search against databases solved in memory and against a brute force (a few seconds).
add_executable(forced_win_tests ${CMAKE_CURRENT_LIST_DIR}/forced_win_test.cpp)
target_include_directories(forced_win_tests PRIVATE ${PROJECT_SOURCE_DIR})
target_link_libraries(forced_win_tests PRIVATE dtb_adjudicate dtb_gen GTest::gtest_main GTest::gmock)
gtest_discover_tests(forced_win_tests DISCOVERY_TIMEOUT 60 PROPERTIES LABELS adjudicate)

# End to end on a real 2-4 piece build with distances to win (dtb gen --pieces 4 --dtw, about ten
# seconds in Release): the games of data/pdn/sixteen_move_wins.pdn through analyse_game and through
# `dtb adjudicate`. Labelled slow, so the sanitizer pass of scripts/test.sh skips them.
set(DTB_ADJUDICATE_DTW4 ${CMAKE_CURRENT_BINARY_DIR}/adjudicate-dtw4)
set(DTB_ADJUDICATE_PDN ${CMAKE_CURRENT_LIST_DIR}/../data/pdn)
add_test(NAME adjudicate_gen_dtw_2_4 COMMAND $<TARGET_FILE:dtb> gen --pieces 4 --dtw --out ${DTB_ADJUDICATE_DTW4})
set_tests_properties(adjudicate_gen_dtw_2_4 PROPERTIES FIXTURES_SETUP adjudicate_dtw4 LABELS "adjudicate;slow" TIMEOUT 3600)

add_executable(forced_win_db_tests ${CMAKE_CURRENT_LIST_DIR}/forced_win_db_test.cpp)
target_include_directories(forced_win_db_tests PRIVATE ${PROJECT_SOURCE_DIR})
target_link_libraries(forced_win_db_tests PRIVATE dtb_adjudicate dtb_gen GTest::gtest_main GTest::gmock)
add_test(NAME adjudicate_sixteen_moves_library COMMAND forced_win_db_tests)
set_tests_properties(adjudicate_sixteen_moves_library PROPERTIES
  FIXTURES_REQUIRED adjudicate_dtw4 LABELS "adjudicate;slow"
  ENVIRONMENT "DTB_ADJUDICATE_DB=${DTB_ADJUDICATE_DTW4};DTB_ADJUDICATE_PDN=${DTB_ADJUDICATE_PDN}")

add_test(NAME adjudicate_sixteen_moves_cli COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/cli_sixteen_test.sh
  $<TARGET_FILE:dtb> ${DTB_ADJUDICATE_DTW4} ${DTB_ADJUDICATE_PDN})
set_tests_properties(adjudicate_sixteen_moves_cli PROPERTIES FIXTURES_REQUIRED adjudicate_dtw4 LABELS "adjudicate;slow")

# probe_root (probe/root.hpp) on the same build: it needs the DTW files and the brute force above.
add_executable(probe_root_tests ${CMAKE_CURRENT_LIST_DIR}/../probe/root_test.cpp)
target_include_directories(probe_root_tests PRIVATE ${PROJECT_SOURCE_DIR})
target_link_libraries(probe_root_tests PRIVATE dtb_probe dtb_gen GTest::gtest_main)
add_test(NAME probe_root_library COMMAND probe_root_tests)
set_tests_properties(probe_root_library PROPERTIES
  FIXTURES_REQUIRED adjudicate_dtw4 LABELS "probe;slow"
  ENVIRONMENT "DTB_ADJUDICATE_DB=${DTB_ADJUDICATE_DTW4};DTB_ADJUDICATE_PDN=${DTB_ADJUDICATE_PDN}")

add_executable(probe_c_api_root_test ${CMAKE_CURRENT_LIST_DIR}/../probe/c_api_root_test.c)
set_target_properties(probe_c_api_root_test PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF)
target_include_directories(probe_c_api_root_test PRIVATE ${PROJECT_SOURCE_DIR})
target_link_libraries(probe_c_api_root_test PRIVATE dtb_probe)
add_test(NAME probe_c_api_root COMMAND probe_c_api_root_test ${DTB_ADJUDICATE_DTW4})
set_tests_properties(probe_c_api_root PROPERTIES FIXTURES_REQUIRED adjudicate_dtw4 LABELS "probe;slow")
