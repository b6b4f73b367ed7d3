"""User Lagrangians from Python (lievi.Lagrangian) against the C++ catalogue systems run from the same files
(examples/mechanics, through lievi.run: Jet-AD derivatives, the same integrators) and against the orders of the
methods measured on the double pendulum. The SymPy derivatives are the same functions evaluated in another
order, so the paths agree to round-off (amplified by the dynamics over the compared time).
"""
import math
import os

import numpy as np
import pytest

import lievi

sp = pytest.importorskip("sympy")
SRC = os.environ.get("LIEVI_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
MECH = os.path.join(SRC, "examples", "mechanics")

q1, q2, v1, v2, t = sp.symbols("q1 q2 v1 v2 t")
KEPLER = lievi.Lagrangian([q1, q2], [v1, v2], L=(v1**2 + v2**2) / 2 + 1 / sp.sqrt(q1**2 + q2**2))
g = 9.81
DOUBLE_PENDULUM = lievi.Lagrangian(
    [q1, q2], [v1, v2],
    L=v1**2 + v2**2 / 2 + v1 * v2 * sp.cos(q1 - q2),  # m1 = m2 = l1 = l2 = 1: kinetic energy
    V=-2 * g * sp.cos(q1) - g * sp.cos(q2))


def relative(a, b):
    return float(np.max(np.abs(np.asarray(a) - np.asarray(b))) / max(1e-300, np.max(np.abs(b))))


@pytest.mark.parametrize("method", ["midpoint", "trapezoid", "lobatto-iiia-iiib"])
def test_kepler_from_sympy_equals_the_catalogue(method):
    sets = {"integrator.method": method, "integrator.t_end": 6.28, "output.plots": False, "output.every": 4}
    r = lievi.run(lievi.load(os.path.join(MECH, "kepler.toml"), set=sets))
    out = KEPLER.integrate([0.5, 0.0], [0.0, 1.7320508075688772], h=0.01, steps=628, method=method, every=4)
    assert relative(out["t"], r.series["t"]) < 1e-15
    dq = relative(out["q"], np.stack([r.series["q1"], r.series["q2"]], axis=1))
    dp = relative(out["p"], np.stack([r.series["p1"], r.series["p2"]], axis=1))
    dE = relative(out["energy"], r.series["energy"])
    print(f"{method}: one orbit, q {dq:.2g}, p {dp:.2g}, energy {dE:.2g} (relative)")
    assert dq < 1e-11 and dp < 1e-11 and dE < 1e-12


def test_double_pendulum_from_sympy_equals_the_catalogue_and_has_the_orders():
    sets = {"integrator.t_end": 1.0, "output.plots": False, "output.every": 200}
    r = lievi.run(lievi.load(os.path.join(MECH, "double_pendulum.toml"), set=sets))
    q0, v0 = [math.pi / 2, 3 * math.pi / 4], [0.0, 0.0]
    out = DOUBLE_PENDULUM.integrate(q0, v0, h=0.005, steps=200, method="lobatto-iiia-iiib", every=200)
    assert relative(out["q"][-1], [r.series["q1"][-1], r.series["q2"][-1]]) < 1e-11
    # orders: the error at T = 1 against Lobatto at h = 1/1600, for h = 1/20, 1/40, 1/80
    ref = DOUBLE_PENDULUM.integrate(q0, v0, h=1 / 1600, steps=1600, method="lobatto-iiia-iiib", every=1600)["q"][-1]
    for method, order in (("midpoint", 2), ("trapezoid", 2), ("lobatto-iiia-iiib", 4)):
        errs = [np.max(np.abs(DOUBLE_PENDULUM.integrate(q0, v0, h=1 / N, steps=N, method=method, every=N)["q"][-1]
                              - ref)) for N in (20, 40, 80)]
        measured = [math.log2(errs[i] / errs[i + 1]) for i in range(2)]
        print(f"{method}: errors {errs}, orders {measured}")
        assert abs(measured[-1] - order) < 0.15, (method, measured)


def test_a_forced_system_equals_the_catalogue_oscillator():
    q, v = sp.symbols("q v")
    c, k = 0.2, 4.0
    osc = lievi.Lagrangian([q], [v], L=v**2 / 2 - k * q**2 / 2, force=[-c * v])
    sets = {"integrator.t_end": 5.0, "output.plots": False, "output.every": 10}
    r = lievi.run(lievi.load(os.path.join(MECH, "damped_oscillator.toml"), set=sets))
    out = osc.integrate([1.0], [0.0], h=0.01, steps=500, every=10)
    assert relative(out["q"][:, 0], r.series["q1"]) < 1e-12
    assert relative(out["energy"], r.series["energy"]) < 1e-12
    assert out["energy"][-1] < out["energy"][0]  # damping dissipates


def test_callables_and_bad_input():
    # the harmonic oscillator by hand-written derivatives: energy kept to the method's bounded oscillation
    def derivatives(qq, vv):
        return (0.5 * vv[0] ** 2 - 0.5 * qq[0] ** 2, [-qq[0]], [vv[0]], [[-1.0]], [[0.0]], [[1.0]])

    ho = lievi.Lagrangian.from_callables(1, derivatives)
    out = ho.integrate([1.0], [0.0], h=0.1, steps=1000, every=10)
    assert np.max(np.abs(out["energy"] - 0.5)) < 2e-3  # O(h^2) bounded, no drift over 100 periods/2pi
    with pytest.raises(lievi.InputError):
        ho.integrate([1.0, 2.0], [0.0], h=0.1, steps=10)
    with pytest.raises(lievi.InputError):
        ho.integrate([1.0], [0.0], h=-0.1, steps=10)
    with pytest.raises(lievi.InputError):
        ho.integrate([1.0], [float("nan")], h=0.1, steps=10)
    with pytest.raises(lievi.InputError):
        ho.integrate([1.0], [0.0], h=0.1, steps=10, method="rk4")
    bad = lievi.Lagrangian.from_callables(1, lambda qq, vv: (0.0, [0.0, 1.0], [0.0], [[0.0]], [[0.0]], [[1.0]]))
    with pytest.raises(lievi.InputError):
        bad.integrate([1.0], [0.0], h=0.1, steps=3)
    raising = lievi.Lagrangian.from_callables(1, lambda qq, vv: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        raising.integrate([1.0], [0.0], h=0.1, steps=3)
    # a degenerate Lagrangian (no kinetic term) is a numerical failure with the step
    degenerate = lievi.Lagrangian([q1], [v1], L=-q1**2)
    with pytest.raises(lievi.NumericalFailure) as e:
        degenerate.integrate([1.0], [0.0], h=0.1, steps=3)
    assert e.value.step == 1


def test_a_constrained_system_equals_the_catalogue_spherical_pendulum():
    x, y, z, vx, vy, vz = sp.symbols("x y z vx vy vz")
    sph = lievi.Lagrangian([x, y, z], [vx, vy, vz], L=(vx**2 + vy**2 + vz**2) / 2 - 9.81 * z,
                           constraints=[(x**2 + y**2 + z**2 - 1) / 2])
    for method in ("midpoint", "trapezoid"):
        sets = {"integrator.method": method, "integrator.t_end": 2.0, "output.plots": False, "output.every": 40}
        r = lievi.run(lievi.load(os.path.join(MECH, "spherical_pendulum.toml"), set=sets))
        out = sph.integrate([0.7071067811865476, 0.0, -0.7071067811865476], [0.0, 2.0, 0.0], h=0.005, steps=400,
                            method=method, every=40)
        dq = relative(out["q"], np.stack([r.series[f"q{i}"] for i in (1, 2, 3)], axis=1))
        dp = relative(out["p"], np.stack([r.series[f"p{i}"] for i in (1, 2, 3)], axis=1))
        g = np.abs(0.5 * (np.sum(out["q"] ** 2, axis=1) - 1.0)).max()
        print(f"spherical pendulum, {method} + RATTLE: q {dq:.2g}, p {dp:.2g}, |g| {g:.2g}")
        assert dq < 1e-11 and dp < 1e-11 and g < 1e-13
    with pytest.raises(lievi.InputError):  # as many constraints as coordinates
        lievi.Lagrangian([x], [vx], L=vx**2, constraints=[x - 1])
    with pytest.raises(lievi.InputError):  # Lobatto has no constrained form here
        sph.integrate([0.0, 0.0, -1.0], [1.0, 0.0, 0.0], h=0.01, steps=2, method="lobatto-iiia-iiib")
