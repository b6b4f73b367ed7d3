"""PyElastica helpers shared by the bench scripts that run it side by side: one PositionVerlet step across
PyElastica versions, and the timing of a run of steps."""
import time


def position_verlet(ea, sim, dt):
    """Returns advance(t) -> t + dt, one PositionVerlet step of the finalized simulator `sim`."""
    stepper = ea.PositionVerlet()
    if hasattr(stepper, "step"):  # PyElastica >= 0.3.2
        return lambda t: stepper.step(sim, t, dt)
    do_step, stages = ea.extend_stepper_interface(stepper, sim)
    return lambda t: do_step(stepper, stages, sim, t, dt)


def timed_steps(advance, steps, warmup=3):
    """Seconds (perf_counter) of `steps` calls of advance after `warmup` untimed ones (numba compiles then)."""
    t = 0.0
    for _ in range(warmup):
        t = advance(t)
    t0 = time.perf_counter()
    for _ in range(steps):
        t = advance(t)
    return time.perf_counter() - t0


def clamped_rod(ea, J, dt, *, length, radius, density, youngs_modulus, shear_modulus, gravity, damping=0.0):
    """A finalized PyElastica simulator holding one straight rod along x (normal z) from the origin, J elements,
    clamped at node 0 (position and director), under gravity (a 3-vector), with AnalyticalLinearDamper at the
    rate `damping` (1/s, on velocities and angular velocities) when it is > 0. Returns (rod, advance) with
    advance(t) -> t + dt one PositionVerlet step."""
    import numpy as np

    class Sim(ea.BaseSystemCollection, ea.Constraints, ea.Forcing, ea.Damping):
        pass

    sim = Sim()
    rod = ea.CosseratRod.straight_rod(J, np.zeros(3), np.array([1.0, 0.0, 0.0]), np.array([0.0, 0.0, 1.0]),
                                      length, radius, density, youngs_modulus=youngs_modulus,
                                      shear_modulus=shear_modulus)
    sim.append(rod)
    sim.constrain(rod).using(ea.OneEndFixedBC, constrained_position_idx=(0,), constrained_director_idx=(0,))
    sim.add_forcing_to(rod).using(ea.GravityForces, acc_gravity=np.asarray(gravity, dtype=float))
    if damping > 0.0:
        # uniform_damping_constant: PyElastica >= 0.3.2 (the same rate on both; the older damping_constant
        # scales the angular rate by the mass over the second moment, which is another damping).
        sim.dampen(rod).using(ea.AnalyticalLinearDamper, uniform_damping_constant=damping, time_step=dt)
    sim.finalize()
    return rod, position_verlet(ea, sim, dt)
