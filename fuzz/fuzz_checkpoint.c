// SPDX-License-Identifier: MIT
// Fuzz target: the checkpoint decoder (ne_checkpoint_decode, what resume reads). Every input must be
// either rejected with a message naming the file or decoded into a checkpoint whose algorithm bytes
// lie inside it. Each input is decoded twice: as is, and with its length and CRC-32C fields made
// consistent, since random mutations almost never pass the checksum and the payload parser behind it.
#include "core/crc32c.h"
#include "fuzz.h"
#include "neuroevo/checkpoint.h"
#include "neuroevo/error.h"

#define HEADER_BYTES 24  // magic (8), version (4), CRC-32C of the payload (4), payload length (8)

static void decode_one(const uint8_t* data, size_t size) {
  // a heap copy of exactly `size` bytes, so ASan sees any read past the end
  uint8_t* copy = ne_malloc(size ? size : 1);
  if (!copy) abort();
  if (size) memcpy(copy, data, size);
  char err[NE_ERRSTR_LEN];
  ne_checkpoint c;
  int rc = ne_checkpoint_decode(copy, size, "fuzz.bin", &c, err);
  if (rc == 0) {
    FUZZ_CHECK(c.algo_len <= size, "%zu algorithm bytes from a %zu-byte file", c.algo_len, size);
    FUZZ_CHECK(c.algo_len == 0 || memcmp(c.algo, copy + size - c.algo_len, c.algo_len) == 0,
               "algorithm bytes are not the file's tail");
  } else {
    FUZZ_CHECK(strstr(err, "fuzz.bin") != NULL, "error does not name the file: %s", err);
  }
  ne_checkpoint_free(&c);
  ne_free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  decode_one(data, size);
  if (size < HEADER_BYTES) return 0;
  // the same bytes with a matching length and checksum (little-endian, as ne_buf writes them)
  uint8_t* fixed = ne_malloc(size);
  if (!fixed) abort();
  memcpy(fixed, data, size);
  uint64_t payload = size - HEADER_BYTES;
  uint32_t crc = ne__crc32c(0, fixed + HEADER_BYTES, (size_t)payload);
  for (int i = 0; i < 4; i++) fixed[12 + i] = (uint8_t)(crc >> (8 * i));
  for (int i = 0; i < 8; i++) fixed[16 + i] = (uint8_t)(payload >> (8 * i));
  decode_one(fixed, size);
  ne_free(fixed);
  return 0;
}
