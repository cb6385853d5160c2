// SPDX-License-Identifier: MIT
// A run directory's record, RUN_DIR/run.json: where the run came from (command line, source config
// and its hash, overrides, the keys that differ from the source config and from the defaults),
// what ran it (neuroevo's version, commit and build, SIMD level, host, CPU, threads or Redis
// workers), when (created, each session's start and end), how it went (status, reason or error,
// generations, env steps, best and elite scores, wall and CPU time), and the user's tags and note.
// The runner writes it atomically at each session's start and end; `neuroevo tag` edits the tags
// and note. A run whose record says "running" while its process is gone (killed, machine lost)
// reads as "killed".
//
// This header reads records: one run (ne_runinfo_load), every run under some directories
// (ne_runinfo_scan: study directories included, at any depth), and fields by name for listings
// (`neuroevo runs`). The run directory is the record: nothing is indexed elsewhere, and a run made
// before run.json existed still reads from its config.ini, metrics.csv and log.txt.
#ifndef NEUROEVO_RUNINFO_H
#define NEUROEVO_RUNINFO_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// The format of run.json this build writes (its "format" field).
#define NE_RUNINFO_FORMAT 1

// One run as a listing shows it. Strings are "" when unknown; numbers NaN (or 0 for counts).
typedef struct ne_runinfo {
  char dir[4096];       // the run directory as found
  char name[256];       // the config's name (a study's arm), else the directory's base name
  char status[16];      // running, finished, stopped, failed, killed (running, process gone), unknown
  char reason[256];     // why it ended ("generation budget reached"), or its error when failed
  char env[128];        // [env] id
  char algorithm[32];   // [run] algorithm
  char study[1024];     // the study (compare) directory, for a run of one
  char arm[256];        // its arm
  int seed;             // run.seed
  char created[32];     // first start, ISO 8601 UTC
  char ended[32];       // end of the last session ("" while running)
  char host[128];       // where the last session ran
  char commit[64];      // neuroevo's commit
  char tags[1024];      // comma-separated
  char note[1024];      // free text
  int64_t generations;  // generations completed (metrics.csv)
  double evaluations;   // evaluations so far
  double env_steps;     // env steps so far
  double best;          // best score of any generation (f for minimized runs: lowest)
  double elite;         // the last generation's elite / mean evaluation (NaN: none)
  double wall_s;        // training seconds
  double cpu_s;         // process CPU seconds of the sessions recorded
  int minimized;        // 1: scores are f values (bbob/*), lower is better
  int has_record;       // 1: run.json exists (0: an older run, read from its other files)
  char* record;         // run.json's text, or NULL (owned)
  char* config;         // config.ini's text, or NULL (owned)
} ne_runinfo;

// 1 if dir is a run directory (run.json or config.ini in it).
int ne_runinfo_is_run(const char* dir);

// Reads dir's record into out (free with ne_runinfo_free): run.json (when there), the last row of
// metrics.csv, and config.ini for what run.json lacks. Errors: NE_ENOTFOUND (not a run
// directory), NE_ENOMEM; an unreadable or damaged run.json is read around (has_record = 0).
// Nullable: errstr.
int ne_runinfo_load(const char* dir, ne_runinfo* out, char* errstr);

// Frees the texts. Nullable: r.
void ne_runinfo_free(ne_runinfo* r);

// A field by name, as text into out (size bytes): the struct's fields by their names above
// ("status", "env", "best", "tags", ...), a dotted path into run.json ("neuroevo.commit",
// "config.source", "machine.cpu"), or a config key as `section.key` from config.ini
// ("es.lr"). Returns 0, or -1 when the run has no such field (out = "").
int ne_runinfo_field(const ne_runinfo* r, const char* name, char* out, size_t size);

// Calls fn(user, dir) for every run directory under each path (a run directory itself, or any
// directory that holds runs at any depth: a runs/ folder, a study, an arm), in name order within
// a directory; a run's own subdirectories are not searched. fn returning non-zero stops the scan
// with that value. Returns 0, fn's value, or NE_ENOTFOUND when a path does not exist (errstr
// names it). Nullable: errstr.
int ne_runinfo_scan(const char* const* paths, int n, int (*fn)(void* user, const char* dir), void* user, char* errstr);

// Adds tags (n_add) to, and removes tags (n_remove) from, dir's run.json, and replaces its note
// when note is not NULL ("" clears it); a run without run.json gets one holding these. Atomic,
// and safe against the runner writing the record at the same moment (both lock the directory).
// Errors: NE_ENOTFOUND (not a run directory), NE_EINVAL (a tag with a comma or blank), NE_EIO.
// Nullable: add, remove, note, errstr.
int ne_runinfo_tag(const char* dir, const char* const* add, int n_add, const char* const* remove, int n_remove,
                   const char* note, char* errstr);

// Sets the status and reason (and the end time) of dir's record: for a run whose process could not
// say so itself (killed by a signal). Atomic and locked as ne_runinfo_tag. Nullable: errstr.
int ne_runinfo_mark(const char* dir, const char* status, const char* reason, char* errstr);

#ifdef __cplusplus
}
#endif
#endif
