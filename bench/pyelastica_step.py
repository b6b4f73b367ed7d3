"""One PositionVerlet step of a finalized PyElastica simulator, across PyElastica versions (the bench scripts
that run PyElastica side by side share it)."""


def position_verlet(ea, sim, dt):
    """Returns advance(t) -> t + dt, one PositionVerlet step of `sim`."""
    stepper = ea.PositionVerlet()
    if hasattr(stepper, "step"):  # PyElastica >= 0.3.2
        return lambda t: stepper.step(sim, t, dt)
    do_step, stages = ea.extend_stepper_interface(stepper, sim)
    return lambda t: do_step(stepper, stages, sim, t, dt)
