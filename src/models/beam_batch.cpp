// The exact-Cayley beam sweeps on packs of 8 nodes (see lievi/models/beam_batch.hpp for what they compute).
//
// Every function below is an elementwise computation on GCC vector-extension packs: +, -, *, / and
// comparisons only (Cayley is rational: no transcendental function), compiled with -ffp-contract=off
// (CMakeLists.txt), so a lane's result is the same IEEE sequence whether the pack is one AVX-512 register,
// two AVX2 registers or four SSE2 registers, and whatever the other lanes hold. A partial group at the end of a
// range repeats its last node in the unused lanes and stores only the valid ones.
#include "lievi/models/beam_batch.hpp"

#include <algorithm>
#include <cfloat>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "lievi/core/tolerances.hpp"

// The pack helpers are always inlined into the multiversioned kernels, so no pack crosses a call boundary of
// a clone with another ISA (GCC's -Wpsabi note about AVX-512 vector returns does not apply).
#pragma GCC diagnostic ignored "-Wpsabi"

namespace lievi::models::batch {
namespace {

constexpr int L = 8;
typedef double v8 __attribute__((vector_size(64)));
typedef std::int64_t m8 __attribute__((vector_size(64)));

#define LIEVI_LANE inline __attribute__((always_inline))
#define LIEVI_LANE_LAMBDA __attribute__((always_inline))

LIEVI_LANE v8 splat(double x) { return v8{} + x; }
LIEVI_LANE v8 vabs(v8 x) { return (v8)((m8)x & (m8{} + std::numeric_limits<std::int64_t>::max())); }
LIEVI_LANE v8 vmax(v8 a, v8 b) { return a < b ? b : a; }

struct V3 {
  v8 x, y, z;
};
LIEVI_LANE V3 operator+(const V3& a, const V3& b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
LIEVI_LANE V3 operator-(const V3& a, const V3& b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
LIEVI_LANE V3 operator-(const V3& a) { return {-a.x, -a.y, -a.z}; }
LIEVI_LANE V3 operator*(v8 s, const V3& a) { return {s * a.x, s * a.y, s * a.z}; }
LIEVI_LANE V3 operator*(double s, const V3& a) { return {s * a.x, s * a.y, s * a.z}; }
LIEVI_LANE v8 dot(const V3& a, const V3& b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
LIEVI_LANE V3 cross(const V3& a, const V3& b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
LIEVI_LANE V3 select(m8 m, const V3& a, const V3& b) { return {m ? a.x : b.x, m ? a.y : b.y, m ? a.z : b.z}; }
LIEVI_LANE v8 maxabs(const V3& a) { return vmax(vmax(vabs(a.x), vabs(a.y)), vabs(a.z)); }
LIEVI_LANE v8 sumabs(const V3& a) { return vabs(a.x) + vabs(a.y) + vabs(a.z); }
/// Component k of a: a.x, a.y or a.z.
LIEVI_LANE v8 comp(const V3& a, int k) { return k == 0 ? a.x : (k == 1 ? a.y : a.z); }

/// (alpha I + beta a^)^{-1} y for alpha = k, beta = k / 2: (y - ½ a × y + ¼ (a·y) a) invd, invd = 1 / (k (1 + ¼ |a|²)).
LIEVI_LANE V3 linv(const V3& a, v8 invd, const V3& y) { return invd * (y - 0.5 * cross(a, y) + (0.25 * dot(a, y)) * a); }
/// R u for R with columns c0, c1, c2.
LIEVI_LANE V3 mat_vec(const V3& c0, const V3& c1, const V3& c2, const V3& u) { return u.x * c0 + u.y * c1 + u.z * c2; }

/// The lanes of one pack: items first, first + 1, ... A full pack (Full) has all L; a partial one (the end of
/// a range) has `count` < L and repeats its last item in the unused lanes (so they compute on valid data),
/// storing only the valid ones. Full packs get compile-time offsets from one base pointer.
template <bool Full>
struct Lanes {
  std::ptrdiff_t first = 0;
  int count = L;
  [[nodiscard]] LIEVI_LANE std::ptrdiff_t at(int l) const {
    if constexpr (Full) return first + l;
    else return first + std::min(l, count - 1);
  }
  [[nodiscard]] LIEVI_LANE int valid() const { return Full ? L : count; }
};
/// Component c of items with S doubles each, offset by `shift` items.
template <int S, bool F>
LIEVI_LANE v8 load(const double* base, const Lanes<F>& ln, int c, std::ptrdiff_t shift = 0) {
  v8 r{};
  for (int l = 0; l < L; ++l) r[l] = base[(ln.at(l) + shift) * S + c];
  return r;
}
template <int S, bool F>
LIEVI_LANE V3 load3(const double* base, const Lanes<F>& ln, int c, std::ptrdiff_t shift = 0) {
  return {load<S>(base, ln, c, shift), load<S>(base, ln, c + 1, shift), load<S>(base, ln, c + 2, shift)};
}
/// Store component c of the valid lanes.
template <int S, bool F>
LIEVI_LANE void store(double* base, const Lanes<F>& ln, int c, v8 x) {
  for (int l = 0; l < ln.valid(); ++l) base[ln.at(l) * S + c] = x[l];
}
template <int S, bool F>
LIEVI_LANE void store3(double* base, const Lanes<F>& ln, int c, const V3& x) {
  store<S>(base, ln, c, x.x);
  store<S>(base, ln, c + 1, x.y);
  store<S>(base, ln, c + 2, x.z);
}
/// Run pack(Lanes) over [b, e): full packs, then the partial one.
template <class Pack>
LIEVI_LANE void for_packs(std::ptrdiff_t b, std::ptrdiff_t e, Pack&& pack) {
  for (; b + L <= e; b += L) pack(Lanes<true>{b, L});
  if (b < e) pack(Lanes<false>{b, static_cast<int>(e - b)});
}

#define LIEVI_BATCH_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))

template <bool F>
LIEVI_LANE void stress_pack(const Lanes<F>& ln, double ds, const double* gamma, const double* E, const double* p6,
                            double* fm, double* fp) {
  const V3 ya = load3<6>(gamma, ln, 0), yl = load3<6>(gamma, ln, 3);
  const V3 ea = load3<6>(E, ln, 0), el = load3<6>(E, ln, 3);
  const V3 pa = load3<6>(p6, ln, 0), pl = load3<6>(p6, ln, 3);
  const V3 da = ya - ea, dl = yl - el;
  const V3 m{pa.x * da.x, pa.y * da.y, pa.z * da.z}, n{pl.x * dl.x, pl.y * dl.y, pl.z * dl.z};
  const V3 om = ds * ya, v = ds * yl;
  // (dtau_x^{-1})^* (m, n) = (m + ½ om × m + ¼ (om·m) om + ½ v × n~, n~), n~ = n + ½ om × n; x = -B flips om, v
  const V3 hon = 0.5 * cross(om, n), hom = 0.5 * cross(om, m);
  const V3 q = (0.25 * dot(om, m)) * om;
  const V3 nm = n + hon, np = n - hon;
  store3<6>(fm, ln, 0, m + hom + q + 0.5 * cross(v, nm));
  store3<6>(fm, ln, 3, nm);
  store3<6>(fp, ln, 0, m - hom + q - 0.5 * cross(v, np));
  store3<6>(fp, ln, 3, np);
}

LIEVI_BATCH_CLONES void stresses_impl(std::ptrdiff_t e0, std::ptrdiff_t e1, double ds, const double* gamma,
                                      const double* E, const double* p6, double* fm, double* fp) {
  for_packs(e0, e1, [&](const auto& ln) LIEVI_LANE_LAMBDA { stress_pack(ln, ds, gamma, E, p6, fm, fp); });
}

/// The strains of one pack; returns the lanes whose strain is not finite.
template <bool F>
LIEVI_LANE m8 strain_pack(const Lanes<F>& ln, double inv_ds, const double* g, double* gamma) {
  const v8 nan = splat(std::numeric_limits<double>::quiet_NaN());
  const V3 a0 = load3<12>(g, ln, 0), a1 = load3<12>(g, ln, 3), a2 = load3<12>(g, ln, 6), pa = load3<12>(g, ln, 9);
  const V3 b0 = load3<12>(g, ln, 0, 1), b1 = load3<12>(g, ln, 3, 1), b2 = load3<12>(g, ln, 6, 1),
           pb = load3<12>(g, ln, 9, 1);
  // R_rel = R_a^T R_b: entry (i, k) = column i of R_a · column k of R_b
  const v8 r01 = dot(a0, b1), r02 = dot(a0, b2), r10 = dot(a1, b0), r12 = dot(a1, b2), r20 = dot(a2, b0),
           r21 = dot(a2, b1);
  const v8 margin = 1.0 + (dot(a0, b0) + dot(a1, b1) + dot(a2, b2));
  const v8 f = 2.0 / margin;
  const V3 om{f * (r21 - r12), f * (r02 - r20), f * (r10 - r01)};
  const V3 dp = pb - pa;
  const V3 pr{dot(a0, dp), dot(a1, dp), dot(a2, dp)};
  V3 ang = inv_ds * om, lin = inv_ds * (pr - 0.5 * cross(om, pr));
  const m8 ok = (margin >= tol::cayley_margin) & ((sumabs(ang) + sumabs(lin)) <= DBL_MAX);
  ang = select(ok, ang, V3{nan, nan, nan});
  lin = select(ok, lin, V3{nan, nan, nan});
  store3<6>(gamma, ln, 0, ang);
  store3<6>(gamma, ln, 3, lin);
  return ~ok;
}

LIEVI_BATCH_CLONES bool strains_impl(std::ptrdiff_t e0, std::ptrdiff_t e1, double inv_ds, const double* g,
                                     double* gamma) {
  m8 bad{};
  for_packs(e0, e1, [&](const auto& ln) LIEVI_LANE_LAMBDA { bad |= strain_pack(ln, inv_ds, g, gamma); });
  bool any = false;
  for (int l = 0; l < L; ++l) any |= bad[l] != 0;
  return any;
}

/// The node solve and reconstruction of one pack.
template <bool F>
LIEVI_LANE void node_pack(const Lanes<F>& ln, const NodeArgs& p, const V3& grav) {
  const double dt = p.dt;
  const V3 c0 = load3<12>(p.g, ln, 0), c1 = load3<12>(p.g, ln, 3), c2 = load3<12>(p.g, ln, 6),
           pos = load3<12>(p.g, ln, 9);
  // M = M~ + (dt / ds)(f^-_j - f^+_{j-1}) [+ dt rho A R^T g]
  V3 Ma = load3<6>(p.Mt, ln, 0) + p.dt_w * (load3<6>(p.fm, ln, 0) - load3<6>(p.fp, ln, 0, -1));
  V3 Ml = load3<6>(p.Mt, ln, 3) + p.dt_w * (load3<6>(p.fm, ln, 3) - load3<6>(p.fp, ln, 3, -1));
  if (p.rhoA) {
    const v8 s = dt * load<1>(p.rhoA, ln, 0);
    Ml = Ml + s * V3{dot(c0, grav), dot(c1, grav), dot(c2, grav)};
  }
  V3 ta{}, tb{};
  if (p.theta_common) {
    ta = {splat(p.theta_common[0]), splat(p.theta_common[1]), splat(p.theta_common[2])};
    tb = {splat(p.theta_common[3]), splat(p.theta_common[4]), splat(p.theta_common[5])};
  } else if (p.theta_node) {
    ta = load3<6>(p.theta_node, ln, 0);
    tb = load3<6>(p.theta_node, ln, 3);
  } else if (p.dW) {
    const v8 dw = load<1>(p.dW, ln, 0);
    ta = {p.amp[0] * dw, p.amp[1] * dw, p.amp[2] * dw};
    tb = {p.amp[3] * dw, p.amp[4] * dw, p.amp[5] * dw};
  }
  const V3 ka = load3<4>(p.k4, ln, 0);
  const v8 k = load<4>(p.k4, ln, 3);
  const v8 scale = p.lie_tol * vmax(vmax(maxabs(Ma), maxabs(Ml)), splat(p.momentum_scale));
  // Newton in R^3 on w (Beam::reduced_solve with damping off: alpha = k, beta = k / 2, h_l = 0, so
  // (alpha I + beta a^)^{-1} y = (y - ½ a × y + ¼ (a·y) a) / (k (1 + ¼ |a|²))). Lanes stop independently:
  // a finished lane's w is frozen, its iteration count and residual kept.
  V3 w = load3<6>(p.zeta, ln, 0), v{};
  m8 done{}, failed{};
  v8 its{}, res{};
  for (int it = 0;; ++it) {
    const V3 a = dt * w + ta;
    const v8 invd = 1.0 / (k * (1.0 + 0.25 * dot(a, a)));
    const V3 vn = linv(a, invd, Ml);
    const V3 b = dt * vn + tb;
    const V3 m{ka.x * w.x, ka.y * w.y, ka.z * w.z};
    const V3 R = m + 0.5 * cross(a, m) + (0.25 * dot(a, m)) * a + 0.5 * cross(b, Ml) - Ma;
    const V3 Rl = k * (vn + 0.5 * cross(a, vn)) - Ml;
    const v8 r = vmax(maxabs(R), maxabs(Rl));
    const m8 finite = (sumabs(R) + sumabs(Rl)) <= 1e300;
    const m8 active = ~(done | failed);
    res = active ? (finite ? r : splat(std::numeric_limits<double>::quiet_NaN())) : res;
    its = active ? splat(static_cast<double>(it)) : its;
    v = select(active, vn, v);
    const m8 conv = active & finite & (r <= scale) & (it > 0 ? ~m8{} : m8{});
    done |= conv;
    failed |= active & ~finite;
    if (it == p.maxit) failed |= ~(done | failed);
    const m8 go = ~(done | failed);
    bool any = false;
    for (int l = 0; l < L; ++l) any |= go[l] != 0;
    if (!any) break;
    // the Jacobian column by column (q = 0, 1, 2):
    //   col_q = K_q e_q + ½ K_q a × e_q + ¼ K_q a_q a + dt (-½ m × e_q + ¼ ((a·m) e_q + m_q a))
    //           + (k/2) dt c × L^{-1}(v × e_q),   c = -½ dt M_l,
    // with the zeros of e_q written out: K_q e_q + ... = d_q e_q + u_q × e_q + s_q a, d_q = K_q + ¼ dt (a·m),
    // u_q = ½ (K_q a - dt m), s_q = ¼ (K_q a_q + dt m_q); and, from a × (v × e_q) = a_q v - (a·v) e_q and
    // a·(v × e_q) = (a × v)_q, L^{-1}(v × e_q) = invd (v × e_q - ½ a_q v + ½ (a·v) e_q + ¼ (a × v)_q a)
    const V3 av = cross(a, v);
    const v8 adv = dot(a, v), dam = (0.25 * dt) * dot(a, m);
    const V3 ccb = ((-0.25 * dt * dt) * k) * Ml;  // (k/2) dt c
    V3 col[3];
    auto column = [&]<int Q>() LIEVI_LANE_LAMBDA {
      const v8 kq = comp(ka, Q), aq = comp(a, Q), mq = comp(m, Q);
      const V3 u = 0.5 * (kq * a - dt * m);
      const v8 dq = kq + dam, sq = 0.25 * (kq * aq + dt * mq), hadv = 0.5 * adv;
      const V3 rest = (0.25 * comp(av, Q)) * a - (0.5 * aq) * v;
      V3 y, base;  // y = v × e_q + ½ (a·v) e_q; base = d_q e_q + u × e_q
      if constexpr (Q == 0) {
        y = {hadv, v.z, -v.y};
        base = {dq, u.z, -u.y};
      } else if constexpr (Q == 1) {
        y = {-v.z, hadv, v.x};
        base = {-u.z, dq, u.x};
      } else {
        y = {v.y, -v.x, hadv};
        base = {u.y, -u.x, dq};
      }
      col[Q] = base + sq * a + cross(ccb, invd * (y + rest));
    };
    column.template operator()<0>();
    column.template operator()<1>();
    column.template operator()<2>();
    const V3 c23 = cross(col[1], col[2]);
    const v8 inv_det = 1.0 / dot(col[0], c23);
    const V3 dw{inv_det * dot(R, c23), inv_det * dot(col[0], cross(R, col[2])),
                inv_det * dot(col[0], cross(col[1], R))};
    w = select(go, w - dw, w);
  }
  // reconstruction: A = dt zeta + theta, h = cay(A) = (I + c (W + ½ W²), (4 b + 2 a × b + (a·b) a) / (4 + s)),
  // c = 4 / (4 + s), s = |a|², W² = a a^T - s I; g <- g h; M~ <- Ad*_h M = (R_h^T (M_a - p_h × M_l), R_h^T M_l)
  const V3 a = dt * w + ta, b = dt * v + tb;
  const v8 s = dot(a, a);
  const v8 i4s = 1.0 / (4.0 + s);
  const v8 c = 4.0 * i4s, hc = 0.5 * c;
  const v8 xy = hc * (a.x * a.y), xz = hc * (a.x * a.z), yz = hc * (a.y * a.z);
  const V3 h0{1.0 + hc * (a.x * a.x - s), c * a.z + xy, xz - c * a.y};  // columns of R_h
  const V3 h1{xy - c * a.z, 1.0 + hc * (a.y * a.y - s), c * a.x + yz};
  const V3 h2{c * a.y + xz, yz - c * a.x, 1.0 + hc * (a.z * a.z - s)};
  const V3 ph = i4s * (4.0 * b + 2.0 * cross(a, b) + dot(a, b) * a);
  const V3 n0 = mat_vec(c0, c1, c2, h0), n1 = mat_vec(c0, c1, c2, h1), n2 = mat_vec(c0, c1, c2, h2),
           np = pos + mat_vec(c0, c1, c2, ph);
  const V3 u = Ma - cross(ph, Ml);
  const V3 ma{dot(h0, u), dot(h1, u), dot(h2, u)}, ml{dot(h0, Ml), dot(h1, Ml), dot(h2, Ml)};
  bool all = true;
  for (int l = 0; l < ln.valid(); ++l) {
    const std::ptrdiff_t i = ln.at(l);
    p.its[i] = done[l] ? static_cast<int>(its[l]) : -1 - static_cast<int>(its[l]);
    p.res[i] = res[l];
    all = all && done[l] != 0;
  }
  if (all) {  // every lane solved (the rule): store whole components
    store3<12>(p.g, ln, 0, n0);
    store3<12>(p.g, ln, 3, n1);
    store3<12>(p.g, ln, 6, n2);
    store3<12>(p.g, ln, 9, np);
    store3<6>(p.zeta, ln, 0, w);
    store3<6>(p.zeta, ln, 3, v);
    store3<6>(p.A, ln, 0, a);
    store3<6>(p.A, ln, 3, b);
    store3<6>(p.Mt, ln, 0, ma);
    store3<6>(p.Mt, ln, 3, ml);
    return;
  }
  for (int l = 0; l < ln.valid(); ++l) {  // a failed lane keeps its state
    if (!done[l]) continue;
    const std::ptrdiff_t i = ln.at(l);
    const double gv[12] = {n0.x[l], n0.y[l], n0.z[l], n1.x[l], n1.y[l], n1.z[l],
                           n2.x[l], n2.y[l], n2.z[l], np.x[l], np.y[l], np.z[l]};
    std::copy(gv, gv + 12, p.g + 12 * i);
    const double zv[6] = {w.x[l], w.y[l], w.z[l], v.x[l], v.y[l], v.z[l]};
    std::copy(zv, zv + 6, p.zeta + 6 * i);
    const double av[6] = {a.x[l], a.y[l], a.z[l], b.x[l], b.y[l], b.z[l]};
    std::copy(av, av + 6, p.A + 6 * i);
    const double mv[6] = {ma.x[l], ma.y[l], ma.z[l], ml.x[l], ml.y[l], ml.z[l]};
    std::copy(mv, mv + 6, p.Mt + 6 * i);
  }
}

LIEVI_BATCH_CLONES void nodes_impl(const NodeArgs& p, std::ptrdiff_t j0, std::ptrdiff_t j1) {
  const V3 grav{splat(p.gravity[0]), splat(p.gravity[1]), splat(p.gravity[2])};
  for_packs(j0, j1, [&](const auto& ln) LIEVI_LANE_LAMBDA { node_pack(ln, p, grav); });
}

}  // namespace

void stresses(std::ptrdiff_t e0, std::ptrdiff_t e1, double ds, const double* gamma, const double* E,
              const double* p6, double* fm, double* fp) {
  if (e1 > e0) stresses_impl(e0, e1, ds, gamma, E, p6, fm, fp);
}
bool strains(std::ptrdiff_t e0, std::ptrdiff_t e1, double inv_ds, const double* g, double* gamma) {
  return e1 > e0 && strains_impl(e0, e1, inv_ds, g, gamma);
}
void nodes(const NodeArgs& args, std::ptrdiff_t j0, std::ptrdiff_t j1) {
  if (j1 > j0) nodes_impl(args, j0, j1);
}

}  // namespace lievi::models::batch
