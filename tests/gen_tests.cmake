# Generator tests. Heavy ones carry the label "slow" (the sanitizer pass of scripts/test.sh skips them).
add_executable(gen_tests gen/solver_test.cpp gen/class_solver_test.cpp gen/build_test.cpp gen/slices_test.cpp gen/spill_test.cpp gen/memory_plan_test.cpp gen/workflow_test.cpp
               gen/upgrade_test.cpp
               gen/king_move_values_test.cpp gen/value_tables_test.cpp gen/encoding_test.cpp gen/man_move_targets_test.cpp)
target_include_directories(gen_tests PRIVATE ${PROJECT_SOURCE_DIR})
target_link_libraries(gen_tests PRIVATE dtb_gen PkgConfig::ZSTD PkgConfig::XXHASH GTest::gtest_main GTest::gmock)
gtest_discover_tests(gen_tests DISCOVERY_TIMEOUT 60 PROPERTIES LABELS gen)

# That the thread count changes no byte is checked by cli_gen_dtw_2_4 (tests/dtw_files_tests.cmake):
# a one-thread build against the fixture db4 below, built on every core.

add_executable(index_tests index/index_test.cpp index/king_classes_test.cpp index/level_configs_test.cpp)
target_link_libraries(index_tests PRIVATE dtb_index GTest::gtest_main)
gtest_discover_tests(index_tests DISCOVERY_TIMEOUT 60 PROPERTIES LABELS index)

# End to end through the command line: build 2-4 pieces, verify them, and the refusals
# (bad options, kills at random moments, a full disk).
add_test(NAME cli_gen_2_4 COMMAND $<TARGET_FILE:dtb> gen --pieces 4 --out ${CMAKE_CURRENT_BINARY_DIR}/db4)
set_tests_properties(cli_gen_2_4 PROPERTIES FIXTURES_SETUP db4 LABELS "gen;e2e;slow")
add_test(NAME cli_verify_2_4 COMMAND $<TARGET_FILE:dtb> verify --db ${CMAKE_CURRENT_BINARY_DIR}/db4)
set_tests_properties(cli_verify_2_4 PROPERTIES FIXTURES_REQUIRED db4 LABELS "gen;e2e;slow")
add_test(NAME cli_verify_record COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/gen/verify_record_cli.sh $<TARGET_FILE:dtb>
         ${CMAKE_CURRENT_BINARY_DIR}/db4 ${CMAKE_CURRENT_BINARY_DIR}/verify_record)
set_tests_properties(cli_verify_record PROPERTIES FIXTURES_REQUIRED db4 LABELS "gen;e2e;slow")
add_test(NAME cli_upgrade COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/gen/upgrade_cli.sh $<TARGET_FILE:dtb>
         ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/upgrade_cli)
set_tests_properties(cli_upgrade PROPERTIES LABELS "gen;e2e")
add_test(NAME cli_gen_refusals COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/gen/cli_refusals.sh $<TARGET_FILE:dtb>
         ${CMAKE_CURRENT_BINARY_DIR}/db4)
set_tests_properties(cli_gen_refusals PROPERTIES FIXTURES_REQUIRED db4 LABELS "gen;e2e;slow")
# dtb plan: the 2-4 plan through make -j2 and Snakemake gives dtb gen's bytes; dtb gen --task.
add_test(NAME cli_workflow_2_4 COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/gen/workflow_cli.sh $<TARGET_FILE:dtb>
         ${CMAKE_CURRENT_BINARY_DIR}/db4 ${CMAKE_CURRENT_BINARY_DIR}/workflow4)
set_tests_properties(cli_workflow_2_4 PROPERTIES FIXTURES_REQUIRED db4 LABELS "gen;e2e;slow" TIMEOUT 1800)
# The same plan through snakemake --slurm on a single-node Slurm started for the test
# (scripts/slurm-local.sh; Debian slurm-wlm and munge).
add_test(NAME cli_workflow_slurm_2_4 COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/gen/workflow_slurm.sh $<TARGET_FILE:dtb>
         ${CMAKE_CURRENT_BINARY_DIR}/db4 ${CMAKE_CURRENT_BINARY_DIR}/workflow-slurm4)
set_tests_properties(cli_workflow_slurm_2_4 PROPERTIES FIXTURES_REQUIRED db4 LABELS "gen;e2e;slow" TIMEOUT 1800)
# The portable dtb hands over to its x86-64-v3 build where the CPU allows: which one runs, and the
# same bytes from both (DTB_FASTER_BUILD, tools/faster_build.hpp).
if(TARGET dtb_x86_64_v3)
  add_executable(cpu_level ${CMAKE_CURRENT_LIST_DIR}/gen/cpu_level.c)
  add_test(NAME cli_faster_build COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/gen/faster_build_cli.sh $<TARGET_FILE:dtb>
           ${CMAKE_CURRENT_BINARY_DIR}/db4 ${CMAKE_CURRENT_BINARY_DIR}/faster-build $<TARGET_FILE:cpu_level>)
  set_tests_properties(cli_faster_build PROPERTIES FIXTURES_REQUIRED db4 LABELS "gen;e2e;slow")
endif()
