// integrate.kdsl and its adjoint, written by hand (run-ptx-latency.sh).
#include <cstdint>

struct vec3 {
  float x, y, z;
};
__device__ vec3 operator+(vec3 a, vec3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
__device__ vec3 operator-(vec3 a, vec3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
__device__ vec3 operator*(vec3 a, float s) { return {a.x * s, a.y * s, a.z * s}; }
__device__ float dot(vec3 a, vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

__global__ void integrate(int64_t n, vec3 *pos, vec3 *vel, const float *mass,
                          vec3 gravity, float dt) {
  int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (i >= n)
    return;
  vec3 v = vel[i];
  float drag = 0.1f / mass[i];
  v = v + (gravity - v * drag) * dt;
  pos[i] = pos[i] + v * dt;
  vel[i] = v;
}

// Reverse mode: v1 = v0 + (g - v0 * drag) * dt, p1 = p0 + v1 * dt.
__global__ void integrate_adj(int64_t n, const vec3 *pos, const vec3 *vel,
                              const float *mass, vec3 gravity, float dt,
                              vec3 *adj_pos, vec3 *adj_vel, float *adj_mass,
                              float *adj_gravity, float *adj_dt) {
  int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (i >= n)
    return;
  vec3 v0 = vel[i];
  float m = mass[i];
  float drag = 0.1f / m;
  vec3 accel = gravity - v0 * drag;
  vec3 v1 = v0 + accel * dt;
  vec3 gp = adj_pos[i];
  vec3 gv1 = adj_vel[i] + gp * dt;
  float gdt = dot(gp, v1) + dot(gv1, accel);
  vec3 gaccel = gv1 * dt;
  vec3 gv0 = gv1 - gaccel * drag;
  float gdrag = -dot(gaccel, v0);
  adj_vel[i] = gv0;
  adj_mass[i] += gdrag * (-0.1f / (m * m));
  atomicAdd(&adj_gravity[0], gaccel.x);
  atomicAdd(&adj_gravity[1], gaccel.y);
  atomicAdd(&adj_gravity[2], gaccel.z);
  atomicAdd(adj_dt, gdt);
}
