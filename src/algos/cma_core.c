// SPDX-License-Identifier: MIT
// The machinery CMA-ES and sep-CMA-ES share (cma_int.h), following Hansen, "The CMA Evolution
// Strategy: A Tutorial" (arXiv:1604.00772, 2016): default parameters (Table 1), sampling, ranking,
// mean / p_sigma / sigma / p_c updates (eqs. 41-45), the termination criteria of Appendix B.3 and
// Auger & Hansen 2005 (IPOP-CMA-ES: restart with doubled population). The covariance matrix itself
// lives in cmaes.c / sepcmaes.c. Every buffer is sized at a (re)start, so ask/tell allocate nothing;
// every draw derives from (run seed, generation, index, purpose), so runs are bit-reproducible.
#include <math.h>    // sqrt, floor, isfinite, isnan: exact or bit-free operations
#include <stdlib.h>  // qsort
#include <string.h>

#include "algos/cma_int.h"
#include "algos/es_common.h"  // report serialization shared by every algorithm
#include "core/detmath.h"     // ne__log: deterministic log for the weights
#include "core/linalg.h"      // ne__exp: deterministic exp for sigma and h_sigma
#include "core/util.h"
#include "neuroevo/alloc.h"
#include "neuroevo/noise.h"
#include "neuroevo/rng.h"

#define CMA_STATE_VERSION 1u
#define CMA_MAX_LAMBDA (1 << 24)  // IPOP stops doubling here (memory would run out first anyway)

// one sort record: fitness and sample index
typedef struct rank_rec {
  double f;
  int k;
} rank_rec;

// ---- strategy parameters ------------------------------------------------------------------------

int ne__cma_default_lambda(int n) { return 4 + (int)floor(3.0 * ne__log((double)n)); }

// log-linear raw weights w'_i = ln((lambda + 1) / 2) - ln i (tutorial eq. 49); returns their
// positive and negative sums and sums of squares
static void raw_weights(double* w, int lambda, int mu, double* pos, double* pos2, double* neg, double* neg2) {
  double base = ne__log((lambda + 1) / 2.0);
  *pos = *pos2 = *neg = *neg2 = 0;
  for (int i = 0; i < lambda; i++) {
    w[i] = base - ne__log((double)(i + 1));
    if (i < mu) {
      *pos += w[i];
      *pos2 += w[i] * w[i];
    } else {
      *neg -= w[i];  // w[i] <= 0 here
      *neg2 += w[i] * w[i];
    }
  }
}

// learning rates c1 and cmu (eqs. 57-58 with alpha_cov = 2), scaled for sep-CMA-ES
static void learning_rates(ne_cma_params* p, int separable) {
  double n = p->n, mueff = p->mueff;
  p->c1 = 2.0 / ((n + 1.3) * (n + 1.3) + mueff);
  double cmu = 2.0 * (mueff - 2.0 + 1.0 / mueff) / ((n + 2.0) * (n + 2.0) + mueff);
  p->cmu = cmu < 1.0 - p->c1 ? cmu : 1.0 - p->c1;
  if (separable) {
    // Ros & Hansen 2008: a diagonal C can learn (n + 2) / 3 times faster
    double k = (n + 2.0) / 3.0;
    p->c1 *= k;
    cmu = p->cmu * k;
    p->cmu = cmu < 1.0 - p->c1 ? cmu : 1.0 - p->c1;
  }
}

// scales the negative weights by min(alpha_mu^-, alpha_mueff^-, alpha_posdef^-) / sum |w'^-| (eq. 53)
static void negative_weights(ne_cma_params* p, double* w, double neg, int active) {
  double scale = 0;
  if (active && neg > 0 && p->cmu > 0) {
    double a_mu = 1.0 + p->c1 / p->cmu;
    double a_mueff = 1.0 + 2.0 * p->mueff_neg / (p->mueff + 2.0);
    double a_posdef = (1.0 - p->c1 - p->cmu) / (p->n * p->cmu);
    scale = a_mu < a_mueff ? a_mu : a_mueff;
    if (a_posdef < scale) scale = a_posdef;
    scale /= neg;
  }
  for (int i = p->mu; i < p->lambda; i++) w[i] *= scale;
}

void ne__cma_params_compute(ne_cma_params* p, double* w, int n, int lambda, int active, int separable) {
  memset(p, 0, sizeof *p);
  p->n = n;
  p->lambda = lambda;
  p->mu = lambda / 2;
  p->w = w;
  double pos, pos2, neg, neg2;
  raw_weights(w, lambda, p->mu, &pos, &pos2, &neg, &neg2);
  p->mueff = pos * pos / pos2;
  p->mueff_neg = neg2 > 0 ? neg * neg / neg2 : 0;
  for (int i = 0; i < p->mu; i++) w[i] /= pos;
  learning_rates(p, separable);
  negative_weights(p, w, neg, active && !separable);
  for (int i = 0; i < lambda; i++) p->wsum += w[i];
  // step-size control and cumulation (eqs. 55-56)
  double dn = n;
  p->cs = (p->mueff + 2.0) / (dn + p->mueff + 5.0);
  double t = sqrt((p->mueff - 1.0) / (dn + 1.0)) - 1.0;
  p->ds = 1.0 + 2.0 * (t > 0 ? t : 0) + p->cs;
  p->cc = (4.0 + p->mueff / dn) / (dn + 4.0 + 2.0 * p->mueff / dn);
  p->chin = sqrt(dn) * (1.0 - 1.0 / (4.0 * dn) + 1.0 / (21.0 * dn * dn));
}

// ---- configuration and buffers ------------------------------------------------------------------

static int parse_x0(const char* s, ne_cma_x0* out) {
  static const char* const names[] = {"auto", "policy", "zeros", "uniform"};
  for (int i = 0; i < 4; i++)
    if (strcmp(s, names[i]) == 0) {
      *out = (ne_cma_x0)i;
      return 0;
    }
  return NE_EINVAL;
}

static int read_config(ne_cma* c, const ne_config* cfg, const char* sec, char* errstr) {
  ne_cma_config* k = &c->cfg;
  k->sigma0 = ne_config_float(cfg, sec, "sigma0");
  k->popsize = (int)ne_config_int(cfg, sec, "popsize");
  k->ipop = ne_config_bool(cfg, sec, "ipop");
  k->max_restarts = (int)ne_config_int(cfg, sec, "max_restarts");
  k->tolfun = ne_config_float(cfg, sec, "tolfun");
  k->tolx = ne_config_float(cfg, sec, "tolx");
  k->tolcond = ne_config_float(cfg, sec, "tolcond");
  k->tolupsigma = ne_config_float(cfg, sec, "tolupsigma");
  k->x0_range = ne_config_float(cfg, sec, "x0_range");
  k->eval_mean = ne_config_bool(cfg, sec, "eval_mean");
  k->mean_episodes = (int)ne_config_int(cfg, sec, "mean_episodes");
  k->active = c->separable ? 0 : ne_config_bool(cfg, sec, "active");
  const char* x0 = ne_config_str(cfg, sec, "x0");
  if (parse_x0(x0, &k->x0))
    return ne__set_error(errstr, NE_EINVAL, "%s.x0 = %s: expected auto, policy, zeros or uniform", sec, x0);
  if (k->popsize == 1) return ne__set_error(errstr, NE_EINVAL, "%s.popsize = 1: needs at least 2 (0 = default)", sec);
  int identity = !c->prob.policy || c->prob.policy->act_dim == 0;  // black-box: no controller
  if (identity && k->x0 == NE_CMA_X0_POLICY)
    return ne__set_error(errstr, NE_EINVAL,
                         "%s.x0 = policy: a black-box problem has no policy init (use uniform or zeros)", sec);
  return 0;
}

// (re)allocates the lambda-sized buffers for `cap` samples
static int grow_buffers(ne_cma* c, int cap) {
  size_t n = (size_t)c->n, k = (size_t)cap;
  ne_free(c->z);
  ne_free(c->x);
  ne_free(c->fit);
  ne_free(c->order);
  ne_free(c->rank_scratch);
  ne_free(c->cands);
  ne_free(c->blobs);
  ne_free(c->par.w);
  c->z = ne_malloc(k * n * sizeof(float));
  c->x = ne_malloc((k + 1) * n * sizeof(float));
  c->fit = ne_calloc(k + 1, sizeof(double));
  c->order = ne_calloc(k, sizeof(int));
  c->rank_scratch = ne_calloc(k, sizeof(rank_rec));
  c->cands = ne_calloc(k + 1, sizeof(ne_candidate));
  c->blobs = ne_calloc(k + 1, sizeof(ne_blob));
  c->par.w = ne_calloc(k, sizeof(double));
  c->cap = cap;
  if (!c->z || !c->x || !c->fit || !c->order || !c->rank_scratch || !c->cands || !c->blobs || !c->par.w) {
    c->cap = 0;
    return NE_ENOMEM;
  }
  return 0;
}

// window of TolFun / EqualFunValues: 10 + ceil(30 n / lambda) generations
static int history_window(int n, int lambda) { return 10 + (int)((30LL * n + lambda - 1) / lambda); }

// the mean of restart r
static void initial_mean(ne_cma* c, int r) {
  ne_cma_x0 mode = c->cfg.x0;
  int identity = !c->prob.policy || c->prob.policy->act_dim == 0;  // black-box: no controller
  if (mode == NE_CMA_X0_AUTO) mode = identity ? NE_CMA_X0_UNIFORM : NE_CMA_X0_POLICY;
  if (mode == NE_CMA_X0_POLICY) {
    // restart 0 starts where the GA's first genome does; later restarts from fresh init seeds
    ne_policy_init_params(c->prob.policy, ne_seed_derive(c->prob.seed, 0, (uint64_t)r, NE_PURPOSE_INIT), c->x);
    for (int i = 0; i < c->n; i++) c->m[i] = c->x[i];
  } else if (mode == NE_CMA_X0_UNIFORM) {
    ne_rng rng;
    ne_rng_seed(&rng, ne_seed_derive(c->prob.seed, 0, (uint64_t)r, NE_PURPOSE_ALGO));
    for (int i = 0; i < c->n; i++) c->m[i] = ne_rng_range(&rng, -c->cfg.x0_range, c->cfg.x0_range);
  } else {
    memset(c->m, 0, (size_t)c->n * sizeof(double));
  }
}

int ne__cma_start_restart(ne_cma* c, int r) {
  long long lambda = c->lambda0;
  for (int i = 0; i < r && lambda < CMA_MAX_LAMBDA; i++) lambda *= 2;  // IPOP: lambda0 * 2^r
  if (lambda > c->cap && grow_buffers(c, (int)lambda)) return NE_ENOMEM;
  ne__cma_params_compute(&c->par, c->par.w, c->n, (int)lambda, c->cfg.active, c->separable);
  c->restart = r;
  c->g = 0;
  c->sigma = c->cfg.sigma0;
  memset(c->ps, 0, (size_t)c->n * sizeof(double));
  memset(c->pc, 0, (size_t)c->n * sizeof(double));
  int window = history_window(c->n, (int)lambda);
  c->hist_len = window < c->hist_cap ? window : c->hist_cap;
  c->hist_n = c->hist_pos = 0;
  initial_mean(c, r);
  c->phase = NE_CMA_IDLE;
  return 0;
}

int ne__cma_init(ne_cma* c, const ne_problem* problem, const ne_config* cfg, const char* section, int separable,
                 char* errstr) {
  memset(c, 0, sizeof *c);
  c->prob = *problem;
  c->n = (int)problem->n_params;
  c->separable = separable;
  c->best_score = -INFINITY;
  c->report.elite_mean = NAN;
  if (problem->n_params < 1 || problem->n_params > (size_t)1 << 30)
    return ne__set_error(errstr, NE_EINVAL, "%s: cannot search %zu parameters", section, problem->n_params);
  int rc = read_config(c, cfg, section, errstr);
  if (rc) return rc;
  c->lambda0 = c->cfg.popsize > 0 ? c->cfg.popsize : ne__cma_default_lambda(c->n);
  size_t n = (size_t)c->n;
  c->m = ne_calloc(n, sizeof(double));
  c->ps = ne_calloc(n, sizeof(double));
  c->pc = ne_calloc(n, sizeof(double));
  c->work = ne_calloc(2 * n, sizeof(double));
  c->best_x = ne_calloc(n, sizeof(float));
  c->hist_cap = history_window(c->n, c->lambda0);  // lambda only grows, so the window only shrinks
  c->hist = ne_calloc((size_t)c->hist_cap, sizeof(double));
  if (!c->m || !c->ps || !c->pc || !c->work || !c->best_x || !c->hist || ne__cma_start_restart(c, 0))
    return ne__set_error(errstr, NE_ENOMEM, "%s: out of memory for %d parameters, population %d", section, c->n,
                         c->lambda0);
  return 0;
}

void ne__cma_free(ne_cma* c) {
  if (!c) return;
  ne_free(c->m);
  ne_free(c->ps);
  ne_free(c->pc);
  ne_free(c->work);
  ne_free(c->best_x);
  ne_free(c->hist);
  ne_free(c->z);
  ne_free(c->x);
  ne_free(c->fit);
  ne_free(c->order);
  ne_free(c->rank_scratch);
  ne_free(c->cands);
  ne_free(c->blobs);
  ne_free(c->par.w);
  memset(c, 0, sizeof *c);
}

// ---- ask ----------------------------------------------------------------------------------------

const float* ne__cma_draw(ne_cma* c, int k) {
  float* z = c->z + (size_t)k * (size_t)c->n;
  ne_noise_fill(ne_seed_derive(c->prob.seed, c->gen, (uint64_t)k, NE_PURPOSE_MUTATION), 0, (size_t)c->n, z);
  return z;
}

static void set_candidate(ne_cma* c, int k, uint32_t episodes, uint64_t episode_seed) {
  ne__vector_candidate(&c->cands[k], &c->blobs[k], (uint32_t)k, episodes, episode_seed,
                       ne_seed_derive(c->prob.seed, c->gen, (uint64_t)k, NE_PURPOSE_ALGO),
                       c->x + (size_t)k * (size_t)c->n, (size_t)c->n);
}

void ne__cma_finish_ask(ne_cma* c) {
  int lambda = c->par.lambda;
  uint32_t episodes = c->prob.episodes > 0 ? (uint32_t)c->prob.episodes : 1;
  for (int k = 0; k < lambda; k++)
    set_candidate(c, k, episodes, ne_seed_derive(c->prob.seed, c->gen, (uint64_t)k, NE_PURPOSE_EPISODE));
  int total = lambda;
  // the mean rides along as one more candidate: its return is the generation's elite_mean
  if (c->cfg.eval_mean) {
    float* row = c->x + (size_t)lambda * (size_t)c->n;
    for (int i = 0; i < c->n; i++) row[i] = (float)c->m[i];
    uint32_t me = c->cfg.mean_episodes > 0 ? (uint32_t)c->cfg.mean_episodes : episodes;
    set_candidate(c, lambda, me, ne_seed_derive(c->prob.seed, c->gen, 0, NE_PURPOSE_REEVAL));
    total++;
  }
  memset(&c->batch, 0, sizeof c->batch);
  c->batch.generation = c->gen;
  c->batch.n = total;
  c->batch.cands = c->cands;
  c->batch.n_blobs = total;
  c->batch.blobs = c->blobs;
  c->phase = NE_CMA_ASKED;
}

// ---- tell: ranking and statistics ---------------------------------------------------------------

static int by_fitness_desc(const void* a, const void* b) {
  const rank_rec *x = a, *y = b;
  if (x->f > y->f) return -1;
  if (x->f < y->f) return 1;
  return (x->k > y->k) - (x->k < y->k);  // ties: lower index first, so the order is deterministic
}

static void population_report(ne_cma* c) {
  int lambda = c->par.lambda;
  ne_gen_report* r = &c->report;
  memset(r, 0, sizeof *r);
  r->generation = c->gen;
  double sum = 0;
  for (int k = 0; k < lambda; k++) sum += c->fit[k];
  r->best = c->fit[c->order[0]];
  r->mean = sum / lambda;
  r->median = lambda % 2 ? c->fit[c->order[lambda / 2]]
                         : 0.5 * (c->fit[c->order[lambda / 2 - 1]] + c->fit[c->order[lambda / 2]]);
  r->elite_mean = c->cfg.eval_mean ? c->fit[lambda] : NAN;
}

// keeps the best evaluated vector (samples and the mean); strictly better replaces, so ties keep
// the earlier one
static void track_best(ne_cma* c, int total) {
  for (int k = 0; k < total; k++) {
    if (!(c->fit[k] > c->best_score)) continue;
    c->best_score = c->fit[k];
    c->best_gen = c->gen;
    c->has_best = 1;
    memcpy(c->best_x, c->x + (size_t)k * (size_t)c->n, (size_t)c->n * sizeof(float));
  }
}

int ne__cma_rank(ne_cma* c, const ne_batch* batch, const ne_result* results) {
  if (batch != &c->batch || c->phase != NE_CMA_ASKED) return NE_ESTATE;
  int lambda = c->par.lambda;
  for (int k = 0; k < batch->n; k++)
    c->fit[k] = results[k].status == 0 && !isnan(results[k].fitness) ? results[k].fitness : -INFINITY;
  rank_rec* rec = c->rank_scratch;
  for (int k = 0; k < lambda; k++) rec[k] = (rank_rec){c->fit[k], k};
  qsort(rec, (size_t)lambda, sizeof *rec, by_fitness_desc);
  for (int k = 0; k < lambda; k++) c->order[k] = rec[k].k;
  population_report(c);
  track_best(c, batch->n);
  // fitness history for TolFun / EqualFunValues
  c->hist[c->hist_pos] = c->fit[c->order[0]];
  c->hist_pos = (c->hist_pos + 1) % c->hist_len;
  if (c->hist_n < c->hist_len) c->hist_n++;
  return 0;
}

// ---- tell: the shared updates -------------------------------------------------------------------

void ne__cma_weighted_z(const ne_cma* c, double* out) {
  size_t n = (size_t)c->n;
  memset(out, 0, n * sizeof(double));
  for (int i = 0; i < c->par.mu; i++) {
    double w = c->par.w[i];
    const float* z = c->z + (size_t)c->order[i] * n;
    for (size_t j = 0; j < n; j++) out[j] += w * z[j];
  }
}

void ne__cma_weighted_rows(const ne_cma* c, const double* rows, double* out) {
  size_t n = (size_t)c->n;
  memset(out, 0, n * sizeof(double));
  for (int i = 0; i < c->par.mu; i++) {
    double w = c->par.w[i];
    const double* y = rows + (size_t)c->order[i] * n;
    for (size_t j = 0; j < n; j++) out[j] += w * y[j];
  }
}

void ne__cma_move_mean(ne_cma* c, const double* yw) {
  for (int i = 0; i < c->n; i++) c->m[i] += c->sigma * yw[i];
}

int ne__cma_step_size(ne_cma* c, const double* whitened_yw) {
  const ne_cma_params* p = &c->par;
  double f = sqrt(p->cs * (2.0 - p->cs) * p->mueff), norm2 = 0;
  for (int i = 0; i < c->n; i++) {
    c->ps[i] = (1.0 - p->cs) * c->ps[i] + f * whitened_yw[i];
    norm2 += c->ps[i] * c->ps[i];
  }
  double norm = sqrt(norm2);
  // h_sigma stalls the rank-one update while ||p_sigma|| is large (eq. 45); (1 - cs)^(2(g+1))
  double decay = ne__exp(2.0 * (c->g + 1.0) * ne__log(1.0 - p->cs));
  int hsig = norm / sqrt(1.0 - decay) < (1.4 + 2.0 / (c->n + 1.0)) * p->chin;
  c->sigma *= ne__exp(p->cs / p->ds * (norm / p->chin - 1.0));
  return hsig;
}

void ne__cma_update_pc(ne_cma* c, const double* yw, int hsig) {
  const ne_cma_params* p = &c->par;
  double f = hsig ? sqrt(p->cc * (2.0 - p->cc) * p->mueff) : 0.0;
  for (int i = 0; i < c->n; i++) c->pc[i] = (1.0 - p->cc) * c->pc[i] + f * yw[i];
}

double ne__cma_decay(const ne_cma* c, int hsig) {
  const ne_cma_params* p = &c->par;
  double delta = hsig ? 0.0 : p->cc * (2.0 - p->cc);
  return 1.0 + p->c1 * delta - p->c1 - p->cmu * p->wsum;
}

// ---- termination criteria and restarts ----------------------------------------------------------

// TolFun and EqualFunValues over a full window of best values (plus this generation's values)
static const char* fitness_stall(const ne_cma* c) {
  if (c->hist_n < c->hist_len) return NULL;
  double lo = c->hist[0], hi = c->hist[0];
  for (int i = 1; i < c->hist_len; i++) {
    if (c->hist[i] < lo) lo = c->hist[i];
    if (c->hist[i] > hi) hi = c->hist[i];
  }
  if (hi - lo == 0) return "equalfunvalues";
  double worst = c->fit[c->order[c->par.lambda - 1]], best = c->fit[c->order[0]];
  if (worst < lo) lo = worst;
  if (best > hi) hi = best;
  return hi - lo < c->cfg.tolfun ? "tolfun" : NULL;
}

// TolX: every coordinate's standard deviation and sigma * p_c below tolx * sigma0
static int tolx_met(const ne_cma* c, const double* diag_c) {
  double tol = c->cfg.tolx * c->cfg.sigma0;
  for (int i = 0; i < c->n; i++)
    if (!(c->sigma * sqrt(diag_c[i]) < tol && c->sigma * fabs(c->pc[i]) < tol)) return 0;
  return 1;
}

// NoEffectCoord: adding 0.2 standard deviations in some coordinate leaves the mean unchanged
static int coord_no_effect(const ne_cma* c, const double* diag_c) {
  for (int i = 0; i < c->n; i++)
    if (c->m[i] + 0.2 * c->sigma * sqrt(diag_c[i]) == c->m[i]) return 1;
  return 0;
}

static int state_finite(const ne_cma* c) {
  if (!isfinite(c->sigma) || !(c->sigma > 0)) return 0;
  for (int i = 0; i < c->n; i++)
    if (!isfinite(c->m[i])) return 0;
  return 1;
}

const char* ne__cma_stop_reason(const ne_cma* c, const double* diag_c, double cond, double max_eig,
                                int axis_no_effect) {
  if (!state_finite(c) || !isfinite(cond)) return "nonfinite";
  const char* why = fitness_stall(c);
  if (why) return why;
  if (tolx_met(c, diag_c)) return "tolx";
  if (axis_no_effect) return "noeffectaxis";
  if (coord_no_effect(c, diag_c)) return "noeffectcoord";
  if (cond > c->cfg.tolcond) return "conditioncov";
  if (c->sigma / c->cfg.sigma0 > c->cfg.tolupsigma * sqrt(max_eig)) return "tolupsigma";
  return NULL;
}

int ne__cma_end_generation(ne_cma* c, const char* stop, int* restarted) {
  c->gen++;
  c->g++;
  c->phase = NE_CMA_IDLE;
  *restarted = 0;
  if (!stop) return 0;
  c->last_stop = stop;
  int next = c->restart;
  if (c->cfg.ipop && c->restart < c->cfg.max_restarts) next = c->restart + 1;
  else if (strcmp(stop, "nonfinite") != 0) return 0;  // no restarts left: keep iterating
  // a broken (non-finite) state always starts over, with the same population if IPOP is spent
  *restarted = 1;
  return ne__cma_start_restart(c, next);
}

// ---- reporting ----------------------------------------------------------------------------------

void ne__cma_report(const ne_cma* c, ne_gen_report* out) { *out = c->report; }

int ne__cma_best(const ne_cma* c, ne_best* out) {
  if (!c->has_best) return NE_ENOTFOUND;
  memset(out, 0, sizeof *out);
  out->score = c->best_score;
  out->generation = c->best_gen;
  out->params = c->best_x;
  out->n_params = (size_t)c->n;
  return 0;
}

// ---- serialization ------------------------------------------------------------------------------

void ne__cma_save(const ne_cma* c, uint32_t magic, ne_buf* b) {
  size_t n = (size_t)c->n;
  ne__buf_u32(b, magic);
  ne__buf_u32(b, CMA_STATE_VERSION);
  ne__buf_u32(b, (uint32_t)c->n);
  ne__buf_u32(b, (uint32_t)c->lambda0);
  ne__buf_u32(b, (uint32_t)c->restart);
  ne__buf_u32(b, (uint32_t)c->par.lambda);
  ne__buf_u32(b, c->gen);
  ne__buf_u32(b, c->g);
  ne__buf_f64(b, c->sigma);
  ne__buf_f64s(b, c->m, n);
  ne__buf_f64s(b, c->ps, n);
  ne__buf_f64s(b, c->pc, n);
  ne__buf_u32(b, (uint32_t)c->hist_len);
  ne__buf_u32(b, (uint32_t)c->hist_n);
  ne__buf_u32(b, (uint32_t)c->hist_pos);
  ne__buf_f64s(b, c->hist, (size_t)c->hist_len);
  ne__buf_u32(b, (uint32_t)c->has_best);
  ne__buf_f64(b, c->best_score);
  ne__buf_u32(b, c->best_gen);
  ne__buf_f32s(b, c->best_x, n);
  ne__report_save(&c->report, b);
}

// the header fields that must agree with this run's config
static int check_header(ne_cma* c, uint32_t magic, ne_reader* r, char* errstr) {
  if (ne__reader_u32(r) != magic)
    return ne__set_error(errstr, NE_ECORRUPT, "not a %s state", c->separable ? "sep-CMA-ES" : "CMA-ES");
  uint32_t version = ne__reader_u32(r);
  if (version != CMA_STATE_VERSION)
    return ne__set_error(errstr, NE_EVERSION, "CMA-ES state version %u, this build reads %u", version,
                         CMA_STATE_VERSION);
  uint32_t n = ne__reader_u32(r), lambda0 = ne__reader_u32(r);
  if (r->bad) return ne__set_error(errstr, NE_ECORRUPT, "CMA-ES state is truncated");
  if (n != (uint32_t)c->n || lambda0 != (uint32_t)c->lambda0)
    return ne__set_error(errstr, NE_EINVAL, "CMA-ES state has %u parameters and population %u, the config %d and %d", n,
                         lambda0, c->n, c->lambda0);
  return 0;
}

int ne__cma_load(ne_cma* c, uint32_t magic, ne_reader* r, char* errstr) {
  int rc = check_header(c, magic, r, errstr);
  if (rc) return rc;
  uint32_t restart = ne__reader_u32(r), lambda = ne__reader_u32(r);
  if (r->bad || restart > (uint32_t)c->cfg.max_restarts + 1u)
    return ne__set_error(errstr, NE_ECORRUPT, "CMA-ES state is truncated or corrupt (restart %u)", restart);
  // rebuild the restart's parameters and buffers, then overwrite the dynamic state
  if (ne__cma_start_restart(c, (int)restart)) return ne__set_error(errstr, NE_ENOMEM, "out of memory");
  if (lambda != (uint32_t)c->par.lambda)
    return ne__set_error(errstr, NE_ECORRUPT, "CMA-ES state has population %u, expected %d", lambda, c->par.lambda);
  size_t n = (size_t)c->n;
  c->gen = ne__reader_u32(r);
  c->g = ne__reader_u32(r);
  c->sigma = ne__reader_f64(r);
  ne__reader_f64s(r, c->m, n);
  ne__reader_f64s(r, c->ps, n);
  ne__reader_f64s(r, c->pc, n);
  uint32_t hl = ne__reader_u32(r), hn = ne__reader_u32(r), hp = ne__reader_u32(r);
  if (r->bad || hl != (uint32_t)c->hist_len || hn > hl || hp >= hl)
    return ne__set_error(errstr, NE_ECORRUPT, "CMA-ES state has a corrupt fitness history");
  c->hist_n = (int)hn;
  c->hist_pos = (int)hp;
  ne__reader_f64s(r, c->hist, hl);
  c->has_best = (int)ne__reader_u32(r);
  c->best_score = ne__reader_f64(r);
  c->best_gen = ne__reader_u32(r);
  ne__reader_f32s(r, c->best_x, n);
  ne__report_load(&c->report, r);
  if (r->bad) return ne__set_error(errstr, NE_ECORRUPT, "CMA-ES state is truncated");
  c->phase = NE_CMA_IDLE;
  return 0;
}
