"""lievi.Simulation: a beam stepped from Python against the whole run of the same scenario (lievi.run, itself
checked against the command line): the final level's positions, frames and strains (fields.h5) and energies
(series.csv) bit for bit; read-only views of lievi's memory; failures; no growth of memory over many
simulations.
"""
import gc
import os
import resource

import numpy as np
import pytest

import lievi

SRC = os.environ.get("LIEVI_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
BENDING = os.path.join(SRC, "examples", "beam", "bending.toml")


def same_bits(a, b):
    a, b = np.ascontiguousarray(a, dtype=float), np.ascontiguousarray(b, dtype=float)
    return a.shape == b.shape and np.array_equal(a.view(np.int64), b.view(np.int64))


def rod(J=20, dt=2e-4, t_end=0.2, **integrator):
    return lievi.Scenario({
        "model": {"type": "beam", "section": "circle", "rho": 1000.0, "E": 1e6, "nu": 0.499, "r": 0.01,
                  "gravity": [0.0, 0.0, -9.81]},
        "grid": {"J": J, "layout": "vertex", "length": 1.0},
        "bc": {"left": "clamped"},
        "initial": {"shape": "straight"},
        "damping": {"linear": 0.1, "angular": 0.1},
        "integrator": {"dt": dt, "t_end": t_end, **integrator},
        "output": {"every": 10, "plots": False, "vtk": False},
    }, name="rod")


@pytest.mark.parametrize("retraction", ["cayley", "exp"])
def test_stepping_equals_the_whole_run_bitwise(retraction):
    sets = {"integrator.t_end": 0.02, "output.plots": False, "integrator.retraction": retraction,
            "output.fields_every": 200}
    sc = lievi.load(BENDING, set=sets)
    r = lievi.run(sc)
    sim = lievi.Simulation(sc)
    assert sim.t == 0.0 and sim.steps == 0
    n = round(0.02 / sim.dt)
    sim.step(n // 2).step(n - n // 2)
    assert sim.steps == n and sim.t == pytest.approx(0.02, abs=1e-15)
    # fields.h5: /p (levels, nodes, 3), /R (levels, nodes, 3, 3), /gamma (levels, segments, 6); the last level
    assert same_bits(sim.positions, r.fields["p"][-1])
    assert same_bits(sim.frames, r.fields["R"][-1])
    assert same_bits(sim.strains, r.fields["gamma"][-1])
    e = sim.energies()
    assert same_bits(e["E_c"], r.series["E_c"][-1])
    assert same_bits(e["E_d"], r.series["E_d"][-1])
    assert same_bits(e["potential"], r.series["potential"][-1])
    # energies() does not change the state: stepping on matches a simulation that never asked
    other = lievi.Simulation(sc).step(n)
    sim.step(5)
    other.step(5)
    assert same_bits(sim.positions, other.positions)


def test_views_are_read_only_live_and_keep_the_memory():
    sim = lievi.Simulation(rod())
    p = sim.positions
    assert p.shape == (21, 3) and not p.flags.writeable and not p.flags.owndata
    with pytest.raises(ValueError):
        p[0, 0] = 1.0
    before = p.copy()
    sim.step(50)
    assert not np.array_equal(p, before)  # the same memory, now at level 50
    assert same_bits(p, sim.positions)
    R = sim.frames
    assert R.shape == (21, 3, 3)
    assert np.allclose(np.einsum("nij,nik->njk", R, R), np.eye(3), atol=1e-13)  # orthonormal frames
    assert sim.velocities.shape == (21, 6) and sim.strains.shape == (20, 6) and sim.pre_momenta.shape == (21, 6)
    # the clamped node stays put; the free end falls under gravity
    assert np.array_equal(sim.positions[0], [0.0, 0.0, 0.0])
    assert sim.positions[-1, 2] < 0.0
    v = sim.velocities
    kept = v.copy()
    del sim, p, R  # the view keeps the simulation's memory alive: its numbers stay
    gc.collect()
    for _ in range(20):  # allocate and free other simulations' memory meanwhile
        lievi.Simulation(rod()).step(5)
    assert same_bits(v, kept)


def test_failure_raises_and_the_simulation_refuses_to_go_on():
    sim = lievi.Simulation(rod(dt=1e-3, t_end=1.0, allow_unstable=True))
    with pytest.raises(lievi.NumericalFailure) as e:
        sim.step(1000)
    f = e.value
    assert f.step > 1 and f.node >= 0 and f.hint and f.result is None
    assert sim.failed and sim.steps == f.step - 1
    with pytest.raises(lievi.NumericalFailure):
        sim.step(1)
    with pytest.raises(lievi.InputError):
        lievi.Simulation(rod()).step(-1)
    with pytest.raises(lievi.InputError):
        lievi.Simulation(rod()).step(1.5)
    with pytest.raises(lievi.InputError):
        lievi.Simulation({"model": {"type": "beam"}})  # a dict, not a lievi.Scenario
    with pytest.raises(lievi.InputError):  # the run's checks: dt beyond the stability bound
        lievi.Simulation(rod(dt=1e-3))


def test_no_growth_over_many_simulations():
    sc = rod(J=10, t_end=0.002)

    def cycle(k):
        for _ in range(k):
            s = lievi.Simulation(sc)
            s.step(10)
            _ = s.positions.sum() + s.energies()["E_c"]

    cycle(200)  # warm up allocators
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    cycle(10000)
    grown_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss0
    print(f"max RSS grew by {grown_kb} kB over 10^4 create/step/destroy cycles")
    assert grown_kb < 20_000


def pose_at(times, rows, t):
    """The pose tables' interpolation (docs/scenarios.md): positions linear in t; the whip's rotation is the
    identity throughout (slerp of equal quaternions)."""
    if t >= times[-1]:
        return rows[-1][:3], rows[-1][3:]
    if t <= times[0]:
        return rows[0][:3], rows[0][3:]
    k = int(np.searchsorted(times, t, side="right"))
    w = (t - times[k - 1]) / (times[k] - times[k - 1])
    a, b = rows[k - 1], rows[k]
    return [(1.0 - w) * a[i] + w * b[i] for i in range(3)], a[3:]


def test_an_end_driven_from_python_reproduces_the_pose_table_run():
    whip = os.path.join(SRC, "examples", "beam", "whip.toml")
    table = np.loadtxt(os.path.join(SRC, "examples", "beam", "whip_motion.csv"), delimiter=",", skiprows=1)
    times, rows = table[:, 0], [list(r[1:]) for r in table]
    assert np.all(table[:, 4] == 1.0) and np.all(table[:, 5:] == 0.0)  # the identity rotation throughout
    sets = {"integrator.t_end": 0.1, "output.plots": False, "output.vtk": False, "output.fields_every": 100}
    sc = lievi.load(whip, set=sets)
    r = lievi.run(sc)
    sim = lievi.Simulation(sc)
    n = round(0.1 / sim.dt)
    for _ in range(n):
        p, q = pose_at(times, rows, sim.t + sim.dt)
        sim.set_end_pose("left", p, q).step(1)
    ref = r.fields["p"][-1]
    d = np.abs(sim.positions - ref).max() / np.abs(ref).max()
    print(f"driven from Python vs the pose-table run: largest relative difference {d:.2g}")
    assert d < 1e-13
    assert np.abs(sim.positions[0] - pose_at(times, rows, sim.t)[0]).max() < 1e-15
    # a wrong end, shape or quaternion is refused
    with pytest.raises(lievi.InputError):
        sim.set_end_pose("right", [0, 0, 0])
    with pytest.raises(lievi.InputError):
        sim.set_end_pose("middle", [0, 0, 0])
    with pytest.raises(lievi.InputError):
        sim.set_end_pose("left", [0, 0])
    with pytest.raises(lievi.InputError):
        sim.set_end_pose("left", [0, 0, 0], [1, 1, 0, 0])
    with pytest.raises(lievi.InputError):
        sim.set_end_pose("left", [0, float("nan"), 0])


def test_loads_set_from_python_equal_the_scenarios_loads():
    # a cantilever (the rod without gravity) with a dead tip force and a follower torque at the middle node: as
    # [[loads]] tables in the scenario, and set from Python on a simulation of the unloaded scenario
    tip, mid = 20, 10
    F = [0.0, 0.0, 0.0, 0.0, 0.002, -0.004]
    T = [0.0, 0.0005, 0.0, 0.0, 0.0, 0.0]

    def scenario(loads):
        t = {
            "model": {"type": "beam", "section": "circle", "rho": 1000.0, "E": 1e6, "nu": 0.499, "r": 0.01},
            "grid": {"J": 20, "length": 1.0},
            "bc": {"left": "clamped"},
            "integrator": {"dt": 2e-4, "t_end": 0.1},
            "output": {"plots": False, "vtk": False, "fields_every": 500},
        }
        if loads:
            t["loads"] = [{"node": tip, "wrench": F}, {"node": mid, "wrench": T, "frame": "body"}]
        return lievi.Scenario(t, name="cantilever")

    r = lievi.run(scenario(True))
    sim = lievi.Simulation(scenario(False), loads={tip: F, mid: (T, "body")})
    sim.step(500)
    assert same_bits(sim.positions, r.fields["p"][-1])
    assert same_bits(sim.energies()["E_c"], r.series["E_c"][-1])
    # changing the load between steps changes the motion; a node not named, a bad frame or NaN are refused
    other = lievi.Simulation(scenario(False), loads={tip: F, mid: (T, "body")})
    other.step(250)
    other.set_load(tip, np.zeros(6)).step(250)
    assert not np.array_equal(other.positions, sim.positions)
    with pytest.raises(lievi.InputError):
        other.set_load(3, F)
    with pytest.raises(lievi.InputError):
        other.set_load(tip, F, frame="world")
    with pytest.raises(lievi.InputError):
        other.set_load(tip, [0, 0, 0, 0, float("nan"), 0])
    with pytest.raises(lievi.InputError):
        other.set_load(tip, [0, 0, 0])
    with pytest.raises(lievi.InputError):
        lievi.Simulation(scenario(False), loads={21: F})
    with pytest.raises(lievi.InputError):
        lievi.Simulation(scenario(False), loads={tip: (F, "world")})


@pytest.mark.parametrize("example", ["deterministic.toml", "independent.toml"])
def test_a_wave_stepped_from_python_equals_its_run(example):
    path = os.path.join(SRC, "examples", "wave", example)
    sc = lievi.load(path, set={"integrator.t_end": 0.1, "output.plots": False, "output.fields_every": 1000})
    r = lievi.run(sc)
    sim = lievi.Simulation(sc)
    n = round(0.1 / sim.dt)
    sim.step(n)
    assert same_bits(sim.phi, r.fields["phi"][-1])
    assert same_bits(sim.energies()["E_c"], r.series["E_c"][-1])
    assert not sim.phi.flags.writeable
    with pytest.raises(AttributeError):
        sim.positions
    with pytest.raises(lievi.InputError):
        sim.set_load(0, np.zeros(6))


@pytest.mark.parametrize("method", ["ddb", "rk4"])
def test_a_rigid_body_stepped_from_python_equals_its_run(method):
    path = os.path.join(SRC, "examples", "rigid_body", "scenario_a.toml")
    sc = lievi.load(path, set={"integrator.method": method, "integrator.t_end": 5.0, "output.plots": False})
    r = lievi.run(sc)
    sim = lievi.Simulation(sc)
    sim.step(25).step(25)
    M = np.array([r.series["M1"][-1], r.series["M2"][-1], r.series["M3"][-1]])
    assert same_bits(sim.M, M)
    assert same_bits(sim.energies()["energy"], r.series["energy"][-1])
    assert same_bits(sim.energies()["casimir"], r.series["casimir"][-1])
    R = sim.R
    # DDB keeps R orthogonal to round-off; RK4 (not a Lie-group method) only to its truncation error
    assert R.shape == (3, 3) and not R.flags.writeable
    assert np.abs(R.T @ R - np.eye(3)).max() < (1e-14 if method == "ddb" else 1e-6)
    with pytest.raises(AttributeError):
        sim.positions


def test_a_failed_rigid_body_step_keeps_the_last_good_state():
    # moser-veselov at a huge step fails at step 1 (its matrix solve has no root): the state stays the initial
    path = os.path.join(SRC, "examples", "rigid_body", "scenario_a.toml")
    sc = lievi.load(path, set={"integrator.method": "moser-veselov", "model.alpha": 0.0, "integrator.dt": 1.0,
                               "output.plots": False})
    sim = lievi.Simulation(sc)
    M0 = sim.M.copy()
    with pytest.raises(lievi.NumericalFailure) as e:
        sim.step(30)
    assert e.value.step >= 1 and sim.failed
    if e.value.step == 1:
        assert np.array_equal(sim.M, M0)
    assert np.isfinite(sim.M).all()


def test_noise_switched_between_steps():
    # a wave with independent noise, its noise off from the start, equals the deterministic run bit for bit;
    # scaled by 1 it is the noisy run; switched off after 300 steps the energy stays put (the scheme conserves it)
    path = os.path.join(SRC, "examples", "wave", "independent.toml")
    sets = {"integrator.t_end": 0.06, "output.plots": False, "output.fields_every": 600}
    noisy = lievi.load(path, set=sets)
    quiet = lievi.load(path, set={**sets, "noise.mode": "none"})
    off = lievi.Simulation(noisy).set_noise(0.0).step(600)
    assert same_bits(off.phi, lievi.Simulation(quiet).step(600).phi)
    on = lievi.Simulation(noisy).set_noise(1).step(600)
    assert same_bits(on.phi, lievi.run(noisy).fields["phi"][-1])
    half = lievi.Simulation(noisy).step(300).set_noise(0.0)
    e0 = half.energies()["E_c"]
    half.step(300)
    assert abs(half.energies()["E_c"] - e0) < 1e-6 * e0  # only the scheme's bounded energy oscillation
    with pytest.raises(lievi.InputError):
        half.set_noise(-1.0)
    with pytest.raises(lievi.InputError):
        half.set_noise(float("nan"))
    beam = lievi.Simulation(lievi.load(os.path.join(SRC, "examples", "beam", "stochastic_bending.toml"),
                                       set={"output.plots": False}))
    beam.set_noise(0.5).step(3)
    assert np.isfinite(beam.positions).all()


MECHANICS = ["kepler", "double_pendulum", "spherical_pendulum", "forced_oscillator", "pendulum", "chaplygin_sleigh",
             "rolling_disk"]


@pytest.mark.parametrize("example", MECHANICS)
@pytest.mark.parametrize("method", ["midpoint", "trapezoid", "lobatto-iiia-iiib", "rk4"])
def test_a_lagrangian_system_stepped_from_python_equals_its_run(example, method):
    path = os.path.join(SRC, "examples", "mechanics", example + ".toml")
    sets = {"integrator.method": method, "output.every": 1, "output.plots": False}
    if example == "spherical_pendulum" and method in ("lobatto-iiia-iiib", "rk4"):
        with pytest.raises(lievi.InputError, match="not available for the constrained system"):
            lievi.load(path, set=sets)  # no constrained version: refused as lievi run refuses it
        return
    if example in ("chaplygin_sleigh", "rolling_disk") and method in ("lobatto-iiia-iiib", "rk4"):
        with pytest.raises(lievi.InputError, match="not available for the nonholonomic system"):
            lievi.load(path, set=sets)
        return
    sc = lievi.load(path, set=sets)
    sc = sc.with_set({"integrator.t_end": 200 * sc.resolved()["integrator"]["dt"]})
    r = lievi.run(sc)
    sim = lievi.Simulation(sc)
    n = sim.q.shape[0]
    for k in (0, 1, 37, 200):  # level by level against the run's rows: q, v, p and the reported values
        sim.step(k - sim.steps)
        assert sim.steps == k and sim.t == pytest.approx(r.series["t"][k], abs=1e-12)
        for name, view in (("q", sim.q), ("v", sim.v), ("p", sim.p)):
            assert same_bits(view, [r.series[f"{name}{i + 1}"][k] for i in range(n)]), (name, k)
        e = sim.energies()
        assert same_bits(e["energy"], r.series["energy"][k])
        for col in ("momentum", "constraint"):
            assert (col in e) == (col in r.series)
            if col in e:
                assert same_bits(e[col], r.series[col][k])
    assert not sim.q.flags.writeable
    with pytest.raises(ValueError):
        sim.q[0] = 1.0
    with pytest.raises(AttributeError):
        sim.M


def test_a_failed_lagrangian_step_keeps_the_last_good_state():
    # a Newton iteration limit of 1 cannot meet the tolerance: step 1 fails, q and p stay the start's
    path = os.path.join(SRC, "examples", "mechanics", "kepler.toml")
    sc = lievi.load(path, set={"integrator.max_iterations": 1, "output.plots": False})
    sim = lievi.Simulation(sc)
    q0, p0 = sim.q.copy(), sim.p.copy()
    with pytest.raises(lievi.NumericalFailure) as e:
        sim.step(5)
    assert e.value.step == 1 and sim.failed and sim.steps == 0
    assert "integrator.max_iterations" in str(e.value)
    assert np.array_equal(sim.q, q0) and np.array_equal(sim.p, p0)
    with pytest.raises(lievi.NumericalFailure):
        sim.step(1)
