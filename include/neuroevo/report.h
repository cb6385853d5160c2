// SPDX-License-Identifier: MIT
// The run report: one self-contained HTML file per run (inline CSS, inline SVG curves, images as
// base64 data URIs; opens without network) with the config, the curves, a final evaluation of the
// best agent, the best genome, the agent's GIF where `neuroevo render` made one, and the machine and
// throughput figures. Read-only towards the run directory except for the report file itself.
#ifndef NEUROEVO_REPORT_H
#define NEUROEVO_REPORT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// How a report is made; zero-initialize and set what you need.
typedef struct ne_report_options {
  const char* out;  // the HTML file to write; NULL: <run_dir>/report.html
  int episodes;     // final evaluation episodes; 0: the run's run.eval_episodes (else 100); < 0: none
  uint64_t seed;    // base of the evaluation's episode seeds (as `neuroevo eval --seed`)
  int threads;      // evaluation threads (<= 0: all cores)
} ne_report_options;

// Writes the report of run_dir (atomically: temp file, rename) and copies its path into path
// (path_size bytes). A run without a best agent file gets a report that says so instead of an
// evaluation. Errors: NE_ENOTFOUND (not a run directory), NE_EIO, NE_ENOMEM, or the evaluation's
// error, each naming the file involved. Nullable: opt, path, errstr.
int ne_report_write(const char* run_dir, const ne_report_options* opt, char* path, size_t path_size, char* errstr);

#ifdef __cplusplus
}
#endif
#endif
