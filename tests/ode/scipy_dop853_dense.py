"""One step of SciPy's DOP853 and its dense output (its 7th-order continuous extension) for the rigid body with
double-bracket dissipation (docs/theory/ddb.md), for tests/ode/test_dop853.cpp.

    dM/dt = M x Omega + alpha M x (M x Omega),  Omega = I^{-1} M,  I = diag(I1, I2, I3).

Usage: scipy_dop853_dense.py I1 I2 I3 alpha M1 M2 M3 h theta_1 ... theta_n
Takes exactly one step of size h from M (first_step = h = t_bound, tolerances so loose that it is accepted) and
prints one line "theta M1 M2 M3" per theta with 17 significant digits: the dense output at t = theta h.
Exit 77 if SciPy is missing, 1 if SciPy did not take exactly one step.
"""
import sys

try:
    import numpy as np
    from scipy.integrate import solve_ivp
except ImportError:
    sys.exit(77)


def main(argv):
    vals = [float(a) for a in argv]
    inertia = np.array(vals[0:3])
    alpha = vals[3]
    m0 = np.array(vals[4:7])
    h = vals[7]
    thetas = vals[8:]

    def field(_t, m):
        omega = m / inertia
        u = np.cross(m, omega)
        return u + alpha * np.cross(m, u)

    sol = solve_ivp(field, (0.0, h), m0, method="DOP853", rtol=1e3, atol=1e3, first_step=h, max_step=h,
                    dense_output=True)
    if not sol.success or len(sol.t) != 2:
        print(f"SciPy took {len(sol.t) - 1} steps: {sol.message}", file=sys.stderr)
        return 1
    for th in thetas:
        m = sol.sol(th * h)
        print("%.17g %.17g %.17g %.17g" % (th, m[0], m[1], m[2]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
