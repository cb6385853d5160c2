// SPDX-License-Identifier: MIT
// The run loop's TensorBoard hook (run_tfevents.h): per generation, the metrics.csv row (same values,
// same sign: minimized black-box runs log f under "f/"), throughput since the previous generation
// and the algorithm's extra figures under names this table gives them. Step = the generation column
// of metrics.csv, so the two always line up.
#include "run/run_tfevents.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "neuroevo/alloc.h"
#include "neuroevo/error.h"
#include "neuroevo/tfevents.h"
#include "run/runner_int.h"

struct ne__run_tb {
  ne_tfevents* w;  // the event file
  uint64_t evals;  // evaluations at the previous event (throughput)
  uint64_t steps;  // env steps at the previous event
  double wall_s;   // training seconds at the previous event
};

// TensorBoard tags of ne_gen_report.extra[0..3] per algorithm (NULL: not logged). An algorithm
// missing here logs no extras.
typedef struct extra_tags {
  const char* algo;    // ne_algo_vt.name
  const char* tag[4];  // tags of extra[0..3]
} extra_tags;

static const extra_tags EXTRA_TAGS[] = {
    {"es", {"es/update_norm", "es/sigma", NULL, NULL}},
    {"snes", {"snes/update_norm", "snes/sigma_mean", NULL, NULL}},
    {"pgpe", {"pgpe/update_norm", "pgpe/sigma_mean", NULL, NULL}},
    {"ars", {"ars/update_norm", "ars/noise", NULL, NULL}},
    {"cmaes", {"cmaes/sigma", "cmaes/condition", "cmaes/restarts", "cmaes/lambda"}},
    {"sepcmaes", {"sepcmaes/sigma", "sepcmaes/condition", "sepcmaes/restarts", "sepcmaes/lambda"}},
    // novelty search (src/algos/nses.c): the update's norm, NSRA's reward weight, the archive, the centre
    {"ns-es", {"nses/update_norm", "nses/reward_weight", "nses/archive_size", "nses/centre"}},
    {"nsr-es", {"nses/update_norm", "nses/reward_weight", "nses/archive_size", "nses/centre"}},
    {"nsra-es", {"nses/update_norm", "nses/reward_weight", "nses/archive_size", "nses/centre"}},
};

static double unix_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void ne__run_tb_open(struct ne_run* run) {
  char err[NE_ERRSTR_LEN];
  struct ne__run_tb* tb = ne_calloc(1, sizeof *tb);
  int rc = tb ? ne_tfevents_open(run->dir, run->generation, &tb->w, err) : NE_ENOMEM;
  if (rc) {
    fprintf(stderr, "neuroevo: warning: no TensorBoard events: %s\n", tb ? err : "out of memory");
    ne_free(tb);
    return;
  }
  tb->evals = run->evaluations;
  tb->steps = run->env_steps;
  tb->wall_s = run->wall_s;
  run->tb = tb;
}

// Appends the extras of the run's algorithm to v (at *n).
static void add_extras(const struct ne_run* run, const ne_gen_report* r, ne_tf_scalar* v, int* n) {
  for (size_t a = 0; a < sizeof EXTRA_TAGS / sizeof EXTRA_TAGS[0]; a++) {
    if (strcmp(EXTRA_TAGS[a].algo, run->vt->name) != 0) continue;
    for (int i = 0; i < 4; i++)
      if (EXTRA_TAGS[a].tag[i]) v[(*n)++] = (ne_tf_scalar){EXTRA_TAGS[a].tag[i], r->extra[i]};
  }
}

void ne__run_tb_write(struct ne_run* run, const ne_gen_report* r) {
  struct ne__run_tb* tb = run->tb;
  if (!tb) return;
  // the metrics.csv row, with its sign
  double s = run->minimize ? -1.0 : 1.0;
  int m = run->minimize;
  ne_tf_scalar v[16];
  int n = 0;
  v[n++] = (ne_tf_scalar){m ? "f/best" : "return/best", s * r->best};
  v[n++] = (ne_tf_scalar){m ? "f/mean" : "return/mean", s * r->mean};
  v[n++] = (ne_tf_scalar){m ? "f/median" : "return/median", s * r->median};
  v[n++] = (ne_tf_scalar){m ? "f/elite" : "return/elite", s * r->elite_mean};
  v[n++] = (ne_tf_scalar){"progress/evaluations", (double)run->evaluations};
  v[n++] = (ne_tf_scalar){"progress/env_steps", (double)run->env_steps};
  // throughput of this generation (NaN, hence left out, if no time passed)
  double dt = run->wall_s - tb->wall_s;
  v[n++] = (ne_tf_scalar){"throughput/evals_per_s", dt > 0 ? (double)(run->evaluations - tb->evals) / dt : NAN};
  v[n++] = (ne_tf_scalar){"throughput/env_steps_per_s", dt > 0 ? (double)(run->env_steps - tb->steps) / dt : NAN};
  add_extras(run, r, v, &n);
  // meta-learning: the population's returns before and after the inner loop
  if (run->meta.tasks > 0) {
    v[n++] = (ne_tf_scalar){"meta/pre_adaptation", run->gen_pre};
    v[n++] = (ne_tf_scalar){"meta/post_adaptation", run->gen_post};
  }
  char err[NE_ERRSTR_LEN];
  if (ne_tfevents_write(tb->w, r->generation, unix_now(), v, n, err) != 0) {
    fprintf(stderr, "neuroevo: warning: TensorBoard events stopped: %s\n", err);
    ne__run_tb_close(run);
    return;
  }
  tb->evals = run->evaluations;
  tb->steps = run->env_steps;
  tb->wall_s = run->wall_s;
}

void ne__run_tb_close(struct ne_run* run) {
  if (!run->tb) return;
  ne_tfevents_close(run->tb->w);
  ne_free(run->tb);
  run->tb = NULL;
}
