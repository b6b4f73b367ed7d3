/// @file tests/kirchhoff/test_ddb_group_checkpoint.cpp
/// @brief The carried state of DDBGroup and DDBGroupSymmetric (`state(StateIO&)`) is complete: a run saved after
/// 300 steps and restored into fresh steppers continues bitwise as the uninterrupted run (Kirchhoff body, SE(3)).
#include <gtest/gtest.h>

#include "kirchhoff_support.hpp"
#include "lievi/integrators/ddb_group.hpp"
#include "lievi/integrators/ddb_group_symmetric.hpp"
#include "lievi/io/checkpoint.hpp"

namespace {

using namespace lievi;

template <class Stepper, class Start>
void check_resume(const Start& start) {
  const auto sys = test::kirchhoff_body().system();
  const double h = 0.05;
  models::LiePoissonState<lie::SE3> x;
  x.mu = test::kirchhoff_mu0();
  Stepper a(sys);
  start(a, x, h);
  for (int k = 0; k < 300; ++k) ASSERT_TRUE(a.step(x, h).converged);
  io::CheckpointData data;
  io::CheckpointSaver saver(data);
  a.state(saver);
  const auto x_saved = x;
  for (int k = 0; k < 300; ++k) ASSERT_TRUE(a.step(x, h).converged);

  Stepper b(sys);
  auto y = x_saved;
  start(b, y, h);  // then overwritten by the checkpoint
  io::CheckpointLoader loader(data, "memory");
  b.state(loader);
  EXPECT_TRUE(loader.unused().empty());
  for (int k = 0; k < 300; ++k) ASSERT_TRUE(b.step(y, h).converged);
  // Everything the next step depends on was restored: the same operations on the same doubles.
  EXPECT_EQ(x.mu, y.mu);
  EXPECT_EQ(x.g.matrix(), y.g.matrix());
}

TEST(DDBGroupCheckpoint, BasicResumesBitwise) {
  using S = integrators::DDBGroup<lie::SE3, lie::Cayley<lie::SE3>>;
  check_resume<S>([](S& s, const models::LiePoissonState<lie::SE3>&, double) { s.start(); });
}

TEST(DDBGroupCheckpoint, SymmetricResumesBitwise) {
  using S = integrators::DDBGroupSymmetric<lie::SE3, lie::Exp<lie::SE3>>;
  check_resume<S>([](S& s, const models::LiePoissonState<lie::SE3>& x, double h) { s.start(x, h); });
}

}  // namespace
