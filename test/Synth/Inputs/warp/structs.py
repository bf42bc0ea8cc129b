# Warp twin of structs.kdsl: a struct argument with a nested struct, arrays
# of structs read and written, integer, bool and double fields.
#
# `step` keeps its derivatives in local variables and loops a constant
# number of times (Warp unrolls the loop): its adjoints match ksc-run's.
# `step_dynamic` loops prm.steps times and assigns fields of the local struct
# q in place: its outputs match, but Warp's adjoints do not (the mass
# adjoints differ; ksc-run's pass --check-grad). Warp's reverse pass of a
# dynamic loop replays it without keeping each iteration's values, and the
# adjoint of spring(q, ...) reads q after q.pos was overwritten.
import warp as wp


@wp.struct
class Material:
    stiffness: float
    damping: wp.float64


@wp.struct
class Params:
    dt: float
    gravity: wp.vec3
    mat: Material
    steps: int
    enabled: bool


@wp.struct
class Particle:
    pos: wp.vec3
    vel: wp.vec3
    mass: float
    id: int


@wp.func
def force(pos: wp.vec3, vel: wp.vec3, mass: float, prm: Params):
    k = prm.mat
    return prm.gravity / mass - pos * (k.stiffness / mass) - vel * float(k.damping)


@wp.kernel
def step(ps: wp.array(dtype=Particle), prm: Params, out: wp.array(dtype=Particle), count: wp.array(dtype=wp.int64)):
    i = wp.tid()
    q = ps[i]
    pos = q.pos
    vel = q.vel
    if prm.enabled:
        for s in range(3):
            vel = vel + force(pos, vel, q.mass, prm) * prm.dt
            pos = pos + vel * prm.dt
    q.pos = pos
    q.vel = vel
    q.id = q.id + 1
    out[i] = q
    count[i] = wp.int64(prm.steps) * wp.int64(q.id)


@wp.func
def spring(p: Particle, k: Material):
    return -p.pos * (k.stiffness / p.mass) - p.vel * float(k.damping)


@wp.kernel
def step_dynamic(ps: wp.array(dtype=Particle), prm: Params, out: wp.array(dtype=Particle),
                 count: wp.array(dtype=wp.int64)):
    i = wp.tid()
    q = ps[i]
    if prm.enabled:
        for s in range(prm.steps):
            q.vel = q.vel + (prm.gravity / q.mass + spring(q, prm.mat)) * prm.dt
            q.pos = q.pos + q.vel * prm.dt
    q.id = q.id + 1
    out[i] = q
    count[i] = wp.int64(prm.steps) * wp.int64(q.id)
