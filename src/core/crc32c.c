// SPDX-License-Identifier: MIT
// CRC-32C (crc32c.h). Every Redis task and result message is sealed with it, so its speed is the
// master's: bit by bit it cost ~4 ns per byte, 29% of a master's CPU on Acrobot's 50-candidate
// GA tasks (perf, generation 60). The SSE4.2 crc32 instruction takes 8 bytes per step
// (crc32c_x86.c); the table here (one byte per step) serves other CPUs and is the reference.
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

static const ne__crc32c_kernels portable = {ne__crc32c_portable};

// by level: the table, and the crc32 instruction from the AVX2 level up (crc32c_x86.c)
ne_simd_slot ne__crc32c_slot = {
    .name = "crc32c",
    .portable = &portable,
    .table = {[NE_SIMD_BASE] = &portable, NE_ON_X86([NE_SIMD_AVX2] = &ne__crc32c_sse42)},
};

uint32_t ne__crc32c(uint32_t crc, const void* data, size_t n) {
  const ne__crc32c_kernels* k = ne__simd_table(&ne__crc32c_slot);
  return k->crc(crc, data, n);
}
