// SPDX-License-Identifier: MIT
// TensorBoard event files (see tfevents.h): a hand-written encoder of the five protobuf fields
// scalars need (Event.wall_time/step/file_version/summary, Summary.value, Value.tag/simple_value),
// TFRecord framing with masked CRC-32C, and the resume rule (drop records of steps >= the resumed
// generation, continue the newest file). One record per generation: cheap, append-only, no libs.
#include "neuroevo/tfevents.h"

#include <dirent.h>  // listing a run directory's event files
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/buf.h"     // ne_buf
#include "core/crc32c.h"  // ne__crc32c
#include "core/util.h"
#include "neuroevo/alloc.h"
#include "neuroevo/error.h"

#define FILE_PREFIX "events.out.tfevents."
#define FILE_VERSION "brain.Event:2"  // what TensorFlow writes; readers check the "brain.Event:" prefix

// protobuf wire types and the field keys we write: (field number << 3) | wire type
enum { WT_VARINT = 0, WT_FIXED64 = 1, WT_BYTES = 2, WT_FIXED32 = 5 };
enum {
  KEY_EVENT_WALL_TIME = (1 << 3) | WT_FIXED64,
  KEY_EVENT_STEP = (2 << 3) | WT_VARINT,
  KEY_EVENT_FILE_VERSION = (3 << 3) | WT_BYTES,
  KEY_EVENT_SUMMARY = (5 << 3) | WT_BYTES,
  KEY_SUMMARY_VALUE = (1 << 3) | WT_BYTES,
  KEY_VALUE_TAG = (1 << 3) | WT_BYTES,
  KEY_VALUE_SIMPLE = (2 << 3) | WT_FIXED32,
};

struct ne_tfevents {
  int fd;           // the event file, opened O_APPEND
  char path[4096];  // its path
  ne_buf event;     // scratch: the encoded Event (reused every generation)
  ne_buf record;    // scratch: the framed record
};

// ---- framing -------------------------------------------------------------------------------

uint32_t ne_tfevents_masked_crc(const void* data, size_t n) {
  uint32_t crc = ne__crc32c(0, data, n);
  return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

static void put_le32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; i++) v |= (uint64_t)p[i] << (8 * i);
  return v;
}

size_t ne_tfevents_frame(const void* data, size_t n, uint8_t* out) {
  // uint64 length, masked crc of those 8 bytes, the data, masked crc of the data
  for (int i = 0; i < 8; i++) out[i] = (uint8_t)((uint64_t)n >> (8 * i));
  put_le32(out + 8, ne_tfevents_masked_crc(out, 8));
  memcpy(out + 12, data, n);
  put_le32(out + 12 + n, ne_tfevents_masked_crc(data, n));
  return n + 16;
}

// ---- protobuf encoding ---------------------------------------------------------------------

static size_t varint_len(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) v >>= 7, n++;
  return n;
}

static void put_varint(ne_buf* b, uint64_t v) {
  uint8_t tmp[10];
  size_t n = 0;
  while (v >= 0x80) tmp[n++] = (uint8_t)(v | 0x80), v >>= 7;
  tmp[n++] = (uint8_t)v;
  ne__buf_bytes(b, tmp, n);
}

static void put_key(ne_buf* b, int key) {
  uint8_t k = (uint8_t)key;  // every key we write has a field number < 16: one byte
  ne__buf_bytes(b, &k, 1);
}

// Bytes of one encoded Summary.Value {tag, simple_value}.
static size_t value_len(const char* tag) {
  size_t t = strlen(tag);
  return 1 + varint_len(t) + t + 1 + 4;
}

static void put_value(ne_buf* b, const char* tag, double v) {
  size_t t = strlen(tag);
  put_key(b, KEY_SUMMARY_VALUE);
  put_varint(b, value_len(tag));
  put_key(b, KEY_VALUE_TAG);
  put_varint(b, t);
  ne__buf_bytes(b, tag, t);
  put_key(b, KEY_VALUE_SIMPLE);
  float f = (float)v;
  uint32_t bits;
  memcpy(&bits, &f, 4);
  ne__buf_u32(b, bits);  // fixed32 is little-endian, as ne_buf writes
}

// Encodes Event {wall_time, step, summary {value...}} (NaN values left out) into b.
static void encode_scalars(ne_buf* b, int64_t step, double wall_time, const ne_tf_scalar* v, int n) {
  size_t summary = 0;
  for (int i = 0; i < n; i++)
    if (!isnan(v[i].value)) summary += 1 + varint_len(value_len(v[i].tag)) + value_len(v[i].tag);
  put_key(b, KEY_EVENT_WALL_TIME);
  ne__buf_f64(b, wall_time);
  put_key(b, KEY_EVENT_STEP);
  put_varint(b, (uint64_t)step);
  put_key(b, KEY_EVENT_SUMMARY);
  put_varint(b, summary);
  for (int i = 0; i < n; i++)
    if (!isnan(v[i].value)) put_value(b, v[i].tag, v[i].value);
}

// Encodes Event {wall_time, step 0, file_version} into b.
static void encode_file_version(ne_buf* b, double wall_time) {
  put_key(b, KEY_EVENT_WALL_TIME);
  ne__buf_f64(b, wall_time);
  put_key(b, KEY_EVENT_STEP);
  put_varint(b, 0);
  put_key(b, KEY_EVENT_FILE_VERSION);
  put_varint(b, strlen(FILE_VERSION));
  ne__buf_bytes(b, FILE_VERSION, strlen(FILE_VERSION));
}

// ---- decoding (only what the resume rule needs: step, and whether there is a summary) ------

static int get_varint(const uint8_t* p, size_t len, size_t* pos, uint64_t* v) {
  *v = 0;
  for (int shift = 0; shift < 64 && *pos < len; shift += 7) {
    uint8_t byte = p[(*pos)++];
    *v |= (uint64_t)(byte & 0x7f) << shift;
    if (!(byte & 0x80)) return 0;
  }
  return -1;
}

// Reads Event's step and whether it has field 5 (summary); -1 on malformed bytes.
static int decode_event(const uint8_t* p, size_t len, int64_t* step, int* has_summary) {
  size_t pos = 0;
  *step = 0;
  *has_summary = 0;
  while (pos < len) {
    uint64_t key, v;
    if (get_varint(p, len, &pos, &key)) return -1;
    int wt = (int)(key & 7), field = (int)(key >> 3);
    if (wt == WT_VARINT) {
      if (get_varint(p, len, &pos, &v)) return -1;
      if (field == 2) *step = (int64_t)v;
    } else if (wt == WT_FIXED64 || wt == WT_FIXED32) {
      pos += wt == WT_FIXED64 ? 8 : 4;
    } else if (wt == WT_BYTES) {
      if (get_varint(p, len, &pos, &v) || v > len - pos) return -1;
      pos += (size_t)v;
      if (field == 5) *has_summary = 1;
    } else {
      return -1;
    }
  }
  return pos == len ? 0 : -1;
}

size_t ne_tfevents_truncate(uint8_t* data, size_t len, int64_t first_step) {
  size_t in = 0, out = 0;
  while (len - in >= 16) {
    uint64_t n = get_le(data + in, 8);
    if ((uint32_t)get_le(data + in + 8, 4) != ne_tfevents_masked_crc(data + in, 8)) break;
    if (n > len - in - 16) break;  // torn: the writer died mid-record
    const uint8_t* payload = data + in + 12;
    if ((uint32_t)get_le(payload + n, 4) != ne_tfevents_masked_crc(payload, (size_t)n)) break;
    int64_t step;
    int has_summary;
    if (decode_event(payload, (size_t)n, &step, &has_summary)) break;
    // keep file_version and other bookkeeping records, and summaries of generations kept
    size_t rec = (size_t)n + 16;
    if (!has_summary || step < first_step) {
      memmove(data + out, data + in, rec);
      out += rec;
    }
    in += rec;
  }
  return out;
}

// ---- files ---------------------------------------------------------------------------------

static double unix_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

// Frames the encoded event in w->event and appends it with one write(2).
static int append_event(ne_tfevents* w, char* errstr) {
  if (w->event.oom) return ne__set_error(errstr, NE_ENOMEM, "%s: out of memory", w->path);
  size_t need = w->event.len + 16;
  if (w->record.cap < need) {
    uint8_t* grown = ne_realloc(w->record.data, need);
    if (!grown) return ne__set_error(errstr, NE_ENOMEM, "%s: out of memory", w->path);
    w->record.data = grown;
    w->record.cap = need;
  }
  size_t n = ne_tfevents_frame(w->event.data, w->event.len, w->record.data);
  ssize_t put = write(w->fd, w->record.data, n);
  if (put != (ssize_t)n)
    return ne__set_error(errstr, NE_EIO, "%s: write failed: %s", w->path, strerror(put < 0 ? errno : ENOSPC));
  return 0;
}

// 1 if name is one of our event files (not an atomic-write temp file).
static int is_event_file(const char* name) {
  return strncmp(name, FILE_PREFIX, strlen(FILE_PREFIX)) == 0 && !strstr(name, ".tmp.");
}

// Drops records of steps >= first_step from dir/name (rewritten only if something goes).
static int truncate_file(const char* dir, const char* name, int64_t first_step, char* errstr) {
  char path[4096], *text = NULL;
  size_t len = 0;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  int rc = ne__read_file(path, &text, &len, errstr);
  if (rc) return rc;
  size_t kept = ne_tfevents_truncate((uint8_t*)text, len, first_step);
  if (kept != len) rc = ne__write_file_atomic(path, text, kept, errstr);
  ne_free(text);
  return rc;
}

// Applies the resume rule to every event file of dir; newest gets the newest file's name ("" if none).
static int truncate_all(const char* dir, int64_t first_step, char* newest, size_t size, char* errstr) {
  newest[0] = '\0';
  DIR* d = opendir(dir);
  if (!d) return ne__set_error(errstr, NE_EIO, "%s: %s", dir, strerror(errno));
  int rc = 0;
  for (struct dirent* e; !rc && (e = readdir(d)) != NULL;) {
    if (!is_event_file(e->d_name)) continue;
    rc = truncate_file(dir, e->d_name, first_step, errstr);
    // names carry a zero-padded Unix time: the greatest is the newest
    if (!rc && strcmp(e->d_name, newest) > 0) snprintf(newest, size, "%s", e->d_name);
  }
  closedir(d);
  return rc;
}

// Creates dir/events.out.tfevents.<time>.<host> and writes its file_version record.
static int create_file(ne_tfevents* w, const char* dir, char* errstr) {
  char host[256] = "localhost";
  gethostname(host, sizeof host - 1);
  host[sizeof host - 1] = '\0';
  for (char* c = host; *c; c++)
    if (*c == '/') *c = '_';
  double now = unix_now();
  snprintf(w->path, sizeof w->path, "%s/" FILE_PREFIX "%010lld.%s", dir, (long long)now, host);
  w->fd = open(w->path, O_WRONLY | O_APPEND | O_CREAT, 0644);
  if (w->fd < 0) return ne__set_error(errstr, NE_EIO, "%s: cannot create: %s", w->path, strerror(errno));
  encode_file_version(&w->event, now);
  return append_event(w, errstr);
}

int ne_tfevents_open(const char* dir, int64_t first_step, ne_tfevents** out, char* errstr) {
  *out = NULL;
  ne_tfevents* w = ne_calloc(1, sizeof *w);
  if (!w) return ne__set_error(errstr, NE_ENOMEM, "out of memory");
  w->fd = -1;
  ne__buf_init(&w->event);
  ne__buf_init(&w->record);
  char newest[1024];
  int rc = truncate_all(dir, first_step, newest, sizeof newest, errstr);
  if (!rc && newest[0]) {
    // continue the newest file: TensorBoard reads a directory's files in name order
    snprintf(w->path, sizeof w->path, "%s/%s", dir, newest);
    w->fd = open(w->path, O_WRONLY | O_APPEND);
    if (w->fd < 0) rc = ne__set_error(errstr, NE_EIO, "%s: %s", w->path, strerror(errno));
  } else if (!rc) {
    rc = create_file(w, dir, errstr);
  }
  if (rc) {
    ne_tfevents_close(w);
    return rc;
  }
  *out = w;
  return 0;
}

int ne_tfevents_write(ne_tfevents* w, int64_t step, double wall_time, const ne_tf_scalar* v, int n, char* errstr) {
  w->event.len = 0;
  encode_scalars(&w->event, step, wall_time, v, n);
  return append_event(w, errstr);
}

const char* ne_tfevents_path(const ne_tfevents* w) { return w->path; }

void ne_tfevents_close(ne_tfevents* w) {
  if (!w) return;
  if (w->fd >= 0) close(w->fd);
  ne__buf_free(&w->event);
  ne__buf_free(&w->record);
  ne_free(w);
}
