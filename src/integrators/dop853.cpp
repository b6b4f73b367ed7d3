/// @file src/integrators/dop853.cpp
/// @brief DOP853 for the rigid body (lievi/integrators/ode/dop853.hpp): coefficient table, trial step, step-size
/// control and output-interval stepping.
#include "lievi/integrators/ode/dop853.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "lievi/lie/so3.hpp"

namespace lievi::integrators {
namespace {

using Vec12 = Dop853::Vec12;
constexpr int kStages = 12;

// Dormand–Prince 8(5,3) coefficients: Hairer, Nørsett & Wanner, Solving Ordinary Differential Equations I,
// 2nd ed., Springer 1993, Section II.5 (the order-8 formula of Prince & Dormand, J. Comput. Appl. Math. 7, 1981),
// with the 5th- and 3rd-order error weights of Hairer's Fortran code dop853.f; values (30 digits) as transcribed
// in SciPy's scipy/integrate/_ivp/dop853_coefficients.py. Only the 12 stages of the step are used (no dense output).
// The field is autonomous, so the nodes c_i are not needed.
// a[i][j], j < i: stage i+1 is evaluated at y + h sum_j a[i][j] k_j (stage 1 at y).
constexpr double a[kStages][kStages] = {
    {},
    {5.26001519587677318785587544488e-2},
    {1.97250569845378994544595329183e-2, 5.91751709536136983633785987549e-2},
    {2.95875854768068491816892993775e-2, 0.0, 8.87627564304205475450678981324e-2},
    {2.41365134159266685502369798665e-1, 0.0, -8.84549479328286085344864962717e-1,
     9.24834003261792003115737966543e-1},
    {3.7037037037037037037037037037e-2, 0.0, 0.0, 1.70828608729473871279604482173e-1,
     1.25467687566822425016691814123e-1},
    {3.7109375e-2, 0.0, 0.0, 1.70252211019544039314978060272e-1, 6.02165389804559606850219397283e-2,
     -1.7578125e-2},
    {3.70920001185047927108779319836e-2, 0.0, 0.0, 1.70383925712239993810214054705e-1,
     1.07262030446373284651809199168e-1, -1.53194377486244017527936158236e-2, 8.27378916381402288758473766002e-3},
    {6.24110958716075717114429577812e-1, 0.0, 0.0, -3.36089262944694129406857109825,
     -8.68219346841726006818189891453e-1, 2.75920996994467083049415600797e1, 2.01540675504778934086186788979e1,
     -4.34898841810699588477366255144e1},
    {4.77662536438264365890433908527e-1, 0.0, 0.0, -2.48811461997166764192642586468,
     -5.90290826836842996371446475743e-1, 2.12300514481811942347288949897e1, 1.52792336328824235832596922938e1,
     -3.32882109689848629194453265587e1, -2.03312017085086261358222928593e-2},
    {-9.3714243008598732571704021658e-1, 0.0, 0.0, 5.18637242884406370830023853209,
     1.09143734899672957818500254654, -8.14978701074692612513997267357, -1.85200656599969598641566180701e1,
     2.27394870993505042818970056734e1, 2.49360555267965238987089396762, -3.0467644718982195003823669022},
    {2.27331014751653820792359768449, 0.0, 0.0, -1.05344954667372501984066689879e1,
     -2.00087205822486249909675718444, -1.79589318631187989172765950534e1, 2.79488845294199600508499808837e1,
     -2.85899827713502369474065508674, -8.87285693353062954433549289258, 1.23605671757943030647266201528e1,
     6.43392746015763530355970484046e-1},
};
// 8th-order weights b_i.
constexpr double b[kStages] = {5.42937341165687622380535766363e-2, 0.0, 0.0, 0.0, 0.0,
                               4.45031289275240888144113950566,    1.89151789931450038304281599044,
                               -5.8012039600105847814672114227,    3.1116436695781989440891606237e-1,
                               -1.52160949662516078556178806805e-1, 2.01365400804030348374776537501e-1,
                               4.47106157277725905176885569043e-2};
// e5_i = b_i - (embedded 5th-order weights)_i  (DOP853's er1, er6, ..., er12).
constexpr double e5[kStages] = {0.1312004499419488073250102996e-1, 0.0, 0.0, 0.0, 0.0,
                                -0.1225156446376204440720569753e+1, -0.4957589496572501915214079952,
                                0.1664377182454986536961530415e+1,  -0.3503288487499736816886487290,
                                0.3341791187130174790297318841,     0.8192320648511571246570742613e-1,
                                -0.2235530786388629525884427845e-1};
// The 3rd-order weights (DOP853's bhh1, bhh2, bhh3 on stages 1, 9, 12); e3 = b - bhh.
constexpr double bhh1 = 0.244094488188976377952755905512, bhh9 = 0.733846688281611857341361741547,
                 bhh12 = 0.220588235294117647058823529412e-1;

// Step-size controller of DOP853 (its defaults): h_new = h min(fac_max, max(fac_min, safety err^{-1/8})).
constexpr double kSafety = 0.9, kFacMin = 0.333, kFacMax = 6.0, kExponent = -1.0 / 8.0;

Vec12 pack(const models::RigidBodyState& x) {
  Vec12 y;
  y.head<3>() = x.M;
  Eigen::Map<models::Mat3>(y.data() + 3) = x.R;
  return y;
}
void unpack(const Vec12& y, models::RigidBodyState& x) {
  x.M = y.head<3>();
  x.R = Eigen::Map<const models::Mat3>(y.data() + 3);
}

/// The 12 stages k_1..k_12 from y with k_1 = f0 given.
void stages(const models::RigidBody& body, const Vec12& y, const Vec12& f0, double h, Vec12 (&k)[kStages]) {
  k[0] = f0;
  for (int i = 1; i < kStages; ++i) {
    Vec12 yi = y;
    for (int j = 0; j < i; ++j)
      if (a[i][j] != 0.0) yi += (h * a[i][j]) * k[j];
    k[i] = Dop853::rhs(body, yi);
  }
}

Vec12 weighted(const double (&w)[kStages], const Vec12 (&k)[kStages]) {
  Vec12 s = Vec12::Zero();
  for (int i = 0; i < kStages; ++i)
    if (w[i] != 0.0) s += w[i] * k[i];
  return s;
}

StepResult failure(const char* message) {
  StepResult r;
  r.converged = false;
  r.message = message;
  return r;
}

}  // namespace

Dop853::Dop853(const models::RigidBody& body, const Options& options) : body_(body), options_(options) {
  std::vector<InputIssue> issues;
  if (!(std::isfinite(options.rtol) && options.rtol > 0.0))
    issues.push_back({"", "integrator.rtol", "value must be finite and > 0"});
  if (!(std::isfinite(options.atol) && options.atol > 0.0))
    issues.push_back({"", "integrator.atol", "value must be finite and > 0"});
  if (!issues.empty()) throw invalid_argument(std::move(issues));
}

Vec12 Dop853::rhs(const models::RigidBody& body, const Vec12& y) {
  const models::Vec3 M = y.head<3>();
  const Eigen::Map<const models::Mat3> R(y.data() + 3);
  Vec12 dy;
  dy.head<3>() = body.field(M);
  Eigen::Map<models::Mat3>(dy.data() + 3) = R * lie::hat(body.omega(M));
  return dy;
}

double Dop853::attempt(const Vec12& y, const Vec12& f0, double h, Vec12& y_new) const {
  Vec12 k[kStages];
  stages(body_, y, f0, h, k);
  y_new = y + h * weighted(b, k);
  if (!y_new.allFinite()) return std::numeric_limits<double>::infinity();
  const Vec12 d5 = weighted(e5, k);
  const Vec12 d3 = weighted(b, k) - bhh1 * k[0] - bhh9 * k[8] - bhh12 * k[11];
  double err5 = 0.0, err3 = 0.0;
  for (int l = 0; l < 12; ++l) {
    const double sk = options_.atol + options_.rtol * std::max(std::abs(y(l)), std::abs(y_new(l)));
    err5 += (d5(l) / sk) * (d5(l) / sk);
    err3 += (d3(l) / sk) * (d3(l) / sk);
  }
  double deno = err5 + 0.01 * err3;
  if (deno <= 0.0) deno = 1.0;
  return std::abs(h) * err5 / std::sqrt(12.0 * deno);
}

double Dop853::initial_step(const Vec12& y0, const Vec12& f0, double h_max) {
  // Hairer's hinit (DOP853): h0 = 0.01 |y0|/|f0| in the weighted norm, then an Euler probe of |y''| gives
  // h1 = (0.01 / max(|f0|, |y''|))^{1/8}; take min(100 h0, h1, h_max).
  double dnf = 0.0, dny = 0.0;
  Vec12 sk;
  for (int l = 0; l < 12; ++l) {
    sk(l) = options_.atol + options_.rtol * std::abs(y0(l));
    dnf += (f0(l) / sk(l)) * (f0(l) / sk(l));
    dny += (y0(l) / sk(l)) * (y0(l) / sk(l));
  }
  double h = (dnf <= 1e-10 || dny <= 1e-10) ? 1e-6 : std::sqrt(dny / dnf) * 0.01;
  h = std::min(h, h_max);
  const Vec12 f1 = rhs(body_, y0 + h * f0);
  ++evaluations_;
  const double der2 = ((f1 - f0).array() / sk.array()).matrix().norm() / h;
  const double der12 = std::max(std::abs(der2), std::sqrt(dnf));
  const double h1 = der12 <= 1e-15 ? std::max(1e-6, h * 1e-3) : std::pow(0.01 / der12, 1.0 / 8.0);
  return std::min({100.0 * h, h1, h_max});
}

void Dop853::start(const models::RigidBodyState&, double) {
  h_next_ = 0.0;
  t_ = 0.0;
  have_f_ = false;
  accepted_ = rejected_ = evaluations_ = 0;
}

StepResult Dop853::step(models::RigidBodyState& x, double H) {
  if (!(std::isfinite(H) && H > 0.0)) return failure("DOP853: output interval must be finite and > 0");
  Vec12 y = pack(x);
  if (!y.allFinite()) return failure("DOP853: non-finite state");
  Vec12 f;
  if (have_f_ && y == y_last_) {
    f = f_;  // first same as last: f(y) of the previous call's final accepted step
  } else {
    f = rhs(body_, y);
    ++evaluations_;
  }
  if (!f.allFinite()) return failure("DOP853: non-finite derivative at the start of the interval");
  double h_next = h_next_ > 0.0 ? h_next_ : initial_step(y, f, H);
  if (!(std::isfinite(h_next) && h_next > 0.0)) return failure("DOP853: initial step size not finite and > 0");
  double tau = 0.0;
  bool rejected_last = false;
  Vec12 y_new;
  for (long n = 0; tau < H; ++n) {
    if (n >= options_.max_steps) return failure("DOP853: more than max_steps internal steps in one output interval");
    const double remaining = H - tau;
    // As dop853.f: a step that would end within 1% short of t + H is stretched to land on it (no sliver step).
    const bool clamped = 1.01 * h_next >= remaining;
    const double h = clamped ? remaining : h_next;
    const double err = attempt(y, f, h, y_new);
    evaluations_ += kStages - 1;
    if (err <= 1.0) {
      const Vec12 f_new = rhs(body_, y_new);
      ++evaluations_;
      y = y_new;
      f = f_new;
      tau = clamped ? H : tau + h;
      ++accepted_;
      double fac = err == 0.0 ? kFacMax : std::min(kFacMax, std::max(kFacMin, kSafety * std::pow(err, kExponent)));
      if (rejected_last) fac = std::min(fac, 1.0);
      // A step shortened only to land on t + H says nothing against the proposal it replaced: keep the larger.
      h_next = clamped ? std::max(h * fac, h_next) : h * fac;
      rejected_last = false;
    } else {
      ++rejected_;
      const double fac = std::isfinite(err) ? std::max(kFacMin, kSafety * std::pow(err, kExponent)) : kFacMin;
      h_next = h * fac;
      rejected_last = true;
      // Underflow: the step no longer changes the time t_ + tau.
      const double t_now = t_ + tau;
      const double min_step = 10.0 * (std::nextafter(t_now, std::numeric_limits<double>::infinity()) - t_now);
      if (!(h_next >= min_step)) return failure("DOP853: step size underflow (error test keeps failing); check the input");
    }
  }
  if (!y.allFinite()) return failure("DOP853: non-finite state");
  unpack(y, x);
  y_last_ = y;
  f_ = f;
  have_f_ = true;
  h_next_ = h_next;
  t_ += H;
  return {};
}

StepResult Dop853::fixed_step(const models::RigidBody& body, models::RigidBodyState& x, double h) {
  const Vec12 y = pack(x);
  Vec12 k[kStages];
  stages(body, y, rhs(body, y), h, k);
  const Vec12 y_new = y + h * weighted(b, k);
  if (!y_new.allFinite()) return failure("DOP853: non-finite state after a fixed step");
  unpack(y_new, x);
  return {};
}

}  // namespace lievi::integrators
