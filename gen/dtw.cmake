# Distance-to-win solver (DTW), part of dtb_gen; included from gen/CMakeLists.txt.
target_sources(dtb_gen PRIVATE ${CMAKE_CURRENT_LIST_DIR}/dtw_solver.cpp)
