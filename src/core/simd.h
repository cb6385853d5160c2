// SPDX-License-Identifier: MIT
// Vector kernels: the one place that names instruction sets, and the slot through which each module
// with vector kernels picks them. Not public API.
//
// Targets. NE_TARGET_<LEVEL> compiles one function for a level of core/cpu.h (NE_TARGET_AVX2:
// AVX2 + FMA; NE_TARGET_AVX512: that plus AVX-512 F/BW/DQ/VL), NE_TARGET_AVX512_VBMI and
// NE_TARGET_SSE42 for the kernels that need an extra on top; no other file spells a target
// attribute. They exist where NE_SIMD_X86 is defined (x86-64, GCC or Clang); elsewhere only the
// portable code is built, and every level runs it.
//
// Tables. A module keeps one table type (a struct of function pointers: its kernels) and one
// table per level it has code for; a ne_simd_slot holds them by level, and ne__simd_table returns
// the table of the level in use (cpu.h: the CPU's widest, capped by NEUROEVO_SIMD), chosen once
// per process at the first call (a level the module has no table for falls back to the next one
// down), again after ne__simd_force. Each kernel's per-ISA code lives in the module's _x86.c file;
// the portable table is the reference every other entry is tested against bit for bit
// (tests/test_simd.c walks every slot, level and entry).
#ifndef NEUROEVO_CORE_SIMD_H
#define NEUROEVO_CORE_SIMD_H

#include <stdatomic.h>

#include "core/cpu.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define NE_SIMD_X86 1
// Every AVX2 CPU made has FMA (cpu.h's AVX2 level requires both): kernels of either form may use
// it; -ffp-contract=off keeps a separate a + x * w two roundings.
#define NE_TARGET_AVX2 __attribute__((target("avx2,fma")))
#define NE_TARGET_AVX512 __attribute__((target("avx2,fma,avx512f,avx512bw,avx512dq,avx512vl")))
// AVX-512 VBMI's byte permutes (ALE's palette lookup): Ice Lake, Zen 4 and later
#define NE_TARGET_AVX512_VBMI __attribute__((target("avx2,fma,avx512f,avx512bw,avx512dq,avx512vl,avx512vbmi")))
// the crc32 instruction (core/crc32c_x86.c): every x86-64 CPU since 2008, every AVX2 one among them
#define NE_TARGET_SSE42 __attribute__((target("sse4.2")))
// A loop left to the compiler's vectorizer, cloned per vector width and picked by the loader, for
// code outside the tables (the Python extension's parameter copies)
#define NE_TARGET_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
// NE_SIMD_EACH_X86(STAMP): STAMP(avx2, NE_TARGET_AVX2) STAMP(avx512, NE_TARGET_AVX512), a portable
// body compiled again for each wider level, where the compiler vectorizes it at that width
// (classic control's lanes); nothing off x86-64
#define NE_SIMD_EACH_X86(STAMP) STAMP(avx2, NE_TARGET_AVX2) STAMP(avx512, NE_TARGET_AVX512)
// Table entries that exist on x86-64 builds only: NE_ON_X86([NE_SIMD_AVX2] = &t, ...); and
// NE_X86_OR(x86, other), the first on x86-64, else the second (a baseline table with SSE2 code)
#define NE_ON_X86(...) __VA_ARGS__
#define NE_X86_OR(x86, other) x86
#else
#define NE_TARGET_CLONES
#define NE_SIMD_EACH_X86(STAMP)
#define NE_ON_X86(...)
#define NE_X86_OR(x86, other) other
#endif

// A module's kernel tables by level, and the one in use. Define one per module with a static
// initializer ({.name = "mod", .portable = &p, .table = {[NE_SIMD_BASE] = &p,
// NE_ON_X86([NE_SIMD_AVX2] = &t2, ...)}}); the fields after `usable` belong to cpu.c.
typedef struct ne_simd_slot {
  const char* name;                       // the module, for messages and tests ("noise")
  const void* portable;                   // the portable C table: the reference for the others
  const void* table[NE_SIMD_AVX512 + 1];  // by level (NULL: none; [0] unused); [NE_SIMD_BASE] is
                                          // `portable` unless the baseline ISA has code (SSE2)
  // Nullable: 0 when this process cannot run `level`'s table although the CPU has the level (a
  // self-check failed, an extra is missing); *why then says so (for tests). Called under cpu.c's
  // lock: it must not ask for a slot's table itself.
  int (*usable)(int level, const char** why);
  _Atomic(const void*) chosen;  // the table in use; NULL until first asked
  struct ne_simd_slot* next;    // the slots chosen so far (ne__simd_force chooses them again)
} ne_simd_slot;

// Chooses slot's table for the level in use (and remembers the slot); cpu.c. Thread-safe.
const void* ne__simd_choose(ne_simd_slot* slot);

// The table in use for slot: one atomic load once chosen.
static inline const void* ne__simd_table(ne_simd_slot* slot) {
  const void* t = atomic_load_explicit(&slot->chosen, memory_order_acquire);
  return t ? t : ne__simd_choose(slot);
}

// The level whose table slot runs (the level in use, or the one below it that the module fell
// back to), for messages.
int ne__simd_chosen_level(ne_simd_slot* slot);

// slot's table for exactly `level`, or NULL with *why saying why not: the build has no code for
// it on this architecture, the CPU lacks it, or the module's usable() refused. For tests and
// benchmarks that compare every entry with the portable one.
const void* ne__simd_table_at(const ne_simd_slot* slot, int level, const char** why);

#endif
