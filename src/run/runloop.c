// SPDX-License-Identifier: MIT
// The generation loop (see run.h): ask/evaluate/tell rounds until the algorithm completes a
// generation, then metrics, progress line, best genome, checkpoint and plot. Budgets and the
// target are checked only at generation boundaries, so where a run stops is deterministic.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/buf.h"  // archive.csv
#include "core/util.h"
#include "neuroevo/alloc.h"
#include "neuroevo/checkpoint.h"
#include "neuroevo/plot.h"
#include "run/params_file.h"   // best.params for vector solutions
#include "run/partial.h"       // the finished candidates of the generation in progress
#include "run/run_tfevents.h"  // TensorBoard events, one per generation
#include "run/runner_int.h"

// Grows the result buffers to n candidates (with observation sums and behaviour characterizations
// when the batch wants them).
static int reserve_results(ne_run* run, const ne_batch* b) {
  if (b->n > run->results_cap) {
    ne_free(run->results);
    run->results = ne_calloc((size_t)b->n, sizeof *run->results);
    if (!run->results) return NE_ENOMEM;
    run->results_cap = b->n;
  }
  if (b->want_obs_stats && b->n > run->obs_stats_cap) {
    ne_free(run->obs_stats);
    run->obs_stats = ne_calloc((size_t)b->n * 2 * (size_t)run->env->obs_dim, sizeof(double));
    if (!run->obs_stats) return NE_ENOMEM;
    run->obs_stats_cap = b->n;
  }
  size_t bd = (size_t)run->env->bc_dim;
  if (b->want_bc && bd > 0 && b->n > run->bcs_cap) {
    ne_free(run->bcs);
    run->bcs = ne_calloc((size_t)b->n * bd, sizeof(float));
    if (!run->bcs) return NE_ENOMEM;
    run->bcs_cap = b->n;
  }
  size_t d = (size_t)run->env->obs_dim;
  for (int i = 0; i < b->n; i++) {
    run->results[i].obs_sum = b->want_obs_stats ? run->obs_stats + (size_t)i * 2 * d : NULL;
    run->results[i].obs_sumsq = b->want_obs_stats ? run->obs_stats + (size_t)i * 2 * d + d : NULL;
    run->results[i].bc = b->want_bc && bd > 0 ? run->bcs + (size_t)i * bd : NULL;
  }
  return 0;
}

// Meta-learning: the population's mean return before and after the inner loop (successful
// candidates of the population round; the elite's re-evaluation rounds are left out).
static void meta_means(ne_run* run, const ne_batch* b) {
  double pre = 0, post = 0;
  int n = 0;
  for (int i = 0; i < b->n; i++) {
    const ne_result* r = &run->results[i];
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

// numbers and durations for progress lines
static void human(char* buf, size_t size, double v) {
  if (v >= 1e9) snprintf(buf, size, "%.2fG", v / 1e9);
  else if (v >= 1e6) snprintf(buf, size, "%.2fM", v / 1e6);
  else if (v >= 1e4) snprintf(buf, size, "%.1fk", v / 1e3);
  else snprintf(buf, size, "%.0f", v);
}

static void duration(char* buf, size_t size, double s) {
  if (s < 60) snprintf(buf, size, "%.1fs", s);
  else if (s < 3600) snprintf(buf, size, "%dm%02ds", (int)s / 60, (int)s % 60);
  else snprintf(buf, size, "%dh%02dm", (int)s / 3600, (int)s % 3600 / 60);
}

// ---- progress within a round ----------------------------------------------------------------------
// A long round (a Deep GA generation on Atari: 15-35 minutes) says how far it is every
// run.progress_seconds once it has run that long, from whichever evaluating thread finishes a
// candidate then; the generation's own line still closes it.
static void start_round_progress(ne_run* run, const ne_batch* b, int kept) {
  run->round_start = run->said_at = ne__now();
  run->round = b->round;
  run->round_n = b->n;
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
    human(steps, sizeof steps, (double)run->round_steps);
    human(rate, sizeof rate, (double)run->round_steps / (now - run->round_start));
    duration(elapsed, sizeof elapsed, now - run->round_start);
    ne__run_say(run, "gen %5u  %d/%d candidates%s done  steps %8s  %7s steps/s  (%s in)\n", run->generation,
                run->round_done, run->round_n, run->round > 0 ? " of the re-evaluation" : "", steps, rate, elapsed);
  }
  pthread_mutex_unlock(&run->progress_mu);
}

// ---- the partial-generation log (partial.h) ---------------------------------------------------
// Each finished candidate goes to the log; a resumed run evaluates only the candidates its log
// lacks, as a sub-batch of just those (any executor evaluates it; results do not depend on a
// candidate's position), and takes the others' results from the log.
static void on_result(void* user, const ne_candidate* c, const ne_result* r) {
  ne_run* run = user;
  if (run->partial_on) ne__partial_add(run->partial, run->partial_index ? run->partial_index[c->index] : c->index, r);
  round_progress(run, r);
}

static uint64_t digest(const ne_run* run, const ne_batch* b) {
  int d = run->env->obs_dim;
  uint64_t norm[2] = {b->obs_mean ? ne_hash_floats(b->obs_mean, (size_t)d) : 0,
                      b->obs_std ? ne_hash_floats(b->obs_std, (size_t)d) : 0};
  return ne_batch_digest(b, norm, d);
}

// Evaluates the candidates of b that the log lacks (have[i] = 0) into run->results.
static int evaluate_missing(ne_run* run, const ne_batch* b, const uint8_t* have, int missing, char* errstr) {
  ne_candidate* cands = ne_malloc((size_t)missing * sizeof *cands);
  ne_result* results = ne_malloc((size_t)missing * sizeof *results);
  uint32_t* index = ne_malloc((size_t)missing * sizeof *index);
  int rc = cands && results && index ? 0 : ne__set_error(errstr, NE_ENOMEM, "out of memory");
  for (int i = 0, j = 0; !rc && i < b->n; i++) {
    if (have[i]) continue;
    cands[j] = b->cands[i];
    cands[j].index = (uint32_t)j;
    results[j] = run->results[i];  // its observation-sum and behaviour buffers
    index[j++] = (uint32_t)i;
  }
  if (!rc) {
    ne_batch sub = *b;
    sub.n = missing;
    sub.cands = cands;
    run->partial_index = index;
    rc = ne_executor_evaluate(run->exec, &sub, results, run->opt.stop, errstr);
    run->partial_index = NULL;
    for (int j = 0; j < missing; j++) run->results[index[j]] = results[j];
  }
  ne_free(cands);
  ne_free(results);
  ne_free(index);
  return rc;
}

// Evaluates one round's batch into run->results, through the log when the run keeps one, with
// progress lines when it runs long.
static int evaluate_round(ne_run* run, const ne_batch* b, char* errstr) {
  if (!run->result_hook) return ne_executor_evaluate(run->exec, b, run->results, run->opt.stop, errstr);
  uint8_t* have = ne_calloc(b->n > 0 ? (size_t)b->n : 1, 1);
  if (!have) return ne__set_error(errstr, NE_ENOMEM, "out of memory for %d results", b->n);
  int kept = run->partial_on ? ne__partial_round(run->partial, b, digest(run, b), run->results, have) : 0;
  start_round_progress(run, b, kept);
  if (kept > 0)
    ne__run_say(run, "gen %5u  %d/%d candidates%s evaluated before the interruption: taken from %s\n", b->generation,
                kept, b->n, b->round > 0 ? " of the re-evaluation" : "", "checkpoints/partial.log");
  ne_executor_set_result_hook(run->exec, on_result, run);
  int rc = 0;
  if (kept == 0) rc = ne_executor_evaluate(run->exec, b, run->results, run->opt.stop, errstr);
  else if (kept < b->n && run->exec->vt->evaluate_many)  // the whole batch, as the Redis master takes it
    rc = ne_executor_evaluate_missing(run->exec, b, have, run->results, run->opt.stop, errstr);
  else if (kept < b->n) rc = evaluate_missing(run, b, have, b->n - kept, errstr);
  ne_executor_set_result_hook(run->exec, NULL, NULL);
  ne_free(have);
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
    const ne_batch* batch;
    int rc = run->vt->ask(run->algo, &batch);
    if (rc) return ne__set_error(errstr, rc, "%s: ask failed: %s", run->vt->name, algo_error(run, rc));
    if (reserve_results(run, batch)) return ne__set_error(errstr, NE_ENOMEM, "out of memory for %d results", batch->n);
    rc = evaluate_round(run, batch, errstr);
    if (rc) return rc;
    if (batch->round == 0 && run->meta.tasks > 0) meta_means(run, batch);
    for (int i = 0; i < batch->n; i++) *steps += run->results[i].steps;
    *evals += (uint64_t)batch->n;
    rc = run->vt->tell(run->algo, batch, run->results, &done);
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
  human(evals, sizeof evals, (double)run->evaluations);
  human(steps, sizeof steps, (double)run->env_steps);
  human(rate, sizeof rate, gen_s > 0 ? (double)(run->minimize ? gen_evals : gen_steps) / gen_s : 0);
  duration(elapsed, sizeof elapsed, run->wall_s);
  // ETA from the generation budget at this session's average pace
  if (run->max_generations > 0 && session_gens > 0 && (int64_t)run->generation < run->max_generations) {
    char left[16];
    duration(left, sizeof left, session_s / session_gens * (double)(run->max_generations - run->generation));
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

int ne_run_loop(ne_run* run, char* errstr) {
  ne_gen_report r;
  double session_start = ne__now(), wall_at_start = run->wall_s;
  uint32_t session_gens = 0;
  if (run->generation > 0) {
    run->vt->report(run->algo, &r);
    const char* why = stop_reason(run, &r);
    if (why) {
      finish(run, why);
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
    if (why) {
      finish(run, why);
      return 0;
    }
    // every plot_every generations, but a fast run is not held up by gnuplot every few milliseconds
    if (run->plot_every > 0 && run->generation % (uint32_t)run->plot_every == 0 &&
        (run->plotted_at == 0 || ne__now() - run->plotted_at >= run->plot_seconds))
      plot(run);
    if (run->opt.stop && *run->opt.stop) return on_interrupt(run, errstr);
  }
}
