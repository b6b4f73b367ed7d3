#pragma once
/// @file lievi/core/attributes.hpp
/// @brief Compiler attributes used by the hot kernels.
///
/// LIEVI_FLATTEN marks a per-node / per-segment kernel: everything it calls (the small fixed-size Eigen
/// products and reductions, the retraction) is inlined into it. GCC otherwise keeps many 3x3 and 6x1 Eigen
/// assignments out of line even at -O3 (perf on bench Beam/Cayley/1000: ~20% of the step in such calls).
#if defined(__GNUC__) && !defined(__clang__)
#define LIEVI_FLATTEN __attribute__((flatten))
#else
#define LIEVI_FLATTEN
#endif
