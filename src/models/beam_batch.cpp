// The exact-Cayley beam sweeps on packs of nodes (see lievi/models/beam_batch.hpp for what they compute).
//
// Every function below is an elementwise computation on GCC vector-extension packs of W doubles: +, -, *, /
// and comparisons only (Cayley is rational: no transcendental function), compiled with -ffp-contract=fast
// (CMakeLists.txt): where the ISA has FMA, GCC fuses the multiply-adds, and it fuses the same products in every
// instance, so a lane's result is the same IEEE sequence whatever the pack width, whether the pack is full or
// partial and whatever the other lanes hold (AVX-512 and AVX2 + FMA give the same bits: tested; SSE2, without
// FMA, differs from them by round-off). Each kernel is compiled three times, for AVX-512 (W = 8), AVX2 + FMA
// (W = 4) and baseline x86-64 (SSE2, W = 2), and the widest the CPU supports is used (the environment variable
// LIEVI_BATCH_ISA = sse2 or avx2 caps it at start-up; force_isa sets it, for tests). A partial pack at the end of a range repeats its
// last node in the unused lanes and stores only the valid ones. Full packs move each item's components in
// 16-byte pairs and transpose them in registers (load_block, store_block): the arrays are the stepper's AoS
// storage, and element-by-element gathers and scatters cost more than the arithmetic.
#include "lievi/models/beam_batch.hpp"

#include <algorithm>
#include <atomic>
#include <cfloat>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string_view>

#include "lievi/core/tolerances.hpp"

// The pack helpers are always inlined into the per-ISA kernels, so no pack crosses a call boundary between
// code of different ISAs (GCC's -Wpsabi note about AVX-512 vector arguments does not apply).
#pragma GCC diagnostic ignored "-Wpsabi"

namespace lievi::models::batch {
namespace {

template <int W>
struct PackT;
template <>
struct PackT<8> {
  typedef double v __attribute__((vector_size(64)));
  typedef std::int64_t m __attribute__((vector_size(64)));
};
template <>
struct PackT<4> {
  typedef double v __attribute__((vector_size(32)));
  typedef std::int64_t m __attribute__((vector_size(32)));
};
template <>
struct PackT<2> {
  typedef double v __attribute__((vector_size(16)));
  typedef std::int64_t m __attribute__((vector_size(16)));
};
/// The mask type of comparisons of V.
template <class V>
using mask_t = decltype(V{} < V{});

#define LIEVI_LANE inline __attribute__((always_inline))
#define LIEVI_LANE_LAMBDA __attribute__((always_inline))

template <class V>
LIEVI_LANE V splat(double x) {
  return V{} + x;
}
template <class V>
LIEVI_LANE V vabs(V x) {
  using M = mask_t<V>;
  return (V)((M)x & (M{} + std::numeric_limits<std::int64_t>::max()));
}
template <class V>
LIEVI_LANE V vmax(V a, V b) {
  return a < b ? b : a;
}

template <class V>
struct V3 {
  V x, y, z;
};
template <class V>
LIEVI_LANE V3<V> operator+(const V3<V>& a, const V3<V>& b) {
  return {a.x + b.x, a.y + b.y, a.z + b.z};
}
template <class V>
LIEVI_LANE V3<V> operator-(const V3<V>& a, const V3<V>& b) {
  return {a.x - b.x, a.y - b.y, a.z - b.z};
}
template <class V>
LIEVI_LANE V3<V> operator-(const V3<V>& a) {
  return {-a.x, -a.y, -a.z};
}
template <class V>
LIEVI_LANE V3<V> operator*(V s, const V3<V>& a) {
  return {s * a.x, s * a.y, s * a.z};
}
template <class V>
LIEVI_LANE V3<V> operator*(double s, const V3<V>& a) {
  return {s * a.x, s * a.y, s * a.z};
}
template <class V>
LIEVI_LANE V dot(const V3<V>& a, const V3<V>& b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}
template <class V>
LIEVI_LANE V3<V> cross(const V3<V>& a, const V3<V>& b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
template <class V>
LIEVI_LANE V3<V> select(mask_t<V> m, const V3<V>& a, const V3<V>& b) {
  return {m ? a.x : b.x, m ? a.y : b.y, m ? a.z : b.z};
}
template <class V>
LIEVI_LANE V maxabs(const V3<V>& a) {
  return vmax(vmax(vabs(a.x), vabs(a.y)), vabs(a.z));
}
template <class V>
LIEVI_LANE V sumabs(const V3<V>& a) {
  return vabs(a.x) + vabs(a.y) + vabs(a.z);
}
/// Component k of a: a.x, a.y or a.z.
template <class V>
LIEVI_LANE V comp(const V3<V>& a, int k) {
  return k == 0 ? a.x : (k == 1 ? a.y : a.z);
}
/// (alpha I + beta a^)^{-1} y for alpha = k, beta = k / 2: (y - ½ a × y + ¼ (a·y) a) invd, invd = 1 / (k (1 + ¼ |a|²)).
template <class V>
LIEVI_LANE V3<V> linv(const V3<V>& a, V invd, const V3<V>& y) {
  return invd * (y - 0.5 * cross(a, y) + (0.25 * dot(a, y)) * a);
}
/// R u for R with columns c0, c1, c2.
template <class V>
LIEVI_LANE V3<V> mat_vec(const V3<V>& c0, const V3<V>& c1, const V3<V>& c2, const V3<V>& u) {
  return u.x * c0 + u.y * c1 + u.z * c2;
}

/// The lanes of one pack: items first, first + 1, ... A full pack (Full) has all L; a partial one (the end of
/// a range) has `count` < L and repeats its last item in the unused lanes (so they compute on valid data),
/// storing only the valid ones. Full packs get compile-time offsets from one base pointer.
template <bool Full, int W>
struct Lanes {
  static constexpr int L = W;
  std::ptrdiff_t first = 0;
  int count = W;
  [[nodiscard]] LIEVI_LANE std::ptrdiff_t at(int l) const {
    if constexpr (Full) return first + l;
    else return first + std::min(l, count - 1);
  }
  [[nodiscard]] LIEVI_LANE int valid() const { return Full ? L : count; }
};
/// The address of item first + shift of a full pack, hidden from the optimiser: GCC would otherwise compute
/// the address of every lane of every component once, share them between a kernel's loads and stores and
/// keep them on the stack across the whole kernel (one extra load per element stored); this way each access
/// is the base register plus a constant offset.
template <int S>
LIEVI_LANE const double* opaque_row(const double* base, std::ptrdiff_t item) {
  const double* q = base + item * S;
  __asm__ __volatile__("" : "+r"(q));
  return q;
}
/// Component c of items with S doubles each, offset by `shift` items, element by element (partial packs).
template <int S, bool F, int W>
LIEVI_LANE typename PackT<W>::v load(const double* base, const Lanes<F, W>& ln, int c, std::ptrdiff_t shift = 0) {
  typename PackT<W>::v r{};
  for (int l = 0; l < W; ++l) r[l] = base[(ln.at(l) + shift) * S + c];
  return r;
}
/// Store component c of the valid lanes, element by element (partial packs).
template <int S, bool F, int W>
LIEVI_LANE void store(double* base, const Lanes<F, W>& ln, int c, typename PackT<W>::v x) {
  for (int l = 0; l < ln.valid(); ++l) base[ln.at(l) * S + c] = x[l];
}
/// The S components of W items (S doubles each, item first + shift on), component c in r[c].
template <int S, int W>
struct Block {
  typename PackT<W>::v r[S];
  /// Components c, c + 1, c + 2.
  [[nodiscard]] LIEVI_LANE V3<typename PackT<W>::v> p3(int c) const { return {r[c], r[c + 1], r[c + 2]}; }
};
typedef double Pair __attribute__((vector_size(16)));
/// Interleave: lanes 0, W, 2, W + 2, ... of (a, b), and 1, W + 1, 3, W + 3, ... For the lanes of two
/// components x, y these are [x0 y0 x2 y2 ...] and [x1 y1 x3 y3 ...], and back (the same permutations).
template <class V>
LIEVI_LANE void interleave(V a, V b, V& even, V& odd) {
  constexpr int W = sizeof(V) / sizeof(double);
  if constexpr (W == 2) {
    even = __builtin_shufflevector(a, b, 0, 2);
    odd = __builtin_shufflevector(a, b, 1, 3);
  } else if constexpr (W == 4) {
    even = __builtin_shufflevector(a, b, 0, 4, 2, 6);
    odd = __builtin_shufflevector(a, b, 1, 5, 3, 7);
  } else {
    even = __builtin_shufflevector(a, b, 0, 8, 2, 10, 4, 12, 6, 14);
    odd = __builtin_shufflevector(a, b, 1, 9, 3, 11, 5, 13, 7, 15);
  }
}
/// The pack [p[0] p[1] ... ] of W / 2 pairs.
template <int W>
LIEVI_LANE typename PackT<W>::v join(const Pair* p) {
  if constexpr (W == 2) {
    return p[0];
  } else if constexpr (W == 4) {
    return __builtin_shufflevector(p[0], p[1], 0, 1, 2, 3);
  } else {
    typedef double Quad __attribute__((vector_size(32)));
    const Quad lo = __builtin_shufflevector(p[0], p[1], 0, 1, 2, 3), hi = __builtin_shufflevector(p[2], p[3], 0, 1, 2, 3);
    return __builtin_shufflevector(lo, hi, 0, 1, 2, 3, 4, 5, 6, 7);
  }
}
/// Pair k (lanes 2k, 2k + 1) of x.
template <class V>
LIEVI_LANE Pair pair_of(V x, int k) {
  return Pair{x[2 * k], x[2 * k + 1]};
}
/// Load a block. Full packs and even S: each item's components in pairs (16-byte loads), transposed in
/// registers; otherwise element by element. S = 1 and a full pack: one contiguous load.
template <int S, bool F, int W>
LIEVI_LANE Block<S, W> load_block(const double* base, const Lanes<F, W>& ln, std::ptrdiff_t shift = 0) {
  using V = typename PackT<W>::v;
  Block<S, W> b;
  if constexpr (F && S == 1) {
    __builtin_memcpy(&b.r[0], opaque_row<1>(base, ln.first + shift), sizeof(V));
  } else if constexpr (F && S % 2 == 0) {
    const double* q = opaque_row<S>(base, ln.first + shift);
    for (int c = 0; c < S; c += 2) {
      Pair ev[W / 2], od[W / 2];  // items 0, 2, 4, ... and 1, 3, 5, ...: (x_l, y_l) of components c, c + 1
      for (int k = 0; k < W / 2; ++k) {
        __builtin_memcpy(&ev[k], q + (2 * k) * S + c, sizeof(Pair));
        __builtin_memcpy(&od[k], q + (2 * k + 1) * S + c, sizeof(Pair));
      }
      interleave(join<W>(ev), join<W>(od), b.r[c], b.r[c + 1]);
    }
  } else {
    for (int c = 0; c < S; ++c) b.r[c] = load<S>(base, ln, c, shift);
  }
  return b;
}
/// Store a block (the valid lanes of a partial pack).
template <int S, bool F, int W>
LIEVI_LANE void store_block(double* base, const Lanes<F, W>& ln, const Block<S, W>& b) {
  using V = typename PackT<W>::v;
  if constexpr (F && S % 2 == 0) {
    double* q = const_cast<double*>(opaque_row<S>(base, ln.first));
    for (int c = 0; c < S; c += 2) {
      V ev, od;  // [x0 y0 x2 y2 ...], [x1 y1 x3 y3 ...]
      interleave(b.r[c], b.r[c + 1], ev, od);
      // opaque: GCC would fold the interleave into one two-source permute (and its index load) per pair;
      // this way each pair is a 128-bit lane move and a store
      __asm__("" : "+v"(ev), "+v"(od));
      for (int k = 0; k < W / 2; ++k) {
        const Pair e = pair_of(ev, k), o = pair_of(od, k);
        __builtin_memcpy(q + (2 * k) * S + c, &e, sizeof(Pair));
        __builtin_memcpy(q + (2 * k + 1) * S + c, &o, sizeof(Pair));
      }
    }
  } else {
    for (int c = 0; c < S; ++c) store<S>(base, ln, c, b.r[c]);
  }
}
/// Run pack(Lanes) over [b, e): full packs, then the partial one.
template <int W, class Pack>
LIEVI_LANE void for_packs(std::ptrdiff_t b, std::ptrdiff_t e, Pack&& pack) {
  for (; b + W <= e; b += W) pack(Lanes<true, W>{b, W});
  if (b < e) pack(Lanes<false, W>{b, static_cast<int>(e - b)});
}

/// The block of S components x[0 .. S) for every lane.
template <int S, int W>
LIEVI_LANE Block<S, W> splat_block(const double* x) {
  Block<S, W> b;
  for (int c = 0; c < S; ++c) b.r[c] = splat<typename PackT<W>::v>(x[c]);
  return b;
}
/// Per-item data, or (uniform) one item's for all.
template <int S, bool F, int W>
LIEVI_LANE Block<S, W> load_or_splat(bool uniform, const double* base, const Lanes<F, W>& ln) {
  return uniform ? splat_block<S, W>(base) : load_block<S>(base, ln);
}

template <bool F, int W>
LIEVI_LANE void stress_pack(const Lanes<F, W>& ln, double ds, const double* gamma, const double* E, const double* p6,
                            bool uniform, double* fm, double* fp) {
  using V = typename PackT<W>::v;
  using P3 = V3<V>;
  const Block<6, W> yb = load_block<6>(gamma, ln), eb = load_or_splat<6>(uniform, E, ln),
                    pb = load_or_splat<6>(uniform, p6, ln);
  const P3 ya = yb.p3(0), yl = yb.p3(3), ea = eb.p3(0), el = eb.p3(3), pa = pb.p3(0), pl = pb.p3(3);
  const P3 da = ya - ea, dl = yl - el;
  const P3 m{pa.x * da.x, pa.y * da.y, pa.z * da.z}, n{pl.x * dl.x, pl.y * dl.y, pl.z * dl.z};
  const P3 om = ds * ya, v = ds * yl;
  // (dtau_x^{-1})^* (m, n) = (m + ½ om × m + ¼ (om·m) om + ½ v × n~, n~), n~ = n + ½ om × n; x = -B flips om, v
  const P3 hon = 0.5 * cross(om, n), hom = 0.5 * cross(om, m);
  const P3 q = (0.25 * dot(om, m)) * om;
  const P3 nm = n + hon, np = n - hon;
  const P3 fma = m + hom + q + 0.5 * cross(v, nm), fpa = m - hom + q - 0.5 * cross(v, np);
  store_block<6>(fm, ln, Block<6, W>{{fma.x, fma.y, fma.z, nm.x, nm.y, nm.z}});
  store_block<6>(fp, ln, Block<6, W>{{fpa.x, fpa.y, fpa.z, np.x, np.y, np.z}});
}

template <int W>
LIEVI_LANE void stresses_w(std::ptrdiff_t e0, std::ptrdiff_t e1, double ds, const double* gamma, const double* E,
                           const double* p6, bool uniform, double* fm, double* fp) {
  for_packs<W>(e0, e1,
               [&](const auto& ln) LIEVI_LANE_LAMBDA { stress_pack(ln, ds, gamma, E, p6, uniform, fm, fp); });
}

/// The block of items first + 1 ... (of the block b of items first ...): full packs shift b by one lane and
/// load only the one new item; partial packs load it all.
template <int S, bool F, int W>
LIEVI_LANE Block<S, W> next_items(const Block<S, W>& b, const double* base, const Lanes<F, W>& ln) {
  if constexpr (F) {
    using V = typename PackT<W>::v;
    const double* q = opaque_row<S>(base, ln.first + W);
    Block<S, W> n;
    for (int c = 0; c < S; ++c) {
      const V last = splat<V>(q[c]);
      if constexpr (W == 2) n.r[c] = __builtin_shufflevector(b.r[c], last, 1, 2);
      else if constexpr (W == 4) n.r[c] = __builtin_shufflevector(b.r[c], last, 1, 2, 3, 4);
      else n.r[c] = __builtin_shufflevector(b.r[c], last, 1, 2, 3, 4, 5, 6, 7, 8);
    }
    return n;
  } else {
    return load_block<S>(base, ln, 1);
  }
}

template <bool F, int W>
LIEVI_LANE typename PackT<W>::m strain_pack(const Lanes<F, W>& ln, double inv_ds, const double* g, double* gamma) {
  using V = typename PackT<W>::v;
  using M = typename PackT<W>::m;
  using P3 = V3<V>;
  const V nan = splat<V>(std::numeric_limits<double>::quiet_NaN());
  const Block<12, W> ga = load_block<12>(g, ln), gb = next_items(ga, g, ln);
  const P3 a0 = ga.p3(0), a1 = ga.p3(3), a2 = ga.p3(6), pa = ga.p3(9);
  const P3 b0 = gb.p3(0), b1 = gb.p3(3), b2 = gb.p3(6), pb = gb.p3(9);
  // R_rel = R_a^T R_b: entry (i, k) = column i of R_a · column k of R_b
  const V r01 = dot(a0, b1), r02 = dot(a0, b2), r10 = dot(a1, b0), r12 = dot(a1, b2), r20 = dot(a2, b0),
           r21 = dot(a2, b1);
  const V margin = 1.0 + (dot(a0, b0) + dot(a1, b1) + dot(a2, b2));
  const V f = 2.0 / margin;
  const P3 om{f * (r21 - r12), f * (r02 - r20), f * (r10 - r01)};
  const P3 dp = pb - pa;
  const P3 pr{dot(a0, dp), dot(a1, dp), dot(a2, dp)};
  P3 ang = inv_ds * om, lin = inv_ds * (pr - 0.5 * cross(om, pr));
  const M ok = (margin >= tol::cayley_margin) & ((sumabs(ang) + sumabs(lin)) <= DBL_MAX);
  ang = select(ok, ang, P3{nan, nan, nan});
  lin = select(ok, lin, P3{nan, nan, nan});
  store_block<6>(gamma, ln, Block<6, W>{{ang.x, ang.y, ang.z, lin.x, lin.y, lin.z}});
  return ~ok;
}

template <int W>
LIEVI_LANE bool strains_w(std::ptrdiff_t e0, std::ptrdiff_t e1, double inv_ds, const double* g, double* gamma) {
  typename PackT<W>::m bad{};
  for_packs<W>(e0, e1, [&](const auto& ln) LIEVI_LANE_LAMBDA { bad |= strain_pack(ln, inv_ds, g, gamma); });
  bool any = false;
  for (int l = 0; l < W; ++l) any |= bad[l] != 0;
  return any;
}

/// The node solve and reconstruction of one pack.
template <bool F, int W>
LIEVI_LANE void node_pack(const Lanes<F, W>& ln, const NodeArgs& p) {
  using V = typename PackT<W>::v;
  using M = typename PackT<W>::m;
  using P3 = V3<V>;
  const double dt = p.dt;
  const P3 grav{splat<V>(p.gravity[0]), splat<V>(p.gravity[1]), splat<V>(p.gravity[2])};
  const Block<12, W> gb = load_block<12>(p.g, ln);
  const P3 c0 = gb.p3(0), c1 = gb.p3(3), c2 = gb.p3(6), pos = gb.p3(9);
  // M = M~ + (dt / w_j)(f^-_j - f^+_{j-1}) [+ dt rho A R^T g], w_j = ds except at a solved end node
  const Block<6, W> mtb = load_block<6>(p.Mt, ln), fmb = load_block<6>(p.fm, ln), fpb = load_block<6>(p.fp, ln, -1);
  V dtw = splat<V>(p.dt_w);
  if (p.end_node >= ln.at(0) && p.end_node <= ln.at(W - 1)) {  // the pack holding a solved end node
    for (int l = 0; l < W; ++l)
      if (ln.at(l) == p.end_node) dtw[l] = p.dt_w_end;
  }
  P3 Ma = mtb.p3(0) + dtw * (fmb.p3(0) - fpb.p3(0));
  P3 Ml = mtb.p3(3) + dtw * (fmb.p3(3) - fpb.p3(3));
  if (p.rhoA) {
    const V s = dt * load_or_splat<1>(p.uniform, p.rhoA, ln).r[0];
    Ml = Ml + s * P3{dot(c0, grav), dot(c1, grav), dot(c2, grav)};
  }
  P3 ta{}, tb{};
  if (p.theta_common) {
    ta = {splat<V>(p.theta_common[0]), splat<V>(p.theta_common[1]), splat<V>(p.theta_common[2])};
    tb = {splat<V>(p.theta_common[3]), splat<V>(p.theta_common[4]), splat<V>(p.theta_common[5])};
  } else if (p.theta_node) {
    const Block<6, W> tnb = load_block<6>(p.theta_node, ln);
    ta = tnb.p3(0);
    tb = tnb.p3(3);
  } else if (p.dW) {
    const V dw = load_block<1>(p.dW, ln).r[0];
    ta = {p.amp[0] * dw, p.amp[1] * dw, p.amp[2] * dw};
    tb = {p.amp[3] * dw, p.amp[4] * dw, p.amp[5] * dw};
  }
  const Block<4, W> kb = load_or_splat<4>(p.uniform, p.k4, ln);
  const P3 ka = kb.p3(0);
  const V k = kb.r[3];
  const V scale = p.lie_tol * vmax(vmax(maxabs(Ma), maxabs(Ml)), splat<V>(p.momentum_scale));
  // Newton in R^3 on w (Beam::reduced_solve with damping off: alpha = k, beta = k / 2, h_l = 0, so
  // (alpha I + beta a^)^{-1} y = (y - ½ a × y + ¼ (a·y) a) / (k (1 + ¼ |a|²))). Lanes stop independently:
  // a finished lane's w is frozen, its iteration count and residual kept.
  P3 w = load_block<6>(p.zeta, ln).p3(0), v{};
  M done{}, failed{};
  V its{}, res{};
  for (int it = 0;; ++it) {
    const P3 a = dt * w + ta;
    const V invd = 1.0 / (k * (1.0 + 0.25 * dot(a, a)));
    const P3 vn = linv(a, invd, Ml);
    const P3 b = dt * vn + tb;
    const P3 m{ka.x * w.x, ka.y * w.y, ka.z * w.z};
    const P3 R = m + 0.5 * cross(a, m) + (0.25 * dot(a, m)) * a + 0.5 * cross(b, Ml) - Ma;
    const P3 Rl = k * (vn + 0.5 * cross(a, vn)) - Ml;
    const V r = vmax(maxabs(R), maxabs(Rl));
    const M finite = (sumabs(R) + sumabs(Rl)) <= 1e300;
    const M active = ~(done | failed);
    res = active ? (finite ? r : splat<V>(std::numeric_limits<double>::quiet_NaN())) : res;
    its = active ? splat<V>(static_cast<double>(it)) : its;
    v = select(active, vn, v);
    const M conv = active & finite & (r <= scale) & (it > 0 ? ~M{} : M{});
    done |= conv;
    failed |= active & ~finite;
    if (it == p.maxit) failed |= ~(done | failed);
    const M go = ~(done | failed);
    bool any = false;
    for (int l = 0; l < W; ++l) any |= go[l] != 0;
    if (!any) break;
    // the Jacobian column by column (q = 0, 1, 2):
    //   col_q = K_q e_q + ½ K_q a × e_q + ¼ K_q a_q a + dt (-½ m × e_q + ¼ ((a·m) e_q + m_q a))
    //           + (k/2) dt c × L^{-1}(v × e_q),   c = -½ dt M_l,
    // with the zeros of e_q written out: K_q e_q + ... = d_q e_q + u_q × e_q + s_q a, d_q = K_q + ¼ dt (a·m),
    // u_q = ½ (K_q a - dt m), s_q = ¼ (K_q a_q + dt m_q); and, from a × (v × e_q) = a_q v - (a·v) e_q and
    // a·(v × e_q) = (a × v)_q, L^{-1}(v × e_q) = invd (v × e_q - ½ a_q v + ½ (a·v) e_q + ¼ (a × v)_q a)
    const P3 av = cross(a, v);
    const V adv = dot(a, v), dam = (0.25 * dt) * dot(a, m);
    const P3 ccb = ((-0.25 * dt * dt) * k) * Ml;  // (k/2) dt c
    P3 col[3];
    auto column = [&]<int Q>() LIEVI_LANE_LAMBDA {
      const V kq = comp(ka, Q), aq = comp(a, Q), mq = comp(m, Q);
      const P3 u = 0.5 * (kq * a - dt * m);
      const V dq = kq + dam, sq = 0.25 * (kq * aq + dt * mq), hadv = 0.5 * adv;
      const P3 rest = (0.25 * comp(av, Q)) * a - (0.5 * aq) * v;
      P3 y, base;  // y = v × e_q + ½ (a·v) e_q; base = d_q e_q + u × e_q
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
    const P3 c23 = cross(col[1], col[2]);
    const V inv_det = 1.0 / dot(col[0], c23);
    const P3 dw{inv_det * dot(R, c23), inv_det * dot(col[0], cross(R, col[2])),
                inv_det * dot(col[0], cross(col[1], R))};
    w = select(go, w - dw, w);
  }
  // reconstruction: A = dt zeta + theta, h = cay(A) = (I + c (W + ½ W²), (4 b + 2 a × b + (a·b) a) / (4 + s)),
  // c = 4 / (4 + s), s = |a|², W² = a a^T - s I; g <- g h; M~ <- Ad*_h M = (R_h^T (M_a - p_h × M_l), R_h^T M_l)
  const P3 a = dt * w + ta, b = dt * v + tb;
  const V s = dot(a, a);
  const V i4s = 1.0 / (4.0 + s);
  const V c = 4.0 * i4s, hc = 0.5 * c;
  const V xy = hc * (a.x * a.y), xz = hc * (a.x * a.z), yz = hc * (a.y * a.z);
  const P3 h0{1.0 + hc * (a.x * a.x - s), c * a.z + xy, xz - c * a.y};  // columns of R_h
  const P3 h1{xy - c * a.z, 1.0 + hc * (a.y * a.y - s), c * a.x + yz};
  const P3 h2{c * a.y + xz, yz - c * a.x, 1.0 + hc * (a.z * a.z - s)};
  const P3 ph = i4s * (4.0 * b + 2.0 * cross(a, b) + dot(a, b) * a);
  const P3 n0 = mat_vec(c0, c1, c2, h0), n1 = mat_vec(c0, c1, c2, h1), n2 = mat_vec(c0, c1, c2, h2),
           np = pos + mat_vec(c0, c1, c2, ph);
  const P3 u = Ma - cross(ph, Ml);
  const P3 ma{dot(h0, u), dot(h1, u), dot(h2, u)}, ml{dot(h0, Ml), dot(h1, Ml), dot(h2, Ml)};
  bool all = true;
  for (int l = 0; l < ln.valid(); ++l) {
    const std::ptrdiff_t i = ln.at(l);
    p.its[i] = done[l] ? static_cast<int>(its[l]) : -1 - static_cast<int>(its[l]);
    p.res[i] = res[l];
    all = all && done[l] != 0;
  }
  if (all) {  // every lane solved (the rule): store whole components
    store_block<12>(p.g, ln, Block<12, W>{{n0.x, n0.y, n0.z, n1.x, n1.y, n1.z, n2.x, n2.y, n2.z, np.x, np.y, np.z}});
    store_block<6>(p.zeta, ln, Block<6, W>{{w.x, w.y, w.z, v.x, v.y, v.z}});
    if (p.A) store_block<6>(p.A, ln, Block<6, W>{{a.x, a.y, a.z, b.x, b.y, b.z}});
    store_block<6>(p.Mt, ln, Block<6, W>{{ma.x, ma.y, ma.z, ml.x, ml.y, ml.z}});
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
    if (p.A) std::copy(av, av + 6, p.A + 6 * i);
    const double mv[6] = {ma.x[l], ma.y[l], ma.z[l], ml.x[l], ml.y[l], ml.z[l]};
    std::copy(mv, mv + 6, p.Mt + 6 * i);
  }
}

template <int W>
LIEVI_LANE void nodes_w(const NodeArgs& p, std::ptrdiff_t j0, std::ptrdiff_t j1) {
  for_packs<W>(j0, j1, [&](const auto& ln) LIEVI_LANE_LAMBDA { node_pack(ln, p); });
}

// One instance per ISA: the width its registers hold (8 doubles for AVX-512, 4 for AVX2, 2 for SSE2).
#define LIEVI_BATCH_ISA(suffix, attr, W)                                                                       \
  attr void stresses_##suffix(std::ptrdiff_t e0, std::ptrdiff_t e1, double ds, const double* gamma,          \
                              const double* E, const double* p6, bool uniform, double* fm, double* fp) {     \
    stresses_w<W>(e0, e1, ds, gamma, E, p6, uniform, fm, fp);                                                \
  }                                                                                                          \
  attr bool strains_##suffix(std::ptrdiff_t e0, std::ptrdiff_t e1, double inv_ds, const double* g,           \
                             double* gamma) {                                                                \
    return strains_w<W>(e0, e1, inv_ds, g, gamma);                                                           \
  }                                                                                                          \
  attr void nodes_##suffix(const NodeArgs& p, std::ptrdiff_t j0, std::ptrdiff_t j1) { nodes_w<W>(p, j0, j1); }
LIEVI_BATCH_ISA(avx512, __attribute__((target("avx512f"))), 8)
LIEVI_BATCH_ISA(avx2, __attribute__((target("avx2,fma"))), 4)
LIEVI_BATCH_ISA(sse2, , 2)
#undef LIEVI_BATCH_ISA

Isa widest() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return Isa::avx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return Isa::avx2;
  return Isa::sse2;
}
Isa narrower(Isa a, Isa b) { return static_cast<int>(a) < static_cast<int>(b) ? a : b; }
/// The widest supported, or LIEVI_BATCH_ISA = sse2 | avx2 | avx512 if set (capped at the widest supported).
Isa initial() {
  const Isa best = widest();
  const char* env = std::getenv("LIEVI_BATCH_ISA");
  if (!env) return best;
  const std::string_view e(env);
  if (e == "sse2") return Isa::sse2;
  if (e == "avx2") return narrower(Isa::avx2, best);
  return best;
}
std::atomic<Isa> g_isa{initial()};

}  // namespace

Isa isa() { return g_isa.load(std::memory_order_relaxed); }
Isa force_isa(Isa want) {
  const Isa use = narrower(want, widest());
  g_isa.store(use, std::memory_order_relaxed);
  return use;
}
const char* isa_name(Isa i) {
  switch (i) {
    case Isa::avx512:
      return "avx512";
    case Isa::avx2:
      return "avx2";
    case Isa::sse2:
      break;
  }
  return "sse2";
}

void stresses(std::ptrdiff_t e0, std::ptrdiff_t e1, double ds, const double* gamma, const double* E,
              const double* p6, bool uniform, double* fm, double* fp) {
  if (e1 <= e0) return;
  switch (isa()) {
    case Isa::avx512:
      return stresses_avx512(e0, e1, ds, gamma, E, p6, uniform, fm, fp);
    case Isa::avx2:
      return stresses_avx2(e0, e1, ds, gamma, E, p6, uniform, fm, fp);
    case Isa::sse2:
      break;
  }
  stresses_sse2(e0, e1, ds, gamma, E, p6, uniform, fm, fp);
}
bool strains(std::ptrdiff_t e0, std::ptrdiff_t e1, double inv_ds, const double* g, double* gamma) {
  if (e1 <= e0) return false;
  switch (isa()) {
    case Isa::avx512:
      return strains_avx512(e0, e1, inv_ds, g, gamma);
    case Isa::avx2:
      return strains_avx2(e0, e1, inv_ds, g, gamma);
    case Isa::sse2:
      break;
  }
  return strains_sse2(e0, e1, inv_ds, g, gamma);
}
void nodes(const NodeArgs& args, std::ptrdiff_t j0, std::ptrdiff_t j1) {
  if (j1 <= j0) return;
  switch (isa()) {
    case Isa::avx512:
      return nodes_avx512(args, j0, j1);
    case Isa::avx2:
      return nodes_avx2(args, j0, j1);
    case Isa::sse2:
      break;
  }
  nodes_sse2(args, j0, j1);
}

}  // namespace lievi::models::batch
