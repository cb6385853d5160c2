// SPDX-License-Identifier: MIT
// Wire encoding of tasks, results and blobs (see redis_wire.h). Layout of every message:
//   magic u32 | version u8 | sender (varint length + bytes) | body | CRC-32C u32 of all before
// Integers that are usually small are LEB128 varints; seeds, hashes and floats are fixed width and
// little-endian (via core/buf), so a GA candidate of 1000 generations is ~8 kB. Decoders check the
// version first (a clear NE_EVERSION), then the checksum, then every count against the bytes left
// before allocating; they never read outside the message.
#include "exec/redis_wire.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/crc32c.h"
#include "core/util.h"
#include "neuroevo/alloc.h"
#include "neuroevo/error.h"
#include "neuroevo/noise.h"
#include "neuroevo/rng.h"
#include "neuroevo/version.h"

#define MAX_TOTAL_SEEDS ((size_t)1 << 26)  // decoded seeds per message (512 MiB): bounds prefix copies
#define MAX_OBS_DIM (1 << 20)              // observation sums per result
#define MAX_BC_DIM NE_ENV_MAX_BC           // behaviour characterization floats per result

// ---- primitives ---------------------------------------------------------------------------

static void put_u8(ne_buf* b, uint8_t v) { ne__buf_bytes(b, &v, 1); }

static void put_varint(ne_buf* b, uint64_t v) {
  uint8_t tmp[10];
  int n = 0;
  do {
    tmp[n] = (uint8_t)(v & 0x7f);
    v >>= 7;
    if (v) tmp[n] |= 0x80;
    n++;
  } while (v);
  ne__buf_bytes(b, tmp, (size_t)n);
}

static void put_f32(ne_buf* b, float v) {
  uint32_t bits;
  memcpy(&bits, &v, 4);
  ne__buf_u32(b, bits);
}

// A length-prefixed text of at most max bytes (names, error messages, entry ids).
static void put_text(ne_buf* b, const char* text, size_t max) {
  size_t n = strnlen(text, max);
  put_varint(b, n);
  ne__buf_bytes(b, text, n);
}

static void put_name(ne_buf* b, const char* name) { put_text(b, name, NE_WIRE_MAX_NAME); }

static uint8_t get_u8(ne_reader* r) {
  uint8_t v = 0;
  ne__reader_bytes(r, &v, 1);
  return v;
}

// A varint of at most 10 bytes; an overlong one marks the reader bad.
static uint64_t get_varint(ne_reader* r) {
  uint64_t v = 0;
  for (int shift = 0; shift < 70; shift += 7) {
    uint8_t byte = get_u8(r);
    if (r->bad) return 0;
    if (shift == 63 && byte > 1) break;
    v |= (uint64_t)(byte & 0x7f) << shift;
    if (!(byte & 0x80)) return v;
  }
  r->bad = 1;
  return 0;
}

static float get_f32(ne_reader* r) {
  uint32_t bits = ne__reader_u32(r);
  float v;
  memcpy(&v, &bits, 4);
  return v;
}

static uint64_t zigzag(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }
static int64_t unzigzag(uint64_t v) { return (int64_t)(v >> 1) ^ -(int64_t)(v & 1); }

// Reads a text of at most max bytes into out[0..max]; texts are printed in messages, so anything
// unprintable is replaced.
static void get_text(ne_reader* r, char* out, size_t max) {
  uint64_t n = get_varint(r);
  if (n > max || n > ne__reader_left(r)) {
    r->bad = 1;
    n = 0;
  }
  ne__reader_bytes(r, out, (size_t)n);
  out[n] = '\0';
  for (size_t i = 0; i < n; i++)
    if (out[i] < 0x20 || out[i] > 0x7e) out[i] = '?';
}

static void get_name(ne_reader* r, char* out, size_t size) {
  char tmp[NE_WIRE_MAX_NAME + 1];
  get_text(r, tmp, NE_WIRE_MAX_NAME);
  if (out) snprintf(out, size, "%s", tmp);
}

// Closes a message: appends the CRC-32C of everything written so far.
static int seal(ne_buf* b) {
  if (b->oom) return NE_ENOMEM;
  ne__buf_u32(b, ne__crc32c(0, b->data, b->len));
  return b->oom ? NE_ENOMEM : 0;
}

static void begin(ne_buf* b, uint32_t kind, const char* sender) {
  b->len = 0;
  b->oom = 0;
  ne__buf_u32(b, kind);
  put_u8(b, NE_WIRE_VERSION);
  put_name(b, sender);
}

static const char* kind_name(uint32_t kind) {
  switch (kind) {
    case NE_WIRE_TASK: return "task";
    case NE_WIRE_RESULT: return "result";
    case NE_WIRE_BLOB: return "blob";
    default: return "unknown";
  }
}

// Checks magic, version and checksum; on success r is positioned after the sender name and its
// length excludes the CRC.
static int open_message(ne_reader* r, const void* data, size_t len, uint32_t want, char* sender, size_t sender_size,
                        char* errstr) {
  uint32_t kind;
  int version;
  char who[NE_WIRE_MAX_NAME + 1] = "?";
  if (sender && sender_size) sender[0] = '\0';
  if (ne__wire_peek(data, len, &kind, &version, who, sizeof who) != 0)
    return ne__set_error(errstr, NE_ECORRUPT, "%zu-byte message too short for a header", len);
  if (sender) snprintf(sender, sender_size, "%s", who);
  if (kind != want)
    return ne__set_error(errstr, NE_ECORRUPT, "expected a %s message, got %s (magic 0x%08x) from '%s'", kind_name(want),
                         kind_name(kind), (unsigned)kind, who);
  if (version != NE_WIRE_VERSION)
    return ne__set_error(errstr, NE_EVERSION,
                         "%s message from '%s' uses wire version %d, this build speaks version %d "
                         "(run the same neuroevo version on the master and every worker)",
                         kind_name(kind), who, version, NE_WIRE_VERSION);
  const uint8_t* p = data;
  uint32_t stored =
      (uint32_t)p[len - 4] | (uint32_t)p[len - 3] << 8 | (uint32_t)p[len - 2] << 16 | (uint32_t)p[len - 1] << 24;
  if (stored != ne__crc32c(0, data, len - 4))
    return ne__set_error(errstr, NE_ECORRUPT, "%s message from '%s': checksum mismatch (%zu bytes)", kind_name(kind),
                         who, len);
  ne__reader_init(r, data, len - 4);
  ne__reader_u32(r);
  get_u8(r);
  get_name(r, NULL, 0);
  return 0;
}

// Ends a decode: the reader must be exactly at the end.
static int close_message(ne_reader* r, const char* what, const char* sender, char* errstr) {
  if (r->bad) return ne__set_error(errstr, NE_ECORRUPT, "%s message from '%s': truncated or malformed", what, sender);
  if (ne__reader_left(r))
    return ne__set_error(errstr, NE_ECORRUPT, "%s message from '%s': %zu unexpected trailing bytes", what, sender,
                         ne__reader_left(r));
  return 0;
}

int ne__wire_peek(const void* data, size_t len, uint32_t* kind, int* version, char* sender, size_t sender_size) {
  if (!data || len < 4 + 1 + 1 + 4) return NE_ECORRUPT;
  ne_reader r;
  ne__reader_init(&r, data, len - 4);
  *kind = ne__reader_u32(&r);
  *version = get_u8(&r);
  char name[NE_WIRE_MAX_NAME + 1];
  get_name(&r, name, sizeof name);
  if (sender && sender_size) snprintf(sender, sender_size, "%s", r.bad ? "?" : name);
  return 0;
}

static void put_round(ne_buf* b, const ne__wire_round* rd) {
  ne__buf_u64(b, rd->exp);
  put_varint(b, rd->generation);
  put_varint(b, rd->round);
  ne__buf_u64(b, rd->digest);
}

static void get_round(ne_reader* r, ne__wire_round* rd) {
  rd->exp = ne__reader_u64(r);
  uint64_t g = get_varint(r), k = get_varint(r);
  if (g > UINT32_MAX || k > UINT32_MAX) r->bad = 1;
  rd->generation = (uint32_t)g;
  rd->round = (uint32_t)k;
  rd->digest = ne__reader_u64(r);
}

// ---- growable arrays ----------------------------------------------------------------------

// Makes *p hold at least `need` elements of `size` bytes (contents kept). 0 or NE_ENOMEM.
static int reserve(void** p, size_t* cap, size_t need, size_t size) {
  if (need <= *cap) return 0;
  size_t n = *cap ? *cap : 16;
  while (n < need) n *= 2;
  void* grown = ne_realloc(*p, n * size);
  if (!grown) return NE_ENOMEM;
  *p = grown;
  *cap = n;
  return 0;
}

static int reserve_int(void** p, int* cap, size_t need, size_t size) {
  size_t c = (size_t)*cap;
  int rc = reserve(p, &c, need, size);
  if (!rc) *cap = (int)c;
  return rc;
}

// ---- tasks --------------------------------------------------------------------------------

void ne__wire_task_init(ne__wire_task* t) { memset(t, 0, sizeof *t); }

void ne__wire_task_free(ne__wire_task* t) {
  if (!t) return;
  ne_free(t->blobs);
  ne_free(t->cands);
  ne_free(t->parts);
  ne_free(t->seeds);
  ne__wire_task_init(t);
}

// Index of the earliest chain among cands[idx[0..j)] that holds the longest prefix of chain j's
// parent (its first len-1 seeds); *prefix gets that length. A GA child shares its parent's chain.
static int find_prefix(const ne_batch* batch, const int* idx, int j, uint32_t* prefix) {
  const ne_candidate* c = &batch->cands[idx[j]];
  *prefix = 0;
  if (c->n_seeds < 2) return -1;
  uint32_t want = c->n_seeds - 1;
  for (int i = 0; i < j; i++) {
    const ne_candidate* o = &batch->cands[idx[i]];
    if (o->kind != NE_CAND_CHAIN || o->n_seeds < want || o->seeds[want - 1] != c->seeds[want - 1]) continue;
    if (memcmp(o->seeds, c->seeds, want * sizeof(uint64_t)) != 0) continue;
    *prefix = want;
    return i;
  }
  return -1;
}

static void put_chain(ne_buf* b, const ne_batch* batch, const int* idx, int j) {
  const ne_candidate* c = &batch->cands[idx[j]];
  uint32_t prefix;
  int ref = find_prefix(batch, idx, j, &prefix);
  put_varint(b, (uint64_t)(ref + 1));
  if (ref >= 0) put_varint(b, prefix);
  put_varint(b, c->n_seeds - prefix);
  ne__buf_u64s(b, c->seeds + prefix, c->n_seeds - prefix);
  put_f32(b, c->sigma);
}

// Local blob index of batch blob `blob` within this chunk's table (appended when first seen).
static int local_blob(int* map, int* table, int* n_table, uint32_t blob) {
  if (map[blob] < 0) {
    map[blob] = *n_table;
    table[(*n_table)++] = (int)blob;
  }
  return map[blob];
}

// Collects the blobs the chunk references, in first-use order. Returns NE_EINVAL on a bad index.
static int chunk_blobs(const ne_batch* batch, const int* idx, int n, int* map, int* table, int* n_table) {
  *n_table = 0;
  for (int b = 0; b < batch->n_blobs; b++) map[b] = -1;
  for (int j = 0; j < n; j++) {
    const ne_candidate* c = &batch->cands[idx[j]];
    if (c->kind == NE_CAND_CHAIN) continue;
    if (c->blob >= (uint32_t)batch->n_blobs) return NE_EINVAL;
    local_blob(map, table, n_table, c->blob);
  }
  return 0;
}

static void put_candidate(ne_buf* b, const ne_batch* batch, const int* idx, const ne__wire_part* parts, int j,
                          const int* map) {
  const ne_candidate* c = &batch->cands[idx[j]];
  int part = parts && parts[j].n > 0;
  put_u8(b, (uint8_t)c->kind);
  put_varint(b, c->index);
  put_varint(b, part ? parts[j].n : c->episodes);
  put_varint(b, part ? (uint64_t)parts[j].first + 1 : 0);  // 0: the whole candidate
  ne__buf_u64(b, c->episode_seed);
  switch (c->kind) {
    case NE_CAND_CHAIN: put_chain(b, batch, idx, j); break;
    case NE_CAND_PERTURB:
      put_varint(b, (uint64_t)map[c->blob]);
      ne__buf_u64(b, c->noise_seed);
      put_f32(b, c->coef);
      break;
    case NE_CAND_VECTOR: put_varint(b, (uint64_t)map[c->blob]); break;
  }
}

int ne__wire_encode_task(ne_buf* out, const ne__wire_round* round, uint32_t task_no, const ne_batch* batch,
                         const uint64_t norm_hash[2], int obs_dim, const int* idx, int n) {
  return ne__wire_encode_task_parts(out, round, task_no, batch, norm_hash, obs_dim, idx, NULL, n);
}

int ne__wire_encode_task_parts(ne_buf* out, const ne__wire_round* round, uint32_t task_no, const ne_batch* batch,
                               const uint64_t norm_hash[2], int obs_dim, const int* idx, const ne__wire_part* parts,
                               int n) {
  if (n < 1 || n > NE_WIRE_MAX_CANDS) return NE_EINVAL;
  for (int j = 0; j < n; j++) {
    if (idx[j] < 0 || idx[j] >= batch->n) return NE_EINVAL;
    if (parts && parts[j].n > 0 &&
        (batch->want_bc || (uint64_t)parts[j].first + parts[j].n > batch->cands[idx[j]].episodes))
      return NE_EINVAL;  // behaviours are means over all of a candidate's episodes: never split
  }
  int nb = batch->n_blobs > 0 ? batch->n_blobs : 1;
  int* map = ne_malloc(2 * (size_t)nb * sizeof(int));
  if (!map) return NE_ENOMEM;
  int* table = map + nb;
  int n_table, rc = chunk_blobs(batch, idx, n, map, table, &n_table);
  if (rc) {
    ne_free(map);
    return rc;
  }
  begin(out, NE_WIRE_TASK, "master");
  put_round(out, round);
  put_varint(out, task_no);
  int has_norm = batch->obs_mean && batch->obs_std;
  const ne_noise_table* noise = batch->noise_table;
  put_varint(
      out,
      (uint64_t)((batch->want_obs_stats ? 1 : 0) | (has_norm ? 2 : 0) | (noise ? 4 : 0) | (batch->want_bc ? 8 : 0)));
  if (has_norm) {
    put_f32(out, batch->obs_clip);
    for (int k = 0; k < 2; k++) {
      ne__buf_u64(out, norm_hash[k]);
      put_varint(out, (uint64_t)obs_dim);
    }
  }
  // the table is not sent: the worker builds its own from the config and checks it is this one
  if (noise) {
    ne__buf_u64(out, noise->seed);
    put_varint(out, (uint64_t)noise->size);
  }
  put_varint(out, (uint64_t)n_table);
  for (int k = 0; k < n_table; k++) {
    ne__buf_u64(out, batch->blobs[table[k]].hash);
    put_varint(out, batch->blobs[table[k]].n);
  }
  put_varint(out, (uint64_t)n);
  for (int j = 0; j < n; j++) put_candidate(out, batch, idx, parts, j, map);
  ne_free(map);
  return seal(out);
}

static void get_blobref(ne_reader* r, ne__wire_blobref* ref) {
  ref->hash = ne__reader_u64(r);
  uint64_t n = get_varint(r);
  if (n < 1 || n > NE_WIRE_MAX_BLOB) r->bad = 1;
  ref->n = (uint32_t)n;
}

// Reads one chain into the seed arena; off[j] gets its offset (pointers are fixed up at the end
// because the arena may move while it grows).
static int get_chain(ne_reader* r, ne__wire_task* t, size_t* off, int j, size_t* used) {
  ne_candidate* c = &t->cands[j];
  uint64_t ref = get_varint(r), prefix = 0;
  if (ref > (uint64_t)j) return NE_ECORRUPT;
  if (ref) {
    prefix = get_varint(r);
    const ne_candidate* o = &t->cands[ref - 1];
    if (o->kind != NE_CAND_CHAIN || prefix > o->n_seeds) return NE_ECORRUPT;
  }
  uint64_t tail = get_varint(r);
  if (r->bad || tail > ne__reader_left(r) / 8 || prefix + tail < 1 || prefix + tail > NE_WIRE_MAX_SEEDS)
    return NE_ECORRUPT;
  if (*used + prefix + tail > MAX_TOTAL_SEEDS) return NE_ECORRUPT;
  if (reserve((void**)&t->seeds, &t->cap_seeds, *used + prefix + tail, sizeof(uint64_t))) return NE_ENOMEM;
  if (ref) memcpy(t->seeds + *used, t->seeds + off[ref - 1], prefix * sizeof(uint64_t));
  ne__reader_u64s(r, t->seeds + *used + prefix, (size_t)tail);
  off[j] = *used;
  c->n_seeds = (uint32_t)(prefix + tail);
  *used += prefix + tail;
  c->sigma = get_f32(r);
  return isfinite(c->sigma) ? 0 : NE_ECORRUPT;
}

static int get_blob_index(ne_reader* r, const ne__wire_task* t, uint32_t* out) {
  uint64_t b = get_varint(r);
  if (b >= (uint64_t)t->n_blobs) return NE_ECORRUPT;
  *out = (uint32_t)b;
  return 0;
}

static int get_candidate(ne_reader* r, ne__wire_task* t, size_t* off, int j, size_t* used) {
  ne_candidate* c = &t->cands[j];
  memset(c, 0, sizeof *c);
  uint8_t kind = get_u8(r);
  uint64_t index = get_varint(r), episodes = get_varint(r), part = get_varint(r);
  c->episode_seed = ne__reader_u64(r);
  if (r->bad || index > UINT32_MAX || episodes < 1 || episodes > UINT32_MAX || part > UINT32_MAX ||
      (part && (part - 1 + episodes > UINT32_MAX || t->want_bc)))
    return NE_ECORRUPT;
  c->index = (uint32_t)index;
  c->episodes = (uint32_t)episodes;
  t->parts[j] = part ? (ne__wire_part){(uint32_t)(part - 1), (uint32_t)episodes} : (ne__wire_part){0, 0};
  off[j] = 0;
  switch (kind) {
    case NE_CAND_CHAIN: c->kind = NE_CAND_CHAIN; return get_chain(r, t, off, j, used);
    case NE_CAND_PERTURB:
      c->kind = NE_CAND_PERTURB;
      if (get_blob_index(r, t, &c->blob)) return NE_ECORRUPT;
      c->noise_seed = ne__reader_u64(r);
      c->coef = get_f32(r);
      return isfinite(c->coef) ? 0 : NE_ECORRUPT;
    case NE_CAND_VECTOR: c->kind = NE_CAND_VECTOR; return get_blob_index(r, t, &c->blob);
    default: return NE_ECORRUPT;
  }
}

// Reads the task header fields after the sender (round .. blob table).
static int get_task_header(ne_reader* r, ne__wire_task* t) {
  get_round(r, &t->round);
  uint64_t task_no = get_varint(r), flags = get_varint(r);
  if (task_no > UINT32_MAX || flags > 15) return NE_ECORRUPT;
  t->task_no = (uint32_t)task_no;
  t->want_obs_stats = (int)(flags & 1);
  t->want_bc = (int)(flags >> 3 & 1);
  t->has_norm = (int)(flags >> 1 & 1);
  t->obs_clip = 0;
  if (t->has_norm) {
    t->obs_clip = get_f32(r);
    get_blobref(r, &t->norm[0]);
    get_blobref(r, &t->norm[1]);
    if (!isfinite(t->obs_clip) || t->obs_clip < 0 || t->norm[0].n != t->norm[1].n) return NE_ECORRUPT;
  }
  t->table_seed = t->table_size = 0;
  if (flags & 4) {
    t->table_seed = ne__reader_u64(r);
    t->table_size = get_varint(r);
    if (t->table_size == 0) return NE_ECORRUPT;
  }
  uint64_t nb = get_varint(r);
  if (r->bad || nb > NE_WIRE_MAX_CANDS || nb > ne__reader_left(r) / 9) return NE_ECORRUPT;
  if (reserve_int((void**)&t->blobs, &t->cap_blobs, nb ? nb : 1, sizeof *t->blobs)) return NE_ENOMEM;
  t->n_blobs = (int)nb;
  for (int k = 0; k < t->n_blobs; k++) get_blobref(r, &t->blobs[k]);
  return r->bad ? NE_ECORRUPT : 0;
}

static int get_task_body(ne_reader* r, ne__wire_task* t) {
  int rc = get_task_header(r, t);
  if (rc) return rc;
  // every candidate takes at least 12 bytes, so a count larger than that is a lie
  uint64_t n = get_varint(r);
  if (r->bad || n < 1 || n > NE_WIRE_MAX_CANDS || n > ne__reader_left(r) / 12) return NE_ECORRUPT;
  int cap = t->cap_cands;
  if (reserve_int((void**)&t->cands, &t->cap_cands, n, sizeof *t->cands)) return NE_ENOMEM;
  if (reserve_int((void**)&t->parts, &cap, n, sizeof *t->parts)) return NE_ENOMEM;
  if (cap != t->cap_cands) return NE_ENOMEM;  // both grow by the same rule from the same capacity
  size_t* off = ne_malloc(n * sizeof *off);
  if (!off) return NE_ENOMEM;
  size_t used = 0;
  t->n = (int)n;
  for (int j = 0; j < t->n && !rc; j++) rc = get_candidate(r, t, off, j, &used);
  for (int j = 0; j < t->n && !rc; j++)
    t->cands[j].seeds = t->cands[j].kind == NE_CAND_CHAIN ? t->seeds + off[j] : NULL;
  ne_free(off);
  return rc ? rc : (r->bad ? NE_ECORRUPT : 0);
}

int ne__wire_decode_task(ne__wire_task* t, const void* data, size_t len, char* errstr) {
  ne_reader r;
  t->n = 0;
  int rc = open_message(&r, data, len, NE_WIRE_TASK, t->sender, sizeof t->sender, errstr);
  if (rc) return rc;
  rc = get_task_body(&r, t);
  if (rc == NE_ENOMEM) return ne__set_error(errstr, rc, "out of memory decoding a %zu-byte task", len);
  if (rc) {
    t->n = 0;
    return ne__set_error(errstr, NE_ECORRUPT, "task message from '%s': malformed candidate list (%zu bytes)", t->sender,
                         len);
  }
  rc = close_message(&r, "task", t->sender, errstr);
  if (rc) t->n = 0;
  return rc;
}

// ---- results ------------------------------------------------------------------------------

void ne__wire_results_init(ne__wire_results* r) { memset(r, 0, sizeof *r); }

void ne__wire_results_free(ne__wire_results* r) {
  if (!r) return;
  ne_free(r->index);
  ne_free(r->results);
  ne_free(r->parts);
  ne_free(r->ret_off);
  ne_free(r->returns);
  ne_free(r->obs);
  ne_free(r->bc);
  ne_free(r->skipped);
  ne__wire_results_init(r);
}

static void put_result(ne_buf* b, uint32_t index, const ne_result* res, const ne__wire_part* part,
                       const double* returns, int obs_dim, int bc_dim, int has_pre) {
  put_varint(b, index);
  put_varint(b, zigzag(res->status));
  ne__buf_f64(b, res->fitness);
  ne__buf_f64(b, res->return_std);
  put_varint(b, res->episodes);
  put_varint(b, res->steps);
  if (has_pre) ne__buf_f64(b, res->pre_fitness);  // meta-learning: the return before adaptation
  // a part: its first episode (+ 1; 0: the whole candidate) and its per-episode returns
  put_varint(b, part ? (uint64_t)part->first + 1 : 0);
  for (uint32_t e = 0; part && e < part->n; e++) ne__buf_f64(b, returns[e]);
  if (obs_dim > 0) {
    ne__buf_f64(b, res->obs_count);
    for (int i = 0; i < obs_dim; i++) ne__buf_f64(b, res->obs_sum[i]);
    for (int i = 0; i < obs_dim; i++) ne__buf_f64(b, res->obs_sumsq[i]);
  }
  if (bc_dim > 0) ne__buf_f32s(b, res->bc, (size_t)bc_dim);
}

// The failure part that ends every result message: a flag, then (failures only) the env's message,
// the task entry, the failed candidate and the candidates not attempted.
static void put_failure(ne_buf* b, const ne__wire_result_hdr* hdr) {
  put_u8(b, hdr->error[0] ? 1 : 0);
  if (!hdr->error[0]) return;
  put_text(b, hdr->error, NE_WIRE_MAX_ERROR);
  put_text(b, hdr->entry, NE_WIRE_MAX_ENTRY);
  put_varint(b, hdr->failed_index);
  put_varint(b, (uint64_t)hdr->n_skipped);
  for (int i = 0; i < hdr->n_skipped; i++) put_varint(b, hdr->skipped[i]);
}

int ne__wire_encode_results(ne_buf* out, const ne__wire_result_hdr* hdr, const uint32_t* idx, const ne_result* results,
                            int n) {
  return ne__wire_encode_results_parts(out, hdr, idx, results, NULL, NULL, n);
}

int ne__wire_encode_results_parts(ne_buf* out, const ne__wire_result_hdr* hdr, const uint32_t* idx,
                                  const ne_result* results, const ne__wire_part* parts, const double* returns, int n) {
  int min_n = hdr->error[0] ? 0 : 1;
  if (n < min_n || n > NE_WIRE_MAX_CANDS || hdr->obs_dim < 0 || hdr->obs_dim > MAX_OBS_DIM) return NE_EINVAL;
  if (hdr->bc_dim < 0 || hdr->bc_dim > MAX_BC_DIM) return NE_EINVAL;
  // parts: no observation sums or behaviours (they could not be added up bit-identically), one
  // return per episode
  for (int i = 0; parts && i < n; i++)
    if (parts[i].n > 0 && (hdr->obs_dim > 0 || hdr->bc_dim > 0 || !returns || results[i].episodes != parts[i].n))
      return NE_EINVAL;
  if (hdr->error[0] && (hdr->n_skipped < 0 || hdr->n_skipped > NE_WIRE_MAX_CANDS)) return NE_EINVAL;
  for (int i = 0; hdr->obs_dim > 0 && i < n; i++)
    if (!results[i].obs_sum || !results[i].obs_sumsq) return NE_EINVAL;
  for (int i = 0; hdr->bc_dim > 0 && i < n; i++)
    if (!results[i].bc) return NE_EINVAL;
  begin(out, NE_WIRE_RESULT, hdr->worker);
  put_round(out, &hdr->round);
  put_varint(out, hdr->task_no);
  ne__buf_u64(out, hdr->fingerprint);
  put_varint(out, (uint64_t)hdr->obs_dim);
  put_varint(out, (uint64_t)hdr->bc_dim);
  put_varint(out, hdr->eval_us);
  // meta-learning: a flag, then every result carries its pre-adaptation return
  int has_pre = 0;
  for (int i = 0; i < n; i++) has_pre |= !isnan(results[i].pre_fitness);
  put_u8(out, (uint8_t)has_pre);
  put_varint(out, (uint64_t)n);
  for (int i = 0; i < n; i++) {
    int part = parts && parts[i].n > 0;
    put_result(out, idx[i], &results[i], part ? &parts[i] : NULL, returns, hdr->obs_dim, hdr->bc_dim, has_pre);
    if (part) returns += parts[i].n;
  }
  put_failure(out, hdr);
  return seal(out);
}

// One result; a successful evaluation must carry finite figures. *used: returns decoded so far.
static int get_result(ne_reader* r, ne__wire_results* m, int i, size_t* used, int has_pre) {
  ne_result* res = &m->results[i];
  uint64_t index = get_varint(r);
  int64_t status = unzigzag(get_varint(r));
  res->fitness = ne__reader_f64(r);
  res->return_std = ne__reader_f64(r);
  uint64_t episodes = get_varint(r);
  res->steps = get_varint(r);
  res->pre_fitness = has_pre ? ne__reader_f64(r) : NAN;
  if (r->bad || index > UINT32_MAX || status > 0 || status < -1000 || episodes > UINT32_MAX) return NE_ECORRUPT;
  m->index[i] = (uint32_t)index;
  res->status = (int)status;
  res->episodes = (uint32_t)episodes;
  if (status == 0 && (!isfinite(res->fitness) || !isfinite(res->return_std) || res->return_std < 0 || episodes < 1))
    return NE_ECORRUPT;
  if (status == 0 && has_pre && !isfinite(res->pre_fitness)) return NE_ECORRUPT;
  // a part: its first episode and one return per episode (counted against the bytes left first)
  uint64_t part = get_varint(r);
  m->parts[i] = (ne__wire_part){0, 0};
  m->ret_off[i] = *used;
  if (part) {
    if (r->bad || part > UINT32_MAX || episodes < 1 || part - 1 + episodes > UINT32_MAX || m->hdr.obs_dim > 0 ||
        m->hdr.bc_dim > 0 || episodes > ne__reader_left(r) / 8)
      return NE_ECORRUPT;
    if (reserve((void**)&m->returns, &m->cap_returns, *used + episodes, sizeof(double))) return NE_ENOMEM;
    m->parts[i] = (ne__wire_part){(uint32_t)(part - 1), (uint32_t)episodes};
    for (uint64_t e = 0; e < episodes; e++) m->returns[*used + e] = ne__reader_f64(r);
    *used += episodes;
  }
  int d = m->hdr.obs_dim, bd = m->hdr.bc_dim;
  res->obs_sum = res->obs_sumsq = NULL;
  res->obs_count = 0;
  res->bc = NULL;
  if (d > 0) {
    res->obs_sum = m->obs + (size_t)i * 2 * (size_t)d;
    res->obs_sumsq = res->obs_sum + d;
    res->obs_count = ne__reader_f64(r);
    for (int k = 0; k < 2 * d; k++) res->obs_sum[k] = ne__reader_f64(r);
  }
  if (bd > 0) {
    // a successful evaluation's behaviour is finite: novelty distances are computed from it
    res->bc = m->bc + (size_t)i * (size_t)bd;
    ne__reader_f32s(r, res->bc, (size_t)bd);
    for (int k = 0; status == 0 && k < bd; k++)
      if (!isfinite(res->bc[k])) return NE_ECORRUPT;
  }
  return r->bad ? NE_ECORRUPT : 0;
}

static int get_failure(ne_reader* r, ne__wire_results* m) {
  ne__wire_result_hdr* h = &m->hdr;
  h->error[0] = h->entry[0] = '\0';
  h->n_skipped = 0;
  h->skipped = m->skipped;
  uint8_t failed = get_u8(r);
  if (r->bad || failed > 1) return NE_ECORRUPT;
  if (!failed) return m->n >= 1 ? 0 : NE_ECORRUPT;
  get_text(r, h->error, NE_WIRE_MAX_ERROR);
  get_text(r, h->entry, NE_WIRE_MAX_ENTRY);
  uint64_t index = get_varint(r), n = get_varint(r);
  // a failure names its message; each skipped index takes at least one byte
  if (r->bad || !h->error[0] || index > UINT32_MAX || n > NE_WIRE_MAX_CANDS || n > ne__reader_left(r))
    return NE_ECORRUPT;
  if (reserve((void**)&m->skipped, &m->cap_skipped, n ? n : 1, sizeof *m->skipped)) return NE_ENOMEM;
  h->skipped = m->skipped;
  h->failed_index = (uint32_t)index;
  for (uint64_t i = 0; i < n; i++) {
    uint64_t k = get_varint(r);
    if (k > UINT32_MAX) r->bad = 1;
    m->skipped[i] = (uint32_t)k;
  }
  h->n_skipped = (int)n;
  return r->bad ? NE_ECORRUPT : 0;
}

static int get_results_body(ne_reader* r, ne__wire_results* m) {
  get_round(r, &m->hdr.round);
  uint64_t task_no = get_varint(r);
  m->hdr.fingerprint = ne__reader_u64(r);
  uint64_t d = get_varint(r), bd = get_varint(r);
  m->hdr.eval_us = get_varint(r);
  uint8_t has_pre = get_u8(r);
  uint64_t n = get_varint(r);
  if (r->bad || task_no > UINT32_MAX || d > MAX_OBS_DIM || bd > MAX_BC_DIM || n > NE_WIRE_MAX_CANDS || has_pre > 1)
    return NE_ECORRUPT;
  // each result takes at least 21 bytes (+ 8 with pre-adaptation returns, + 8 * (1 + 2d) with sums,
  // + 4 bd with behaviours): check before allocating
  if (n > ne__reader_left(r) / (21 + 8 * (has_pre > 0) + 8 * (1 + 2 * d) * (d > 0) + 4 * bd)) return NE_ECORRUPT;
  m->hdr.task_no = (uint32_t)task_no;
  m->hdr.obs_dim = (int)d;
  m->hdr.bc_dim = (int)bd;
  size_t cap = (size_t)m->cap;
  if (reserve((void**)&m->index, &cap, n, sizeof *m->index)) return NE_ENOMEM;
  cap = (size_t)m->cap;
  if (reserve((void**)&m->results, &cap, n, sizeof *m->results)) return NE_ENOMEM;
  cap = (size_t)m->cap;
  if (reserve((void**)&m->parts, &cap, n, sizeof *m->parts)) return NE_ENOMEM;
  cap = (size_t)m->cap;
  if (reserve((void**)&m->ret_off, &cap, n, sizeof *m->ret_off)) return NE_ENOMEM;
  m->cap = (int)cap;
  if (d > 0 && reserve((void**)&m->obs, &m->obs_cap, n * 2 * d, sizeof(double))) return NE_ENOMEM;
  if (bd > 0 && reserve((void**)&m->bc, &m->bc_cap, n * bd, sizeof(float))) return NE_ENOMEM;
  m->n = (int)n;
  size_t used = 0;
  for (int i = 0; i < m->n; i++) {
    int rc = get_result(r, m, i, &used, has_pre);
    if (rc) return rc;
  }
  return get_failure(r, m);
}

int ne__wire_decode_results(ne__wire_results* m, const void* data, size_t len, char* errstr) {
  ne_reader r;
  m->n = 0;
  m->hdr.error[0] = m->hdr.entry[0] = '\0';
  m->hdr.n_skipped = 0;
  m->hdr.skipped = m->skipped;
  int rc = open_message(&r, data, len, NE_WIRE_RESULT, m->hdr.worker, sizeof m->hdr.worker, errstr);
  if (rc) return rc;
  rc = get_results_body(&r, m);
  if (rc == NE_ENOMEM) return ne__set_error(errstr, rc, "out of memory decoding a %zu-byte result", len);
  if (rc) {
    m->n = 0;
    return ne__set_error(errstr, NE_ECORRUPT, "result message from '%s': malformed result list (%zu bytes)",
                         m->hdr.worker, len);
  }
  rc = close_message(&r, "result", m->hdr.worker, errstr);
  if (rc) m->n = 0;
  return rc;
}

// ---- blobs --------------------------------------------------------------------------------

int ne__wire_encode_blob(ne_buf* out, uint64_t hash, const float* data, size_t n) {
  if (n < 1 || n > NE_WIRE_MAX_BLOB) return NE_EINVAL;
  begin(out, NE_WIRE_BLOB, "master");
  ne__buf_u64(out, hash);
  put_varint(out, n);
  ne__buf_f32s(out, data, n);
  return seal(out);
}

int ne__wire_decode_blob(const void* data, size_t len, uint64_t hash, size_t n, float* out, char* errstr) {
  ne_reader r;
  char sender[NE_WIRE_MAX_NAME + 1];
  int rc = open_message(&r, data, len, NE_WIRE_BLOB, sender, sizeof sender, errstr);
  if (rc) return rc;
  uint64_t h = ne__reader_u64(&r), m = get_varint(&r);
  if (r.bad || h != hash || m != n || n > ne__reader_left(&r) / 4)
    return ne__set_error(errstr, NE_ECORRUPT, "blob %016llx: expected %zu floats, message holds %llu under %016llx",
                         (unsigned long long)hash, n, (unsigned long long)m, (unsigned long long)h);
  ne__reader_f32s(&r, out, n);
  return close_message(&r, "blob", sender, errstr);
}

// ---- shared contract ----------------------------------------------------------------------

static uint64_t mix_f32(uint64_t h, float v) {
  uint32_t bits;
  memcpy(&bits, &v, 4);
  return ne_hash2(h, bits);
}

static uint64_t mix_f64(uint64_t h, double v) {
  uint64_t bits;
  memcpy(&bits, &v, 8);
  return ne_hash2(h, bits);
}

static uint64_t mix_str(uint64_t h, const char* s) {
  for (; *s; s++) h = ne_hash2(h, (uint8_t)*s);
  return ne_hash2(h, 0x5eed);
}

// f at a fixed point of a black-box function.
static uint64_t probe_blackbox(uint64_t h, const ne_env_spec* env, size_t n) {
  float* x = ne_malloc((n ? n : 1) * sizeof(float));
  if (!x) return ne_hash2(h, 0xdead);
  for (size_t i = 0; i < n; i++) x[i] = 0.25f * (float)(i % 7) - 0.5f;
  h = mix_f64(h, env->evaluate(env, x, n));
  ne_free(x);
  return h;
}

// A few steps of the env from a fixed seed with a fixed action: different dynamics, different bits.
// Envs that run outside the process (env->status: the gym bridge) are not probed: their dynamics
// are not this build's, and probing would start an env server on the master.
static uint64_t probe_env(uint64_t h, const ne_env_spec* env, const ne_policy_spec* policy) {
  if (env->evaluate) return probe_blackbox(h, env, policy->n_params);
  if (env->status) return ne_hash2(h, 0x676d);
  ne_env_state* st = ne_env_state_create(env);
  if (!st) return ne_hash2(h, 0xdead);
  float act[NE_ENV_MAX_ACT] = {0};
  if (!env->discrete)
    for (int i = 0; i < env->act_dim && i < NE_ENV_MAX_ACT; i++) act[i] = 0.5f * (env->act_low[i] + env->act_high[i]);
  ne_env_reset(env, st, 12345);
  ne_step_out so = {0};
  for (int t = 0; t < 8 && !so.terminated && !so.truncated; t++) {
    for (int i = 0; i < env->obs_dim && i < 64; i++) h = mix_f32(h, st->obs[i]);
    if (ne_env_step(env, st, act, &so) != 0) break;
    h = mix_f64(h, so.reward);
  }
  ne_env_state_destroy(st);
  return h;
}

// The first parameters of a fixed initial genome and a few noise values.
static uint64_t probe_params(uint64_t h, const ne_policy_spec* policy) {
  float noise[8];
  ne_noise_fill(987654321ull, 3, 8, noise);
  for (int i = 0; i < 8; i++) h = mix_f32(h, noise[i]);
  float* p = ne_malloc(policy->n_params * sizeof(float));
  if (!p) return ne_hash2(h, 0xbeef);
  ne_policy_init_params(policy, 42, p);
  for (size_t i = 0; i < policy->n_params && i < 64; i++) h = mix_f32(h, p[i]);
  ne_free(p);
  return h;
}

uint64_t ne__wire_fingerprint(const ne_env_spec* env, const ne_policy_spec* policy, int synthetic) {
  char spec[256];
  ne_policy_spec_format(policy, spec, sizeof spec);
  uint64_t h = mix_str(ne_hash2(0x66707269ull, NE_WIRE_VERSION), NE_VERSION_STRING);
  h = mix_str(h, env->id);
  h = ne_hash2(ne_hash2(h, (uint64_t)env->obs_dim), (uint64_t)env->discrete << 32 | (uint32_t)env->n_actions);
  h = ne_hash2(ne_hash2(h, (uint64_t)env->act_dim), (uint64_t)env->max_episode_steps);
  // the behaviour characterization (env.behaviour): another one would describe other episodes
  h = ne_hash2(ne_hash2(h, (uint64_t)env->bc_dim), (uint64_t)env->bc_native << 8 | (uint32_t)env->bc_n_select);
  for (int i = 0; i < env->bc_n_select; i++) h = ne_hash2(h, (uint64_t)env->bc_select[i]);
  h = ne_hash2(mix_str(h, spec), policy->n_params);
  h = probe_params(probe_env(h, env, policy), policy);
  h = ne_hash2(h, synthetic ? 0x73796eull : 0);
  const char* salt = getenv("NEUROEVO_TEST_FINGERPRINT_SALT");
  if (salt && *salt) h = mix_str(h, salt);
  return h;
}

void ne__wire_id_format(uint64_t id, char out[17]) { snprintf(out, 17, "%016llx", (unsigned long long)id); }

int ne__wire_id_parse(const char* text, uint64_t* id) {
  if (!text || strlen(text) != 16) return NE_EINVAL;
  uint64_t v = 0;
  for (int i = 0; i < 16; i++) {
    char c = text[i];
    int d = c >= '0' && c <= '9' ? c - '0' : (c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1);
    if (d < 0) return NE_EINVAL;
    v = v << 4 | (uint64_t)d;
  }
  *id = v;
  return 0;
}
