// SPDX-License-Identifier: MIT
// CRC-32C (crc32c.h). Every Redis task and result message is sealed with it, so its speed is the
// master's: bit by bit it cost ~4 ns per byte, 29% of a master's CPU on Acrobot's 50-candidate
// GA tasks (perf, generation 60). The SSE4.2 crc32 instruction takes 8 bytes per step; the table
// (one byte per step) serves other CPUs.
#include "core/crc32c.h"

#include <pthread.h>
#include <string.h>

#define POLY 0x82F63B78u  // reflected Castagnoli polynomial

static uint32_t table[256];
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static void fill_table(void) {
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t c = i;
    for (int k = 0; k < 8; k++) c = (c >> 1) ^ (POLY & (0u - (c & 1u)));
    table[i] = c;
  }
}

uint32_t ne__crc32c_portable(uint32_t crc, const void* data, size_t n) {
  pthread_once(&table_once, fill_table);
  const uint8_t* p = data;
  crc = ~crc;
  for (size_t i = 0; i < n; i++) crc = (crc >> 8) ^ table[(crc ^ p[i]) & 0xFFu];
  return ~crc;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <nmmintrin.h>  // _mm_crc32_* (compiled for this function only, through its target attribute)

__attribute__((target("sse4.2"))) static uint32_t crc32c_sse42(uint32_t crc, const void* data, size_t n) {
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

// __builtin_cpu_supports reads what libgcc's constructor found; no cache of our own is needed
uint32_t ne__crc32c(uint32_t crc, const void* data, size_t n) {
  return __builtin_cpu_supports("sse4.2") ? crc32c_sse42(crc, data, n) : ne__crc32c_portable(crc, data, n);
}
#else
uint32_t ne__crc32c(uint32_t crc, const void* data, size_t n) { return ne__crc32c_portable(crc, data, n); }
#endif
