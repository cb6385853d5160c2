// SPDX-License-Identifier: MIT
// Byte buffer, bounds-checked reader and CRC-32C for the binary formats. Bytes are written
// explicitly little-endian so files and messages are portable between machines.
#include "core/buf.h"

#include <stdint.h>  // SIZE_MAX
#include <string.h>

#include "neuroevo/alloc.h"
#include "neuroevo/error.h"

void ne__buf_init(ne_buf* b) { memset(b, 0, sizeof *b); }

void ne__buf_free(ne_buf* b) {
  ne_free(b->data);
  ne__buf_init(b);
}

void ne__buf_bytes(ne_buf* b, const void* p, size_t n) {
  if (b->oom) return;
  if (b->len + n > b->cap) {
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + n) cap *= 2;
    uint8_t* grown = ne_realloc(b->data, cap);
    if (!grown) {
      b->oom = 1;
      return;
    }
    b->data = grown;
    b->cap = cap;
  }
  if (n) memcpy(b->data + b->len, p, n);
  b->len += n;
}

void ne__buf_u32(ne_buf* b, uint32_t v) {
  uint8_t le[4];
  for (int i = 0; i < 4; i++) le[i] = (uint8_t)(v >> (8 * i));
  ne__buf_bytes(b, le, 4);
}

void ne__buf_u64(ne_buf* b, uint64_t v) {
  uint8_t le[8];
  for (int i = 0; i < 8; i++) le[i] = (uint8_t)(v >> (8 * i));
  ne__buf_bytes(b, le, 8);
}

void ne__buf_f64(ne_buf* b, double v) {
  uint64_t bits;
  memcpy(&bits, &v, 8);
  ne__buf_u64(b, bits);
}

void ne__buf_f32s(ne_buf* b, const float* v, size_t n) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  // the bytes below are the host's own on a little-endian machine: one copy instead of a call per
  // float (the ES family saves its state every generation: ~5 vectors of P floats)
  if (n <= SIZE_MAX / sizeof *v) {
    ne__buf_bytes(b, v, n * sizeof *v);
    return;
  }
#endif
  for (size_t i = 0; i < n; i++) {
    uint32_t bits;
    memcpy(&bits, &v[i], 4);
    ne__buf_u32(b, bits);
  }
}

void ne__buf_u64s(ne_buf* b, const uint64_t* v, size_t n) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  if (n <= SIZE_MAX / sizeof *v) {
    ne__buf_bytes(b, v, n * sizeof *v);  // as ne__buf_f32s
    return;
  }
#endif
  for (size_t i = 0; i < n; i++) ne__buf_u64(b, v[i]);
}

void ne__buf_f64s(ne_buf* b, const double* v, size_t n) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  if (n <= SIZE_MAX / sizeof *v) {
    ne__buf_bytes(b, v, n * sizeof *v);  // as ne__buf_f32s
    return;
  }
#endif
  for (size_t i = 0; i < n; i++) ne__buf_f64(b, v[i]);
}

int ne__buf_take(ne_buf* b, uint8_t** data, size_t* len) {
  if (b->oom) {
    ne__buf_free(b);
    return NE_ENOMEM;
  }
  *data = b->data;
  *len = b->len;
  ne__buf_init(b);
  return 0;
}

void ne__reader_init(ne_reader* r, const void* data, size_t len) {
  r->data = data;
  r->len = len;
  r->pos = 0;
  r->bad = 0;
}

size_t ne__reader_left(const ne_reader* r) { return r->bad ? 0 : r->len - r->pos; }

void ne__reader_bytes(ne_reader* r, void* out, size_t n) {
  if (r->bad || n > r->len - r->pos) {
    r->bad = 1;
    if (n) memset(out, 0, n);
    return;
  }
  if (n) memcpy(out, r->data + r->pos, n);
  r->pos += n;
}

uint32_t ne__reader_u32(ne_reader* r) {
  uint8_t le[4];
  ne__reader_bytes(r, le, 4);
  uint32_t v = 0;
  for (int i = 0; i < 4; i++) v |= (uint32_t)le[i] << (8 * i);
  return v;
}

uint64_t ne__reader_u64(ne_reader* r) {
  uint8_t le[8];
  ne__reader_bytes(r, le, 8);
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v |= (uint64_t)le[i] << (8 * i);
  return v;
}

double ne__reader_f64(ne_reader* r) {
  uint64_t bits = ne__reader_u64(r);
  double v;
  memcpy(&v, &bits, 8);
  return v;
}

void ne__reader_f32s(ne_reader* r, float* out, size_t n) {
  for (size_t i = 0; i < n; i++) {
    uint32_t bits = ne__reader_u32(r);
    memcpy(&out[i], &bits, 4);
  }
}

void ne__reader_u64s(ne_reader* r, uint64_t* out, size_t n) {
  for (size_t i = 0; i < n; i++) out[i] = ne__reader_u64(r);
}

void ne__reader_f64s(ne_reader* r, double* out, size_t n) {
  for (size_t i = 0; i < n; i++) out[i] = ne__reader_f64(r);
}
