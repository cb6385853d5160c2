// SPDX-License-Identifier: MIT
// best.params files (see params_file.h): written atomically by the runner whenever a vector
// solution improves, read by `neuroevo eval`. Floats are printed with %.9g, which strtof reads back
// to the same bits, so an evaluation of the file reproduces the run's own centre evaluation.
#include "run/params_file.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/util.h"
#include "neuroevo/alloc.h"

// ---- writing -------------------------------------------------------------------------------

static void put_text(ne_buf* b, const char* s) { ne__buf_bytes(b, s, strlen(s)); }

static void put_floats(ne_buf* b, const char* key, const float* v, size_t n) {
  char num[32];
  put_text(b, key);
  put_text(b, " =");
  for (size_t i = 0; i < n; i++) {
    snprintf(num, sizeof num, " %.9g", (double)v[i]);
    put_text(b, num);
  }
  put_text(b, "\n");
}

int ne__params_file_write(const char* path, const ne_genome_header* h, const ne_best* best, char* errstr) {
  ne_buf b;
  ne__buf_init(&b);
  char line[NE_GENOME_KEY_LEN + NE_GENOME_VAL_LEN + 8];
  put_text(&b, NE_PARAMS_FILE_MAGIC "\n");
  for (int i = 0; h && i < h->n; i++) {
    snprintf(line, sizeof line, "%s = %s\n", h->key[i], h->value[i]);
    put_text(&b, line);
  }
  snprintf(line, sizeof line, "score = %.17g\ngeneration = %u\n", best->score, best->generation);
  put_text(&b, line);
  if (best->obs_mean && best->obs_std && best->obs_dim > 0) {
    snprintf(line, sizeof line, "obs_clip = %.9g\n", (double)best->obs_clip);
    put_text(&b, line);
    put_floats(&b, "obs_mean", best->obs_mean, (size_t)best->obs_dim);
    put_floats(&b, "obs_std", best->obs_std, (size_t)best->obs_dim);
  }
  put_floats(&b, "params", best->params, best->n_params);
  if (b.oom) {
    ne__buf_free(&b);
    return ne__set_error(errstr, NE_ENOMEM, "%s: out of memory formatting %zu parameters", path, best->n_params);
  }
  int rc = ne__write_file_atomic(path, b.data, b.len, errstr);
  ne__buf_free(&b);
  return rc;
}

// ---- reading -------------------------------------------------------------------------------

typedef struct parse_ctx {
  const char* path;  // for messages
  int line;          // current line number (1-based)
  char* errstr;      // caller's buffer
} parse_ctx;

static char* trim(char* s) {
  while (isspace((unsigned char)*s)) s++;
  char* end = s + strlen(s);
  while (end > s && isspace((unsigned char)end[-1])) *--end = '\0';
  return s;
}

// Parses a space-separated float list into a new array (*out, *n).
static int parse_floats(parse_ctx* c, const char* key, const char* text, float** out, size_t* n) {
  size_t count = 0;
  for (const char* p = text; *p;) {
    while (isspace((unsigned char)*p)) p++;
    if (!*p) break;
    count++;
    while (*p && !isspace((unsigned char)*p)) p++;
  }
  ne_free(*out);
  *out = ne_malloc((count ? count : 1) * sizeof(float));
  if (!*out) return ne__set_error(c->errstr, NE_ENOMEM, "%s: out of memory for %zu values", c->path, count);
  const char* p = text;
  for (size_t i = 0; i < count; i++) {
    char* end;
    errno = 0;
    (*out)[i] = strtof(p, &end);
    if (end == p || (*end && !isspace((unsigned char)*end)))
      return ne__set_error(c->errstr, NE_EPARSE, "%s:%d: %s: value %zu is not a number", c->path, c->line, key, i + 1);
    p = end;
  }
  *n = count;
  return 0;
}

// A scalar field whose value did not parse as a whole.
static int bad_value(parse_ctx* c, const char* key, const char* value, const char* expected) {
  return ne__set_error(c->errstr, NE_EPARSE, "%s:%d: %s = '%s' is not %s", c->path, c->line, key, value, expected);
}

static int parse_field(parse_ctx* c, ne_params_file* f, const char* key, const char* value) {
  char* end;
  size_t n = 0;
  // env.* / policy.* go to the header that rebuilds the env and the policy
  if (strchr(key, '.')) {
    if (ne_genome_header_set(&f->header, key, value))
      return ne__set_error(c->errstr, NE_EPARSE, "%s:%d: header field '%s' too long or too many", c->path, c->line,
                           key);
    return 0;
  }
  if (strcmp(key, "score") == 0) {
    f->score = strtod(value, &end);
    return *end || end == value ? bad_value(c, key, value, "a number") : 0;
  }
  if (strcmp(key, "generation") == 0) {
    f->generation = (uint32_t)strtoul(value, &end, 10);
    return *end || end == value ? bad_value(c, key, value, "an integer") : 0;
  }
  if (strcmp(key, "obs_clip") == 0) {
    f->obs_clip = strtof(value, &end);
    return *end || end == value ? bad_value(c, key, value, "a number") : 0;
  }
  if (strcmp(key, "params") == 0) return parse_floats(c, key, value, &f->params, &f->n_params);
  int rc;
  if (strcmp(key, "obs_mean") == 0) {
    rc = parse_floats(c, key, value, &f->obs_mean, &n);
  } else if (strcmp(key, "obs_std") == 0) {
    rc = parse_floats(c, key, value, &f->obs_std, &n);
  } else {
    return ne__set_error(c->errstr, NE_EPARSE,
                         "%s:%d: unknown field '%s' (expected env.*, policy.*, score, "
                         "generation, obs_clip, obs_mean, obs_std or params)",
                         c->path, c->line, key);
  }
  if (!rc && f->obs_dim && (size_t)f->obs_dim != n)
    return ne__set_error(c->errstr, NE_EPARSE, "%s:%d: %s has %zu values, the other obs line %d", c->path, c->line, key,
                         n, f->obs_dim);
  if (!rc) f->obs_dim = (int)n;
  return rc;
}

static int parse_text(parse_ctx* c, char* text, ne_params_file* f) {
  for (char* line = text; line;) {
    char* nl = strchr(line, '\n');
    if (nl) *nl = '\0';
    c->line++;
    char* s = trim(line);
    line = nl ? nl + 1 : NULL;
    if (!*s || *s == '#') continue;
    char* eq = strchr(s, '=');
    if (!eq) return ne__set_error(c->errstr, NE_EPARSE, "%s:%d: expected 'key = value'", c->path, c->line);
    *eq = '\0';
    int rc = parse_field(c, f, trim(s), trim(eq + 1));
    if (rc) return rc;
  }
  if (!f->params) return ne__set_error(c->errstr, NE_EPARSE, "%s: no 'params = ...' line", c->path);
  if (!f->obs_mean != !f->obs_std)
    return ne__set_error(c->errstr, NE_EPARSE, "%s: obs_mean and obs_std must come together", c->path);
  return 0;
}

// parses the caller's writable copy of the text in place
static int parse_owned(char* text, const char* name, ne_params_file* out, char* errstr) {
  parse_ctx c = {name, 0, errstr};
  int rc = parse_text(&c, text, out);
  if (rc) ne__params_file_free(out);
  return rc;
}

int ne__params_file_parse(const char* text, const char* name, ne_params_file* out, char* errstr) {
  memset(out, 0, sizeof *out);
  out->score = NAN;
  size_t len = strlen(text);
  char* copy = ne_malloc(len + 1);
  if (!copy) return ne__set_error(errstr, NE_ENOMEM, "%s: out of memory", name);
  memcpy(copy, text, len + 1);
  int rc = parse_owned(copy, name, out, errstr);
  ne_free(copy);
  return rc;
}

int ne__params_file_read(const char* path, ne_params_file* out, char* errstr) {
  memset(out, 0, sizeof *out);
  out->score = NAN;
  char* text = NULL;
  int rc = ne__read_file(path, &text, NULL, errstr);
  if (rc) return rc;
  rc = parse_owned(text, path, out, errstr);
  ne_free(text);
  return rc;
}

void ne__params_file_free(ne_params_file* f) {
  if (!f) return;
  ne_free(f->params);
  ne_free(f->obs_mean);
  ne_free(f->obs_std);
  f->params = f->obs_mean = f->obs_std = NULL;
  f->n_params = 0;
  f->obs_dim = 0;
}

int ne__params_file_sniff(const char* path) {
  FILE* fp = fopen(path, "rb");
  if (!fp) return 0;
  char head[sizeof NE_PARAMS_FILE_MAGIC];
  size_t n = fread(head, 1, sizeof head - 1, fp);
  fclose(fp);
  head[n] = '\0';
  return strcmp(head, NE_PARAMS_FILE_MAGIC) == 0;
}
