// SPDX-License-Identifier: MIT
// conv.c's matrix kernel for x86-64's AVX2 and AVX-512 (conv_int.h's table at those levels): the
// kernel of conv_int.h at 8 and 16 floats a vector, register blocking sized to each register file
// (AVX-512 12 of 32 zmm, AVX2 12 of 16 ymm). The portable kernel's bits (tests/test_simd.c,
// test_conv).
#include "core/simd.h"

#ifdef NE_SIMD_X86
#include <immintrin.h>  // _mm512_set1_ps, _mm256_set1_ps

#include "policy/conv_int.h"

#pragma GCC diagnostic ignored "-Wpsabi"  // the vectors never cross a real call (always_inline)
NE__GEMM_KERNEL(gemm_avx512, NE_TARGET_AVX512, v16, 16, 6, 2, _mm512_set1_ps)
NE__GEMM_KERNEL(gemm_avx2, NE_TARGET_AVX2, v8, 8, 6, 2, _mm256_set1_ps)

const ne__conv_kernels ne__conv_avx2 = {gemm_avx2};
const ne__conv_kernels ne__conv_avx512 = {gemm_avx512};
#endif
