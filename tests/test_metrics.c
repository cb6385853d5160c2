// SPDX-License-Identifier: MIT
// The metrics.csv reader every consumer shares: columns by name in any order, extra and missing
// columns, a torn last line, the `minimized` flag, and the tail reader against the whole-file
// reader on a file far longer than its window.
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "neuroevo/error.h"
#include "neuroevo/metrics.h"
#include "test.h"

static char dir[256];

// writes text as dir/metrics.csv
static void write_metrics(const char* text) {
  char path[300];
  snprintf(path, sizeof path, "%s/metrics.csv", dir);
  FILE* f = fopen(path, "w");
  ASSERT(f);
  fputs(text, f);
  fclose(f);
}

static void make_dir(void) {
  snprintf(dir, sizeof dir, "test_metrics.%d", (int)getpid());
  mkdir(dir, 0755);
}

static void remove_dir(void) {
  char path[300];
  snprintf(path, sizeof path, "%s/metrics.csv", dir);
  unlink(path);
  rmdir(dir);
}

static void test_columns_by_name_torn_line_and_flags(void) {
  make_dir();
  // another order, an unknown column, a black-box run's flag, a torn last line
  write_metrics(
      "wall_s,generation,extra,best,env_steps,minimized\n"
      "0.5,0,x,3.25,100,1\n"
      "1.0,1,y,nan,200,1\n"
      "1.5,2,z,2.0,3");
  ne_metrics m;
  char err[256];
  ASSERT_EQ(ne_metrics_read(dir, &m, err), 0);
  ASSERT_EQ(m.n_rows, 2);
  ASSERT_EQ(m.minimized, 1);
  ASSERT_EQ(m.has[NE_M_WALL] + m.has[NE_M_GEN] + m.has[NE_M_BEST] + m.has[NE_M_STEPS], 4);
  ASSERT_EQ(m.has[NE_M_ELITE], 0);
  ASSERT_EQ(ne_metrics_at(&m, 0, NE_M_BEST), 3.25);
  ASSERT_EQ(ne_metrics_at(&m, 1, NE_M_STEPS), 200.0);
  ASSERT(isnan(ne_metrics_at(&m, 1, NE_M_BEST)));   // "nan" reads as missing
  ASSERT(isnan(ne_metrics_at(&m, 0, NE_M_ELITE)));  // an absent column too
  ne_metrics_free(&m);
  // the tail reader sees the same last complete row
  double row[NE_M_COLS];
  int minimized = 0;
  ASSERT_EQ(ne_metrics_last(dir, row, &minimized, err), 1);
  ASSERT_EQ(row[NE_M_GEN], 1.0);
  ASSERT_EQ(minimized, 1);
  // a header alone: no rows, no error
  write_metrics("generation,evaluations,env_steps,wall_s,best,mean,median,elite_mean\n");
  ASSERT_EQ(ne_metrics_read(dir, &m, err), 0);
  ASSERT_EQ(m.n_rows, 0);
  ASSERT_EQ(m.header, 1);
  ne_metrics_free(&m);
  ASSERT_EQ(ne_metrics_last(dir, row, NULL, err), 0);
  remove_dir();
  ASSERT_EQ(ne_metrics_read(dir, &m, err), NE_ENOTFOUND);
  ASSERT_CONTAINS(err, "metrics.csv");
}

static void test_tail_matches_whole_file(void) {
  make_dir();
  // 2000 rows (~90 KiB): far more than the tail's window
  char path[300];
  snprintf(path, sizeof path, "%s/metrics.csv", dir);
  FILE* f = fopen(path, "w");
  ASSERT(f);
  fputs("generation,evaluations,env_steps,wall_s,best,mean,median,elite_mean\n", f);
  for (int g = 0; g < 2000; g++)
    fprintf(f, "%d,%d,%d,%.3f,%.6g,%.6g,%.6g,%.6g\n", g, 10 * g, 1000 * g, 0.01 * g, g * 0.5, g * 0.25, g * 0.2,
            g * 0.4);
  fputs("2000,20000,20", f);  // torn
  fclose(f);
  ne_metrics m;
  ASSERT_EQ(ne_metrics_read(dir, &m, NULL), 0);
  ASSERT_EQ(m.n_rows, 2000);
  double row[NE_M_COLS];
  ASSERT_EQ(ne_metrics_last(dir, row, NULL, NULL), 1);
  for (int c = 0; c < NE_M_PRE; c++) ASSERT_EQ(row[c], ne_metrics_at(&m, 1999, (ne_metrics_col)c));
  ne_metrics_free(&m);
  remove_dir();
}

TEST_MAIN(TEST_ENTRY(test_columns_by_name_torn_line_and_flags), TEST_ENTRY(test_tail_matches_whole_file))
