// SPDX-License-Identifier: MIT
// The policy's input (policy.h): an observation normalized by an algorithm's running statistics and
// clipped, or the observation itself. One formula for every layout, so the one-at-a-time loop, the
// lockstep's rows and its vector lanes feed a policy the same bits. Pure functions, no state.
#include "neuroevo/policy.h"

// one component: (raw - mean) / std in float, then within +-clip when clip > 0
static inline float normalize(float raw, float mean, float std, float clip) {
  float z = (raw - mean) / std;
  if (clip > 0) z = z < -clip ? -clip : (z > clip ? clip : z);
  return z;
}

const float* ne_policy_input(const ne_obs_norm* norm, const float* obs, int d, float* out) {
  if (!norm || !norm->mean) return obs;
  const float *mean = norm->mean, *std = norm->std;
  float clip = norm->clip;
  for (int i = 0; i < d; i++) out[i] = normalize(obs[i], mean[i], std[i], clip);
  return out;
}

// d components of n observations, component-major
static inline void columns(const ne_obs_norm* norm, const float* obs, int d, int n, float* out) {
  float clip = norm->clip;
  for (int i = 0; i < d; i++) {
    float mean = norm->mean[i], std = norm->std[i];
    const float* in = obs + (size_t)i * (size_t)n;
    float* to = out + (size_t)i * (size_t)n;
    for (int k = 0; k < n; k++) to[k] = normalize(in[k], mean, std, clip);
  }
}

void ne_policy_input_columns(const ne_obs_norm* norm, const float* obs, int d, int n, float* out) {
  // the lockstep's 8 lanes: a constant count, so each component is one vector pass
  if (n == 8) columns(norm, obs, d, 8, out);
  else columns(norm, obs, d, n, out);
}
