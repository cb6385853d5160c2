// SPDX-License-Identifier: MIT
// `neuroevo run CONFIG [section.key=value ...] [--threads N] [--out DIR] [--generations G] [--quiet]`
// and `neuroevo resume RUN_DIR [--generations G] [--threads N]`: train, printing a progress line
// per generation; Ctrl-C (SIGTERM) checkpoints the last completed generation and exits with 130 (143).
#include <stdio.h>
#include <string.h>

#include "cli/cli_redis.h"  // --redis: distributed evaluation (cli_redis.c)
#include "cli/cli_util.h"
#include "cli/commands.h"
#include "neuroevo/config.h"
#include "neuroevo/error.h"
#include "neuroevo/pool.h"  // ne_cpu_count: --threads 0
#include "neuroevo/run.h"

static const char RUN_USAGE[] =
    "usage: neuroevo run CONFIG [section.key=value ...] [options]\n"
    "\n"
    "Trains a policy. CONFIG is a named config (configs/NAME.ini, e.g. cartpole-ga) or a path to an\n"
    "INI file; section.key=value pairs override it (e.g. ga.population=500 run.seed=3).\n"
    "\n"
    "options:\n"
    "  --threads N       evaluation threads (default: run.threads, 0 = all cores)\n"
    "  --out DIR         run directory to create (default: <run.out>/<config>-<timestamp>)\n"
    "  --generations G   stop after G generations in all, 0 = no limit (sets run.generations in the\n"
    "                    run's config.ini, so resume, dashboard and report keep this budget)\n"
    "  --quiet           no progress lines (log.txt in the run directory has them); the run\n"
    "                    directory and, when stopped, what was kept and where are still printed\n"
    "  --tag T           tag the run (repeatable; `neuroevo runs --tag T` finds it, `neuroevo tag` edits)\n"
    "  --note TEXT       a note kept in the run's record (run.json)\n"
    "  --track URL       send the run to an MLflow tracking server (run.track=URL; docs/studies.md)\n"
    "  --redis URL       evaluate on Redis workers (`neuroevo worker --redis URL`) instead of local\n"
    "                    threads; the results are identical (docs/scaling.md)\n"
    "  --task-timeout S  with --redis: re-publish tasks a silent worker held this long (default 10)\n"
    "  --join-timeout S  with --redis: stop when workers refused the run (the master prints why)\n"
    "                    and none joined for S seconds (default 60)\n"
    "  --min-workers N   with --redis: start once N workers have joined (a relay counts as one),\n"
    "                    or after the join timeout with those there are (default 1; sized from\n"
    "                    the first to join, a cluster's first round hands most of it to one node)\n"
    "  --chunk N         with --redis: candidates per task (default: sized from the live workers)\n"
    "  --episodes-per-task N|auto|off\n"
    "                    with --redis: split a candidate with more episodes over tasks of at most N\n"
    "                    episodes (identical results); auto (default): when one candidate holds more\n"
    "                    episodes than the round has per live worker thread (e.g. the GA's elite\n"
    "                    re-evaluation on hundreds of workers)\n"
    "  -h, --help        this text\n"
    "\n"
    "The run directory gets config.ini, run.json (the record: command line, source config, overrides,\n"
    "version, machine, times, status; `neuroevo runs` lists them), metrics.csv, checkpoints/,\n"
    "best.genome, curve.png, log.txt.\n"
    "Ctrl-C writes a checkpoint and exits; `neuroevo resume RUN_DIR` continues.\n";

static const char RESUME_USAGE[] =
    "usage: neuroevo resume RUN_DIR [--generations G] [--threads N] [--quiet] [--redis URL]\n"
    "\n"
    "Continues a run from its newest valid checkpoint (older ones are tried if it is corrupt).\n"
    "The results are identical to an uninterrupted run. Candidates the interrupted generation had\n"
    "finished (checkpoints/partial.log, local and Redis runs alike) are not evaluated again.\n"
    "--generations G sets a new total budget (0 = no limit), written to the run's config.ini;\n"
    "--threads N (0 = all cores). --redis URL continues on Redis workers (any Redis: one that\n"
    "restarted empty, or another); results of the interrupted generation still in that Redis are\n"
    "reused too (--task-timeout S, --join-timeout S, --min-workers N, --chunk N and\n"
    "--episodes-per-task as for run).\n";

// What the first Ctrl-C or SIGTERM prints: the episodes in hand end at their next step (a Redis
// master stops waiting for its workers); the candidates already finished are in
// checkpoints/partial.log, local and Redis runs alike. The run says exactly what it kept once it
// has stopped.
#define STOPPING \
  "stopping: the episodes in hand end, the finished candidates and the last completed generation are kept"

// Parses the options shared by run and resume; returns 0, or the exit code on a bad option.
static int parse_option(const char* cmd, int argc, char** argv, int* i, ne_run_options* opt, ne_cli_origin* origin) {
  const char* a = argv[*i];
  long long v;
  int rc;
  if (strcmp(a, "--quiet") == 0) {
    opt->quiet = 1;
    return 0;
  }
  if (*i + 1 >= argc) {
    fprintf(stderr, "neuroevo %s: %s needs a value\n", cmd, a);
    return 2;
  }
  const char* value = argv[++*i];
  if (strcmp(a, "--threads") == 0) {
    if ((rc = ne_cli_parse_int(cmd, a, value, 0, 1024, &v))) return rc;
    opt->threads = v > 0 ? (int)v : ne_cpu_count();  // 0 = all cores, as run.threads = 0
  } else if (strcmp(a, "--generations") == 0) {
    if ((rc = ne_cli_parse_int(cmd, a, value, 0, 1000000000, &v))) return rc;
    opt->generations = v;  // 0 = no limit, as run.generations = 0
    opt->generations_set = 1;
  } else if (strcmp(a, "--out") == 0 && strcmp(cmd, "run") == 0) {
    opt->out_dir = value;
  } else if (strcmp(a, "--track") == 0 && strcmp(cmd, "run") == 0) {  // = the override run.track=URL
    snprintf(origin->track, sizeof origin->track, "run.track=%s", value);
  } else if (strcmp(cmd, "run") == 0 && ne_cli_origin_option(origin, cmd, a, value, &rc)) {  // --tag, --note
    if (rc) return rc;
  } else if (ne_cli_redis_option(cmd, a, value, &rc)) {  // --redis, --task-timeout, --chunk (cli_redis.h)
    if (rc) return rc;
  } else {
    fprintf(stderr, "neuroevo %s: unknown option %s (see neuroevo %s --help)\n", cmd, a, cmd);
    return 2;
  }
  return 0;
}

// Runs the loop and reports; returns the exit code.
static int train(ne_run* run, int quiet) {
  char err[NE_ERRSTR_LEN];
  int rc = ne_run_loop(run, err);
  if (rc == NE_EINTR) {
    ne_cli_redis_say_kept(ne_run_dir(run), quiet);  // --redis: the experiment left in Redis
    return ne_cli_stop_status();                    // 130 after Ctrl-C, 143 after SIGTERM
  }
  if (rc) {
    fprintf(stderr, "neuroevo: %s\n", err);
    return 1;
  }
  if (!quiet) printf("evaluate:      neuroevo eval %s\n", ne_run_dir(run));
  return 0;
}

int ne_cmd_run(int argc, char** argv) {
  if (ne_cli_wants_help(argc, argv)) {
    fputs(RUN_USAGE, stdout);
    return 0;
  }
  ne_run_options opt = {0};
  static ne_cli_origin origin;
  ne_cli_origin_init(&origin);
  opt.origin = &origin.origin;
  const char* config = NULL;
  char err[NE_ERRSTR_LEN];
  ne_config* cfg = ne_config_create();
  if (!cfg) return 1;
  int overrides[256], n_overrides = 0, rc = 0;
  // collect the config, the overrides and the options
  for (int i = 1; i < argc && !rc; i++) {
    if (argv[i][0] == '-') rc = parse_option("run", argc, argv, &i, &opt, &origin);
    else if (ne_cli_is_override(argv[i]) && n_overrides < 256) overrides[n_overrides++] = i;
    else if (!config) config = argv[i];
    else {
      fprintf(stderr, "neuroevo run: unexpected argument '%s' (overrides look like section.key=value)\n", argv[i]);
      rc = 2;
    }
  }
  if (!rc && !config) {
    fputs(RUN_USAGE, stderr);
    rc = 2;
  }
  char path[4096], name[256];
  if (!rc) rc = ne_cli_find_config(config, path, sizeof path, name, sizeof name);
  if (!rc && ne_config_load_file(cfg, path, err) != 0) {
    fprintf(stderr, "neuroevo: %s\n", err);
    rc = 2;
  }
  for (int k = 0; !rc && k <= n_overrides; k++)
    if ((k < n_overrides || origin.track[0]) &&
        ne_config_override(cfg, k < n_overrides ? argv[overrides[k]] : origin.track, "command line", err) != 0) {
      fprintf(stderr, "neuroevo: %s\n", err);
      rc = 2;
    }
  // what the overrides made the config ignore (e.g. [es] after run.algorithm=ga)
  if (!rc) ne_cli_print_notes(cfg);
  ne_run* run = NULL;
  // --redis: a Redis master evaluates instead of local threads (cli_redis.h; no-op without --redis)
  if (!rc) rc = ne_cli_redis_attach(cfg, name, NULL, &opt.executor);
  if (!rc) {
    ne_cli_install_stop_handler(STOPPING);
    opt.stop = &ne_cli_stop;
    opt.name = name;
    int crc = ne_run_create(cfg, &opt, &run, err);
    if (crc) {
      fprintf(stderr, "neuroevo: %s\n", err);
      rc = crc == NE_EIO || crc == NE_ENOMEM ? 1 : 2;
    }
  }
  if (!rc) rc = ne_cli_redis_bind(opt.executor, ne_run_dir(run));  // --redis: redis.id for resume
  if (!rc) {
    printf("run directory: %s\n", ne_run_dir(run));  // --quiet too: where the run is is never hidden
    fflush(stdout);
    rc = train(run, opt.quiet);
  }
  ne_run_destroy(run);
  ne_cli_redis_detach(opt.executor, rc);  // --redis: a completed run finishes its experiment
  ne_config_destroy(cfg);
  return rc;
}

int ne_cmd_resume(int argc, char** argv) {
  if (ne_cli_wants_help(argc, argv)) {
    fputs(RESUME_USAGE, stdout);
    return 0;
  }
  ne_run_options opt = {0};
  static ne_cli_origin origin;
  ne_cli_origin_init(&origin);
  opt.origin = &origin.origin;
  const char* dir = NULL;
  int rc = 0;
  for (int i = 1; i < argc && !rc; i++) {
    if (argv[i][0] == '-') rc = parse_option("resume", argc, argv, &i, &opt, &origin);
    else if (!dir) dir = argv[i];
    else {
      fprintf(stderr, "neuroevo resume: unexpected argument '%s'\n", argv[i]);
      rc = 2;
    }
  }
  if (!rc && !dir) {
    fputs(RESUME_USAGE, stderr);
    rc = 2;
  }
  if (rc) return rc;
  ne_cli_install_stop_handler(STOPPING);
  opt.stop = &ne_cli_stop;
  // --redis: a Redis master continues the run's experiment (cli_redis.h; no-op without --redis)
  if ((rc = ne_cli_redis_attach_dir(dir, &opt.executor)) != 0) return rc;
  char err[NE_ERRSTR_LEN];
  ne_run* run = NULL;
  int crc = ne_run_resume(dir, &opt, &run, err);
  if (crc) {
    fprintf(stderr, "neuroevo: cannot resume %s: %s\n", dir, err);
    ne_cli_redis_detach(opt.executor, 1);
    return crc == NE_EIO || crc == NE_ENOMEM ? 1 : 2;
  }
  printf("resuming %s at generation %u\n", ne_run_dir(run), ne_run_generation(run));
  fflush(stdout);
  rc = ne_cli_redis_bind(opt.executor, ne_run_dir(run));
  if (!rc) rc = train(run, opt.quiet);
  ne_run_destroy(run);
  ne_cli_redis_detach(opt.executor, rc);
  return rc;
}
