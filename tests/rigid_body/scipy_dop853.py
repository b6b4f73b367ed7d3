"""SciPy DOP853 (rtol = atol = 1e-13 unless --tol is given) for the rigid body with double-bracket dissipation (docs/theory/ddb.md).

    dM/dt = M x Omega + alpha M x (M x Omega),  Omega = I^{-1} M,  I = diag(I1, I2, I3).

Usage: scipy_dop853.py [--tol TOL] I1 I2 I3 alpha M1 M2 M3 t_1 ... t_n
Prints one line "t M1 M2 M3" per output time with 17 significant digits. Exit 77 if SciPy is missing.
"""
import sys

try:
    import numpy as np
    from scipy.integrate import solve_ivp
except ImportError:
    sys.exit(77)


def main(argv):
    tol = 1e-13
    if argv[:1] == ["--tol"]:
        tol = float(argv[1])
        argv = argv[2:]
    vals = [float(a) for a in argv]
    inertia = np.array(vals[0:3])
    alpha = vals[3]
    m0 = np.array(vals[4:7])
    times = np.array(vals[7:])

    def field(_t, m):
        omega = m / inertia
        u = np.cross(m, omega)
        return u + alpha * np.cross(m, u)

    sol = solve_ivp(field, (0.0, times[-1]), m0, method="DOP853", rtol=tol, atol=tol, t_eval=times)
    if not sol.success:
        print(sol.message, file=sys.stderr)
        return 1
    for k, t in enumerate(sol.t):
        print("%.17g %.17g %.17g %.17g" % (t, sol.y[0, k], sol.y[1, k], sol.y[2, k]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
