// SPDX-License-Identifier: MIT
// The partial-generation log (see partial.h). Results are buffered in memory and written by
// whichever evaluating thread finds the buffer a second old, so a run of short episodes pays a
// memcpy per candidate, not a system call; the file is fsynced every 30 s and at a stop, when it got
// records since the last fsync. A killed process loses at most the last second of results (the
// page cache keeps what was written); a lost machine at most the last 30 s.
#include "run/partial.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/crc32c.h"
#include "core/util.h"
#include "neuroevo/alloc.h"
#include "neuroevo/error.h"

static const char MAGIC[8] = {'N', 'E', 'P', 'A', 'R', 'T', 'L', '\n'};
#define VERSION 1u
#define HEADER_BYTES 16
#define FRAME_BYTES 8
#define REC_ROUND 1
#define REC_RESULT 2

// A ROUND record read from the file at open.
typedef struct round_rec {
  uint32_t round;
  uint64_t digest;
  uint32_t n, obs_dim, bc_dim;
  size_t offset;       // of its frame in the file (and in `data`)
  int results_before;  // RESULT records ahead of it
} round_rec;

struct ne__partial {
  char path[4096];
  int fd;
  uint32_t base;
  int obs_dim, bc_dim;  // the env's
  // what the file held at open, kept for ne__partial_round (the file's bytes [0, data_len))
  uint8_t* data;
  size_t data_len;
  round_rec* rounds;  // (n_rounds) its ROUND records in file order
  int n_rounds;
  // appending
  pthread_mutex_t mu;  // guards everything below
  ne_buf pending;      // framed records not yet written
  ne_buf payload;      // scratch for one record's payload
  size_t file_len;     // bytes in the file
  int unsynced;        // records written since the last fsync (a header alone holds nothing to keep)
  double flushed_at, synced_at;
  double flush_s;  // least seconds between two writes (1; NEUROEVO_PARTIAL_FLUSH_S, for tests)
  double sync_s;   // least seconds between two fsyncs (30)
  // the rounds in progress (a round and the next generation's candidates asked ahead) and the
  // per-result arrays of each
  struct open_round {
    uint32_t round, stats_dim, bc_dim;
  } open[NE__PARTIAL_OPEN];
  int n_open;
  int results;        // results the log holds for this generation
  int io_errno;       // first failure of a write, fsync or truncate (0: none)
  const char* io_op;  // which of them failed
};

// The scratch payload, emptied, with a record's type and round written (both kinds start so).
static ne_buf* begin_record(ne__partial* log, uint8_t type, uint32_t round) {
  ne_buf* p = &log->payload;
  p->len = 0;
  ne__buf_bytes(p, &type, 1);
  ne__buf_u32(p, round);
  return p;
}

static void frame(ne_buf* out, const ne_buf* payload) {
  ne__buf_u32(out, (uint32_t)payload->len);
  ne__buf_u32(out, ne__crc32c(0, payload->data, payload->len));
  ne__buf_bytes(out, payload->data, payload->len);
}

// Keeps the first I/O failure: the run stops with it at the next generation boundary.
static void io_failed(ne__partial* log, const char* op, int e) {
  if (log->io_errno) return;
  log->io_errno = e ? e : EIO;
  log->io_op = op;
}

static int io_error(const ne__partial* log, char* errstr) {
  return ne__set_error(errstr, NE_EIO, "%s: %s failed: %s", log->path, log->io_op, strerror(log->io_errno));
}

static void write_all(ne__partial* log, const uint8_t* p, size_t n) {
  while (n > 0 && !log->io_errno) {
    ssize_t w = write(log->fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      io_failed(log, "write", w < 0 ? errno : EIO);
      return;
    }
    p += w;
    n -= (size_t)w;
    log->file_len += (size_t)w;
    log->unsynced = 1;
  }
}

// fsync when records were written since the last one. Called with mu held.
static void sync_locked(ne__partial* log, double now) {
  if (log->unsynced && fsync(log->fd) != 0) io_failed(log, "fsync", errno);
  log->unsynced = 0;
  log->synced_at = now;
}

// Called with mu held.
static void flush_locked(ne__partial* log, double now) {
  if (log->pending.oom) io_failed(log, "buffering", ENOMEM);
  write_all(log, log->pending.data, log->pending.len);
  log->pending.len = 0;
  log->flushed_at = now;
}

// Empties the file and writes the header for `base`. Called with mu held (or before other threads).
static void start_over(ne__partial* log, uint32_t base) {
  log->pending.len = 0;
  log->results = 0;
  // a file that is this header alone stays: short generations end before their results are
  // written, and truncating and rewriting the same 16 bytes at each generation was a journaled
  // inode change (ext4) every generation (a file holds log->base's header whenever it has one)
  if (log->file_len == HEADER_BYTES && log->base == base && !log->io_errno) return;
  log->base = base;
  if (ftruncate(log->fd, 0) != 0 || lseek(log->fd, 0, SEEK_SET) != 0) io_failed(log, "truncate", errno);
  log->file_len = 0;
  ne_buf h;
  ne__buf_init(&h);
  ne__buf_bytes(&h, MAGIC, 8);
  ne__buf_u32(&h, VERSION);
  ne__buf_u32(&h, base);
  write_all(log, h.data, h.len);
  ne__buf_free(&h);
  log->unsynced = 0;  // the records it held are void, and the header alone holds nothing to keep
}

static void drop_loaded(ne__partial* log) {
  ne_free(log->data);
  ne_free(log->rounds);
  log->data = NULL;
  log->rounds = NULL;
  log->data_len = 0;
  log->n_rounds = 0;
}

static size_t result_bytes(uint32_t stats_dim, uint32_t bc_dim) {
  return 1 + 4 + 4 + 8 + 8 + 4 + 8 + 4 + 8 + 8 + 16 * (size_t)stats_dim + 4 * (size_t)bc_dim;
}

// The ROUND record in force for results of `round` (the last one read), or NULL.
static const round_rec* find_round(const ne__partial* log, uint32_t round) {
  for (int k = log->n_rounds - 1; k >= 0; k--)
    if (log->rounds[k].round == round) return &log->rounds[k];
  return NULL;
}

// Reads the valid records of the file's bytes; returns the length of the valid prefix.
static size_t load_records(ne__partial* log) {
  size_t pos = HEADER_BYTES, valid = HEADER_BYTES;
  int cap = 0;
  while (log->data_len - pos >= FRAME_BYTES) {
    ne_reader fr;
    ne__reader_init(&fr, log->data + pos, FRAME_BYTES);
    uint32_t len = ne__reader_u32(&fr), crc = ne__reader_u32(&fr);
    if (len == 0 || len > log->data_len - pos - FRAME_BYTES) break;
    const uint8_t* p = log->data + pos + FRAME_BYTES;
    if (ne__crc32c(0, p, len) != crc) break;
    ne_reader r;
    ne__reader_init(&r, p, len);
    uint8_t type;
    ne__reader_bytes(&r, &type, 1);
    if (type == REC_ROUND) {
      round_rec rec = {ne__reader_u32(&r), ne__reader_u64(&r), ne__reader_u32(&r),
                       ne__reader_u32(&r), ne__reader_u32(&r), pos,
                       log->results};
      if (r.bad || ne__reader_left(&r) != 0) break;
      if (log->n_rounds == cap) {
        cap = cap ? 2 * cap : 8;
        round_rec* grown = ne_realloc(log->rounds, (size_t)cap * sizeof *grown);
        if (!grown) break;
        log->rounds = grown;
      }
      log->rounds[log->n_rounds++] = rec;
    } else if (type == REC_RESULT) {
      const round_rec* rec = find_round(log, ne__reader_u32(&r));
      if (!rec || len != result_bytes(rec->obs_dim, rec->bc_dim)) break;
      log->results++;
    } else {
      break;
    }
    pos += FRAME_BYTES + len;
    valid = pos;
  }
  return valid;
}

int ne__partial_open(const char* dir, uint32_t base, int obs_dim, int bc_dim, ne__partial** out, char* errstr) {
  *out = NULL;
  int rc = ne__mkdir_p(dir, errstr);
  if (rc) return rc;
  ne__partial* log = ne_calloc(1, sizeof *log);
  if (!log) return ne__set_error(errstr, NE_ENOMEM, "out of memory");
  snprintf(log->path, sizeof log->path, "%s/partial.log", dir);
  log->obs_dim = obs_dim;
  log->bc_dim = bc_dim;
  pthread_mutex_init(&log->mu, NULL);
  ne__buf_init(&log->pending);
  ne__buf_init(&log->payload);
  log->flushed_at = log->synced_at = ne__now();
  const char* flush = getenv("NEUROEVO_PARTIAL_FLUSH_S");
  log->flush_s = flush && *flush ? atof(flush) : 1.0;
  log->sync_s = 30.0;
  log->fd = open(log->path, O_WRONLY | O_CREAT, 0644);
  if (log->fd < 0) {
    rc = ne__set_error(errstr, NE_EIO, "%s: cannot open: %s", log->path, strerror(errno));
    ne__partial_close(log);
    return rc;
  }
  // the records of a log that continues this very checkpoint; anything else starts over
  char* data = NULL;
  size_t len = 0, valid = 0;
  if (ne__read_file(log->path, &data, &len, NULL) == 0 && len >= HEADER_BYTES && memcmp(data, MAGIC, 8) == 0) {
    ne_reader r;
    ne__reader_init(&r, data + 8, 8);
    uint32_t version = ne__reader_u32(&r), file_base = ne__reader_u32(&r);
    if (version == VERSION && file_base == base) {
      log->data = (uint8_t*)data;
      log->data_len = len;
      data = NULL;
      valid = load_records(log);
    }
  }
  ne_free(data);
  if (valid == 0) {
    drop_loaded(log);
    start_over(log, base);
  } else {
    log->base = base;
    log->data_len = valid;  // a torn tail goes
    log->unsynced = 1;      // a killed process left its records in the page cache, maybe not on disk
    if (ftruncate(log->fd, (off_t)valid) != 0 || lseek(log->fd, 0, SEEK_END) != (off_t)valid)
      io_failed(log, "truncate", errno);
    log->file_len = valid;
  }
  if (log->io_errno) {
    rc = io_error(log, errstr);
    ne__partial_close(log);
    return rc;
  }
  *out = log;
  return 0;
}

int ne__partial_count(const ne__partial* log) { return log->results; }

static void decode_result(ne_reader* r, uint32_t stats_dim, uint32_t bc_dim, ne_result* out) {
  out->fitness = ne__reader_f64(r);
  out->return_std = ne__reader_f64(r);
  out->episodes = ne__reader_u32(r);
  out->steps = ne__reader_u64(r);
  out->status = (int)(int32_t)ne__reader_u32(r);
  out->obs_count = ne__reader_f64(r);
  out->pre_fitness = ne__reader_f64(r);
  if (stats_dim > 0 && out->obs_sum && out->obs_sumsq) {
    ne__reader_f64s(r, out->obs_sum, stats_dim);
    ne__reader_f64s(r, out->obs_sumsq, stats_dim);
  } else {
    r->pos += 16 * (size_t)stats_dim;
  }
  if (bc_dim > 0 && out->bc) ne__reader_f32s(r, out->bc, bc_dim);
}

// Fills results from the loaded RESULT records of rec's round (up to the next ROUND record of that
// round; records of another round in progress at the same time may come in between).
static int restore_round(const ne__partial* log, const round_rec* rec, ne_result* results, uint8_t* have) {
  int count = 0;
  size_t pos = rec->offset;
  ne_reader fr;
  ne__reader_init(&fr, log->data + pos, FRAME_BYTES);
  pos += FRAME_BYTES + ne__reader_u32(&fr);  // past the ROUND record itself
  while (pos < log->data_len) {
    ne__reader_init(&fr, log->data + pos, FRAME_BYTES);
    uint32_t len = ne__reader_u32(&fr);
    ne_reader r;
    ne__reader_init(&r, log->data + pos + FRAME_BYTES, len);
    uint8_t type;
    ne__reader_bytes(&r, &type, 1);
    uint32_t round = ne__reader_u32(&r);
    if (type == REC_ROUND && round == rec->round) break;
    uint32_t index = ne__reader_u32(&r);
    if (type == REC_RESULT && round == rec->round && index < rec->n) {
      decode_result(&r, rec->obs_dim, rec->bc_dim, &results[index]);
      count += !have[index];
      have[index] = 1;
    }
    pos += FRAME_BYTES + len;
  }
  return count;
}

// The open round `round`'s entry (NULL: not open).
static struct open_round* open_round(ne__partial* log, uint32_t round) {
  for (int k = 0; k < log->n_open; k++)
    if (log->open[k].round == round) return &log->open[k];
  return NULL;
}

void ne__partial_begin(ne__partial* log) {
  pthread_mutex_lock(&log->mu);
  log->n_open = 0;
  pthread_mutex_unlock(&log->mu);
}

int ne__partial_round(ne__partial* log, const ne_batch* batch, uint32_t round, uint64_t digest, ne_result* results,
                      uint8_t* have) {
  memset(have, 0, (size_t)batch->n);
  uint32_t stats_dim = batch->want_obs_stats ? (uint32_t)log->obs_dim : 0;
  uint32_t bc_dim = batch->want_bc ? (uint32_t)log->bc_dim : 0;
  pthread_mutex_lock(&log->mu);
  flush_locked(log, ne__now());
  struct open_round* o = open_round(log, round);
  if (!o && log->n_open == NE__PARTIAL_OPEN) {  // the oldest open round closes
    memmove(log->open, log->open + 1, (NE__PARTIAL_OPEN - 1) * sizeof log->open[0]);
    log->n_open--;
  }
  if (!o) o = &log->open[log->n_open++];
  *o = (struct open_round){round, stats_dim, bc_dim};
  int count = 0, found = 0;
  for (int k = 0; k < log->n_rounds; k++) {
    const round_rec* rec = &log->rounds[k];
    if (rec->round != round) continue;
    if (rec->digest == digest && rec->n == (uint32_t)batch->n && rec->obs_dim == stats_dim && rec->bc_dim == bc_dim) {
      count = restore_round(log, rec, results, have);
      found = 1;
      break;
    }
    // another batch under this round number (a changed build or config): it and all after it go
    if (ftruncate(log->fd, (off_t)rec->offset) != 0 || lseek(log->fd, 0, SEEK_END) != (off_t)rec->offset)
      io_failed(log, "truncate", errno);
    log->file_len = log->data_len = rec->offset;
    log->results = rec->results_before;
    log->n_rounds = k;
    break;
  }
  if (!found) {
    ne_buf* p = begin_record(log, REC_ROUND, round);
    ne__buf_u64(p, digest);
    ne__buf_u32(p, (uint32_t)batch->n);
    ne__buf_u32(p, stats_dim);
    ne__buf_u32(p, bc_dim);
    frame(&log->pending, p);
    flush_locked(log, ne__now());
  }
  pthread_mutex_unlock(&log->mu);
  return count;
}

void ne__partial_add(ne__partial* log, uint32_t round, uint32_t index, const ne_result* res) {
  pthread_mutex_lock(&log->mu);
  const struct open_round* o = open_round(log, round);
  if (!o) {  // not begun with ne__partial_round: a caller's mistake, the result is not kept
    pthread_mutex_unlock(&log->mu);
    return;
  }
  ne_buf* p = begin_record(log, REC_RESULT, round);
  ne__buf_u32(p, index);
  ne__buf_f64(p, res->fitness);
  ne__buf_f64(p, res->return_std);
  ne__buf_u32(p, res->episodes);
  ne__buf_u64(p, res->steps);
  ne__buf_u32(p, (uint32_t)(int32_t)res->status);
  ne__buf_f64(p, res->obs_count);
  ne__buf_f64(p, res->pre_fitness);
  if (o->stats_dim > 0) {
    ne__buf_f64s(p, res->obs_sum, o->stats_dim);
    ne__buf_f64s(p, res->obs_sumsq, o->stats_dim);
  }
  if (o->bc_dim > 0) ne__buf_f32s(p, res->bc, o->bc_dim);
  frame(&log->pending, p);
  log->results++;
  double now = ne__now();
  if (now - log->flushed_at >= log->flush_s) flush_locked(log, now);
  if (now - log->synced_at >= log->sync_s) sync_locked(log, now);
  pthread_mutex_unlock(&log->mu);
}

void ne__partial_set_timing(ne__partial* log, double flush_s, double sync_s) {
  const char* flush = getenv("NEUROEVO_PARTIAL_FLUSH_S");
  pthread_mutex_lock(&log->mu);
  log->flush_s = flush && *flush ? atof(flush) : flush_s;
  log->sync_s = sync_s;
  pthread_mutex_unlock(&log->mu);
}

int ne__partial_sync(ne__partial* log, char* errstr) {
  pthread_mutex_lock(&log->mu);
  double now = ne__now();
  flush_locked(log, now);
  sync_locked(log, now);
  int rc = log->io_errno ? io_error(log, errstr) : 0;
  pthread_mutex_unlock(&log->mu);
  return rc;
}

int ne__partial_restart(ne__partial* log, uint32_t base, char* errstr) {
  pthread_mutex_lock(&log->mu);
  drop_loaded(log);
  log->n_open = 0;
  start_over(log, base);
  int rc = log->io_errno ? io_error(log, errstr) : 0;
  pthread_mutex_unlock(&log->mu);
  return rc;
}

void ne__partial_close(ne__partial* log) {
  if (!log) return;
  if (log->fd >= 0) {
    ne__partial_sync(log, NULL);
    close(log->fd);
  }
  drop_loaded(log);
  ne__buf_free(&log->pending);
  ne__buf_free(&log->payload);
  pthread_mutex_destroy(&log->mu);
  ne_free(log);
}
