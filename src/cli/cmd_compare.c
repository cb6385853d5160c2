// SPDX-License-Identifier: MIT
// `neuroevo compare CONFIG... [--seeds K] [--generations G] [--threads N] [section.key=value ...]
// [--out DIR] [--redis URL]`: trains every config with seeds 0..K-1 (several runs at a time on the
// threads, or on Redis workers) and writes summary.csv, summary.md and compare.png next to the run
// directories (the work is in src/report/compare.c). Ctrl-C checkpoints the runs; the same command
// then continues where it stopped (the default directory is named after the configs).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>  // access: an existing compare directory

#include "cli/cli_redis.h"  // --redis: each run on Redis workers
#include "cli/cli_util.h"
#include "cli/commands.h"
#include "core/crc32c.h"  // the default directory's name
#include "core/util.h"    // ne__mkdir_p
#include "neuroevo/alloc.h"
#include "neuroevo/compare.h"
#include "neuroevo/config.h"
#include "neuroevo/error.h"
#include "neuroevo/pool.h"  // ne_cpu_count: --threads 0

#define MAX_CONFIGS 32
#define MAX_OVERRIDES 256

static const char COMPARE_USAGE[] =
    "usage: neuroevo compare CONFIG... [section.key=value ...] [options]\n"
    "\n"
    "Trains each CONFIG (a named config such as pendulum-cmaes, or an INI path) with seeds 0..K-1\n"
    "and compares them. Overrides apply to every config (e.g. run.target=none).\n"
    "\n"
    "options:\n"
    "  --seeds K         runs per config (default 3)\n"
    "  --generations G   each run's generation budget, 0 = no limit (default: the configs')\n"
    "  --threads N       evaluation threads in all, 0 = all cores (default: the configs' run.threads);\n"
    "                    min(N, runs) runs train at once, each on N / that many threads\n"
    "  --out DIR         output directory (default: runs/compare-<configs>-<hash of the configs and\n"
    "                    overrides>, so the same command finds it again); an existing one is\n"
    "                    continued: finished runs are kept, interrupted ones resumed\n"
    "  --threshold X     score that counts as solved, for every config (default: each config's\n"
    "                    run.target; for bbob/* an f value to get at or below)\n"
    "  --redis URL       evaluate on Redis workers (`neuroevo worker --redis URL`), one run after\n"
    "                    another; --task-timeout S and --chunk N as for `neuroevo run`\n"
    "  --quiet           no progress lines\n"
    "  -h, --help        this text\n"
    "\n"
    "Every run is the same as the run alone (`neuroevo run CONFIG run.seed=K`): threads and workers\n"
    "change nothing but wall times. DIR gets summary.csv (config, seed, final score, best score, env\n"
    "steps or evaluations to the threshold, wall time), summary.md (mean, median, 95% bootstrap\n"
    "interval per config), compare.png (mean curve with its bootstrap band per config) and every\n"
    "run's directory.\n";

// Parsed command line.
typedef struct compare_args {
  const char* configs[MAX_CONFIGS];  // CONFIG arguments
  int n_configs;
  const char* overrides[MAX_OVERRIDES];  // section.key=value arguments
  int n_overrides;
  ne_compare_options opt;  // seeds, threads, out_dir, threshold, quiet
} compare_args;

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

// Loads config i with the overrides; names it after the file (made unique with -2, -3, ...).
static int load_config(const compare_args* args, int i, ne_config** out, char* name, size_t name_size) {
  char path[4096], base[200], err[NE_ERRSTR_LEN];
  int rc = ne_cli_find_config(args->configs[i], path, sizeof path, base, sizeof base);
  if (rc) return rc;
  snprintf(name, name_size, "%s", base);
  *out = ne_config_create();
  if (!*out) return 1;
  if (ne_config_load_file(*out, path, err) != 0) {
    fprintf(stderr, "neuroevo: %s\n", err);
    return 2;
  }
  for (int k = 0; k < args->n_overrides; k++)
    if (ne_config_override(*out, args->overrides[k], "command line", err) != 0) {
      fprintf(stderr, "neuroevo: %s\n", err);
      return 2;
    }
  if (ne_config_validate(*out, err) != 0) {
    fprintf(stderr, "neuroevo: %s: %s\n", path, err);
    return 2;
  }
  ne_cli_print_notes(*out);
  return 0;
}

static void unique_names(char (*names)[256], int n) {
  for (int i = 1; i < n; i++)
    for (int j = 0, dup = 2; j < i; j++)
      if (strcmp(names[i], names[j]) == 0) {
        char base[200];
        snprintf(base, sizeof base, "%s", names[i]);
        snprintf(names[i], sizeof names[i], "%s-%d", base, dup++);
        j = -1;  // check the new name against all earlier ones again
      }
}

// The default directory: runs/compare-<names>-<crc>, where crc covers the names and the resolved
// configs without what varies between invocations of the same comparison (seed, budget, threads,
// run.out): the same command finds its directory again and continues it, --seeds and --generations
// can grow, and any other change of a config gets a directory of its own.
static int default_out(char (*names)[256], ne_config** cfgs, int n, char* buf, size_t size) {
  static const char* const neutral[][2] = {{"seed", "0"}, {"generations", "0"}, {"threads", "0"}, {"out", "runs"}};
  uint32_t crc = 0;
  char label[96] = "";
  size_t used = 0;
  for (int i = 0; i < n; i++) {
    ne_config* c = ne_config_clone(cfgs[i]);
    for (size_t k = 0; c && k < sizeof neutral / sizeof neutral[0]; k++)
      ne_config_set(c, "run", neutral[k][0], neutral[k][1], NULL, NULL);
    char* text = c ? ne_config_format(c) : NULL;
    ne_config_destroy(c);
    if (!text) return 1;
    crc = ne__crc32c(crc, names[i], strlen(names[i]) + 1);
    crc = ne__crc32c(crc, text, strlen(text));
    ne_free(text);
    if (used < sizeof label - 1)
      used += (size_t)snprintf(label + used, sizeof label - used, "%s%s", i ? "-" : "", names[i]);
  }
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

int ne_cmd_compare(int argc, char** argv) {
  if (ne_cli_wants_help(argc, argv)) {
    fputs(COMPARE_USAGE, stdout);
    return 0;
  }
  static compare_args args;
  memset(&args, 0, sizeof args);
  int rc = parse_args(argc, argv, &args);
  if (rc) return rc;
  ne_config* cfgs[MAX_CONFIGS] = {0};
  static char names[MAX_CONFIGS][256];
  for (int i = 0; i < args.n_configs && !rc; i++) rc = load_config(&args, i, &cfgs[i], names[i], sizeof names[i]);
  unique_names(names, args.n_configs);
  char out[4096];
  if (!rc && !args.opt.out_dir) {
    rc = default_out(names, cfgs, args.n_configs, out, sizeof out);
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
  if (!rc) {
    ne_compare_entry entries[MAX_CONFIGS];
    for (int i = 0; i < args.n_configs; i++) entries[i] = (ne_compare_entry){names[i], cfgs[i]};
    ne_cli_install_stop_handler("stopping: runs keep their last completed generation");
    args.opt.stop = &ne_cli_stop;
    char probe_path[4200];
    snprintf(probe_path, sizeof probe_path, "%s/%s", args.opt.out_dir, names[0]);
    if (!args.opt.quiet)
      printf("compare directory: %s%s\n", args.opt.out_dir, access(probe_path, F_OK) == 0 ? " (continuing)" : "");
    char err[NE_ERRSTR_LEN];
    int crc = ne_compare_run(entries, args.n_configs, &args.opt, err);
    if (crc) fprintf(stderr, "neuroevo: %s\n", err);
    rc = crc == 0                                                     ? 0
        : crc == NE_EINTR                                             ? ne_cli_stop_status()
        : crc == NE_EINVAL || crc == NE_ENOTFOUND || crc == NE_EPARSE ? 2
                                                                      : 1;
    if (!rc && !args.opt.quiet)
      printf("summary:           %s/summary.md\nplot:              %s/compare.png\n", args.opt.out_dir,
             args.opt.out_dir);
  }
  for (int i = 0; i < args.n_configs; i++) ne_config_destroy(cfgs[i]);
  return rc;
}
