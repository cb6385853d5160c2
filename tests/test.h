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

#define TEST_FAIL(...)                                                \
  do {                                                                \
    fprintf(stderr, "%s:%d: assertion failed: ", __FILE__, __LINE__); \
    fprintf(stderr, __VA_ARGS__);                                     \
    fprintf(stderr, "\n");                                            \
    exit(1);                                                          \
  } while (0)

#define ASSERT(cond)                     \
  do {                                   \
    if (!(cond)) TEST_FAIL("%s", #cond); \
  } while (0)

// ASSERT_EQ & co. compare and print by the operands' types (C11 _Generic picks the converter):
// floating point as double (all 17 digits printed), 64-bit unsigned integers (uint64_t, size_t) as
// unsigned long long, other integers and enums as long long, pointers as pointers. The wider kind of
// the two operands wins, so doubles stay doubles: ASSERT_EQ(0.7, 0) fails. Each operand is
// evaluated once.
typedef struct test_val_ {
  int kind;              // 0 signed integer, 1 unsigned 64-bit, 2 floating point, 3 pointer
  long long i;           // kind 0 (integers fill i, u and d)
  unsigned long long u;  // kind 1
  double d;              // kind 2 (floating point fills only d: no NaN-to-integer conversion)
  const void* p;         // kind 3
} test_val_;
static inline test_val_ test_int_(long long x) { return (test_val_){0, x, (unsigned long long)x, (double)x, NULL}; }
static inline test_val_ test_u64_(unsigned long long x) { return (test_val_){1, (long long)x, x, (double)x, NULL}; }
static inline test_val_ test_dbl_(long double x) { return (test_val_){2, 0, 0, (double)x, NULL}; }
static inline test_val_ test_ptr_(const volatile void* x) { return (test_val_){3, 0, 0, 0, (const void*)x}; }
// clang-format off
#define TEST_VAL_(x)                                                                                             \
  _Generic((x), float: test_dbl_, double: test_dbl_, long double: test_dbl_, unsigned long: test_u64_,          \
           unsigned long long: test_u64_, _Bool: test_int_, char: test_int_, signed char: test_int_,            \
           unsigned char: test_int_, short: test_int_, unsigned short: test_int_, int: test_int_,               \
           unsigned int: test_int_, long: test_int_, long long: test_int_, default: test_ptr_)(x)
// clang-format on
#define ASSERT_OP_(a, op, b)                                                                         \
  do {                                                                                               \
    test_val_ a_ = TEST_VAL_(a), b_ = TEST_VAL_(b);                                                  \
    int k_ = a_.kind > b_.kind ? a_.kind : b_.kind;                                                  \
    if (k_ == 3 && !(a_.p op b_.p)) TEST_FAIL("%s %s %s (%p vs %p)", #a, #op, #b, a_.p, b_.p);       \
    if (k_ == 2 && !(a_.d op b_.d)) TEST_FAIL("%s %s %s (%.17g vs %.17g)", #a, #op, #b, a_.d, b_.d); \
    if (k_ == 1 && !(a_.u op b_.u)) TEST_FAIL("%s %s %s (%llu vs %llu)", #a, #op, #b, a_.u, b_.u);   \
    if (k_ == 0 && !(a_.i op b_.i)) TEST_FAIL("%s %s %s (%lld vs %lld)", #a, #op, #b, a_.i, b_.i);   \
  } while (0)
#define ASSERT_EQ(a, b) ASSERT_OP_(a, ==, b)
#define ASSERT_NE(a, b) ASSERT_OP_(a, !=, b)
#define ASSERT_LT(a, b) ASSERT_OP_(a, <, b)
#define ASSERT_LE(a, b) ASSERT_OP_(a, <=, b)
#define ASSERT_GT(a, b) ASSERT_OP_(a, >, b)
#define ASSERT_GE(a, b) ASSERT_OP_(a, >=, b)

#define ASSERT_U64_EQ(a, b)                                                           \
  do {                                                                                \
    uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b);                                  \
    if (a_ != b_) TEST_FAIL("%s == %s (%" PRIu64 " vs %" PRIu64 ")", #a, #b, a_, b_); \
  } while (0)

#define ASSERT_NEAR(a, b, tol)                                                                     \
  do {                                                                                             \
    double a_ = (double)(a), b_ = (double)(b), t_ = (double)(tol);                                 \
    if (!(fabs(a_ - b_) <= t_)) TEST_FAIL("|%s - %s| <= %g (%.17g vs %.17g)", #a, #b, t_, a_, b_); \
  } while (0)

#define ASSERT_STR_EQ(a, b)                                                            \
  do {                                                                                 \
    const char *a_ = (a), *b_ = (b);                                                   \
    if (strcmp(a_, b_) != 0) TEST_FAIL("%s == %s (\"%s\" vs \"%s\")", #a, #b, a_, b_); \
  } while (0)

#define ASSERT_CONTAINS(hay, needle)                                  \
  do {                                                                \
    const char *h_ = (hay), *n_ = (needle);                           \
    if (!strstr(h_, n_)) TEST_FAIL("\"%s\" contains \"%s\"", h_, n_); \
  } while (0)

typedef struct test_entry {
  const char* name;
  void (*fn)(void);
} test_entry;

#define TEST_ENTRY(fn) \
  { #fn, fn }

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

#define TEST_MAIN(...)                                                             \
  int main(int argc, char** argv) {                                                \
    static const test_entry tests_[] = {__VA_ARGS__};                              \
    return test_main(argc, argv, tests_, (int)(sizeof tests_ / sizeof tests_[0])); \
  }

#endif
