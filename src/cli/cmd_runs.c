// SPDX-License-Identifier: MIT
// `neuroevo runs [DIR...] [--filter KEY=VALUE ...] [--tag T ...] [--sort FIELD] [--json]`: lists the
// runs under some directories (a runs/ folder, studies, single runs) from their records
// (runinfo.h), filtered and sorted, as a table or as JSON for scripts; `neuroevo tag RUN TAG...
// [--remove TAG] [--note TEXT]`: edits a run's tags and note; `neuroevo track [DIR...] [--to URL]`:
// sends runs to an MLflow server (track.h).
#include <cjson/cJSON.h>  // --json
#include <fnmatch.h>      // --filter's glob patterns
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "core/util.h"  // ne__fmt_count, ne__fmt_duration
#include "neuroevo/alloc.h"
#include "neuroevo/error.h"
#include "neuroevo/runinfo.h"
#include "neuroevo/track.h"  // neuroevo track

#define MAX_FILTERS 64
#define MAX_PATHS 256

static const char RUNS_USAGE[] =
    "usage: neuroevo runs [DIR...] [--filter KEY=VALUE ...] [--tag T ...] [--sort FIELD] [--json]\n"
    "\n"
    "Lists the runs under each DIR (default: runs), studies' runs included, from each run's record\n"
    "(run.json): name, status, env, algorithm, generations, env steps, best and last elite score,\n"
    "wall and CPU time, tags. A run still marked running whose process is gone shows as killed.\n"
    "\n"
    "options:\n"
    "  --filter KEY=VALUE  keep runs whose KEY matches VALUE (a glob: env=Lunar*); also KEY!=VALUE\n"
    "                      and the numeric KEY>X, KEY<X, KEY>=X, KEY<=X. KEY is a listed field (status,\n"
    "                      env, algorithm, name, arm, seed, generations, env_steps, best, elite,\n"
    "                      wall_s, cpu_s, tags, note, host, commit, created), a path into run.json\n"
    "                      (neuroevo.commit, machine.cpu, config.source) or a config key (es.lr)\n"
    "  --tag T             keep runs tagged T (repeatable: all of them)\n"
    "  --sort FIELD        order by FIELD (numbers numerically); -FIELD for descending\n"
    "                      (default: created)\n"
    "  --json              one JSON array: each run's fields and its whole record\n"
    "  -h, --help          this text\n";

static const char TAG_USAGE[] =
    "usage: neuroevo tag RUN_DIR [TAG...] [--remove TAG ...] [--note TEXT]\n"
    "\n"
    "Adds tags to a run's record (run.json), removes some (--remove), sets its note (--note \"\"\n"
    "clears it). `neuroevo runs --tag T` finds tagged runs.\n";

// One --filter: KEY OP VALUE.
typedef struct filter {
  char key[128];
  char op[3];  // "=", "!=", ">", "<", ">=", "<="
  const char* value;
} filter;

typedef struct runs_args {
  const char* paths[MAX_PATHS];
  int n_paths;
  filter filters[MAX_FILTERS];
  int n_filters;
  const char* tags[MAX_FILTERS];
  int n_tags;
  const char* sort;
  int json;
} runs_args;

// the listing being built
typedef struct listing {
  const runs_args* args;
  ne_runinfo* runs;  // (n) kept runs
  int n, cap;
} listing;

// ---- filters ------------------------------------------------------------------------------------

static int parse_filter(const char* text, filter* f) {
  static const char* const ops[] = {"!=", ">=", "<=", "=", ">", "<"};
  for (const char* p = text; *p; p++)
    for (int k = 0; k < 6; k++) {
      size_t n = strlen(ops[k]);
      if (strncmp(p, ops[k], n) != 0 || p == text) continue;
      snprintf(f->key, sizeof f->key, "%.*s", (int)(p - text), text);
      snprintf(f->op, sizeof f->op, "%s", ops[k]);
      f->value = p + n;
      return 0;
    }
  fprintf(stderr, "neuroevo runs: --filter '%s': expected KEY=VALUE (or !=, >, <, >=, <=)\n", text);
  return 2;
}

static int number(const char* s, double* v) {
  char* end;
  *v = strtod(s, &end);
  return *s && end != s && *end == '\0';
}

static int matches(const ne_runinfo* r, const filter* f) {
  char v[1024];
  int has = ne_runinfo_field(r, f->key, v, sizeof v) == 0;
  if (f->op[0] == '=') return has && fnmatch(f->value, v, 0) == 0;
  if (f->op[0] == '!') return !has || fnmatch(f->value, v, 0) != 0;
  double a, b;
  if (!has || !number(v, &a) || !number(f->value, &b)) return 0;
  if (strcmp(f->op, ">") == 0) return a > b;
  if (strcmp(f->op, "<") == 0) return a < b;
  if (strcmp(f->op, ">=") == 0) return a >= b;
  return a <= b;
}

static int tagged(const ne_runinfo* r, const char* tag) {
  size_t n = strlen(tag);
  for (const char* p = r->tags; *p;) {
    size_t len = strcspn(p, ",");
    if (len == n && strncmp(p, tag, n) == 0) return 1;
    p += len + (p[len] == ',');
  }
  return 0;
}

// ne_runinfo_scan's callback: loads a run, keeps it when every filter and tag matches
static int visit(void* user, const char* dir) {
  listing* l = user;
  ne_runinfo r;
  if (ne_runinfo_load(dir, &r, NULL) != 0) return 0;
  int keep = 1;
  for (int i = 0; keep && i < l->args->n_filters; i++) keep = matches(&r, &l->args->filters[i]);
  for (int i = 0; keep && i < l->args->n_tags; i++) keep = tagged(&r, l->args->tags[i]);
  if (keep && l->n == l->cap) {
    int cap = l->cap ? 2 * l->cap : 256;
    ne_runinfo* grown = ne_realloc(l->runs, (size_t)cap * sizeof *grown);
    if (!grown) keep = 0;
    else l->runs = grown, l->cap = cap;
  }
  if (!keep) {
    ne_runinfo_free(&r);
    return 0;
  }
  // the texts are needed again only for --json
  if (!l->args->json) ne_runinfo_free(&r);
  l->runs[l->n++] = r;
  return 0;
}

// ---- sorting ------------------------------------------------------------------------------------

static const char* sort_key;  // qsort has no user pointer: the field, set just before sorting
static int sort_sign;         // 1 ascending, -1 descending

static int by_field(const void* pa, const void* pb) {
  const ne_runinfo *a = pa, *b = pb;
  char va[1024], vb[1024];
  int ha = ne_runinfo_field(a, sort_key, va, sizeof va) == 0 && va[0];
  int hb = ne_runinfo_field(b, sort_key, vb, sizeof vb) == 0 && vb[0];
  if (!ha || !hb) return hb - ha;  // runs without the field go last either way
  double x, y;
  int c = number(va, &x) && number(vb, &y) ? (x > y) - (x < y) : strcmp(va, vb);
  if (!c) c = strcmp(a->dir, b->dir);
  return sort_sign * c;
}

// ---- output -------------------------------------------------------------------------------------

static void score(double v, char* buf, size_t size) {
  if (isnan(v)) snprintf(buf, size, "-");
  else if (fabs(v) >= 1e5 || (v != 0 && fabs(v) < 1e-2)) snprintf(buf, size, "%.3g", v);
  else snprintf(buf, size, "%.2f", v);
}

static void print_table(const listing* l) {
  int w = 3;  // the RUN column's width
  for (int i = 0; i < l->n; i++) {
    int len = (int)strlen(l->runs[i].dir);
    if (len > w) w = len;
  }
  if (w > 70) w = 70;
  printf("%-*s  %-8s %-18s %-9s %6s %8s %10s %10s %8s %8s  %s\n", w, "RUN", "STATUS", "ENV", "ALGO", "GENS", "STEPS",
         "BEST", "ELITE", "WALL", "CPU", "TAGS");
  for (int i = 0; i < l->n; i++) {
    const ne_runinfo* r = &l->runs[i];
    char steps[16], best[24], elite[24], wall[16], cpu[16];
    ne__fmt_count(r->env_steps, steps, sizeof steps);
    score(r->best, best, sizeof best);
    score(r->elite, elite, sizeof elite);
    ne__fmt_duration(r->wall_s, wall, sizeof wall);
    ne__fmt_duration(r->cpu_s, cpu, sizeof cpu);
    printf("%-*s  %-8s %-18.18s %-9.9s %6lld %8s %10s %10s %8s %8s  %s\n", w, r->dir, r->status, r->env, r->algorithm,
           (long long)r->generations, steps, best, elite, wall, cpu, r->tags);
  }
  fprintf(stderr, "%d run%s\n", l->n, l->n == 1 ? "" : "s");
}

static cJSON* json_num(double v) { return isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull(); }

static void print_json(const listing* l) {
  cJSON* all = cJSON_CreateArray();
  for (int i = 0; all && i < l->n; i++) {
    const ne_runinfo* r = &l->runs[i];
    cJSON* o = cJSON_CreateObject();
    const char* strs[][2] = {{"dir", r->dir},       {"name", r->name}, {"status", r->status},
                             {"reason", r->reason}, {"env", r->env},   {"algorithm", r->algorithm},
                             {"study", r->study},   {"arm", r->arm},   {"created", r->created},
                             {"ended", r->ended},   {"host", r->host}, {"commit", r->commit},
                             {"note", r->note}};
    for (size_t k = 0; k < sizeof strs / sizeof strs[0]; k++) cJSON_AddStringToObject(o, strs[k][0], strs[k][1]);
    cJSON* tags = cJSON_AddArrayToObject(o, "tags");
    for (const char* p = r->tags; *p;) {
      size_t len = strcspn(p, ",");
      char tag[256];
      snprintf(tag, sizeof tag, "%.*s", (int)len, p);
      cJSON_AddItemToArray(tags, cJSON_CreateString(tag));
      p += len + (p[len] == ',');
    }
    cJSON_AddNumberToObject(o, "seed", r->seed);
    cJSON_AddNumberToObject(o, "generations", (double)r->generations);
    cJSON_AddItemToObject(o, "evaluations", json_num(r->evaluations));
    cJSON_AddItemToObject(o, "env_steps", json_num(r->env_steps));
    cJSON_AddItemToObject(o, "best", json_num(r->best));
    cJSON_AddItemToObject(o, "elite", json_num(r->elite));
    cJSON_AddItemToObject(o, "wall_s", json_num(r->wall_s));
    cJSON_AddItemToObject(o, "cpu_s", json_num(r->cpu_s));
    cJSON_AddBoolToObject(o, "minimized", r->minimized);
    cJSON* rec = r->record ? cJSON_Parse(r->record) : NULL;
    cJSON_AddItemToObject(o, "record", rec ? rec : cJSON_CreateNull());
    cJSON_AddItemToArray(all, o);
  }
  char* text = all ? cJSON_PrintUnformatted(all) : NULL;
  if (text) printf("%s\n", text);
  cJSON_free(text);
  cJSON_Delete(all);
}

// ---- the commands -----------------------------------------------------------------------------------

static int parse_runs_args(int argc, char** argv, runs_args* a) {
  for (int i = 1; i < argc; i++) {
    const char* o = argv[i];
    if (strcmp(o, "--json") == 0) {
      a->json = 1;
    } else if (o[0] == '-') {
      if (strcmp(o, "--filter") != 0 && strcmp(o, "--tag") != 0 && strcmp(o, "--sort") != 0)
        return fprintf(stderr, "neuroevo runs: unknown option %s (see neuroevo runs --help)\n", o), 2;
      if (i + 1 >= argc) return fprintf(stderr, "neuroevo runs: %s needs a value\n", o), 2;
      const char* v = argv[++i];
      if (strcmp(o, "--filter") == 0 && a->n_filters < MAX_FILTERS) {
        if (parse_filter(v, &a->filters[a->n_filters++])) return 2;
      } else if (strcmp(o, "--tag") == 0 && a->n_tags < MAX_FILTERS) {
        a->tags[a->n_tags++] = v;
      } else if (strcmp(o, "--sort") == 0) {
        a->sort = v;
      }
    } else if (a->n_paths < MAX_PATHS) {
      a->paths[a->n_paths++] = o;
    }
  }
  if (a->n_paths == 0) a->paths[a->n_paths++] = "runs";
  return 0;
}

int ne_cmd_runs(int argc, char** argv) {
  if (ne_cli_wants_help(argc, argv)) {
    fputs(RUNS_USAGE, stdout);
    return 0;
  }
  static runs_args args;
  memset(&args, 0, sizeof args);
  int rc = parse_runs_args(argc, argv, &args);
  if (rc) return rc;
  listing l = {&args, NULL, 0, 0};
  char err[NE_ERRSTR_LEN];
  rc = ne_runinfo_scan(args.paths, args.n_paths, visit, &l, err);
  if (rc) fprintf(stderr, "neuroevo runs: %s\n", err);
  if (!rc) {
    sort_key = args.sort ? args.sort + (args.sort[0] == '-') : "created";
    sort_sign = args.sort && args.sort[0] == '-' ? -1 : 1;
    if (l.n > 1) qsort(l.runs, (size_t)l.n, sizeof *l.runs, by_field);
    if (args.json) print_json(&l);
    else print_table(&l);
  }
  for (int i = 0; i < l.n; i++) ne_runinfo_free(&l.runs[i]);
  ne_free(l.runs);
  return rc == NE_ENOTFOUND ? 2 : rc ? 1 : 0;
}

int ne_cmd_tag(int argc, char** argv) {
  if (ne_cli_wants_help(argc, argv)) {
    fputs(TAG_USAGE, stdout);
    return 0;
  }
  const char* dir = NULL;
  const char *add[MAX_FILTERS], *remove[MAX_FILTERS], *note = NULL;
  int n_add = 0, n_remove = 0;
  for (int i = 1; i < argc; i++) {
    const char* o = argv[i];
    if (strcmp(o, "--note") == 0 || strcmp(o, "--remove") == 0) {
      if (i + 1 >= argc) return fprintf(stderr, "neuroevo tag: %s needs a value\n", o), 2;
      if (o[2] == 'n') note = argv[++i];
      else if (n_remove < MAX_FILTERS) remove[n_remove++] = argv[++i];
    } else if (o[0] == '-') {
      return fprintf(stderr, "neuroevo tag: unknown option %s (see neuroevo tag --help)\n", o), 2;
    } else if (!dir) {
      dir = o;
    } else if (n_add < MAX_FILTERS) {
      add[n_add++] = o;
    }
  }
  if (!dir || (n_add == 0 && n_remove == 0 && !note)) {
    fputs(TAG_USAGE, stderr);
    return 2;
  }
  char err[NE_ERRSTR_LEN];
  int rc = ne_runinfo_tag(dir, add, n_add, remove, n_remove, note, err);
  if (rc) {
    fprintf(stderr, "neuroevo tag: %s\n", err);
    return rc == NE_EIO || rc == NE_ENOMEM ? 1 : 2;
  }
  return 0;
}

// ---- neuroevo track ---------------------------------------------------------------------------------

static const char TRACK_USAGE[] =
    "usage: neuroevo track [DIR...] [--to URL] [--experiment NAME]\n"
    "\n"
    "Sends the runs under each DIR (default: runs; studies included) to an MLflow tracking server:\n"
    "what it lacks of each (params, tags, metrics of every generation; artifacts and the final status\n"
    "of runs that ended). A run trained with run.track = URL does this as it trains; this command\n"
    "sends what such a run could not (the server was down) or runs made without tracking.\n"
    "\n"
    "options:\n"
    "  --to URL          the server (default: each run's run.track, else $MLFLOW_TRACKING_URI)\n"
    "  --experiment NAME the MLflow experiment (default: the study's directory name, else the\n"
    "                    config's name)\n"
    "  -h, --help        this text\n";

typedef struct track_args {
  const char* url;
  const char* experiment;
  int runs, failed;
} track_args;

static int track_one(void* user, const char* dir) {
  track_args* a = user;
  ne_runinfo r;
  int final = ne_runinfo_load(dir, &r, NULL) == 0 && strcmp(r.status, "running") != 0;
  ne_runinfo_free(&r);
  ne_track_options opt = {.url = a->url, .experiment = a->experiment, .final = final};
  ne_track_stats st;
  char err[NE_ERRSTR_LEN];
  a->runs++;
  if (ne_track_sync(dir, &opt, &st, err) != 0) {
    fprintf(stderr, "neuroevo track: %s: %s\n", dir, err);
    a->failed++;
    return 0;
  }
  printf("%s: run %s (experiment %s): %d metric row%s, %d file%s sent\n", dir, st.run_id, st.experiment_id, st.rows,
         st.rows == 1 ? "" : "s", st.artifacts, st.artifacts == 1 ? "" : "s");
  return 0;
}

int ne_cmd_track(int argc, char** argv) {
  if (ne_cli_wants_help(argc, argv)) {
    fputs(TRACK_USAGE, stdout);
    return 0;
  }
  static const char* paths[MAX_PATHS];
  int n = 0;
  track_args a = {0};
  for (int i = 1; i < argc; i++) {
    const char* o = argv[i];
    if (strcmp(o, "--to") == 0 || strcmp(o, "--experiment") == 0) {
      if (i + 1 >= argc) return fprintf(stderr, "neuroevo track: %s needs a value\n", o), 2;
      if (o[2] == 't') a.url = argv[++i];
      else a.experiment = argv[++i];
    } else if (o[0] == '-') {
      return fprintf(stderr, "neuroevo track: unknown option %s (see neuroevo track --help)\n", o), 2;
    } else if (n < MAX_PATHS) {
      paths[n++] = o;
    }
  }
  if (n == 0) paths[n++] = "runs";
  char err[NE_ERRSTR_LEN];
  int rc = ne_runinfo_scan(paths, n, track_one, &a, err);
  if (rc) {
    fprintf(stderr, "neuroevo track: %s\n", err);
    return 2;
  }
  if (a.runs == 0) fprintf(stderr, "neuroevo track: no runs under the given directories\n");
  return a.failed ? 1 : 0;
}
