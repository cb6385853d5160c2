// SPDX-License-Identifier: MIT
// The pieces the report and the dashboard are built from: HTML/JSON escaping and base64 against
// known values, the INI key scan, metrics.csv reading (torn last line, column order), ETA and
// throughput, and the SVG chart's point counts and thinning.
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/time.h>  // utimes: an old metrics.csv
#include <time.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/util.h"
#include "report/html.h"
#include "report/rundata.h"
#include "report/svgchart.h"
#include "test.h"

// b's text (NUL-terminated in place)
static const char* text(ne_buf* b) {
  ne__html_terminate(b);
  ASSERT(!b->oom);
  return (const char*)b->data;
}

static void test_escaping_and_base64_known_values(void) {
  ne_buf b;
  ne__buf_init(&b);
  ne__html_text(&b, "a<b>&\"c'");
  ASSERT_STR_EQ(text(&b), "a&lt;b&gt;&amp;&quot;c&#39;");
  b.len = 0;
  ne__html_json_str(&b, "q\"\\\n\x01");
  ASSERT_STR_EQ(text(&b), "\"q\\\"\\\\\\n\\u0001\"");
  // RFC 4648 test vectors
  const char* in[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
  const char* out[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
  for (int i = 0; i < 7; i++) {
    b.len = 0;
    ne__html_base64(&b, in[i], strlen(in[i]));
    ASSERT_STR_EQ(text(&b), out[i]);
  }
  // a long formatted append goes through the heap path
  b.len = 0;
  ne__html_printf(&b, "%0900d", 7);
  ASSERT_EQ(strlen(text(&b)), 900);
  ne__buf_free(&b);
}

static void test_ini_get_sections_and_comments(void) {
  const char* ini =
      "# c\n[run]\nalgorithm = ga\ngenerations = 5 ; inline\n\n[env]\nid = CartPole-v1\n"
      "idx = no\n";
  char v[64];
  ASSERT_EQ(ne__ini_get(ini, "run", "algorithm", v, sizeof v), 0);
  ASSERT_STR_EQ(v, "ga");
  ASSERT_EQ(ne__ini_get(ini, "run", "generations", v, sizeof v), 0);
  ASSERT_STR_EQ(v, "5");
  ASSERT_EQ(ne__ini_get(ini, "env", "id", v, sizeof v), 0);
  ASSERT_STR_EQ(v, "CartPole-v1");
  ASSERT_NE(ne__ini_get(ini, "env", "algorithm", v, sizeof v), 0);  // wrong section
  ASSERT_NE(ne__ini_get(ini, "run", "gen", v, sizeof v), 0);        // a prefix is not a key
}

// A run directory with config.ini and n metrics rows (plus a torn row), 10 s per generation.
static void make_run(char* dir, size_t size, int n) {
  snprintf(dir, size, "/tmp/ne_report_XXXXXX");
  ASSERT(mkdtemp(dir) != NULL);
  char path[256];
  snprintf(path, sizeof path, "%s/config.ini", dir);
  const char* cfg = "[run]\nalgorithm = es\ngenerations = 100\n[env]\nid = Pendulum-v1\n";
  ASSERT_EQ(ne__write_file_atomic(path, cfg, strlen(cfg), NULL), 0);
  ne_buf b;
  ne__buf_init(&b);
  // columns in another order than the runner writes them: read by name
  ne__html_puts(&b, "generation,wall_s,evaluations,env_steps,best,mean,median,elite_mean\n");
  for (int g = 0; g < n; g++)
    ne__html_printf(&b, "%d,%d,%d,%d,%d,%d,%d,%s\n", g, 10 * (g + 1), 50 * (g + 1), 1000 * (g + 1), g, g - 1, g - 2,
                    g % 2 ? "nan" : "5");
  ne__html_puts(&b, "999,1");  // torn: the runner was mid-write
  snprintf(path, sizeof path, "%s/metrics.csv", dir);
  ASSERT_EQ(ne__write_file_atomic(path, b.data, b.len, NULL), 0);
  ne__buf_free(&b);
}

static void remove_run(const char* dir) {
  char path[256];
  snprintf(path, sizeof path, "%s/config.ini", dir);
  unlink(path);
  snprintf(path, sizeof path, "%s/metrics.csv", dir);
  unlink(path);
  rmdir(dir);
}

static void test_rundata_reads_metrics_eta_and_rate(void) {
  char dir[64];
  make_run(dir, sizeof dir, 20);
  ne__rundata d;
  ASSERT_EQ(ne__rundata_load(dir, &d, NULL), 0);
  ASSERT_EQ(d.n_rows, 20);  // the torn row is not read
  ASSERT_STR_EQ(d.env, "Pendulum-v1");
  ASSERT_STR_EQ(d.algorithm, "es");
  ASSERT_EQ(d.max_generations, 100);
  ASSERT_NEAR(ne__rundata_at(&d, 3, NE__RD_EVALS), 200, 0);
  ASSERT_NEAR(ne__rundata_at(&d, 3, NE__RD_WALL), 40, 0);
  ASSERT(isnan(ne__rundata_at(&d, 3, NE__RD_ELITE)));
  // 10 s per generation, 80 generations left; 5 evaluations and 100 steps per second
  ASSERT_NEAR(ne__rundata_eta(&d), 800, 1e-9);
  double e, s;
  ne__rundata_rate(&d, &e, &s);
  ASSERT_NEAR(e, 5, 1e-12);
  ASSERT_NEAR(s, 100, 1e-12);
  ASSERT_STR_EQ(d.state, "starting");  // no log.txt yet
  ne__rundata_free(&d);
  // the log says running; metrics untouched for an hour: the process is gone
  char path[256];
  snprintf(path, sizeof path, "%s/log.txt", dir);
  ASSERT_EQ(ne__write_file_atomic(path, "gen     0  evals ...\n", 21, NULL), 0);
  ASSERT_EQ(ne__rundata_load(dir, &d, NULL), 0);
  ASSERT_STR_EQ(d.state, "running");
  ne__rundata_free(&d);
  snprintf(path, sizeof path, "%s/metrics.csv", dir);
  struct timeval old[2] = {{time(NULL) - 3600, 0}, {time(NULL) - 3600, 0}};
  ASSERT_EQ(utimes(path, old), 0);
  ASSERT_EQ(ne__rundata_load(dir, &d, NULL), 0);
  ASSERT_STR_EQ(d.state, "killed");
  ne__rundata_free(&d);
  snprintf(path, sizeof path, "%s/log.txt", dir);
  unlink(path);
  remove_run(dir);
  ASSERT_EQ(ne__rundata_load("/nonexistent/run", &d, NULL), NE_ENOTFOUND);
}

// count of occurrences of needle in hay
static int count(const char* hay, const char* needle) {
  int n = 0;
  for (const char* p = strstr(hay, needle); p; p = strstr(p + 1, needle)) n++;
  return n;
}

static void test_svg_counts_points_and_thins_long_runs(void) {
  char dir[64];
  make_run(dir, sizeof dir, 2000);
  ne__rundata d;
  ASSERT_EQ(ne__rundata_load(dir, &d, NULL), 0);
  ne_buf b;
  ne__buf_init(&b);
  ne__svg_curves(&b, &d, 1, "generation", 600, 300);
  const char* svg = text(&b);
  ASSERT_CONTAINS(svg, "data-points=\"2000\"");
  ASSERT_EQ(count(svg, "<polyline"), 3);  // elite, best, mean
  // best: every 3rd row of 2000 plus the last, at most 800 vertices; elite: only its finite rows
  ASSERT_CONTAINS(svg, "class=\"best\" data-n=\"668\"");
  ASSERT_CONTAINS(svg, "class=\"elite\" data-n=\"334\"");
  // an empty chart says why
  b.len = 0;
  d.n_rows = 0;
  ne__svg_curves(&b, &d, 1, "env_steps", 600, 300);
  ASSERT_CONTAINS(text(&b), "waiting for the first generation");
  ASSERT(ne__svg_valid_x("wall_s") && !ne__svg_valid_x("best"));
  ne__buf_free(&b);
  ne__rundata_free(&d);
  remove_run(dir);
}

TEST_MAIN(TEST_ENTRY(test_escaping_and_base64_known_values), TEST_ENTRY(test_ini_get_sections_and_comments),
          TEST_ENTRY(test_rundata_reads_metrics_eta_and_rate), TEST_ENTRY(test_svg_counts_points_and_thins_long_runs))
