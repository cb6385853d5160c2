// SPDX-License-Identifier: MIT
// The experiment config: one value per schema key (config_schema.c), each with its canonical text,
// its typed form and where it was set. INI text is parsed by inih through our own line reader, which
// counts lines (Debian's inih is built without INI_HANDLER_LINENO) and turns off continuation lines.
// A load either applies completely or leaves the config untouched. Not thread-safe for writes;
// concurrent reads are fine. Reads are linear scans over ~40 keys: call them at setup, not per step.
#include "neuroevo/config.h"

#include <assert.h>
#include <ctype.h>  // toupper: a section's help starts its paragraph
#include <errno.h>
#include <ini.h>  // ini_parse_stream: the INI tokenizer (sections, key = value, comments)
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>  // strcasecmp for bool spellings

#include "config/config_int.h"
#include "core/util.h"
#include "neuroevo/alloc.h"
#include "neuroevo/error.h"

// Longest value accepted (after trimming); longer text is surely a mistake.
#define MAX_VALUE 4096

// One key's current value.
typedef struct cfg_value {
  char* text;                  // canonical text form, what ne_config_format writes (owned)
  char* origin;                // "x.ini:3", "command line", ...; NULL for defaults or no origin (owned)
  unsigned long seq;           // 0: the default; else the order in which values were set (1, 2, ...)
  int64_t i;                   // INT value, BOOL as 0/1
  double f;                    // FLOAT value
  int n_list;                  // INTLIST item count
  int list[NE__CFG_LIST_CAP];  // (n_list) INTLIST items
  int overridden;              // 1: set by ne_config_override (a command-line style override)
  char* assignment;            // that override as given ("es.lr=0.01"), for the overridden-twice error (owned)
  int parsed;                  // 1: set by a file or INI text (0: an override or the program)
} cfg_value;

struct ne_config {
  int n;                   // number of schema keys
  cfg_value* vals;         // (n) one value per schema key, in schema order
  unsigned long next_seq;  // seq of the next value set
  char* notes;             // what was ignored and why, one line each ("\n"-terminated); NULL: none (owned)
  char* sources;           // the files loaded, bases first, one a line ("\n"-terminated); NULL: none (owned)
};

// Longest chain of `[run] base = ...` (a cycle ends here with an error).
#define MAX_BASE_DEPTH 8

// ---------------------------------------------------------------------------------------------
// schema lookups

// index of (section, key) in the flat schema, or -1
static int find_index(const char* section, const char* key) {
  const ne_config_key* schema = ne_config_schema();
  int n = ne_config_schema_count();
  for (int i = 0; i < n; i++)
    if (strcmp(schema[i].section, section) == 0 && strcmp(schema[i].key, key) == 0) return i;
  return -1;
}

// the section named `name`, or NULL
static const ne__cfg_section* find_section(const char* name) {
  int n;
  const ne__cfg_section* sections = ne__config_sections(&n);
  for (int s = 0; s < n; s++)
    if (strcmp(sections[s].name, name) == 0) return &sections[s];
  return NULL;
}

// "file:line: " style prefix for messages; empty when the origin is unknown
static const char* sep(const char* origin) { return origin && *origin ? ": " : ""; }
static const char* orig(const char* origin) { return origin ? origin : ""; }

// ---------------------------------------------------------------------------------------------
// value parsing: text -> typed value, with the expected form in every error

// an inclusive bound as a user would write it: integers in full, huge ones in %g
static void fmt_bound(double v, char* buf, size_t cap) {
  if (v == floor(v) && fabs(v) < 1e15) snprintf(buf, cap, "%.0f", v);
  else snprintf(buf, cap, "%g", v);
}

// "[lo, hi]" or "" for unchecked ranges
static void fmt_range(const ne_config_key* k, char* buf, size_t cap) {
  char lo[32], hi[32];
  if (k->min > k->max) {
    buf[0] = '\0';
    return;
  }
  fmt_bound(k->min, lo, sizeof lo);
  fmt_bound(k->max, hi, sizeof hi);
  snprintf(buf, cap, " in [%s, %s]", lo, hi);
}

// the form a value of key k must have, e.g. "an integer in [2, 10000000]"
static void expected_form(const ne_config_key* k, char* buf, size_t cap) {
  char range[80];
  fmt_range(k, range, sizeof range);
  switch (k->type) {
    case NE_CFG_INT: snprintf(buf, cap, "an integer%s", range); break;
    case NE_CFG_FLOAT: snprintf(buf, cap, "a number%s", range); break;
    case NE_CFG_BOOL: snprintf(buf, cap, "true or false (or yes/no, on/off, 1/0)"); break;
    case NE_CFG_ENUM: snprintf(buf, cap, "one of %s", k->choices); break;
    case NE_CFG_INTLIST:
      snprintf(buf, cap, "comma-separated integers%s, at most %d (e.g. 64,64)", range, ne__config_list_max(k));
      break;
    case NE_CFG_STRING:
    default:
      snprintf(buf, cap, "text without control characters, ' ;' or ' #' (';' or '#' after a space starts a comment)");
  }
}

// whether v lies in k's range (always, for unchecked ranges)
static int in_range(const ne_config_key* k, double v) { return k->min > k->max || (v >= k->min && v <= k->max); }

// strict integer parse; accepts 1e6-style round numbers since people write population = 1e6
static int parse_int(const char* s, int64_t* out) {
  char* end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (end != s && *end == '\0' && errno == 0) {
    *out = v;
    return 0;
  }
  if (!strpbrk(s, "eE") || strpbrk(s, "xX")) return -1;
  double d = strtod(s, &end);
  if (end == s || *end != '\0' || !isfinite(d) || d != floor(d) || fabs(d) > 9007199254740992.0) return -1;
  *out = (int64_t)d;
  return 0;
}

// strict finite double parse
static int parse_float(const char* s, double* out) {
  char* end;
  double d = strtod(s, &end);
  if (end == s || *end != '\0' || !isfinite(d)) return -1;
  *out = d;
  return 0;
}

static int parse_bool(const char* s, int64_t* out) {
  static const char* const yes[] = {"true", "yes", "on", "1"};
  static const char* const no[] = {"false", "no", "off", "0"};
  for (int i = 0; i < 4; i++) {
    if (strcasecmp(s, yes[i]) == 0) return *out = 1, 0;
    if (strcasecmp(s, no[i]) == 0) return *out = 0, 0;
  }
  return -1;
}

// comma-separated integers, each in range; "" is the empty list. Returns 0, NE_EPARSE or NE_ERANGE.
static int parse_intlist(const ne_config_key* k, const char* s, cfg_value* v) {
  int max = ne__config_list_max(k);
  v->n_list = 0;
  const char* p = s;
  while (*p == ' ' || *p == '\t') p++;
  if (*p == '\0') return 0;
  // one item per iteration: integer, optional spaces, then ',' or the end
  for (;;) {
    char* end;
    errno = 0;
    long long item = strtoll(p, &end, 10);
    if (end == p || errno != 0) return NE_EPARSE;
    if (!in_range(k, (double)item) || item < INT32_MIN || item > INT32_MAX) return NE_ERANGE;
    if (v->n_list >= max) return NE_ERANGE;
    v->list[v->n_list++] = (int)item;
    for (p = end; *p == ' ' || *p == '\t'; p++) {
    }
    if (*p == '\0') return 0;
    if (*p != ',') return NE_EPARSE;
    p++;
  }
}

// 1 if p (inside the text that starts at s) starts an inline comment: ';' or '#' at the start or
// after a blank, as INI users write `sigma = 0.05  # comment`
static int comment_at(const char* s, const char* p) {
  return (*p == ';' || *p == '#') && (p == s || p[-1] == ' ' || p[-1] == '\t');
}

// text values must survive a format -> load round trip through inih
static int string_ok(const char* s) {
  for (const char* p = s; *p; p++) {
    if ((unsigned char)*p < 0x20 || *p == 0x7f) return 0;
    if (comment_at(s, p)) return 0;
  }
  return 1;
}

// splits "a|b|c" (copied into buf) into items; returns the count
static int split_choices(const char* choices, char* buf, size_t cap, const char** items, int max) {
  snprintf(buf, cap, "%s", choices);
  int n = 0;
  for (char* tok = buf; tok && n < max;) {
    items[n++] = tok;
    tok = strchr(tok, '|');
    if (tok) *tok++ = '\0';
  }
  return n;
}

// 1 if s is one of k's choices
static int enum_ok(const ne_config_key* k, const char* s) {
  char buf[512];
  const char* items[64];
  int n = split_choices(k->choices, buf, sizeof buf, items, 64);
  for (int i = 0; i < n; i++)
    if (strcmp(items[i], s) == 0) return 1;
  return 0;
}

// parses trimmed text s for key k into v's typed fields. Returns 0, NE_EPARSE or NE_ERANGE.
static int parse_typed(const ne_config_key* k, const char* s, cfg_value* v) {
  switch (k->type) {
    case NE_CFG_INT:
      if (parse_int(s, &v->i) != 0) return NE_EPARSE;
      return in_range(k, (double)v->i) ? 0 : NE_ERANGE;
    case NE_CFG_FLOAT:
      if (parse_float(s, &v->f) != 0) return NE_EPARSE;
      return in_range(k, v->f) ? 0 : NE_ERANGE;
    case NE_CFG_BOOL: return parse_bool(s, &v->i) == 0 ? 0 : NE_EPARSE;
    case NE_CFG_ENUM: return enum_ok(k, s) ? 0 : NE_EPARSE;
    case NE_CFG_INTLIST: return parse_intlist(k, s, v);
    case NE_CFG_STRING: return string_ok(s) ? 0 : NE_EPARSE;
  }
  return NE_EPARSE;
}

// the shortest %.Ng (N = 15..17) that reads back as exactly d
static void fmt_double(double d, char* buf, size_t cap) {
  for (int prec = 15; prec <= 17; prec++) {
    snprintf(buf, cap, "%.*g", prec, d);
    if (strtod(buf, NULL) == d) return;
  }
}

// canonical text of a parsed value into buf (STRING/ENUM: the text itself)
static void canonical_text(const ne_config_key* k, const char* s, const cfg_value* v, char* buf, size_t cap) {
  switch (k->type) {
    case NE_CFG_INT: snprintf(buf, cap, "%" PRId64, v->i); break;
    case NE_CFG_FLOAT: fmt_double(v->f, buf, cap); break;
    case NE_CFG_BOOL: snprintf(buf, cap, "%s", v->i ? "true" : "false"); break;
    case NE_CFG_INTLIST: {
      size_t used = 0;
      buf[0] = '\0';
      for (int i = 0; i < v->n_list && used < cap; i++)
        used += (size_t)snprintf(buf + used, cap - used, "%s%d", i ? "," : "", v->list[i]);
      break;
    }
    default: snprintf(buf, cap, "%s", s);
  }
}

// the error for a value that does not parse, with the nearest choice for enums
static int value_error(const ne_config_key* k, const char* s, const char* origin, int code, char* errstr) {
  char form[160], hint[96] = "";
  expected_form(k, form, sizeof form);
  if (k->type == NE_CFG_ENUM) {
    char buf[512];
    const char* items[64];
    int n = split_choices(k->choices, buf, sizeof buf, items, 64);
    const char* near = ne__nearest(s, items, n);
    if (near) snprintf(hint, sizeof hint, " (did you mean '%s'?)", near);
  }
  return ne__set_error(errstr, code, "%s%s[%s] %s = '%.60s': expected %s%s", orig(origin), sep(origin), k->section,
                       k->key, s, form, hint);
}

// ---------------------------------------------------------------------------------------------
// setting values

// parses s into the value at index idx; on any failure the old value stays. seq 0 marks a default.
static int assign(ne_config* cfg, int idx, const char* s, const char* origin, unsigned long seq, char* errstr) {
  const ne_config_key* k = &ne_config_schema()[idx];
  cfg_value nv = {0};
  int rc = parse_typed(k, s, &nv);
  if (rc != 0) return value_error(k, s, origin, rc, errstr);
  // canonical text and origin copies: allocate both before touching the old value
  char canon[MAX_VALUE + 16];
  canonical_text(k, s, &nv, canon, sizeof canon);
  nv.text = ne_strdup(canon);
  nv.origin = origin ? ne_strdup(origin) : NULL;
  if (!nv.text || (origin && !nv.origin)) {
    ne_free(nv.text);
    ne_free(nv.origin);
    return ne__set_error(errstr, NE_ENOMEM, "%s%sout of memory setting [%s] %s", orig(origin), sep(origin), k->section,
                         k->key);
  }
  nv.seq = seq;
  ne_free(cfg->vals[idx].text);
  ne_free(cfg->vals[idx].origin);
  ne_free(cfg->vals[idx].assignment);
  cfg->vals[idx] = nv;
  return 0;
}

// copies value with surrounding whitespace removed into buf (MAX_VALUE + 1 bytes); -1 if too long
static int trim_copy(const char* value, char* buf) {
  while (*value == ' ' || *value == '\t') value++;
  size_t n = strlen(value);
  while (n > 0 && (value[n - 1] == ' ' || value[n - 1] == '\t' || value[n - 1] == '\r' || value[n - 1] == '\n')) n--;
  if (n > MAX_VALUE) return -1;
  memcpy(buf, value, n);
  buf[n] = '\0';
  return 0;
}

// the error for a key the schema does not have: nearest key in the section, or the section it is in
static int unknown_key(const ne__cfg_section* sec, const char* key, const char* origin, char* errstr) {
  const char* names[256];
  int n = 0;
  for (int i = 0; i < sec->n_keys && n < 256; i++) names[n++] = sec->keys[i].key;
  const char* near = ne__nearest(key, names, n);
  char hint[128] = "";
  if (near) snprintf(hint, sizeof hint, " (did you mean '%s'?)", near);
  else {
    // a right key in the wrong section
    const ne_config_key* schema = ne_config_schema();
    for (int i = 0; i < ne_config_schema_count(); i++)
      if (strcmp(schema[i].key, key) == 0) {
        snprintf(hint, sizeof hint, " (it belongs in [%s])", schema[i].section);
        break;
      }
  }
  return ne__set_error(errstr, NE_ENOTFOUND, "%s%sunknown key '%.60s' in [%s]%s", orig(origin), sep(origin), key,
                       sec->name, hint);
}

// the error for a section the schema does not have, with the nearest section name
static int unknown_section(const char* section, const char* origin, char* errstr) {
  int n;
  const ne__cfg_section* sections = ne__config_sections(&n);
  const char* names[64];
  char list[256] = "";
  size_t used = 0;
  for (int s = 0; s < n && s < 64; s++) {
    names[s] = sections[s].name;
    used += (size_t)snprintf(list + used, used < sizeof list ? sizeof list - used : 0, "%s[%s]", s ? ", " : "",
                             sections[s].name);
    if (used >= sizeof list) used = sizeof list - 1;
  }
  const char* near = ne__nearest(section, names, n < 64 ? n : 64);
  if (near)
    return ne__set_error(errstr, NE_ENOTFOUND, "%s%sunknown section [%.60s] (did you mean [%s]?)", orig(origin),
                         sep(origin), section, near);
  return ne__set_error(errstr, NE_ENOTFOUND, "%s%sunknown section [%.60s] (sections: %s)", orig(origin), sep(origin),
                       section, list);
}

// ne_config_set's body; `overridden` marks a value set by ne_config_override
static int set_value(ne_config* cfg, const char* section, const char* key, const char* value, const char* origin,
                     int overridden, char* errstr) {
  const ne__cfg_section* sec = find_section(section);
  if (!sec) return unknown_section(section, origin, errstr);
  int idx = find_index(section, key);
  if (idx < 0) return unknown_key(sec, key, origin, errstr);
  // "key = value" must fit one inih line, or the formatted config would not load back
  char buf[MAX_VALUE + 1];
  size_t limit = INI_MAX_LINE - 2 - strlen(key) - 3;
  if (trim_copy(value, buf) != 0 || strlen(buf) > limit)
    return ne__set_error(errstr, NE_ERANGE, "%s%s[%s] %s: value longer than %zu characters (an INI line's limit)",
                         orig(origin), sep(origin), section, key, limit);
  int rc = assign(cfg, idx, buf, origin, ++cfg->next_seq, errstr);
  if (!rc) cfg->vals[idx].overridden = overridden;
  return rc;
}

int ne_config_set(ne_config* cfg, const char* section, const char* key, const char* value, const char* origin,
                  char* errstr) {
  if (!cfg || !section || !key || !value) return ne__set_error(errstr, NE_EINVAL, "ne_config_set: NULL argument");
  return set_value(cfg, section, key, value, origin, 0, errstr);
}

// Appends line and a newline to the list *lines (cfg->notes, cfg->sources); a line that cannot be
// stored (no memory) is dropped.
static void append_line(char** lines, const char* line) {
  size_t old = *lines ? strlen(*lines) : 0, add = strlen(line);
  char* grown = ne_realloc(*lines, old + add + 2);
  if (!grown) return;
  memcpy(grown + old, line, add);
  memcpy(grown + old + add, "\n", 2);
  *lines = grown;
}

// run.algorithm was just set by an override: the sections of other algorithms that files set are
// what the override switches away from, so they go back to their defaults (the run and its resume
// then read the same values) with a note naming where they were set. Values of such sections set
// by overrides stay: asking for both is a conflict that ne_config_validate reports.
static void drop_other_algorithms(ne_config* cfg, const char* origin) {
  int n;
  const ne__cfg_section* sections = ne__config_sections(&n);
  const char* algo = ne_config_str(cfg, "run", "algorithm");
  for (int s = 0; s < n; s++) {
    // only other algorithms' sections: one this algorithm lists behind a switch that is off
    // ([novelty] for ga) stays, since a later override may turn the switch on
    if (ne__config_section_use(cfg, &sections[s], algo, NULL) != 0) continue;
    const cfg_value* first = NULL;
    int dropped = 0;
    for (int k = 0; k < sections[s].n_keys; k++) {
      int idx = find_index(sections[s].name, sections[s].keys[k].key);
      cfg_value* v = &cfg->vals[idx];
      if (v->seq == 0 || v->overridden) continue;
      if (!first || v->seq < first->seq) first = v;
      dropped++;
    }
    if (!dropped) continue;
    char line[512];
    snprintf(line, sizeof line, "%s%srun.algorithm = %s: ignoring [%s] (%d key%s, first at %s)", orig(origin),
             sep(origin), algo, sections[s].name, dropped, dropped == 1 ? "" : "s",
             first->origin ? first->origin : "an earlier input");
    append_line(&cfg->notes, line);
    for (int k = 0; k < sections[s].n_keys; k++) {
      int idx = find_index(sections[s].name, sections[s].keys[k].key);
      if (cfg->vals[idx].seq == 0 || cfg->vals[idx].overridden) continue;
      // a default always parses (ne_config_create asserted it), so this cannot fail but for memory,
      // in which case the old value stays and validation names the section
      assign(cfg, idx, sections[s].keys[k].default_value, NULL, 0, NULL);
    }
  }
}

// The error for a bare `key=value`: the section.key it most likely means. An exact key name
// wins, in the section run.algorithm uses when several have it (es.lr over pgpe.lr for es); else
// the nearest key name of the whole schema.
static int bare_key(const ne_config* cfg, const char* assignment, const char* key, const char* origin, char* errstr) {
  const ne_config_key* schema = ne_config_schema();
  int n = ne_config_schema_count(), pick = -1;
  const char* algo = ne_config_str(cfg, "run", "algorithm");
  for (int i = 0; i < n; i++) {
    if (strcmp(schema[i].key, key) != 0) continue;
    if (pick < 0 || ne__config_section_use(cfg, find_section(schema[i].section), algo, NULL) == 1) pick = i;
  }
  char hint[160] = "e.g. ga.population=500";
  if (pick >= 0) {
    snprintf(hint, sizeof hint, "did you mean %s.%s?", schema[pick].section, schema[pick].key);
  } else {
    const char** names = ne_malloc((size_t)n * sizeof *names);
    for (int i = 0; names && i < n; i++) names[i] = schema[i].key;
    const char* near = names ? ne__nearest(key, names, n) : NULL;
    for (int i = 0; near && i < n; i++)
      if (names[i] == near) {
        snprintf(hint, sizeof hint, "did you mean %s.%s?", schema[i].section, schema[i].key);
        break;
      }
    ne_free(names);
  }
  return ne__set_error(errstr, NE_EPARSE, "%s%s'%.60s': expected section.key=value (%s)", orig(origin), sep(origin),
                       assignment, hint);
}

int ne_config_override(ne_config* cfg, const char* assignment, const char* origin, char* errstr) {
  if (!cfg || !assignment) return ne__set_error(errstr, NE_EINVAL, "ne_config_override: NULL argument");
  // split "section.key=value" at the first '=' and the first '.' before it
  char name[256];
  const char* eq = strchr(assignment, '=');
  size_t len = eq ? (size_t)(eq - assignment) : 0;
  if (!eq || len >= sizeof name)
    return ne__set_error(errstr, NE_EPARSE, "%s%s'%.60s': expected section.key=value (e.g. ga.population=500)",
                         orig(origin), sep(origin), assignment);
  memcpy(name, assignment, len);
  name[len] = '\0';
  char section[256];
  if (trim_copy(name, section) != 0) section[0] = '\0';
  char* dot = strchr(section, '.');
  if (!dot) return bare_key(cfg, assignment, section, origin, errstr);
  *dot = '\0';
  char key[256];
  if (trim_copy(dot + 1, key) != 0) key[0] = '\0';
  char sec_trim[256];
  if (trim_copy(section, sec_trim) != 0) sec_trim[0] = '\0';
  // a key given twice is a slip (which one was meant?), not "the last one wins"
  int idx = find_index(sec_trim, key);
  if (idx >= 0 && cfg->vals[idx].overridden)
    return ne__set_error(errstr, NE_EINVAL, "%s%s%s.%s is overridden twice: '%.60s' and '%.60s' (give it once)",
                         orig(origin), sep(origin), sec_trim, key,
                         cfg->vals[idx].assignment ? cfg->vals[idx].assignment : "?", assignment);
  int rc = set_value(cfg, sec_trim, key, eq + 1, origin, 1, errstr);
  if (!rc) cfg->vals[idx].assignment = ne_strdup(assignment);  // a copy that fails only loses the quote
  if (!rc && strcmp(sec_trim, "run") == 0 && strcmp(key, "algorithm") == 0) drop_other_algorithms(cfg, origin);
  return rc;
}

// ---------------------------------------------------------------------------------------------
// create / destroy / clone

ne_config* ne_config_create(void) {
  ne_config* cfg = ne_calloc(1, sizeof *cfg);
  if (!cfg) return NULL;
  cfg->n = ne_config_schema_count();
  cfg->vals = ne_calloc((size_t)cfg->n, sizeof *cfg->vals);
  if (!cfg->vals) {
    ne_free(cfg);
    return NULL;
  }
  // every key starts at its default; a default that does not parse is a schema bug
  const ne_config_key* schema = ne_config_schema();
  for (int i = 0; i < cfg->n; i++) {
    int rc = assign(cfg, i, schema[i].default_value, NULL, 0, NULL);
    assert(rc != NE_EPARSE && rc != NE_ERANGE);
    if (rc != 0) {
      ne_config_destroy(cfg);
      return NULL;
    }
  }
  return cfg;
}

void ne_config_destroy(ne_config* cfg) {
  if (!cfg) return;
  for (int i = 0; i < cfg->n && cfg->vals; i++) {
    ne_free(cfg->vals[i].text);
    ne_free(cfg->vals[i].origin);
    ne_free(cfg->vals[i].assignment);
  }
  ne_free(cfg->vals);
  ne_free(cfg->notes);
  ne_free(cfg->sources);
  ne_free(cfg);
}

ne_config* ne_config_clone(const ne_config* cfg) {
  if (!cfg) return NULL;
  ne_config* copy = ne_calloc(1, sizeof *copy);
  if (!copy) return NULL;
  copy->vals = ne_calloc((size_t)cfg->n, sizeof *copy->vals);
  if (!copy->vals) {
    ne_free(copy);
    return NULL;
  }
  copy->n = cfg->n;
  copy->next_seq = cfg->next_seq;
  if ((cfg->notes && !(copy->notes = ne_strdup(cfg->notes))) ||
      (cfg->sources && !(copy->sources = ne_strdup(cfg->sources)))) {
    ne_free(copy->notes);
    ne_free(copy->vals);
    ne_free(copy);
    return NULL;
  }
  // struct copy for the typed fields, then own copies of the strings
  for (int i = 0; i < cfg->n; i++) {
    copy->vals[i] = cfg->vals[i];
    copy->vals[i].text = ne_strdup(cfg->vals[i].text);
    copy->vals[i].origin = cfg->vals[i].origin ? ne_strdup(cfg->vals[i].origin) : NULL;
    copy->vals[i].assignment = cfg->vals[i].assignment ? ne_strdup(cfg->vals[i].assignment) : NULL;
    if (!copy->vals[i].text || (cfg->vals[i].origin && !copy->vals[i].origin) ||
        (cfg->vals[i].assignment && !copy->vals[i].assignment)) {
      copy->n = i + 1;
      ne_config_destroy(copy);
      return NULL;
    }
  }
  return copy;
}

// ---------------------------------------------------------------------------------------------
// INI loading

// State shared by the line reader and the key handler during one parse.
typedef struct load_ctx {
  ne_config* cfg;              // the working copy values go into
  const char* name;            // file name for messages
  const char* rest;            // unread input
  unsigned long seq_base;      // cfg->next_seq before this load: a value with a larger seq was set by it
  int line;                    // lines handed to inih so far = the line inih is parsing now
  int err_line;                // line of the first error we found (0: none yet)
  int err;                     // its code
  char errstr[NE_ERRSTR_LEN];  // its message
} load_ctx;

// keeps the first error only; inih reads on after a failed line
static void record_error(load_ctx* c, int code) {
  c->err_line = c->line;
  c->err = code;
}

// a "[name]" line naming a section the schema lacks is an error even when no key follows
static void check_section_line(load_ctx* c, const char* line, size_t len) {
  const char* close = memchr(line, ']', len);
  if (!close || c->err_line) return;
  char name[128], origin[300];
  size_t n = (size_t)(close - line - 1);
  if (n >= sizeof name) n = sizeof name - 1;
  memcpy(name, line + 1, n);
  name[n] = '\0';
  if (find_section(name)) return;
  snprintf(origin, sizeof origin, "%s:%d", c->name, c->line);
  record_error(c, unknown_section(name, origin, c->errstr));
}

// fgets-style reader for inih: one line per call, leading blanks dropped so that an indented line is
// never taken as a continuation of the previous value (a silent surprise otherwise)
static char* read_line(char* str, int num, void* stream) {
  load_ctx* c = stream;
  if (*c->rest == '\0') return NULL;
  c->line++;
  const char* eol = strchr(c->rest, '\n');
  size_t len = eol ? (size_t)(eol - c->rest) : strlen(c->rest);
  const char* start = c->rest;
  c->rest += len + (eol ? 1 : 0);
  while (len > 0 && (*start == ' ' || *start == '\t')) start++, len--;
  // comments may be any length (long help text in formatted configs); inih needs none of them,
  // nor the inline ones (`sigma = 0.05  # comment`, `; comment`), nor the blanks before those
  for (size_t i = 0; i < len; i++)
    if (comment_at(start, start + i)) {
      len = i;
      break;
    }
  while (len > 0 && (start[len - 1] == ' ' || start[len - 1] == '\t' || start[len - 1] == '\r')) len--;
  if (len + 1 > (size_t)num) {
    if (!c->err_line)
      record_error(
          c, ne__set_error(c->errstr, NE_EPARSE, "%s:%d: line longer than %d characters", c->name, c->line, num - 2));
    len = 0;
  }
  if (len > 0 && start[0] == '[') check_section_line(c, start, len);
  memcpy(str, start, len);
  str[len] = '\0';
  return str;
}

// inih callback for each key = value
static int on_value(void* user, const char* section, const char* name, const char* value) {
  load_ctx* c = user;
  if (c->err_line) return 1;
  char origin[300];
  snprintf(origin, sizeof origin, "%s:%d", c->name, c->line);
  int rc, idx = find_index(section, name);
  if (strcmp(section, "run") == 0 && strcmp(name, "base") == 0) return 1;  // the chain's link: load_chain
  if (section[0] == '\0')
    rc = ne__set_error(c->errstr, NE_EPARSE, "%s: key '%.60s' is outside any section (start with e.g. [run])", origin,
                       name);
  else if (idx >= 0 && c->cfg->vals[idx].seq > c->seq_base)  // set earlier in this same text
    rc = ne__set_error(c->errstr, NE_EINVAL, "%s: [%s] %s is set twice (first at %s): remove one of the two lines",
                       origin, section, name, orig(c->cfg->vals[idx].origin));
  else rc = ne_config_set(c->cfg, section, name, value, origin, c->errstr);
  if (rc == 0) c->cfg->vals[idx].parsed = 1;
  if (rc != 0) record_error(c, rc);
  return rc == 0;
}

// A resolved config lacks only keys that postdate it: those with a legacy value get it (see
// ne_config_load_string), in the sections the file holds (the shared ones and run.algorithm's;
// another algorithm's section is never written, and setting it would make the config invalid).
// `first_seq` is the first seq this load assigned.
static int apply_legacy_values(ne_config* cfg, unsigned long first_seq, const char* name, char* errstr) {
  const ne_config_key* schema = ne_config_schema();
  const char* algo = ne_config_str(cfg, "run", "algorithm");
  for (int i = 0; i < cfg->n; i++) {
    const char* legacy = ne__config_legacy_value(&schema[i]);
    if (!legacy || cfg->vals[i].seq >= first_seq) continue;
    const ne__cfg_section* sec = find_section(schema[i].section);
    if (ne__config_section_use(cfg, sec, algo, NULL) != 1) continue;
    char origin[300];
    snprintf(origin, sizeof origin, "%s (written before [%s] %s existed)", name, schema[i].section, schema[i].key);
    int rc = assign(cfg, i, legacy, origin, ++cfg->next_seq, errstr);
    if (rc != 0) return rc;
  }
  return 0;
}

// parses text into cfg (a working copy); returns 0 or the first error
static int parse_into(ne_config* cfg, const char* text, const char* name, char* errstr) {
  load_ctx c = {.cfg = cfg, .name = name, .rest = text, .seq_base = cfg->next_seq};
  int ret = ini_parse_stream(read_line, &c, on_value, &c);
  // inih reports the first bad line, ours or a syntax error it found itself
  if (ret > 0 && (c.err_line == 0 || ret < c.err_line))
    return ne__set_error(errstr, NE_EPARSE, "%s:%d: syntax error: expected [section] or key = value", name, ret);
  if (c.err_line) {
    if (errstr) memcpy(errstr, c.errstr, NE_ERRSTR_LEN);
    return c.err;
  }
  if (ret < 0) return ne__set_error(errstr, NE_ENOMEM, "%s: out of memory", name);
  return 0;
}

static int load_chain(ne_config* cfg, const char* text, const char* name, int depth, char* errstr);

// `[run] base = NAME` in text: the base (a config name or a path, next to `name` first) is loaded
// into cfg before text itself, so the text's keys override the base's.
static int load_base(ne_config* cfg, const char* text, const char* name, int depth, char* errstr) {
  char base[512], path[4096];
  if (ne__ini_get(text, "run", "base", base, sizeof base) != 0) return 0;
  if (depth >= MAX_BASE_DEPTH)
    return ne__set_error(errstr, NE_EINVAL, "%s: [run] base = %s: more than %d bases in a chain (a cycle?)", name, base,
                         MAX_BASE_DEPTH);
  char why[NE_ERRSTR_LEN];
  if (ne_config_find(base, name, path, sizeof path, why) != 0)
    return ne__set_error(errstr, NE_ENOTFOUND, "%s: [run] base: %s", name, why);
  char* base_text;
  int rc = ne__read_file(path, &base_text, NULL, errstr);
  if (rc) return rc;
  rc = load_chain(cfg, base_text, path, depth + 1, errstr);
  ne_free(base_text);
  return rc;
}

// applies text (after its base chain) to cfg, all or nothing
static int load_chain(ne_config* cfg, const char* text, const char* name, int depth, char* errstr) {
  // fill a copy and swap it in, so a failed load leaves cfg as it was
  ne_config* work = ne_config_clone(cfg);
  if (!work) return ne__set_error(errstr, NE_ENOMEM, "%s: out of memory", name);
  int resolved = strncmp(text, NE_CONFIG_RESOLVED_HEADER, strlen(NE_CONFIG_RESOLVED_HEADER)) == 0;
  int rc = resolved ? 0 : load_base(work, text, name, depth, errstr);
  unsigned long first_seq = work->next_seq + 1;
  if (rc == 0) rc = parse_into(work, text, name, errstr);
  if (rc == 0 && resolved) rc = apply_legacy_values(work, first_seq, name, errstr);
  if (rc == 0 && depth > 0) append_line(&work->sources, name);
  if (rc == 0) {
    ne_config tmp = *cfg;
    *cfg = *work;
    *work = tmp;
  }
  ne_config_destroy(work);
  return rc;
}

int ne_config_load_string(ne_config* cfg, const char* text, const char* name, char* errstr) {
  if (!cfg || !text) return ne__set_error(errstr, NE_EINVAL, "ne_config_load_string: NULL argument");
  return load_chain(cfg, text, name ? name : "<string>", 0, errstr);
}

int ne_config_load_file(ne_config* cfg, const char* path, char* errstr) {
  if (!cfg || !path) return ne__set_error(errstr, NE_EINVAL, "ne_config_load_file: NULL argument");
  char* text;
  int rc = ne__read_file(path, &text, NULL, errstr);
  if (rc != 0) return rc;
  rc = ne_config_load_string(cfg, text, path, errstr);
  ne_free(text);
  if (rc == 0) append_line(&cfg->sources, path);
  return rc;
}

const char* ne_config_sources(const ne_config* cfg) { return cfg && cfg->sources ? cfg->sources : ""; }

// ---------------------------------------------------------------------------------------------
// typed reads

// the value of (section, key), asserted to exist with one of two types; a zero value if not
static const cfg_value* get(const ne_config* cfg, const char* section, const char* key, ne_cfg_type t1,
                            ne_cfg_type t2) {
  static const cfg_value missing = {.text = ""};
  int idx = find_index(section, key);
  assert(idx >= 0 && "unknown config key");
  if (idx < 0) return &missing;
  ne_cfg_type t = ne_config_schema()[idx].type;
  assert((t == t1 || t == t2) && "config key read with the wrong type");
  if (t != t1 && t != t2) return &missing;
  return &cfg->vals[idx];
}

int64_t ne_config_int(const ne_config* cfg, const char* section, const char* key) {
  return get(cfg, section, key, NE_CFG_INT, NE_CFG_INT)->i;
}

double ne_config_float(const ne_config* cfg, const char* section, const char* key) {
  return get(cfg, section, key, NE_CFG_FLOAT, NE_CFG_FLOAT)->f;
}

int ne_config_bool(const ne_config* cfg, const char* section, const char* key) {
  return (int)get(cfg, section, key, NE_CFG_BOOL, NE_CFG_BOOL)->i;
}

const char* ne_config_text(const ne_config* cfg, const char* section, const char* key) {
  int idx = find_index(section, key);
  return idx >= 0 ? cfg->vals[idx].text : NULL;
}

const char* ne_config_assignment(const ne_config* cfg, const char* section, const char* key) {
  int idx = find_index(section, key);
  return idx >= 0 && cfg->vals[idx].overridden ? cfg->vals[idx].assignment : NULL;
}

const char* ne_config_str(const ne_config* cfg, const char* section, const char* key) {
  return get(cfg, section, key, NE_CFG_STRING, NE_CFG_ENUM)->text;
}

int ne_config_intlist(const ne_config* cfg, const char* section, const char* key, int* out, int max) {
  const cfg_value* v = get(cfg, section, key, NE_CFG_INTLIST, NE_CFG_INTLIST);
  for (int i = 0; i < v->n_list && i < max; i++) out[i] = v->list[i];
  return v->n_list;
}

const char* ne_config_notes(const ne_config* cfg) { return cfg && cfg->notes ? cfg->notes : ""; }

int ne_config_is_set(const ne_config* cfg, const char* section, const char* key) {
  int idx = find_index(section, key);
  assert(idx >= 0 && "unknown config key");
  return idx >= 0 && cfg->vals[idx].seq != 0;
}

// ---------------------------------------------------------------------------------------------
// cross-key validation

// where a value came from, for messages
static const char* where(const cfg_value* v) {
  if (v->origin) return v->origin;
  return v->seq ? "set by the program" : "the default";
}

// the value of (section, key); the key must exist
static const cfg_value* val(const ne_config* cfg, const char* section, const char* key) {
  int idx = find_index(section, key);
  assert(idx >= 0);
  return &cfg->vals[idx];
}

int ne__config_section_use(const ne_config* cfg, const ne__cfg_section* sec, const char* algo, char* switch_key) {
  if (!sec->algorithm) return 1;
  // walk "a|b|c:key" item by item
  for (const char* p = sec->algorithm; *p;) {
    size_t len = strcspn(p, "|"), name = strcspn(p, ":|");
    if (name == strlen(algo) && strncmp(p, algo, name) == 0) {
      if (name == len) return 1;
      char key[48];
      snprintf(key, sizeof key, "%.*s", (int)(len - name - 1), p + name + 1);
      if (ne_config_bool(cfg, algo, key)) return 1;
      if (switch_key) snprintf(switch_key, 64, "%s.%s", algo, key);
      return -1;
    }
    p += len + (p[len] == '|');
  }
  return 0;
}

// A section's "a|b|c:key" as words: "'a' (or b, c with c.key = true)".
static void algorithm_list(const char* spec, char* out, size_t size) {
  size_t len = strcspn(spec, "|"), name = strcspn(spec, ":|"), used;
  used = (size_t)snprintf(out, size, "'%.*s'", (int)name, spec);
  for (const char *p = spec + len, *sep = " (or "; *p == '|' && used < size; sep = ", ") {
    p++;
    len = strcspn(p, "|");
    name = strcspn(p, ":|");
    if (name < len)
      used += (size_t)snprintf(out + used, size - used, "%s%.*s with %.*s.%.*s = true", sep, (int)name, p, (int)name, p,
                               (int)(len - name - 1), p + name + 1);
    else used += (size_t)snprintf(out + used, size - used, "%s%.*s", sep, (int)name, p);
    p += len;
    if (*p != '|' && used < size) used += (size_t)snprintf(out + used, size - used, ")");
  }
}

int ne__config_check_algorithm_sections(const ne_config* cfg, const ne__cfg_section* sections, int n, char* errstr) {
  const char* algo = ne_config_str(cfg, "run", "algorithm");
  for (int s = 0; s < n; s++) {
    char switch_key[64];
    int use = ne__config_section_use(cfg, &sections[s], algo, switch_key);
    if (use == 1) continue;
    // the first key set in this section, in the order the inputs set them
    const cfg_value* first = NULL;
    for (int k = 0; k < sections[s].n_keys; k++) {
      int idx = find_index(sections[s].name, sections[s].keys[k].key);
      if (idx < 0 || cfg->vals[idx].seq == 0) continue;
      if (!first || cfg->vals[idx].seq < first->seq) first = &cfg->vals[idx];
    }
    if (!first) continue;
    if (use < 0)
      return ne__set_error(errstr, NE_EINVAL,
                           "%s: section [%s] has no effect while %s = false (set %s = true or remove [%s])",
                           where(first), sections[s].name, switch_key, switch_key, sections[s].name);
    // the first algorithm the section lists is the suggestion; the others are named after it
    char names[256];
    size_t first_len = strcspn(sections[s].algorithm, ":|");
    algorithm_list(sections[s].algorithm, names, sizeof names);
    return ne__set_error(errstr, NE_EINVAL,
                         "%s: section [%s] configures algorithm %s, but run.algorithm = %s (remove [%s] or set "
                         "algorithm = %.*s)",
                         where(first), sections[s].name, names, algo, sections[s].name, (int)first_len,
                         sections[s].algorithm);
  }
  return 0;
}

// small <= big for two INT keys of one section; the message points at whichever the user set
static int check_not_above(const ne_config* cfg, const char* section, const char* small, const char* big,
                           char* errstr) {
  const cfg_value* a = val(cfg, section, small);
  const cfg_value* b = val(cfg, section, big);
  if (a->i <= b->i) return 0;
  const cfg_value* blame = a->seq >= b->seq ? a : b;
  return ne__set_error(errstr, NE_EINVAL,
                       "%s: [%s] %s = %" PRId64 " must be <= %s = %" PRId64 " (%s from %s, %s from %s)", where(blame),
                       section, small, a->i, big, b->i, small, where(a), big, where(b));
}

// run.target: auto, none or a finite number
static int check_target(const ne_config* cfg, char* errstr) {
  const cfg_value* v = val(cfg, "run", "target");
  double d;
  if (strcmp(v->text, "auto") == 0 || strcmp(v->text, "none") == 0 || parse_float(v->text, &d) == 0) return 0;
  return ne__set_error(errstr, NE_EPARSE, "%s: [run] target = '%.60s': expected auto, none or a number", where(v),
                       v->text);
}

int ne_config_validate(const ne_config* cfg, char* errstr) {
  if (!cfg) return ne__set_error(errstr, NE_EINVAL, "ne_config_validate: NULL config");
  int n;
  const ne__cfg_section* sections = ne__config_sections(&n);
  int rc = ne__config_check_algorithm_sections(cfg, sections, n, errstr);
  if (rc == 0) rc = check_target(cfg, errstr);
  if (rc == 0) rc = check_not_above(cfg, "ga", "truncation", "population", errstr);
  if (rc == 0) rc = check_not_above(cfg, "ga", "elite_candidates", "population", errstr);
  return rc;
}

// ---------------------------------------------------------------------------------------------
// formatting

// A growing text buffer; `failed` sticks after the first allocation failure.
typedef struct strbuf {
  char* data;  // (cap) NUL-terminated text
  size_t len;  // bytes used, without the NUL
  size_t cap;  // bytes allocated
  int failed;  // 1 after an allocation failure
} strbuf;

static void appendf(strbuf* b, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
static void appendf(strbuf* b, const char* fmt, ...) {
  if (b->failed) return;
  va_list ap;
  va_start(ap, fmt);
  int need = vsnprintf(b->data ? b->data + b->len : NULL, b->data ? b->cap - b->len : 0, fmt, ap);
  va_end(ap);
  if (need < 0) return;
  if (b->data && b->len + (size_t)need < b->cap) {
    b->len += (size_t)need;
    return;
  }
  // grow and print again
  size_t cap = b->cap ? b->cap : 4096;
  while (cap <= b->len + (size_t)need) cap *= 2;
  char* grown = ne_realloc(b->data, cap);
  if (!grown) {
    b->failed = 1;
    return;
  }
  b->data = grown;
  b->cap = cap;
  va_start(ap, fmt);
  vsnprintf(b->data + b->len, b->cap - b->len, fmt, ap);
  va_end(ap);
  b->len += (size_t)need;
}

// "integer in [2, 10000000], default 1000"-style description for the comment above a key
static void describe_key(const ne_config_key* k, char* buf, size_t cap) {
  char range[80];
  fmt_range(k, range, sizeof range);
  const char* def = k->default_value[0] ? k->default_value : "empty";
  switch (k->type) {
    case NE_CFG_INT: snprintf(buf, cap, "integer%s, default %s", range, def); break;
    case NE_CFG_FLOAT: snprintf(buf, cap, "number%s, default %s", range, def); break;
    case NE_CFG_BOOL: snprintf(buf, cap, "true/false, default %s", def); break;
    case NE_CFG_ENUM: snprintf(buf, cap, "one of %s, default %s", k->choices, def); break;
    case NE_CFG_INTLIST:
      snprintf(buf, cap, "integers%s, at most %d, default %s", range, ne__config_list_max(k), def);
      break;
    default: snprintf(buf, cap, "text, default %s", def);
  }
}

// one section: its help, header, and each key with a comment; with origins, a value that an
// override or the program set says so (what a file set, the file itself shows)
static void format_section(const ne_config* cfg, const ne__cfg_section* sec, int origins, strbuf* b) {
  appendf(b, "\n# %s\n[%s]\n", sec->help, sec->name);
  for (int k = 0; k < sec->n_keys; k++) {
    const ne_config_key* key = &sec->keys[k];
    const cfg_value* v = val(cfg, sec->name, key->key);
    char desc[200];
    describe_key(key, desc, sizeof desc);
    appendf(b, "# %s  [%s]\n", key->help, desc);
    if (origins && v->seq && !v->parsed && v->origin) {
      if (v->assignment) appendf(b, "# set by %s: %s\n", v->origin, v->assignment);
      else appendf(b, "# set by %s\n", v->origin);
    }
    appendf(b, "%s = %s\n", key->key, v->text);
  }
}

static char* format(const ne_config* cfg, int origins) {
  if (!cfg) return NULL;
  strbuf b = {0};
  appendf(&b,
          NE_CONFIG_RESOLVED_HEADER
          ": every key, defaults included; comments give each key's meaning,\n"
          "# type and default. Load it with `neuroevo run FILE`; override keys with section.key=value.\n");
  // sections of other algorithms are left out: they would make the file invalid to load
  int n;
  const ne__cfg_section* sections = ne__config_sections(&n);
  const char* algo = ne_config_str(cfg, "run", "algorithm");
  for (int s = 0; s < n; s++)
    if (ne__config_section_use(cfg, &sections[s], algo, NULL) == 1) format_section(cfg, &sections[s], origins, &b);
  if (b.failed) {
    ne_free(b.data);
    return NULL;
  }
  return b.data;
}

// text for a Markdown table cell: '|' would end the cell (`bar` replaces it), and outside `code`
// '*' would start emphasis and '<' an HTML tag, so they are escaped
static void append_cell(strbuf* b, const char* text, const char* bar) {
  int code = 0;
  for (const char* c = text; *c; c++) {
    if (*c == '`') code = !code;
    if (*c == '|') appendf(b, "%s", bar);
    else if (!code && *c == '*') appendf(b, "\\*");
    else if (!code && *c == '<') appendf(b, "&lt;");
    else if (!code && *c == '>') appendf(b, "&gt;");
    else appendf(b, "%c", *c);
  }
}

// "the run.algorithm values that use this section", in words
static void append_used_by(strbuf* b, const ne__cfg_section* sec) {
  if (!sec->algorithm) {
    appendf(b, "Used by every algorithm.");
    return;
  }
  appendf(b, "Used when `run.algorithm` is ");
  const char* a = sec->algorithm;
  int first = 1;
  while (*a) {
    size_t n = strcspn(a, "|");
    const char* colon = memchr(a, ':', n);
    if (!first) appendf(b, a[n] ? ", " : " or ");
    if (colon)
      appendf(b, "`%.*s` with `%.*s.%.*s = true`", (int)(colon - a), a, (int)(colon - a), a,
              (int)(n - (size_t)(colon - a) - 1), colon + 1);
    else appendf(b, "`%.*s`", (int)n, a);
    first = 0;
    a += n + (a[n] == '|');
  }
  appendf(b, "; under another algorithm the section is an error.");
}

// one section of the reference: a heading, its help, then a table of its keys
static void reference_section(const ne__cfg_section* sec, strbuf* b) {
  appendf(b, "\n## [%s]\n\n%c", sec->name, toupper((unsigned char)sec->help[0]));
  append_cell(b, sec->help + 1, "|");
  appendf(b, ". ");
  append_used_by(b, sec);
  appendf(b, "\n\n| key | value | default | meaning |\n| --- | --- | --- | --- |\n");
  for (int k = 0; k < sec->n_keys; k++) {
    const ne_config_key* key = &sec->keys[k];
    char range[80];
    fmt_range(key, range, sizeof range);
    appendf(b, "| `%s` | ", key->key);
    switch (key->type) {
      case NE_CFG_INT: appendf(b, "integer%s", range); break;
      case NE_CFG_FLOAT: appendf(b, "number%s", range); break;
      case NE_CFG_BOOL: appendf(b, "true/false"); break;
      case NE_CFG_ENUM:
        appendf(b, "one of ");
        append_cell(b, key->choices, ", ");
        break;
      case NE_CFG_INTLIST: appendf(b, "integers%s, at most %d", range, ne__config_list_max(key)); break;
      default: appendf(b, "text");
    }
    if (key->default_value[0]) appendf(b, " | `%s` | ", key->default_value);
    else appendf(b, " | (empty) | ");
    append_cell(b, key->help, "\\|");
    const char* legacy = ne__config_legacy_value(key);
    if (legacy) appendf(b, ". A run directory written before this default reads it as `%s`", legacy);
    appendf(b, " |\n");
  }
}

char* ne_config_reference(const char* section, char* errstr) {
  int n;
  const ne__cfg_section* sections = ne__config_sections(&n);
  int found = 0;
  strbuf b = {0};
  for (int s = 0; s < n; s++) {
    if (section && strcmp(section, sections[s].name) != 0) continue;
    reference_section(&sections[s], &b);
    found = 1;
  }
  if (!found) {
    // name the nearest section, as an unknown key does
    const char* names[64];
    int m = n < 64 ? n : 64;
    for (int s = 0; s < m; s++) names[s] = sections[s].name;
    const char* near = ne__nearest(section, names, m);
    ne__set_error(errstr, NE_EINVAL, "no config section [%s]%s%s%s", section, near ? " (did you mean [" : "",
                  near ? near : "", near ? "]?)" : "");
    ne_free(b.data);
    return NULL;
  }
  if (b.failed) {
    ne_free(b.data);
    ne__set_error(errstr, NE_ENOMEM, "out of memory formatting the config reference");
    return NULL;
  }
  return b.data;
}

char* ne_config_format(const ne_config* cfg) { return format(cfg, 0); }

int ne_config_write_file(const ne_config* cfg, const char* path, char* errstr) {
  if (!cfg || !path) return ne__set_error(errstr, NE_EINVAL, "ne_config_write_file: NULL argument");
  char* text = format(cfg, 1);
  if (!text) return ne__set_error(errstr, NE_ENOMEM, "%s: out of memory formatting the config", path);
  int rc = ne__write_file_atomic(path, text, strlen(text), errstr);
  ne_free(text);
  return rc;
}
