// SPDX-License-Identifier: MIT
// `neuroevo compare CONFIG... [section.key=value ...] [NAME:section.key=value ...] [--sweep
// [NAME:]section.key=V1,V2,...] [--seeds K] [--generations G] [--threads N] [--out DIR] [--redis URL]`:
// a study. The command line becomes arms here: each CONFIG with the overrides for every config and
// those for it alone (NAME:), then one arm per combination of the swept values that apply to it
// ("lander-es[es.lr=0.01]"); the library (src/report/compare.c) trains every arm with seeds
// 0..K-1, each run in a process of its own, and writes summary.csv, summary.md and compare.png.
// A failed run is listed and the rest go on (exit 3); Ctrl-C checkpoints the runs; the same command
// then continues where it stopped (the default directory is named after the arms).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>  // access: an existing compare directory

#include "cli/cli_redis.h"  // --redis: each run on Redis workers
#include "cli/cli_util.h"
#include "cli/commands.h"
#include "core/crc32c.h"  // the default directory's name
#include "core/util.h"    // ne__mkdir_p, ne__nearest
#include "neuroevo/alloc.h"
#include "neuroevo/compare.h"
#include "neuroevo/config.h"
#include "neuroevo/error.h"
#include "neuroevo/pool.h"  // ne_cpu_count: --threads 0

#define MAX_CONFIGS 32
#define MAX_ARMS 256
#define MAX_OVERRIDES 256
#define MAX_SWEEPS 8
#define MAX_VALUES 64
#define NAME_CAP 256

static const char COMPARE_USAGE[] =
    "usage: neuroevo compare CONFIG... [section.key=value ...] [NAME:section.key=value ...] [options]\n"
    "\n"
    "A study: trains each arm (a CONFIG, a named config such as pendulum-cmaes or an INI path) with\n"
    "seeds 0..K-1 and compares them. section.key=value applies to every config, NAME:section.key=value\n"
    "to the config named NAME alone (e.g. lander-es:es.lr=0.02 next to Nevergrad configs).\n"
    "\n"
    "options:\n"
    "  --sweep [NAME:]section.key=V1,V2,...\n"
    "                    one arm per value, named after it (lander-es[es.lr=0.01]); several sweeps\n"
    "                    make a grid; NAME: sweeps that config alone; values holding commas (lists)\n"
    "                    are separated by ';' instead (policy.hidden=16,16;32,32)\n"
    "  --seeds K         runs per arm (default 3)\n"
    "  --generations G   each run's generation budget, 0 = no limit (default: the configs')\n"
    "  --threads N       evaluation threads in all, 0 = all cores (default: the configs' run.threads);\n"
    "                    min(N, runs) runs train at once, each on N / that many threads\n"
    "  --out DIR         output directory (default: runs/compare-<arms>-<hash of the arms' configs>,\n"
    "                    so the same command finds it again); an existing one is continued:\n"
    "                    finished runs are kept, failed and interrupted ones resumed\n"
    "  --threshold X     score that counts as solved, for every arm (default: each config's\n"
    "                    run.target; for bbob/* an f value to get at or below)\n"
    "  --redis URL       evaluate on Redis workers (`neuroevo worker --redis URL`), one run after\n"
    "                    another; --task-timeout S and --chunk N as for `neuroevo run`\n"
    "  --progress S      seconds between status lines (runs done, running, ETA; default 30)\n"
    "  --tag T, --note TEXT  tags and a note for every run's record (run.json)\n"
    "  --track URL       an MLflow tracking server (run.track=URL): the study is an experiment there,\n"
    "                    named after DIR, with a run per arm and seed\n"
    "  --quiet           no progress lines (failures and where the summary is are still said)\n"
    "  -h, --help        this text\n"
    "\n"
    "Every run is the same as the run alone (`neuroevo run CONFIG run.seed=K`) and trains in a process\n"
    "of its own: a run that fails (its config, env or optimizer, an optimizer call over its time\n"
    "limit, a crash) is recorded with its error while the others go on. DIR gets study.json (arms,\n"
    "each run's status), summary.csv (arm, seed, final score, best score, env steps or evaluations\n"
    "to the threshold, wall time, status), summary.md (mean, median and an interval per arm, the\n"
    "failed runs with their errors), compare.png (mean curve with its band per arm) and every run's\n"
    "directory. Exit status: 0 all runs finished, 3 some failed (the rest is summarized; the same\n"
    "command retries them), 130 interrupted, 2 bad input.\n";

// One --sweep: a key, its values, and the config it is for (NULL: every config).
typedef struct sweep {
  char key[128];             // section.key
  char* values[MAX_VALUES];  // (n) owned by `text`
  int n;
  char text[1024];        // the values' storage
  char config[NAME_CAP];  // NAME of NAME:..., "" for every config
} sweep;

// Parsed command line.
typedef struct compare_args {
  const char* configs[MAX_CONFIGS];  // CONFIG arguments
  int n_configs;
  const char* overrides[MAX_OVERRIDES];  // section.key=value and NAME:section.key=value arguments
  int n_overrides;
  sweep sweeps[MAX_SWEEPS];
  int n_sweeps;
  ne_compare_options opt;  // seeds, threads, out_dir, threshold, quiet
  ne_cli_origin origin;    // the command line, --tag, --note
} compare_args;

// The arms the command line makes.
typedef struct arms {
  char config_names[MAX_CONFIGS][NAME_CAP];  // each CONFIG's name (unique)
  char paths[MAX_CONFIGS][4096];             // and file
  char names[MAX_ARMS][NAME_CAP];            // each arm's name
  ne_config* cfgs[MAX_ARMS];
  int n;
} arms;

// ---- the command line ---------------------------------------------------------------------------

// "[NAME:]section.key=V1,V2" into s; 0 or 2 after a message
static int parse_sweep(const char* text, sweep* s) {
  memset(s, 0, sizeof *s);
  const char* eq = strchr(text, '=');
  const char* colon = strchr(text, ':');
  if (colon && eq && colon < eq) {
    snprintf(s->config, sizeof s->config, "%.*s", (int)(colon - text), text);
    text = colon + 1;
  }
  eq = strchr(text, '=');
  if (!eq || eq == text || !strchr(text, '.') || strchr(text, '.') > eq) {
    fprintf(stderr, "neuroevo compare: --sweep '%s': expected [NAME:]section.key=V1,V2,...\n", text);
    return 2;
  }
  snprintf(s->key, sizeof s->key, "%.*s", (int)(eq - text), text);
  snprintf(s->text, sizeof s->text, "%s", eq + 1);
  const char* sep = strchr(s->text, ';') ? ";" : ",";  // list values: ';' between them
  char* save = NULL;
  for (char* v = strtok_r(s->text, sep, &save); v && s->n < MAX_VALUES; v = strtok_r(NULL, sep, &save))
    s->values[s->n++] = v;
  if (s->n == 0) {
    fprintf(stderr, "neuroevo compare: --sweep %s: no values\n", s->key);
    return 2;
  }
  for (int i = 0; i < s->n; i++)
    for (int j = 0; j < i; j++)
      if (strcmp(s->values[i], s->values[j]) == 0) {
        fprintf(stderr, "neuroevo compare: --sweep %s: value '%s' given twice\n", s->key, s->values[i]);
        return 2;
      }
  return 0;
}

// Parses an option with a value; returns 0 or the exit code.
static int parse_valued(const char* a, const char* value, compare_args* args) {
  long long v;
  int rc;
  if (strcmp(a, "--seeds") == 0) {
    if ((rc = ne_cli_parse_int("compare", a, value, 1, 1000, &v))) return rc;
    args->opt.seeds = (int)v;
  } else if (strcmp(a, "--threads") == 0) {
    if ((rc = ne_cli_parse_int("compare", a, value, 0, 1024, &v))) return rc;
    args->opt.threads = v > 0 ? (int)v : ne_cpu_count();  // 0 = all cores, as run.threads = 0
  } else if (strcmp(a, "--generations") == 0) {
    if ((rc = ne_cli_parse_int("compare", a, value, 0, 1000000000, &v))) return rc;
    args->opt.generations = v;  // 0 = no limit, as run.generations = 0
    args->opt.generations_set = 1;
  } else if (strcmp(a, "--sweep") == 0) {
    if (args->n_sweeps == MAX_SWEEPS) return fprintf(stderr, "neuroevo compare: at most %d sweeps\n", MAX_SWEEPS), 2;
    return parse_sweep(value, &args->sweeps[args->n_sweeps++]);
  } else if (strcmp(a, "--track") == 0) {  // = run.track=URL for every arm
    static char item[1100];
    snprintf(item, sizeof item, "run.track=%s", value);
    if (args->n_overrides == MAX_OVERRIDES) return fprintf(stderr, "neuroevo compare: too many overrides\n"), 2;
    args->overrides[args->n_overrides++] = item;
  } else if (strcmp(a, "--progress") == 0) {
    return ne_cli_parse_double("compare", a, value, 0.1, 1e6, "seconds", &args->opt.progress_s);
  } else if (ne_cli_origin_option(&args->origin, "compare", a, value, &rc)) {  // --tag, --note
    return rc;
  } else if (ne_cli_redis_option("compare", a, value, &rc)) {  // --redis, --task-timeout, --chunk
    if (rc) return rc;
  } else if (strcmp(a, "--out") == 0) {
    args->opt.out_dir = value;
  } else if (strcmp(a, "--threshold") == 0) {
    char* end;
    args->opt.threshold = strtod(value, &end);
    if (*end || end == value) {
      fprintf(stderr, "neuroevo compare: --threshold expects a number, got '%s'\n", value);
      return 2;
    }
    args->opt.has_threshold = 1;
  } else {
    fprintf(stderr, "neuroevo compare: unknown option %s (see neuroevo compare --help)\n", a);
    return 2;
  }
  return 0;
}

static int parse_args(int argc, char** argv, compare_args* args) {
  ne_cli_origin_init(&args->origin);
  args->opt.origin = &args->origin.origin;
  for (int i = 1; i < argc; i++) {
    const char* a = argv[i];
    if (strcmp(a, "--quiet") == 0) {
      args->opt.quiet = 1;
    } else if (a[0] == '-') {
      if (i + 1 >= argc) {
        fprintf(stderr, "neuroevo compare: %s needs a value\n", a);
        return 2;
      }
      int rc = parse_valued(a, argv[++i], args);
      if (rc) return rc;
    } else if (ne_cli_is_override(a)) {
      if (args->n_overrides == MAX_OVERRIDES) return fprintf(stderr, "neuroevo compare: too many overrides\n"), 2;
      args->overrides[args->n_overrides++] = a;
    } else {
      if (args->n_configs == MAX_CONFIGS)
        return fprintf(stderr, "neuroevo compare: at most %d configs\n", MAX_CONFIGS), 2;
      args->configs[args->n_configs++] = a;
    }
  }
  if (args->n_configs == 0) {
    fputs(COMPARE_USAGE, stderr);
    return 2;
  }
  return 0;
}

// ---- arms ---------------------------------------------------------------------------------------

// `NAME:` of a per-config override or sweep: NAME (name_size) and the rest; 0 when there is none
static int split_target(const char* arg, char* name, size_t name_size, const char** rest) {
  const char* colon = strchr(arg, ':');
  const char* eq = strchr(arg, '=');
  if (!colon || !eq || colon > eq) return 0;
  snprintf(name, name_size, "%.*s", (int)(colon - arg), arg);
  *rest = colon + 1;
  return 1;
}

// the NAME of NAME:... must be one of the configs; 2 after a message naming the nearest
static int check_target(const arms* a, int n_configs, const char* name, const char* arg) {
  const char* names[MAX_CONFIGS];
  for (int i = 0; i < n_configs; i++) {
    if (strcmp(name, a->config_names[i]) == 0) return 0;
    names[i] = a->config_names[i];
  }
  const char* near = ne__nearest(name, names, n_configs);
  fprintf(stderr, "neuroevo compare: '%s': no config named '%s' in this study%s%s%s\n", arg, name,
          near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
  return 2;
}

static void unique_names(char (*names)[NAME_CAP], int n) {
  for (int i = 1; i < n; i++)
    for (int j = 0, dup = 2; j < i; j++)
      if (strcmp(names[i], names[j]) == 0) {
        char base[200];
        snprintf(base, sizeof base, "%s", names[i]);
        snprintf(names[i], NAME_CAP, "%s-%d", base, dup++);
        j = -1;  // check the new name against all earlier ones again
      }
}

// config c with the overrides for every config and those for c alone; NULL after a message
static ne_config* load_config(const compare_args* args, const arms* a, int c) {
  char err[NE_ERRSTR_LEN], name[NAME_CAP];
  ne_config* cfg = ne_config_create();
  if (!cfg) return NULL;
  int rc = ne_config_load_file(cfg, a->paths[c], err);
  for (int k = 0; !rc && k < args->n_overrides; k++) {
    const char* item = args->overrides[k];
    const char* rest = item;
    if (split_target(item, name, sizeof name, &rest) && strcmp(name, a->config_names[c]) != 0) continue;
    char origin[NAME_CAP + 32];
    snprintf(origin, sizeof origin, rest == item ? "command line" : "command line (%s:)", name);
    rc = ne_config_override(cfg, rest, origin, err);
  }
  if (rc) {
    fprintf(stderr, "neuroevo: %s\n", err);
    ne_config_destroy(cfg);
    return NULL;
  }
  ne_cli_print_notes(cfg);
  return cfg;
}

// one arm per combination of the sweeps for config c (of `base`); 0 or 2 after a message
static int add_swept_arms(const compare_args* args, arms* a, int c, const ne_config* base) {
  const sweep* mine[MAX_SWEEPS];
  int n = 0;
  for (int s = 0; s < args->n_sweeps; s++)
    if (!args->sweeps[s].config[0] || strcmp(args->sweeps[s].config, a->config_names[c]) == 0)
      mine[n++] = &args->sweeps[s];
  int combos = 1;
  for (int s = 0; s < n; s++) combos *= mine[s]->n;
  if (a->n + combos > MAX_ARMS) return fprintf(stderr, "neuroevo compare: more than %d arms\n", MAX_ARMS), 2;
  for (int m = 0; m < combos; m++) {
    ne_config* cfg = ne_config_clone(base);
    if (!cfg) return 1;
    char* name = a->names[a->n];
    size_t used = (size_t)snprintf(name, NAME_CAP, "%s", a->config_names[c]);
    for (int s = 0, rest = m; s < n; s++) {
      const char* value = mine[s]->values[rest % mine[s]->n];  // combination m, sweep s's digit
      rest /= mine[s]->n;
      char item[1200], err[NE_ERRSTR_LEN];
      snprintf(item, sizeof item, "%s=%s", mine[s]->key, value);
      if (ne_config_override(cfg, item, "--sweep", err) != 0) {
        fprintf(stderr, "neuroevo: %s: %s\n", a->config_names[c], err);
        ne_config_destroy(cfg);
        return 2;
      }
      if (used < NAME_CAP) used += (size_t)snprintf(name + used, NAME_CAP - used, "%s%s", s ? "," : "[", item);
    }
    if (n && used < NAME_CAP) snprintf(name + used, NAME_CAP - used, "]");
    for (char* p = name; *p; p++)
      if (*p == '/') *p = '_';  // an arm is a directory
    a->cfgs[a->n++] = cfg;
  }
  return 0;
}

// every arm of the command line, each validated; 0 or the exit code after a message
static int make_arms(const compare_args* args, arms* a) {
  for (int c = 0; c < args->n_configs; c++) {
    char base[200];
    int rc = ne_cli_find_config(args->configs[c], a->paths[c], sizeof a->paths[c], base, sizeof base);
    if (rc) return rc;
    snprintf(a->config_names[c], NAME_CAP, "%s", base);
  }
  unique_names(a->config_names, args->n_configs);
  // NAME:... must name a config
  char name[NAME_CAP];
  const char* rest;
  for (int k = 0; k < args->n_overrides; k++)
    if (split_target(args->overrides[k], name, sizeof name, &rest) &&
        check_target(a, args->n_configs, name, args->overrides[k]))
      return 2;
  for (int s = 0; s < args->n_sweeps; s++)
    if (args->sweeps[s].config[0] && check_target(a, args->n_configs, args->sweeps[s].config, args->sweeps[s].key))
      return 2;
  for (int c = 0; c < args->n_configs; c++) {
    ne_config* cfg = load_config(args, a, c);
    if (!cfg) return 2;
    int rc = add_swept_arms(args, a, c, cfg);
    ne_config_destroy(cfg);
    if (rc) return rc;
  }
  unique_names(a->names, a->n);
  return 0;
}

// The default directory: runs/compare-<names>-<crc>, where crc covers the arms' names and resolved
// configs without what varies between invocations of the same study (seed, budget, threads,
// run.out, tracking): the same command finds its directory again and continues it, --seeds and --generations
// can grow, and any other change of an arm gets a directory of its own.
static int default_out(const arms* a, const compare_args* args, char* buf, size_t size) {
  static const char* const neutral[][2] = {{"seed", "0"},   {"generations", "0"}, {"threads", "0"},
                                           {"out", "runs"}, {"track", ""},        {"track_experiment", ""}};
  uint32_t crc = 0;
  char label[96] = "";
  size_t used = 0;
  for (int i = 0; i < a->n; i++) {
    ne_config* c = ne_config_clone(a->cfgs[i]);
    for (size_t k = 0; c && k < sizeof neutral / sizeof neutral[0]; k++)
      ne_config_set(c, "run", neutral[k][0], neutral[k][1], NULL, NULL);
    char* text = c ? ne_config_format(c) : NULL;
    ne_config_destroy(c);
    if (!text) return 1;
    crc = ne__crc32c(crc, a->names[i], strlen(a->names[i]) + 1);
    crc = ne__crc32c(crc, text, strlen(text));
    ne_free(text);
  }
  // the label names the configs; swept arms share theirs
  for (int c = 0; c < args->n_configs; c++)
    if (used < sizeof label - 1)
      used += (size_t)snprintf(label + used, sizeof label - used, "%s%s", c ? "-" : "", a->config_names[c]);
  if (used > 60) label[60] = '\0';  // long lists: the crc keeps names apart
  snprintf(buf, size, "runs/compare-%s-%08x", label, crc);
  return 0;
}

#ifdef NE_HAVE_HIREDIS
// --redis: a master per run (cli_redis.h), its experiment id kept in the run directory for resume
static int redis_begin(void* user, const ne_config* cfg, const char* name, const char* run_dir, ne_executor** out,
                       char* errstr) {
  (void)user;
  int rc = ne_cli_redis_attach(cfg, name, run_dir, out);
  if (!rc && ne__mkdir_p(run_dir, errstr) != 0) rc = 1;
  else if (!rc) rc = ne_cli_redis_bind(*out, run_dir);
  if (!rc) return 0;
  ne_cli_redis_detach(*out, 1);
  *out = NULL;
  return ne__set_error(errstr, NE_EIO, "cannot evaluate on Redis (see above)");
}

static void redis_end(void* user, ne_executor* ex, int rc) {
  (void)user;
  ne_cli_redis_detach(ex, rc == 0 ? 0 : 1);  // a completed run finishes its experiment
}
#endif

// trains the arms; returns the exit code
static int study(compare_args* args, arms* a) {
  ne_compare_entry entries[MAX_ARMS];
  for (int i = 0; i < a->n; i++) entries[i] = (ne_compare_entry){a->names[i], a->cfgs[i]};
  ne_cli_install_stop_handler("stopping: runs keep their last completed generation");
  args->opt.stop = &ne_cli_stop;
  ne_compare_result res;
  args->opt.result = &res;
  char probe_path[4400];
  snprintf(probe_path, sizeof probe_path, "%s/study.json", args->opt.out_dir);
  int again = access(probe_path, F_OK) == 0;
  snprintf(probe_path, sizeof probe_path, "%s/%s", args->opt.out_dir, a->names[0]);
  again |= access(probe_path, F_OK) == 0;
  if (!args->opt.quiet) {
    int seeds = args->opt.seeds > 0 ? args->opt.seeds : 3;
    printf("compare directory: %s%s\n", args->opt.out_dir, again ? " (continuing)" : "");
    printf("study: %d arm%s x %d seed%s\n", a->n, a->n == 1 ? "" : "s", seeds, seeds == 1 ? "" : "s");
  }
  char err[NE_ERRSTR_LEN];
  int crc = ne_compare_run(entries, a->n, &args->opt, err);
  if (crc) {
    fprintf(stderr, "neuroevo: %s\n", err);
    return crc == NE_EINTR ? ne_cli_stop_status() : crc == NE_EINVAL || crc == NE_ENOTFOUND || crc == NE_EPARSE ? 2 : 1;
  }
  printf("summary:           %s/summary.md\n", args->opt.out_dir);
  if (!args->opt.quiet) printf("plot:              %s/compare.png\n", args->opt.out_dir);
  if (res.failed == 0) return 0;
  fprintf(stderr,
          "neuroevo: %d of %d runs failed (listed in %s/summary.md); the same command retries them, finished runs "
          "are kept\n",
          res.failed, res.runs, args->opt.out_dir);
  return 3;
}

int ne_cmd_compare(int argc, char** argv) {
  if (ne_cli_wants_help(argc, argv)) {
    fputs(COMPARE_USAGE, stdout);
    return 0;
  }
  static compare_args args;
  static arms a;
  memset(&args, 0, sizeof args);
  memset(&a, 0, sizeof a);
  int rc = parse_args(argc, argv, &args);
  if (!rc) rc = make_arms(&args, &a);
  char out[4096];
  if (!rc && !args.opt.out_dir) {
    rc = default_out(&a, &args, out, sizeof out);
    args.opt.out_dir = out;
  }
  // --redis: each run on the workers, one after another
  if (!rc && ne_cli_redis_wanted()) {
#ifdef NE_HAVE_HIREDIS
    args.opt.begin_run = redis_begin;
    args.opt.end_run = redis_end;
#else
    fprintf(stderr, "neuroevo compare: this build has no Redis support (install libhiredis-dev and rebuild)\n");
    rc = 2;
#endif
  }
  if (!rc) rc = study(&args, &a);
  for (int i = 0; i < a.n; i++) ne_config_destroy(a.cfgs[i]);
  return rc;
}
