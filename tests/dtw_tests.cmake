# Distance-to-win solver: published longest wins, successor consistency, determinism (2-3 pieces,
# about a second). One label only: gtest_discover_tests splits a "a;b" label list into two properties.
add_executable(dtw_tests dtw/dtw_test.cpp)
target_include_directories(dtw_tests PRIVATE ${PROJECT_SOURCE_DIR})
target_link_libraries(dtw_tests PRIVATE dtb_gen GTest::gtest_main)
gtest_discover_tests(dtw_tests DISCOVERY_TIMEOUT 60 PROPERTIES LABELS gen)
