/// @file apps/lievi/main.cpp  (placeholder until the CLI lands; prints the version)
#include <cstdio>

#include "lievi/version.hpp"

int main() {
  std::printf("lievi %s\n", lievi::version);
  return 0;
}
