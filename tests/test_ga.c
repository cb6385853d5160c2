// SPDX-License-Identifier: MIT
// The Deep GA through its ask/tell interface on a synthetic objective (no environment): population
// structure (elite at index 0, children extend a top-T parent by one seed), re-evaluation rounds,
// the episode seeds with and without ga.shared_episodes, progress on the objective, and save/load
// giving the same continuation bit for bit.
#include <math.h>

#include "neuroevo/algo.h"
#include "neuroevo/alloc.h"
#include "neuroevo/config.h"
#include "neuroevo/error.h"
#include "neuroevo/genome.h"
#include "neuroevo/policy.h"
#include "neuroevo/rng.h"
#include "test.h"

static ne_policy_spec spec;

static ne_config* make_config(int population, int truncation, int candidates, int episodes) {
  ne_config* cfg = ne_config_create();
  ASSERT(cfg);
  char text[512], err[NE_ERRSTR_LEN];
  snprintf(text, sizeof text,
           "[ga]\npopulation = %d\ntruncation = %d\nsigma = 0.05\nelite_candidates = %d\nelite_episodes = %d\n",
           population, truncation, candidates, episodes);
  ASSERT_EQ(ne_config_load_string(cfg, text, "test.ini", err), 0);
  return cfg;
}

static void* make_ga(const ne_config* cfg, uint64_t seed) {
  int hidden[1] = {4};
  char err[NE_ERRSTR_LEN];
  ASSERT_EQ(ne_policy_spec_init(&spec, 3, hidden, 1, 2, NE_ACT_TANH, NE_HEAD_ARGMAX, NE_INIT_NORMC, NULL, NULL, err),
            0);
  ne_problem prob = {&spec, spec.n_params, seed, 1, 3, 0};
  const ne_algo_vt* vt = ne_algo_find("ga");
  ASSERT(vt);
  void* ga = NULL;
  ASSERT_EQ(vt->create(&prob, cfg, &ga, err), 0);
  return ga;
}

// Fitness: closeness of the parameters to 0.3 everywhere, plus a little episode-seeded noise so
// re-evaluation matters.
static double objective(const ne_candidate* c) {
  float params[256];
  ASSERT_LE(spec.n_params, 256);
  ne_genome_materialize(&spec, c->seeds, c->n_seeds, c->sigma, params);
  double f = 0;
  for (size_t i = 0; i < spec.n_params; i++) f -= (params[i] - 0.3) * (params[i] - 0.3);
  ne_rng rng;
  ne_rng_seed(&rng, c->episode_seed);
  return f + 0.01 * ne_rng_uniform(&rng);
}

// Runs one generation; returns the number of rounds it took.
static int generation(void* ga, ne_gen_report* report) {
  const ne_algo_vt* vt = ne_algo_find("ga");
  static ne_result results[1024];
  int done = 0, rounds = 0;
  while (!done) {
    const ne_batch* b;
    ASSERT_EQ(vt->ask(ga, &b), 0);
    ASSERT_LE(b->n, 1024);
    for (int i = 0; i < b->n; i++) {
      ASSERT_EQ(b->cands[i].index, i);
      ASSERT_EQ(b->cands[i].kind, NE_CAND_CHAIN);
      memset(&results[i], 0, sizeof results[i]);
      results[i].fitness = objective(&b->cands[i]);
    }
    ASSERT_EQ(vt->tell(ga, b, results, &done), 0);
    rounds++;
  }
  vt->report(ga, report);
  return rounds;
}

static void population_structure(void) {
  ne_config* cfg = make_config(20, 5, 0, 0);
  void* ga = make_ga(cfg, 7);
  const ne_algo_vt* vt = ne_algo_find("ga");
  ne_gen_report r;
  ASSERT_EQ(generation(ga, &r), 1);  // no re-evaluation: one round
  ne_best best;
  ASSERT_EQ(vt->best(ga, &best), 0);
  ASSERT_EQ(best.n_seeds, 1);
  uint64_t elite0 = best.seeds[0];
  // generation 1: elite unmutated at index 0, every child = some gen-0 chain + one seed
  const ne_batch* b;
  ASSERT_EQ(vt->ask(ga, &b), 0);
  ASSERT_EQ(b->n, 20);
  ASSERT_EQ(b->cands[0].n_seeds, 1);
  ASSERT_U64_EQ(b->cands[0].seeds[0], elite0);
  for (int i = 1; i < 20; i++) ASSERT_EQ(b->cands[i].n_seeds, 2);
  vt->destroy(ga);
  ne_config_destroy(cfg);
}

static void reevaluation_round(void) {
  ne_config* cfg = make_config(30, 5, 4, 7);
  void* ga = make_ga(cfg, 3);
  const ne_algo_vt* vt = ne_algo_find("ga");
  ne_gen_report r;
  ASSERT_EQ(generation(ga, &r), 2);
  ASSERT(!isnan(r.elite_mean));
  // gen 1: re-evaluation covers the top 4 and the carried elite if it fell out of them
  const ne_batch* b;
  static ne_result results[64];
  int done = 0;
  ASSERT_EQ(vt->ask(ga, &b), 0);
  for (int i = 0; i < b->n; i++) results[i] = (ne_result){.fitness = (double)-i};  // index 0 (the elite) is best
  ASSERT_EQ(vt->tell(ga, b, results, &done), 0);
  ASSERT_EQ(done, 0);
  ASSERT_EQ(vt->ask(ga, &b), 0);
  ASSERT_EQ(b->round, 1);
  ASSERT_EQ(b->n, 4);
  for (int i = 0; i < b->n; i++) ASSERT_EQ(b->cands[i].episodes, 7);
  vt->destroy(ga);
  ne_config_destroy(cfg);
}

// ga.shared_episodes: one episode seed for the whole population (and one for the re-evaluated
// candidates), a new one each generation; without it every candidate has its own
static void shared_episodes(void) {
  const ne_algo_vt* vt = ne_algo_find("ga");
  for (int shared = 0; shared < 2; shared++) {
    ne_config* cfg = make_config(12, 3, 3, 2);
    char err[NE_ERRSTR_LEN];
    ASSERT_EQ(ne_config_override(cfg, shared ? "ga.shared_episodes=true" : "ga.shared_episodes=false", "test", err), 0);
    void* ga = make_ga(cfg, 9);
    static ne_result results[16];
    uint64_t first[2] = {0, 0};
    for (int gen = 0; gen < 2; gen++) {
      int done = 0;
      for (int round = 0; !done; round++) {
        const ne_batch* b;
        ASSERT_EQ(vt->ask(ga, &b), 0);
        ASSERT_EQ(b->round, round);
        for (int i = 0; i < b->n; i++) {
          // shared: every candidate on candidate 0's seed; else all distinct
          int same = b->cands[i].episode_seed == b->cands[0].episode_seed;
          ASSERT_EQ(same, shared || i == 0);
          results[i] = (ne_result){.fitness = objective(&b->cands[i])};
        }
        if (round == 0 && gen == 0) first[0] = b->cands[0].episode_seed;
        if (round == 0 && gen == 1) first[1] = b->cands[0].episode_seed;
        ASSERT_EQ(vt->tell(ga, b, results, &done), 0);
      }
    }
    ASSERT(first[0] != first[1]);  // another draw every generation
    vt->destroy(ga);
    ne_config_destroy(cfg);
  }
}

static void improves_objective(void) {
  ne_config* cfg = make_config(50, 10, 3, 2);
  void* ga = make_ga(cfg, 11);
  ne_gen_report first, r;
  generation(ga, &first);
  for (int g = 0; g < 40; g++) generation(ga, &r);
  ASSERT_GT(r.elite_mean, first.elite_mean + 0.5 * fabs(first.elite_mean));
  ne_algo_find("ga")->destroy(ga);
  ne_config_destroy(cfg);
}

static void save_load_continues_identically(void) {
  ne_config* cfg = make_config(40, 8, 3, 2);
  const ne_algo_vt* vt = ne_algo_find("ga");
  void* a = make_ga(cfg, 5);
  void* b = make_ga(cfg, 5);
  ne_gen_report ra, rb;
  for (int g = 0; g < 6; g++) generation(a, &ra), generation(b, &rb);
  // b travels through its serialized form into a fresh object
  uint8_t* data;
  size_t len;
  ASSERT_EQ(vt->save(b, &data, &len), 0);
  vt->destroy(b);
  void* c = make_ga(cfg, 5);
  char err[NE_ERRSTR_LEN];
  ASSERT_EQ(vt->load(c, data, len, err), 0);
  for (int g = 0; g < 6; g++) {
    generation(a, &ra);
    generation(c, &rb);
    ASSERT_EQ(ra.best, rb.best);
    ASSERT_EQ(ra.mean, rb.mean);
    ASSERT_EQ(ra.elite_mean, rb.elite_mean);
  }
  ne_best ba, bc;
  ASSERT_EQ(vt->best(a, &ba), 0);
  ASSERT_EQ(vt->best(c, &bc), 0);
  ASSERT_EQ(ba.n_seeds, bc.n_seeds);
  for (size_t i = 0; i < ba.n_seeds; i++) ASSERT_U64_EQ(ba.seeds[i], bc.seeds[i]);
  // corrupt or truncated state is refused
  ASSERT_EQ(vt->load(c, data, len / 2, err), NE_ECORRUPT);
  data[0] ^= 1;
  ASSERT_EQ(vt->load(c, data, len, err), NE_ECORRUPT);
  ne_free(data);
  vt->destroy(a);
  vt->destroy(c);
  ne_config_destroy(cfg);
}

TEST_MAIN(TEST_ENTRY(population_structure), TEST_ENTRY(reevaluation_round), TEST_ENTRY(shared_episodes),
          TEST_ENTRY(improves_objective), TEST_ENTRY(save_load_continues_identically))
