// SPDX-License-Identifier: MIT
// Novelty search (src/algos/novelty.c, nses.c, ga.c with ga.novelty) through its internals and the
// ask/tell interface on synthetic behaviours (no environment): k-NN novelty's exact values, its
// independence of the scan order, the population's self left out; the archive's reservoir bound,
// its uniform sample and its serialization; GA-NS picking parents by novelty while the elite stays
// the best by reward; NS-ES's rounds (the M initial centres in generation 0, the updated centre in
// round 1), perturbations from the noise [es] names, novelty-only steps that ignore rewards while NSR-ES's do not, the centre drawn in
// proportion to its novelty, NSRA-ES's weight rule, and save/load continuing bit for bit.
#include <math.h>

#include "algos/novelty.h"
#include "neuroevo/algo.h"
#include "neuroevo/alloc.h"
#include "neuroevo/config.h"
#include "neuroevo/error.h"
#include "neuroevo/genome.h"
#include "neuroevo/noise.h"
#include "neuroevo/policy.h"
#include "neuroevo/rng.h"
#include "test.h"

// ---- k-NN novelty -------------------------------------------------------------------------------

static void fill_archive(ne__archive* a, const float* pts, int n) {
  for (int i = 0; i < n; i++) ASSERT_EQ(ne__archive_insert(a, pts + 2 * i, (uint64_t)i), 0);
}

// the mean distance to the k nearest, exactly; fewer points than k: all of them; none: 0
static void knn_exact_values(void) {
  ne__archive a;
  ASSERT_EQ(ne__archive_init(&a, 2, 100), 0);
  ne__knn s;
  ASSERT_EQ(ne__knn_init(&s, 2), 0);
  float q[2] = {0, 0};
  ASSERT(ne__novelty(&s, q, &a, NULL, 0, -1) == 0);  // nothing to compare with
  const float pts[] = {3, 4, 0, 1, 6, 8, -5, 0};     // distances 5, 1, 10, 5
  fill_archive(&a, pts, 4);
  ASSERT(ne__novelty(&s, q, &a, NULL, 0, -1) == 3.0);  // (1 + 5) / 2
  ne__knn big;
  ASSERT_EQ(ne__knn_init(&big, 10), 0);
  ASSERT(ne__novelty(&big, q, &a, NULL, 0, -1) == 5.25);  // (5 + 1 + 10 + 5) / 4
  // the population counts too, except the query itself
  const float pop[] = {0, 0, 0.5f, 0};
  ASSERT(ne__novelty(&s, pop, &a, pop, 2, 0) == 0.75);   // (0.5 + 1) / 2: itself left out
  ASSERT(ne__novelty(&s, pop, &a, pop, 2, -1) == 0.25);  // (0 + 0.5) / 2
  ne__knn_free(&s);
  ne__knn_free(&big);
  ne__archive_free(&a);
}

// the same points in another order give the same bits (ties included)
static void knn_independent_of_order(void) {
  enum { N = 500 };
  static float pts[2 * N], rev[2 * N];
  ne_rng rng;
  ne_rng_seed(&rng, 4);
  for (int i = 0; i < N; i++) {
    pts[2 * i] = (float)(int)(ne_rng_uniform(&rng) * 20);  // a grid: many equal distances
    pts[2 * i + 1] = (float)(int)(ne_rng_uniform(&rng) * 20);
  }
  for (int i = 0; i < N; i++) rev[2 * i] = pts[2 * (N - 1 - i)], rev[2 * i + 1] = pts[2 * (N - 1 - i) + 1];
  ne__archive a, b;
  ASSERT_EQ(ne__archive_init(&a, 2, N), 0);
  ASSERT_EQ(ne__archive_init(&b, 2, N), 0);
  fill_archive(&a, pts, N);
  fill_archive(&b, rev, N);
  ne__knn s;
  ASSERT_EQ(ne__knn_init(&s, 25), 0);
  for (int t = 0; t < 50; t++) {
    float q[2] = {(float)ne_rng_uniform(&rng) * 20, (float)ne_rng_uniform(&rng) * 20};
    double x = ne__novelty(&s, q, &a, NULL, 0, -1), y = ne__novelty(&s, q, &b, NULL, 0, -1);
    ASSERT(memcmp(&x, &y, sizeof x) == 0);
    // against a sort of all distances
    static double d[N];
    for (int i = 0; i < N; i++) d[i] = hypot((double)q[0] - pts[2 * i], (double)q[1] - pts[2 * i + 1]);
    for (int i = 1; i < N; i++)
      for (int j = i; j > 0 && d[j] < d[j - 1]; j--) {
        double tmp = d[j];
        d[j] = d[j - 1], d[j - 1] = tmp;
      }
    double want = 0;
    for (int i = 0; i < 25; i++) want += d[i];
    ASSERT_NEAR(x, want / 25, 1e-9);
  }
  ne__knn_free(&s);
  ne__archive_free(&a);
  ne__archive_free(&b);
}

// ---- the archive --------------------------------------------------------------------------------

// bounded by cap; past it, a uniform sample of every insertion (algorithm R), deterministic
static void archive_reservoir(void) {
  enum { CAP = 100, TOTAL = 20000 };
  ne__archive a, b;
  ASSERT_EQ(ne__archive_init(&a, 1, CAP), 0);
  ASSERT_EQ(ne__archive_init(&b, 1, CAP), 0);
  for (int i = 0; i < TOTAL; i++) {
    float v = (float)i;
    ASSERT_EQ(ne__archive_insert(&a, &v, ne_hash2(9, (uint64_t)i)), 0);
    ASSERT_EQ(ne__archive_insert(&b, &v, ne_hash2(9, (uint64_t)i)), 0);
  }
  ASSERT_EQ(a.n, CAP);
  ASSERT_LE(a.alloc, CAP);
  ASSERT_U64_EQ(a.offered, TOTAL);
  ASSERT(memcmp(a.data, b.data, CAP * sizeof(float)) == 0);
  // a uniform sample: about half of it from the first half of the insertions, and some from the
  // first and the last fifth (binomial(100, 0.5) is within 50 +- 20 with probability 1 - 1e-4)
  int first_half = 0, early = 0, late = 0;
  for (int i = 0; i < CAP; i++) {
    first_half += a.data[i] < TOTAL / 2;
    early += a.data[i] < TOTAL / 5;
    late += a.data[i] >= TOTAL - TOTAL / 5;
  }
  ASSERT(first_half > 30 && first_half < 70);
  ASSERT(early > 5 && late > 5);
  // serialization round trip; wrong dimension and truncation are refused
  ne_buf buf;
  ne__buf_init(&buf);
  ne__archive_save(&a, &buf);
  ne__archive c;
  ASSERT_EQ(ne__archive_init(&c, 1, CAP), 0);
  ne_reader r;
  ne__reader_init(&r, buf.data, buf.len);
  ASSERT_EQ(ne__archive_load(&c, &r), 0);
  ASSERT_EQ(c.n, CAP);
  ASSERT_U64_EQ(c.offered, TOTAL);
  ASSERT(memcmp(a.data, c.data, CAP * sizeof(float)) == 0);
  ne__archive d2;
  ASSERT_EQ(ne__archive_init(&d2, 2, CAP), 0);
  ne__reader_init(&r, buf.data, buf.len);
  ASSERT_EQ(ne__archive_load(&d2, &r), NE_ECORRUPT);
  ne__reader_init(&r, buf.data, buf.len - 3);
  ASSERT_EQ(ne__archive_load(&c, &r), NE_ECORRUPT);
  ne__buf_free(&buf);
  ne__archive_free(&a);
  ne__archive_free(&b);
  ne__archive_free(&c);
  ne__archive_free(&d2);
}

// ---- a synthetic task: the first two parameters are the behaviour ----------------------------------

static ne_policy_spec spec;

static ne_config* config_text(const char* text) {
  ne_config* cfg = ne_config_create();
  char err[NE_ERRSTR_LEN];
  ASSERT(cfg);
  if (ne_config_load_string(cfg, text, "test.ini", err)) TEST_FAIL("%s", err);
  if (ne_config_validate(cfg, err)) TEST_FAIL("%s", err);
  return cfg;
}

static void* make_algo(const char* name, const ne_config* cfg, uint64_t seed) {
  int hidden[1] = {4};
  char err[NE_ERRSTR_LEN];
  ASSERT_EQ(ne_policy_spec_init(&spec, 3, hidden, 1, 2, NE_ACT_TANH, NE_HEAD_ARGMAX, NE_INIT_NORMC, NULL, NULL, err),
            0);
  ne_problem prob = {&spec, spec.n_params, seed, 1, 3, 2};
  void* algo = NULL;
  if (ne_algo_find(name)->create(&prob, cfg, &algo, err)) TEST_FAIL("%s", err);
  return algo;
}

// params of a candidate (chains, perturbations, vectors)
static void params_of(const ne_batch* b, const ne_candidate* c, float* p) {
  if (c->kind == NE_CAND_CHAIN) ne_genome_materialize(&spec, c->seeds, c->n_seeds, c->sigma, p);
  else if (c->kind == NE_CAND_PERTURB)
    ne_noise_perturb(NULL, c->noise_seed, spec.n_params, b->blobs[c->blob].data, c->coef, p);
  else memcpy(p, b->blobs[c->blob].data, spec.n_params * sizeof(float));
}

// reward: -(p0 - 2)^2 - p1^2 (a trap at p1 = 0 for a reward-only search); behaviour (10 p0, 10 p1)
static void evaluate(const ne_batch* b, ne_result* res, float* bcs) {
  float p[256];
  ASSERT(spec.n_params <= 256);
  for (int i = 0; i < b->n; i++) {
    params_of(b, &b->cands[i], p);
    memset(&res[i], 0, sizeof res[i]);
    res[i].fitness = -(p[0] - 2.0) * (p[0] - 2.0) - p[1] * p[1];
    res[i].episodes = b->cands[i].episodes;
    res[i].bc = bcs + 2 * i;
    res[i].bc[0] = 10 * p[0], res[i].bc[1] = 10 * p[1];
    if (b->want_bc == 0) res[i].bc = NULL;
  }
}

// one generation on the synthetic task; returns its rounds
static int run_generation(const char* name, void* algo, ne_gen_report* report) {
  const ne_algo_vt* vt = ne_algo_find(name);
  static ne_result res[512];
  static float bcs[1024];
  int done = 0, rounds = 0;
  while (!done) {
    const ne_batch* b;
    ASSERT_EQ(vt->ask(algo, &b), 0);
    ASSERT_LE(b->n, 512);
    evaluate(b, res, bcs);
    ASSERT_EQ(vt->tell(algo, b, res, &done), 0);
    rounds++;
  }
  vt->report(algo, report);
  return rounds;
}

// ---- GA-NS ------------------------------------------------------------------------------------

static const char GA_NS[] =
    "[run]\nalgorithm = ga\n[ga]\npopulation = 30\ntruncation = 5\nsigma = 0.1\n"
    "elite_candidates = 0\nnovelty = true\n[novelty]\nk = 3\narchive_prob = 0.2\n";

// parents are the most novel genomes, the elite the best by reward
static void ga_ns_selects_by_novelty(void) {
  ne_config* cfg = config_text(GA_NS);
  void* ga = make_algo("ga", cfg, 3);
  const ne_algo_vt* vt = ne_algo_find("ga");
  const ne_batch* b;
  ASSERT_EQ(vt->ask(ga, &b), 0);
  ASSERT_EQ(b->want_bc, 1);
  // rewards fall with the index; behaviours: a tight cluster, except genomes 25..29 far apart
  static ne_result res[30];
  static float bcs[60];
  for (int i = 0; i < 30; i++) {
    res[i] = (ne_result){.fitness = -i, .episodes = 1, .bc = bcs + 2 * i};
    bcs[2 * i] = i >= 25 ? 100.0f * (float)i : 0.01f * (float)i;
    bcs[2 * i + 1] = 0;
  }
  int done = 0;
  ASSERT_EQ(vt->tell(ga, b, res, &done), 0);
  ASSERT_EQ(done, 1);
  uint64_t novel[5], elite_seed;
  for (int i = 0; i < 5; i++) novel[i] = b->cands[25 + i].seeds[0];
  uint64_t best_by_reward = b->cands[0].seeds[0];
  ne_best best;
  ASSERT_EQ(vt->best(ga, &best), 0);
  ASSERT_U64_EQ(best.seeds[0], best_by_reward);  // the elite: the best reward
  elite_seed = best.seeds[0];
  ne_gen_report r;
  vt->report(ga, &r);
  ASSERT(r.extra[1] > 100);  // the most novel genome's novelty
  // generation 1: the elite carried at 0, every child extends one of the five novel genomes
  ASSERT_EQ(vt->ask(ga, &b), 0);
  ASSERT_U64_EQ(b->cands[0].seeds[0], elite_seed);
  for (int i = 1; i < 30; i++) {
    int found = 0;
    for (int k = 0; k < 5; k++) found |= b->cands[i].seeds[0] == novel[k];
    ASSERT(found);
  }
  vt->destroy(ga);
  ne_config_destroy(cfg);
}

// the archive grows by about archive_prob of the population, survives save/load, and the run
// continues bit for bit
static void ga_ns_save_load(void) {
  ne_config* cfg = config_text(GA_NS);
  const ne_algo_vt* vt = ne_algo_find("ga");
  void* a = make_algo("ga", cfg, 5);
  void* b = make_algo("ga", cfg, 5);
  ne_gen_report ra, rb;
  for (int g = 0; g < 8; g++) run_generation("ga", a, &ra), run_generation("ga", b, &rb);
  ASSERT(ra.extra[0] > 20 && ra.extra[0] < 100);  // archive size: ~0.2 x 30 x 8 = 48
  uint8_t* data;
  size_t len;
  ASSERT_EQ(vt->save(b, &data, &len), 0);
  vt->destroy(b);
  void* c = make_algo("ga", cfg, 5);
  char err[NE_ERRSTR_LEN];
  ASSERT_EQ(vt->load(c, data, len, err), 0);
  const float* arch;
  int n, dim;
  ASSERT_EQ(vt->archive(c, &arch, &n, &dim), 0);
  ASSERT_EQ(n, (int)ra.extra[0]);
  ASSERT_EQ(dim, 2);
  for (int g = 0; g < 8; g++) {
    run_generation("ga", a, &ra);
    run_generation("ga", c, &rb);
    ASSERT(ra.best == rb.best && ra.mean == rb.mean && ra.extra[0] == rb.extra[0] && ra.extra[1] == rb.extra[1]);
  }
  // a plain GA's state has no archive: a GA-NS refuses it
  ne_config* plain = config_text("[run]\nalgorithm = ga\n[ga]\npopulation = 30\ntruncation = 5\n");
  void* p = make_algo("ga", plain, 5);
  ne_free(data);
  ASSERT_EQ(vt->save(p, &data, &len), 0);
  ASSERT_EQ(vt->load(c, data, len, err), NE_ECORRUPT);
  ASSERT_CONTAINS(err, "novelty archive");
  ASSERT_EQ(vt->archive(p, &arch, &n, &dim), NE_ENOTFOUND);
  ne_free(data);
  vt->destroy(p);
  vt->destroy(a);
  vt->destroy(c);
  ne_config_destroy(cfg);
  ne_config_destroy(plain);
}

// ---- the NS-ES family ---------------------------------------------------------------------------

static ne_config* nses_config(const char* algo, int m, const char* extra) {
  char text[1024];
  snprintf(text, sizeof text,
           "[run]\nalgorithm = %s\n[es]\npopulation = 20\nsigma = 0.1\nlr = 0.05\nobs_norm = false\n"
           "eval_episodes = 2\n[novelty]\nmeta_population = %d\n%s",
           algo, m, extra);
  return config_text(text);
}

// generation 0: the pairs plus every centre, then the updated centre; later generations: pairs, centre
static void nses_rounds(void) {
  ne_config* cfg = nses_config("ns-es", 3, "");
  void* e = make_algo("ns-es", cfg, 1);
  const ne_algo_vt* vt = ne_algo_find("ns-es");
  static ne_result res[64];
  static float bcs[128];
  const ne_batch* b;
  int done = 0;
  ASSERT_EQ(vt->ask(e, &b), 0);
  ASSERT_EQ(b->n, 23);
  ASSERT_EQ(b->n_blobs, 3);
  ASSERT_EQ(b->want_bc, 1);
  for (int j = 0; j < 3; j++) ASSERT_EQ(b->cands[20 + j].kind, NE_CAND_VECTOR);
  for (int j = 0; j < 3; j++) ASSERT_EQ(b->cands[20 + j].blob, j);
  ASSERT(b->blobs[0].hash != b->blobs[1].hash);
  evaluate(b, res, bcs);
  ASSERT_EQ(vt->tell(e, b, res, &done), 0);
  ASSERT_EQ(done, 0);
  ASSERT_EQ(vt->ask(e, &b), 0);
  ASSERT_EQ(b->round, 1);
  ASSERT_EQ(b->n, 1);
  ASSERT_EQ(b->cands[0].episodes, 2);
  evaluate(b, res, bcs);
  ASSERT_EQ(vt->tell(e, b, res, &done), 0);
  ASSERT_EQ(done, 1);
  ne_gen_report r;
  vt->report(e, &r);
  ASSERT_EQ((int)r.extra[2], 4);  // the archive: 3 initial centres + the updated one
  ASSERT(!isnan(r.elite_mean));
  ASSERT_EQ(vt->ask(e, &b), 0);
  ASSERT_EQ(b->n, 20);  // no initial centres any more
  ASSERT_EQ(b->n_blobs, 1);
  vt->destroy(e);
  ne_config_destroy(cfg);
}

// The NS-ES family perturbs as [es] says: es.noise = table hands the evaluators the run's table
// (Redis workers build its twin from the same key), generator none (the key was ignored once)
static void nses_noise_follows_es(void) {
  const char* algos[] = {"ns-es", "nsr-es", "nsra-es"};
  for (int i = 0; i < 3; i++)
    for (int table = 0; table < 2; table++) {
      char text[256];
      snprintf(text, sizeof text, "[run]\nalgorithm = %s\n[es]\npopulation = 20\nnoise = %s\n", algos[i],
               table ? "table" : "generator");
      ne_config* cfg = config_text(text);
      ASSERT_EQ(ne_algo_noise_table_evaluated(cfg), table);
      void* e = make_algo(algos[i], cfg, 1);
      const ne_batch* b;
      ASSERT_EQ(ne_algo_find(algos[i])->ask(e, &b), 0);
      ASSERT_EQ(b->noise_table != NULL, table);
      ASSERT_EQ(b->cands[0].kind, NE_CAND_PERTURB);
      ne_algo_find(algos[i])->destroy(e);
      ne_config_destroy(cfg);
    }
}

// The updated centre after one population round whose rewards are reversed (behaviours kept):
// NS-ES does not look at rewards, NSR-ES does.
static void updated_centre(const char* algo, int reverse, float* out) {
  ne_config* cfg = nses_config(algo, 1, "");
  void* e = make_algo(algo, cfg, 2);
  const ne_algo_vt* vt = ne_algo_find(algo);
  static ne_result res[64];
  static float bcs[128];
  const ne_batch* b;
  int done = 0;
  ASSERT_EQ(vt->ask(e, &b), 0);
  evaluate(b, res, bcs);
  for (int i = 0; reverse && i < 20; i++) res[i].fitness = -res[i].fitness;
  ASSERT_EQ(vt->tell(e, b, res, &done), 0);
  ASSERT_EQ(vt->ask(e, &b), 0);
  memcpy(out, b->blobs[0].data, spec.n_params * sizeof(float));
  vt->destroy(e);
  ne_config_destroy(cfg);
}

static void ns_ignores_reward_nsr_does_not(void) {
  float a[256], b[256], c[256], d[256];
  updated_centre("ns-es", 0, a);
  updated_centre("ns-es", 1, b);
  ASSERT(memcmp(a, b, spec.n_params * sizeof(float)) == 0);
  updated_centre("nsr-es", 0, c);
  updated_centre("nsr-es", 1, d);
  ASSERT(memcmp(c, d, spec.n_params * sizeof(float)) != 0);
  ASSERT(memcmp(a, c, spec.n_params * sizeof(float)) != 0);
}

// The next centre is drawn in proportion to its novelty (k = 2 against the archive, which holds
// every centre's own behaviour): centres 0 and 1 sit in a crowd (novelty 0.25 each), centre 2 far
// away (24.5), so over 200 seeds centre 2 is drawn about 98% of the time.
static void centre_drawn_by_novelty(void) {
  ne_config* cfg = nses_config("ns-es", 3, "k = 2\n");
  const ne_algo_vt* vt = ne_algo_find("ns-es");
  int picks[3] = {0, 0, 0};
  static ne_result res[64];
  static float bcs[128];
  for (uint64_t seed = 0; seed < 200; seed++) {
    void* e = make_algo("ns-es", cfg, seed);
    const ne_batch* b;
    int done = 0;
    ASSERT_EQ(vt->ask(e, &b), 0);
    const float* theta[3];
    for (int j = 0; j < 3; j++) theta[j] = b->blobs[j].data;  // each centre's parameters
    evaluate(b, res, bcs);
    const float pos[3][2] = {{0, 0}, {0, 1}, {0, 50}};
    for (int j = 0; j < 3; j++) memcpy(res[20 + j].bc, pos[j], sizeof pos[j]);
    ASSERT_EQ(vt->tell(e, b, res, &done), 0);
    ASSERT_EQ(vt->ask(e, &b), 0);
    evaluate(b, res, bcs);
    res[0].bc[0] = 0, res[0].bc[1] = 0.5f;  // the updated centre 0 stays in the crowd
    ASSERT_EQ(vt->tell(e, b, res, &done), 0);
    ASSERT_EQ(vt->ask(e, &b), 0);  // generation 1 perturbs the centre drawn
    for (int j = 0; j < 3; j++) picks[j] += b->blobs[0].data == theta[j];
    vt->destroy(e);
  }
  ASSERT_EQ(picks[0] + picks[1] + picks[2], 200);
  ASSERT_GE(picks[2], 185);
  ASSERT_GE(picks[0] + picks[1], 1);
  // round robin ignores novelty
  ne_config_destroy(cfg);
  cfg = nses_config("ns-es", 3, "selection = round_robin\n");
  void* e = make_algo("ns-es", cfg, 1);
  ne_gen_report r;
  for (int g = 0; g < 5; g++) {
    run_generation("ns-es", e, &r);
    ASSERT_EQ((int)r.extra[3], g % 3);
  }
  vt->destroy(e);
  ne_config_destroy(cfg);
}

// NSRA-ES: w starts at novelty.weight, rises by delta on a new best centre evaluation (at most
// 1), falls by delta after `patience` generations without one
static void nsra_weight_rule(void) {
  ne_config* cfg = nses_config("nsra-es", 1, "weight = 0.5\nweight_delta = 0.1\nweight_patience = 2\n");
  void* e = make_algo("nsra-es", cfg, 3);
  const ne_algo_vt* vt = ne_algo_find("nsra-es");
  static ne_result res[64];
  static float bcs[128];
  // centre evaluations: 1 (generation 0's initial one), then per generation
  const double scores[] = {5, 4, 3, 2, 1, 9, 9, 9, 9, 10};
  const double want_w[] = {0.6, 0.6, 0.5, 0.5, 0.4, 0.5, 0.5, 0.4, 0.4, 0.5};
  for (int g = 0; g < 10; g++) {
    const ne_batch* b;
    int done = 0;
    ASSERT_EQ(vt->ask(e, &b), 0);
    evaluate(b, res, bcs);
    if (g == 0) res[20].fitness = 0;  // the initial centre: the first best
    ASSERT_EQ(vt->tell(e, b, res, &done), 0);
    ASSERT_EQ(vt->ask(e, &b), 0);
    evaluate(b, res, bcs);
    res[0].fitness = scores[g];
    ASSERT_EQ(vt->tell(e, b, res, &done), 0);
    ne_gen_report r;
    vt->report(e, &r);
    ASSERT_NEAR(r.extra[1], want_w[g], 1e-12);
  }
  vt->destroy(e);
  ne_config_destroy(cfg);
}

// save/load between generations continues bit for bit (centres, moments, archive, weight)
static void nses_save_load(void) {
  ne_config* cfg = nses_config("nsra-es", 3, "weight_patience = 2\n");
  const ne_algo_vt* vt = ne_algo_find("nsra-es");
  void* a = make_algo("nsra-es", cfg, 9);
  void* b = make_algo("nsra-es", cfg, 9);
  ne_gen_report ra, rb;
  for (int g = 0; g < 7; g++) run_generation("nsra-es", a, &ra), run_generation("nsra-es", b, &rb);
  uint8_t* data;
  size_t len;
  ASSERT_EQ(vt->save(b, &data, &len), 0);
  vt->destroy(b);
  void* c = make_algo("nsra-es", cfg, 9);
  char err[NE_ERRSTR_LEN];
  ASSERT_EQ(vt->load(c, data, len, err), 0);
  for (int g = 0; g < 7; g++) {
    run_generation("nsra-es", a, &ra);
    run_generation("nsra-es", c, &rb);
    ASSERT(ra.best == rb.best && ra.mean == rb.mean && ra.elite_mean == rb.elite_mean);
    for (int k = 0; k < 4; k++) ASSERT(ra.extra[k] == rb.extra[k]);
  }
  ASSERT_EQ(vt->load(c, data, len - 1, err), NE_ECORRUPT);
  ne_free(data);
  // another variant's state is refused with a message
  void* ns = make_algo("ns-es", cfg, 9);
  ASSERT_EQ(ne_algo_find("ns-es")->save(ns, &data, &len), 0);
  ASSERT_EQ(vt->load(c, data, len, err), NE_EINVAL);
  ASSERT_CONTAINS(err, "variant");
  ne_free(data);
  ne_algo_find("ns-es")->destroy(ns);
  vt->destroy(a);
  vt->destroy(c);
  ne_config_destroy(cfg);
}

// No behaviours, no novelty search: a clear error
static void needs_behaviours(void) {
  ne_config* cfg = nses_config("ns-es", 2, "");
  int hidden[1] = {4};
  char err[NE_ERRSTR_LEN];
  ASSERT_EQ(ne_policy_spec_init(&spec, 3, hidden, 1, 2, NE_ACT_TANH, NE_HEAD_ARGMAX, NE_INIT_NORMC, NULL, NULL, err),
            0);
  ne_problem prob = {&spec, spec.n_params, 1, 1, 3, 0};
  void* algo = NULL;
  ASSERT_EQ(ne_algo_find("ns-es")->create(&prob, cfg, &algo, err), NE_EINVAL);
  ASSERT_CONTAINS(err, "needs behaviour characterizations");
  ne_config_destroy(cfg);
  cfg = config_text(GA_NS);
  algo = NULL;
  ASSERT_EQ(ne_algo_find("ga")->create(&prob, cfg, &algo, err), NE_EINVAL);
  ASSERT_CONTAINS(err, "ga.novelty");
  ne_algo_find("ga")->destroy(algo);
  ne_config_destroy(cfg);
}

TEST_MAIN(TEST_ENTRY(knn_exact_values), TEST_ENTRY(knn_independent_of_order), TEST_ENTRY(archive_reservoir),
          TEST_ENTRY(ga_ns_selects_by_novelty), TEST_ENTRY(ga_ns_save_load), TEST_ENTRY(nses_rounds),
          TEST_ENTRY(nses_noise_follows_es), TEST_ENTRY(ns_ignores_reward_nsr_does_not),
          TEST_ENTRY(centre_drawn_by_novelty), TEST_ENTRY(nsra_weight_rule), TEST_ENTRY(nses_save_load),
          TEST_ENTRY(needs_behaviours))
