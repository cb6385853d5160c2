// SPDX-License-Identifier: MIT
// Writing a run's record, RUN_DIR/run.json (runinfo.h describes it): what the runner says at a
// session's start and end, and the locked read-modify-write that `neuroevo tag` shares. Every write
// replaces the file atomically (temp, fsync, rename) under an exclusive lock on the run directory,
// so a tag added while the run ends is never lost. Internal to the run layer.
#ifndef NEUROEVO_RUN_RECORD_H
#define NEUROEVO_RUN_RECORD_H

#include <cjson/cJSON.h>
#include <stdint.h>

#include "neuroevo/config.h"
#include "neuroevo/run.h"

// The figures a session ends with (runner's counters).
typedef struct ne__record_result {
  uint32_t generations;  // completed
  uint64_t evaluations;  // so far
  uint64_t env_steps;    // so far
  double best;           // best row score so far (elite where the row has one, else best; f when minimized)
  double elite;          // the last row's elite (NaN: none)
  double wall_s;         // training seconds so far
  double cpu_s;          // this session's process CPU seconds
} ne__record_result;

// A session starts: a new run (resumed 0) gets its origin (command line, source config and its
// hash, overrides, the keys that differ from the source and the defaults, the build, the machine,
// study and arm, first tags and note), every session its start, process, host and executor, and
// the status "running".
// `name` is the config's name (ne_run_options.name; the MLflow experiment of a single run).
// Nullable: name, origin, executor, errstr.
int ne__record_start(const char* dir, const ne_config* cfg, const char* name, const ne_run_origin* origin, int resumed,
                     const char* executor, char* errstr);

// A session ends: status ("finished", "stopped", "failed"), the reason (or the error), the result
// and the executor as it ended (e.g. the Redis workers seen). Nullable: reason, executor, errstr.
int ne__record_end(const char* dir, const char* status, const char* reason, const ne__record_result* res,
                   const char* executor, char* errstr);

// The locked read-modify-write: locks dir, parses run.json (an empty object when it is missing or
// damaged), calls edit(user, record), writes the record back when edit returns 0, unlocks. Returns
// 0, edit's error, or NE_EIO / NE_ENOMEM (errstr).
int ne__record_update(const char* dir, int (*edit)(void* user, cJSON* record, char* errstr), void* user, char* errstr);

#endif
