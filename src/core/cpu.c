// SPDX-License-Identifier: MIT
// The SIMD level of cpu.h and the kernel slots of simd.h: the CPU is probed once
// (__builtin_cpu_supports: the only place that asks the CPU), NEUROEVO_SIMD read once, and the
// result kept in an atomic so that pool threads read it without locks. Each slot's table is chosen
// at its first use and again when a test forces another level; the slots chosen so far form a
// list under a mutex (a handful, one per module).
#include "core/cpu.h"

#include <pthread.h>  // pthread_once: probe once, race-free
#include <stdatomic.h>
#include <stdlib.h>  // getenv
#include <string.h>

#include "core/simd.h"

static atomic_int cpu_level;   // the CPU's widest level (0 until probed)
static atomic_int cpu_extras;  // its NE_SIMD_EXTRA_* bits
static atomic_int env_cap;     // NEUROEVO_SIMD's cap (NE_SIMD_AVX512 when unset)
static atomic_int forced_cap;  // ne__simd_force's cap (0: none)
// The level in use (0 until probed): the three above combined once, so that the hot loops' calls
// read one atomic instead of three plus a branch each
static atomic_int in_use;
static pthread_once_t probe_once = PTHREAD_ONCE_INIT;

// the slots chosen so far (ne__simd_force chooses them again), and the lock over the list and
// over every choice
static ne_simd_slot* slots;
static pthread_mutex_t slots_lock = PTHREAD_MUTEX_INITIALIZER;

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
  int level = NE_SIMD_BASE, extras = 0;
#ifdef NE_SIMD_X86
  __builtin_cpu_init();
  // every AVX2 CPU made has FMA too; the AVX2 kernels may use it (mlp_x86.c's fused layers)
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) level = NE_SIMD_AVX2;
  if (level == NE_SIMD_AVX2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
    level = NE_SIMD_AVX512;
  if (level == NE_SIMD_AVX512 && __builtin_cpu_supports("avx512vbmi")) extras |= NE_SIMD_EXTRA_VBMI;
#endif
  atomic_store(&env_cap, parse_level(getenv("NEUROEVO_SIMD")));
  atomic_store(&cpu_extras, extras);
  atomic_store(&cpu_level, level);
  atomic_store(&in_use, combined());
}

int ne__simd_cpu_level(void) {
  int level = atomic_load_explicit(&cpu_level, memory_order_acquire);
  if (level) return level;
  pthread_once(&probe_once, probe);
  return atomic_load(&cpu_level);
}

int ne__simd_cpu_extras(void) {
  ne__simd_cpu_level();
  return atomic_load(&cpu_extras);
}

int ne__simd_level(void) {
  int level = atomic_load_explicit(&in_use, memory_order_acquire);
  if (level) return level;
  ne__simd_cpu_level();  // probes once, which sets in_use
  return atomic_load(&in_use);
}

// slot's table for `level` or the next level down that it has and can run
static const void* pick(const ne_simd_slot* slot, int level) {
  for (int l = level; l > NE_SIMD_BASE; l--) {
    const char* why;
    if (slot->table[l] && (!slot->usable || slot->usable(l, &why))) return slot->table[l];
  }
  return slot->table[NE_SIMD_BASE];
}

const void* ne__simd_choose(ne_simd_slot* slot) {
  ne__simd_level();  // probes the CPU (once) before the lock
  pthread_mutex_lock(&slots_lock);
  const void* t = atomic_load(&slot->chosen);
  if (!t) {  // the first choice (another thread may have made it meanwhile)
    t = pick(slot, ne__simd_level());
    slot->next = slots;
    slots = slot;
    atomic_store(&slot->chosen, t);
  }
  pthread_mutex_unlock(&slots_lock);
  return t;
}

int ne__simd_chosen_level(ne_simd_slot* slot) {
  const void* t = ne__simd_table(slot);
  for (int l = NE_SIMD_AVX512; l > NE_SIMD_BASE; l--)
    if (slot->table[l] == t) return l;
  return NE_SIMD_BASE;
}

const void* ne__simd_table_at(const ne_simd_slot* slot, int level, const char** why) {
  *why = NULL;
  if (level < NE_SIMD_BASE || level > NE_SIMD_AVX512) return *why = "no such level", NULL;
#ifndef NE_SIMD_X86
  if (level > NE_SIMD_BASE) return *why = "x86-64 only (this build has the portable code alone)", NULL;
#endif
  if (!slot->table[level]) return *why = "no table of its own (the level below serves it)", NULL;
  if (level > ne__simd_cpu_level()) return *why = "the CPU lacks it", NULL;
  if (level > NE_SIMD_BASE && slot->usable && !slot->usable(level, why)) return NULL;
  return slot->table[level];
}

int ne__simd_force(int level) {
  ne__simd_cpu_level();
  pthread_mutex_lock(&slots_lock);
  atomic_store(&forced_cap, level < 0 ? 0 : level);
  atomic_store(&in_use, combined());
  for (ne_simd_slot* s = slots; s; s = s->next) atomic_store(&s->chosen, pick(s, atomic_load(&in_use)));
  pthread_mutex_unlock(&slots_lock);
  return atomic_load(&in_use);
}

const char* ne__simd_name(int level) {
  return level >= NE_SIMD_AVX512 ? "avx512" : level == NE_SIMD_AVX2 ? "avx2" : "base";
}
