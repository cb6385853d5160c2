// SPDX-License-Identifier: MIT
// Candidate evaluation (see evaluator.h): parameters, then episodes of policy-in-env, and on request
// the observation sums (ES normalization) and the mean behaviour characterization (novelty search).
// The episode loop allocates nothing; every buffer is made once when the evaluator is created (the
// kept generator noise of the ES family once, at its first perturbed candidate).
#include "neuroevo/evaluator.h"

#include <math.h>
#include <string.h>

#include "exec/lockstep.h"  // several episodes of one vector in lockstep, batched forwards
#include "neuroevo/alloc.h"
#include "neuroevo/episode.h"
#include "neuroevo/error.h"
#include "neuroevo/noise.h"
#include "neuroevo/rng.h"

// The largest policy whose single-episode candidates run several at once: 8 of them take 512 kB.
#define STREAM_MAX_PARAMS 16384

// The most episodes of a candidate that shares a stream with others (ES's es.eval_episodes of the
// centre, the GA's elite re-evaluations); beyond, its episodes run in their own lockstep blocks
#define STREAM_MAX_EPISODES 128

// A candidate of a stream (ne_evaluator_run_many) while its episodes run, in whichever slots free up
typedef struct {
  int cand;                             // its index in the run (-1: the record is free)
  int wants;                            // begin_result's want_stats | want_bc << 1
  const float* params;                  // its parameters (the record's slot_params buffer, or the batch's)
  uint32_t started, ended;              // its episodes started and ended so far
  double returns[STREAM_MAX_EPISODES];  // episode e's return once it ended
} stream_record;

// A stream's bookkeeping: a record per candidate holding slots (at most one per slot)
typedef struct {
  stream_record recs[NE_LOCKSTEP_WIDTH];
  int slot_rec[NE_LOCKSTEP_WIDTH];           // slot -> the record of its episode (-1: free)
  uint32_t slot_episode[NE_LOCKSTEP_WIDTH];  // slot -> its episode's index in the candidate
  int filling;                               // the record whose episodes slots take next (-1: none)
  int next;                                  // the next candidate to start
} stream;

struct ne_evaluator {
  const ne_env_spec* env;          // shared, read-only
  const ne_policy_spec* policy;    // shared, read-only
  ne_param_cache* cache;           // shared, thread-safe; may be NULL
  ne_env_state* state;             // this thread's environment
  float* params;                   // (n_params) candidate parameters
  float* eps;                      // (n_params) generator noise of eps_seed, kept for the mirrored twin
                                   // (made at the first PERTURB candidate: the GA never needs it)
  uint64_t eps_seed;               // seed eps holds (valid when has_eps)
  int has_eps;                     // 1 once eps holds a perturbation
  float* scratch;                  // (policy->scratch_floats) forward scratch
  float* obs;                      // (obs_dim) normalized observation
  float* bc;                       // (env->bc_dim) one episode's behaviour characterization
  double* bc_sum;                  // (env->bc_dim) its sum over a candidate's episodes
  int env_failed;                  // gym: bridge: NE_E* code of an env failure in the last run (0: none)
  char env_errstr[NE_ERRSTR_LEN];  // its message, naming the env
  ne_lockstep* lockstep;           // episodes in lockstep, made at the first multi-episode run (NULL: not yet)
  int lockstep_ok;                 // 1 while lockstep may be made (an in-process env, no failed allocation)
  int stream_ok;                   // 1 while single-episode candidates may share the lockstep (a small MLP)
  float* slot_params;              // (NE_LOCKSTEP_WIDTH, n_params) their parameters, made at first use
  stream stream;                   // ne_evaluator_run_many's candidates in lockstep
  const volatile int* stop;        // raised by the caller: end the episode in hand now (NULL: never)
  int interrupted;                 // 1 when the last run ended an episode early for *stop
  const ne_meta_spec* meta;        // meta-learning: the inner loop (NULL: plain evaluations)
  ne_adapter* adapter;             // meta-learning: this thread's inner loop
};

ne_evaluator* ne_evaluator_create(const ne_env_spec* env, const ne_policy_spec* policy, ne_param_cache* cache) {
  ne_evaluator* ev = ne_calloc(1, sizeof *ev);
  if (!ev) return NULL;
  ev->env = env;
  ev->policy = policy;
  ev->cache = cache;
  ev->state = ne_env_state_create(env);
  ev->params = ne_malloc(policy->n_params * sizeof(float));
  ev->scratch = ne_malloc((policy->scratch_floats + 1) * sizeof(float));
  ev->obs = ne_malloc((size_t)env->obs_dim * sizeof(float));
  ev->bc = ne_malloc((size_t)(env->bc_dim > 0 ? env->bc_dim : 1) * sizeof(float));
  ev->bc_sum = ne_malloc((size_t)(env->bc_dim > 0 ? env->bc_dim : 1) * sizeof(double));
  if (!ev->state || !ev->params || !ev->scratch || !ev->obs || !ev->bc || !ev->bc_sum) {
    ne_evaluator_destroy(ev);
    return NULL;
  }
  // in-process envs run several episodes of one vector in lockstep (the gym: bridge's episodes
  // live in another process; black-box functions have none)
  ev->lockstep_ok = !env->evaluate && !env->status;
  // ...and runs of single-episode candidates with small MLPs: their parameters stay in L1/L2 side
  // by side (bigger policies would evict each other: a candidate alone keeps its own in cache)
  ev->stream_ok = ev->lockstep_ok && policy->kind == NE_POLICY_MLP && policy->n_params <= STREAM_MAX_PARAMS;
  return ev;
}

void ne_evaluator_destroy(ne_evaluator* ev) {
  if (!ev) return;
  ne_env_state_destroy(ev->state);
  ne__lockstep_destroy(ev->lockstep);
  ne_adapter_destroy(ev->adapter);
  ne_free(ev->params);
  ne_free(ev->slot_params);
  ne_free(ev->eps);
  ne_free(ev->scratch);
  ne_free(ev->obs);
  ne_free(ev->bc);
  ne_free(ev->bc_sum);
  ne_free(ev);
}

// params = centre + coef * eps(seed). A table slice costs a read; the generator costs Philox and
// Box–Muller per parameter, so its eps is kept and the mirrored twin (same seed, -coef, usually
// next on the same thread) reuses it: the same floats, so the same bits as generating again.
static void perturb(ne_evaluator* ev, const ne_batch* batch, const ne_candidate* c, float* dst) {
  size_t n = ev->policy->n_params;
  const float* centre = batch->blobs[c->blob].data;
  if (!ev->eps && !batch->noise_table) ev->eps = ne_malloc(n * sizeof(float));
  if (batch->noise_table || !ev->eps) {  // (no memory for eps: generate in one pass, same bits)
    ne_noise_perturb(batch->noise_table, c->noise_seed, n, centre, c->coef, dst);
    return;
  }
  if (!ev->has_eps || ev->eps_seed != c->noise_seed) {
    ne_noise_fill(c->noise_seed, 0, n, ev->eps);
    ev->eps_seed = c->noise_seed;
    ev->has_eps = 1;
  }
  for (size_t i = 0; i < n; i++) dst[i] = centre[i] + c->coef * ev->eps[i];
}

// A candidate's parameters: built into dst (n_params floats), or a batch vector as it is
static const float* candidate_params(ne_evaluator* ev, const ne_batch* batch, const ne_candidate* c, float* dst,
                                     int* status) {
  size_t n = ev->policy->n_params;
  *status = 0;
  switch (c->kind) {
    case NE_CAND_CHAIN:
      if (c->n_seeds < 1 || !c->seeds) break;
      *status = ne_cache_materialize(ev->cache, ev->policy, c->seeds, c->n_seeds, c->sigma, dst);
      return *status ? NULL : dst;
    case NE_CAND_PERTURB:
      if (c->blob >= (uint32_t)batch->n_blobs || batch->blobs[c->blob].n != n) break;
      if (batch->noise_table && batch->noise_table->size < n) break;
      perturb(ev, batch, c, dst);
      return dst;
    case NE_CAND_VECTOR:
      if (c->blob >= (uint32_t)batch->n_blobs || batch->blobs[c->blob].n != n) break;
      return batch->blobs[c->blob].data;
  }
  *status = NE_EINVAL;
  return NULL;
}

const float* ne_evaluator_params(ne_evaluator* ev, const ne_batch* batch, const ne_candidate* c, int* status) {
  return candidate_params(ev, batch, c, ev->params, status);
}

// ev's lockstep, made on first use; NULL where episodes run one at a time
static ne_lockstep* lockstep_of(ne_evaluator* ev) {
  if (!ev->lockstep && ev->lockstep_ok && !(ev->lockstep = ne__lockstep_create(ev->env, ev->policy)))
    ev->lockstep_ok = 0;  // out of memory: the plain loop, which needs nothing more
  return ev->lockstep;
}

// Runs n episodes of params in lockstep, episode k reset with seeds[k], into returns[k] and
// steps[k]; marks ev interrupted on a stop request.
static void lockstep_episodes(ne_evaluator* ev, const float* params, const uint64_t* seeds, int n,
                              const ne_batch* batch, double* returns, uint64_t* steps) {
  ne_obs_norm norm = ne_episode_norm(batch);
  if (ne__lockstep_run(ev->lockstep, params, seeds, n, &norm, ev->stop, returns, steps) == NE_EINTR)
    ev->interrupted = 1;
}

// Episodes of a candidate in lockstep, a block at a time: more than a lockstep's width keeps its
// slots full (a slot whose episode ends takes the next one), a lockstep's width at most leaves each
// episode's final state in its slot (for behaviours)
#define CANDIDATE_BLOCK 64

// Episodes first .. first + w - 1 of a candidate (w <= CANDIDATE_BLOCK) in lockstep, with the reset
// seeds run_episode's loop derives; their returns into returns[0..w), their steps added to *steps.
static void candidate_block(ne_evaluator* ev, const float* params, uint64_t episode_seed, uint32_t first, uint32_t w,
                            const ne_batch* batch, double* returns, uint64_t* steps) {
  uint64_t seeds[CANDIDATE_BLOCK], n_steps[CANDIDATE_BLOCK];
  for (uint32_t k = 0; k < w; k++) seeds[k] = ne_hash2(episode_seed, first + k);
  lockstep_episodes(ev, params, seeds, (int)w, batch, returns, n_steps);
  for (uint32_t k = 0; k < w; k++) *steps += n_steps[k];
}

// One episode; obs statistics go to `stats` when non-NULL.
static double run_episode(ne_evaluator* ev, const float* params, uint64_t seed, const ne_batch* batch, uint64_t* steps,
                          ne_result* stats) {
  const ne_env_spec* env = ev->env;
  // black-box functions (bbob/*): the parameters are the point x, the return is -f(x), one step
  if (env->evaluate) {
    if (steps) *steps += 1;
    return -env->evaluate(env, params, ev->policy->n_params);
  }
  ne_episode ep = {.env = env,
                   .state = ev->state,
                   .policy = ev->policy,
                   .params = params,
                   .norm = ne_episode_norm(batch),
                   .stats = stats,
                   .input = ev->obs,
                   .scratch = ev->scratch};
  int rc = ne_episode_begin(&ep, seed);
  // act until the MDP terminates or the TimeLimit truncates, or the caller stops (an episode
  // without a time limit may never end: a stop request must not wait for it)
  while (!ep.done) {
    if (ev->stop && *ev->stop) {
      ev->interrupted = 1;
      break;
    }
    rc = ne_episode_step(&ep);
  }
  if (steps) *steps += ep.steps;
  // gym: bridge: an env that failed outside the process (a crashed env server) fails the episode
  if (rc && env->status && env->status(env, ev->state->impl, ev->env_errstr) != 0) {
    ev->env_failed = rc;
    return NAN;
  }
  return ep.ret;
}

double ne_evaluator_episode(ne_evaluator* ev, const float* params, uint64_t seed, const ne_batch* batch,
                            uint64_t* steps) {
  return run_episode(ev, params, seed, batch, steps, NULL);
}

void ne_evaluator_episodes(ne_evaluator* ev, const float* params, const uint64_t* seeds, int n, const ne_batch* batch,
                           double* returns, uint64_t* steps) {
  if (n > 1 && lockstep_of(ev)) {
    lockstep_episodes(ev, params, seeds, n, batch, returns, steps);
    return;
  }
  for (int k = 0; k < n; k++) {
    steps[k] = 0;
    returns[k] = run_episode(ev, params, seeds[k], batch, &steps[k], NULL);
  }
}

// Adds the behaviour characterization of state (the end of one episode) to ev->bc_sum.
static void add_behaviour(ne_evaluator* ev, const ne_env_state* state) {
  int d = ev->env->bc_dim;
  if (ne_env_behaviour(ev->env, state, ev->bc) != 0) return;
  for (int i = 0; i < d; i++) ev->bc_sum[i] += ev->bc[i];
}

// out->bc = the mean characterization over n episodes (summed in episode order), or zeros.
static void finish_behaviour(ne_evaluator* ev, uint32_t n, ne_result* out) {
  int d = ev->env->bc_dim;
  for (int i = 0; i < d; i++) out->bc[i] = n > 0 ? (float)(ev->bc_sum[i] / (double)n) : 0.0f;
}

int ne_evaluator_set_meta(ne_evaluator* ev, const ne_meta_spec* meta) {
  ne_adapter_destroy(ev->adapter);
  ev->adapter = NULL;
  ev->meta = meta && meta->tasks > 0 ? meta : NULL;
  if (ev->meta && !(ev->adapter = ne_adapter_create(meta, ev->env, ev->policy))) {
    ev->meta = NULL;
    return NE_ENOMEM;
  }
  return 0;
}

// Meta-learning: the candidate adapts to meta->tasks * episodes tasks drawn from its episode seed;
// fitness is the mean return after the inner loop, pre_fitness the mean before, return_std the
// spread of the after-returns over the tasks.
static int run_meta(ne_evaluator* ev, const ne_batch* batch, const ne_candidate* c, const float* params, int want_stats,
                    ne_result* out) {
  uint32_t n_tasks = (uint32_t)ev->meta->tasks * c->episodes;
  int k = ev->meta->inner_steps;
  double mean = 0, m2 = 0, pre = 0, task[NE_ENV_MAX_TASK];
  for (uint32_t t = 0; t < n_tasks; t++) {
    if (ev->stop && *ev->stop) {  // the caller stops: between tasks (an inner loop runs to its end)
      ev->interrupted = 1;
      return out->status = NE_EINTR;
    }
    uint64_t seed = ne_meta_task_seed(c->episode_seed, t);
    ne_adapt_result ar;
    ne_env_sample_task(ev->env, seed, task);
    int rc = ne_adapter_run(ev->adapter, params, task, seed, batch, want_stats ? out : NULL, &ar, NULL);
    out->steps += ar.steps;
    out->episodes += ar.episodes;
    if (rc) return out->status = rc;
    // Welford over the post-adaptation returns, a plain mean of the pre-adaptation ones
    double r = ar.returns[k], delta = r - mean;
    mean += delta / (double)(t + 1);
    m2 += delta * (r - mean);
    pre += (ar.returns[0] - pre) / (double)(t + 1);
  }
  out->fitness = mean;
  out->pre_fitness = pre;
  out->return_std = n_tasks > 1 ? sqrt(m2 / (double)n_tasks) : 0;
  if (!isfinite(mean) || !isfinite(pre)) out->status = NE_ERANGE;
  return out->status;
}

// One step of Welford's running mean and variance: return r of the e-th episode (0-based).
static void welford_add(double* mean, double* m2, double r, uint32_t e) {
  double delta = r - *mean;
  *mean += delta / (double)(e + 1);
  *m2 += delta * (r - *mean);
}

void ne_evaluator_summarize(const double* returns, uint32_t n, ne_result* out) {
  double mean = 0, m2 = 0;
  for (uint32_t e = 0; e < n; e++) welford_add(&mean, &m2, returns[e], e);
  out->episodes = n;
  out->fitness = mean;
  out->return_std = n > 1 ? sqrt(m2 / (double)n) : 0;
  if (!isfinite(mean) && out->status == 0) out->status = NE_ERANGE;
}

// 1 when the batch asks for behaviours and out has room for them (and the env has any)
static int wants_bc(const ne_evaluator* ev, const ne_batch* batch, const ne_result* out) {
  return batch->want_bc && out->bc && ev->env->bc_dim > 0;
}

// want_stats | want_bc << 1: whether the batch asks for observation sums and behaviours and out
// has room for them
static int result_wants(const ne_evaluator* ev, const ne_batch* batch, const ne_result* out) {
  int want_stats = batch->want_obs_stats && out->obs_sum && out->obs_sumsq;
  return want_stats | wants_bc(ev, batch, out) << 1;
}

// Starts out afresh, as every evaluation of a candidate does: no fitness yet, zero counts and sums
// (the behaviour zeros unless the episodes run). Returns result_wants.
static int begin_result(ne_evaluator* ev, const ne_batch* batch, ne_result* out) {
  int wants = result_wants(ev, batch, out);
  out->fitness = NAN;
  out->pre_fitness = NAN;  // no inner loop unless meta-learning
  out->return_std = 0;
  out->episodes = 0;
  out->steps = 0;
  out->obs_count = 0;
  out->status = 0;
  if (wants & 1) {
    memset(out->obs_sum, 0, (size_t)ev->env->obs_dim * sizeof(double));
    memset(out->obs_sumsq, 0, (size_t)ev->env->obs_dim * sizeof(double));
  }
  if (wants >> 1) {
    memset(ev->bc_sum, 0, (size_t)ev->env->bc_dim * sizeof(double));
    finish_behaviour(ev, 0, out);
  }
  return wants;
}

// Completes out from its episodes' Welford mean and m2 (and ev->bc_sum). Returns out->status.
static int end_result(ne_evaluator* ev, uint32_t episodes, double mean, double m2, int want_bc, ne_result* out) {
  out->episodes = episodes;
  out->fitness = mean;
  out->return_std = episodes > 1 ? sqrt(m2 / (double)episodes) : 0;
  if (want_bc) finish_behaviour(ev, episodes, out);
  if (!isfinite(mean)) out->status = NE_ERANGE;
  return out->status;
}

static int run_candidate(ne_evaluator* ev, const ne_batch* batch, const ne_candidate* c, ne_result* out) {
  int wants = begin_result(ev, batch, out);
  int want_stats = wants & 1, want_bc = wants >> 1;
  const float* params = ne_evaluator_params(ev, batch, c, &out->status);
  if (!params) return out->status;
  if (ev->meta) return run_meta(ev, batch, c, params, want_stats, out);
  // Welford's running mean and variance of the episode returns
  double mean = 0, m2 = 0;
  // several episodes: in lockstep with batched forwards, the same returns summed in the same order
  // (src/exec/lockstep.c); not while observation statistics are gathered
  int lockstep = c->episodes > 1 && !want_stats && lockstep_of(ev);
  uint32_t block = want_bc ? NE_LOCKSTEP_WIDTH : CANDIDATE_BLOCK;  // behaviours: each episode's final state
  double returns[CANDIDATE_BLOCK];
  for (uint32_t e = 0; e < c->episodes && !ev->env_failed && !ev->interrupted; e++) {  // gym: a failed env
    if (lockstep && e % block == 0) {
      uint32_t n = c->episodes - e < block ? c->episodes - e : block;
      candidate_block(ev, params, c->episode_seed, e, n, batch, returns, &out->steps);
      if (ev->interrupted) break;
    }
    double r = lockstep
        ? returns[e % block]
        : run_episode(ev, params, ne_hash2(c->episode_seed, e), batch, &out->steps, want_stats ? out : NULL);
    // where the episode ended: its env state (lockstep keeps one per episode) holds the final step
    if (want_bc) add_behaviour(ev, lockstep ? ne__lockstep_state(ev->lockstep, (int)(e % block)) : ev->state);
    welford_add(&mean, &m2, r, e);
  }
  if (ev->interrupted) return out->status = NE_EINTR;  // a partial result: the caller drops it
  return end_result(ev, c->episodes, mean, m2, want_bc, out);
}

// gym: bridge: a candidate whose env failed outside the process is run once more (the failed env
// server was killed; the next reset starts a fresh one); a second failure is its result.
int ne_evaluator_run(ne_evaluator* ev, const ne_batch* batch, const ne_candidate* c, ne_result* out) {
  ev->env_failed = 0;
  ev->interrupted = 0;
  int rc = run_candidate(ev, batch, c, out);
  if (ev->env_failed && !ev->interrupted) {
    ev->env_failed = 0;
    rc = run_candidate(ev, batch, c, out);
  }
  if (ev->env_failed) rc = out->status = ev->env_failed;
  return rc;
}

// ---- runs of candidates in lockstep ---------------------------------------------------------------

int ne_evaluator_candidate_width(const ne_evaluator* ev) { return ev->stream_ok && !ev->meta ? NE_LOCKSTEP_WIDTH : 1; }

// 1 when candidate c (result out) may share a stream: one episode (its observation sums and
// behaviour come from its one slot), or a few without either, whose returns wait in its record
// (sums over several episodes must follow their order, which a stream does not keep)
static int streamable(const ne_evaluator* ev, const ne_batch* batch, const ne_candidate* c, const ne_result* out) {
  if (c->episodes == 1) return 1;
  return c->episodes > 1 && c->episodes <= STREAM_MAX_EPISODES && !result_wants(ev, batch, out);
}

// Starts an episode in free slot s: the next of the candidate being started, or the first of the
// next candidates that runs (each gets out[j] afresh and a free record, its parameters in the
// record's buffer; one whose parameters fail is done, with their status; one whose reset fails
// ends at the next pass, with no steps, as run_episode ends it). slot_rec[s] = -1 when none was left.
static void fill_slot(ne_evaluator* ev, const ne_batch* batch, const ne_candidate* cands, int n, ne_result* out,
                      int s) {
  stream* st = &ev->stream;
  size_t np = ev->policy->n_params;
  st->slot_rec[s] = -1;
  for (;;) {
    stream_record* rec = st->filling >= 0 ? &st->recs[st->filling] : NULL;
    if (!rec || rec->started == cands[rec->cand].episodes) {
      st->filling = -1;
      if (st->next == n) return;
      int j = st->next++;
      int r = 0;
      while (st->recs[r].cand >= 0) r++;  // at most NE_LOCKSTEP_WIDTH - 1 candidates hold slots now
      int wants = begin_result(ev, batch, &out[j]);
      const float* params = candidate_params(ev, batch, &cands[j], ev->slot_params + (size_t)r * np, &out[j].status);
      if (!params) continue;
      rec = &st->recs[r];
      *rec = (stream_record){.cand = j, .params = params, .wants = wants};
      st->filling = r;
    }
    const ne_candidate* c = &cands[rec->cand];
    uint32_t e = rec->started++;
    st->slot_rec[s] = st->filling;
    st->slot_episode[s] = e;
    ne_result* stats = rec->wants & 1 ? &out[rec->cand] : NULL;  // one-episode candidates only
    ne__lockstep_begin(ev->lockstep, s, rec->params, ne_hash2(c->episode_seed, e), stats);
    return;
  }
}

// The episode that slot s just ended into its candidate's record; the candidate's out once its
// last episode ended, as run_candidate completes it (Welford over the returns in episode order)
static void end_slot(ne_evaluator* ev, const ne_candidate* cands, int s, ne_result* out) {
  stream* st = &ev->stream;
  stream_record* rec = &st->recs[st->slot_rec[s]];
  ne_result* res = &out[rec->cand];
  int want_bc = rec->wants >> 1;  // one-episode candidates only
  rec->returns[st->slot_episode[s]] = ne__lockstep_return(ev->lockstep, s);
  res->steps += ne__lockstep_steps(ev->lockstep, s);
  st->slot_rec[s] = -1;
  uint32_t n = cands[rec->cand].episodes;
  if (++rec->ended < n) return;
  double mean = 0, m2 = 0;
  for (uint32_t e = 0; e < n; e++) welford_add(&mean, &m2, rec->returns[e], e);
  if (want_bc) {
    memset(ev->bc_sum, 0, (size_t)ev->env->bc_dim * sizeof(double));
    add_behaviour(ev, ne__lockstep_state(ev->lockstep, s));
  }
  end_result(ev, n, mean, m2, want_bc, res);
  rec->cand = -1;
  if (st->filling == rec - st->recs) st->filling = -1;
}

// Candidates cands[0..n) (each streamable) NE_LOCKSTEP_WIDTH episodes at a time: a slot whose
// episode ends takes the next episode, so the slots stay full while episode lengths differ, and
// the candidates share one stream's end. On a stop request the unfinished candidates get NE_EINTR.
static void run_streamed(ne_evaluator* ev, const ne_batch* batch, const ne_candidate* cands, int n, ne_result* out) {
  stream* st = &ev->stream;
  ne_obs_norm norm = ne_episode_norm(batch);
  st->next = 0;
  st->filling = -1;
  for (int r = 0; r < NE_LOCKSTEP_WIDTH; r++) st->recs[r].cand = -1;
  ne__lockstep_clear(ev->lockstep);
  for (int s = 0; s < NE_LOCKSTEP_WIDTH; s++) fill_slot(ev, batch, cands, n, out, s);
  // held: slots with an episode of a candidate; the slots are looked at only after a step that
  // ended an episode (fewer running than held; a failed reset is one that never ran)
  int held = NE_LOCKSTEP_WIDTH + 1, running = 0;
  for (;;) {
    if (running < held) {
      held = 0;
      for (int s = 0; s < NE_LOCKSTEP_WIDTH; s++) {
        if (st->slot_rec[s] >= 0 && !ne__lockstep_running(ev->lockstep, s)) {
          end_slot(ev, cands, s, out);
          fill_slot(ev, batch, cands, n, out, s);
        }
        held += st->slot_rec[s] >= 0;
      }
    }
    if (!held) return;
    if (ev->stop && *ev->stop) break;
    running = ne__lockstep_step(ev->lockstep, &norm);
  }
  // a stop request: the episodes in hand and the candidates not started are dropped
  ev->interrupted = 1;
  ne__lockstep_clear(ev->lockstep);
  for (int r = 0; r < NE_LOCKSTEP_WIDTH; r++)
    if (st->recs[r].cand >= 0) out[st->recs[r].cand].status = NE_EINTR;
  for (int j = st->next; j < n; j++) out[j].status = NE_EINTR;
}

int ne_evaluator_run_many(ne_evaluator* ev, const ne_batch* batch, const ne_candidate* cands, int n, ne_result* out) {
  int k = 0;
  if (ne_evaluator_candidate_width(ev) > 1)
    while (k < n && streamable(ev, batch, &cands[k], &out[k])) k++;
  if (k > 1 && lockstep_of(ev) && !ev->slot_params)
    ev->slot_params = ne_malloc((size_t)NE_LOCKSTEP_WIDTH * ev->policy->n_params * sizeof(float));
  if (k < 2 || !ev->lockstep || !ev->slot_params) {
    ne_evaluator_run(ev, batch, cands, out);
    return 1;
  }
  ev->env_failed = 0;
  ev->interrupted = 0;
  run_streamed(ev, batch, cands, k, out);
  return k;
}

// Episodes first .. first + n - 1 of c into returns[0..n) (no observation statistics); out gets the
// steps and the status (the params' or NE_ERANGE for a non-finite return).
static int run_part(ne_evaluator* ev, const ne_batch* batch, const ne_candidate* c, uint32_t first, uint32_t n,
                    double* returns, ne_result* out) {
  out->steps = 0;
  out->obs_count = 0;
  const float* params = ne_evaluator_params(ev, batch, c, &out->status);
  if (!params) return out->status;
  int lockstep = n > 1 && lockstep_of(ev);
  for (uint32_t k = 0; k < n && !ev->env_failed && !ev->interrupted;) {
    uint32_t w = !lockstep ? 1 : (n - k < CANDIDATE_BLOCK ? n - k : CANDIDATE_BLOCK);
    if (lockstep) candidate_block(ev, params, c->episode_seed, first + k, w, batch, returns + k, &out->steps);
    else returns[k] = run_episode(ev, params, ne_hash2(c->episode_seed, first + k), batch, &out->steps, NULL);
    k += w;
  }
  if (ev->interrupted) return out->status = NE_EINTR;  // a partial result: the caller drops it
  if (ev->env_failed) return out->status;              // the caller reports the env's failure
  ne_evaluator_summarize(returns, n, out);
  return out->status;
}

int ne_evaluator_run_episodes(ne_evaluator* ev, const ne_batch* batch, const ne_candidate* c, uint32_t first,
                              uint32_t n, double* returns, ne_result* out) {
  ev->env_failed = 0;
  ev->interrupted = 0;
  if (ev->meta) return out->status = NE_EINVAL;  // a meta-learning candidate is evaluated whole
  int rc = run_part(ev, batch, c, first, n, returns, out);
  if (ev->env_failed && !ev->interrupted) {
    ev->env_failed = 0;
    rc = run_part(ev, batch, c, first, n, returns, out);
  }
  if (ev->env_failed) rc = out->status = ev->env_failed;
  return rc;
}

void ne_evaluator_set_stop(ne_evaluator* ev, const volatile int* stop) { ev->stop = stop; }

const char* ne_evaluator_env_error(const ne_evaluator* ev) { return ev->env_failed ? ev->env_errstr : NULL; }
