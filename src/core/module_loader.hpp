#pragma once
/// @file src/core/module_loader.hpp
/// @brief Finding and opening lievi's optional modules (the HDF5 module liblievi_hdf5.so, the MPI module
/// liblievi_mpi.so) with dlopen, so that a program that does not use them loads none of their libraries.
///
/// Where a module is looked for, in this order:
///   1. the path in its environment variable (LIEVI_HDF5_MODULE, LIEVI_MPI_MODULE), if set (and nowhere else);
///   2. beside the program or shared library that holds this code, and in `../<libdir>/lievi/` from there
///      (an installed `bin/lievi` finds `lib/lievi/<module>` wherever the tree was moved);
///   3. the install location configured at build time (`<prefix>/<libdir>/lievi/<module>`);
///   4. the build tree where it was built (for the tests and the build's own `lievi`).
#include <string>

namespace lievi::detail {

struct ModulePlaces {
  const char* env;        ///< the environment variable naming the module's path
  const char* name;       ///< its file name
  const char* libdir;     ///< the install libdir (relative)
  const char* installed;  ///< its installed path
  const char* built;      ///< its path in the build tree
};

/// Open the first of the places where `entry` (a function of no arguments) is exported and `accept` takes the
/// pointer it returns; returns that pointer, or null with `tried` listing every place and why it failed. The
/// module stays open to the end of the process.
void* open_module(const ModulePlaces& where, const char* entry, bool (*accept)(const void*), std::string& tried);

}  // namespace lievi::detail
