# A default configure builds the library for the compiler's default target (no -march=native), so
# that an installed library runs on other machines; -DDTB_NATIVE=ON asks for -march=native.
# Run with: cmake -DSOURCE_DIR=... -DWORK_DIR=... -P portable_build_test.cmake
foreach(var SOURCE_DIR WORK_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "portable_build_test.cmake: ${var} is not set")
  endif()
endforeach()

# Configures SOURCE_DIR into WORK_DIR/<name> with the given options and sets `flags` to the
# compile flags of the probing library.
function(configure name)
  set(dir ${WORK_DIR}/${name})
  file(REMOVE_RECURSE ${dir})
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${dir} -G "Unix Makefiles"
                          -DCMAKE_BUILD_TYPE=Release -DDTB_TESTS=OFF ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "configure ${name} failed (${rc}):\n${out}\n${err}")
  endif()
  file(READ ${dir}/probe/CMakeFiles/dtb_probe.dir/flags.make text)
  set(flags "${text}" PARENT_SCOPE)
  file(REMOVE_RECURSE ${dir})
endfunction()

configure(default)
if(flags MATCHES "-march=")
  message(FATAL_ERROR "a default configure builds for one CPU:\n${flags}")
endif()
configure(native -DDTB_NATIVE=ON)
if(NOT flags MATCHES "-march=native")
  message(FATAL_ERROR "-DDTB_NATIVE=ON did not add -march=native:\n${flags}")
endif()
message(STATUS "default build portable, DTB_NATIVE=ON native")
