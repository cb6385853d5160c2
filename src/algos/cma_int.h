// SPDX-License-Identifier: MIT
// What CMA-ES (cmaes.c, full covariance) and sep-CMA-ES (sepcmaes.c, diagonal) share: the default
// strategy parameters of Hansen's tutorial (2016), the mean / evolution paths / step size, sampling
// from counter-based noise, ranking, the termination criteria that trigger IPOP restarts, best-so-far
// tracking and serialization of all of it. The covariance model itself stays in each algorithm's
// file. Not public API; tests/test_cmaes.c checks the constants against the tutorial's formulas.
#ifndef NEUROEVO_CMA_INT_H
#define NEUROEVO_CMA_INT_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "neuroevo/algo.h"

// How the initial mean (and the mean of every restart) is chosen.
typedef enum ne_cma_x0 {
  NE_CMA_X0_AUTO = 0,     // policy init for networks, uniform for black-box problems (policy act_dim 0)
  NE_CMA_X0_POLICY = 1,   // the policy's initial parameters from an init seed (a new seed per restart)
  NE_CMA_X0_ZEROS = 2,    // the zero vector
  NE_CMA_X0_UNIFORM = 3,  // uniform in [-x0_range, x0_range]^n (a new draw per restart)
} ne_cma_x0;

// The [cmaes] / [sepcmaes] settings.
typedef struct ne_cma_config {
  double sigma0;      // initial step size
  int popsize;        // lambda of the first run (0: 4 + floor(3 ln n))
  int ipop;           // 1: restart with doubled population when a stop criterion fires
  int max_restarts;   // restarts allowed in all
  double tolfun;      // TolFun: range of recent best and current fitness values
  double tolx;        // TolX, relative to sigma0
  double tolcond;     // ConditionCov: largest / smallest eigenvalue of C
  double tolupsigma;  // TolUpSigma: sigma / sigma0 above this times sqrt(largest eigenvalue)
  ne_cma_x0 x0;       // initial mean
  double x0_range;    // half-width of the uniform x0 box
  int eval_mean;      // 1: evaluate the mean each generation (elite_mean)
  int mean_episodes;  // episodes of that evaluation (0: env.episodes)
  int active;         // 1: negative recombination weights (active CMA, tutorial 2016); full CMA only
} ne_cma_config;

// Default strategy parameters for one population size (tutorial Table 1, eqs. 49-58).
typedef struct ne_cma_params {
  int n;             // dimension
  int lambda;        // population size
  int mu;            // parents = floor(lambda / 2)
  double* w;         // (lambda) recombination weights: w[0..mu) > 0 sum to 1; the rest <= 0
  double mueff;      // variance effective selection mass of the positive weights
  double mueff_neg;  // the same for the negative weights (before scaling)
  double wsum;       // sum of all lambda weights (the decay term 1 - c1 - cmu * wsum)
  double cs;         // c_sigma: cumulation for step-size control
  double ds;         // d_sigma: step-size damping
  double cc;         // c_c: cumulation for the rank-one update
  double c1;         // rank-one learning rate
  double cmu;        // rank-mu learning rate
  double chin;       // E||N(0, I)|| ~ sqrt(n) (1 - 1/(4n) + 1/(21 n^2))
} ne_cma_params;

// Computes p for dimension n and population lambda into the caller's weight array w (lambda).
// active = 0 zeroes the negative weights; separable = 1 multiplies c1 and cmu by (n + 2) / 3
// (Ros & Hansen 2008) with cmu capped at 1 - c1.
void ne__cma_params_compute(ne_cma_params* p, double* w, int n, int lambda, int active, int separable);

// Default population size 4 + floor(3 ln n).
int ne__cma_default_lambda(int n);

typedef enum ne_cma_phase { NE_CMA_IDLE = 0, NE_CMA_ASKED = 1 } ne_cma_phase;

// The shared state. Each algorithm embeds one and adds its covariance model.
typedef struct ne_cma {
  // fixed at create
  ne_problem prob;    // policy, n_params, run seed, episodes
  ne_cma_config cfg;  // settings
  int n;              // dimension = prob.n_params
  int separable;      // 1 for sep-CMA-ES (diagonal C)
  int lambda0;        // population of restart 0
  // the current restart
  int restart;        // restarts done so far
  ne_cma_params par;  // strategy parameters of this restart's lambda
  uint32_t gen;       // generations completed overall (samples derive their seeds from it)
  uint32_t g;         // generations completed in this restart (h_sigma's correction)
  double sigma;       // step size
  double* m;          // (n) mean
  double* ps;         // (n) conjugate evolution path
  double* pc;         // (n) evolution path
  double* hist;       // (hist_cap) best fitness of recent generations (ring)
  int hist_cap;       // ring capacity = largest window (restart 0)
  int hist_len;       // window of this restart: 10 + ceil(30 n / lambda)
  int hist_n;         // entries filled (<= hist_len)
  int hist_pos;       // next write position
  // per-generation buffers, sized for `cap` samples (grown on IPOP restarts)
  int cap;              // lambda capacity
  float* z;             // (cap, n) standard normal samples
  float* x;             // (cap + 1, n) candidate vectors; row lambda is the mean
  double* fit;          // (cap + 1) fitness of the last batch (failures: -inf)
  int* order;           // (cap) sample indices by fitness, best first
  void* rank_scratch;   // (cap) sort records
  ne_candidate* cands;  // (cap + 1)
  ne_blob* blobs;       // (cap + 1)
  double* work;         // (2 n) scratch for the update and the stop checks
  ne_batch batch;       // what ask hands out
  ne_cma_phase phase;   // whether a batch is outstanding
  // results
  float* best_x;          // (n) best solution evaluated so far
  double best_score;      // its fitness (-inf before any)
  uint32_t best_gen;      // generation it was evaluated in
  int has_best;           // 1 once a finite fitness was seen
  ne_gen_report report;   // figures of the last completed generation
  const char* last_stop;  // criterion of the last restart (static text), or NULL
} ne_cma;

// Reads [section] settings into c->cfg, allocates the state and starts restart 0.
int ne__cma_init(ne_cma* c, const ne_problem* problem, const ne_config* cfg, const char* section, int separable,
                 char* errstr);

// Frees what init allocated. Nullable: c.
void ne__cma_free(ne_cma* c);

// Starts restart r: lambda = lambda0 * 2^r (IPOP), parameters, buffers, mean x0(r), sigma0,
// zero paths, empty history. The caller resets its covariance model to the identity.
int ne__cma_start_restart(ne_cma* c, int r);

// Draws z_k = eps(seed(run seed, gen, k, mutation)) into row k of c->z and returns it.
const float* ne__cma_draw(ne_cma* c, int k);

// Completes ask once rows 0..lambda-1 of c->x are filled: the mean row, candidates and batch.
void ne__cma_finish_ask(ne_cma* c);

// First half of tell: fitness, ranking, the generation's report and best-so-far, fitness history.
int ne__cma_rank(ne_cma* c, const ne_batch* batch, const ne_result* results);

// out = sum_{i<mu} w_i z_{i:lambda} (n doubles): the weighted mean of the selected noise vectors.
void ne__cma_weighted_z(const ne_cma* c, double* out);

// out = sum_{i<mu} w_i row_{i:lambda} of the (lambda, n) matrix rows (double).
void ne__cma_weighted_rows(const ne_cma* c, const double* rows, double* out);

// m += sigma * yw (c_m = 1), with the old sigma.
void ne__cma_move_mean(ne_cma* c, const double* yw);

// Cumulates p_sigma from C^{-1/2} <y>_w, returns h_sigma, then adapts sigma (tutorial eqs. 43-44).
int ne__cma_step_size(ne_cma* c, const double* whitened_yw);

// p_c <- (1 - cc) p_c + h_sigma sqrt(cc (2 - cc) mueff) <y>_w.
void ne__cma_update_pc(ne_cma* c, const double* yw, int hsig);

// The factor multiplying the old C: 1 + c1 delta(h_sigma) - c1 - cmu * sum w (tutorial eq. 47).
double ne__cma_decay(const ne_cma* c, int hsig);

// The restart criteria of the tutorial (B.3) and the IPOP paper, given the model's diag(C) (n),
// condition number and largest eigenvalue; `axis_no_effect` is the model's NoEffectAxis test.
// Returns the name of the first criterion met, or NULL.
const char* ne__cma_stop_reason(const ne_cma* c, const double* diag_c, double cond, double max_eig, int axis_no_effect);

// Second half of tell: counts the generation and, when `stop` names a criterion and IPOP allows,
// starts the next restart (*restarted = 1: the caller resets its model).
int ne__cma_end_generation(ne_cma* c, const char* stop, int* restarted);

// The vt entries every CMA variant shares.
void ne__cma_report(const ne_cma* c, ne_gen_report* out);
int ne__cma_best(const ne_cma* c, ne_best* out);

// Serializes / restores the shared state (the model follows in each algorithm's save).
void ne__cma_save(const ne_cma* c, uint32_t magic, ne_buf* b);
int ne__cma_load(ne_cma* c, uint32_t magic, ne_reader* r, char* errstr);

// Writes / reads n doubles (little-endian bit patterns).

#endif
