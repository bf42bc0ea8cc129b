# Warp twin of random.kdsl: Warp's random numbers (rand_init, randi, randf,
# randn) and states in an array advanced in place; random.json also has
# generated inputs ({"random": ...}) and a strided view (init).
#
# The outputs match ksc-run's bit for bit (randn to rounding). The adjoints
# match with warp_run.py's default adjoint_mode "before"; with "tape", Warp's
# adjoint kernel runs after the forward launch advanced `states` and
# overwrote `noise`, so it draws other numbers and reads the new noise: the
# noise adjoints differ from ksc-run's.
import warp as wp


@wp.kernel
def draws(seed: int, states: wp.array(dtype=wp.uint32), noise: wp.array(dtype=float),
          init: wp.array(dtype=wp.uint32), bits: wp.array(dtype=int), dice: wp.array(dtype=int),
          unit: wp.array(dtype=float), ranged: wp.array(dtype=float), normal: wp.array(dtype=float)):
    i = wp.tid()
    s = wp.rand_init(seed, i)
    init[i] = s
    bits[i] = wp.randi(s)
    dice[i] = wp.randi(s, -3, 7)
    unit[i] = wp.randf(s)
    ranged[i] = wp.randf(s, -2.5, 4.0) + noise[i]
    normal[i] = wp.randn(s)
    t = states[i]
    noise[i] = noise[i] * wp.randf(t)
    states[i] = t
