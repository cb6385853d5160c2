// SPDX-License-Identifier: MIT
// Seed-chain genomes (genome.h): the chain itself, its text form (parse/print round trip, errors
// naming file, line and the expected form), atomic file I/O, replay materialization and the chain
// hashes the parameter cache keys on. Not here: caching (cache.c) and the policy layout (mlp.c).
// Parsing is all-or-nothing: on any error the caller's genome and header are left untouched.
#include "neuroevo/genome.h"

#include <ctype.h>   // isspace, isdigit
#include <math.h>    // isfinite
#include <stdio.h>   // snprintf
#include <stdlib.h>  // strtof
#include <string.h>

#include "core/util.h"
#include "neuroevo/alloc.h"
#include "neuroevo/error.h"
#include "neuroevo/noise.h"
#include "neuroevo/rng.h"

#define GENOME_MAGIC_LINE "# neuroevo genome v1\n"
#define SEED_MAX_DIGITS 20  // digits of UINT64_MAX

// ---- chain ---------------------------------------------------------------------------------------

void ne_genome_init(ne_genome* g) { memset(g, 0, sizeof *g); }

void ne_genome_free(ne_genome* g) {
  if (!g) return;
  ne_free(g->seeds);
  ne_genome_init(g);
}

// Makes room for at least `need` seeds (capacity doubles).
static int reserve(ne_genome* g, size_t need) {
  if (need <= g->cap) return 0;
  size_t cap = g->cap ? g->cap : 8;
  while (cap < need) cap *= 2;
  if (cap > SIZE_MAX / sizeof(uint64_t)) return NE_ENOMEM;
  uint64_t* s = ne_realloc(g->seeds, cap * sizeof *s);
  if (!s) return NE_ENOMEM;
  g->seeds = s;
  g->cap = cap;
  return 0;
}

int ne_genome_set(ne_genome* g, const uint64_t* seeds, size_t n, float sigma) {
  // a fresh buffer, so `seeds` may point into g's own chain
  size_t cap = n ? n : 1;
  if (cap > SIZE_MAX / sizeof(uint64_t)) return NE_ENOMEM;
  uint64_t* s = ne_malloc(cap * sizeof *s);
  if (!s) return NE_ENOMEM;
  if (n) memcpy(s, seeds, n * sizeof *s);
  ne_free(g->seeds);
  g->seeds = s;
  g->cap = cap;
  g->n_seeds = n;
  g->sigma = sigma;
  return 0;
}

int ne_genome_push(ne_genome* g, uint64_t seed) {
  if (reserve(g, g->n_seeds + 1) != 0) return NE_ENOMEM;
  g->seeds[g->n_seeds++] = seed;
  return 0;
}

// ---- header --------------------------------------------------------------------------------------

// [*b, *e) without surrounding whitespace.
static void trim(const char** b, const char** e) {
  while (*b < *e && isspace((unsigned char)**b)) (*b)++;
  while (*e > *b && isspace((unsigned char)(*e)[-1])) (*e)--;
}

// A key the text form can carry: non-empty, no whitespace, '=' or control bytes, not a comment,
// and not one of the two reserved keys.
static int key_ok(const char* k) {
  if (!*k || *k == '#' || strcmp(k, "sigma") == 0 || strcmp(k, "seeds") == 0) return 0;
  for (; *k; k++)
    if (*k == '=' || isspace((unsigned char)*k) || iscntrl((unsigned char)*k)) return 0;
  return 1;
}

const char* ne_genome_header_get(const ne_genome_header* h, const char* key) {
  for (int i = 0; i < h->n; i++)
    if (strcmp(h->key[i], key) == 0) return h->value[i];
  return NULL;
}

int ne_genome_header_set(ne_genome_header* h, const char* key, const char* value) {
  // values are stored trimmed, as the parser would read them back
  const char *vb = value, *ve = value + strlen(value);
  trim(&vb, &ve);
  if (!key_ok(key)) return NE_EINVAL;
  for (const char* p = vb; p < ve; p++)
    if (*p == '\n' || *p == '\r') return NE_EINVAL;
  if (strlen(key) >= NE_GENOME_KEY_LEN || (size_t)(ve - vb) >= NE_GENOME_VAL_LEN) return NE_ERANGE;
  // replace an existing field, else append
  int i = 0;
  while (i < h->n && strcmp(h->key[i], key) != 0) i++;
  if (i == h->n) {
    if (h->n >= NE_GENOME_MAX_HEADER) return NE_ERANGE;
    snprintf(h->key[i], NE_GENOME_KEY_LEN, "%s", key);
    h->n++;
  }
  memcpy(h->value[i], vb, (size_t)(ve - vb));
  h->value[i][ve - vb] = '\0';
  return 0;
}

// ---- parse ---------------------------------------------------------------------------------------

// What the parser carries from line to line.
typedef struct parse_state {
  const char* name;                        // file name for messages
  int line;                                // current line number, 1-based
  int sigma_line;                          // line of `sigma = ...`, 0 if none yet
  int seeds_line;                          // line of `seeds = ...`, 0 if none yet
  float sigma;                             // parsed sigma
  ne_genome chain;                         // parsed seeds (owned until handed over)
  ne_genome_header header;                 // parsed header fields
  int header_lines[NE_GENOME_MAX_HEADER];  // line of each header field
  char* errstr;                            // caller's message buffer
} parse_state;

// Parses one unsigned decimal seed token [b, e).
static int parse_seed(parse_state* ps, const char* b, const char* e, uint64_t* out) {
  int len = (int)(e - b);
  uint64_t v = 0;
  for (const char* p = b; p < e; p++) {
    if (!isdigit((unsigned char)*p))
      return ne__set_error(ps->errstr, NE_EPARSE, "%s:%d: seeds: '%.*s' is not an unsigned integer", ps->name, ps->line,
                           len > 40 ? 40 : len, b);
    unsigned d = (unsigned)(*p - '0');
    if (v > (UINT64_MAX - d) / 10)
      return ne__set_error(ps->errstr, NE_EPARSE, "%s:%d: seeds: '%.*s' is out of range (max %llu)", ps->name, ps->line,
                           len > 40 ? 40 : len, b, (unsigned long long)UINT64_MAX);
    v = v * 10 + d;
  }
  *out = v;
  return 0;
}

// `seeds = s0 s1 ...`: whitespace-separated unsigned decimals, at least one.
static int parse_seeds_value(parse_state* ps, const char* b, const char* e) {
  if (ps->seeds_line)
    return ne__set_error(ps->errstr, NE_EPARSE, "%s:%d: second 'seeds' line (the first is line %d)", ps->name, ps->line,
                         ps->seeds_line);
  ps->seeds_line = ps->line;
  while (b < e) {
    const char* t = b;
    while (t < e && !isspace((unsigned char)*t)) t++;
    uint64_t seed = 0;
    int rc = parse_seed(ps, b, t, &seed);
    if (rc == 0) rc = ne_genome_push(&ps->chain, seed);
    if (rc == NE_ENOMEM) return ne__set_error(ps->errstr, NE_ENOMEM, "%s:%d: out of memory", ps->name, ps->line);
    if (rc != 0) return rc;
    b = t;
    while (b < e && isspace((unsigned char)*b)) b++;
  }
  if (ps->chain.n_seeds == 0)
    return ne__set_error(ps->errstr, NE_EPARSE, "%s:%d: seeds: expected at least one unsigned integer", ps->name,
                         ps->line);
  return 0;
}

// `sigma = x`: a finite float >= 0.
static int parse_sigma_value(parse_state* ps, const char* b, const char* e) {
  if (ps->sigma_line)
    return ne__set_error(ps->errstr, NE_EPARSE, "%s:%d: second 'sigma' line (the first is line %d)", ps->name, ps->line,
                         ps->sigma_line);
  char buf[64];
  int len = (int)(e - b);
  char* end = buf;
  if (len > 0 && len < (int)sizeof buf) {
    memcpy(buf, b, (size_t)len);
    buf[len] = '\0';
    ps->sigma = strtof(buf, &end);  // overflow gives inf (rejected); subnormals are fine
  }
  if (len == 0 || len >= (int)sizeof buf || *end != '\0' || end == buf || !isfinite(ps->sigma) || ps->sigma < 0.0f)
    return ne__set_error(ps->errstr, NE_EPARSE, "%s:%d: sigma: '%.*s' is not a finite number >= 0", ps->name, ps->line,
                         len > 40 ? 40 : len, b);
  ps->sigma_line = ps->line;
  return 0;
}

// Any other `key = value`: a header field.
static int parse_header_field(parse_state* ps, const char* kb, const char* ke, const char* vb, const char* ve) {
  int klen = (int)(ke - kb), vlen = (int)(ve - vb);
  if (klen >= NE_GENOME_KEY_LEN)
    return ne__set_error(ps->errstr, NE_EPARSE, "%s:%d: key '%.40s...' is longer than %d bytes", ps->name, ps->line, kb,
                         NE_GENOME_KEY_LEN - 1);
  if (vlen >= NE_GENOME_VAL_LEN)
    return ne__set_error(ps->errstr, NE_EPARSE, "%s:%d: %.*s: value is longer than %d bytes", ps->name, ps->line, klen,
                         kb, NE_GENOME_VAL_LEN - 1);
  char key[NE_GENOME_KEY_LEN], value[NE_GENOME_VAL_LEN];
  memcpy(key, kb, (size_t)klen), key[klen] = '\0';
  memcpy(value, vb, (size_t)vlen), value[vlen] = '\0';
  if (!key_ok(key))
    return ne__set_error(ps->errstr, NE_EPARSE,
                         "%s:%d: '%s' is not a valid key (expected a name without spaces or '=')", ps->name, ps->line,
                         key);
  // a repeated key is an error rather than a silent override
  for (int i = 0; i < ps->header.n; i++)
    if (strcmp(ps->header.key[i], key) == 0)
      return ne__set_error(ps->errstr, NE_EPARSE, "%s:%d: duplicate key '%s' (first on line %d)", ps->name, ps->line,
                           key, ps->header_lines[i]);
  if (ps->header.n >= NE_GENOME_MAX_HEADER)
    return ne__set_error(ps->errstr, NE_EPARSE, "%s:%d: more than %d header fields", ps->name, ps->line,
                         NE_GENOME_MAX_HEADER);
  ps->header_lines[ps->header.n] = ps->line;
  return ne_genome_header_set(&ps->header, key, value) == 0
      ? 0
      : ne__set_error(ps->errstr, NE_EPARSE, "%s:%d: cannot store key '%s'", ps->name, ps->line, key);
}

// One line [b, e) without its newline.
static int parse_line(parse_state* ps, const char* b, const char* e) {
  trim(&b, &e);
  if (b == e || *b == '#') return 0;  // blank or comment
  const char* eq = memchr(b, '=', (size_t)(e - b));
  if (!eq) {
    int len = (int)(e - b);
    return ne__set_error(ps->errstr, NE_EPARSE, "%s:%d: expected 'key = value', got '%.*s'", ps->name, ps->line,
                         len > 40 ? 40 : len, b);
  }
  const char *kb = b, *ke = eq, *vb = eq + 1, *ve = e;
  trim(&kb, &ke);
  trim(&vb, &ve);
  if (kb == ke) return ne__set_error(ps->errstr, NE_EPARSE, "%s:%d: expected a key before '='", ps->name, ps->line);
  size_t klen = (size_t)(ke - kb);
  if (klen == 5 && memcmp(kb, "seeds", 5) == 0) return parse_seeds_value(ps, vb, ve);
  if (klen == 5 && memcmp(kb, "sigma", 5) == 0) return parse_sigma_value(ps, vb, ve);
  return parse_header_field(ps, kb, ke, vb, ve);
}

// Checks what must be present once every line is read.
static int parse_finish(parse_state* ps) {
  if (!ps->seeds_line)
    return ne__set_error(ps->errstr, NE_EPARSE,
                         "%s: no 'seeds = ...' line (expected the seed chain, e.g. 'seeds = 81737 1231')", ps->name);
  if (!ps->sigma_line && ps->chain.n_seeds > 1)
    return ne__set_error(ps->errstr, NE_EPARSE, "%s: no 'sigma = ...' line (needed for a chain of %zu seeds)", ps->name,
                         ps->chain.n_seeds);
  ps->chain.sigma = ps->sigma_line ? ps->sigma : 0.0f;
  return 0;
}

int ne_genome_parse(const char* text, const char* name, ne_genome* g, ne_genome_header* header, char* errstr) {
  parse_state ps;
  memset(&ps, 0, sizeof ps);
  ps.name = name ? name : "<genome>";
  ps.errstr = errstr;
  int rc = 0;
  // line by line; '\r' before '\n' is whitespace and trimmed
  for (const char* p = text; rc == 0 && *p;) {
    const char* nl = strchr(p, '\n');
    const char* e = nl ? nl : p + strlen(p);
    ps.line++;
    rc = parse_line(&ps, p, e);
    p = nl ? nl + 1 : e;
  }
  if (rc == 0) rc = parse_finish(&ps);
  if (rc != 0) {
    ne_genome_free(&ps.chain);
    return rc;
  }
  // hand the results over only on success
  ne_genome_free(g);
  *g = ps.chain;
  if (header) *header = ps.header;
  return 0;
}

// ---- print ---------------------------------------------------------------------------------------

// Appends the seeds line to buf (which has room: see seeds_line_len); returns bytes written.
static size_t put_seeds(const ne_genome* g, char* buf) {
  size_t len = (size_t)sprintf(buf, "seeds =");
  for (size_t i = 0; i < g->n_seeds; i++) len += (size_t)sprintf(buf + len, " %llu", (unsigned long long)g->seeds[i]);
  buf[len++] = '\n';
  buf[len] = '\0';
  return len;
}

// Upper bound on the seeds line, NUL included.
static size_t seeds_line_len(const ne_genome* g) { return 16 + g->n_seeds * (SEED_MAX_DIGITS + 1); }

char* ne_genome_format_seeds(const ne_genome* g) {
  char* buf = ne_malloc(seeds_line_len(g));
  if (buf) put_seeds(g, buf);
  return buf;
}

char* ne_genome_format(const ne_genome* g, const ne_genome_header* header) {
  int nh = header ? header->n : 0;
  size_t cap =
      sizeof GENOME_MAGIC_LINE + (size_t)nh * (NE_GENOME_KEY_LEN + NE_GENOME_VAL_LEN + 4) + 64 + seeds_line_len(g);
  char* buf = ne_malloc(cap);
  if (!buf) return NULL;
  // magic comment, header fields, sigma (%.9g round-trips every float), seeds
  size_t len = (size_t)snprintf(buf, cap, GENOME_MAGIC_LINE);
  for (int i = 0; i < nh; i++)
    len += (size_t)snprintf(buf + len, cap - len, "%s = %s\n", header->key[i], header->value[i]);
  len += (size_t)snprintf(buf + len, cap - len, "sigma = %.9g\n", (double)g->sigma);
  put_seeds(g, buf + len);
  return buf;
}

// ---- files ---------------------------------------------------------------------------------------

int ne_genome_read_file(const char* path, ne_genome* g, ne_genome_header* header, char* errstr) {
  char* text = NULL;
  int rc = ne__read_file(path, &text, NULL, errstr);
  if (rc != 0) return rc;
  rc = ne_genome_parse(text, path, g, header, errstr);
  ne_free(text);
  return rc;
}

int ne_genome_write_file(const char* path, const ne_genome* g, const ne_genome_header* header, char* errstr) {
  char* text = ne_genome_format(g, header);
  if (!text) return ne__set_error(errstr, NE_ENOMEM, "%s: out of memory formatting the genome", path);
  int rc = ne__write_file_atomic(path, text, strlen(text), errstr);
  ne_free(text);
  return rc;
}

// ---- materialize and hash ------------------------------------------------------------------------

void ne_genome_materialize(const ne_policy_spec* spec, const uint64_t* seeds, size_t n, float sigma, float* out) {
  if (n == 0) {
    memset(out, 0, spec->n_params * sizeof *out);
    return;
  }
  ne_policy_init_params(spec, seeds[0], out);
  for (size_t i = 1; i < n; i++) ne_noise_axpy(seeds[i], 0, spec->n_params, sigma, out);
}

// Identity of what the initial parameters depend on: sizes, conv shapes and init scheme (not
// activation or head, which do not change the vector), so different policies never share cache
// keys, even two nets with the same parameter count.
static uint64_t spec_fingerprint(const ne_policy_spec* spec) {
  uint64_t h = ne_hash2(0x6e6575726f65766full /* "neuroevo" */, (uint64_t)spec->n_params);
  h = ne_hash2(h, (uint64_t)spec->n_layers);
  for (int l = 0; l <= spec->n_layers && l <= NE_POLICY_MAX_LAYERS; l++) h = ne_hash2(h, (uint64_t)spec->sizes[l]);
  h = ne_hash2(h, (uint64_t)spec->kind);
  for (int l = 0; l < spec->n_conv && l < NE_POLICY_MAX_CONV; l++) {
    const ne_conv_layer* c = &spec->conv[l];
    h = ne_hash2(h, (uint64_t)c->filters | (uint64_t)c->kernel << 20 | (uint64_t)c->stride << 40);
    h = ne_hash2(h, (uint64_t)c->in_h | (uint64_t)c->in_w << 20 | (uint64_t)c->in_c << 40);
  }
  return ne_hash2(h, (uint64_t)spec->init);
}

uint64_t ne_chain_root(const ne_policy_spec* spec, uint64_t init_seed) {
  return ne_hash2(spec_fingerprint(spec), init_seed);
}

uint64_t ne_chain_extend(uint64_t prefix_hash, float sigma, uint64_t seed) {
  // Hashing a 1000-seed chain sits on every child rebuild, so only a rotate, a xor and one multiply
  // by an odd constant depend on the prefix (5 cycles a seed, against ~26 for ne_hash2 on the
  // prefix); the seed's own mixing does not, and overlaps with the previous step. Each step is a
  // bijection in the prefix hash and in the seed, so chains differing anywhere collide only by
  // chance (seeds are hash outputs, not adversarial input). sigma enters through an odd multiplier.
  uint32_t sb;
  memcpy(&sb, &sigma, sizeof sb);
  uint64_t seed_term = ne_hash2(seed, (uint64_t)sb * 0x9e3779b97f4a7c15ull);
  uint64_t rotated = (prefix_hash << 27) | (prefix_hash >> 37);
  return (rotated ^ seed_term) * 0xd6e8feb86659fd93ull;
}

uint64_t ne_chain_hash(const ne_policy_spec* spec, const uint64_t* seeds, size_t n, float sigma) {
  if (n == 0) return spec_fingerprint(spec);
  uint64_t h = ne_chain_root(spec, seeds[0]);
  for (size_t i = 1; i < n; i++) h = ne_chain_extend(h, sigma, seeds[i]);
  return h;
}
