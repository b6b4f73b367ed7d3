#pragma once
/// @file tests/rigid_body/retraction_types.hpp
/// @brief The three SO(3) retractions of the DDB family as a GoogleTest type list with readable names.
#include <gtest/gtest.h>

#include <string>

#include "lievi/lie/retraction/cayley.hpp"
#include "lievi/lie/retraction/exp.hpp"

namespace lievi::test {

using DDBRetractions = ::testing::Types<lie::Cayley<lie::SO3>, lie::Exp<lie::SO3>, lie::Exp2<lie::SO3>>;

struct RetractionName {
  template <class R>
  static std::string GetName(int) {
    return R::id;
  }
};

}  // namespace lievi::test
