// SPDX-License-Identifier: MIT
// Tests of seed-chain genomes (genome.h): text round trip (seeds, float sigma bits, header),
// the exact printed form, lenient whitespace/comments/CRLF, error messages with file and line,
// all-or-nothing parsing, header get/set limits, atomic file write/read, chain hashes and replay
// materialization, and allocation-failure paths.
#include <unistd.h>

#include "neuroevo/alloc.h"
#include "neuroevo/config.h"
#include "neuroevo/conv.h"
#include "neuroevo/error.h"
#include "neuroevo/genome.h"
#include "neuroevo/noise.h"
#include "test.h"

static ne_policy_spec cartpole_spec(void) {
  const int h[2] = {64, 64};
  ne_policy_spec s;
  ASSERT_EQ(ne_policy_spec_init(&s, 4, h, 2, 2, NE_ACT_TANH, NE_HEAD_ARGMAX, NE_INIT_NORMC, NULL, NULL, NULL), 0);
  return s;
}

// Parses text that must fail; checks the code and that the message contains `needle`.
static void expect_parse_error(const char* text, const char* needle) {
  ne_genome g;
  ne_genome_init(&g);
  char err[NE_ERRSTR_LEN] = "";
  int rc = ne_genome_parse(text, "best.genome", &g, NULL, err);
  if (rc != NE_EPARSE) TEST_FAIL("parse of \"%s\" returned %d, expected NE_EPARSE", text, rc);
  ASSERT_CONTAINS(err, needle);
  ASSERT_EQ(g.n_seeds, 0);
  ne_genome_free(&g);
}

// ---- text form -----------------------------------------------------------------------------------

static void test_format_exact_text(void) {
  ne_genome g;
  ne_genome_init(&g);
  const uint64_t seeds[3] = {81737, 1231, 99};
  ASSERT_EQ(ne_genome_set(&g, seeds, 3, 0.005f), 0);
  ne_genome_header h = {0};
  ASSERT_EQ(ne_genome_header_set(&h, "env.id", "CartPole-v1"), 0);
  ASSERT_EQ(ne_genome_header_set(&h, "policy.hidden", "64,64"), 0);
  char* text = ne_genome_format(&g, &h);
  ASSERT_STR_EQ(text,
                "# neuroevo genome v1\nenv.id = CartPole-v1\npolicy.hidden = 64,64\nsigma = 0.00499999989\n"
                "seeds = 81737 1231 99\n");
  ne_free(text);
  char* line = ne_genome_format_seeds(&g);
  ASSERT_STR_EQ(line, "seeds = 81737 1231 99\n");
  ne_free(line);
  ne_genome_free(&g);
}

// format -> parse gives the same chain, the same sigma bits and the same header.
static void test_round_trip(void) {
  const float sigmas[] = {0.005f, 0.1f, 1e-7f, 3.4028235e38f, 0.0f, 0.02f, 1.0f / 3.0f, 1.4e-45f};
  ne_genome g, back;
  ne_genome_init(&g);
  ne_genome_init(&back);
  ne_genome_header h = {0}, hb;
  ASSERT_EQ(ne_genome_header_set(&h, "env.id", "LunarLander-v3"), 0);
  ASSERT_EQ(ne_genome_header_set(&h, "note", "a value = with equals # and hash"), 0);
  for (size_t si = 0; si < sizeof sigmas / sizeof *sigmas; si++) {
    ASSERT_EQ(ne_genome_set(&g, (uint64_t[]){UINT64_MAX, 0}, 2, sigmas[si]), 0);
    for (uint64_t i = 0; i < 500; i++) ASSERT_EQ(ne_genome_push(&g, i * 0x9E3779B97F4A7C15ull), 0);
    char* text = ne_genome_format(&g, &h);
    char err[NE_ERRSTR_LEN];
    if (ne_genome_parse(text, "x", &back, &hb, err) != 0) TEST_FAIL("%s", err);
    ASSERT_EQ(back.n_seeds, g.n_seeds);
    ASSERT(memcmp(back.seeds, g.seeds, g.n_seeds * sizeof *g.seeds) == 0);
    ASSERT(memcmp(&back.sigma, &g.sigma, sizeof g.sigma) == 0);
    ASSERT_EQ(hb.n, 2);
    ASSERT_STR_EQ(ne_genome_header_get(&hb, "note"), "a value = with equals # and hash");
    ne_free(text);
  }
  ne_genome_free(&g);
  ne_genome_free(&back);
}

// Comments, blank lines, CRLF, extra spaces and tabs are accepted; a 1-seed chain needs no sigma.
static void test_parse_lenient_layout(void) {
  const char* text =
      "# neuroevo genome v1\r\n"
      "\r\n"
      "   # indented comment\n"
      "\tenv.id\t=   CartPole-v1  \r\n"
      "seeds=7\n";
  ne_genome g;
  ne_genome_init(&g);
  ne_genome_header h;
  char err[NE_ERRSTR_LEN];
  if (ne_genome_parse(text, "x", &g, &h, err) != 0) TEST_FAIL("%s", err);
  ASSERT_EQ(g.n_seeds, 1);
  ASSERT_U64_EQ(g.seeds[0], 7);
  ASSERT_EQ(g.sigma, 0.0f);
  ASSERT_STR_EQ(ne_genome_header_get(&h, "env.id"), "CartPole-v1");
  // header may be NULL; a last line without newline; seeds over several spaces
  if (ne_genome_parse("sigma = 0.5\nseeds =  1   2\t3", "x", &g, NULL, err) != 0) TEST_FAIL("%s", err);
  ASSERT_EQ(g.n_seeds, 3);
  ASSERT_EQ(g.sigma, 0.5f);
  ne_genome_free(&g);
}

// Each error names the file, the line and what was expected.
static void test_parse_errors_name_file_and_line(void) {
  expect_parse_error("# c\nenv.id = x\nsigma = 0.1\nseeds = 12 12x 5\n",
                     "best.genome:4: seeds: '12x' is not an unsigned integer");
  expect_parse_error("sigma = 1\nseeds = -1\n", "best.genome:2: seeds: '-1' is not an unsigned integer");
  expect_parse_error("sigma = 1\nseeds = 18446744073709551616\n",
                     "best.genome:2: seeds: '18446744073709551616' is out of range");
  expect_parse_error("seeds = 1\nsigma = abc\n", "best.genome:2: sigma: 'abc' is not a finite number >= 0");
  expect_parse_error("sigma = nan\nseeds = 1\n", "best.genome:1: sigma: 'nan'");
  expect_parse_error("sigma = -0.5\nseeds = 1\n", "sigma: '-0.5' is not a finite number >= 0");
  expect_parse_error("sigma = 1e39\nseeds = 1\n", "sigma: '1e39'");
  expect_parse_error("sigma = 0.1 0.2\nseeds = 1\n", "sigma: '0.1 0.2'");
  expect_parse_error("\n\nthis line has no equals\n",
                     "best.genome:3: expected 'key = value', got 'this line has no equals'");
  expect_parse_error("= 5\n", "best.genome:1: expected a key before '='");
  expect_parse_error("env.id = x\n", "best.genome: no 'seeds = ...' line");
  expect_parse_error("seeds = 1 2\n", "no 'sigma = ...' line (needed for a chain of 2 seeds)");
  expect_parse_error("sigma = 1\nseeds = 1\nseeds = 2\n", "best.genome:3: second 'seeds' line (the first is line 2)");
  expect_parse_error("sigma = 1\nsigma = 1\nseeds = 2\n", "best.genome:2: second 'sigma' line");
  expect_parse_error("env.id = a\n\nenv.id = b\nseeds = 1\n",
                     "best.genome:3: duplicate key 'env.id' (first on line 1)");
  expect_parse_error("seeds =\n", "best.genome:1: seeds: expected at least one unsigned integer");
  expect_parse_error("bad key = 1\nseeds = 1\n", "best.genome:1: 'bad key' is not a valid key");
  char longkey[200];
  memset(longkey, 'k', 100);
  strcpy(longkey + 100, " = 1\nseeds = 1\n");
  expect_parse_error(longkey, "best.genome:1: key 'kkkk");
  // one header field too many
  char many[2000] = "";
  for (int i = 0; i < NE_GENOME_MAX_HEADER + 1; i++) sprintf(many + strlen(many), "k%d = v\n", i);
  strcat(many, "seeds = 1\n");
  char want[64];
  snprintf(want, sizeof want, "best.genome:%d: more than %d header fields", NE_GENOME_MAX_HEADER + 1,
           NE_GENOME_MAX_HEADER);
  expect_parse_error(many, want);
}

// A failed parse leaves the caller's genome and header as they were.
static void test_parse_failure_leaves_outputs_untouched(void) {
  ne_genome g;
  ne_genome_init(&g);
  ASSERT_EQ(ne_genome_set(&g, (uint64_t[]){5, 6}, 2, 0.25f), 0);
  ne_genome_header h = {0};
  ASSERT_EQ(ne_genome_header_set(&h, "a", "b"), 0);
  ASSERT_EQ(ne_genome_parse("x = y\nsigma = 1\nseeds = 1 2 zz\n", NULL, &g, &h, NULL), NE_EPARSE);
  ASSERT_EQ(g.n_seeds, 2);
  ASSERT_U64_EQ(g.seeds[1], 6);
  ASSERT_EQ(g.sigma, 0.25f);
  ASSERT_EQ(h.n, 1);
  ASSERT(ne_genome_header_get(&h, "x") == NULL);
  ne_genome_free(&g);
}

// ---- header and chain --------------------------------------------------------------------------------

static void test_header_get_set(void) {
  ne_genome_header h = {0};
  ASSERT(ne_genome_header_get(&h, "env.id") == NULL);
  ASSERT_EQ(ne_genome_header_set(&h, "env.id", "CartPole-v1"), 0);
  ASSERT_EQ(ne_genome_header_set(&h, "policy.hidden", "  64,64  "), 0);  // stored trimmed
  ASSERT_STR_EQ(ne_genome_header_get(&h, "policy.hidden"), "64,64");
  ASSERT_EQ(ne_genome_header_set(&h, "env.id", "Acrobot-v1"), 0);  // replaces
  ASSERT_EQ(h.n, 2);
  ASSERT_STR_EQ(ne_genome_header_get(&h, "env.id"), "Acrobot-v1");
  // limits: key and value length, number of fields; keys the text form cannot carry
  char big[400];
  memset(big, 'x', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  ASSERT_EQ(ne_genome_header_set(&h, "k", big), NE_ERANGE);
  big[NE_GENOME_KEY_LEN] = '\0';
  ASSERT_EQ(ne_genome_header_set(&h, big, "v"), NE_ERANGE);
  ASSERT_EQ(ne_genome_header_set(&h, "has space", "v"), NE_EINVAL);
  ASSERT_EQ(ne_genome_header_set(&h, "seeds", "1"), NE_EINVAL);
  ASSERT_EQ(ne_genome_header_set(&h, "k", "two\nlines"), NE_EINVAL);
  for (int i = h.n; i < NE_GENOME_MAX_HEADER; i++) {
    char key[16];
    sprintf(key, "k%d", i);
    ASSERT_EQ(ne_genome_header_set(&h, key, "v"), 0);
  }
  ASSERT_EQ(ne_genome_header_set(&h, "one.more", "v"), NE_ERANGE);
  ASSERT_EQ(ne_genome_header_set(&h, "env.id", "still replaceable"), 0);
}

static void test_set_push_free(void) {
  ne_genome g;
  ne_genome_init(&g);
  for (uint64_t i = 0; i < 1000; i++) ASSERT_EQ(ne_genome_push(&g, i), 0);
  ASSERT_EQ(g.n_seeds, 1000);
  ASSERT_U64_EQ(g.seeds[999], 999);
  // set from a slice of its own chain
  ASSERT_EQ(ne_genome_set(&g, g.seeds + 10, 5, 0.5f), 0);
  ASSERT_EQ(g.n_seeds, 5);
  ASSERT_U64_EQ(g.seeds[0], 10);
  ne_genome_free(&g);
  ne_genome_free(&g);
  ne_genome_free(NULL);
  ASSERT_EQ(g.n_seeds, 0);
}

// ---- files -----------------------------------------------------------------------------------------

static void test_write_and_read_file(void) {
  char dir[] = "/tmp/ne_test_genome_XXXXXX";
  ASSERT(mkdtemp(dir) != NULL);
  char path[256], err[NE_ERRSTR_LEN];
  snprintf(path, sizeof path, "%s/best.genome", dir);
  ne_genome g, back;
  ne_genome_init(&g);
  ne_genome_init(&back);
  ASSERT_EQ(ne_genome_set(&g, (uint64_t[]){1, 2, 3}, 3, 0.02f), 0);
  ne_genome_header h = {0}, hb;
  ASSERT_EQ(ne_genome_header_set(&h, "env.id", "CartPole-v1"), 0);
  // write twice (the second replaces the first atomically), read back
  ASSERT_EQ(ne_genome_write_file(path, &g, &h, err), 0);
  ASSERT_EQ(ne_genome_push(&g, 4), 0);
  ASSERT_EQ(ne_genome_write_file(path, &g, &h, err), 0);
  if (ne_genome_read_file(path, &back, &hb, err) != 0) TEST_FAIL("%s", err);
  ASSERT_EQ(back.n_seeds, 4);
  ASSERT_U64_EQ(back.seeds[3], 4);
  ASSERT_EQ(back.sigma, 0.02f);
  ASSERT_STR_EQ(ne_genome_header_get(&hb, "env.id"), "CartPole-v1");
  // no temp file left behind
  char tmp[300];
  snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
  ASSERT_NE(access(tmp, F_OK), 0);
  // errors from a file name its path and line
  FILE* f = fopen(path, "w");
  fputs("sigma = 0.1\nseeds = 1 two\n", f);
  fclose(f);
  ASSERT_EQ(ne_genome_read_file(path, &back, NULL, err), NE_EPARSE);
  ASSERT_CONTAINS(err, "best.genome:2: seeds: 'two' is not an unsigned integer");
  ASSERT_CONTAINS(err, dir);
  unlink(path);
  ASSERT_EQ(ne_genome_read_file(path, &back, NULL, err), NE_ENOTFOUND);
  ASSERT_CONTAINS(err, path);
  rmdir(dir);
  ne_genome_free(&g);
  ne_genome_free(&back);
}

// Every allocation failure is reported (NE_ENOMEM / NULL) and leaks nothing (ASan checks leaks).
static void test_allocation_failures(void) {
  ne_genome g;
  ne_genome_init(&g);
  const char* text = "sigma = 0.1\nseeds = 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18\n";
  char err[NE_ERRSTR_LEN];
  int failures = 0;
  for (long n = 0; n < 10; n++) {
    ne_alloc_fail_after(n);
    int rc = ne_genome_parse(text, "x", &g, NULL, err);
    ne_alloc_fail_after(-1);
    if (rc == 0) break;
    ASSERT_EQ(rc, NE_ENOMEM);
    ASSERT_CONTAINS(err, "x:2: out of memory");
    failures++;
  }
  ASSERT_GT(failures, 0);
  ASSERT_EQ(g.n_seeds, 18);
  ne_alloc_fail_after(0);
  ASSERT(ne_genome_format(&g, NULL) == NULL);
  ASSERT(ne_genome_format_seeds(&g) == NULL);
  ASSERT_EQ(ne_genome_push(&g, 1), 0);  // capacity left: no allocation needed
  ASSERT_EQ(ne_genome_set(&g, g.seeds, 2, 0.1f), NE_ENOMEM);
  ne_alloc_fail_after(-1);
  ASSERT_EQ(g.n_seeds, 19);
  ne_genome_free(&g);
}

// ---- hashes and materialization ------------------------------------------------------------------

static void test_chain_hash_identities(void) {
  ne_policy_spec s = cartpole_spec();
  const uint64_t seeds[5] = {11, 22, 33, 44, 55};
  // hash(n) == extend(hash(n-1), sigma, seeds[n-1]); hash(1) == root
  ASSERT_U64_EQ(ne_chain_hash(&s, seeds, 1, 0.1f), ne_chain_root(&s, 11));
  for (size_t n = 2; n <= 5; n++)
    ASSERT_U64_EQ(ne_chain_hash(&s, seeds, n, 0.1f),
                  ne_chain_extend(ne_chain_hash(&s, seeds, n - 1, 0.1f), 0.1f, seeds[n - 1]));
  // sigma, order and each seed matter
  ASSERT_NE(ne_chain_hash(&s, seeds, 3, 0.1f), ne_chain_hash(&s, seeds, 3, 0.2f));
  const uint64_t swapped[3] = {11, 33, 22};
  ASSERT_NE(ne_chain_hash(&s, seeds, 3, 0.1f), ne_chain_hash(&s, swapped, 3, 0.1f));
  ASSERT_NE(ne_chain_hash(&s, seeds, 3, 0.1f), ne_chain_hash(&s, seeds, 2, 0.1f));
  // different policies never share roots: sizes, init; same n_params with other layer sizes
  ne_policy_spec t;
  const int h[2] = {64, 64}, h2[1] = {3}, h3[1] = {2};
  ASSERT_EQ(ne_policy_spec_init(&t, 4, h, 2, 3, NE_ACT_TANH, NE_HEAD_ARGMAX, NE_INIT_NORMC, NULL, NULL, NULL), 0);
  ASSERT_NE(ne_chain_root(&s, 11), ne_chain_root(&t, 11));
  ASSERT_EQ(ne_policy_spec_init(&t, 4, h, 2, 2, NE_ACT_TANH, NE_HEAD_ARGMAX, NE_INIT_HE, NULL, NULL, NULL), 0);
  ASSERT_NE(ne_chain_root(&s, 11), ne_chain_root(&t, 11));
  ne_policy_spec a, b;  // 2-3-2 and 3-2-3... both 17 params? 2*3+3+3*2+2 = 17, 3*2+2+2*3+3 = 17
  ASSERT_EQ(ne_policy_spec_init(&a, 2, h2, 1, 2, NE_ACT_TANH, NE_HEAD_ARGMAX, NE_INIT_NORMC, NULL, NULL, NULL), 0);
  ASSERT_EQ(ne_policy_spec_init(&b, 3, h3, 1, 3, NE_ACT_TANH, NE_HEAD_ARGMAX, NE_INIT_NORMC, NULL, NULL, NULL), 0);
  ASSERT_EQ(a.n_params, b.n_params);
  ASSERT_NE(ne_chain_root(&a, 11), ne_chain_root(&b, 11));
  // activation and head do not change the vector, so they share it
  ASSERT_EQ(ne_policy_spec_init(&t, 4, h, 2, 2, NE_ACT_RELU, NE_HEAD_ARGMAX, NE_INIT_NORMC, NULL, NULL, NULL), 0);
  ASSERT_U64_EQ(ne_chain_root(&s, 11), ne_chain_root(&t, 11));
  // conv nets with the same dense part and parameter count but other conv shapes: 10x10 input,
  // 3x3 stride 1 and 18x18 input, 3x3 stride 2 both give 8x8x4 into the same 256-2 dense layer
  ne_policy_spec c1, c2;
  const ne_conv_layer stride1 = {.filters = 4, .kernel = 3, .stride = 1},
                      stride2 = {.filters = 4, .kernel = 3, .stride = 2};
  const int small[3] = {10, 10, 1}, large[3] = {18, 18, 1};
  ASSERT_EQ(ne_policy_spec_init_conv(&c1, small, &stride1, 1, NULL, 0, 2, NE_ACT_RELU, NE_HEAD_ARGMAX, NE_INIT_NORMC,
                                     NULL, NULL, NULL),
            0);
  ASSERT_EQ(ne_policy_spec_init_conv(&c2, large, &stride2, 1, NULL, 0, 2, NE_ACT_RELU, NE_HEAD_ARGMAX, NE_INIT_NORMC,
                                     NULL, NULL, NULL),
            0);
  ASSERT_EQ(c1.n_params, c2.n_params);
  ASSERT_EQ(c1.sizes[0], c2.sizes[0]);
  ASSERT_NE(ne_chain_root(&c1, 11), ne_chain_root(&c2, 11));
}

// theta = init(s0) + sigma * sum eps(s_i), each product rounded to float before its add.
static void test_materialize_is_init_plus_axpys(void) {
  ne_policy_spec s = cartpole_spec();
  size_t P = s.n_params;
  float *got = malloc(P * sizeof *got), *want = malloc(P * sizeof *want), *eps = malloc(P * sizeof *eps);
  const uint64_t seeds[3] = {9, 8, 7};
  ne_genome_materialize(&s, seeds, 1, 0.05f, got);
  ne_policy_init_params(&s, 9, want);
  ASSERT(memcmp(got, want, P * sizeof *got) == 0);
  ne_genome_materialize(&s, seeds, 3, 0.05f, got);
  for (int k = 1; k < 3; k++) {
    ne_noise_fill(seeds[k], 0, P, eps);
    for (size_t i = 0; i < P; i++) {
      float prod = 0.05f * eps[i];
      want[i] = want[i] + prod;
    }
  }
  ASSERT(memcmp(got, want, P * sizeof *got) == 0);
  free(got);
  free(want);
  free(eps);
}

// A header from before policy.tanh and policy.fma existed rebuilds a policy with tanh in double and
// separate roundings (what it was trained with); a new run's header carries policy.tanh = float and
// policy.fma = true and keeps them.
static void test_header_without_tanh_means_double(void) {
  ne_config* cfg = ne_config_create();
  ne_genome_header h;
  memset(&h, 0, sizeof h);
  ASSERT_EQ(ne_genome_header_set(&h, "env.id", "CartPole-v1"), 0);
  ASSERT_STR_EQ(ne_config_str(cfg, "policy", "tanh"), "float");  // the defaults of new configs
  ASSERT_EQ(ne_config_bool(cfg, "policy", "fma"), 1);
  ASSERT_EQ(ne_genome_header_to_config(&h, cfg, "old.genome", NULL), 0);
  ASSERT_STR_EQ(ne_config_str(cfg, "policy", "tanh"), "double");
  ASSERT_EQ(ne_config_bool(cfg, "policy", "fma"), 0);
  ne_config_destroy(cfg);
  cfg = ne_config_create();
  ne_genome_header from;
  ASSERT_EQ(ne_genome_header_from_config(cfg, &from), 0);
  ASSERT_STR_EQ(ne_genome_header_get(&from, "policy.tanh"), "float");
  ASSERT_STR_EQ(ne_genome_header_get(&from, "policy.fma"), "true");
  ASSERT_EQ(ne_genome_header_to_config(&from, cfg, "new.genome", NULL), 0);
  ASSERT_STR_EQ(ne_config_str(cfg, "policy", "tanh"), "float");
  ASSERT_EQ(ne_config_bool(cfg, "policy", "fma"), 1);
  ne_config_destroy(cfg);
}

TEST_MAIN(TEST_ENTRY(test_format_exact_text), TEST_ENTRY(test_round_trip), TEST_ENTRY(test_parse_lenient_layout),
          TEST_ENTRY(test_parse_errors_name_file_and_line), TEST_ENTRY(test_parse_failure_leaves_outputs_untouched),
          TEST_ENTRY(test_header_get_set), TEST_ENTRY(test_set_push_free), TEST_ENTRY(test_write_and_read_file),
          TEST_ENTRY(test_allocation_failures), TEST_ENTRY(test_chain_hash_identities),
          TEST_ENTRY(test_materialize_is_init_plus_axpys), TEST_ENTRY(test_header_without_tanh_means_double))
