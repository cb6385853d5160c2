// SPDX-License-Identifier: MIT
// CRC-32C (Castagnoli), the checksum of checkpoints, TFRecord frames and Redis wire messages.
#ifndef NEUROEVO_CORE_CRC32C_H
#define NEUROEVO_CORE_CRC32C_H

#include <stddef.h>
#include <stdint.h>

#include "core/simd.h"

// CRC-32C of a byte range, continuing from crc (0 to start). The CPU's crc32 instruction where it
// has one (x86-64 SSE4.2), else a table; both give the same value.
uint32_t ne__crc32c(uint32_t crc, const void* data, size_t n);

// The table version, always; for tests that compare the two.
uint32_t ne__crc32c_portable(uint32_t crc, const void* data, size_t n);

// The kernel table (core/simd.h): the table version, and from the AVX2 level up on x86-64 the
// crc32 instruction (crc32c_x86.c).
typedef struct ne__crc32c_kernels {
  uint32_t (*crc)(uint32_t crc, const void* data, size_t n);  // ne__crc32c's contract
} ne__crc32c_kernels;
extern ne_simd_slot ne__crc32c_slot;
#ifdef NE_SIMD_X86
extern const ne__crc32c_kernels ne__crc32c_sse42;
#endif

#endif
