/// @file src/version.cpp
#include "lievi/version.hpp"
namespace lievi {
const char* version_string() { return version; }
}  // namespace lievi
