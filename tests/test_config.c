// SPDX-License-Identifier: MIT
// Tests of the config module: defaults, INI loading with file:line errors, overrides, cross-key
// validation, format -> load round trips, and allocation-failure injection at every allocation of
// load/format/override/clone (run under ASan to prove nothing leaks on those paths).
#include <unistd.h>

#include "config/config_int.h"
#include "core/util.h"  // ne__read_file
#include "neuroevo/alloc.h"
#include "neuroevo/config.h"
#include "neuroevo/error.h"
#include "test.h"

// a fresh config; the test fails on OOM
static ne_config* fresh(void) {
  ne_config* cfg = ne_config_create();
  ASSERT(cfg != NULL);
  return cfg;
}

// loads text named `name`, expecting code rc; returns the message
static const char* load_expect(ne_config* cfg, const char* text, const char* name, int rc) {
  static char err[NE_ERRSTR_LEN];
  err[0] = '\0';
  ASSERT_EQ(ne_config_load_string(cfg, text, name, err), rc);
  return err;
}

// loads text into a fresh config expecting failure `rc` with exactly the message `msg`
static void expect_load_error(const char* text, int rc, const char* msg) {
  ne_config* cfg = fresh();
  ASSERT_STR_EQ(load_expect(cfg, text, "cartpole.ini", rc), msg);
  ne_config_destroy(cfg);
}

// writes text to a temp file; returns its path (static buffer)
static const char* temp_file(const char* text) {
  static char path[64];
  snprintf(path, sizeof path, "/tmp/test_config_XXXXXX");
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, text, strlen(text)), (long long)strlen(text));
  close(fd);
  return path;
}

static void test_defaults(void) {
  ne_config* cfg = fresh();
  ASSERT_STR_EQ(ne_config_str(cfg, "run", "algorithm"), "ga");
  ASSERT_EQ(ne_config_int(cfg, "run", "seed"), 0);
  ASSERT_EQ(ne_config_int(cfg, "run", "generations"), 100);
  ASSERT_EQ(ne_config_int(cfg, "run", "max_env_steps"), 0);
  ASSERT_NEAR(ne_config_float(cfg, "run", "max_seconds"), 0, 0);
  ASSERT_STR_EQ(ne_config_str(cfg, "run", "target"), "auto");
  ASSERT_EQ(ne_config_int(cfg, "run", "threads"), 0);
  ASSERT_STR_EQ(ne_config_str(cfg, "run", "out"), "runs");
  ASSERT_EQ(ne_config_int(cfg, "run", "checkpoint_every"), 1);
  ASSERT_EQ(ne_config_int(cfg, "run", "keep_checkpoints"), 3);
  ASSERT_EQ(ne_config_int(cfg, "run", "plot_every"), 10);
  ASSERT_EQ(ne_config_int(cfg, "run", "eval_episodes"), 100);
  ASSERT_STR_EQ(ne_config_str(cfg, "env", "id"), "CartPole-v1");
  ASSERT_EQ(ne_config_int(cfg, "env", "episodes"), 1);
  ASSERT_EQ(ne_config_int(cfg, "env", "max_episode_steps"), 0);
  int hidden[8];
  ASSERT_EQ(ne_config_intlist(cfg, "policy", "hidden", hidden, 8), 2);
  ASSERT_EQ(hidden[0], 64);
  ASSERT_EQ(hidden[1], 64);
  ASSERT_STR_EQ(ne_config_str(cfg, "policy", "activation"), "tanh");
  ASSERT_STR_EQ(ne_config_str(cfg, "policy", "head"), "auto");
  ASSERT_STR_EQ(ne_config_str(cfg, "policy", "init"), "normc");
  ASSERT_EQ(ne_config_int(cfg, "ga", "population"), 1000);
  ASSERT_EQ(ne_config_int(cfg, "ga", "truncation"), 20);
  ASSERT_NEAR(ne_config_float(cfg, "ga", "sigma"), 0.002, 0);
  ASSERT_EQ(ne_config_int(cfg, "ga", "elite_candidates"), 10);
  ASSERT_EQ(ne_config_int(cfg, "ga", "elite_episodes"), 30);
  ASSERT_EQ(ne_config_bool(cfg, "ga", "elitism"), 1);
  ASSERT_EQ(ne_config_int(cfg, "ga", "cache_mb"), 512);
  ASSERT_EQ(ne_config_is_set(cfg, "ga", "population"), 0);
  ASSERT_EQ(ne_config_validate(cfg, NULL), 0);
  ne_config_destroy(cfg);
  ne_config_destroy(NULL);
}

// every schema entry is well formed: help text, a parsable default, an in-range default
static void test_schema_well_formed(void) {
  const ne_config_key* schema = ne_config_schema();
  int n = ne_config_schema_count();
  ASSERT_GE(n, 26);
  for (int i = 0; i < n; i++) {
    ASSERT(schema[i].help);
    ASSERT_GT(strlen(schema[i].help), 10);
    ASSERT(!strchr(schema[i].help, '\n'));
    ASSERT_EQ(schema[i].type == NE_CFG_ENUM, schema[i].choices != NULL);
    ne_config* cfg = fresh();
    char err[NE_ERRSTR_LEN] = "";
    ASSERT_EQ(ne_config_set(cfg, schema[i].section, schema[i].key, schema[i].default_value, "x", err), 0);
    ne_config_destroy(cfg);
  }
  // sections are listed in schema order
  int ns;
  const ne__cfg_section* sec = ne__config_sections(&ns);
  ASSERT_STR_EQ(sec[0].name, "run");
  ASSERT_STR_EQ(schema[0].section, "run");
  ASSERT_STR_EQ(schema[n - 1].section, sec[ns - 1].name);
}

static void test_two_line_config_is_complete(void) {
  ne_config* cfg = fresh();
  load_expect(cfg, "[run]\nalgorithm = ga\n[env]\nid = Acrobot-v1\n", "two.ini", 0);
  ASSERT_STR_EQ(ne_config_str(cfg, "env", "id"), "Acrobot-v1");
  ASSERT_EQ(ne_config_is_set(cfg, "env", "id"), 1);
  ASSERT_EQ(ne_config_int(cfg, "ga", "population"), 1000);
  ASSERT_EQ(ne_config_validate(cfg, NULL), 0);
  ne_config_destroy(cfg);
}

static void test_file_then_overrides(void) {
  const char* path = temp_file(
      "# experiment\n[ga]\npopulation = 200 ; inline comment\nsigma = 0.01\n"
      "[run]\nseed = 7\n");
  ne_config* cfg = fresh();
  char err[NE_ERRSTR_LEN] = "";
  ASSERT_EQ(ne_config_load_file(cfg, path, err), 0);
  ASSERT_EQ(ne_config_int(cfg, "ga", "population"), 200);
  ASSERT_NEAR(ne_config_float(cfg, "ga", "sigma"), 0.01, 0);
  ASSERT_EQ(ne_config_int(cfg, "run", "seed"), 7);
  // overrides win over the file; untouched keys keep the file's values
  ASSERT_EQ(ne_config_override(cfg, "ga.population=300", "command line", err), 0);
  ASSERT_EQ(ne_config_override(cfg, " run.seed = 9 ", "command line", err), 0);
  // a key overridden twice is an error naming both, and the first value stays
  ASSERT_EQ(ne_config_override(cfg, "run.seed=11", "command line", err), NE_EINVAL);
  ASSERT_STR_EQ(err, "command line: run.seed is overridden twice: ' run.seed = 9 ' and 'run.seed=11' (give it once)");
  ASSERT_EQ(ne_config_int(cfg, "ga", "population"), 300);
  ASSERT_EQ(ne_config_int(cfg, "run", "seed"), 9);
  ASSERT_NEAR(ne_config_float(cfg, "ga", "sigma"), 0.01, 0);
  // a later file applies over the overrides as well: order of application is the precedence
  load_expect(cfg, "[ga]\nsigma = 0.5\n", "second.ini", 0);
  ASSERT_NEAR(ne_config_float(cfg, "ga", "sigma"), 0.5, 0);
  ASSERT_EQ(ne_config_int(cfg, "ga", "population"), 300);
  // origins are remembered: a cross-key error names the override
  ASSERT_EQ(ne_config_override(cfg, "ga.truncation=500", "command line", err), 0);
  ASSERT_EQ(ne_config_validate(cfg, err), NE_EINVAL);
  ASSERT_STR_EQ(err,
                "command line: [ga] truncation = 500 must be <= population = 300 "
                "(truncation from command line, population from command line)");
  ne_config_destroy(cfg);
  unlink(path);
}

static void test_missing_file(void) {
  ne_config* cfg = fresh();
  char err[NE_ERRSTR_LEN] = "";
  ASSERT_EQ(ne_config_load_file(cfg, "/nonexistent/x.ini", err), NE_ENOTFOUND);
  ASSERT_CONTAINS(err, "/nonexistent/x.ini");
  ne_config_destroy(cfg);
}

static void test_unknown_key_names_file_line_and_suggestion(void) {
  expect_load_error("[ga]\n\npopulaton = 5\n", NE_ENOTFOUND,
                    "cartpole.ini:3: unknown key 'populaton' in [ga] (did you mean 'population'?)");
  // a real key in the wrong section says where it belongs
  expect_load_error("[ga]\nseed = 5\n", NE_ENOTFOUND,
                    "cartpole.ini:2: unknown key 'seed' in [ga] (it belongs in [run])");
  // nothing close: no suggestion
  expect_load_error("[ga]\nzzzzzzzzzz = 5\n", NE_ENOTFOUND, "cartpole.ini:2: unknown key 'zzzzzzzzzz' in [ga]");
}

static void test_unknown_section(void) {
  // the header line is named, with or without keys below it
  expect_load_error("[run]\nseed = 1\n[gaa]\npopulation = 5\n", NE_ENOTFOUND,
                    "cartpole.ini:3: unknown section [gaa] (did you mean [ga]?)");
  // the list of valid sections grows with every algorithm, so check its start and one entry
  ne_config* cfg = fresh();
  const char* msg = load_expect(cfg, "[run]\n[nothing_like_it]\n", "cartpole.ini", NE_ENOTFOUND);
  ASSERT_CONTAINS(msg, "cartpole.ini:2: unknown section [nothing_like_it] (sections: [run], [env], [policy], [ga]");
  ne_config_destroy(cfg);
  expect_load_error("seed = 1\n", NE_EPARSE,
                    "cartpole.ini:1: key 'seed' is outside any section (start with e.g. [run])");
}

static void test_wrong_type_names_expected_form(void) {
  expect_load_error("[ga]\npopulation = 10\n\nsigma = abc\n", NE_EPARSE,
                    "cartpole.ini:4: [ga] sigma = 'abc': expected a number in [1e-09, 10]");
  expect_load_error("[ga]\npopulation = 1\n", NE_ERANGE,
                    "cartpole.ini:2: [ga] population = '1': expected an integer in [2, 10000000]");
  expect_load_error("[ga]\npopulation = 12.5\n", NE_EPARSE,
                    "cartpole.ini:2: [ga] population = '12.5': expected an integer in [2, 10000000]");
  expect_load_error("[ga]\nsigma = nan\n", NE_EPARSE,
                    "cartpole.ini:2: [ga] sigma = 'nan': expected a number in [1e-09, 10]");
  expect_load_error("[ga]\nelitism = maybe\n", NE_EPARSE,
                    "cartpole.ini:2: [ga] elitism = 'maybe': expected true or false (or yes/no, on/off, 1/0)");
  expect_load_error("[policy]\nactivation = rleu\n", NE_EPARSE,
                    "cartpole.ini:2: [policy] activation = 'rleu': expected one of tanh|relu (did you mean 'relu'?)");
  expect_load_error("[run]\nseed = -1\n", NE_ERANGE,
                    "cartpole.ini:2: [run] seed = '-1': expected an integer in [0, 9.2e+18]");
  expect_load_error("[policy]\nhidden = 64,x\n", NE_EPARSE,
                    "cartpole.ini:2: [policy] hidden = '64,x': expected comma-separated integers in [1, 65536], "
                    "at most 7 (e.g. 64,64)");
}

static void test_syntax_and_long_lines(void) {
  expect_load_error("[run]\nseed = 1\nthis line has no equals sign\n", NE_EPARSE,
                    "cartpole.ini:3: syntax error: expected [section] or key = value");
  expect_load_error("[run\nseed = 1\n", NE_EPARSE, "cartpole.ini:1: syntax error: expected [section] or key = value");
  char text[1000];
  snprintf(text, sizeof text, "[run]\n\nout = %0300d\n", 0);
  ne_config* cfg = fresh();
  const char* err = load_expect(cfg, text, "cartpole.ini", NE_EPARSE);
  ASSERT_CONTAINS(err, "cartpole.ini:3: line longer than");
  ne_config_destroy(cfg);
  // long comment lines are fine
  snprintf(text, sizeof text, "[run]\n# %0400d\n  ; %0400d\nseed = 4\n", 0, 0);
  cfg = fresh();
  load_expect(cfg, text, "c.ini", 0);
  ASSERT_EQ(ne_config_int(cfg, "run", "seed"), 4);
  ne_config_destroy(cfg);
}

// comments, blank lines, CRLF and indentation do not disturb line numbers or values
static void test_line_counting_and_layout(void) {
  expect_load_error("; comment\r\n# another\r\n\r\n[ga]\r\n  population = 50\r\n\tsigma = x\r\n", NE_EPARSE,
                    "cartpole.ini:6: [ga] sigma = 'x': expected a number in [1e-09, 10]");
  // an indented key is a key of its own, not a continuation of the previous value
  ne_config* cfg = fresh();
  load_expect(cfg, "[ga]\nsigma = 0.1\n    population = 60\n", "x.ini", 0);
  ASSERT_EQ(ne_config_int(cfg, "ga", "population"), 60);
  ASSERT_NEAR(ne_config_float(cfg, "ga", "sigma"), 0.1, 0);
  ne_config_destroy(cfg);
  // no trailing newline; a NULL name still yields a message prefix
  cfg = fresh();
  const char* err = load_expect(cfg, "[ga]\npopulation = 0", NULL, NE_ERANGE);
  ASSERT_CONTAINS(err, "<string>:2: [ga] population = '0'");
  ne_config_destroy(cfg);
}

// a failed load leaves every value as it was, even keys set before the failing line
static void test_failed_load_changes_nothing(void) {
  ne_config* cfg = fresh();
  load_expect(cfg, "[ga]\npopulation = 77\n", "a.ini", 0);
  load_expect(cfg, "[ga]\npopulation = 88\ntruncation = 5\nsigma = bad\n", "b.ini", NE_EPARSE);
  ASSERT_EQ(ne_config_int(cfg, "ga", "population"), 77);
  ASSERT_EQ(ne_config_int(cfg, "ga", "truncation"), 20);
  ASSERT_EQ(ne_config_is_set(cfg, "ga", "truncation"), 0);
  ne_config_destroy(cfg);
}

static void test_override_errors(void) {
  ne_config* cfg = fresh();
  char err[NE_ERRSTR_LEN];
  ASSERT_EQ(ne_config_override(cfg, "ga.populaton=5", "command line", err), NE_ENOTFOUND);
  ASSERT_STR_EQ(err, "command line: unknown key 'populaton' in [ga] (did you mean 'population'?)");
  ASSERT_EQ(ne_config_override(cfg, "ga.sigma=abc", "command line", err), NE_EPARSE);
  ASSERT_STR_EQ(err, "command line: [ga] sigma = 'abc': expected a number in [1e-09, 10]");
  ASSERT_EQ(ne_config_override(cfg, "gaa.sigma=1", "command line", err), NE_ENOTFOUND);
  ASSERT_STR_EQ(err, "command line: unknown section [gaa] (did you mean [ga]?)");
  ASSERT_EQ(ne_config_override(cfg, "population=5", "command line", err), NE_EPARSE);
  ASSERT_STR_EQ(err, "command line: 'population=5': expected section.key=value (did you mean ga.population?)");
  // a bare key of several sections: the one run.algorithm uses; a misspelt one: the nearest key
  ne_config* es = fresh();
  ASSERT_EQ(ne_config_override(es, "run.algorithm=es", "command line", err), 0);
  ASSERT_EQ(ne_config_override(es, "population=5", "command line", err), NE_EPARSE);
  ASSERT_CONTAINS(err, "(did you mean es.population?)");
  ASSERT_EQ(ne_config_override(es, "lr=0.01", "command line", err), NE_EPARSE);
  ASSERT_CONTAINS(err, "(did you mean es.lr?)");
  ASSERT_EQ(ne_config_override(es, "populaton=5", "command line", err), NE_EPARSE);
  ASSERT_CONTAINS(err, "did you mean");
  ASSERT_CONTAINS(err, ".population?)");
  ne_config_destroy(es);
  ASSERT_EQ(ne_config_override(cfg, "ga.population", "command line", err), NE_EPARSE);
  ASSERT_STR_EQ(err, "command line: 'ga.population': expected section.key=value (e.g. ga.population=500)");
  // set with no origin: message without a prefix; value unchanged after every failure
  ASSERT_EQ(ne_config_set(cfg, "ga", "population", "x", NULL, err), NE_EPARSE);
  ASSERT_STR_EQ(err, "[ga] population = 'x': expected an integer in [2, 10000000]");
  ASSERT_EQ(ne_config_int(cfg, "ga", "population"), 1000);
  ASSERT_NEAR(ne_config_float(cfg, "ga", "sigma"), 0.002, 0);
  // an empty value is a value (the empty list here)
  ASSERT_EQ(ne_config_override(cfg, "policy.hidden=", "command line", err), 0);
  ASSERT_EQ(ne_config_intlist(cfg, "policy", "hidden", NULL, 0), 0);
  ne_config_destroy(cfg);
}

static void test_validate_cross_keys(void) {
  ne_config* cfg = fresh();
  char err[NE_ERRSTR_LEN];
  load_expect(cfg, "[ga]\npopulation = 10\ntruncation = 11\n", "x.ini", 0);
  ASSERT_EQ(ne_config_validate(cfg, err), NE_EINVAL);
  ASSERT_STR_EQ(err,
                "x.ini:3: [ga] truncation = 11 must be <= population = 10 "
                "(truncation from x.ini:3, population from x.ini:2)");
  ASSERT_EQ(ne_config_override(cfg, "ga.truncation=5", "command line", err), 0);
  ASSERT_EQ(ne_config_validate(cfg, err), 0);
  // the later-set side is blamed: here the population override, with the default it now undercuts
  ASSERT_EQ(ne_config_override(cfg, "ga.population=8", "command line", err), 0);
  ASSERT_EQ(ne_config_validate(cfg, err), NE_EINVAL);
  ASSERT_STR_EQ(err,
                "command line: [ga] elite_candidates = 10 must be <= population = 8 "
                "(elite_candidates from the default, population from command line)");
  ne_config_destroy(cfg);

  // elite_candidates blamed when it is the one set
  cfg = fresh();
  load_expect(cfg, "[ga]\nelite_candidates = 2000\n", "y.ini", 0);
  ASSERT_EQ(ne_config_validate(cfg, err), NE_EINVAL);
  ASSERT_STR_EQ(err,
                "y.ini:2: [ga] elite_candidates = 2000 must be <= population = 1000 "
                "(elite_candidates from y.ini:2, population from the default)");
  ne_config_destroy(cfg);
}

static void test_validate_target(void) {
  const char* good[] = {"auto", "none", "475", "-12.5", "1e3"};
  for (int i = 0; i < 5; i++) {
    ne_config* cfg = fresh();
    ASSERT_EQ(ne_config_set(cfg, "run", "target", good[i], "t.ini:2", NULL), 0);
    ASSERT_EQ(ne_config_validate(cfg, NULL), 0);
    ne_config_destroy(cfg);
  }
  ne_config* cfg = fresh();
  char err[NE_ERRSTR_LEN];
  load_expect(cfg, "[run]\ntarget = solved\n", "t.ini", 0);
  ASSERT_EQ(ne_config_validate(cfg, err), NE_EPARSE);
  ASSERT_STR_EQ(err, "t.ini:2: [run] target = 'solved': expected auto, none or a number");
  ne_config_destroy(cfg);
}

// a section for another algorithm is named with where it was set (tested through a table with an
// algorithm the schema does not have yet, since today run.algorithm can only be ga)
static void test_validate_section_of_other_algorithm(void) {
  int n;
  const ne__cfg_section* real = ne__config_sections(&n);
  const ne__cfg_section* ga = NULL;
  for (int s = 0; s < n; s++)
    if (strcmp(real[s].name, "ga") == 0) ga = &real[s];
  ASSERT(ga != NULL);
  ASSERT_STR_EQ(ga->algorithm, "ga");
  ne__cfg_section table[2] = {real[0], *ga};
  table[1].algorithm = "es";

  ne_config* cfg = fresh();
  char err[NE_ERRSTR_LEN] = "";
  ASSERT_EQ(ne__config_check_algorithm_sections(cfg, table, 2, err), 0);  // defaults only: fine
  load_expect(cfg, "[run]\nseed = 1\n\n\n\n[ga]\nsigma = 0.1\npopulation = 50\n", "x.ini", 0);
  ASSERT_EQ(ne__config_check_algorithm_sections(cfg, table, 2, err), NE_EINVAL);
  ASSERT_STR_EQ(err,
                "x.ini:7: section [ga] configures algorithm 'es', but run.algorithm = ga "
                "(remove [ga] or set algorithm = es)");
  // the real table accepts [ga] under run.algorithm = ga
  ASSERT_EQ(ne_config_validate(cfg, NULL), 0);
  ne_config_destroy(cfg);
}

// Sections shared by several algorithms: [es] serves es and the NS-ES family; [novelty] serves the
// NS-ES family and ga only while ga.novelty = true (a "ga:novelty" switch); the resolved config
// writes them only where they are in use.
static void test_shared_and_switched_sections(void) {
  ne_config* cfg = fresh();
  char err[NE_ERRSTR_LEN] = "";
  load_expect(cfg, "[run]\nalgorithm = nsra-es\n[es]\nsigma = 0.05\n[novelty]\nk = 7\n", "n.ini", 0);
  ASSERT_EQ(ne_config_validate(cfg, err), 0);
  char* text = ne_config_format(cfg);
  ASSERT_CONTAINS(text, "\n[es]\n");
  ASSERT_CONTAINS(text, "\n[novelty]\n");
  ASSERT_CONTAINS(text, "\nk = 7\n");
  ne_free(text);
  ne_config_destroy(cfg);
  // [novelty] under plain ES: named, with the algorithm to choose
  cfg = fresh();
  load_expect(cfg, "[run]\nalgorithm = es\n[novelty]\nk = 7\n", "e.ini", 0);
  ASSERT_EQ(ne_config_validate(cfg, err), NE_EINVAL);
  ASSERT_STR_EQ(
      err,
      "e.ini:4: section [novelty] configures algorithm 'ns-es' (or nsr-es, nsra-es, ga with ga.novelty = true), but "
      "run.algorithm = es (remove [novelty] or set algorithm = ns-es)");
  ne_config_destroy(cfg);
  // [novelty] under the GA: only with ga.novelty = true
  cfg = fresh();
  load_expect(cfg, "[ga]\npopulation = 50\n[novelty]\narchive_prob = 0.1\n", "g.ini", 0);
  ASSERT_EQ(ne_config_validate(cfg, err), NE_EINVAL);
  ASSERT_STR_EQ(err,
                "g.ini:4: section [novelty] has no effect while ga.novelty = false (set ga.novelty = true or "
                "remove [novelty])");
  text = ne_config_format(cfg);
  ASSERT(strstr(text, "\n[novelty]\n") == NULL);
  ne_free(text);
  ASSERT_EQ(ne_config_set(cfg, "ga", "novelty", "true", NULL, err), 0);
  ASSERT_EQ(ne_config_validate(cfg, err), 0);
  text = ne_config_format(cfg);
  ASSERT_CONTAINS(text, "\n[novelty]\n");
  ASSERT_CONTAINS(text, "archive_prob = 0.1\n");
  ne_free(text);
  ne_config_destroy(cfg);
  // an override switching algorithms keeps the sections the new one shares: NS-ES -> ES keeps [es]
  // and drops [novelty] with a note
  const char* ns = "[run]\nalgorithm = ns-es\n[es]\nsigma = 0.05\n[novelty]\nk = 7\n";
  cfg = fresh();
  load_expect(cfg, ns, "n.ini", 0);
  ASSERT_EQ(ne_config_override(cfg, "run.algorithm=es", "command line", err), 0);
  ASSERT_EQ(ne_config_validate(cfg, err), 0);
  ASSERT(ne_config_float(cfg, "es", "sigma") == 0.05);
  ASSERT_CONTAINS(ne_config_notes(cfg), "ignoring [novelty]");
  ASSERT(strstr(ne_config_notes(cfg), "ignoring [es]") == NULL);
  ne_config_destroy(cfg);
  // NS-ES -> GA drops [es]; [novelty] waits for ga.novelty, which a later override may turn on
  cfg = fresh();
  load_expect(cfg, ns, "n.ini", 0);
  ASSERT_EQ(ne_config_override(cfg, "run.algorithm=ga", "command line", err), 0);
  ASSERT_CONTAINS(ne_config_notes(cfg), "ignoring [es]");
  ASSERT_EQ(ne_config_override(cfg, "ga.novelty=true", "command line", err), 0);
  ASSERT_EQ(ne_config_validate(cfg, err), 0);
  ASSERT_EQ(ne_config_int(cfg, "novelty", "k"), 7);
  ne_config_destroy(cfg);
}

static void test_intlist_parsing(void) {
  struct {
    const char* text;
    int rc, n, first, last;
  } cases[] = {
      {"", 0, 0, 0, 0},
      {"8", 0, 1, 8, 8},
      {" 32 , 16 ", 0, 2, 32, 16},
      {"1,2,3,4,5,6,7", 0, 7, 1, 7},
      {"1,2,3,4,5,6,7,8", NE_ERANGE, 0, 0, 0},
      {"64,,64", NE_EPARSE, 0, 0, 0},
      {"64,0", NE_ERANGE, 0, 0, 0},
      {"64,65537", NE_ERANGE, 0, 0, 0},
      {"a", NE_EPARSE, 0, 0, 0},
      {"64,", NE_EPARSE, 0, 0, 0},
      {"64 64", NE_EPARSE, 0, 0, 0},
      {"99999999999999999999", NE_EPARSE, 0, 0, 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    ne_config* cfg = fresh();
    char err[NE_ERRSTR_LEN] = "";
    int rc = ne_config_set(cfg, "policy", "hidden", cases[i].text, "t", err);
    if (rc != cases[i].rc) TEST_FAIL("hidden = '%s': rc %d, want %d (%s)", cases[i].text, rc, cases[i].rc, err);
    if (rc == 0) {
      int out[8] = {0};
      ASSERT_EQ(ne_config_intlist(cfg, "policy", "hidden", out, 8), cases[i].n);
      if (cases[i].n > 0) {
        ASSERT_EQ(out[0], cases[i].first);
        ASSERT_EQ(out[cases[i].n - 1], cases[i].last);
      }
    } else {
      ASSERT_CONTAINS(err, "t: [policy] hidden = ");
      ASSERT_CONTAINS(err, "at most 7");
    }
    ne_config_destroy(cfg);
  }
  // max truncates the copy, not the count
  ne_config* cfg = fresh();
  ASSERT_EQ(ne_config_set(cfg, "policy", "hidden", "5,6,7", NULL, NULL), 0);
  int out[2] = {0, 0};
  ASSERT_EQ(ne_config_intlist(cfg, "policy", "hidden", out, 1), 3);
  ASSERT_EQ(out[0], 5);
  ASSERT_EQ(out[1], 0);
  ne_config_destroy(cfg);
}

static void test_bool_spellings(void) {
  const char* yes[] = {"true", "TRUE", "yes", "On", "1"};
  const char* no[] = {"false", "False", "no", "OFF", "0"};
  ne_config* cfg = fresh();
  for (int i = 0; i < 5; i++) {
    ASSERT_EQ(ne_config_set(cfg, "ga", "elitism", no[i], NULL, NULL), 0);
    ASSERT_EQ(ne_config_bool(cfg, "ga", "elitism"), 0);
    ASSERT_EQ(ne_config_set(cfg, "ga", "elitism", yes[i], NULL, NULL), 0);
    ASSERT_EQ(ne_config_bool(cfg, "ga", "elitism"), 1);
  }
  ASSERT_EQ(ne_config_set(cfg, "ga", "elitism", "2", NULL, NULL), NE_EPARSE);
  ASSERT_EQ(ne_config_set(cfg, "ga", "elitism", "", NULL, NULL), NE_EPARSE);
  ne_config_destroy(cfg);
}

static void test_numbers(void) {
  ne_config* cfg = fresh();
  // round numbers in scientific notation are integers; hex and fractions are not
  ASSERT_EQ(ne_config_set(cfg, "ga", "population", "1e6", NULL, NULL), 0);
  ASSERT_EQ(ne_config_int(cfg, "ga", "population"), 1000000);
  ASSERT_EQ(ne_config_set(cfg, "ga", "population", "2.5e0", NULL, NULL), NE_EPARSE);
  ASSERT_EQ(ne_config_set(cfg, "ga", "population", "0x10", NULL, NULL), NE_EPARSE);
  ASSERT_EQ(ne_config_set(cfg, "run", "seed", "9200000000000000000", NULL, NULL), 0);
  ASSERT_EQ(ne_config_int(cfg, "run", "seed"), 9200000000000000000LL);
  ASSERT_EQ(ne_config_set(cfg, "run", "seed", "9223372036854775807", NULL, NULL), NE_ERANGE);
  // floats: range ends are inclusive; inf is rejected
  ASSERT_EQ(ne_config_set(cfg, "ga", "sigma", "10", NULL, NULL), 0);
  ASSERT_EQ(ne_config_set(cfg, "ga", "sigma", "1e-9", NULL, NULL), 0);
  ASSERT_EQ(ne_config_set(cfg, "ga", "sigma", "0", NULL, NULL), NE_ERANGE);
  ASSERT_EQ(ne_config_set(cfg, "ga", "sigma", "inf", NULL, NULL), NE_EPARSE);
  // strings that would not survive a round trip through INI are refused
  ASSERT_EQ(ne_config_set(cfg, "run", "out", "a ;b", NULL, NULL), NE_EPARSE);
  ASSERT_EQ(ne_config_set(cfg, "run", "out", "a\tb", NULL, NULL), NE_EPARSE);
  ASSERT_EQ(ne_config_set(cfg, "run", "out", "  /tmp/my runs;x  ", NULL, NULL), 0);
  ASSERT_STR_EQ(ne_config_str(cfg, "run", "out"), "/tmp/my runs;x");
  // a value too long for one INI line would not load back from the formatted config
  char longv[400];
  memset(longv, 'a', sizeof longv - 1);
  longv[sizeof longv - 1] = '\0';
  char err[NE_ERRSTR_LEN];
  ASSERT_EQ(ne_config_set(cfg, "run", "out", longv, "command line", err), NE_ERANGE);
  ASSERT_STR_EQ(err, "command line: [run] out: value longer than 192 characters (an INI line's limit)");
  longv[192] = '\0';
  ASSERT_EQ(ne_config_set(cfg, "run", "out", longv, NULL, NULL), 0);
  char* text = ne_config_format(cfg);
  ne_config* back = fresh();
  load_expect(back, text, "long.ini", 0);
  ASSERT_STR_EQ(ne_config_str(back, "run", "out"), longv);
  ne_free(text);
  ne_config_destroy(back);
  ne_config_destroy(cfg);
}

// 1 if every key of a and b holds the same value (by canonical text and typed value)
static int configs_equal(const ne_config* a, const ne_config* b) {
  const ne_config_key* schema = ne_config_schema();
  for (int i = 0; i < ne_config_schema_count(); i++) {
    const char *s = schema[i].section, *k = schema[i].key;
    switch (schema[i].type) {
      case NE_CFG_INT:
        if (ne_config_int(a, s, k) != ne_config_int(b, s, k)) return 0;
        break;
      case NE_CFG_FLOAT:
        if (memcmp(&(double){ne_config_float(a, s, k)}, &(double){ne_config_float(b, s, k)}, sizeof(double)) != 0)
          return 0;
        break;
      case NE_CFG_BOOL:
        if (ne_config_bool(a, s, k) != ne_config_bool(b, s, k)) return 0;
        break;
      case NE_CFG_INTLIST: {
        int la[32], lb[32];
        int na = ne_config_intlist(a, s, k, la, 32), nb = ne_config_intlist(b, s, k, lb, 32);
        if (na != nb || memcmp(la, lb, (size_t)na * sizeof(int)) != 0) return 0;
        break;
      }
      default:
        if (strcmp(ne_config_str(a, s, k), ne_config_str(b, s, k)) != 0) return 0;
    }
  }
  return 1;
}

static void test_format_round_trip(void) {
  ne_config* cfg = fresh();
  load_expect(cfg,
              "[run]\nseed = 123456789012345\nmax_seconds = 0.1\ntarget = 475.5\nout = /tmp/x y\n"
              "[env]\nid = LunarLander-v3\n[policy]\nhidden = 256, 128, 3\nactivation = relu\n"
              "[ga]\nsigma = 0.0033333333333333335\nelitism = no\npopulation = 1e4\n",
              "in.ini", 0);
  ASSERT_EQ(ne_config_set(cfg, "run", "max_seconds", "123.456789012345678", NULL, NULL), 0);
  char* text = ne_config_format(cfg);
  ASSERT(text != NULL);
  // every key of the shared sections and of this run's algorithm (ga) appears with its help
  // comment above it; sections of other algorithms are left out on purpose (they would not validate)
  const ne_config_key* schema = ne_config_schema();
  int n_sections;
  const ne__cfg_section* sections = ne__config_sections(&n_sections);
  for (int i = 0; i < ne_config_schema_count(); i++) {
    const char* owner = NULL;
    for (int s = 0; s < n_sections; s++)
      if (strcmp(sections[s].name, schema[i].section) == 0) owner = sections[s].algorithm;
    if (owner && strcmp(owner, "ga") != 0) {
      char header[64];
      snprintf(header, sizeof header, "\n[%s]\n", schema[i].section);
      ASSERT(strstr(text, header) == NULL);
      continue;
    }
    char line[256];
    snprintf(line, sizeof line, "\n%s = ", schema[i].key);
    ASSERT_CONTAINS(text, line);
    snprintf(line, sizeof line, "# %s  [", schema[i].help);
    ASSERT_CONTAINS(text, line);
  }
  ASSERT_CONTAINS(text, "\n[run]\n");
  ASSERT_CONTAINS(text, "hidden = 256,128,3\n");
  ASSERT_CONTAINS(text, "elitism = false\n");
  ASSERT_CONTAINS(text, "population = 10000\n");
  ASSERT_CONTAINS(text, "max_seconds = 123.45678901234568\n");
  ASSERT(strstr(text, "\n[run]\n") < strstr(text, "\n[env]\n"));
  ASSERT(strstr(text, "\n[policy]\n") < strstr(text, "\n[ga]\n"));
  // load it into a fresh config: identical values, all marked set, valid, and the same text again
  ne_config* back = fresh();
  load_expect(back, text, "resolved.ini", 0);
  ASSERT(configs_equal(cfg, back));
  ASSERT_EQ(ne_config_validate(back, NULL), 0);
  ASSERT_EQ(ne_config_is_set(back, "ga", "cache_mb"), 1);
  char* again = ne_config_format(back);
  ASSERT_STR_EQ(again, text);
  ne_free(again);
  ne_free(text);
  ne_config_destroy(back);
  ne_config_destroy(cfg);
}

// A resolved config written before a key existed lacks it: loading it gives the key's legacy value
// (the old behaviour, so an old run directory resumes as it started), written out explicitly from
// then on; a hand-written config that lacks the key gets the new default.
static void test_resolved_config_without_new_keys_keeps_old_behaviour(void) {
  const char* old = NE_CONFIG_RESOLVED_HEADER
      ": every key, defaults included\n[run]\nalgorithm = es\n"
      "[es]\npopulation = 20\n";
  ne_config* cfg = fresh();
  load_expect(cfg, old, "runs/x/config.ini", 0);
  ASSERT_STR_EQ(ne_config_str(cfg, "es", "noise"), "generator");
  ASSERT_EQ(ne_config_int(cfg, "es", "noise_table_mb"), 64);
  ASSERT_STR_EQ(ne_config_str(cfg, "policy", "tanh"), "double");
  ASSERT_EQ(ne_config_bool(cfg, "policy", "fma"), 0);
  ASSERT_EQ(ne_config_is_set(cfg, "es", "noise"), 1);
  ASSERT_EQ(ne_config_int(cfg, "es", "population"), 20);
  char* text = ne_config_format(cfg);
  ASSERT_CONTAINS(text, "\nnoise = generator\n");
  ne_free(text);
  ne_config_destroy(cfg);
  // the same keys without the header: a user's config, so the new defaults
  ne_config* user = fresh();
  load_expect(user, "[run]\nalgorithm = es\n[es]\npopulation = 20\n", "es.ini", 0);
  ASSERT_STR_EQ(ne_config_str(user, "es", "noise"), "table");
  ASSERT_STR_EQ(ne_config_str(user, "policy", "tanh"), "float");
  ASSERT_EQ(ne_config_bool(user, "policy", "fma"), 1);
  ASSERT_EQ(ne_config_int(user, "es", "noise_table_mb"), 0);
  ne_config_destroy(user);
  // a resolved config that has the key keeps what it says
  ne_config* both = fresh();
  load_expect(both, NE_CONFIG_RESOLVED_HEADER "\n[run]\nalgorithm = ars\n[ars]\nnoise_source = table\n", "r.ini", 0);
  ASSERT_STR_EQ(ne_config_str(both, "ars", "noise_source"), "table");
  ASSERT_EQ(ne_config_int(both, "ars", "noise_table_mb"), 64);
  ASSERT_EQ(ne_config_validate(both, NULL), 0);
  ne_config_destroy(both);
}

static void test_float_round_trip_exact(void) {
  const double values[] = {0.1, 1.0 / 3.0, 2.0 / 3.0 * 1e-7, 9.999999999999998, 1e-9, 5e-324 + 1e-9};
  for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
    char text[64];
    snprintf(text, sizeof text, "%.17g", values[i]);
    ne_config* cfg = fresh();
    ASSERT_EQ(ne_config_set(cfg, "ga", "sigma", text, NULL, NULL), 0);
    char* out = ne_config_format(cfg);
    ne_config* back = fresh();
    load_expect(back, out, "f.ini", 0);
    double a = ne_config_float(cfg, "ga", "sigma"), b = ne_config_float(back, "ga", "sigma");
    ASSERT(memcmp(&a, &b, sizeof a) == 0);
    ASSERT_EQ(a, values[i]);
    ne_free(out);
    ne_config_destroy(back);
    ne_config_destroy(cfg);
  }
}

static void test_write_file(void) {
  char dir[] = "/tmp/test_config_dir_XXXXXX";
  ASSERT(mkdtemp(dir) != NULL);
  char path[128];
  snprintf(path, sizeof path, "%s/config.ini", dir);
  ne_config* cfg = fresh();
  ASSERT_EQ(ne_config_set(cfg, "ga", "population", "64", "t", NULL), 0);
  char err[NE_ERRSTR_LEN] = "";
  ASSERT_EQ(ne_config_write_file(cfg, path, err), 0);
  ne_config* back = fresh();
  ASSERT_EQ(ne_config_load_file(back, path, err), 0);
  ASSERT(configs_equal(cfg, back));
  ne_config_destroy(back);
  ne_config_destroy(cfg);
  unlink(path);
  rmdir(dir);
}

static void test_clone_is_deep(void) {
  ne_config* cfg = fresh();
  load_expect(cfg, "[env]\nid = Pendulum-v1\n[ga]\npopulation = 30\n", "c.ini", 0);
  ne_config* copy = ne_config_clone(cfg);
  ASSERT(copy != NULL);
  ASSERT(configs_equal(cfg, copy));
  ASSERT_EQ(ne_config_is_set(copy, "ga", "population"), 1);
  // changing one leaves the other alone; origins are copied too
  ASSERT_EQ(ne_config_set(copy, "env", "id", "Acrobot-v1", NULL, NULL), 0);
  ASSERT_STR_EQ(ne_config_str(cfg, "env", "id"), "Pendulum-v1");
  ne_config_destroy(cfg);
  char err[NE_ERRSTR_LEN];
  ASSERT_EQ(ne_config_set(copy, "ga", "truncation", "31", "later", NULL), 0);
  ASSERT_EQ(ne_config_validate(copy, err), NE_EINVAL);
  ASSERT_CONTAINS(err, "population from c.ini:4");
  ne_config_destroy(copy);
  ASSERT(ne_config_clone(NULL) == NULL);
}

// Fails the n-th allocation for n = 0, 1, ... until fn succeeds: every failure must report NE_ENOMEM
// and leave no leak (ASan) and no change behind.
static void fault_loop(const char* what, int (*fn)(ne_config* cfg, char* err)) {
  for (long n = 0;; n++) {
    ne_config* cfg = fresh();
    char err[NE_ERRSTR_LEN] = "";
    ne_alloc_fail_after(n);
    int rc = fn(cfg, err);
    ne_alloc_fail_after(-1);
    if (rc == 0) {
      ASSERT_GT(n, 0);
      ne_config_destroy(cfg);
      fprintf(stderr, "  %s: %ld allocation failure points\n", what, n);
      return;
    }
    if (rc != NE_ENOMEM) TEST_FAIL("%s: failure at allocation %ld gave %d (%s)", what, n, rc, err);
    ASSERT_CONTAINS(err, "out of memory");
    ASSERT_EQ(ne_config_is_set(cfg, "ga", "population"), 0);
    ne_config_destroy(cfg);
  }
}

// `key = value  # comment` and `; comment` after a blank end the value, as INI users write them;
// '#' and ';' inside a word stay part of it
static void test_inline_comments(void) {
  ne_config* cfg = fresh();
  load_expect(cfg,
              "[ga]   # the algorithm's own section\nsigma = 0.05 # comment\npopulation = 50\t; another\n"
              "[run]\nout = runs#2 #where\ntarget = none;x\n[policy]\nhidden = 8,8  # two layers\n",
              "c.ini", 0);
  ASSERT_NEAR(ne_config_float(cfg, "ga", "sigma"), 0.05, 0);
  ASSERT_EQ(ne_config_int(cfg, "ga", "population"), 50);
  ASSERT_STR_EQ(ne_config_str(cfg, "run", "out"), "runs#2");
  ASSERT_STR_EQ(ne_config_str(cfg, "run", "target"), "none;x");
  ASSERT_EQ(ne_config_intlist(cfg, "policy", "hidden", NULL, 0), 2);
  // a text value with " #" could not be written back: refused like " ;"
  char err[NE_ERRSTR_LEN];
  ASSERT_EQ(ne_config_set(cfg, "run", "out", "a #b", "x", err), NE_EPARSE);
  ASSERT_CONTAINS(err, "' #'");
  ne_config_destroy(cfg);
  // a comment does not hide a bad value, and the line number is the value's
  expect_load_error("[ga]\nsigma = abc # comment\n", NE_EPARSE,
                    "cartpole.ini:2: [ga] sigma = 'abc': expected a number in [1e-09, 10]");
}

// a key set twice in one file is a mistake (the first would be silently lost): both lines named
static void test_duplicate_key_names_both_lines(void) {
  expect_load_error("[ga]\nsigma = 0.1\npopulation = 50\n\n[ga]\nsigma = 0.2\n", NE_EINVAL,
                    "cartpole.ini:6: [ga] sigma is set twice (first at cartpole.ini:2): remove one of the two lines");
  // a second file (or an override) setting the same key is layering, not a duplicate
  ne_config* cfg = fresh();
  load_expect(cfg, "[ga]\nsigma = 0.1\n", "a.ini", 0);
  load_expect(cfg, "[ga]\nsigma = 0.2\n", "b.ini", 0);
  ASSERT_NEAR(ne_config_float(cfg, "ga", "sigma"), 0.2, 0);
  ne_config_destroy(cfg);
}

// run.algorithm from an override switches algorithms: the file's sections for other algorithms are
// ignored with a note (back to their defaults), an override for another algorithm's section is not
static void test_algorithm_switch_by_override(void) {
  const char* es_file = "[run]\nalgorithm = es\nseed = 2\n[es]\nsigma = 0.05\npopulation = 10\n";
  ne_config* cfg = fresh();
  char err[NE_ERRSTR_LEN] = "";
  load_expect(cfg, es_file, "x.ini", 0);
  ASSERT_STR_EQ(ne_config_notes(cfg), "");
  ASSERT_EQ(ne_config_override(cfg, "run.algorithm=ga", "command line", err), 0);
  ASSERT_EQ(ne_config_validate(cfg, err), 0);
  ASSERT_STR_EQ(ne_config_notes(cfg), "command line: run.algorithm = ga: ignoring [es] (2 keys, first at x.ini:5)\n");
  ASSERT_EQ(ne_config_is_set(cfg, "es", "sigma"), 0);
  ASSERT_EQ(ne_config_int(cfg, "run", "seed"), 2);
  // the resolved config is a GA config that loads back as one
  char* text = ne_config_format(cfg);
  ASSERT(text != NULL);
  ASSERT(strstr(text, "\n[es]\n") == NULL);
  ASSERT(strstr(text, "\n[ga]\n") != NULL);
  ne_config* back = fresh();
  load_expect(back, text, "config.ini", 0);
  ASSERT_STR_EQ(ne_config_str(back, "run", "algorithm"), "ga");
  ASSERT_EQ(ne_config_validate(back, NULL), 0);
  ne_config_destroy(back);
  ne_free(text);
  // notes travel with clones
  ne_config* copy = ne_config_clone(cfg);
  ASSERT(copy != NULL);
  ASSERT_CONTAINS(ne_config_notes(copy), "ignoring [es]");
  ne_config_destroy(copy);
  ne_config_destroy(cfg);

  // asking for [es] values by override and for another algorithm is a conflict
  cfg = fresh();
  load_expect(cfg, es_file, "x.ini", 0);
  ASSERT_EQ(ne_config_override(cfg, "es.lr=0.1", "command line", err), 0);
  ASSERT_EQ(ne_config_override(cfg, "run.algorithm=ga", "command line", err), 0);
  ASSERT_EQ(ne_config_validate(cfg, err), NE_EINVAL);
  ASSERT_STR_EQ(
      err,
      "command line: section [es] configures algorithm 'es' (or ns-es, nsr-es, nsra-es), but run.algorithm = ga "
      "(remove [es] or set algorithm = es)");
  ne_config_destroy(cfg);

  // run.algorithm from the file itself: still an error, as before
  cfg = fresh();
  load_expect(cfg, "[run]\nalgorithm = ga\n[es]\nsigma = 0.05\n", "y.ini", 0);
  ASSERT_EQ(ne_config_validate(cfg, err), NE_EINVAL);
  ASSERT_CONTAINS(err, "y.ini:4: section [es]");
  ne_config_destroy(cfg);
}

static const char* fault_text = "[run]\nseed = 3\ntarget = none\n[policy]\nhidden = 8,8\n[ga]\npopulation = 40\n";
static const char* fault_path;

static int fault_load_string(ne_config* cfg, char* err) { return ne_config_load_string(cfg, fault_text, "f.ini", err); }
static int fault_load_file(ne_config* cfg, char* err) { return ne_config_load_file(cfg, fault_path, err); }
static int fault_override(ne_config* cfg, char* err) {
  return ne_config_override(cfg, "ga.population=12", "command line", err);
}
// create + format report OOM as NULL; turned into a code here for fault_loop
static int fault_format(ne_config* cfg, char* err) {
  (void)cfg;
  ne_config* src = ne_config_create();
  char* text = src ? ne_config_format(src) : NULL;
  ne_config_destroy(src);
  if (!text) {
    snprintf(err, NE_ERRSTR_LEN, "out of memory");
    return NE_ENOMEM;
  }
  ne_free(text);
  return 0;
}

static void test_allocation_failures(void) {
  fault_path = temp_file(fault_text);
  fault_loop("load_string", fault_load_string);
  fault_loop("load_file", fault_load_file);
  fault_loop("override", fault_override);
  // switching algorithms allocates the note and the defaults put back: whatever fails, nothing
  // leaks and the switch either happened or left an error
  for (long n = 0; n < 64; n++) {
    ne_config* cfg = fresh();
    char err[NE_ERRSTR_LEN] = "";
    ASSERT_EQ(ne_config_load_string(cfg, fault_text, "f.ini", err), 0);
    ne_alloc_fail_after(n);
    int rc = ne_config_override(cfg, "run.algorithm=es", "command line", err);
    ne_alloc_fail_after(-1);
    ASSERT(rc == 0 || rc == NE_ENOMEM);
    ne_config_destroy(cfg);
  }
  fault_loop("create+format", fault_format);
  unlink(fault_path);
  // create and clone return NULL on every failure point and leak nothing
  ne_config* base = fresh();
  ASSERT_EQ(ne_config_set(base, "run", "out", "somewhere", "x", NULL), 0);
  for (long n = 0; n < 200; n++) {
    ne_alloc_fail_after(n);
    ne_config* a = ne_config_create();
    ne_config* b = ne_config_clone(base);
    ne_alloc_fail_after(-1);
    ne_config_destroy(a);
    ne_config_destroy(b);
  }
  ne_config_destroy(base);
}

// the reference (`neuroevo config`, docs/configuration.md): every key of the schema has a row, a
// section alone is that section, '|' and '*' are escaped in cells, a legacy value is named, and an
// unknown section is an error naming the nearest one
static void test_reference(void) {
  char err[NE_ERRSTR_LEN] = "";
  char* all = ne_config_reference(NULL, err);
  ASSERT(all != NULL);
  const ne_config_key* keys = ne_config_schema();
  for (int i = 0; i < ne_config_schema_count(); i++) {
    char heading[64], row[96];
    snprintf(heading, sizeof heading, "\n## [%s]\n", keys[i].section);
    snprintf(row, sizeof row, "\n| `%s` | ", keys[i].key);
    const char* sec = strstr(all, heading);
    ASSERT(sec != NULL);
    const char* next = strstr(sec + 1, "\n## [");
    const char* at = strstr(sec, row);
    ASSERT(at != NULL && (!next || at < next));
  }
  ASSERT_CONTAINS(all, "| `algorithm` | one of ga, es, ars,");
  ASSERT_CONTAINS(all, "(bbob/\\*)");
  ASSERT_CONTAINS(all, "reads it as `generator`");
  ASSERT_CONTAINS(all, "`ga` with `ga.novelty = true`");
  ne_free(all);
  char* es = ne_config_reference("es", err);
  ASSERT(es != NULL);
  ASSERT(strncmp(es, "\n## [es]\n", 9) == 0);
  ASSERT(strstr(es, "## [ga]") == NULL);
  ne_free(es);
  ASSERT(ne_config_reference("ess", err) == NULL);
  ASSERT_CONTAINS(err, "no config section [ess] (did you mean [es]?)");
}
// writes text to dir/name
static void put_file(const char* dir, const char* name, const char* text) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE* f = fopen(path, "w");
  ASSERT(f);
  fputs(text, f);
  fclose(f);
}

static void test_base_chain_and_find(void) {
  char dir[] = "/tmp/test_config_base_XXXXXX", path[600], err[NE_ERRSTR_LEN];
  ASSERT(mkdtemp(dir));
  put_file(dir, "root.ini", "[run]\nalgorithm = es\ngenerations = 7\n[es]\nlr = 0.5\nsigma = 0.1\n");
  put_file(dir, "mid.ini", "[run]\nbase = root\nseed = 3\n[es]\nlr = 0.25\n");
  put_file(dir, "leaf.ini", "[es]\nsigma = 0.2\n[run]\nbase = mid.ini\n");
  put_file(dir, "loop.ini", "[run]\nbase = loop\n");
  put_file(dir, "missing.ini", "[run]\nbase = rooot\n");
  // leaf <- mid <- root: each file changes what it sets, wherever `base` stands in it
  ne_config* cfg = fresh();
  snprintf(path, sizeof path, "%s/leaf.ini", dir);
  ASSERT_EQ(ne_config_load_file(cfg, path, err), 0);
  ASSERT_STR_EQ(ne_config_str(cfg, "run", "algorithm"), "es");
  ASSERT_EQ(ne_config_int(cfg, "run", "generations"), 7);
  ASSERT_EQ(ne_config_int(cfg, "run", "seed"), 3);
  ASSERT_NEAR(ne_config_float(cfg, "es", "lr"), 0.25, 0);
  ASSERT_NEAR(ne_config_float(cfg, "es", "sigma"), 0.2, 0);
  ASSERT_STR_EQ(ne_config_text(cfg, "es", "sigma"), "0.2");
  ASSERT(ne_config_text(cfg, "es", "nope") == NULL);
  char want[2048];
  snprintf(want, sizeof want, "%s/root.ini\n%s/mid.ini\n%s/leaf.ini\n", dir, dir, dir);
  ASSERT_STR_EQ(ne_config_sources(cfg), want);
  // the resolved config holds every value and no base
  char* text = ne_config_format(cfg);
  ASSERT(text && !strstr(text, "base ="));
  ne_free(text);
  ne_config_destroy(cfg);
  // a cycle and a misspelt base are errors naming the file; the config stays as it was
  cfg = fresh();
  snprintf(path, sizeof path, "%s/loop.ini", dir);
  ASSERT_EQ(ne_config_load_file(cfg, path, err), NE_EINVAL);
  ASSERT_CONTAINS(err, "a cycle?");
  snprintf(path, sizeof path, "%s/missing.ini", dir);
  ASSERT_EQ(ne_config_load_file(cfg, path, err), NE_ENOTFOUND);
  ASSERT_CONTAINS(err, "did you mean 'root'?");
  ASSERT_STR_EQ(ne_config_sources(cfg), "");
  ne_config_destroy(cfg);
  // ne_config_find: next to `from` first, then the search path; near misses named
  snprintf(path, sizeof path, "%s/leaf.ini", dir);
  char found[600];
  ASSERT_EQ(ne_config_find("mid", path, found, sizeof found, err), 0);
  snprintf(want, sizeof want, "%s/mid.ini", dir);
  ASSERT_STR_EQ(found, want);
  ASSERT_EQ(ne_config_find("cartpole-ga", NULL, found, sizeof found, err), 0);
  ASSERT_EQ(ne_config_find("cartpol-ga", NULL, found, sizeof found, err), NE_ENOTFOUND);
  ASSERT_CONTAINS(err, "did you mean 'cartpole-ga'?");
  const char* names[] = {"root.ini", "mid.ini", "leaf.ini", "loop.ini", "missing.ini"};
  for (int i = 0; i < 5; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    unlink(path);
  }
  rmdir(dir);
}

static void test_write_file_names_overrides(void) {
  ne_config* cfg = fresh();
  char err[NE_ERRSTR_LEN], path[] = "/tmp/test_config_write_XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  ASSERT_EQ(ne_config_override(cfg, "ga.population=50", "command line", err), 0);
  ASSERT_EQ(ne_config_set(cfg, "run", "seed", "4", "compare", err), 0);
  ASSERT_EQ(ne_config_write_file(cfg, path, err), 0);
  char* text;
  ASSERT_EQ(ne__read_file(path, &text, NULL, err), 0);
  ASSERT_CONTAINS(text, "# set by command line: ga.population=50\npopulation = 50\n");
  ASSERT_CONTAINS(text, "# set by compare\nseed = 4\n");
  // the annotated file loads back to the same values; what it set is the file's own then
  ne_config* back = fresh();
  ASSERT_EQ(ne_config_load_file(back, path, err), 0);
  ASSERT_EQ(ne_config_int(back, "ga", "population"), 50);
  ne_free(text);
  ne_config_destroy(back);
  ne_config_destroy(cfg);
  unlink(path);
}

TEST_MAIN(TEST_ENTRY(test_defaults), TEST_ENTRY(test_schema_well_formed), TEST_ENTRY(test_two_line_config_is_complete),
          TEST_ENTRY(test_file_then_overrides), TEST_ENTRY(test_missing_file),
          TEST_ENTRY(test_unknown_key_names_file_line_and_suggestion), TEST_ENTRY(test_unknown_section),
          TEST_ENTRY(test_wrong_type_names_expected_form), TEST_ENTRY(test_syntax_and_long_lines),
          TEST_ENTRY(test_line_counting_and_layout), TEST_ENTRY(test_failed_load_changes_nothing),
          TEST_ENTRY(test_override_errors), TEST_ENTRY(test_validate_cross_keys), TEST_ENTRY(test_validate_target),
          TEST_ENTRY(test_validate_section_of_other_algorithm), TEST_ENTRY(test_shared_and_switched_sections),
          TEST_ENTRY(test_intlist_parsing), TEST_ENTRY(test_bool_spellings), TEST_ENTRY(test_numbers),
          TEST_ENTRY(test_format_round_trip), TEST_ENTRY(test_resolved_config_without_new_keys_keeps_old_behaviour),
          TEST_ENTRY(test_float_round_trip_exact), TEST_ENTRY(test_write_file), TEST_ENTRY(test_clone_is_deep),
          TEST_ENTRY(test_inline_comments), TEST_ENTRY(test_duplicate_key_names_both_lines),
          TEST_ENTRY(test_algorithm_switch_by_override), TEST_ENTRY(test_allocation_failures),
          TEST_ENTRY(test_reference), TEST_ENTRY(test_base_chain_and_find), TEST_ENTRY(test_write_file_names_overrides))
