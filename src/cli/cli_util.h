// SPDX-License-Identifier: MIT
// Helpers shared by the subcommands: the stop flag raised by SIGINT/SIGTERM, number parsing with
// clear messages, and finding a named config (configs/NAME.ini) or a path.
#ifndef NEUROEVO_CLI_UTIL_H
#define NEUROEVO_CLI_UTIL_H

#include <stddef.h>

#include "neuroevo/config.h"
#include "neuroevo/run.h"  // ne_run_origin

// Raised by the signal handler (to the signal's number); the library checks it between candidates
// and, in local evaluation, at every env step.
extern volatile int ne_cli_stop;

// Installs SIGINT/SIGTERM handlers that raise ne_cli_stop and print "neuroevo: WHAT (Ctrl-C again
// to abort at once)"; a second signal kills the process at once. `what` is copied.
void ne_cli_install_stop_handler(const char* what);

// The exit status after a stop request: 128 + the signal (130 for Ctrl-C, 143 for SIGTERM).
int ne_cli_stop_status(void);

// Parses a non-negative integer option value; prints "neuroevo CMD: OPTION expects ..." on error.
int ne_cli_parse_int(const char* cmd, const char* option, const char* text, long long min, long long max,
                     long long* out);

// Parses a number option value in [min, max] (NaN never is); prints "neuroevo CMD: OPTION expects
// UNIT in [MIN, MAX], got '...'" on error (UNIT e.g. "seconds"). 0, or 2 after the message.
int ne_cli_parse_double(const char* cmd, const char* option, const char* text, double min, double max, const char* unit,
                        double* out);

// Resolves CONFIG (a path, or a name: ne_config_find) into path; fills name with the config's base
// name. Prints the error (with the nearest config name) and returns 2 when not found.
int ne_cli_find_config(const char* config, char* path, size_t path_size, char* name, size_t name_size);

// 1 if arg looks like an override (`section.key=value`, a bare `key=value`, compare's
// `NAME:key=value`) rather than a config.
int ne_cli_is_override(const char* arg);

#define NE_CLI_MAX_TAGS 64

// A run's origin as the command line gives it (run.json, see runinfo.h): the whole command line and
// the --tag / --note options.
typedef struct ne_cli_origin {
  ne_run_origin origin;               // what ne_run_options.origin points at
  const char* tags[NE_CLI_MAX_TAGS];  // (origin.n_tags) --tag values
  char track[1100];                   // --track URL as the override "run.track=URL" ("": none)
} ne_cli_origin;

// The command line main() got (set there, before any command runs).
extern int ne_cli_argc;
extern char** ne_cli_argv;

// Fills o with the command line (ne_cli_argv) and no tags or note yet.
void ne_cli_origin_init(ne_cli_origin* o);

// Takes --tag T and --note TEXT: 1 when `option` was one of them (then *rc is 0, or 2 after an
// error message), 0 otherwise.
int ne_cli_origin_option(ne_cli_origin* o, const char* cmd, const char* option, const char* value, int* rc);

// Prints the config's notes (ne_config_notes: what the overrides made it ignore) on stderr.
void ne_cli_print_notes(const ne_config* cfg);

#endif
