// SPDX-License-Identifier: MIT
// MuJoCo's fatal errors and warnings routed into neuroevo. MuJoCo reports a fatal error (an arena
// overflow, a bad model) through the process-wide hook mju_user_error and exits the process when no
// handler is set; a returning handler would let it continue on a broken mjData. So every physics
// call of the family runs inside ne__mj_guard: a thread-local jmp_buf that the handler jumps back
// to, turning the error into NE_EPHYSICS with MuJoCo's message for that one reset or step.
//
// Why a longjmp is safe here: between the guard and the handler there are only MuJoCo's own frames
// (no locks, sockets or allocations of ours); MuJoCo's arena is reset with the mjData by the next
// mj_resetData, and env.c marks the state as needing a reset. Warnings (mju_user_warning) go to
// stderr, the first few per process only: mjData.warning counts them all.
#include <pthread.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "envs/mujoco/mujoco_int.h"
#include "neuroevo/error.h"

#define MAX_WARNINGS_PRINTED 3

// this thread's active guard: where the error handler jumps and where it copies the message
typedef struct guard {
  jmp_buf jb;   // setjmp'd by ne__mj_guard
  char* msg;    // (size) caller's buffer for MuJoCo's text
  size_t size;  // its size
} guard;

static _Thread_local guard* active;       // NULL outside ne__mj_guard
static void (*outer_error)(const char*);  // the handler the embedding program had set, if any
static pthread_once_t install_once = PTHREAD_ONCE_INIT;
// atomics: MuJoCo calls the warning handler from any thread, and from inside mj_loadXML
static atomic_int loading;           // > 0 while models load
static atomic_int warnings_printed;  // MuJoCo warnings printed so far

// mju_user_error: back to this thread's guard; outside one, the embedding program's handler, else
// MuJoCo's own behaviour (print and end the process), as nothing can continue on broken physics
static void on_error(const char* msg) {
  guard* g = active;
  if (g) {
    snprintf(g->msg, g->size, "%s", msg);
    longjmp(g->jb, 1);
  }
  if (outer_error) {
    outer_error(msg);
    return;
  }
  fprintf(stderr, "neuroevo: MuJoCo fatal error outside an env call: %s\n", msg);
  abort();
}

// mju_user_warning: MuJoCo's default appends to MUJOCO_LOG.TXT in the working directory; the first
// few go to stderr instead. Warnings while loading are about Gymnasium's XML (a deprecated
// attribute), not the user's run
static void on_warning(const char* msg) {
  if (atomic_load(&loading) > 0) return;
  if (atomic_fetch_add(&warnings_printed, 1) < MAX_WARNINGS_PRINTED)
    fprintf(stderr, "neuroevo: MuJoCo warning: %s\n", msg);
}

// once per process; a warning handler the embedding program set is kept
static void install(void) {
  outer_error = mju_user_error;
  mju_user_error = on_error;
  if (!mju_user_warning) mju_user_warning = on_warning;
}

void ne__mj_handlers_install(void) { pthread_once(&install_once, install); }

void ne__mj_loading(int on) { atomic_fetch_add(&loading, on ? 1 : -1); }

int ne__mj_guard(void (*fn)(void* arg), void* arg, char* msg, size_t size) {
  ne__mj_handlers_install();
  guard g;
  g.msg = msg;
  g.size = size;
  // volatile: read again after the longjmp
  guard* volatile outer = active;
  if (setjmp(g.jb)) {
    active = outer;
    return NE_EPHYSICS;
  }
  active = &g;
  fn(arg);
  active = outer;
  return 0;
}

// raises a MuJoCo error inside a guard (tests: the handler without provoking the engine)
static void raise_error(void* text) { mju_error("%s", (const char*)text); }

int ne__mj_guard_selftest(const char* text, char* msg, size_t size) {
  return ne__mj_guard(raise_error, (void*)text, msg, size);
}
