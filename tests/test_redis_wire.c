// SPDX-License-Identifier: MIT
// The Redis wire format and URL rules, without a server: task/result/blob round trips keep every
// bit, shared chain prefixes shrink GA tasks, a 1000-generation GA candidate costs ~8 kB, and
// corrupt, truncated, other-version, lying-count and random messages are rejected with a clear
// error (never a crash or a huge allocation; this test also runs under ASan). Also: batch digests,
// build fingerprints, Redis URL parsing and the no-credentials-no-remote rule, and the durations of
// simulated evaluations.
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"

#ifdef NE_HAVE_HIREDIS
#include "core/buf.h"
#include "core/crc32c.h"
#include "exec/redis_conn.h"
#include "exec/redis_wire.h"
#include "exec/simulate.h"
#include "neuroevo/alloc.h"
#include "neuroevo/env.h"
#include "neuroevo/error.h"
#include "neuroevo/policy.h"
#include "neuroevo/rng.h"

// ---- fixtures -----------------------------------------------------------------------------

// A batch mixing all three kinds: 20 GA children of 4 parents (chains of length 5 + 1 mutation),
// 6 perturbations of blob 0/1, 2 vectors of blob 1, with observation normalization.
typedef struct fixture {
  ne_batch b;
  ne_candidate cands[28];
  uint64_t seeds[20][6];
  float blob_data[2][8];
  ne_blob blobs[2];
  float mean[4], std[4];
  uint64_t norm[2];
} fixture;

static void make_fixture(fixture* f) {
  memset(f, 0, sizeof *f);
  for (int i = 0; i < 20; i++) {
    for (int k = 0; k < 5; k++) f->seeds[i][k] = ne_hash2((uint64_t)(i % 4), (uint64_t)k);
    f->seeds[i][5] = ne_hash2(1000, (uint64_t)i);
    f->cands[i] =
        (ne_candidate){NE_CAND_CHAIN, (uint32_t)i, 3, ne_hash2(7, (uint64_t)i), f->seeds[i], 6, 0.05f, 0, 0, 0};
  }
  for (int i = 20; i < 26; i++)
    f->cands[i] = (ne_candidate){
        NE_CAND_PERTURB,          (uint32_t)i,           1, ne_hash2(8, (uint64_t)i), NULL, 0, 0, (uint32_t)(i % 2),
        ne_hash2(9, (uint64_t)i), i % 2 ? -0.02f : 0.02f};
  for (int i = 26; i < 28; i++)
    f->cands[i] = (ne_candidate){NE_CAND_VECTOR, (uint32_t)i, 2, ne_hash2(10, (uint64_t)i), NULL, 0, 0, 1, 0, 0};
  for (int k = 0; k < 2; k++) {
    for (int j = 0; j < 8; j++) f->blob_data[k][j] = (float)(k * 8 + j) * 0.125f - 1.0f;
    f->blobs[k] = (ne_blob){0xb10b0000ull + (uint64_t)k, 8, f->blob_data[k]};
  }
  for (int j = 0; j < 4; j++) f->mean[j] = 0.1f * (float)j, f->std[j] = 1.0f + (float)j;
  f->norm[0] = ne_hash_floats(f->mean, 4);
  f->norm[1] = ne_hash_floats(f->std, 4);
  f->b = (ne_batch){7, 1, 28, f->cands, 2, f->blobs, 1, f->mean, f->std, 5.0f, NULL, 0};
}

static int all_indices(int* idx, int n) {
  for (int i = 0; i < n; i++) idx[i] = i;
  return n;
}

static void assert_same_candidate(const ne_candidate* a, const ne_candidate* b, const ne_blob* a_blobs,
                                  const ne__wire_blobref* b_blobs) {
  ASSERT_EQ(a->kind, b->kind);
  ASSERT_EQ(a->index, b->index);
  ASSERT_EQ(a->episodes, b->episodes);
  ASSERT_U64_EQ(a->episode_seed, b->episode_seed);
  if (a->kind == NE_CAND_CHAIN) {
    ASSERT_EQ(a->n_seeds, b->n_seeds);
    for (uint32_t k = 0; k < a->n_seeds; k++) ASSERT_U64_EQ(a->seeds[k], b->seeds[k]);
    ASSERT(memcmp(&a->sigma, &b->sigma, 4) == 0);
    return;
  }
  // blob indices are local to the message: compare what they name
  ASSERT_U64_EQ(a_blobs[a->blob].hash, b_blobs[b->blob].hash);
  ASSERT_EQ(a_blobs[a->blob].n, b_blobs[b->blob].n);
  if (a->kind == NE_CAND_PERTURB) {
    ASSERT_U64_EQ(a->noise_seed, b->noise_seed);
    ASSERT(memcmp(&a->coef, &b->coef, 4) == 0);
  }
}

static ne__wire_round test_round(const fixture* f) {
  return (ne__wire_round){0x1234567890abcdefull, f->b.generation, f->b.round, ne_batch_digest(&f->b, f->norm, 4)};
}

// ---- tasks --------------------------------------------------------------------------------

static void test_task_round_trip(void) {
  fixture f;
  make_fixture(&f);
  int idx[28];
  ne_buf buf;
  ne__buf_init(&buf);
  ne__wire_round rd = test_round(&f);
  ASSERT_EQ(ne__wire_encode_task(&buf, &rd, 42, &f.b, f.norm, 4, idx, all_indices(idx, 28)), 0);
  ne__wire_task t;
  ne__wire_task_init(&t);
  char err[NE_ERRSTR_LEN] = "";
  ASSERT_EQ(ne__wire_decode_task(&t, buf.data, buf.len, err), 0);
  ASSERT_STR_EQ(t.sender, "master");
  ASSERT_U64_EQ(t.round.exp, rd.exp);
  ASSERT_EQ(t.round.generation, 7);
  ASSERT_EQ(t.round.round, 1);
  ASSERT_U64_EQ(t.round.digest, rd.digest);
  ASSERT_EQ(t.task_no, 42);
  ASSERT_EQ(t.want_obs_stats, 1);
  ASSERT_EQ(t.has_norm, 1);
  ASSERT_EQ(t.obs_clip, 5.0f);
  ASSERT_U64_EQ(t.norm[0].hash, f.norm[0]);
  ASSERT_EQ(t.norm[1].n, 4);
  ASSERT_EQ(t.n, 28);
  ASSERT_EQ(t.n_blobs, 2);
  for (int i = 0; i < 28; i++) assert_same_candidate(&f.cands[i], &t.cands[i], f.blobs, t.blobs);
  // a subset in another order: only its blobs travel
  int sub[3] = {27, 3, 26};
  ASSERT_EQ(ne__wire_encode_task(&buf, &rd, 43, &f.b, f.norm, 4, sub, 3), 0);
  ASSERT_EQ(ne__wire_decode_task(&t, buf.data, buf.len, err), 0);
  ASSERT_EQ(t.n, 3);
  ASSERT_EQ(t.n_blobs, 1);
  for (int j = 0; j < 3; j++) assert_same_candidate(&f.cands[sub[j]], &t.cands[j], f.blobs, t.blobs);
  ASSERT_U64_EQ(t.table_size, 0);  // the generator
  ASSERT_EQ(t.want_bc, 0);
  // a batch that wants behaviour characterizations (novelty search) says so in every task
  f.b.want_bc = 1;
  ASSERT_EQ(ne__wire_encode_task(&buf, &rd, 44, &f.b, f.norm, 4, sub, 3), 0);
  ASSERT_EQ(ne__wire_decode_task(&t, buf.data, buf.len, err), 0);
  ASSERT_EQ(t.want_bc, 1);
  ASSERT_EQ(t.want_obs_stats, 1);
  ASSERT_EQ(t.n, 3);
  ne__wire_task_free(&t);
  ne__buf_free(&buf);
}

// A batch that perturbs with a shared noise table names it (seed, size) in every task and in the
// digest; the table itself never travels (each worker builds its own from the config).
static void test_task_names_noise_table(void) {
  fixture f;
  make_fixture(&f);
  ne_noise_table* table = ne_noise_table_create(0x7ab1e, 1000);
  ASSERT(table != NULL);
  uint64_t plain = ne_batch_digest(&f.b, f.norm, 4);
  f.b.noise_table = table;
  ASSERT_NE(ne_batch_digest(&f.b, f.norm, 4), plain);
  int idx[28];
  ne_buf buf;
  ne__buf_init(&buf);
  ne__wire_round rd = test_round(&f);
  ASSERT_EQ(ne__wire_encode_task(&buf, &rd, 1, &f.b, f.norm, 4, idx, all_indices(idx, 28)), 0);
  ASSERT_LT(buf.len, 4000);  // 1000 floats would be 4000 bytes on their own
  ne__wire_task t;
  ne__wire_task_init(&t);
  char err[NE_ERRSTR_LEN] = "";
  ASSERT_EQ(ne__wire_decode_task(&t, buf.data, buf.len, err), 0);
  ASSERT_U64_EQ(t.table_seed, 0x7ab1e);
  ASSERT_U64_EQ(t.table_size, 1000);
  ASSERT_EQ(t.n, 28);
  for (int i = 0; i < 28; i++) assert_same_candidate(&f.cands[i], &t.cands[i], f.blobs, t.blobs);
  ne__wire_task_free(&t);
  ne__buf_free(&buf);
  ne_noise_table_destroy(table);
}

// Children of the same parent are sent as a reference plus one seed.
static void test_task_shares_prefixes(void) {
  fixture f;
  make_fixture(&f);
  int idx[20];
  ne_buf buf;
  ne__buf_init(&buf);
  ne__wire_round rd = test_round(&f);
  ASSERT_EQ(ne__wire_encode_task(&buf, &rd, 0, &f.b, f.norm, 4, idx, all_indices(idx, 20)), 0);
  // 4 chains in full (6 seeds) + 16 tails of 1 seed, far below 20 * 6 * 8 = 960 bytes of seeds
  ASSERT_LT(buf.len, 4 * 6 * 8 + 16 * 8 + 20 * 20 + 120);
  ne__buf_free(&buf);
}

// A GA candidate of 1000 generations is ~8 kB on the wire.
static void test_task_long_chain_size(void) {
  uint64_t* seeds = ne_malloc(1000 * sizeof *seeds);
  for (int k = 0; k < 1000; k++) seeds[k] = ne_hash2(5, (uint64_t)k);
  ne_candidate c = {NE_CAND_CHAIN, 0, 1, 99, seeds, 1000, 0.002f, 0, 0, 0};
  ne_batch b = {999, 0, 1, &c, 0, NULL, 0, NULL, NULL, 0, NULL, 0};
  uint64_t norm[2] = {0, 0};
  ne__wire_round rd = {1, 999, 0, ne_batch_digest(&b, norm, 4)};
  int idx = 0;
  ne_buf buf;
  ne__buf_init(&buf);
  ASSERT_EQ(ne__wire_encode_task(&buf, &rd, 0, &b, norm, 4, &idx, 1), 0);
  ASSERT_GE(buf.len, 8000);
  ASSERT_LE(buf.len, 8100);
  ne__wire_task t;
  ne__wire_task_init(&t);
  char err[NE_ERRSTR_LEN];
  ASSERT_EQ(ne__wire_decode_task(&t, buf.data, buf.len, err), 0);
  ASSERT_EQ(t.cands[0].n_seeds, 1000);
  ASSERT_U64_EQ(t.cands[0].seeds[999], seeds[999]);
  ne__wire_task_free(&t);
  ne__buf_free(&buf);
  ne_free(seeds);
}

// ---- simulated evaluation (worker --simulate) ----------------------------------------------

// A simulated evaluation lasts mean x U(1 - jitter, 1 + jitter) per episode, drawn from the
// episode's seed: a pure function of the candidate (the same wherever it runs), parts add up to the
// whole, and the draws average to the mean.
static void test_simulated_durations(void) {
  uint64_t seeds[2] = {11, 12};
  double sum = 0, lo = 1e9, hi = 0;
  for (int i = 0; i < 2000; i++) {
    ne_candidate c = {NE_CAND_CHAIN, (uint32_t)i, 1, ne_hash2(5, (uint64_t)i), seeds, 2, 0.01f, 0, 0, 0};
    double d = ne__simulated_eval_s(&c, 3.0, 0.5);
    ASSERT(d == ne__simulated_eval_s(&c, 3.0, 0.5));
    sum += d, lo = d < lo ? d : lo, hi = d > hi ? d : hi;
  }
  ASSERT(lo >= 1.5 && hi <= 4.5 && lo < 1.6 && hi > 4.4);
  ASSERT_NEAR(sum / 2000, 3.0, 0.05);
  ne_candidate c = {NE_CAND_PERTURB, 0, 30, 99, NULL, 0, 0, 0, 1234, 0.02f};
  double whole = ne__simulated_eval_s(&c, 0.035, 0.2), parts = 0;
  for (uint32_t e = 0; e < 30; e += 7) parts += ne__simulated_episodes_s(&c, e, e + 7 <= 30 ? 7 : 30 - e, 0.035, 0.2);
  ASSERT_NEAR(parts, whole, 1e-12);
  ne_candidate other = c;
  other.noise_seed = 1235;
  ASSERT(ne__simulated_eval_s(&other, 0.035, 0.2) != whole);
  ASSERT_NEAR(ne__simulated_eval_s(&c, 0.035, 0), 30 * 0.035, 1e-12);
}

// ---- results and blobs --------------------------------------------------------------------

static void test_result_round_trip(void) {
  double sums[3][8];
  float bcs[3][3];
  ne_result res[3];
  uint32_t idx[3] = {5, 0, 1000000};
  for (int i = 0; i < 3; i++) {
    for (int k = 0; k < 8; k++) sums[i][k] = (double)(i * 8 + k) / 3.0;
    for (int k = 0; k < 3; k++) bcs[i][k] = (float)(i - k) * 0.7f + 1e-3f * (float)k;
    res[i] = (ne_result){
        123.456789 + i, 0.1 * i, (uint32_t)(i + 1), 1000ull * (uint64_t)i, 0, 17.0 + i, sums[i], sums[i] + 4,
        bcs[i],         NAN};
  }
  res[2].status = NE_ERANGE;
  res[2].fitness = NAN;
  ne__wire_result_hdr h = {"worker-α-1", {77, 3, 1, 0xfeed}, 9, 0xf1f2f3f4f5f6f7f8ull, 4, 3, 0, "", "", 0, 0, NULL};
  ne_buf buf;
  ne__buf_init(&buf);
  ASSERT_EQ(ne__wire_encode_results(&buf, &h, idx, res, 3), 0);
  ne__wire_results d;
  ne__wire_results_init(&d);
  char err[NE_ERRSTR_LEN];
  ASSERT_EQ(ne__wire_decode_results(&d, buf.data, buf.len, err), 0);
  ASSERT_STR_EQ(d.hdr.worker,
                "worker-?"
                "?-1");  // non-ASCII bytes are masked (split: "??-" is a trigraph)
  ASSERT_U64_EQ(d.hdr.fingerprint, h.fingerprint);
  ASSERT_U64_EQ(d.hdr.round.digest, 0xfeed);
  ASSERT_EQ(d.hdr.obs_dim, 4);
  ASSERT_EQ(d.n, 3);
  for (int i = 0; i < 3; i++) {
    ASSERT_EQ(d.index[i], idx[i]);
    ASSERT(memcmp(&d.results[i].fitness, &res[i].fitness, 8) == 0);  // bit-exact, NaN included
    ASSERT_EQ(d.results[i].return_std, res[i].return_std);
    ASSERT_EQ(d.results[i].status, res[i].status);
    ASSERT_EQ(d.results[i].episodes, res[i].episodes);
    ASSERT_U64_EQ(d.results[i].steps, res[i].steps);
    ASSERT_EQ(d.results[i].obs_count, res[i].obs_count);
    for (int k = 0; k < 4; k++)
      ASSERT(d.results[i].obs_sum[k] == sums[i][k] && d.results[i].obs_sumsq[k] == sums[i][4 + k]);
    ASSERT(memcmp(d.results[i].bc, bcs[i], sizeof bcs[i]) == 0);  // behaviours bit-exact
  }
  // without an inner loop every pre_fitness decodes as NaN
  for (int i = 0; i < 3; i++) ASSERT(isnan(d.results[i].pre_fitness));
  ASSERT_EQ(d.hdr.bc_dim, 3);
  // a successful result's behaviour must be finite (novelty distances use it); a failed one's may not
  bcs[0][1] = NAN;
  ASSERT_EQ(ne__wire_encode_results(&buf, &h, idx, res, 3), 0);
  ASSERT_EQ(ne__wire_decode_results(&d, buf.data, buf.len, err), NE_ECORRUPT);
  bcs[0][1] = 0.5f;
  bcs[2][0] = NAN;
  ASSERT_EQ(ne__wire_encode_results(&buf, &h, idx, res, 3), 0);
  ASSERT_EQ(ne__wire_decode_results(&d, buf.data, buf.len, err), 0);
  // a behaviour dimension with a NULL buffer is refused by the encoder
  res[1].bc = NULL;
  ASSERT_EQ(ne__wire_encode_results(&buf, &h, idx, res, 3), NE_EINVAL);
  // without behaviours the results carry none
  h.bc_dim = 0;
  ASSERT_EQ(ne__wire_encode_results(&buf, &h, idx, res, 3), 0);
  ASSERT_EQ(ne__wire_decode_results(&d, buf.data, buf.len, err), 0);
  ASSERT_EQ(d.hdr.bc_dim, 0);
  ASSERT(d.results[0].bc == NULL);
  // without observation sums a result is ~22 bytes
  h.obs_dim = 0;
  ASSERT_EQ(ne__wire_encode_results(&buf, &h, idx, res, 1), 0);
  ASSERT_LT(buf.len, 80);
  size_t plain_len = buf.len;
  // meta-learning: the pre-adaptation returns travel bit-exact, 8 bytes a result, the failed one's NaN too
  for (int i = 0; i < 3; i++) res[i].pre_fitness = -35.25 - i / 7.0;
  res[2].pre_fitness = NAN;
  ASSERT_EQ(ne__wire_encode_results(&buf, &h, idx, res, 1), 0);
  ASSERT_EQ(buf.len, plain_len + 8);
  ASSERT_EQ(ne__wire_encode_results(&buf, &h, idx, res, 3), 0);
  ASSERT_EQ(ne__wire_decode_results(&d, buf.data, buf.len, err), 0);
  for (int i = 0; i < 3; i++) ASSERT(memcmp(&d.results[i].pre_fitness, &res[i].pre_fitness, 8) == 0);
  // v5: pre-adaptation returns, observation sums and behaviours in one message, each bit-exact
  res[1].bc = bcs[1];
  bcs[2][0] = 0.25f;
  h.obs_dim = 4;
  h.bc_dim = 3;
  ASSERT_EQ(ne__wire_encode_results(&buf, &h, idx, res, 3), 0);
  ASSERT_EQ(ne__wire_decode_results(&d, buf.data, buf.len, err), 0);
  ASSERT_EQ(d.n, 3);
  ASSERT_EQ(d.hdr.obs_dim, 4);
  ASSERT_EQ(d.hdr.bc_dim, 3);
  for (int i = 0; i < 3; i++) {
    ASSERT(memcmp(&d.results[i].pre_fitness, &res[i].pre_fitness, 8) == 0);
    ASSERT(memcmp(d.results[i].bc, bcs[i], sizeof bcs[i]) == 0);
    ASSERT(d.results[i].obs_sum[3] == sums[i][3] && d.results[i].obs_sumsq[3] == sums[i][7]);
  }
  h.obs_dim = h.bc_dim = 0;
  // a successful result whose pre_fitness is not finite is corrupt
  res[0].pre_fitness = INFINITY;
  ASSERT_EQ(ne__wire_encode_results(&buf, &h, idx, res, 1), 0);
  ASSERT_EQ(ne__wire_decode_results(&d, buf.data, buf.len, err), NE_ECORRUPT);
  ne__wire_results_free(&d);
  ne__buf_free(&buf);
}

// An env failure report: the results before the failure, the env's message, the task entry, the
// failed candidate and the skipped ones; also with no result at all, and the evaluation time.
static void test_failure_round_trip(void) {
  ne_result res[1] = {{7.5, 0, 1, 40, 0, 0, NULL, NULL, NULL, NAN}};
  uint32_t idx[1] = {3}, skipped[2] = {5, 9};
  ne__wire_result_hdr h = {"w1", {77, 3, 1, 0xfeed}, 9, 0xf1ull, 0, 0, 0, "", "", 0, 0, NULL};
  h.eval_us = 123456789;
  snprintf(h.error, sizeof h.error, "gym:bridge_envs:Raises-v0: step raised RuntimeError: boom\n");
  snprintf(h.entry, sizeof h.entry, "1700000000000-12");
  h.failed_index = 4;
  h.n_skipped = 2;
  h.skipped = skipped;
  ne_buf buf;
  ne__buf_init(&buf);
  ne__wire_results d;
  ne__wire_results_init(&d);
  char err[NE_ERRSTR_LEN];
  for (int n = 1; n >= 0; n--) {
    ASSERT_EQ(ne__wire_encode_results(&buf, &h, idx, res, n), 0);
    ASSERT_EQ(ne__wire_decode_results(&d, buf.data, buf.len, err), 0);
    ASSERT_EQ(d.n, n);
    ASSERT_U64_EQ(d.hdr.eval_us, 123456789);
    ASSERT_STR_EQ(d.hdr.error, "gym:bridge_envs:Raises-v0: step raised RuntimeError: boom?");  // newline masked
    ASSERT_STR_EQ(d.hdr.entry, "1700000000000-12");
    ASSERT_EQ(d.hdr.failed_index, 4);
    ASSERT_EQ(d.hdr.n_skipped, 2);
    ASSERT_EQ(d.hdr.skipped[0], 5);
    ASSERT_EQ(d.hdr.skipped[1], 9);
  }
  ASSERT_EQ(d.results[0].fitness, 7.5);
  ASSERT_EQ(d.index[0], 3);
  // a success report carries no failure, and needs at least one result
  h.error[0] = '\0';
  ASSERT_EQ(ne__wire_encode_results(&buf, &h, idx, res, 1), 0);
  ASSERT_EQ(ne__wire_decode_results(&d, buf.data, buf.len, err), 0);
  ASSERT_STR_EQ(d.hdr.error, "");
  ASSERT_EQ(d.hdr.n_skipped, 0);
  ASSERT_EQ(ne__wire_encode_results(&buf, &h, idx, res, 0), NE_EINVAL);
  ne__wire_results_free(&d);
  ne__buf_free(&buf);
}

// Parts of candidates (episodes first .. first + n - 1, a candidate split over tasks): the task says
// which part each candidate is, a part's result carries its per-episode returns bit for bit, and a
// part outside the candidate's episodes, or with observation sums, is refused.
static void test_parts_round_trip(void) {
  fixture f;
  make_fixture(&f);
  f.b.want_obs_stats = 0;
  int idx[3] = {0, 0, 5};  // candidate 0 twice (two of its parts), candidate 5 whole
  ne__wire_part parts[3] = {{0, 1}, {1, 2}, {0, 0}};
  ne__wire_round rd = {1, 7, 1, 99};
  ne_buf buf;
  ne__buf_init(&buf);
  ASSERT_EQ(ne__wire_encode_task_parts(&buf, &rd, 3, &f.b, f.norm, 4, idx, parts, 3), 0);
  ne__wire_task t;
  ne__wire_task_init(&t);
  char err[NE_ERRSTR_LEN];
  ASSERT_EQ(ne__wire_decode_task(&t, buf.data, buf.len, err), 0);
  ASSERT_EQ(t.n, 3);
  ASSERT_EQ(t.cands[0].episodes, 1);
  ASSERT_EQ(t.cands[1].episodes, 2);
  ASSERT_EQ(t.cands[2].episodes, 3);
  ASSERT(t.parts[0].first == 0 && t.parts[0].n == 1 && t.parts[1].first == 1 && t.parts[1].n == 2);
  ASSERT_EQ(t.parts[2].n, 0);
  ASSERT_U64_EQ(t.cands[1].episode_seed, f.cands[0].episode_seed);  // a part keeps the candidate's seeds
  parts[1].n = 3;                                                   // episodes 1..3 of a 3-episode candidate
  ASSERT_EQ(ne__wire_encode_task_parts(&buf, &rd, 3, &f.b, f.norm, 4, idx, parts, 3), NE_EINVAL);
  parts[1].n = 2;
  f.b.want_bc = 1;  // behaviours are means over all of a candidate's episodes: never split
  ASSERT_EQ(ne__wire_encode_task_parts(&buf, &rd, 3, &f.b, f.norm, 4, idx, parts, 3), NE_EINVAL);
  f.b.want_bc = 0;
  // results: two parts and a whole one
  ne_result res[3] = {{0.5, 0, 1, 11, 0, 0, NULL, NULL, NULL, NAN},
                      {1.5, 0.5, 2, 23, 0, 0, NULL, NULL, NULL, NAN},
                      {2.0, 0, 3, 30, 0, 0, NULL, NULL, NULL, NAN}};
  ne__wire_part rparts[3] = {{0, 1}, {1, 2}, {0, 0}};
  double returns[3] = {0.5, 1.0 / 3.0, -0.0};
  uint32_t ridx[3] = {0, 0, 5};
  ne__wire_result_hdr h = {"w", rd, 3, 0xf1ull, 0, 0, 0, "", "", 0, 0, NULL};
  float bc[3][2] = {{0}};
  for (int i = 0; i < 3; i++) res[i].bc = bc[i];
  h.bc_dim = 2;  // nor are their results
  ASSERT_EQ(ne__wire_encode_results_parts(&buf, &h, ridx, res, rparts, returns, 3), NE_EINVAL);
  h.bc_dim = 0;
  ASSERT_EQ(ne__wire_encode_results_parts(&buf, &h, ridx, res, rparts, returns, 3), 0);
  ne__wire_results d;
  ne__wire_results_init(&d);
  ASSERT_EQ(ne__wire_decode_results(&d, buf.data, buf.len, err), 0);
  ASSERT_EQ(d.n, 3);
  ASSERT(d.parts[0].first == 0 && d.parts[0].n == 1 && d.parts[1].first == 1 && d.parts[1].n == 2);
  ASSERT_EQ(d.parts[2].n, 0);
  ASSERT(memcmp(d.returns + d.ret_off[0], returns, 8) == 0);
  ASSERT(memcmp(d.returns + d.ret_off[1], returns + 1, 16) == 0);  // -0.0 included
  ASSERT_U64_EQ(d.results[1].steps, 23);
  // a part must carry one return per episode and no observation sums
  res[1].episodes = 3;
  ASSERT_EQ(ne__wire_encode_results_parts(&buf, &h, ridx, res, rparts, returns, 3), NE_EINVAL);
  res[1].episodes = 2;
  h.obs_dim = 4;
  ASSERT_EQ(ne__wire_encode_results_parts(&buf, &h, ridx, res, rparts, returns, 3), NE_EINVAL);
  ne__wire_results_free(&d);
  ne__wire_task_free(&t);
  ne__buf_free(&buf);
}

static void test_blob_round_trip(void) {
  float v[5] = {1.5f, -2.25f, 0.0f, 1e-30f, 3.0e30f}, out[5];
  ne_buf buf;
  ne__buf_init(&buf);
  ASSERT_EQ(ne__wire_encode_blob(&buf, 0xabc, v, 5), 0);
  char err[NE_ERRSTR_LEN];
  ASSERT_EQ(ne__wire_decode_blob(buf.data, buf.len, 0xabc, 5, out, err), 0);
  ASSERT(memcmp(v, out, sizeof v) == 0);
  ASSERT_EQ(ne__wire_decode_blob(buf.data, buf.len, 0xabd, 5, out, err), NE_ECORRUPT);
  ASSERT_EQ(ne__wire_decode_blob(buf.data, buf.len, 0xabc, 4, out, err), NE_ECORRUPT);
  ne__buf_free(&buf);
}

// ---- rejection ----------------------------------------------------------------------------

static void encode_fixture_task(ne_buf* buf) {
  fixture f;
  make_fixture(&f);
  int idx[28];
  ne__wire_round rd = test_round(&f);
  ne__buf_init(buf);
  ASSERT_EQ(ne__wire_encode_task(buf, &rd, 1, &f.b, f.norm, 4, idx, all_indices(idx, 28)), 0);
}

static void test_rejects_corrupt_and_short(void) {
  ne_buf buf;
  encode_fixture_task(&buf);
  ne__wire_task t;
  ne__wire_task_init(&t);
  char err[NE_ERRSTR_LEN];
  uint8_t* copy = ne_malloc(buf.len);
  // every truncation
  for (size_t n = 0; n < buf.len; n++) {
    memcpy(copy, buf.data, n);
    ASSERT_NE(ne__wire_decode_task(&t, copy, n, err), 0);
    ASSERT_EQ(t.n, 0);
  }
  // every single-bit flip outside the version byte is a checksum (or magic) failure
  for (size_t i = 0; i < buf.len; i++) {
    if (i == 4) continue;
    memcpy(copy, buf.data, buf.len);
    copy[i] ^= 0x10;
    ASSERT_EQ(ne__wire_decode_task(&t, copy, buf.len, err), NE_ECORRUPT);
  }
  // a result decoder refuses a task
  ne__wire_results d;
  ne__wire_results_init(&d);
  ASSERT_EQ(ne__wire_decode_results(&d, buf.data, buf.len, err), NE_ECORRUPT);
  ASSERT_CONTAINS(err, "expected a result message");
  ne__wire_results_free(&d);
  ne_free(copy);
  ne__wire_task_free(&t);
  ne__buf_free(&buf);
}

static void test_rejects_other_version(void) {
  ne_buf buf;
  encode_fixture_task(&buf);
  buf.data[4] = NE_WIRE_VERSION + 1;
  ne__wire_task t;
  ne__wire_task_init(&t);
  char err[NE_ERRSTR_LEN];
  ASSERT_EQ(ne__wire_decode_task(&t, buf.data, buf.len, err), NE_EVERSION);
  char want[64];
  snprintf(want, sizeof want, "wire version %d, this build speaks version %d", NE_WIRE_VERSION + 1, NE_WIRE_VERSION);
  ASSERT_CONTAINS(err, want);
  ASSERT_CONTAINS(err, "from 'master'");
  ne__wire_task_free(&t);
  ne__buf_free(&buf);
}

// Appends a CRC so a crafted body passes the checksum and reaches the count checks.
static void reseal(ne_buf* b) { ne__buf_u32(b, ne__crc32c(0, b->data, b->len)); }

static void put_varint(ne_buf* b, uint64_t v) {
  do {
    uint8_t byte = (uint8_t)(v & 0x7f);
    v >>= 7;
    if (v) byte |= 0x80;
    ne__buf_bytes(b, &byte, 1);
  } while (v);
}

// Counts that promise more than the message holds are refused before anything is allocated.
static void test_rejects_lying_counts(void) {
  char err[NE_ERRSTR_LEN];
  ne__wire_task t;
  ne__wire_task_init(&t);
  ne_buf b;
  ne__buf_init(&b);
  // task header with 2^40 blobs
  ne__buf_u32(&b, NE_WIRE_TASK);
  uint8_t v = NE_WIRE_VERSION;
  ne__buf_bytes(&b, &v, 1);
  put_varint(&b, 1);
  ne__buf_bytes(&b, "x", 1);
  ne__buf_u64(&b, 1);
  put_varint(&b, 0), put_varint(&b, 0);
  ne__buf_u64(&b, 0);
  put_varint(&b, 0), put_varint(&b, 0);
  size_t header = b.len;
  put_varint(&b, 1ull << 40);
  reseal(&b);
  ASSERT_EQ(ne__wire_decode_task(&t, b.data, b.len, err), NE_ECORRUPT);
  // no blobs, 2^30 candidates
  b.len = header;
  put_varint(&b, 0);
  put_varint(&b, 1ull << 30);
  reseal(&b);
  ASSERT_EQ(ne__wire_decode_task(&t, b.data, b.len, err), NE_ECORRUPT);
  // one chain candidate claiming 2^24 seeds
  b.len = header;
  put_varint(&b, 0), put_varint(&b, 1);
  uint8_t kind = NE_CAND_CHAIN;
  ne__buf_bytes(&b, &kind, 1);
  put_varint(&b, 0), put_varint(&b, 1), put_varint(&b, 0);  // index, episodes, part (the whole candidate)
  ne__buf_u64(&b, 5);
  put_varint(&b, 0), put_varint(&b, 1u << 24);
  ne__buf_u64(&b, 1);
  reseal(&b);
  ASSERT_EQ(ne__wire_decode_task(&t, b.data, b.len, err), NE_ECORRUPT);
  // a result message with 2^20 results in a few bytes
  ne__wire_results d;
  ne__wire_results_init(&d);
  b.len = 0;
  ne__buf_u32(&b, NE_WIRE_RESULT);
  ne__buf_bytes(&b, &v, 1);
  put_varint(&b, 1);
  ne__buf_bytes(&b, "w", 1);
  ne__buf_u64(&b, 1);
  put_varint(&b, 0), put_varint(&b, 0);
  ne__buf_u64(&b, 0);
  put_varint(&b, 0);
  ne__buf_u64(&b, 0);
  put_varint(&b, 0), put_varint(&b, 0), put_varint(&b, 1u << 20);  // obs_dim, eval_us, count
  reseal(&b);
  ASSERT_EQ(ne__wire_decode_results(&d, b.data, b.len, err), NE_ECORRUPT);
  ASSERT_CONTAINS(err, "from 'w'");
  // one result, a part that claims 2^20 episode returns in a few bytes
  b.len -= 4 + 3;  // the CRC and the count
  put_varint(&b, 1);
  put_varint(&b, 0), put_varint(&b, 0);                            // index, status
  ne__buf_f64(&b, 1), ne__buf_f64(&b, 0);                          // fitness, return_std
  put_varint(&b, 1u << 20), put_varint(&b, 1), put_varint(&b, 1);  // episodes, steps, part at episode 0
  ne__buf_f64(&b, 2);
  put_varint(&b, 0);  // no failure
  reseal(&b);
  ASSERT_EQ(ne__wire_decode_results(&d, b.data, b.len, err), NE_ECORRUPT);
  ne__wire_results_free(&d);
  ne__wire_task_free(&t);
  ne__buf_free(&b);
}

// Random bytes, with and without a valid header and checksum, never crash a decoder.
static void test_rejects_random_bytes(void) {
  ne_rng rng;
  ne_rng_seed(&rng, 2024);
  uint8_t msg[512];
  char err[NE_ERRSTR_LEN];
  ne__wire_task t;
  ne__wire_results d;
  ne__wire_task_init(&t);
  ne__wire_results_init(&d);
  for (int trial = 0; trial < 20000; trial++) {
    size_t n = (size_t)ne_rng_below(&rng, sizeof msg - 4);
    for (size_t i = 0; i < n; i++) msg[i] = (uint8_t)ne_rng_u64(&rng);
    uint32_t kind = trial % 2 ? NE_WIRE_TASK : NE_WIRE_RESULT;
    if (trial % 3 && n >= 6) {  // plausible header + valid CRC: the body parser gets exercised
      memcpy(msg, &kind, 4);
      msg[4] = NE_WIRE_VERSION;
      msg[5] = 1;
      uint32_t crc = ne__crc32c(0, msg, n);
      for (int k = 0; k < 4; k++) msg[n + (size_t)k] = (uint8_t)(crc >> (8 * k));
      n += 4;
    }
    int rc = kind == NE_WIRE_TASK ? ne__wire_decode_task(&t, msg, n, err) : ne__wire_decode_results(&d, msg, n, err);
    // a lucky valid message is fine; a result message without results must be a failure report
    if (rc == 0) ASSERT(kind == NE_WIRE_TASK ? t.n > 0 : (d.n > 0 || d.hdr.error[0]));
  }
  ne__wire_task_free(&t);
  ne__wire_results_free(&d);
}

// ---- digests, fingerprints, ids -----------------------------------------------------------

static void test_digest_covers_every_field(void) {
  fixture f;
  make_fixture(&f);
  uint64_t base = ne_batch_digest(&f.b, f.norm, 4);
  ASSERT_U64_EQ(ne_batch_digest(&f.b, f.norm, 4), base);
  f.seeds[3][5] ^= 1;
  ASSERT_NE(ne_batch_digest(&f.b, f.norm, 4), base);
  f.seeds[3][5] ^= 1;
  f.cands[21].coef = 0.03f;
  ASSERT_NE(ne_batch_digest(&f.b, f.norm, 4), base);
  f.cands[21].coef = -0.02f;
  ASSERT_U64_EQ(ne_batch_digest(&f.b, f.norm, 4), base);
  f.b.round = 0;
  ASSERT_NE(ne_batch_digest(&f.b, f.norm, 4), base);
  f.b.round = 1;
  f.blobs[1].hash++;
  ASSERT_NE(ne_batch_digest(&f.b, f.norm, 4), base);
  f.blobs[1].hash--;
  uint64_t other[2] = {f.norm[0] + 1, f.norm[1]};
  ASSERT_NE(ne_batch_digest(&f.b, other, 4), base);
  f.b.want_bc = 1;  // results with behaviours are not results without
  ASSERT_NE(ne_batch_digest(&f.b, f.norm, 4), base);
}

// Seed chains are hashed in four lanes (redis_wire.c): a bit flipped at any position of chains
// of every length modulo 4, or two neighbours swapped, still changes the digest.
static void test_digest_sees_every_seed(void) {
  enum { LONGEST = 1003 };
  uint64_t* seeds = ne_malloc(LONGEST * sizeof *seeds);
  ASSERT(seeds != NULL);
  ne_candidate c = {NE_CAND_CHAIN, 0, 1, 5, seeds, 0, 0.1f, 0, 0, 0};
  ne_batch b = {3, 0, 1, &c, 0, NULL, 0, NULL, NULL, 0, NULL, 0};
  uint32_t lengths[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, LONGEST};
  for (size_t l = 0; l < sizeof lengths / sizeof *lengths; l++) {
    c.n_seeds = lengths[l];
    for (uint32_t k = 0; k < c.n_seeds; k++) seeds[k] = ne_hash2(0x5eed, k);
    uint64_t base = ne_batch_digest(&b, NULL, 0);
    for (uint32_t k = 0; k < c.n_seeds; k++) {
      seeds[k] ^= 1ull << (k % 64);
      ASSERT_NE(ne_batch_digest(&b, NULL, 0), base);
      seeds[k] ^= 1ull << (k % 64);
      if (k + 1 < c.n_seeds) {
        uint64_t t = seeds[k];
        seeds[k] = seeds[k + 1], seeds[k + 1] = t;
        ASSERT_NE(ne_batch_digest(&b, NULL, 0), base);
        seeds[k + 1] = seeds[k], seeds[k] = t;
      }
    }
    ASSERT_U64_EQ(ne_batch_digest(&b, NULL, 0), base);
    c.n_seeds--;  // the same seeds one shorter
    if (c.n_seeds) ASSERT_NE(ne_batch_digest(&b, NULL, 0), base);
  }
  ne_free(seeds);
}

static void test_fingerprint(void) {
  char err[NE_ERRSTR_LEN];
  ne_env_spec* env = NULL;
  ASSERT_EQ(ne_env_make("CartPole-v1", NULL, &env, err), 0);
  ne_policy_spec p16, p32;
  int h16 = 16, h32 = 32;
  ASSERT_EQ(ne_policy_spec_init(&p16, 4, &h16, 1, 2, NE_ACT_TANH, NE_HEAD_ARGMAX, NE_INIT_NORMC, NULL, NULL, err), 0);
  ASSERT_EQ(ne_policy_spec_init(&p32, 4, &h32, 1, 2, NE_ACT_TANH, NE_HEAD_ARGMAX, NE_INIT_NORMC, NULL, NULL, err), 0);
  unsetenv("NEUROEVO_TEST_FINGERPRINT_SALT");
  uint64_t a = ne__wire_fingerprint(env, &p16, 0);
  ASSERT_U64_EQ(ne__wire_fingerprint(env, &p16, 0), a);
  ASSERT_NE(ne__wire_fingerprint(env, &p32, 0), a);
  ASSERT_NE(ne__wire_fingerprint(env, &p16, 1), a);
  setenv("NEUROEVO_TEST_FINGERPRINT_SALT", "other-build", 1);
  ASSERT_NE(ne__wire_fingerprint(env, &p16, 0), a);
  unsetenv("NEUROEVO_TEST_FINGERPRINT_SALT");
  // a worker whose env.behaviour differs would characterize episodes differently
  ASSERT_EQ(ne_env_set_behaviour(env, "obs:0,2", err), 0);
  uint64_t b = ne__wire_fingerprint(env, &p16, 0);
  ASSERT(b != a);
  ASSERT_EQ(ne_env_set_behaviour(env, "obs:2,0", err), 0);
  ASSERT(ne__wire_fingerprint(env, &p16, 0) != b);
  ne_env_spec_destroy(env);
}

static void test_experiment_ids(void) {
  char hex[17];
  uint64_t id;
  ne__wire_id_format(0x00ab00cd00ef0012ull, hex);
  ASSERT_STR_EQ(hex, "00ab00cd00ef0012");
  ASSERT_EQ(ne__wire_id_parse(hex, &id), 0);
  ASSERT_U64_EQ(id, 0x00ab00cd00ef0012ull);
  ASSERT_NE(ne__wire_id_parse("00AB00CD00EF0012", &id), 0);
  ASSERT_NE(ne__wire_id_parse("12345", &id), 0);
  ASSERT_NE(ne__wire_id_parse(NULL, &id), 0);
}

// ---- URLs and credentials -----------------------------------------------------------------

static void test_url_parsing(void) {
  ne__redis_url u;
  char err[NE_ERRSTR_LEN];
  unsetenv("NEUROEVO_REDIS_PASSWORD");
  ASSERT_EQ(ne__redis_url_parse("redis://127.0.0.1:6380/3", &u, err), 0);
  ASSERT_STR_EQ(u.host, "127.0.0.1");
  ASSERT_EQ(u.port, 6380);
  ASSERT_EQ(u.db, 3);
  ASSERT_EQ(u.has_password, 0);
  ASSERT_EQ(ne__redis_url_parse("redis://alice:s%40cret@redis.example:7000", &u, err), 0);
  ASSERT_STR_EQ(u.user, "alice");
  ASSERT_STR_EQ(u.password, "s@cret");
  ASSERT_STR_EQ(u.host, "redis.example");
  ASSERT_CONTAINS(u.shown, "alice:***@redis.example:7000");
  ASSERT(!strstr(u.shown, "cret"));
  ASSERT_EQ(ne__redis_url_parse("redis://:pw@[::1]:6379", &u, err), 0);
  ASSERT_STR_EQ(u.host, "::1");
  ASSERT_STR_EQ(u.password, "pw");
  ASSERT_EQ(ne__redis_url_parse("localhost", &u, err), 0);
  ASSERT_EQ(u.port, 6379);
  ASSERT_EQ(ne__redis_url_parse("http://host", &u, err), NE_EINVAL);
  ASSERT_CONTAINS(err, "redis://");
  ASSERT_EQ(ne__redis_url_parse("redis://host:99999", &u, err), NE_EINVAL);
  ASSERT_EQ(ne__redis_url_parse("redis://host:1/x", &u, err), NE_EINVAL);
  ASSERT_EQ(ne__redis_url_parse("redis://:%zz@host", &u, err), NE_EINVAL);
  ASSERT_EQ(ne__redis_url_parse("", &u, err), NE_EINVAL);
  setenv("NEUROEVO_REDIS_PASSWORD", "fromenv", 1);
  ASSERT_EQ(ne__redis_url_parse("redis://10.1.2.3:6379", &u, err), 0);
  ASSERT_STR_EQ(u.password, "fromenv");
  ASSERT_EQ(ne__redis_url_parse("redis://:url@10.1.2.3:6379", &u, err), 0);
  ASSERT_STR_EQ(u.password, "url");  // the URL wins over the environment
  unsetenv("NEUROEVO_REDIS_PASSWORD");
}

static void test_remote_needs_credentials(void) {
  ne__redis_url u;
  char err[NE_ERRSTR_LEN];
  unsetenv("NEUROEVO_REDIS_PASSWORD");
  ASSERT_EQ(ne__redis_url_parse("redis://127.0.0.1:6379", &u, err), 0);
  ASSERT_EQ(ne__redis_url_check_auth(&u, "the worker", err), 0);
  ASSERT_EQ(ne__redis_url_parse("redis://127.8.9.10:6379", &u, err), 0);
  ASSERT_EQ(ne__redis_url_check_auth(&u, "the worker", err), 0);
  ASSERT_EQ(ne__redis_url_parse("redis://[::1]:6379", &u, err), 0);
  ASSERT_EQ(ne__redis_url_check_auth(&u, "the worker", err), 0);
  ASSERT_EQ(ne__redis_url_parse("redis://10.1.2.3:6379", &u, err), 0);
  ASSERT_EQ(ne__redis_url_check_auth(&u, "the master", err), NE_EINVAL);
  ASSERT_CONTAINS(err, "the master refuses");
  ASSERT_CONTAINS(err, "NEUROEVO_REDIS_PASSWORD");
  ASSERT_EQ(ne__redis_url_parse("redis://u:p@10.1.2.3:6379", &u, err), 0);
  ASSERT_EQ(ne__redis_url_check_auth(&u, "the master", err), 0);
}

static void test_stream_ids(void) {
  ASSERT_EQ(ne__stream_id_cmp("5-1", "5-2"), -1);
  ASSERT_EQ(ne__stream_id_cmp("10-0", "9-99"), 1);
  ASSERT_EQ(ne__stream_id_cmp("7-3", "7-3"), 0);
  ASSERT_EQ(ne__stream_id_cmp("0-0", "garbage"), 0);
}

TEST_MAIN(TEST_ENTRY(test_task_round_trip), TEST_ENTRY(test_task_names_noise_table),
          TEST_ENTRY(test_task_shares_prefixes), TEST_ENTRY(test_task_long_chain_size),
          TEST_ENTRY(test_result_round_trip), TEST_ENTRY(test_failure_round_trip), TEST_ENTRY(test_blob_round_trip),
          TEST_ENTRY(test_rejects_corrupt_and_short), TEST_ENTRY(test_rejects_other_version),
          TEST_ENTRY(test_rejects_lying_counts), TEST_ENTRY(test_rejects_random_bytes),
          TEST_ENTRY(test_digest_covers_every_field), TEST_ENTRY(test_digest_sees_every_seed),
          TEST_ENTRY(test_fingerprint), TEST_ENTRY(test_experiment_ids), TEST_ENTRY(test_url_parsing),
          TEST_ENTRY(test_remote_needs_credentials), TEST_ENTRY(test_stream_ids), TEST_ENTRY(test_parts_round_trip),
          TEST_ENTRY(test_simulated_durations))
#else
// Without hiredis there is no Redis support to test: say so loudly rather than pass silently.
int main(void) {
  fprintf(stderr, "test_redis_wire: built without hiredis (install libhiredis-dev; scripts/install-deps does)\n");
  return 1;
}
#endif
