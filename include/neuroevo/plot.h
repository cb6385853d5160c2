// SPDX-License-Identifier: MIT
// Training curves: reads the metrics.csv (and config.ini, for the env id) of one or more run
// directories and draws return against environment steps, evaluations or wall time into a PNG with
// gnuplot (Debian gnuplot-nox). For humans looking at runs; it never feeds back into training.
#ifndef NEUROEVO_PLOT_H
#define NEUROEVO_PLOT_H

#ifdef __cplusplus
extern "C" {
#endif

// Draws the curves of n >= 1 run directories into out_png (written atomically: temp file, rename).
// One run: best, mean and elite (re-evaluation) lines. Several runs: one colour per run, labelled
// with the directory's basename; elite solid, best dashed, mean dotted. NaN values (generations
// without re-evaluation) are skipped, so lines join the points that exist. x_column is "env_steps",
// "evaluations" or "wall_s"; NULL means "env_steps". Runs gnuplot as a child process and waits for
// it. Errors (NE_ENOTFOUND: no metrics.csv; NE_EPARSE: no data rows or a malformed header;
// NE_EINVAL: bad x_column; NE_EIO: gnuplot missing or failed) name the path involved in errstr.
// Thread-safe (no shared state). Nullable: x_column, errstr.
int ne_plot_runs(const char* const* run_dirs, int n, const char* out_png, const char* x_column, char* errstr);

// Runs `gnuplot script` (gnuplot from PATH) with stdout discarded and stderr into err_path, and
// waits for it: what every plot of the library (curve.png, a study's compare.png) draws through.
// Errors (NE_EIO) say that gnuplot is missing (install gnuplot-nox) or quote its last error line;
// the caller removes err_path. Thread-safe (posix_spawn). Nullable: errstr.
int ne_plot_gnuplot(const char* script, const char* err_path, char* errstr);

#ifdef __cplusplus
}
#endif
#endif
