// SPDX-License-Identifier: MIT
// Shared helpers of the fuzz targets (fuzz/fuzz_*.c): the libFuzzer entry point's prototype, a
// NUL-terminated copy of the input, splitting an input into NUL-separated pieces, and a check that
// aborts with a message (a property violation, not a crash, must still stop the fuzzer).
#ifndef NEUROEVO_FUZZ_H
#define NEUROEVO_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "neuroevo/alloc.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

// a property every accepted input must have; abort() so libFuzzer saves the input as a crash
#define FUZZ_CHECK(cond, ...)                                                       \
  do {                                                                              \
    if (!(cond)) {                                                                  \
      fprintf(stderr, "%s:%d: property violated: %s: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                                 \
      fprintf(stderr, "\n");                                                        \
      abort();                                                                      \
    }                                                                               \
  } while (0)

// a NUL-terminated copy of data (parsers take C strings); caller frees with ne_free
static inline char* fuzz_cstr(const uint8_t* data, size_t size) {
  char* s = ne_malloc(size + 1);
  if (!s) abort();
  if (size) memcpy(s, data, size);
  s[size] = '\0';
  return s;
}

// the pieces of s[0..size) separated by NUL bytes (s must hold a NUL at s[size]); returns the count
static inline int fuzz_split(char* s, size_t size, char** pieces, int max) {
  int n = 0;
  for (size_t i = 0; i <= size && n < max;) {
    pieces[n++] = s + i;
    i += strlen(s + i) + 1;
  }
  return n;
}

#endif
