# DTW files end to end: dtb gen --dtw on 2-3 pieces, read back by the builder, Tablebase::probe_dtw
# and the C API; determinism, resume, corruption (a few seconds).
add_executable(dtw_files_tests dtw/dtw_files_test.cpp)
target_include_directories(dtw_files_tests PRIVATE ${PROJECT_SOURCE_DIR})
target_link_libraries(dtw_files_tests PRIVATE dtb_gen dtb_probe GTest::gtest_main)
gtest_discover_tests(dtw_files_tests DISCOVERY_TIMEOUT 60 PROPERTIES LABELS gen)

# The same on 2-4 pieces through the command line: builds on 1 and 2 threads, under a tiny
# --memory, killed and resumed, give the same bytes, also as the WDL-only build of the fixture db4
# (tests/gen_tests.cmake), and a deleted 4-piece .dtw file is rebuilt identically (about a minute).
add_test(NAME cli_gen_dtw_2_4 COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/dtw/gen_dtw_2_4.sh $<TARGET_FILE:dtb>
         ${CMAKE_CURRENT_BINARY_DIR}/dtw4 ${CMAKE_CURRENT_BINARY_DIR}/db4)
set_tests_properties(cli_gen_dtw_2_4 PROPERTIES FIXTURES_REQUIRED db4 LABELS "gen;e2e;slow" TIMEOUT 3600)

add_test(NAME cli_line COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/dtw/line_test.sh $<TARGET_FILE:dtb>)
set_tests_properties(cli_line PROPERTIES LABELS gen)

# The default (losses-only) DTW files of a 2-4 build read back exactly as the in-memory solver
# gives them, by the builder's loader and by probe_dtw (about a minute).
add_executable(dtw_files_slow_tests dtw/dtw_files_4_test.cpp)
target_include_directories(dtw_files_slow_tests PRIVATE ${PROJECT_SOURCE_DIR})
target_link_libraries(dtw_files_slow_tests PRIVATE dtb_gen dtb_probe GTest::gtest_main)
# It reads the build of the fixture adjudicate_dtw4 (tests/adjudicate/forced_win_tests.cmake).
gtest_discover_tests(dtw_files_slow_tests DISCOVERY_TIMEOUT 60 PROPERTIES LABELS slow TIMEOUT 3600
  FIXTURES_REQUIRED adjudicate_dtw4 ENVIRONMENT DTB_DTW4=${DTB_ADJUDICATE_DTW4})
