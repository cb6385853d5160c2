// SPDX-License-Identifier: MIT
// Fuzz target: the Redis wire decoders (src/exec/redis_wire.h) for tasks, results (and env failure
// reports) and blobs, with decode buffers reused across inputs as a worker and the master reuse
// them. A decoded message must be self-consistent: chains inside the seed buffer, blob indices
// inside the blob list, skipped candidates inside the result buffer. Each input
// is decoded twice: as is, and with its CRC-32C trailer recomputed, since random mutations almost
// never pass the checksum and the parser behind it.
#include "core/crc32c.h"
#include "exec/redis_wire.h"
#include "fuzz.h"
#include "neuroevo/error.h"

static ne__wire_task task;    // reused: exercises the grow-and-reuse paths
static ne__wire_results res;  // reused likewise
static int ready;

static void decode_one(const uint8_t* data, size_t size) {
  uint8_t* copy = ne_malloc(size ? size : 1);  // exactly `size` bytes, so ASan sees overreads
  if (!copy) abort();
  if (size) memcpy(copy, data, size);
  char err[NE_ERRSTR_LEN], sender[NE_WIRE_MAX_NAME + 1];
  uint32_t kind;
  int version;
  ne__wire_peek(copy, size, &kind, &version, sender, sizeof sender);
  // a task: every chain lies inside the task's seed buffer
  if (ne__wire_decode_task(&task, copy, size, err) == 0) {
    FUZZ_CHECK(task.n >= 0 && task.n <= task.cap_cands, "n %d cap %d", task.n, task.cap_cands);
    for (int i = 0; i < task.n; i++) {
      const ne_candidate* c = &task.cands[i];
      if (c->kind == NE_CAND_CHAIN)
        FUZZ_CHECK(c->n_seeds >= 1 && c->seeds >= task.seeds && c->seeds + c->n_seeds <= task.seeds + task.cap_seeds,
                   "candidate %d's chain outside the seed buffer", i);
      else FUZZ_CHECK(c->blob < (uint32_t)task.n_blobs, "candidate %d names blob %u of %d", i, c->blob, task.n_blobs);
    }
  }
  // a result chunk: the count fits the buffers; only a failure report may carry no result, and its
  // skipped list lies inside the decoder's buffer
  if (ne__wire_decode_results(&res, copy, size, err) == 0) {
    FUZZ_CHECK(res.n >= 0 && res.n <= res.cap, "n %d cap %d", res.n, res.cap);
    FUZZ_CHECK(res.n > 0 || res.hdr.error[0], "a success report without results");
    FUZZ_CHECK(res.hdr.n_skipped >= 0 && (size_t)res.hdr.n_skipped <= res.cap_skipped &&
                   (res.hdr.n_skipped == 0 || res.hdr.skipped == res.skipped),
               "%d skipped, cap %zu", res.hdr.n_skipped, res.cap_skipped);
  }
  // a blob of the size its header announces (bounded: the fuzzer's inputs are small)
  if (size >= 24) {
    float out[256];
    uint64_t hash;
    memcpy(&hash, copy + size - 8, 8);
    ne__wire_decode_blob(copy, size, hash, copy[0] % 256, out, err);
  }
  ne_free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (!ready) {
    ne__wire_task_init(&task);
    ne__wire_results_init(&res);
    ready = 1;
  }
  decode_one(data, size);
  if (size < 8) return 0;
  // the same bytes with a valid trailer: CRC-32C of everything before it, little-endian
  uint8_t* fixed = ne_malloc(size);
  if (!fixed) abort();
  memcpy(fixed, data, size);
  uint32_t crc = ne__crc32c(0, fixed, size - 4);
  for (int i = 0; i < 4; i++) fixed[size - 4 + i] = (uint8_t)(crc >> (8 * i));
  decode_one(fixed, size);
  ne_free(fixed);
  return 0;
}
