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
