// SPDX-License-Identifier: MIT
// Checkpoint files (see checkpoint.h). Layout: 8-byte magic "NECKPT\r\n", u32 format version,
// u32 CRC-32C of the payload, u64 payload length, payload (counters, then the algorithm's bytes).
// A torn or bit-flipped file fails the length or CRC check and the reader falls back to an older one.
#include "neuroevo/checkpoint.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/crc32c.h"
#include "core/util.h"
#include "neuroevo/alloc.h"
#include "neuroevo/error.h"
#include "neuroevo/version.h"

static const char MAGIC[8] = {'N', 'E', 'C', 'K', 'P', 'T', '\r', '\n'};
#define HEADER_BYTES 24
#define MAX_KEPT 1000

static void encode(const ne_checkpoint* c, ne_buf* out) {
  ne_buf payload;
  ne__buf_init(&payload);
  ne__buf_u32(&payload, c->generation);
  ne__buf_u64(&payload, c->evaluations);
  ne__buf_u64(&payload, c->env_steps);
  ne__buf_f64(&payload, c->wall_s);
  ne__buf_u64(&payload, c->algo_len);
  ne__buf_bytes(&payload, c->algo, c->algo_len);
  ne__buf_bytes(out, MAGIC, 8);
  ne__buf_u32(out, NE_CHECKPOINT_VERSION);
  ne__buf_u32(out, ne__crc32c(0, payload.data, payload.len));
  ne__buf_u64(out, payload.len);
  ne__buf_bytes(out, payload.data, payload.len);
  if (payload.oom) out->oom = 1;
  ne__buf_free(&payload);
}

static int is_checkpoint_name(const char* name, unsigned* gen) {
  char tail;
  return sscanf(name, "ckpt-%8u.bin%c", gen, &tail) == 1 && strlen(name) == 17;
}

// Generation numbers of the checkpoint files in dir, newest first; returns the count.
static int list_generations(const char* dir, unsigned* gens, int max) {
  DIR* d = opendir(dir);
  if (!d) return 0;
  int n = 0;
  struct dirent* e;
  while ((e = readdir(d)) && n < max) {
    unsigned g;
    if (is_checkpoint_name(e->d_name, &g)) gens[n++] = g;
  }
  closedir(d);
  // insertion sort, descending: a handful of files
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && gens[j] > gens[j - 1]; j--) {
      unsigned t = gens[j];
      gens[j] = gens[j - 1];
      gens[j - 1] = t;
    }
  return n;
}

static void path_for(char* buf, size_t size, const char* dir, unsigned gen) {
  snprintf(buf, size, "%s/ckpt-%08u.bin", dir, gen);
}

int ne_checkpoint_write(const char* dir, const ne_checkpoint* ckpt, int keep, char* errstr) {
  int rc = ne__mkdir_p(dir, errstr);
  if (rc) return rc;
  ne_buf b;
  ne__buf_init(&b);
  encode(ckpt, &b);
  if (b.oom) {
    ne__buf_free(&b);
    return ne__set_error(errstr, NE_ENOMEM, "out of memory encoding a checkpoint");
  }
  char path[4096];
  path_for(path, sizeof path, dir, ckpt->generation);
  rc = ne__write_file_atomic(path, b.data, b.len, errstr);
  ne__buf_free(&b);
  if (rc) return rc;
  // keep the newest `keep` files; older ones go only after the new one is durable
  unsigned local[MAX_KEPT];
  int n = list_generations(dir, local, MAX_KEPT);
  for (int i = keep > 0 ? keep : 1; i < n; i++) {
    path_for(path, sizeof path, dir, local[i]);
    unlink(path);
  }
  return 0;
}

static int decode(const char* path, const uint8_t* data, size_t len, ne_checkpoint* out, char* errstr) {
  memset(out, 0, sizeof *out);
  if (len < HEADER_BYTES || memcmp(data, MAGIC, 8) != 0)
    return ne__set_error(errstr, NE_ECORRUPT, "%s: not a neuroevo checkpoint (bad magic or too short)", path);
  ne_reader r;
  ne__reader_init(&r, data + 8, len - 8);
  uint32_t version = ne__reader_u32(&r);
  uint32_t crc = ne__reader_u32(&r);
  uint64_t payload_len = ne__reader_u64(&r);
  if (version != NE_CHECKPOINT_VERSION)
    return ne__set_error(errstr, NE_EVERSION, "%s: checkpoint format version %u, this build reads %u", path, version,
                         NE_CHECKPOINT_VERSION);
  if (payload_len != len - HEADER_BYTES)
    return ne__set_error(errstr, NE_ECORRUPT, "%s: truncated: header says %llu payload bytes, file has %zu", path,
                         (unsigned long long)payload_len, len - HEADER_BYTES);
  const uint8_t* payload = data + HEADER_BYTES;
  if (ne__crc32c(0, payload, (size_t)payload_len) != crc)
    return ne__set_error(errstr, NE_ECORRUPT, "%s: checksum mismatch (the file is corrupt)", path);
  ne__reader_init(&r, payload, (size_t)payload_len);
  out->generation = ne__reader_u32(&r);
  out->evaluations = ne__reader_u64(&r);
  out->env_steps = ne__reader_u64(&r);
  out->wall_s = ne__reader_f64(&r);
  uint64_t algo_len = ne__reader_u64(&r);
  if (r.bad || algo_len != ne__reader_left(&r))
    return ne__set_error(errstr, NE_ECORRUPT, "%s: inconsistent algorithm state length", path);
  out->algo = ne_malloc((size_t)algo_len);
  if (!out->algo) return ne__set_error(errstr, NE_ENOMEM, "%s: out of memory", path);
  ne__reader_bytes(&r, out->algo, (size_t)algo_len);
  out->algo_len = (size_t)algo_len;
  return 0;
}

int ne_checkpoint_decode(const void* data, size_t len, const char* name, ne_checkpoint* out, char* errstr) {
  return decode(name ? name : "checkpoint", (const uint8_t*)data, len, out, errstr);
}

int ne_checkpoint_read(const char* path, ne_checkpoint* out, char* errstr) {
  char* data = NULL;
  size_t len = 0;
  memset(out, 0, sizeof *out);
  int rc = ne__read_file(path, &data, &len, errstr);
  if (rc) return rc;
  rc = decode(path, (const uint8_t*)data, len, out, errstr);
  ne_free(data);
  return rc;
}

int ne_checkpoint_read_latest(const char* dir, ne_checkpoint* out, char* errstr, void (*warn)(const char* msg)) {
  unsigned gens[MAX_KEPT];
  int n = list_generations(dir, gens, MAX_KEPT);
  char path[4096], why[NE_ERRSTR_LEN];
  for (int i = 0; i < n; i++) {
    path_for(path, sizeof path, dir, gens[i]);
    if (ne_checkpoint_read(path, out, why) == 0) return 0;
    if (warn) warn(why);
  }
  memset(out, 0, sizeof *out);
  return ne__set_error(errstr, NE_ENOTFOUND, "%s: no readable checkpoint (%d file%s tried)", dir, n, n == 1 ? "" : "s");
}

int ne_checkpoint_count(const char* dir) {
  unsigned gens[MAX_KEPT];
  return list_generations(dir, gens, MAX_KEPT);
}

void ne_checkpoint_free(ne_checkpoint* ckpt) {
  if (!ckpt) return;
  ne_free(ckpt->algo);
  ckpt->algo = NULL;
  ckpt->algo_len = 0;
}
