/// @file src/integrators/dop853.cpp
/// @brief DOP853 for the rigid body (lievi/integrators/ode/dop853.hpp): coefficient table, trial step, step-size
/// control, the 7th-order dense output and the two output modes (dense output, landing on output times).
#include "lievi/integrators/ode/dop853.hpp"

#include <algorithm>
#include <array>
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
// in SciPy's scipy/integrate/_ivp/dop853_coefficients.py (the 12 stages of the step here; the dense output's
// extra stages and weights below). The field is autonomous, so the nodes c_i are not needed.
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

// Dense output (continuous extension of order 7): Hairer, Nørsett & Wanner, Solving ODEs I, 2nd ed., Section II.6
// (Dormand & Prince's dense output of the 8(5,3) pair), as in Hairer's dop853.f (subroutine dp86co: the coefficients
// a141..a1615 and d41..d716, and contd8); values (30 digits) as transcribed in SciPy's
// scipy/integrate/_ivp/dop853_coefficients.py (arrays A[13:16] and D).
// a_dense[s][j]: extra stage 14 + s (s = 0, 1, 2; nodes c = 0.1, 0.2, 7/9) is evaluated at y + h sum_j a_dense[s][j]
// k_j, j = 0..14 in the 0-based numbering of Dop853::Stages (k_12 = f(y_{n+1}), the FSAL stage).
constexpr double a_dense[3][15] = {
    {5.61675022830479523392909219681e-2, 0.0, 0.0, 0.0, 0.0, 0.0, 2.53500210216624811088794765333e-1, -2.46239037470802489917441475441e-1, -1.24191423263816360469010140626e-1, 1.5329179827876569731206322685e-1, 8.20105229563468988491666602057e-3, 7.56789766054569976138603589584e-3, -8.298e-3, 0.0, 0.0},
    {3.18346481635021405060768473261e-2, 0.0, 0.0, 0.0, 0.0, 2.83009096723667755288322961402e-2, 5.35419883074385676223797384372e-2, -5.49237485713909884646569340306e-2, 0.0, 0.0, -1.08347328697249322858509316994e-4, 3.82571090835658412954920192323e-4, -3.40465008687404560802977114492e-4, 1.41312443674632500278074618366e-1, 0.0},
    {-4.28896301583791923408573538692e-1, 0.0, 0.0, 0.0, 0.0, -4.69762141536116384314449447206, 7.68342119606259904184240953878, 4.06898981839711007970213554331, 3.56727187455281109270669543021e-1, 0.0, 0.0, 0.0, -1.39902416515901462129418009734e-3, 2.9475147891527723389556272149, -9.15095847217987001081870187138},
};
constexpr double d_dense[4][16] = {
    {-0.84289382761090128651353491142e+1, 0.0, 0.0, 0.0, 0.0, 0.56671495351937776962531783590, -0.30689499459498916912797304727e+1, 0.23846676565120698287728149680e+1, 0.21170345824450282767155149946e+1, -0.87139158377797299206789907490, 0.22404374302607882758541771650e+1, 0.63157877876946881815570249290, -0.88990336451333310820698117400e-1, 0.18148505520854727256656404962e+2, -0.91946323924783554000451984436e+1, -0.44360363875948939664310572000e+1},
    {0.10427508642579134603413151009e+2, 0.0, 0.0, 0.0, 0.0, 0.24228349177525818288430175319e+3, 0.16520045171727028198505394887e+3, -0.37454675472269020279518312152e+3, -0.22113666853125306036270938578e+2, 0.77334326684722638389603898808e+1, -0.30674084731089398182061213626e+2, -0.93321305264302278729567221706e+1, 0.15697238121770843886131091075e+2, -0.31139403219565177677282850411e+2, -0.93529243588444783865713862664e+1, 0.35816841486394083752465898540e+2},
    {0.19985053242002433820987653617e+2, 0.0, 0.0, 0.0, 0.0, -0.38703730874935176555105901742e+3, -0.18917813819516756882830838328e+3, 0.52780815920542364900561016686e+3, -0.11573902539959630126141871134e+2, 0.68812326946963000169666922661e+1, -0.10006050966910838403183860980e+1, 0.77771377980534432092869265740, -0.27782057523535084065932004339e+1, -0.60196695231264120758267380846e+2, 0.84320405506677161018159903784e+2, 0.11992291136182789328035130030e+2},
    {-0.25693933462703749003312586129e+2, 0.0, 0.0, 0.0, 0.0, -0.15418974869023643374053993627e+3, -0.23152937917604549567536039109e+3, 0.35763911791061412378285349910e+3, 0.93405324183624310003907691704e+2, -0.37458323136451633156875139351e+2, 0.10409964950896230045147246184e+3, 0.29840293426660503123344363579e+2, -0.43533456590011143754432175058e+2, 0.96324553959188282948394950600e+2, -0.39177261675615439165231486172e+2, -0.14972683625798562581422125276e+3},
};
// d_dense[r][i]: F_{3+r} = h sum_i d_dense[r][i] k_i (dop853.f's rcont5..rcont8).

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

using Stages = Dop853::Stages;

/// The 12 stages k_1..k_12 from y with k_1 = f0 given (into k[0..11]).
void stages(const models::RigidBody& body, const Vec12& y, const Vec12& f0, double h, Stages& k) {
  k[0] = f0;
  for (int i = 1; i < kStages; ++i) {
    Vec12 yi = y;
    for (int j = 0; j < i; ++j)
      if (a[i][j] != 0.0) yi += (h * a[i][j]) * k[j];
    k[i] = Dop853::rhs(body, yi);
  }
}

Vec12 weighted(const double (&w)[kStages], const Stages& k) {
  Vec12 s = Vec12::Zero();
  for (int i = 0; i < kStages; ++i)
    if (w[i] != 0.0) s += w[i] * k[i];
  return s;
}

/// The three extra stages k_13..k_15 (0-based) of the dense output from the step (y_old, h, k[0..12]).
void dense_stages(const models::RigidBody& body, const Vec12& y_old, double h, Stages& k) {
  for (int s = 0; s < 3; ++s) {
    Vec12 yi = y_old;
    for (int j = 0; j < 13 + s; ++j)
      if (a_dense[s][j] != 0.0) yi += (h * a_dense[s][j]) * k[j];
    k[13 + s] = Dop853::rhs(body, yi);
  }
}

/// The coefficients F0..F6 of the continuous extension of the step from y_old to y_new (dop853.f's rcont1..8,
/// here without the y_old term): needs all 16 stages (k[12] = f(y_new)).
void dense_coefficients(const Vec12& y_old, const Vec12& y_new, double h, const Stages& k,
                        std::array<Vec12, 7>& F) {
  const Vec12 dy = y_new - y_old;
  F[0] = dy;
  F[1] = h * k[0] - dy;
  F[2] = 2.0 * dy - h * (k[12] + k[0]);
  for (int r = 0; r < 4; ++r) {
    Vec12 s = Vec12::Zero();
    for (int i = 0; i < 16; ++i)
      if (d_dense[r][i] != 0.0) s += d_dense[r][i] * k[i];
    F[3 + r] = h * s;
  }
}

/// y(t_n + theta h) = y_old + theta (F0 + (1-theta)(F1 + theta (F2 + (1-theta)(F3 + theta (F4 + (1-theta)(F5 +
/// theta F6)))))) (dop853.f's contd8).
Vec12 dense_eval(const Vec12& y_old, const std::array<Vec12, 7>& F, double theta) {
  const double theta1 = 1.0 - theta;
  Vec12 y = F[6];
  for (int i = 5; i >= 0; --i) {
    y *= (i % 2 == 0) ? theta1 : theta;  // F6 * theta, then (.. + F5) * (1 - theta), ...
    y += F[i];
  }
  return y_old + theta * y;
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

double Dop853::attempt(const Vec12& y, const Vec12& f0, double h, Vec12& y_new, Stages& k) const {
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
  t_out_ = t_out_c_ = t_int_ = 0.0;
  have_state_ = have_step_ = dense_ready_ = false;
}

StepResult Dop853::step(models::RigidBodyState& x, double H) {
  return options_.dense_output ? step_dense(x, H) : step_landing(x, H);
}

StepResult Dop853::step_landing(models::RigidBodyState& x, double H) {
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
  Stages k;
  for (long n = 0; tau < H; ++n) {
    if (n >= options_.max_steps) return failure("DOP853: more than max_steps internal steps in one output interval");
    const double remaining = H - tau;
    // As dop853.f: a step that would end within 1% short of t + H is stretched to land on it (no sliver step).
    const bool clamped = 1.01 * h_next >= remaining;
    const double h = clamped ? remaining : h_next;
    const double err = attempt(y, f, h, y_new, k);
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

StepResult Dop853::step_dense(models::RigidBodyState& x, double H) {
  if (!(std::isfinite(H) && H > 0.0)) return failure("DOP853: output interval must be finite and > 0");
  const Vec12 y = pack(x);
  if (!y.allFinite()) return failure("DOP853: non-finite state");
  // T = t_out_ + H with compensated summation (Kahan), so that n calls with the same H reach n H to ~1 ulp.
  const double H_c = H - t_out_c_;
  double T = t_out_ + H_c;
  const double T_c = (T - t_out_) - H_c;
  const double t_end = options_.t_end;
  const bool bounded = std::isfinite(t_end);
  // An output time within a few ulps of t_end (t_end reached by summing the output intervals) is t_end.
  const bool snapped =
      bounded && std::abs(T - t_end) <= 64.0 * std::numeric_limits<double>::epsilon() * std::abs(t_end);
  if (snapped) T = t_end;
  if (!(have_state_ && y == y_last_)) {
    // (Re)start from x at the output time; the carried step size is kept.
    const Vec12 f = rhs(body_, y);
    ++evaluations_;
    if (!f.allFinite()) return failure("DOP853: non-finite derivative at the start of the interval");
    y_int_ = y;
    f_int_ = f;
    t_int_ = t_out_;
    have_step_ = dense_ready_ = false;
    have_state_ = true;
  }
  double h_next = h_next_;
  if (!(h_next > 0.0))
    h_next = initial_step(y_int_, f_int_,
                          bounded && t_end > t_int_ ? t_end - t_int_ : std::numeric_limits<double>::infinity());
  if (!(std::isfinite(h_next) && h_next > 0.0)) {
    have_state_ = false;
    return failure("DOP853: initial step size not finite and > 0");
  }
  bool rejected_last = false;
  Vec12 y_new;
  Stages k;
  for (long n = 0; t_int_ < T; ++n) {
    if (n >= options_.max_steps) {
      have_state_ = false;  // the next call restarts from its (unchanged) x
      return failure("DOP853: more than max_steps internal steps in one output interval");
    }
    // No natural step crosses t_end; one ending within 1% short of it is stretched to land on it (dop853.f).
    const bool clamped = bounded && t_int_ < t_end && 1.01 * h_next >= t_end - t_int_;
    const double h = clamped ? t_end - t_int_ : h_next;
    const double err = attempt(y_int_, f_int_, h, y_new, k);
    evaluations_ += kStages - 1;
    if (err <= 1.0) {
      const Vec12 f_new = rhs(body_, y_new);
      ++evaluations_;
      // Keep the accepted step for the dense output (stages 1..12, FSAL stage 13, start point).
      k_ = k;
      k_[12] = f_new;
      y_old_ = y_int_;
      step_t0_ = t_int_;
      step_h_ = h;
      have_step_ = true;
      dense_ready_ = false;
      y_int_ = y_new;
      f_int_ = f_new;
      t_int_ = clamped ? t_end : t_int_ + h;
      ++accepted_;
      double fac = err == 0.0 ? kFacMax : std::min(kFacMax, std::max(kFacMin, kSafety * std::pow(err, kExponent)));
      if (rejected_last) fac = std::min(fac, 1.0);
      h_next = clamped ? std::max(h * fac, h_next) : h * fac;
      rejected_last = false;
    } else {
      ++rejected_;
      const double fac = std::isfinite(err) ? std::max(kFacMin, kSafety * std::pow(err, kExponent)) : kFacMin;
      h_next = h * fac;
      rejected_last = true;
      const double min_step = 10.0 * (std::nextafter(t_int_, std::numeric_limits<double>::infinity()) - t_int_);
      if (!(h_next >= min_step)) {
        have_state_ = false;
        return failure("DOP853: step size underflow (error test keeps failing); check the input");
      }
    }
  }
  h_next_ = h_next;
  const Vec12 y_out = (t_int_ == T || !have_step_) ? y_int_ : interpolate(T);
  if (!y_out.allFinite()) {
    have_state_ = false;
    return failure("DOP853: non-finite state");
  }
  unpack(y_out, x);
  y_last_ = y_out;
  t_out_ = T;
  t_out_c_ = snapped ? 0.0 : T_c;
  t_ = T;
  return {};
}

Vec12 Dop853::interpolate(double t) {
  if (!have_step_) return y_int_;
  if (!dense_ready_) {
    dense_stages(body_, y_old_, step_h_, k_);
    evaluations_ += 3;
    dense_coefficients(y_old_, y_int_, step_h_, k_, F_);
    dense_ready_ = true;
  }
  return dense_eval(y_old_, F_, (t - step_t0_) / step_h_);
}

StepResult Dop853::fixed_step(const models::RigidBody& body, models::RigidBodyState& x, double h) {
  const Vec12 y = pack(x);
  Stages k;
  stages(body, y, rhs(body, y), h, k);
  const Vec12 y_new = y + h * weighted(b, k);
  if (!y_new.allFinite()) return failure("DOP853: non-finite state after a fixed step");
  unpack(y_new, x);
  return {};
}

StepResult Dop853::fixed_step_dense(const models::RigidBody& body, models::RigidBodyState& x, double h,
                                    double theta) {
  const Vec12 y = pack(x);
  Stages k;
  stages(body, y, rhs(body, y), h, k);
  const Vec12 y_new = y + h * weighted(b, k);
  k[12] = rhs(body, y_new);
  dense_stages(body, y, h, k);
  std::array<Vec12, 7> F;
  dense_coefficients(y, y_new, h, k, F);
  const Vec12 y_theta = dense_eval(y, F, theta);
  if (!y_theta.allFinite()) return failure("DOP853: non-finite state after a fixed step");
  unpack(y_theta, x);
  return {};
}

}  // namespace lievi::integrators
