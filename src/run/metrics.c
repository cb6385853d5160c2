// SPDX-License-Identifier: MIT
// metrics.csv reader (see metrics.h): the header maps names to columns once, then each complete
// line is split on commas and its known fields parsed with strtod. One pass, no per-row
// allocation beyond the doubling row buffer. The tail reader reads the header line and the last
// TAIL_BYTES of the file, so listing a run costs two small reads whatever its length.
#include "neuroevo/metrics.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"
#include "neuroevo/alloc.h"
#include "neuroevo/error.h"

#define TAIL_BYTES 4096  // a row is < 300 bytes: the last complete one is in the last 4 KiB
#define HEAD_BYTES 1024  // the header line is < 200 bytes

static const char* const NAMES[NE_M_COLS] = {"generation", "evaluations", "env_steps",  "wall_s",    "best",
                                             "mean",       "median",      "elite_mean", "pre_adapt", "post_adapt"};

const char* ne_metrics_column_name(ne_metrics_col c) { return c >= 0 && c < NE_M_COLS ? NAMES[c] : ""; }

int ne_metrics_column(const char* name) {
  for (int c = 0; c < NE_M_COLS; c++)
    if (strcmp(name, NAMES[c]) == 0) return c;
  return -1;
}

// [s, s + *len) without surrounding blanks (and a CR)
static const char* trim(const char* s, size_t* len) {
  while (*len > 0 && (*s == ' ' || *s == '\t')) s++, (*len)--;
  while (*len > 0 && (s[*len - 1] == ' ' || s[*len - 1] == '\t' || s[*len - 1] == '\r')) (*len)--;
  return s;
}

// field position -> column (idx[field], -1: not ours) from the header [h, h + len)
typedef struct header_map {
  int col[64];    // (fields) column of each field, -1 if unknown
  int fields;     // fields in the header (at most 64 mapped)
  int minimized;  // the `minimized` column is present
} header_map;

static void map_header(const char* h, size_t len, header_map* m, int* has) {
  memset(m, 0, sizeof *m);
  for (size_t i = 0; i <= len; m->fields++) {
    size_t j = i;
    while (j < len && h[j] != ',') j++;
    size_t flen = j - i;
    const char* f = trim(h + i, &flen);
    int c = -1;
    for (int k = 0; k < NE_M_COLS; k++)
      if (flen == strlen(NAMES[k]) && strncmp(f, NAMES[k], flen) == 0) c = k;
    if (m->fields < 64) m->col[m->fields] = c;
    if (c >= 0) has[c] = 1;
    if (flen == 9 && strncmp(f, "minimized", 9) == 0) m->minimized = 1;
    i = j + 1;
  }
}

// one data line into row (NE_M_COLS values; NaN where absent or not finite)
static void parse_row(const char* line, size_t len, const header_map* m, double* row) {
  for (int c = 0; c < NE_M_COLS; c++) row[c] = NAN;
  int field = 0;
  for (size_t i = 0; i <= len && field < 64; field++) {
    size_t j = i;
    while (j < len && line[j] != ',') j++;
    int c = field < m->fields ? m->col[field] : -1;
    if (c >= 0) {
      char buf[64], *end;
      snprintf(buf, sizeof buf, "%.*s", (int)(j - i < 63 ? j - i : 63), line + i);
      double v = strtod(buf, &end);
      row[c] = end != buf && isfinite(v) ? v : NAN;
    }
    i = j + 1;
  }
}

static int push_row(ne_metrics* m, const double* row) {
  if (m->n_rows == m->cap_rows) {
    int cap = m->cap_rows ? 2 * m->cap_rows : 256;
    double* grown = ne_realloc(m->rows, (size_t)cap * NE_M_COLS * sizeof(double));
    if (!grown) return NE_ENOMEM;
    m->rows = grown;
    m->cap_rows = cap;
  }
  memcpy(m->rows + (size_t)m->n_rows * NE_M_COLS, row, NE_M_COLS * sizeof(double));
  m->n_rows++;
  return 0;
}

static void path_of(char* buf, size_t size, const char* run_dir) { snprintf(buf, size, "%s/metrics.csv", run_dir); }

int ne_metrics_read(const char* run_dir, ne_metrics* out, char* errstr) {
  memset(out, 0, sizeof *out);
  char path[4200], *text;
  size_t len;
  path_of(path, sizeof path, run_dir);
  int rc = ne__read_file(path, &text, &len, errstr);
  if (rc) return rc;
  header_map m;
  for (char* line = text; !rc && line < text + len;) {
    char* nl = memchr(line, '\n', (size_t)(text + len - line));
    if (!nl) break;  // a torn last line: the run is writing it
    size_t ll = (size_t)(nl - line), tl = ll;
    trim(line, &tl);
    if (line == text) {
      map_header(line, ll, &m, out->has);
      out->minimized = m.minimized;
      out->header = 1;
    } else if (tl > 0) {
      double row[NE_M_COLS];
      parse_row(line, ll, &m, row);
      if (push_row(out, row)) rc = ne__set_error(errstr, NE_ENOMEM, "%s: out of memory", path);
    }
    line = nl + 1;
  }
  ne_free(text);
  if (rc) ne_metrics_free(out);
  return rc;
}

// reads up to cap bytes at offset into buf; the count or -1
static ssize_t read_at(int fd, char* buf, size_t cap, off_t offset) {
  size_t got = 0;
  while (got < cap) {
    ssize_t n = pread(fd, buf + got, cap - got, offset + (off_t)got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return -1;
    if (n == 0) break;
    got += (size_t)n;
  }
  return (ssize_t)got;
}

// the last complete, non-blank line of [buf, buf + n) but its first line, which is the header (the
// window starts the file) or may be cut (it starts inside the file)
static const char* last_line(const char* buf, size_t n, size_t* len) {
  size_t end = n;
  while (end > 0 && buf[end - 1] != '\n') end--;  // drop a torn last line
  while (end > 0) {
    size_t stop = end - 1;  // the newline ending the candidate line
    size_t start = stop;
    while (start > 0 && buf[start - 1] != '\n') start--;
    if (start == 0) return NULL;
    size_t l = stop - start, tl = l;
    trim(buf + start, &tl);
    if (tl > 0) {
      *len = l;
      return buf + start;
    }
    end = start;
  }
  return NULL;
}

int ne_metrics_last(const char* run_dir, double* row, int* minimized, char* errstr) {
  for (int c = 0; c < NE_M_COLS; c++) row[c] = NAN;
  if (minimized) *minimized = 0;
  char path[4200];
  path_of(path, sizeof path, run_dir);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return ne__set_error(errstr, errno == ENOENT ? NE_ENOTFOUND : NE_EIO, "%s: cannot open: %s", path, strerror(errno));
  char head[HEAD_BYTES + 1], tail[TAIL_BYTES + 1];
  off_t size = lseek(fd, 0, SEEK_END);
  ssize_t hn = read_at(fd, head, HEAD_BYTES, 0);
  off_t from = size > TAIL_BYTES ? size - TAIL_BYTES : 0;
  ssize_t tn = size > 0 ? read_at(fd, tail, TAIL_BYTES, from) : 0;
  close(fd);
  if (size < 0 || hn < 0 || tn < 0) return ne__set_error(errstr, NE_EIO, "%s: read failed", path);
  char* nl = memchr(head, '\n', (size_t)hn);
  if (!nl) return 0;  // no complete header yet
  header_map m;
  int has[NE_M_COLS] = {0};
  map_header(head, (size_t)(nl - head), &m, has);
  if (minimized) *minimized = m.minimized;
  size_t len;
  const char* line = last_line(tail, (size_t)tn, &len);
  if (!line) return 0;
  parse_row(line, len, &m, row);
  return 1;
}

void ne_metrics_free(ne_metrics* m) {
  if (!m) return;
  ne_free(m->rows);
  m->rows = NULL;
  m->n_rows = m->cap_rows = 0;
}
