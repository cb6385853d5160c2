// SPDX-License-Identifier: MIT
// The `--redis URL` plumbing that `run` and `resume` share (implemented in cli_redis.c): option
// parsing, creating the Redis master executor before the run, remembering the experiment id in the
// run directory (redis.id, so `resume --redis` continues the same experiment), and finishing it.
// Every function is a no-op when --redis was not given.
#ifndef NEUROEVO_CLI_REDIS_H
#define NEUROEVO_CLI_REDIS_H

#include "neuroevo/config.h"
#include "neuroevo/executor.h"

// Takes --redis URL, --task-timeout S, --join-timeout S and --chunk N. Returns 1 if `option` is one of them (then
// *rc is 0, or 2 after printing a message about a bad value), 0 otherwise.
int ne_cli_redis_option(const char* cmd, const char* option, const char* value, int* rc);

// 1 when --redis was given.
int ne_cli_redis_wanted(void);

// Creates the master executor for cfg when --redis was given (*out = NULL otherwise). With run_dir
// (resume), the experiment id stored there is continued. Returns an exit code (0, 1 or 2) after
// printing the reason. Nullable: name, run_dir.
int ne_cli_redis_attach(const ne_config* cfg, const char* name, const char* run_dir, ne_executor** out);

// Like ne_cli_redis_attach for `resume`: the config is run_dir/config.ini.
int ne_cli_redis_attach_dir(const char* run_dir, ne_executor** out);

// Writes the experiment id into run_dir/redis.id. Returns an exit code. Nullable: ex (no-op).
int ne_cli_redis_bind(ne_executor* ex, const char* run_dir);

// After an interrupted run (--redis): says what the experiment keeps in Redis and how to continue
// (stderr when quiet, else stdout). No-op without --redis.
void ne_cli_redis_say_kept(const char* run_dir, int quiet);

// After the run: a completed run (exit_code 0) marks the experiment finished in Redis; an
// interrupted one keeps it for resume. Frees ex. Nullable: ex.
void ne_cli_redis_detach(ne_executor* ex, int exit_code);

#endif
