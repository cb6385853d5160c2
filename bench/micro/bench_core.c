// SPDX-License-Identifier: MIT
// Core numerics benchmarks, single thread: noise generation (fill, axpy) against axpy from a 256 MiB
// shared noise table, MLP forward rates (CartPole 4-64-64-2 argmax, a 17-64-64-6 tanh policy), and
// child materialization at chain length 1, 2 and 1000 with the parameter cache (parent cached: one
// axpy) and without (replay), for P = 4.8k and ~1M. Each figure is the median of 3 repeats of at
// least 0.2 s (ops longer than 1 s run once). The whole program takes about 20-30 s.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "neuroevo/cache.h"
#include "neuroevo/genome.h"
#include "neuroevo/noise.h"
#include "neuroevo/policy.h"
#include "neuroevo/rng.h"

#include "bench_timing.h"

// wall seconds per call of fn(ctx) (bench_timing.h)
static double time_op(void (*fn)(void*), void* ctx) { return bench_time_op(CLOCK_MONOTONIC, fn, ctx); }

static void* xmalloc(size_t n) {
  void* p = malloc(n);
  if (!p) {
    fprintf(stderr, "bench_core: out of memory (%zu bytes)\n", n);
    exit(1);
  }
  return p;
}

static ne_policy_spec make_spec(int obs, int hidden, int out, ne_head head) {
  const int h[2] = {hidden, hidden};
  float lo[NE_POLICY_MAX_ACT], hi[NE_POLICY_MAX_ACT];
  for (int i = 0; i < NE_POLICY_MAX_ACT; i++) lo[i] = -1.0f, hi[i] = 1.0f;
  ne_policy_spec s;
  char err[256];
  if (ne_policy_spec_init(&s, obs, h, 2, out, NE_ACT_TANH, head, NE_INIT_NORMC, lo, hi, err) != 0) {
    fprintf(stderr, "bench_core: %s\n", err);
    exit(1);
  }
  return s;
}

// ---- noise ---------------------------------------------------------------------------------------

#define NOISE_N (1 << 20)  // floats per noise call (a 1M-parameter perturbation)

typedef struct noise_ctx {
  float* out;                   // (NOISE_N)
  uint64_t seed;                // advanced every call
  const ne_noise_table* table;  // for the table variant
} noise_ctx;

static void op_fill(void* p) {
  noise_ctx* c = p;
  ne_noise_fill(c->seed++, 0, NOISE_N, c->out);
}

static void op_axpy(void* p) {
  noise_ctx* c = p;
  ne_noise_axpy(c->seed++, 0, NOISE_N, 0.01f, c->out);
}

// The OpenAI-ES alternative: the same perturbation read from a random offset of the shared table.
static void op_table_axpy(void* p) {
  noise_ctx* c = p;
  const float* eps = c->table->data + ne_noise_table_offset(c->table, c->seed++, NOISE_N);
  for (size_t i = 0; i < NOISE_N; i++) c->out[i] += 0.01f * eps[i];
}

static void bench_noise(void) {
  noise_ctx c = {xmalloc(NOISE_N * sizeof(float)), 1, NULL};
  memset(c.out, 0, NOISE_N * sizeof(float));
  printf("noise, %d floats per call, single thread\n", NOISE_N);
  printf("  %-44s %10.1f M samples/s\n", "ne_noise_fill (Philox + Box-Muller)", NOISE_N / time_op(op_fill, &c) / 1e6);
  printf("  %-44s %10.1f M samples/s\n", "ne_noise_axpy", NOISE_N / time_op(op_axpy, &c) / 1e6);
  double t0 = bench_clock(CLOCK_MONOTONIC);
  ne_noise_table* table = ne_noise_table_create(12345, (size_t)64 << 20);
  double created = bench_clock(CLOCK_MONOTONIC) - t0;
  if (!table) {
    printf("  noise table: allocation of 256 MiB failed, skipped\n");
  } else {
    c.table = table;
    printf("  %-44s %10.1f M samples/s\n", "axpy from a 256 MiB table (random offsets)",
           NOISE_N / time_op(op_table_axpy, &c) / 1e6);
    printf("  %-44s %10.2f s\n", "  (creating the 64M-float table took)", created);
    ne_noise_table_destroy(table);
  }
  free(c.out);
}

// ---- forward -------------------------------------------------------------------------------------

#define N_OBS 256
#define FORWARDS_PER_OP 1000

typedef struct forward_ctx {
  const ne_policy_spec* spec;
  float* params;   // (n_params)
  float* obs;      // (N_OBS, obs_dim)
  float* scratch;  // (scratch_floats)
  float act[NE_POLICY_MAX_ACT];
  double sink;  // keeps results observable
} forward_ctx;

static void op_forward(void* p) {
  forward_ctx* c = p;
  int d = c->spec->sizes[0];
  for (int i = 0; i < FORWARDS_PER_OP; i++) {
    ne_policy_forward(c->spec, c->params, c->obs + (size_t)(i % N_OBS) * (size_t)d, c->scratch, c->act);
    c->sink += c->act[0];
  }
}

// the same forwards 8 rows at a time (episodes in lockstep: ne_policy_forward_batch)
#define BATCH_ROWS 8
static void op_forward_batch(void* p) {
  forward_ctx* c = p;
  int d = c->spec->sizes[0];
  float act[BATCH_ROWS * NE_POLICY_MAX_ACT];
  for (int i = 0; i < FORWARDS_PER_OP; i += BATCH_ROWS) {
    ne_policy_forward_batch(c->spec, c->params, c->obs + (size_t)(i % N_OBS) * (size_t)d, BATCH_ROWS, c->scratch, act);
    c->sink += act[0];
  }
}

static void bench_forward_one(const char* label, ne_policy_spec s, int batched) {
  forward_ctx c = {&s,
                   xmalloc(s.n_params * sizeof(float)),
                   xmalloc((size_t)N_OBS * (size_t)s.sizes[0] * sizeof(float)),
                   xmalloc(ne_policy_batch_scratch_floats(&s, BATCH_ROWS) * sizeof(float)),
                   {0},
                   0};
  ne_policy_init_params(&s, 7, c.params);
  // tanh hidden units in their working range: unit-scale observations
  ne_noise_fill(99, 0, (size_t)N_OBS * (size_t)s.sizes[0], c.obs);
  double t = time_op(batched ? op_forward_batch : op_forward, &c) / FORWARDS_PER_OP;
  printf("  %-50s %8.2f M forwards/s  (%.0f ns, %zu params)\n", label, 1e-6 / t, t * 1e9, s.n_params);
  free(c.params), free(c.obs), free(c.scratch);
}

// each with tanh in double (runs before policy.tanh), in float, and in float with fused
// multiply-adds (policy.fma: the default of new runs)
static void bench_forward(void) {
  printf("\nMLP forward, single thread\n");
  ne_policy_spec cartpole = make_spec(4, 64, 2, NE_HEAD_ARGMAX), mujoco = make_spec(17, 64, 6, NE_HEAD_TANH);
  bench_forward_one("4-64-64-2 tanh argmax (CartPole), tanh double", cartpole, 0);
  bench_forward_one("17-64-64-6 tanh, tanh head, tanh double", mujoco, 0);
  cartpole.tanh_eval = mujoco.tanh_eval = NE_TANH_FLOAT;
  bench_forward_one("4-64-64-2 tanh argmax (CartPole), tanh float", cartpole, 0);
  bench_forward_one("17-64-64-6 tanh, tanh head, tanh float", mujoco, 0);
  bench_forward_one("4-64-64-2 CartPole, tanh float, batches of 8", cartpole, 1);
  bench_forward_one("17-64-64-6 tanh head, tanh float, batches of 8", mujoco, 1);
  cartpole.fma = mujoco.fma = 1;
  bench_forward_one("4-64-64-2 CartPole, float, fma", cartpole, 0);
  bench_forward_one("17-64-64-6 tanh head, float, fma", mujoco, 0);
  bench_forward_one("4-64-64-2 CartPole, float, fma, batches of 8", cartpole, 1);
  bench_forward_one("17-64-64-6 tanh head, float, fma, batches of 8", mujoco, 1);
}

// ---- eight candidates, eight vectors ---------------------------------------------------------------

// The lockstep's single-episode candidates: 8 forwards with 8 different parameter vectors, one call
// per row and layer (ne_policy_forward_rows) against all 8 in lanes (ne_policy_forward_lanes)
typedef struct cands_ctx {
  const ne_policy_spec* spec;
  const float* rows[NE_POLICY_LANES];  // each candidate's vector
  float* lanes;                        // the same, interleaved
  float* obs;                          // (N_OBS, obs_dim) rows
  float* lane_obs;                     // (N_OBS / 8) blocks of (obs_dim, 8)
  float* scratch;
  double sink;
} cands_ctx;

static void op_rows(void* p) {
  cands_ctx* c = p;
  int d = c->spec->sizes[0];
  float act[NE_POLICY_LANES * NE_POLICY_MAX_ACT];
  for (int i = 0; i < FORWARDS_PER_OP; i += NE_POLICY_LANES) {
    ne_policy_forward_rows(c->spec, c->rows, c->obs + (size_t)(i % N_OBS) * (size_t)d, NE_POLICY_LANES, c->scratch,
                           act);
    c->sink += act[0];
  }
}

static void op_lanes(void* p) {
  cands_ctx* c = p;
  int d = c->spec->sizes[0];
  float act[NE_POLICY_LANES * NE_POLICY_MAX_ACT];
  for (int i = 0; i < FORWARDS_PER_OP; i += NE_POLICY_LANES) {
    ne_policy_forward_lanes(c->spec, c->lanes, c->lane_obs + (size_t)(i % N_OBS) * (size_t)d, c->scratch, act);
    c->sink += act[0];
  }
}

static void bench_candidates_one(const char* label, ne_policy_spec s) {
  int d = s.sizes[0];
  size_t scratch = ne_policy_batch_scratch_floats(&s, NE_POLICY_LANES);
  if (ne_policy_lanes_scratch_floats(&s) > scratch) scratch = ne_policy_lanes_scratch_floats(&s);
  cands_ctx c = {&s,
                 {0},
                 xmalloc(NE_POLICY_LANES * s.n_params * sizeof(float)),
                 xmalloc((size_t)N_OBS * (size_t)d * sizeof(float)),
                 xmalloc((size_t)N_OBS * (size_t)d * sizeof(float)),
                 xmalloc(scratch * sizeof(float)),
                 0};
  float* own = xmalloc(NE_POLICY_LANES * s.n_params * sizeof(float));
  for (int k = 0; k < NE_POLICY_LANES; k++) {
    float* v = own + (size_t)k * s.n_params;
    ne_policy_init_params(&s, 7 + (uint64_t)k, v);
    ne_policy_set_lane(&s, c.lanes, k, v);
    c.rows[k] = v;
  }
  ne_noise_fill(99, 0, (size_t)N_OBS * (size_t)d, c.obs);
  for (int b = 0; b < N_OBS; b += NE_POLICY_LANES)  // each block of 8 rows as (obs_dim, 8)
    for (int k = 0; k < NE_POLICY_LANES; k++)
      for (int i = 0; i < d; i++)
        c.lane_obs[(size_t)b * (size_t)d + (size_t)i * NE_POLICY_LANES + (size_t)k] =
            c.obs[(size_t)(b + k) * (size_t)d + (size_t)i];
  double rows = time_op(op_rows, &c) / FORWARDS_PER_OP, lanes = time_op(op_lanes, &c) / FORWARDS_PER_OP;
  printf("  %-34s %7.1f ns rows, %7.1f ns lanes a candidate (lanes %.2fx, %zu params)\n", label, rows * 1e9,
         lanes * 1e9, rows / lanes, s.n_params);
  free(own), free(c.lanes), free(c.obs), free(c.lane_obs), free(c.scratch);
}

static void bench_candidates(void) {
  printf("\n8 candidates' MLP forwards, 8 vectors (lockstep of single-episode candidates), tanh float\n");
  const int h16[1] = {16}, h64[1] = {64};
  char err[256];
  ne_policy_spec es, wide, deep = make_spec(4, 32, 2, NE_HEAD_ARGMAX);
  if (ne_policy_spec_init(&es, 4, h16, 1, 2, NE_ACT_TANH, NE_HEAD_ARGMAX, NE_INIT_NORMC, NULL, NULL, err) ||
      ne_policy_spec_init(&wide, 4, h64, 1, 2, NE_ACT_TANH, NE_HEAD_ARGMAX, NE_INIT_NORMC, NULL, NULL, err)) {
    fprintf(stderr, "bench_core: %s\n", err);
    exit(1);
  }
  es.tanh_eval = wide.tanh_eval = deep.tanh_eval = NE_TANH_FLOAT;  // the defaults of new runs
  es.fma = wide.fma = deep.fma = 1;
  bench_candidates_one("4-16-2 (CartPole ES row)", es);
  bench_candidates_one("4-64-2", wide);
  bench_candidates_one("4-32-32-2", deep);
}

// ---- materialization -----------------------------------------------------------------------------

#define MAX_CHAIN 1000

typedef struct mat_ctx {
  const ne_policy_spec* spec;
  ne_param_cache* cache;  // NULL: replay
  uint64_t seeds[MAX_CHAIN];
  size_t n;    // chain length
  float* out;  // (n_params)
} mat_ctx;

// A new child every call (a fresh last seed), so the full chain is never cached.
static void op_materialize(void* p) {
  mat_ctx* c = p;
  c->seeds[c->n - 1]++;
  if (ne_cache_materialize(c->cache, c->spec, c->seeds, c->n, 0.005f, c->out) != 0) {
    fprintf(stderr, "bench_core: materialize failed\n");
    exit(1);
  }
}

// The same chain every call: with the chain cached, a lookup and a copy.
static void op_materialize_same(void* p) {
  mat_ctx* c = p;
  if (ne_cache_materialize(c->cache, c->spec, c->seeds, c->n, 0.005f, c->out) != 0) {
    fprintf(stderr, "bench_core: materialize failed\n");
    exit(1);
  }
}

// Replay and cached times for one chain length; for n = 1 "cached" means the chain itself is.
static void bench_chain(const ne_policy_spec* s, size_t n) {
  static mat_ctx c;
  c = (mat_ctx){s, NULL, {0}, n, xmalloc(s->n_params * sizeof(float))};
  for (size_t i = 0; i < n; i++) c.seeds[i] = 1000003u * (uint64_t)i + 17u;
  double replay = time_op(op_materialize, &c);
  // put the parent (n = 1: the chain) in a cache, then time children of it
  c.cache = ne_cache_create(s->n_params, 64 * s->n_params * sizeof(float));
  if (!c.cache) {
    fprintf(stderr, "bench_core: cache allocation failed\n");
    exit(1);
  }
  size_t keep = n > 1 ? n - 1 : 1;
  ne_genome_materialize(s, c.seeds, keep, 0.005f, c.out);
  ne_cache_insert(c.cache, ne_chain_hash(s, c.seeds, keep, 0.005f), c.out);
  ne_cache_stats before, after;
  ne_cache_get_stats(c.cache, &before);
  double cached = time_op(n > 1 ? op_materialize : op_materialize_same, &c);
  ne_cache_get_stats(c.cache, &after);
  double calls = (double)(after.hits + after.misses - before.hits - before.misses);
  printf("  %-9zu %6zu %14.1f %14.1f %10.1fx %12.2f\n", s->n_params, n, replay * 1e6, cached * 1e6, replay / cached,
         (double)(after.axpys - before.axpys) / calls);
  free(c.out);
  ne_cache_destroy(c.cache);
}

static void bench_materialize(void) {
  printf(
      "\nchild materialization, single thread (us per child; cached: parent in the cache, for chain 1 the\n"
      "chain itself; replay: ne_genome_materialize, init + chain-1 axpys)\n");
  printf("  %-9s %6s %14s %14s %11s %12s\n", "params", "chain", "replay us", "cached us", "ratio", "axpys/child");
  ne_policy_spec small = make_spec(6, 64, 3, NE_HEAD_ARGMAX);    // Acrobot-sized: 4803 params
  ne_policy_spec large = make_spec(376, 832, 17, NE_HEAD_TANH);  // Humanoid-sized: 1.02M params
  const size_t lengths[3] = {1, 2, MAX_CHAIN};
  for (int i = 0; i < 3; i++) bench_chain(&small, lengths[i]);
  for (int i = 0; i < 3; i++) bench_chain(&large, lengths[i]);
}

int main(void) {
  double t0 = bench_clock(CLOCK_MONOTONIC);
  printf("bench_core: core numerics (Release build, one thread; medians of %d x >= %.1f s)\n\n", BENCH_REPEATS,
         BENCH_MIN_SECONDS);
  bench_noise();
  bench_forward();
  bench_candidates();
  bench_materialize();
  printf("\nbench_core: %.1f s in total\n", bench_clock(CLOCK_MONOTONIC) - t0);
  return 0;
}
