// SPDX-License-Identifier: MIT
// The generation loop (see run.h): ask/evaluate/tell rounds until the algorithm completes a
// generation, then metrics, progress line, best genome, checkpoint and plot. Budgets and the
// target are checked only at generation boundaries, so where a run stops is deterministic. With
// run.overlap, a generation's last round travels with the next generation's candidates that do
// not wait for it (ne_algo_vt.ask_ahead), whose results the next round takes (run/ahead.h).
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>  // getrusage: the session's CPU time for run.json

#include "core/buf.h"  // archive.csv
#include "core/util.h"
#include "neuroevo/alloc.h"
#include "neuroevo/checkpoint.h"
#include "neuroevo/plot.h"
#include "run/ahead.h"         // results of the next generation's candidates asked ahead
#include "run/params_file.h"   // best.params for vector solutions
#include "run/partial.h"       // the finished candidates of the generation in progress
#include "run/record.h"        // run.json at the session's end
#include "run/run_tfevents.h"  // TensorBoard events, one per generation
#include "run/runner_int.h"
#include "run/tracker.h"  // MLflow tracking from a thread of its own

// Seconds a run's end waits at most for its MLflow tracker's last sync (only while the server
// keeps answering: tracker.h).
#define TRACK_WAIT_S 30.0

// Grows the result buffers to n candidates (with observation sums and behaviour characterizations
// when the batch wants them).
static int reserve_results(ne_run* run, ne__result_buf* buf, const ne_batch* b) {
  if (b->n > buf->results_cap) {
    ne_free(buf->results);
    buf->results = ne_calloc((size_t)b->n, sizeof *buf->results);
    if (!buf->results) return NE_ENOMEM;
    buf->results_cap = b->n;
  }
  if (b->want_obs_stats && b->n > buf->obs_stats_cap) {
    ne_free(buf->obs_stats);
    buf->obs_stats = ne_calloc((size_t)b->n * 2 * (size_t)run->env->obs_dim, sizeof(double));
    if (!buf->obs_stats) return NE_ENOMEM;
    buf->obs_stats_cap = b->n;
  }
  size_t bd = (size_t)run->env->bc_dim;
  if (b->want_bc && bd > 0 && b->n > buf->bcs_cap) {
    ne_free(buf->bcs);
    buf->bcs = ne_calloc((size_t)b->n * bd, sizeof(float));
    if (!buf->bcs) return NE_ENOMEM;
    buf->bcs_cap = b->n;
  }
  size_t d = (size_t)run->env->obs_dim;
  for (int i = 0; i < b->n; i++) {
    buf->results[i].obs_sum = b->want_obs_stats ? buf->obs_stats + (size_t)i * 2 * d : NULL;
    buf->results[i].obs_sumsq = b->want_obs_stats ? buf->obs_stats + (size_t)i * 2 * d + d : NULL;
    buf->results[i].bc = b->want_bc && bd > 0 ? buf->bcs + (size_t)i * bd : NULL;
  }
  return 0;
}

// Meta-learning: the population's mean return before and after the inner loop (successful
// candidates of the population round; the elite's re-evaluation rounds are left out).
static void meta_means(ne_run* run, const ne_batch* b) {
  double pre = 0, post = 0;
  int n = 0;
  for (int i = 0; i < b->n; i++) {
    const ne_result* r = &run->res.results[i];
    if (r->status != 0) continue;
    pre += r->pre_fitness;
    post += r->fitness;
    n++;
  }
  run->gen_pre = n ? pre / n : NAN;
  run->gen_post = n ? post / n : NAN;
}

// The algorithm's own message for a failure (its last_error hook), else the code's text.
static const char* algo_error(const ne_run* run, int rc) {
  const char* msg = run->vt->last_error ? run->vt->last_error(run->algo) : NULL;
  return msg ? msg : ne_strerror(rc);
}

// ---- progress within a round ----------------------------------------------------------------------
// A long round (a Deep GA generation on Atari: 15-35 minutes) says how far it is every
// run.progress_seconds once it has run that long, from whichever evaluating thread finishes a
// candidate then; the generation's own line still closes it.
static void start_round_progress(ne_run* run, const ne_batch* b, const ne_batch* ahead, int kept) {
  run->round_start = run->said_at = ne__now();
  run->round = b->round;
  run->round_ahead = ahead ? ahead->n : 0;
  run->round_n = b->n + run->round_ahead;
  run->round_done = kept;
  run->round_steps = 0;
}

static void round_progress(ne_run* run, const ne_result* r) {
  pthread_mutex_lock(&run->progress_mu);
  run->round_done++;
  run->round_steps += r->steps;
  double now = ne__now();
  if (run->progress_seconds > 0 && now - run->said_at >= run->progress_seconds) {
    run->said_at = now;
    char steps[16], rate[16], elapsed[16];
    ne__fmt_count((double)run->round_steps, steps, sizeof steps);
    ne__fmt_count((double)run->round_steps / (now - run->round_start), rate, sizeof rate);
    ne__fmt_duration(now - run->round_start, elapsed, sizeof elapsed);
    ne__run_say(run, "gen %5u  %d/%d candidates%s%s done  steps %8s  %7s steps/s  (%s in)\n", run->generation,
                run->round_done, run->round_n, run->round > 0 ? " of the re-evaluation" : "",
                run->round_ahead > 0 ? " and the next generation's asked ahead" : "", steps, rate, elapsed);
  }
  pthread_mutex_unlock(&run->progress_mu);
}

// ---- evaluating a round -----------------------------------------------------------------------
// A round's batch, and with overlapped generations the next generation's candidates asked ahead,
// go to the executor in one call. Each finished candidate goes to the partial-generation log
// (partial.h); a resumed run evaluates only the candidates its log lacks, as a sub-batch of just
// those (any executor evaluates it; results do not depend on a candidate's position), and takes
// the others' results from the log. A round's candidates asked ahead take their results from the
// previous round's (ahead.h).

// One batch of an evaluation call: what it already has, and the sub-batch of what it lacks.
typedef struct ne__job {
  const ne_batch* batch;    // as the algorithm asked it
  ne_result* results;       // (batch->n) where its results go
  uint32_t log_round;       // its round in the partial-generation log
  uint8_t* have;            // (batch->n) 1: from the log, NE__AHEAD_TAKEN: asked ahead; 0: to evaluate
  int kept, taken;          // how many came from the log, and from the results asked ahead
  int missing;              // how many are left to evaluate
  ne_batch sub;             // what the executor gets: the batch, or a sub-batch of the missing ones
  ne_candidate* sub_cands;  // (sub.n) a sub-batch's candidates, renumbered
  ne_result* sub_results;   // (sub.n) their results (pointing at results[index[j]]'s arrays)
  uint32_t* index;          // (sub.n) sub position -> batch index (NULL: the same)
} ne__job;

// Called by the evaluating threads for each finished candidate (the local executor's hook).
static void on_result(void* user, const ne_candidate* c, const ne_result* r) {
  ne_run* run = user;
  for (int k = 0; run->partial_on && k < run->n_jobs; k++) {
    const ne__job* job = &run->jobs[k];
    if (c < job->sub.cands || c >= job->sub.cands + job->sub.n) continue;
    ne__partial_add(run->partial, job->log_round, job->index ? job->index[c->index] : c->index, r);
  }
  round_progress(run, r);
}

// The content hashes of the batch's observation normalization (0: none), as digests take them.
static void norm_hashes(const ne_run* run, const ne_batch* b, uint64_t out[2]) {
  size_t d = (size_t)run->env->obs_dim;
  out[0] = b->obs_mean ? ne_hash_floats(b->obs_mean, d) : 0;
  out[1] = b->obs_std ? ne_hash_floats(b->obs_std, d) : 0;
}

static uint64_t digest(const ne_run* run, const ne_batch* b) {
  uint64_t norm[2];
  norm_hashes(run, b, norm);
  return ne_batch_digest(b, norm, run->env->obs_dim);
}

static void free_job(ne__job* job) {
  ne_free(job->have);
  ne_free(job->sub_cands);
  ne_free(job->sub_results);
  ne_free(job->index);
}

// What the job has already: the log's results, and (take_ahead) those asked ahead, which go to the
// log too; then its sub-batch of the rest.
static int prepare_job(ne_run* run, ne__job* job, int take_ahead, char* errstr) {
  const ne_batch* b = job->batch;
  job->have = ne_calloc(b->n > 0 ? (size_t)b->n : 1, 1);
  if (!job->have) return ne__set_error(errstr, NE_ENOMEM, "out of memory for %d results", b->n);
  if (run->partial_on)
    job->kept = ne__partial_round(run->partial, b, job->log_round, digest(run, b), job->results, job->have);
  if (take_ahead && run->ahead && ne__ahead_count(run->ahead) > 0) {
    uint64_t norm[2];
    norm_hashes(run, b, norm);
    job->taken = ne__ahead_take(run->ahead, b, norm, job->results, job->have);
    for (int i = 0; run->partial_on && i < b->n; i++)
      if (job->have[i] == NE__AHEAD_TAKEN) ne__partial_add(run->partial, job->log_round, (uint32_t)i, &job->results[i]);
  }
  job->missing = b->n - job->kept - job->taken;
  job->sub = *b;
  // an executor that takes whole batches with the results it has (the local pool, the Redis master:
  // it reuses results of this batch found in Redis) gets the batch itself; another a sub-batch
  int missing = job->missing;
  if (missing == b->n || missing == 0 || run->exec->vt->evaluate_many) return 0;
  job->sub.n = missing;
  job->sub_cands = ne_malloc((size_t)missing * sizeof *job->sub_cands);
  job->sub_results = ne_malloc((size_t)missing * sizeof *job->sub_results);
  job->index = ne_malloc((size_t)missing * sizeof *job->index);
  if (!job->sub_cands || !job->sub_results || !job->index) return ne__set_error(errstr, NE_ENOMEM, "out of memory");
  for (int i = 0, j = 0; i < b->n; i++) {
    if (job->have[i]) continue;
    job->sub_cands[j] = b->cands[i];
    job->sub_cands[j].index = (uint32_t)j;
    job->sub_results[j] = job->results[i];  // its observation-sum and behaviour buffers
    job->index[j++] = (uint32_t)i;
  }
  job->sub.cands = job->sub_cands;
  return 0;
}

// Says what a resumed run found in the log.
static void say_kept(ne_run* run, const ne__job* job, int ahead) {
  if (job->kept == 0) return;
  const ne_batch* b = job->batch;
  ne__run_say(run, "gen %5u  %d/%d candidates%s evaluated before the interruption: taken from %s\n", b->generation,
              job->kept, b->n,
              ahead              ? " asked ahead"
                  : b->round > 0 ? " of the re-evaluation"
                                 : "",
              "checkpoints/partial.log");
}

// Evaluates one round's batch into run->res (and the candidates asked ahead, if any, into
// run->ahead_res, kept for the next generation), through the log when the run keeps one, with
// progress lines when it runs long.
static int evaluate_round(ne_run* run, const ne_batch* b, const ne_batch* ahead, char* errstr) {
  ne__job jobs[2];
  memset(jobs, 0, sizeof jobs);
  int n_jobs = ahead ? 2 : 1, rc = 0;
  jobs[0] = (ne__job){.batch = b, .results = run->res.results, .log_round = b->round};
  if (ahead) jobs[1] = (ne__job){.batch = ahead, .results = run->ahead_res.results, .log_round = NE__PARTIAL_AHEAD};
  if (run->partial_on) ne__partial_begin(run->partial);
  for (int k = 0; k < n_jobs && !rc; k++) rc = prepare_job(run, &jobs[k], k == 0, errstr);
  // the batches that lack results, in order: the round first (it is waited for), then the rest
  const ne_batch* todo[2];
  const uint8_t* todo_have[2];
  ne_result* todo_results[2];
  int n_todo = 0, known = 0;
  for (int k = 0; k < n_jobs && !rc; k++) {
    known += jobs[k].kept + jobs[k].taken;
    say_kept(run, &jobs[k], k == 1);
    if (jobs[k].missing == 0) continue;
    todo[n_todo] = &jobs[k].sub;
    todo_have[n_todo] = jobs[k].index || jobs[k].missing == jobs[k].batch->n ? NULL : jobs[k].have;
    todo_results[n_todo++] = jobs[k].index ? jobs[k].sub_results : jobs[k].results;
  }
  if (!rc && n_todo > 0) {
    start_round_progress(run, b, ahead, known);
    run->jobs = jobs;
    run->n_jobs = n_jobs;
    if (run->result_hook) ne_executor_set_result_hook(run->exec, on_result, run);
    rc = ne_executor_evaluate_many(run->exec, n_todo, todo, todo_have, todo_results, run->opt.stop, errstr);
    if (run->result_hook) ne_executor_set_result_hook(run->exec, NULL, NULL);
    run->jobs = NULL;
    run->n_jobs = 0;
  }
  for (int k = 0; k < n_jobs; k++)
    for (int j = 0; !rc && jobs[k].index && j < jobs[k].sub.n; j++)
      jobs[k].results[jobs[k].index[j]] = jobs[k].sub_results[j];
  if (!rc && ahead) {
    uint64_t norm[2];
    norm_hashes(run, ahead, norm);
    if (ne__ahead_keep(run->ahead, ahead, norm, run->ahead_res.results) != 0)
      rc = ne__set_error(errstr, NE_ENOMEM, "out of memory for %d results asked ahead", ahead->n);
  }
  for (int k = 0; k < n_jobs; k++) free_job(&jobs[k]);
  return rc;
}

// After a completed generation: the log starts over for the next one when this generation's
// checkpoint is on disk, else it is off until the next checkpoint (its base must be one on disk).
static int restart_partial(ne_run* run, char* errstr) {
  if (!run->partial) return 0;
  run->partial_on = run->checkpointed_generation == run->generation;
  return ne__partial_restart(run->partial, run->partial_on ? run->generation : UINT32_MAX, errstr);
}
// ---- end of the partial-generation log -------------------------------------------------------

// Runs the rounds of one generation. *evals and *steps get this generation's counts.
static int run_generation(ne_run* run, uint64_t* evals, uint64_t* steps, char* errstr) {
  *evals = *steps = 0;
  int done = 0;
  while (!done) {
    const ne_batch *batch, *ahead = NULL;
    int rc = run->vt->ask(run->algo, &batch);
    if (rc) return ne__set_error(errstr, rc, "%s: ask failed: %s", run->vt->name, algo_error(run, rc));
    // overlapped generations: what the next generation asks whatever this round's tell learns
    // (nothing when the generation budget ends the run with this generation)
    int last = run->max_generations > 0 && (int64_t)run->generation + 1 >= run->max_generations;
    if (run->overlap && !last && (rc = run->vt->ask_ahead(run->algo, &ahead)) != 0)
      return ne__set_error(errstr, rc, "%s: ask ahead failed: %s", run->vt->name, algo_error(run, rc));
    if (ahead && ahead->n == 0) ahead = NULL;
    if (reserve_results(run, &run->res, batch) || (ahead && reserve_results(run, &run->ahead_res, ahead)))
      return ne__set_error(errstr, NE_ENOMEM, "out of memory for %d results", batch->n + (ahead ? ahead->n : 0));
    rc = evaluate_round(run, batch, ahead, errstr);
    if (rc) return rc;
    if (batch->round == 0 && run->meta.tasks > 0) meta_means(run, batch);
    for (int i = 0; i < batch->n; i++) *steps += run->res.results[i].steps;
    *evals += (uint64_t)batch->n;
    rc = run->vt->tell(run->algo, batch, run->res.results, &done);
    if (rc) return ne__set_error(errstr, rc, "%s: tell failed: %s", run->vt->name, algo_error(run, rc));
  }
  return 0;
}

// The throughput shown counts all the generation's work: env steps of every round, the elite's
// re-evaluation episodes included (evaluations/s counted a 30-episode re-evaluation as one, and
// showed Hopper at 4/s while 3/4 of the time went to it). Black-box functions take one step per
// evaluation: their line shows evaluations/s.
static void progress_line(ne_run* run, const ne_gen_report* r, double gen_s, uint64_t gen_evals, uint64_t gen_steps,
                          double session_s, uint32_t session_gens) {
  char evals[16], steps[16], rate[16], elapsed[16], eta[32] = "", where[64] = "";
  ne__fmt_count((double)run->evaluations, evals, sizeof evals);
  ne__fmt_count((double)run->env_steps, steps, sizeof steps);
  ne__fmt_count(gen_s > 0 ? (double)(run->minimize ? gen_evals : gen_steps) / gen_s : 0, rate, sizeof rate);
  ne__fmt_duration(run->wall_s, elapsed, sizeof elapsed);
  // ETA from the generation budget at this session's average pace
  if (run->max_generations > 0 && session_gens > 0 && (int64_t)run->generation < run->max_generations) {
    char left[16];
    ne__fmt_duration(session_s / session_gens * (double)(run->max_generations - run->generation), left, sizeof left);
    snprintf(eta, sizeof eta, "  ETA %s", left);
  }
  ne_executor_describe(run->exec, where, sizeof where);
  char elite[32] = "     -";
  if (run->minimize) {
    // black-box functions: f = -fitness, in %g because f spans many orders of magnitude
    if (!isnan(r->elite_mean)) snprintf(elite, sizeof elite, "%9.3g", -r->elite_mean);
    ne__run_say(run, "gen %5u  evals %7s  %7s evals/s  f best %9.3g  mean %9.3g  f(mean) %s  [%s]  %s%s\n",
                r->generation, evals, rate, -r->best, -r->mean, elite, where, elapsed, eta);
    return;
  }
  if (!isnan(r->elite_mean)) snprintf(elite, sizeof elite, "%9.2f", r->elite_mean);
  // meta-learning: the population's mean return before -> after the inner loop
  char adapt[48] = "";
  if (run->meta.tasks > 0) snprintf(adapt, sizeof adapt, "  adapt %.2f -> %.2f", run->gen_pre, run->gen_post);
  ne__run_say(run, "gen %5u  evals %7s  steps %8s  %7s steps/s  best %9.2f  mean %9.2f  elite %s%s  [%s]  %s%s\n",
              r->generation, evals, steps, rate, r->best, r->mean, elite, adapt, where, elapsed, eta);
}

// ---- vector solutions (ES family): best.params, see run/params_file.h ----------------------
// An algorithm whose best is an explicit vector (ne_best.params) gets best.params instead of
// best.genome: the genome header fields, its observation normalization and the parameters.
static int write_best_params(ne_run* run, const ne_best* best, char* errstr) {
  ne_genome_header h;
  char path[4096];
  snprintf(path, sizeof path, "%s/best.params", run->dir);
  int rc = ne_genome_header_from_config(run->cfg, &h);
  if (!rc) rc = ne__params_file_write(path, &h, best, errstr);
  if (!rc) run->best_written_generation = best->generation + 1;
  return rc;
}
// ---- end of vector solutions ----------------------------------------------------------------

// Writes best.genome (seed chains) or best.params (vector solutions) when the algorithm's best
// changed.
static int write_best(ne_run* run, char* errstr) {
  ne_best best;
  if (run->vt->best(run->algo, &best) != 0) return 0;
  run->best_score = best.score;
  if (run->best_written_generation == best.generation + 1) return 0;
  if (best.params) return write_best_params(run, &best, errstr);
  if (!best.seeds) return 0;
  ne_genome g;
  ne_genome_init(&g);
  ne_genome_header h;
  int rc = ne_genome_set(&g, best.seeds, best.n_seeds, best.sigma);
  if (!rc) rc = ne_genome_header_from_config(run->cfg, &h);
  char path[4096];
  snprintf(path, sizeof path, "%s/best.genome", run->dir);
  if (!rc) rc = ne_genome_write_file(path, &g, &h, errstr);
  ne_genome_free(&g);
  if (!rc) run->best_written_generation = best.generation + 1;
  return rc;
}

// The best-so-far score, for the progress line and the final summary (files are written with
// checkpoints, see write_checkpoint).
static void note_best_score(ne_run* run) {
  ne_best best;
  if (run->vt->best(run->algo, &best) == 0) run->best_score = best.score;
}

// best.genome / best.params go to disk together with the checkpoint of the same generation: one
// more fsync per checkpoint instead of one per improvement (which dominated short generations).
static int write_checkpoint(ne_run* run, const uint8_t* state, size_t len, char* errstr) {
  int rc_best = write_best(run, errstr);
  if (rc_best) return rc_best;
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/checkpoints", run->dir);
  ne_checkpoint ck = {run->generation, run->evaluations, run->env_steps, run->wall_s, (uint8_t*)state, len};
  int rc = ne_checkpoint_write(dir, &ck, run->keep_checkpoints, errstr);
  if (!rc) run->checkpointed_generation = run->generation;
  return rc;
}

// Saves the boundary state: to disk when due, otherwise kept in memory for a stop request.
static int boundary_state(ne_run* run, int force, char* errstr) {
  uint8_t* state = NULL;
  size_t len = 0;
  int rc = run->vt->save(run->algo, &state, &len);
  if (rc) return ne__set_error(errstr, rc, "%s: cannot serialize state: %s", run->vt->name, algo_error(run, rc));
  ne_free(run->pending_state);
  run->pending_state = NULL;
  if (force || run->generation % (uint32_t)run->checkpoint_every == 0) {
    rc = write_checkpoint(run, state, len, errstr);
    ne_free(state);
    return rc;
  }
  run->pending_state = state;
  run->pending_len = len;
  return 0;
}

// ---- novelty search: the archive as archive.csv ------------------------------------------------
// An algorithm with a novelty archive (ne_algo_vt.archive) gets RUN_DIR/archive.csv, one behaviour
// characterization per row (b0,b1,...), rewritten atomically with curve.png: what `neuroevo
// render` draws over the maze. The checkpoint holds the archive itself; this file is for humans.
static int write_archive(ne_run* run, char* errstr) {
  const float* data;
  int n, dim;
  if (!run->vt->archive || run->vt->archive(run->algo, &data, &n, &dim) != 0) return 0;
  ne_buf b;
  ne__buf_init(&b);
  char line[64];
  for (int j = 0; j < dim; j++) {
    int len = snprintf(line, sizeof line, "%sb%d", j ? "," : "", j);
    ne__buf_bytes(&b, line, (size_t)len);
  }
  ne__buf_bytes(&b, "\n", 1);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < dim; j++) {
      float v = data[(size_t)i * (size_t)dim + (size_t)j];
      int len = snprintf(line, sizeof line, "%.9g%s", v, j + 1 < dim ? "," : "\n");
      ne__buf_bytes(&b, line, (size_t)len);
    }
  char path[4096];
  snprintf(path, sizeof path, "%s/archive.csv", run->dir);
  int rc = b.oom ? ne__set_error(errstr, NE_ENOMEM, "%s: out of memory", path)
                 : ne__write_file_atomic(path, b.data, b.len, errstr);
  ne__buf_free(&b);
  return rc;
}
// ---- end of novelty search ----------------------------------------------------------------------

// Draws curve.png (unless run.plot_every = -1) and writes archive.csv; 0 if it drew. A failure is a
// warning, printed once per run.
static int plot(ne_run* run) {
  char png[4096], why[NE_ERRSTR_LEN];
  run->plotted_at = ne__now();
  char why_archive[NE_ERRSTR_LEN];
  if (write_archive(run, why_archive) != 0) fprintf(stderr, "neuroevo: warning: no archive.csv: %s\n", why_archive);
  if (run->plot_every < 0) return NE_EINVAL;  // never drawn: finish says so
  snprintf(png, sizeof png, "%s/curve.png", run->dir);
  const char* dirs[1] = {run->dir};
  int rc = ne_plot_runs(dirs, 1, png, "env_steps", why);
  if (rc != 0 && !run->plot_warned) {
    fprintf(stderr, "neuroevo: warning: no curve.png: %s\n", why);
    run->plot_warned = 1;
  }
  return rc;
}

// Why the run should stop now, or NULL to go on.
static const char* stop_reason(const ne_run* run, const ne_gen_report* r) {
  double score = isnan(r->elite_mean) ? r->best : r->elite_mean;
  if (run->has_target && score >= run->target) return "target reached";
  if (run->max_generations > 0 && (int64_t)run->generation >= run->max_generations) return "generation budget reached";
  if (run->max_steps > 0 && run->env_steps >= run->max_steps) return "env-step budget reached";
  if (run->max_seconds > 0 && run->wall_s >= run->max_seconds) return "time budget reached";
  return NULL;
}

static void finish(ne_run* run, const char* reason) {
  int plotted = plot(run) == 0;
  if (run->minimize)  // black-box functions: the best function value found
    ne__run_say(run, "%s after %u generations, %llu evaluations, %.1fs; best f %.6g\n", reason, run->generation,
                (unsigned long long)run->evaluations, run->wall_s, -run->best_score);
  else
    ne__run_say(run, "%s after %u generations, %llu env steps, %.1fs; best elite score %.2f\n", reason, run->generation,
                (unsigned long long)run->env_steps, run->wall_s, run->best_score);
  ne__run_say(run, "run directory: %s\n", run->dir);
  if (plotted) ne__run_say(run, "curve:         %s/curve.png\n", run->dir);
  else if (run->plot_every < 0)
    ne__run_say(run, "curve:         off (run.plot_every = -1; `neuroevo plot %s` draws it)\n", run->dir);
  else ne__run_say(run, "curve:         none (see the warning above; `neuroevo plot %s` draws it later)\n", run->dir);
  // meta-learning: the returns before and after each inner step, per task
  if (run->meta.tasks > 0)
    ne__run_say(run, "adapt:         neuroevo eval %s --adapt %d\n", run->dir, run->meta.inner_steps);
}

// On a stop request: make sure the last completed generation is on disk, and the finished
// candidates of the one in progress (the partial-generation log).
static int on_interrupt(ne_run* run, char* errstr) {
  if (run->pending_state && run->checkpointed_generation != run->generation) {
    int rc = write_checkpoint(run, run->pending_state, run->pending_len, errstr);
    if (rc) return rc;
  }
  int kept = 0;
  if (run->partial_on) {
    int rc = ne__partial_sync(run->partial, errstr);
    if (rc) return rc;
    kept = ne__partial_count(run->partial);
  }
  char candidates[4200] = "";
  if (kept > 0)
    snprintf(candidates, sizeof candidates, "%s%d finished candidate%s of generation %u (%s/checkpoints/partial.log)",
             run->generation > 0 ? " and " : "", kept, kept == 1 ? "" : "s", run->generation, run->dir);
  // stopped before the first generation completed: no checkpoint (and nothing to plot)
  if (run->generation == 0) {
    ne__run_say_stop(run, "interrupted during generation 0: %s%s; `neuroevo resume %s` %s\n", kept > 0 ? "kept " : "",
                     kept > 0 ? candidates : "nothing finished yet", run->dir,
                     kept > 0 ? "evaluates only the rest" : "starts the run from the beginning");
    return ne__set_error(errstr, NE_EINTR, "interrupted");
  }
  plot(run);
  ne__run_say_stop(run,
                   "interrupted during generation %u: kept the checkpoint at generation %u (%s/checkpoints/)%s; "
                   "`neuroevo resume %s` continues%s\n",
                   run->generation, run->checkpointed_generation, run->dir, candidates, run->dir,
                   kept > 0 ? " with the candidates not yet evaluated" : "");
  return ne__set_error(errstr, NE_EINTR, "interrupted");
}

// The generation loop; *reason gets why it ended when it returns 0.
static int loop(ne_run* run, const char** reason, char* errstr) {
  ne_gen_report r;
  double session_start = ne__now(), wall_at_start = run->wall_s;
  uint32_t session_gens = 0;
  if (run->generation > 0) {
    run->vt->report(run->algo, &r);
    const char* why = stop_reason(run, &r);
    if (why) {
      finish(run, why);
      *reason = why;
      return 0;
    }
  }
  for (;;) {
    double t0 = ne__now();
    uint64_t evals, steps;
    int rc = run_generation(run, &evals, &steps, errstr);
    if (rc == NE_EINTR) return on_interrupt(run, errstr);
    if (rc) return rc;
    double gen_s = ne__now() - t0;  // the evaluation rounds, not the checkpoint's fsync
    // commit the generation
    run->generation++;
    run->evaluations += evals;
    run->env_steps += steps;
    run->wall_s = wall_at_start + (ne__now() - session_start);
    session_gens++;
    run->vt->report(run->algo, &r);
    rc = ne__run_append_metrics(run, &r, errstr);
    if (!rc) ne__run_tb_write(run, &r);  // TensorBoard events (run_tfevents.c)
    note_best_score(run);
    // the caller's hook sees every row, the last one too; its stop request counts like a budget
    int hook_stop = !rc && run->opt.on_generation && run->opt.on_generation(run->opt.user, run);
    const char* why = stop_reason(run, &r);
    if (!why && hook_stop) why = "stopped by the on_generation hook";
    if (!rc) rc = boundary_state(run, why != NULL, errstr);
    if (!rc) rc = restart_partial(run, errstr);
    if (rc) return rc;
    progress_line(run, &r, gen_s, evals, steps, ne__now() - session_start, session_gens);
    ne__tracker_poke(run->tracker);  // MLflow: the new row, from the tracker's thread
    if (why) {
      finish(run, why);
      *reason = why;
      return 0;
    }
    // every plot_every generations, but a fast run is not held up by gnuplot every few milliseconds
    if (run->plot_every > 0 && run->generation % (uint32_t)run->plot_every == 0 &&
        (run->plotted_at == 0 || ne__now() - run->plotted_at >= run->plot_seconds))
      plot(run);
    if (run->opt.stop && *run->opt.stop) return on_interrupt(run, errstr);
  }
}

// the process's CPU seconds so far (every thread: the pool's evaluators included)
static double cpu_seconds(void) {
  struct rusage u;
  if (getrusage(RUSAGE_SELF, &u) != 0) return NAN;
  return (double)u.ru_utime.tv_sec + (double)u.ru_stime.tv_sec +
      1e-6 * (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

int ne_run_loop(ne_run* run, char* errstr) {
  double cpu_at_start = cpu_seconds();
  const char* reason = NULL;
  run->tracker = ne__tracker_start(run->dir, run->cfg);  // run.track: MLflow (tracker.h); NULL when off
  int rc = loop(run, &reason, errstr);
  // the record says how the session ended: finished (a budget, the target, the hook), stopped (a
  // stop request; resumable) or failed with the error
  ne_gen_report r = {0};
  r.elite_mean = NAN;
  if (run->generation > 0) run->vt->report(run->algo, &r);
  double s = run->minimize ? -1.0 : 1.0;  // fitness -> f, as metrics.csv holds it
  ne__record_result res = {run->generation,
                           run->evaluations,
                           run->env_steps,
                           s * run->row_best,
                           run->generation > 0 ? s * r.elite_mean : NAN,
                           run->wall_s,
                           cpu_seconds() - cpu_at_start};
  char executor[160], why[NE_ERRSTR_LEN];
  ne__run_describe(run, executor, sizeof executor);
  const char* status = rc == 0 ? "finished" : rc == NE_EINTR ? "stopped" : "failed";
  const char* text = rc == 0 ? reason : rc == NE_EINTR ? "stop requested" : errstr;
  if (ne__record_end(run->dir, status, text, &res, executor, why) != 0)
    fprintf(stderr, "neuroevo: warning: run.json not updated: %s\n", why);  // the run's own outcome stands
  // the tracker's last sync (artifacts, status) gets its time while the server answers
  ne__tracker_finish(run->tracker, TRACK_WAIT_S);
  run->tracker = NULL;
  return rc;
}
