// SPDX-License-Identifier: MIT
// A growable byte buffer and a bounds-checked reader for the binary formats (checkpoints, algorithm
// state, wire messages). Little-endian fixed-width integers, IEEE floats by bit pattern, so bytes
// written on one machine read identically on another. A reader never reads past its end: a short or
// corrupt input sets `bad` and every later read returns zeros.
#ifndef NEUROEVO_BUF_H
#define NEUROEVO_BUF_H

#include <stddef.h>
#include <stdint.h>

typedef struct ne_buf {
  uint8_t* data;  // (cap) owned; ne__buf_free releases
  size_t len;     // bytes written
  size_t cap;     // bytes allocated
  int oom;        // 1 after an allocation failure (later writes are dropped)
} ne_buf;

typedef struct ne_reader {
  const uint8_t* data;  // not owned
  size_t len;           // total bytes
  size_t pos;           // next byte to read
  int bad;              // 1 after reading past the end or a failed check
} ne_reader;

void ne__buf_init(ne_buf* b);
void ne__buf_free(ne_buf* b);
void ne__buf_bytes(ne_buf* b, const void* p, size_t n);
void ne__buf_u32(ne_buf* b, uint32_t v);
void ne__buf_u64(ne_buf* b, uint64_t v);
void ne__buf_f64(ne_buf* b, double v);
void ne__buf_f32s(ne_buf* b, const float* v, size_t n);
void ne__buf_u64s(ne_buf* b, const uint64_t* v, size_t n);
void ne__buf_f64s(ne_buf* b, const double* v, size_t n);

// Hands the written bytes to the caller (who frees them with ne_free) and returns 0; after an
// allocation failure frees them and returns NE_ENOMEM. Either way b is empty afterwards.
int ne__buf_take(ne_buf* b, uint8_t** data, size_t* len);

void ne__reader_init(ne_reader* r, const void* data, size_t len);
void ne__reader_bytes(ne_reader* r, void* out, size_t n);
uint32_t ne__reader_u32(ne_reader* r);
uint64_t ne__reader_u64(ne_reader* r);
double ne__reader_f64(ne_reader* r);
void ne__reader_f32s(ne_reader* r, float* out, size_t n);
void ne__reader_u64s(ne_reader* r, uint64_t* out, size_t n);
void ne__reader_f64s(ne_reader* r, double* out, size_t n);
// Bytes left; a count read from input must be checked against this before allocating.
size_t ne__reader_left(const ne_reader* r);

#endif
