// SPDX-License-Identifier: MIT
// What the Atari family shares with the rest of the library (not public API): the option setter
// ne_env_set_pixel_options routes to (src/envs/pixels.c), and the preprocessing helpers that
// tests/ale/test_ale.c checks against their definitions. Built only with -DNE_ALE=ON.
#ifndef NEUROEVO_ENVS_ALE_INT_H
#define NEUROEVO_ENVS_ALE_INT_H

#include <stdint.h>

#include "core/simd.h"
#include "envs/envs_int.h"

#define NE_ALE_OUT 84   // preprocessed frame side (84x84, Mnih et al. 2015)
#define NE_ALE_STACK 4  // frames in an observation

// The number of no-op frames that started the episode of an ALE state's impl (tests/ale).
int ne__ale_noops(const void* impl);

// The minimal action set of an ALE spec (full-set codes; the spec owns them) and its length; 0 for
// other specs (tests/ale checks them against the ROM's).
int ne__ale_spec_actions(const ne_env_spec* spec, const int** actions);

// The ROM file an ALE spec loads (bench/micro/bench_pixels.c times raw ALE on it), or NULL.
const char* ne__ale_rom_path(const ne_env_spec* spec);

// An area resize from (in_h, in_w) to (out_h, out_w) as OpenCV's INTER_AREA computes it: each
// output pixel is the mean of the input area it covers, fractional pixels weighted by their
// overlap, rounded to the nearest byte. Tables are built once per spec.
// Every output pixel reads NE_AREA_TAPS consecutive inputs per axis; a pixel that covers fewer
// has zero weights at the end (x + 0*y == x, so the sums are those of the exact tap lists), which
// keeps the loops branch-free.
#define NE_AREA_TAPS 3
// The AVX-512 kernel's horizontal pass takes output columns 16 at a time: each group's taps lie in
// the 64 input bytes from its first tap on, gathered with one byte permute per tap.
#define NE_AREA_GROUP 16
#define NE_AREA_GROUPS ((NE_ALE_OUT + NE_AREA_GROUP - 1) / NE_AREA_GROUP)
#define NE_AREA_QUADS ((NE_ALE_OUT + 3) / 4)
#define NE_AREA_QUAD_ROW 256  // the AVX2 kernel's padded copy of the last input row (in_w + 16 at most)
typedef struct ne_area_resize {
  int in_h, in_w, out_h, out_w;
  int x0[NE_ALE_OUT];                  // first input column of each output column
  float wx[NE_ALE_OUT][NE_AREA_TAPS];  // (out_w, taps) column weights
  int y0[NE_ALE_OUT];                  // first input row of each output row
  float wy[NE_ALE_OUT][NE_AREA_TAPS];  // (out_h, taps) row weights
  // the same column taps by group (AVX-512 kernel): zero weights where wx has them and past out_w
  int grouped;                                                  // 1 if every group's taps fit its 64-byte window
  int gx_base[NE_AREA_GROUPS];                                  // first input column of each group's window
  uint8_t gx_idx[NE_AREA_GROUPS][NE_AREA_TAPS][NE_AREA_GROUP];  // tap's offset in the window
  float gx_w[NE_AREA_GROUPS][NE_AREA_TAPS][NE_AREA_GROUP];      // tap's weight
  // the same column taps by quad (AVX2 kernel): 4 output columns whose taps lie in the 16 input
  // bytes from the quad's first tap on, gathered into dwords by one vpshufb per tap
  int quad;                                         // 1 if every quad's taps fit its 16-byte window
  int qx_base[NE_AREA_QUADS];                       // first input column of each quad's window
  uint8_t qx_idx[NE_AREA_QUADS][NE_AREA_TAPS][16];  // vpshufb control: byte 4k = column k's offset, 0x80s
  float qx_w[NE_AREA_QUADS][NE_AREA_TAPS][4];       // tap's weight (0 for a missing tap)
} ne_area_resize;

// Fills the tables (out sides at most NE_ALE_OUT, scale factors in [1, 2.5] so that no output
// pixel spans more than 3 inputs per axis); 0 or NE_EINVAL.
int ne__area_resize_init(ne_area_resize* r, int in_h, int in_w, int out_h, int out_w);

// Consecutive Atari frames share most rows, so the env resizes the pooled screen in horizontal
// bands and keeps the previous frame's output rows where a band's input rows did not change. At
// 210 -> 84 rows every NE_AREA_BAND_IN input rows map onto exactly NE_AREA_BAND_OUT output rows.
#define NE_AREA_BAND_IN 5
#define NE_AREA_BAND_OUT 2

// 1 if band (NE_AREA_BAND_IN -> NE_AREA_BAND_OUT rows, full's columns) resizes every band of full's
// input exactly as full resizes it: the same column tables, and each output row's taps and row
// weights those of full's row at the same place in its band, within the band. Then a band resized
// alone gives full's bytes (a zero-weight tap past the band reads a zeroed padding row: x + 0*0).
int ne__area_bands_match(const ne_area_resize* full, const ne_area_resize* band);

// Resizes the (in_h, in_w) bytes at in into (out_h, out_w) bytes at out, using tmp
// ((in_h + NE_AREA_TAPS - 1) * out_w floats) for the horizontal pass and row
// (in_w + NE_AREA_TAPS - 1 floats) for one input row. Portable C.
void ne__area_resize(const ne_area_resize* r, const uint8_t* in, float* tmp, float* row, uint8_t* out);

// Palette indices to luminance bytes through lut: dst[i] = lut[src[i]], or, with pool non-NULL,
// max(lut[src[i]], pool[i]) (the max-pool of the last two frames fused in). dst may be pool.
// pool_src (nullable): the indices pool was looked up from. Where src equals them,
// max(lut[src[i]], pool[i]) is pool[i], so the kernels copy those blocks without the lookup: an
// Atari frame differs from the one before in ~1% of its 32-byte blocks. Without pool, pool_src
// are the indices dst already holds the lookup of: the blocks where src equals them are left as
// they are (neither looked up nor stored).
void ne__ale_luma(const uint8_t* src, const uint8_t lut[256], const uint8_t* pool, const uint8_t* pool_src,
                  uint8_t* dst, int n);

// The observation: n pixels of the NE_ALE_STACK frames f (oldest first) as (n, NE_ALE_STACK) floats
// byte / 255 (HWC); the AVX-512 one needs n % 16 == 0, the AVX2 one n % 8 == 0.
void ne__ale_stack(const uint8_t* const f[NE_ALE_STACK], int n, float* obs);

// The three per-step operations of one SIMD level (core/simd.h), each with the portable one's
// contract and bytes (same products, same order of additions, round to nearest even): the lookup,
// the resize (row: the portable kernel's scratch, unused by the others) and the observation.
// fits(r, n): whether this level's resize serves r's tables and the stack n pixels (the vector
// kernels need r->grouped or r->quad, n a multiple of 16 or 8); an env whose tables do not fit
// runs the portable kernels.
typedef struct ne__ale_kernels {
  void (*luma)(const uint8_t* src, const uint8_t lut[256], const uint8_t* pool, const uint8_t* pool_src, uint8_t* dst,
               int n);
  void (*resize)(const ne_area_resize* r, const uint8_t* in, float* tmp, float* row, uint8_t* out);
  void (*stack)(const uint8_t* const f[NE_ALE_STACK], int n, float* obs);
  int (*fits)(const ne_area_resize* r, int n);
} ne__ale_kernels;

// The kernels by level (ale.c): the portable ones, and on x86-64 AVX2 (frame_avx2.c: for CPUs
// without AVX-512 VBMI; the resize reads rows up to 16 bytes past each quad's first tap) and
// AVX-512 with VBMI (frame_avx512.c: byte permutes do the lookup and the column gathers; usable
// only where the CPU has VBMI).
extern ne_simd_slot ne__ale_slot;
#ifdef NE_SIMD_X86
extern const ne__ale_kernels ne__ale_avx2, ne__ale_avx512;
#endif

#endif
