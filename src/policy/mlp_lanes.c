// SPDX-License-Identifier: MIT
// Eight MLP forwards at once, each with its own parameters, one per vector lane (policy.h's
// ne_policy_forward_lanes): the single episodes of 8 small-MLP candidates in lockstep.
// Workload: classic control's nets are tiny (CartPole's 4-16-2 is 114 parameters): one forward per
// row spends more on calls, loop set-up and the output layer's 16-add chain than on arithmetic.
// With the 8 parameter vectors interleaved (parameter j of lane s at j * 8 + s) every layer is
// plain vector arithmetic over the lanes, with no call per row and 8 chains of one output each in
// flight. Each lane sums b, x0*w0, x1*w1, ... in ne__policy_dense's order and rounding (fused
// multiply-adds with policy.fma), then the same activation (mlp.c's, over all lanes) and head:
// ne_policy_forward's bits. The portable forwards are here; mlp_lanes_x86.c compiles them for AVX2
// and AVX-512 and adds a fused pair of layers; the kernel table (core/simd.h) picks the level.
#include "policy/mlp_lanes_int.h"  // the lane vector, the forward's macros, the kernel table

LANES_VARIANT(lanes_portable, , dense_separate, no_hidden_out)
LANES_VARIANT(lanes_portable_fma, , dense_fmaf, no_hidden_out)

static const ne__lanes_table portable = {{lanes_portable, lanes_portable_fma}};

// by level: the portable forwards, AVX2 and AVX-512 (mlp_lanes_x86.c)
ne_simd_slot ne__lanes_slot = {
    .name = "mlp_lanes",
    .portable = &portable,
    .table = {[NE_SIMD_BASE] = &portable,
              NE_ON_X86([NE_SIMD_AVX2] = &ne__lanes_avx2, [NE_SIMD_AVX512] = &ne__lanes_avx512)},
};

int ne_policy_lanes_ok(const ne_policy_spec* spec) {
  return spec->kind == NE_POLICY_MLP && spec->sizes[spec->n_layers] <= 64;
}

void ne_policy_forward_lanes(const ne_policy_spec* spec, const float* lane_params, const float* obs, float* scratch,
                             float* actions) {
  const ne__lanes_table* t = ne__simd_table(&ne__lanes_slot);
  t->forward[spec->fma != 0](spec, lane_params, obs, scratch, actions);
}

void ne_policy_set_lane(const ne_policy_spec* spec, float* lane_params, int lane, const float* params) {
  for (size_t j = 0; j < spec->n_params; j++) lane_params[j * L + (size_t)lane] = params[j];
}

size_t ne_policy_lanes_scratch_floats(const ne_policy_spec* spec) { return spec->scratch_floats * L; }
