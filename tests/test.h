// SPDX-License-Identifier: MIT
// A tiny test harness in the spirit of libuv's task.h: ASSERT macros that print both operands and
// the location, a list of test functions per executable, and `prog NAME` to run a single test.
// Each tests/test_*.c is its own ctest executable with a timeout, so one crash cannot hide others.
#ifndef NEUROEVO_TEST_H
#define NEUROEVO_TEST_H

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TEST_FAIL(...)                                              \
  do {                                                              \
    fprintf(stderr, "%s:%d: assertion failed: ", __FILE__, __LINE__); \
    fprintf(stderr, __VA_ARGS__);                                   \
    fprintf(stderr, "\n");                                          \
    exit(1);                                                        \
  } while (0)

#define ASSERT(cond) \
  do { if (!(cond)) TEST_FAIL("%s", #cond); } while (0)

#define ASSERT_INT_OP(a, op, b)                                                            \
  do {                                                                                     \
    long long a_ = (long long)(a), b_ = (long long)(b);                                    \
    if (!(a_ op b_)) TEST_FAIL("%s %s %s (%lld vs %lld)", #a, #op, #b, a_, b_);            \
  } while (0)
#define ASSERT_EQ(a, b) ASSERT_INT_OP(a, ==, b)
#define ASSERT_NE(a, b) ASSERT_INT_OP(a, !=, b)
#define ASSERT_LT(a, b) ASSERT_INT_OP(a, <, b)
#define ASSERT_LE(a, b) ASSERT_INT_OP(a, <=, b)
#define ASSERT_GT(a, b) ASSERT_INT_OP(a, >, b)
#define ASSERT_GE(a, b) ASSERT_INT_OP(a, >=, b)

#define ASSERT_U64_EQ(a, b)                                                                   \
  do {                                                                                        \
    uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b);                                          \
    if (a_ != b_) TEST_FAIL("%s == %s (%" PRIu64 " vs %" PRIu64 ")", #a, #b, a_, b_);         \
  } while (0)

#define ASSERT_NEAR(a, b, tol)                                                                \
  do {                                                                                        \
    double a_ = (double)(a), b_ = (double)(b), t_ = (double)(tol);                            \
    if (!(fabs(a_ - b_) <= t_)) TEST_FAIL("|%s - %s| <= %g (%.17g vs %.17g)", #a, #b, t_, a_, b_); \
  } while (0)

#define ASSERT_STR_EQ(a, b)                                                      \
  do {                                                                           \
    const char *a_ = (a), *b_ = (b);                                             \
    if (strcmp(a_, b_) != 0) TEST_FAIL("%s == %s (\"%s\" vs \"%s\")", #a, #b, a_, b_); \
  } while (0)

#define ASSERT_CONTAINS(hay, needle)                                                        \
  do {                                                                                      \
    const char *h_ = (hay), *n_ = (needle);                                                 \
    if (!strstr(h_, n_)) TEST_FAIL("\"%s\" contains \"%s\"", h_, n_);                        \
  } while (0)

typedef struct test_entry {
  const char* name;
  void (*fn)(void);
} test_entry;

#define TEST_ENTRY(fn) {#fn, fn}

// Runs every test in the list (or only argv[1]); a failing ASSERT exits non-zero at once.
static inline int test_main(int argc, char** argv, const test_entry* tests, int n) {
  int ran = 0;
  for (int i = 0; i < n; i++) {
    if (argc > 1 && strcmp(argv[1], tests[i].name) != 0) continue;
    fprintf(stderr, "[ RUN  ] %s\n", tests[i].name);
    tests[i].fn();
    fprintf(stderr, "[  OK  ] %s\n", tests[i].name);
    ran++;
  }
  if (ran == 0) {
    fprintf(stderr, "no test named %s\n", argc > 1 ? argv[1] : "(none)");
    return 1;
  }
  fprintf(stderr, "%d passed, 0 failed\n", ran);
  return 0;
}

#define TEST_MAIN(...)                                                  \
  int main(int argc, char** argv) {                                     \
    static const test_entry tests_[] = {__VA_ARGS__};                   \
    return test_main(argc, argv, tests_, (int)(sizeof tests_ / sizeof tests_[0])); \
  }

#endif
