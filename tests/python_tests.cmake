# Tests of the Python module (python/, docs/PYTHON.md), when it is built (DTB_PYTHON). Included from
# tests/CMakeLists.txt.
#
#   python_module   pytest on tests/python/test_dtb.py against the 2-4 piece build with distances
#                   of the adjudication tests (fixture adjudicate_dtw4) and the dtb command line
#   python_install  `cmake --install --component python` puts the module where the interpreter finds it
if(NOT TARGET dtb_python)
  return()
endif()

execute_process(COMMAND ${Python3_EXECUTABLE} -c "import pytest" RESULT_VARIABLE DTB_NO_PYTEST OUTPUT_QUIET ERROR_QUIET)
if(DTB_NO_PYTEST)
  message(WARNING "${Python3_EXECUTABLE} has no pytest (Debian: python3-pytest): the test python_module will fail")
endif()
add_test(NAME python_module
  COMMAND ${Python3_EXECUTABLE} -m pytest -q -p no:cacheprovider ${CMAKE_CURRENT_LIST_DIR}/python/test_dtb.py)
set_tests_properties(python_module PROPERTIES
  FIXTURES_REQUIRED adjudicate_dtw4 LABELS python TIMEOUT 300
  ENVIRONMENT "PYTHONDONTWRITEBYTECODE=1;PYTHONPATH=$<TARGET_FILE_DIR:dtb_python>;DTB_EXE=$<TARGET_FILE:dtb>;DTB_DB=${DTB_ADJUDICATE_DTW4};DTB_PDN=${CMAKE_CURRENT_LIST_DIR}/data/pdn;DTB_SAMPLES=${CMAKE_CURRENT_LIST_DIR}/../samples")

add_test(NAME python_install
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/python/install_test.sh ${Python3_EXECUTABLE} ${PROJECT_BINARY_DIR}
          ${CMAKE_INSTALL_PREFIX} ${DTB_PYTHON_INSTALL_DIR})
set_tests_properties(python_install PROPERTIES LABELS "python;install")
