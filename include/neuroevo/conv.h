// SPDX-License-Identifier: MIT
// Conv policies for pixel observations: VALID-padded conv layers over an (H, W, C) image, then
// dense layers and the usual output head, all over one flat parameter vector (policy.h's
// ne_policy_spec with kind = NE_POLICY_CONV; ne_policy_forward, ne_policy_init_params and
// ne_policy_spec_format dispatch on the kind). Not for anything but building the spec: running it
// is ne_policy_forward / ne_policy_forward_batch.
//
// Parameter layout: per conv layer W (k, k, C_in, F) row-major then b (F); then per dense layer
// W (I, O) then b (O) as for MLPs, where the first dense input is the last conv output flattened
// in (H, W, F) order. Every output is b + x0*w0 + x1*w1 + ... summed in that order (products
// rounded, no FMA), so results are bit-identical whatever the SIMD path, batch size or thread count.
#ifndef NEUROEVO_CONV_H
#define NEUROEVO_CONV_H

#include <stddef.h>

#include "neuroevo/policy.h"

#ifdef __cplusplus
extern "C" {
#endif

// A named architecture: the conv layers and dense widths of a published net (ReLU throughout).
typedef struct ne_conv_preset {
  const char* name;     // "nature", "minatar"
  const char* conv;     // conv layers in ne_conv_parse's text form
  int hidden[2];        // dense widths before the output layer
  int n_hidden;         // number of them
  const char* summary;  // one line naming the paper
} ne_conv_preset;

// Fills `spec` for conv layers conv[0..n_conv) (filters, kernel, stride set; shapes are derived
// here) over an input of shape obs_shape (H, W, C), then dense hidden[0..n_hidden) and the output
// layer of out_dim (as ne_policy_spec_init: argmax out_dim = number of actions, otherwise the
// action dimension with bounds low/high). NE_EINVAL with a message naming the layer on a kernel
// larger than its input, a zero size, too many layers. Nullable: hidden (n_hidden 0), low, high
// (argmax head), errstr.
int ne_policy_spec_init_conv(ne_policy_spec* spec, const int obs_shape[3], const ne_conv_layer* conv, int n_conv,
                             const int* hidden, int n_hidden, int out_dim, ne_activation activation, ne_head head,
                             ne_init init, const float* low, const float* high, char* errstr);

// Parses "32x8x8/4,64x4x4/2,64x3x3/1" (filters x kernel x kernel / stride; "/1" may be left out)
// into out[0..max). Returns the number of layers, or NE_EINVAL with a message naming the bad item.
// Nullable: errstr.
int ne_conv_parse(const char* text, ne_conv_layer* out, int max, char* errstr);

// The preset called name, or NULL (the names are listed by ne_conv_preset_at).
const ne_conv_preset* ne_conv_preset_find(const char* name);

// The i-th preset, or NULL past the last one.
const ne_conv_preset* ne_conv_preset_at(int i);

// Multiply-adds of one forward pass (conv and dense layers), for GFLOP/s figures (2 flops each).
double ne_policy_macs(const ne_policy_spec* spec);

#ifdef __cplusplus
}
#endif
#endif
