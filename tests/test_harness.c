// SPDX-License-Identifier: MIT
// The test harness itself (test.h): ASSERT_EQ & co. fail when they should and print both operands in
// the operands' own type (doubles as doubles, 64-bit unsigned as unsigned, pointers as pointers).
// Each failing assertion runs in a forked child, whose exit status and stderr are checked here.
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"

// Runs fn in a child; returns its exit status and copies what it wrote to stderr into msg.
static int run_child(void (*fn)(void), char* msg, size_t size) {
  int fd[2];
  ASSERT_EQ(pipe(fd), 0);
  fflush(stderr);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    dup2(fd[1], 2);
    close(fd[0]);
    fn();
    _exit(0);
  }
  close(fd[1]);
  size_t used = 0;
  ssize_t got;
  while (used + 1 < size && (got = read(fd[0], msg + used, size - 1 - used)) > 0) used += (size_t)got;
  msg[used] = '\0';
  close(fd[0]);
  int status;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void double_vs_int(void) { ASSERT_EQ(0.7, 0); }
static void close_doubles(void) {
  double a = 0.1 + 0.2;
  ASSERT_EQ(a, 0.3);
}
static void u64_above_int64(void) {
  uint64_t big = UINT64_MAX;
  ASSERT_LT(big, (uint64_t)1);
}
static void negative_ints(void) { ASSERT_GT(-3, -2); }
static void pointers(void) {
  int x[2] = {0, 0};
  ASSERT_EQ(&x[0], &x[1]);
}
static void float_le(void) {
  float f = 1.5f;
  ASSERT_LE(f, 1);
}
static void passing_mix(void) {
  ASSERT_EQ(0.5, 0.5f);
  ASSERT_EQ((size_t)3, 3);
  ASSERT_LT(-1, 0u);  // compared as long long, not converted to unsigned
  ASSERT_EQ((void*)NULL, NULL);
  ASSERT_NE(1.0, 1.0 + 1e-15);
}

static void check(void (*fn)(void), int want_rc, const char* want_text) {
  char msg[1024];
  int rc = run_child(fn, msg, sizeof msg);
  ASSERT_EQ(rc, want_rc);
  if (want_text) ASSERT_CONTAINS(msg, want_text);
}

static void comparisons_keep_the_operands_types(void) {
  check(double_vs_int, 1, "0.7 == 0 (0.69999999999999996 vs 0)");
  check(close_doubles, 1, "a == 0.3 (0.30000000000000004 vs 0.29999999999999999)");
  check(u64_above_int64, 1, "(18446744073709551615 vs 1)");
  check(negative_ints, 1, "-3 > -2 (-3 vs -2)");
  check(pointers, 1, "&x[0] == &x[1] (0x");
  check(float_le, 1, "f <= 1 (1.5 vs 1)");
  check(passing_mix, 0, NULL);
}

TEST_MAIN(TEST_ENTRY(comparisons_keep_the_operands_types))
