// A downstream program built against the *installed* lievi through find_package only: models assembled in
// C++ from their typed configurations, no scenario file.
//  1. A beam with a prescribed end and a distributed load: a cantilever (square section, E = 1000, L = 1)
//     whose left end is carried 0.2 m along x (a pose table: still, moved, held) under a uniform transverse
//     load q, with damping; at rest its tip is at x = L + 0.2 and deflected by the shear-deformable
//     (Timoshenko) value w = q L^4/(8 E I) + q L^2/(2 k_s G A), to 1 % (the grid's error is O(ds^2)).
//  2. A wave with independent noise: the scheme is linear and the noise additive, so a noisy run from
//     phi_0 = sin(pi s) is the deterministic run from phi_0 plus the noisy run from zero, to round-off.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <sstream>
#include <string>
#include <vector>

#include <lievi/build/beam.hpp>
#include <lievi/build/wave.hpp>
#include <lievi/config/beam.hpp>
#include <lievi/config/wave.hpp>
#include <lievi/run/beam_run.hpp>
#include <lievi/run/wave_run.hpp>

namespace {

int failures = 0;
void expect(bool ok, const char* what) {
  std::printf("%s: %s\n", ok ? "ok" : "FAILED", what);
  if (!ok) ++failures;
}

/// The last row of a CSV file as name -> value.
std::vector<std::pair<std::string, double>> last_row(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::string header, line, last;
  std::getline(in, header);
  while (std::getline(in, line))
    if (!line.empty()) last = line;
  std::vector<std::pair<std::string, double>> row;
  std::stringstream h(header), v(last);
  std::string name, value;
  while (std::getline(h, name, ',') && std::getline(v, value, ',')) row.emplace_back(name, std::stod(value));
  return row;
}

double column(const std::vector<std::pair<std::string, double>>& row, const std::string& name) {
  for (const auto& [n, v] : row)
    if (n == name) return v;
  return NAN;
}

void beam() {
  lievi::io::BeamScenario s;  // the configuration, named for the output folder
  s.name = "consumer_beam";
  s.section = lievi::config::BeamSection::square;
  s.a = 0.1;
  s.rho = 1.0;
  s.E = 1000.0;  // nu = 0: G = E / 2
  s.J = 20;
  s.length = 1.0;
  s.bc_left = lievi::field::End::prescribed;  // identity pose, carried 0.2 m along x between t = 1 and 2
  s.left_motion.times = {0.0, 1.0, 2.0};
  s.left_motion.poses = {{0, 0, 0, 1, 0, 0, 0}, {0, 0, 0, 1, 0, 0, 0}, {0.2, 0, 0, 1, 0, 0, 0}};
  const double q = 6.0e-4;  // N/m along -z, ramped in over 1 s
  lievi::config::BeamDistributedLoad load;
  load.wrench = {0, 0, 0, 0, 0, -q};
  load.s_from = 0.0, load.s_to = s.length;
  load.times = {0.0, 1.0}, load.factors = {0.0, 1.0}, load.hold = true;
  s.distributed_loads.push_back(load);
  s.damping_angular = s.damping_linear = 2.0;
  s.dt = 1e-3, s.t_end = 20.0, s.steps = 20000;
  s.every = 1000;
  s.fields = s.vtk = s.plots = false;
  lievi::build::complete(s);  // K, P, the straight poses, probes, ...
  lievi::config::validate(s);
  const auto out = std::filesystem::temp_directory_path() / "lievi_consumer_beam";
  lievi::run::RunOptions options;
  options.force = true;
  options.progress = lievi::run::Progress::never;
  const auto r = lievi::run::run_beam(s, out, options);
  expect(r.complete, "beam run complete");
  const auto row = last_row(out / "series.csv");
  const double EI = s.E * s.J2, kGA = s.shear_factor * s.G * s.A, L = s.length;
  const double w = q * std::pow(L, 4) / (8.0 * EI) + q * L * L / (2.0 * kGA);
  const double tip_x = column(row, "endL_x"), tip_z = column(row, "endL_z");
  std::printf("beam tip: x = %.6f (expected %.6f), z = %.6e (Timoshenko %.6e)\n", tip_x, L + 0.2, tip_z, -w);
  expect(std::abs(tip_x - (L + 0.2)) < 1e-3, "the tip follows the carried end");
  expect(std::abs(tip_z + w) < 0.01 * w, "the tip deflection is the static one within 1 %");
  std::filesystem::remove_all(out);
}

struct Quiet : lievi::run::WaveObserver {
  void level(long long, double, std::span<const double>, const lievi::field::LevelEnergy&, bool) override {}
};

std::vector<double> final_phi(const lievi::io::WaveScenario& s) {
  Quiet observer;
  const auto r = lievi::run::integrate_wave(s, observer);
  expect(r.complete, "wave run complete");
  return r.phi_final;
}

void wave() {
  lievi::io::WaveScenario s;
  s.name = "consumer_wave";
  s.J = 64;
  s.layout = lievi::field::Layout::vertex;
  s.bc_left = s.bc_right = lievi::field::End::clamped;
  s.dt = 0.5 / 64.0, s.t_end = 2.0, s.steps = 256;
  s.shape = lievi::config::WaveShape::sine;  // phi(0, s) = sin(pi s), phi_t(0, s) = 0
  s.wavenumber = 1;
  s.base_dt = s.dt;
  lievi::io::WaveScenario noisy = s, from_zero = s;
  noisy.noise_mode = from_zero.noise_mode = lievi::field::NoiseMode::independent;
  noisy.theta = from_zero.theta = 0.3;
  noisy.seed = from_zero.seed = 7;
  from_zero.shape = lievi::config::WaveShape::zero;
  for (auto* c : {&s, &noisy, &from_zero}) {
    lievi::build::complete(*c);  // the initial data of the shape, probes, fields interval
    lievi::config::validate(*c);
  }
  const long long n = s.n_nodes();
  const auto a = final_phi(noisy), b = final_phi(s), c = final_phi(from_zero);
  double gap = 0.0, noise = 0.0;
  for (std::size_t j = 0; j < a.size(); ++j) {
    gap = std::max(gap, std::abs(a[j] - (b[j] + c[j])));
    noise = std::max(noise, std::abs(c[j]));
  }
  std::printf("wave: |noisy - (deterministic + noise from zero)| = %.3e, |noise| = %.3e\n", gap, noise);
  expect(a.size() == static_cast<std::size_t>(n), "wave final field has one value per node");
  expect(noise > 1e-3, "the independent noise moves the field");
  expect(gap < 1e-12, "superposition holds to round-off");
}

}  // namespace

int main() {
  beam();
  wave();
  return failures == 0 ? 0 : 1;
}
