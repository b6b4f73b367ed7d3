# Run as: cmake -DLIEVI_BINARY_DIR=... -DCONSUMER_SOURCE_DIR=... -DWORK_DIR=... -P install_test.cmake
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "command failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
endfunction()
run(${CMAKE_COMMAND} --install ${LIEVI_BINARY_DIR} --prefix ${prefix})
# 1. find_package(lievi), with the compiler lievi was built with (a static liblievi from Clang needs Clang's
# OpenMP runtime, which find_package(OpenMP) of another compiler would not name)
run(${CMAKE_COMMAND} -S ${CONSUMER_SOURCE_DIR} -B ${WORK_DIR}/build -G ${GENERATOR}
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=${CXX_COMPILER})
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
run(${WORK_DIR}/build/consumer)
run(${WORK_DIR}/build/consumer_models)
# 2. the installed program writes fields.h5 with the installed HDF5 module (<prefix>/<libdir>/lievi/), which
# it finds beside itself; the dynamic loader's trace (LD_DEBUG=files) names the file it opened.
file(GLOB_RECURSE installed_module ${prefix}/*/lievi/liblievi_hdf5.so)
if(installed_module AND EXISTS ${prefix}/bin/lievi)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env LD_DEBUG=files
      ${prefix}/bin/lievi run ${CONSUMER_SOURCE_DIR}/../../../examples/wave/deterministic.toml
      --set integrator.t_end=0.01 --set output.plots=false --out ${WORK_DIR}/wave --force
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 OR NOT EXISTS ${WORK_DIR}/wave/fields.h5)
    message(FATAL_ERROR "installed lievi did not write fields.h5 (${rc}):\n${out}\n${err}")
  endif()
  string(FIND "${err}" "file=${installed_module} [0];  dynamically loaded" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "installed lievi did not load the installed module ${installed_module}:\n${err}")
  endif()
elseif(EXISTS ${LIEVI_BINARY_DIR}/lib/lievi/liblievi_hdf5.so)
  message(FATAL_ERROR "the HDF5 module was built but not installed under ${prefix}/<libdir>/lievi/")
endif()
# 3. pkg-config
find_program(PKG_CONFIG pkg-config)
if(PKG_CONFIG)
  file(GLOB_RECURSE pcfile ${prefix}/*/lievi.pc)
  get_filename_component(pcdir "${pcfile}" DIRECTORY)
  set(ENV{PKG_CONFIG_PATH} "${pcdir}")
  execute_process(COMMAND ${PKG_CONFIG} --cflags --libs lievi RESULT_VARIABLE rc OUTPUT_VARIABLE flags
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "pkg-config --cflags --libs lievi failed")
  endif()
  separate_arguments(flags UNIX_COMMAND "${flags}")
  run(${CXX_COMPILER} ${CONSUMER_SOURCE_DIR}/main.cpp -o ${WORK_DIR}/consumer_pc ${flags})
  run(${WORK_DIR}/consumer_pc)
endif()
