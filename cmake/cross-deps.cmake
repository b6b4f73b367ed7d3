# The dependencies of a cross build (CMAKE_CROSSCOMPILING): Debian's packages are built for the host, so the
# header-only ones (Eigen, toml++ in its header-only mode, nlohmann/json, Boost, Random123, Highway) are taken from the
# host's headers, which do not depend on the architecture, through a folder of links to them only (the host's
# whole /usr/include would mix its C library headers into the target's); GoogleTest is built from Debian's
# sources (googletest package); HDF5, the command-line program and the benchmarks are left out
# (scripts/cross-aarch64.sh sets the options).
set(LIEVI_HOST_HEADERS ${PROJECT_BINARY_DIR}/host-headers)
file(MAKE_DIRECTORY ${LIEVI_HOST_HEADERS})
foreach(dir eigen3 toml++ nlohmann boost Random123 hwy)
  if(NOT EXISTS /usr/include/${dir})
    message(FATAL_ERROR "cross build: /usr/include/${dir} is missing (install the Debian package that has it)")
  endif()
  file(CREATE_LINK /usr/include/${dir} ${LIEVI_HOST_HEADERS}/${dir} SYMBOLIC)
endforeach()
add_library(lievi_host_headers INTERFACE)
target_include_directories(lievi_host_headers SYSTEM INTERFACE ${LIEVI_HOST_HEADERS} ${LIEVI_HOST_HEADERS}/eigen3)
foreach(t Eigen3::Eigen tomlplusplus::tomlplusplus nlohmann_json::nlohmann_json Boost::boost)
  add_library(${t} INTERFACE IMPORTED)
  target_link_libraries(${t} INTERFACE lievi_host_headers)
endforeach()
target_compile_definitions(tomlplusplus::tomlplusplus INTERFACE TOML_HEADER_ONLY=1)
find_package(OpenMP REQUIRED COMPONENTS CXX)
if(LIEVI_BUILD_TESTS)
  set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
  add_subdirectory(/usr/src/googletest ${PROJECT_BINARY_DIR}/googletest EXCLUDE_FROM_ALL)
endif()
