// SPDX-License-Identifier: MIT
// The `--redis URL` plumbing of `run` and `resume` (see cli_redis.h): the options, the Redis master
// executor created before the run, the experiment id kept in the run directory, and the experiment
// finished after a completed run. Builds without hiredis keep the options and refuse --redis.
#include <stdio.h>
#include <string.h>

#include "cli/cli_redis.h"
#include "cli/cli_util.h"
#include "core/util.h"
#include "neuroevo/alloc.h"
#include "neuroevo/cluster.h"
#include "neuroevo/error.h"

static struct {
  const char* url;        // --redis URL; NULL: local evaluation
  double task_timeout_s;  // --task-timeout (0: the master's default)
  double join_timeout_s;  // --join-timeout (0: the master's default)
  int chunk;              // --chunk (0: automatic)
  int episodes_per_task;  // --episodes-per-task (0: automatic, -1: off)
  int min_workers;        // --min-workers (0: the first one)
  char name[256];         // the experiment's name (status shows it), kept in redis.id for resume
} redis_opt;

int ne_cli_redis_option(const char* cmd, const char* option, const char* value, int* rc) {
  long long v;
  *rc = 0;
  if (strcmp(option, "--redis") == 0) {
    redis_opt.url = value;
  } else if (strcmp(option, "--chunk") == 0) {
    if ((*rc = ne_cli_parse_int(cmd, option, value, 1, 1 << 20, &v)) == 0) redis_opt.chunk = (int)v;
  } else if (strcmp(option, "--episodes-per-task") == 0) {
    if (strcmp(value, "auto") == 0) redis_opt.episodes_per_task = 0;
    else if (strcmp(value, "off") == 0) redis_opt.episodes_per_task = -1;
    else if (value[strspn(value, "0123456789")] != '\0') {
      fprintf(stderr, "neuroevo %s: %s expects a number of episodes, auto or off, got '%s'\n", cmd, option, value);
      *rc = 2;
    } else if ((*rc = ne_cli_parse_int(cmd, option, value, 1, 1 << 30, &v)) == 0) redis_opt.episodes_per_task = (int)v;
  } else if (strcmp(option, "--min-workers") == 0) {
    if ((*rc = ne_cli_parse_int(cmd, option, value, 1, 1 << 20, &v)) == 0) redis_opt.min_workers = (int)v;
  } else if (strcmp(option, "--task-timeout") == 0) {
    *rc = ne_cli_parse_double(cmd, option, value, 0.05, 86400, "seconds", &redis_opt.task_timeout_s);
  } else if (strcmp(option, "--join-timeout") == 0) {
    *rc = ne_cli_parse_double(cmd, option, value, 0.05, 86400 * 365, "seconds", &redis_opt.join_timeout_s);
  } else {
    return 0;
  }
  return 1;
}

int ne_cli_redis_wanted(void) { return redis_opt.url != NULL; }

#ifdef NE_HAVE_HIREDIS
// The experiment id stored in run_dir/redis.id into id (17 bytes; "" when there is none) and its
// name, the file's second line, into name (when given; unchanged when the file has none: run
// directories written before names were kept).
static void read_id(const char* run_dir, char* id, char* name, size_t name_size) {
  char path[4096], *text = NULL;
  id[0] = '\0';
  snprintf(path, sizeof path, "%s/redis.id", run_dir);
  if (ne__read_file(path, &text, NULL, NULL) != 0) return;
  if (strlen(text) >= 16) snprintf(id, 17, "%.16s", text);
  const char* line = strchr(text, '\n');
  if (name && line && line[1] && line[1] != '\n')
    snprintf(name, name_size, "%.*s", (int)strcspn(line + 1, "\n"), line + 1);
  ne_free(text);
}

int ne_cli_redis_attach(const ne_config* cfg, const char* name, const char* run_dir, ne_executor** out) {
  *out = NULL;
  if (!redis_opt.url) return 0;
  char id[17] = "", err[NE_ERRSTR_LEN];
  if (run_dir) read_id(run_dir, id, NULL, 0);
  snprintf(redis_opt.name, sizeof redis_opt.name, "%s", name ? name : "run");
  ne_cluster_master_options o = {.url = redis_opt.url,
                                 .experiment_id = id[0] ? id : NULL,
                                 .name = name,
                                 .chunk = redis_opt.chunk,
                                 .task_timeout_s = redis_opt.task_timeout_s,
                                 .join_timeout_s = redis_opt.join_timeout_s,
                                 .episodes_per_task = redis_opt.episodes_per_task,
                                 .min_workers = redis_opt.min_workers};
  int rc = ne_cluster_master_create(cfg, &o, out, err);
  if (rc) {
    fprintf(stderr, "neuroevo: %s\n", err);
    return rc == NE_EINVAL || rc == NE_EUNSUPPORTED ? 2 : 1;
  }
  return 0;
}

int ne_cli_redis_attach_dir(const char* run_dir, ne_executor** out) {
  *out = NULL;
  if (!redis_opt.url) return 0;
  char path[4096], err[NE_ERRSTR_LEN];
  snprintf(path, sizeof path, "%s/config.ini", run_dir);
  ne_config* cfg = ne_config_create();
  if (!cfg || ne_config_load_file(cfg, path, err) != 0) {
    fprintf(stderr, "neuroevo: cannot resume %s: %s\n", run_dir, cfg ? err : "out of memory");
    ne_config_destroy(cfg);
    return 2;
  }
  // the experiment keeps the name it started with (the config's); older run directories have none
  // in redis.id: the directory's name then
  const char* slash = strrchr(run_dir, '/');
  char id[17], name[256];
  snprintf(name, sizeof name, "%s", slash && slash[1] ? slash + 1 : run_dir);
  read_id(run_dir, id, name, sizeof name);
  int rc = ne_cli_redis_attach(cfg, name, run_dir, out);
  ne_config_destroy(cfg);
  return rc;
}

int ne_cli_redis_bind(ne_executor* ex, const char* run_dir) {
  if (!ex) return 0;
  char path[4096], err[NE_ERRSTR_LEN], line[300];
  snprintf(path, sizeof path, "%s/redis.id", run_dir);
  snprintf(line, sizeof line, "%s\n%s\n", ne_cluster_master_id(ex), redis_opt.name);
  if (ne__write_file_atomic(path, line, strlen(line), err) != 0) {
    fprintf(stderr, "neuroevo: %s\n", err);
    return 1;
  }
  return 0;
}

void ne_cli_redis_say_kept(const char* run_dir, int quiet) {
  if (!redis_opt.url) return;
  char id[17];
  read_id(run_dir, id, NULL, 0);
  FILE* out = quiet ? stderr : stdout;
  fprintf(out,
          "%sexperiment %s (%s/redis.id) stays in Redis with its queued tasks and results for 7 days; "
          "`neuroevo resume %s --redis URL` continues with any workers, on this Redis or another (the finished "
          "candidates above are taken from partial.log either way)\n",
          quiet ? "neuroevo: " : "", id[0] ? id : "?", run_dir, run_dir);
  fflush(out);
}

void ne_cli_redis_detach(ne_executor* ex, int exit_code) {
  if (!ex) return;
  char err[NE_ERRSTR_LEN];
  if (exit_code == 0 && ne_cluster_master_finish(ex, err) != 0)
    fprintf(stderr, "neuroevo: warning: could not mark the experiment finished: %s\n", err);
  ne_executor_destroy(ex);
}
#else
int ne_cli_redis_attach(const ne_config* cfg, const char* name, const char* run_dir, ne_executor** out) {
  (void)cfg, (void)name, (void)run_dir;
  *out = NULL;
  if (!redis_opt.url) return 0;
  fprintf(stderr, "neuroevo: this build has no Redis support (install libhiredis-dev and rebuild)\n");
  return 2;
}
int ne_cli_redis_attach_dir(const char* run_dir, ne_executor** out) {
  return ne_cli_redis_attach(NULL, NULL, run_dir, out);
}
int ne_cli_redis_bind(ne_executor* ex, const char* run_dir) { return (void)ex, (void)run_dir, 0; }
void ne_cli_redis_say_kept(const char* run_dir, int quiet) { (void)run_dir, (void)quiet; }
void ne_cli_redis_detach(ne_executor* ex, int exit_code) { (void)ex, (void)exit_code; }
#endif
