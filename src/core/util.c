// SPDX-License-Identifier: MIT
// Internal helpers: error formatting, near-miss suggestions, atomic file writes, mkdir -p, a clock.
// Atomic writes are the only way the library writes files that hold results, so a crash at any
// moment leaves either the old or the new file, never half of one.
#include "core/util.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "neuroevo/alloc.h"
#include "neuroevo/rng.h"  // ne_hash2

int ne__set_error(char* errstr, int code, const char* fmt, ...) {
  if (errstr) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(errstr, NE_ERRSTR_LEN, fmt, ap);
    va_end(ap);
  }
  return code;
}

int ne__edit_distance(const char* a, const char* b) {
  size_t la = strlen(a), lb = strlen(b);
  if (la > 63 || lb > 63) return (int)(la > lb ? la : lb);
  int row[64];
  for (size_t j = 0; j <= lb; j++) row[j] = (int)j;
  // one rolling row of the dynamic-programming table
  for (size_t i = 1; i <= la; i++) {
    int diag = row[0];
    row[0] = (int)i;
    for (size_t j = 1; j <= lb; j++) {
      int up = row[j];
      int cost = a[i - 1] == b[j - 1] ? 0 : 1;
      int best = diag + cost;
      if (up + 1 < best) best = up + 1;
      if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
      row[j] = best;
      diag = up;
    }
  }
  return row[lb];
}

const char* ne__nearest(const char* name, const char* const* choices, int n) {
  const char* best = NULL;
  int best_d = 1 << 30;
  for (int i = 0; i < n; i++) {
    int d = ne__edit_distance(name, choices[i]);
    if (d < best_d) best_d = d, best = choices[i];
  }
  int len = (int)strlen(name);
  int limit = len / 3 > 2 ? len / 3 : 2;
  return best_d <= limit ? best : NULL;
}

static int fsync_parent_dir(const char* path) {
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", path);
  char* slash = strrchr(dir, '/');
  if (slash == dir) slash[1] = '\0';
  else if (slash) *slash = '\0';
  else snprintf(dir, sizeof dir, ".");
  int fd = open(dir, O_RDONLY | O_DIRECTORY);
  if (fd < 0) return -1;
  int rc = fsync(fd);
  close(fd);
  return rc;
}

int ne__write_file_atomic(const char* path, const void* data, size_t len, char* errstr) {
  char tmp[4096];
  if (snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof tmp)
    return ne__set_error(errstr, NE_EINVAL, "%s: path too long", path);
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return ne__set_error(errstr, NE_EIO, "%s: cannot create: %s", tmp, strerror(errno));
  // write everything, then make it durable before it replaces the old file
  const char* p = data;
  size_t left = len;
  while (left > 0) {
    ssize_t w = write(fd, p, left);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      int e = errno;
      close(fd);
      unlink(tmp);
      return ne__set_error(errstr, NE_EIO, "%s: write failed: %s", path, strerror(e ? e : EIO));
    }
    p += w;
    left -= (size_t)w;
  }
  if (fsync(fd) != 0 || close(fd) != 0) {
    int e = errno;
    unlink(tmp);
    return ne__set_error(errstr, NE_EIO, "%s: fsync failed: %s", path, strerror(e));
  }
  if (rename(tmp, path) != 0) {
    int e = errno;
    unlink(tmp);
    return ne__set_error(errstr, NE_EIO, "%s: rename failed: %s", path, strerror(e));
  }
  fsync_parent_dir(path);
  return 0;
}

int ne__read_file(const char* path, char** out, size_t* len, char* errstr) {
  *out = NULL;
  FILE* f = fopen(path, "rb");
  if (!f) {
    int code = errno == ENOENT ? NE_ENOTFOUND : NE_EIO;
    return ne__set_error(errstr, code, "%s: cannot open: %s", path, strerror(errno));
  }
  size_t cap = 4096, n = 0;
  char* buf = ne_malloc(cap);
  while (buf) {
    n += fread(buf + n, 1, cap - n - 1, f);
    if (n < cap - 1) break;
    char* grown = ne_realloc(buf, cap * 2);
    if (!grown) {
      ne_free(buf);
      buf = NULL;
      break;
    }
    buf = grown;
    cap *= 2;
  }
  int failed = ferror(f);
  fclose(f);
  if (!buf) return ne__set_error(errstr, NE_ENOMEM, "%s: out of memory", path);
  if (failed) {
    ne_free(buf);
    return ne__set_error(errstr, NE_EIO, "%s: read failed", path);
  }
  buf[n] = '\0';
  *out = buf;
  if (len) *len = n;
  return 0;
}

int ne__mkdir_p(const char* path, char* errstr) {
  char buf[4096];
  if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
    return ne__set_error(errstr, NE_EINVAL, "%s: path too long", path);
  // create each prefix in turn; existing directories are fine
  for (char* p = buf + 1;; p++) {
    if (*p == '/' || *p == '\0') {
      char saved = *p;
      *p = '\0';
      if (mkdir(buf, 0755) != 0 && errno != EEXIST)
        return ne__set_error(errstr, NE_EIO, "%s: cannot create directory: %s", buf, strerror(errno));
      *p = saved;
      if (saved == '\0') break;
    }
  }
  return 0;
}

double ne__now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void ne__vsay(FILE* out, const char* prefix, const char* fmt, va_list ap) {
  char line[768];
  vsnprintf(line, sizeof line, fmt, ap);
  fprintf(out, "%s: %s\n", prefix, line);
  fflush(out);
}

void ne__sleep_s(double s) {
  if (s <= 0) return;
  struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
  nanosleep(&ts, NULL);
}

void ne__cond_wait_ms(pthread_cond_t* cv, pthread_mutex_t* mu, int ms) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);  // pthread_cond_timedwait's default clock
  ts.tv_sec += ms / 1000;
  ts.tv_nsec += (long)(ms % 1000) * 1000000L;
  if (ts.tv_nsec >= 1000000000L) ts.tv_sec++, ts.tv_nsec -= 1000000000L;
  pthread_cond_timedwait(cv, mu, &ts);
}

uint64_t ne__random_u64(void) {
  uint64_t r = 0;
  int fd = open("/dev/urandom", O_RDONLY);
  if (fd >= 0) {
    if (read(fd, &r, sizeof r) != (ssize_t)sizeof r) r = 0;
    close(fd);
  }
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return r ^ ne_hash2((uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec, (uint64_t)getpid());
}

// [s, s + *len) without surrounding blanks (and a CR)
static const char* trim_blanks(const char* s, size_t* len) {
  while (*len > 0 && (*s == ' ' || *s == '\t')) s++, (*len)--;
  while (*len > 0 && strchr(" \t\r", s[*len - 1])) (*len)--;
  return s;
}

int ne__ini_get(const char* text, const char* section, const char* key, char* out, size_t size) {
  size_t klen = strlen(key), slen = strlen(section);
  int in_section = 0;
  for (const char* line = text; line && *line;) {
    const char* nl = strchr(line, '\n');
    size_t len = nl ? (size_t)(nl - line) : strlen(line);
    const char* s = trim_blanks(line, &len);
    line = nl ? nl + 1 : NULL;
    if (len > 0 && s[0] == '[') {
      in_section = len == slen + 2 && strncmp(s + 1, section, slen) == 0 && s[len - 1] == ']';
      continue;
    }
    if (!in_section || len <= klen || strncmp(s, key, klen) != 0) continue;
    size_t vlen = len - klen;
    const char* v = trim_blanks(s + klen, &vlen);
    if (vlen == 0 || *v != '=') continue;
    v++, vlen--;
    // an inline " ; comment" ends the value
    for (size_t i = 0; i + 1 < vlen; i++)
      if ((v[i] == ' ' || v[i] == '\t') && (v[i + 1] == ';' || v[i + 1] == '#')) vlen = i;
    v = trim_blanks(v, &vlen);
    snprintf(out, size, "%.*s", (int)vlen, v);
    return 0;
  }
  return -1;
}

void ne__fmt_duration(double s, char* buf, size_t size) {
  if (!isfinite(s) || s < 0) snprintf(buf, size, "-");
  else if (s < 60) snprintf(buf, size, "%.1fs", s);
  else if (s < 3600) snprintf(buf, size, "%dm%02ds", (int)s / 60, (int)s % 60);
  else snprintf(buf, size, "%dh%02dm", (int)(s / 3600), (int)fmod(s, 3600) / 60);
}

void ne__fmt_count(double v, char* buf, size_t size) {
  double a = fabs(v);
  if (!isfinite(v)) snprintf(buf, size, "-");
  else if (a >= 1e9) snprintf(buf, size, "%.2fG", v / 1e9);
  else if (a >= 1e6) snprintf(buf, size, "%.2fM", v / 1e6);
  else if (a >= 1e4) snprintf(buf, size, "%.1fk", v / 1e3);
  else if (a >= 100 || v == floor(v)) snprintf(buf, size, "%.0f", v);
  else snprintf(buf, size, "%.3g", v);
}
