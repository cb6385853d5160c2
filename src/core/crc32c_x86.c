// SPDX-License-Identifier: MIT
// CRC-32C with x86-64's crc32 instruction (SSE4.2): 8 bytes a step where crc32c.c's table takes
// one. The table of the AVX2 level in crc32c.c's slot (every AVX2 CPU has SSE4.2); the same value
// as the table version (tests/test_simd.c, test_checkpoint).
#include "core/simd.h"

#ifdef NE_SIMD_X86
#include <nmmintrin.h>  // _mm_crc32_* (compiled for this function only, through its target attribute)
#include <string.h>

#include "core/crc32c.h"

NE_TARGET_SSE42 static uint32_t crc32c_sse42(uint32_t crc, const void* data, size_t n) {
  const uint8_t* p = data;
  uint64_t c = ~crc;
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t word;
    memcpy(&word, p, sizeof word);  // unaligned input
    c = _mm_crc32_u64(c, word);
  }
  uint32_t c32 = (uint32_t)c;
  for (; n > 0; p++, n--) c32 = _mm_crc32_u8(c32, *p);
  return ~c32;
}

const ne__crc32c_kernels ne__crc32c_sse42 = {crc32c_sse42};
#endif
