// SPDX-License-Identifier: MIT
// The SIMD level of cpu.h: the CPU is probed once (__builtin_cpu_supports), NEUROEVO_SIMD read
// once, and the result kept in an atomic so that pool threads read it without locks.
#include "core/cpu.h"

#include <pthread.h>  // pthread_once: probe once, race-free
#include <stdatomic.h>
#include <stdlib.h>  // getenv
#include <string.h>

static atomic_int cpu_level;   // the CPU's widest level (0 until probed)
static atomic_int env_cap;     // NEUROEVO_SIMD's cap (NE_SIMD_AVX512 when unset)
static atomic_int forced_cap;  // ne__simd_force's cap (0: none)
// The level in use (0 until probed): the three above combined once, so that the hot loops' calls
// (a few a lockstep step) read one atomic instead of three plus a branch each
static atomic_int in_use;
static pthread_once_t probe_once = PTHREAD_ONCE_INIT;

static int parse_level(const char* s) {
  if (!s || !*s) return NE_SIMD_AVX512;
  if (strcmp(s, "base") == 0 || strcmp(s, "portable") == 0 || strcmp(s, "sse2") == 0) return NE_SIMD_BASE;
  if (strcmp(s, "avx2") == 0) return NE_SIMD_AVX2;
  return NE_SIMD_AVX512;  // "avx512" or anything else: no cap
}

// The CPU's level capped by NEUROEVO_SIMD and ne__simd_force
static int combined(void) {
  int level = atomic_load(&cpu_level);
  int cap = atomic_load(&env_cap);
  int forced = atomic_load(&forced_cap);
  if (level > cap) level = cap;
  if (forced && level > forced) level = forced;
  return level;
}

static void probe(void) {
  int level = NE_SIMD_BASE;
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();
  // every AVX2 CPU made has FMA too; the AVX2 kernels may use it (mlp.c's fused layers)
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) level = NE_SIMD_AVX2;
  if (level == NE_SIMD_AVX2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
    level = NE_SIMD_AVX512;
#endif
  atomic_store(&env_cap, parse_level(getenv("NEUROEVO_SIMD")));
  atomic_store(&cpu_level, level);
  atomic_store(&in_use, combined());
}

int ne__simd_cpu_level(void) {
  int level = atomic_load_explicit(&cpu_level, memory_order_acquire);
  if (level) return level;
  pthread_once(&probe_once, probe);
  return atomic_load(&cpu_level);
}

int ne__simd_level(void) {
  int level = atomic_load_explicit(&in_use, memory_order_acquire);
  if (level) return level;
  ne__simd_cpu_level();  // probes once, which sets in_use
  return atomic_load(&in_use);
}

int ne__simd_force(int level) {
  ne__simd_cpu_level();
  atomic_store(&forced_cap, level < 0 ? 0 : level);
  atomic_store(&in_use, combined());
  return atomic_load(&in_use);
}

const char* ne__simd_name(int level) {
  return level >= NE_SIMD_AVX512 ? "avx512" : level == NE_SIMD_AVX2 ? "avx2" : "base";
}
