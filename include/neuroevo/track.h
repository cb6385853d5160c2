// SPDX-License-Identifier: MIT
// MLflow tracking: a run directory mirrored to an MLflow tracking server (MLflow 2.x and 3.x)
// through its REST API. The run becomes an MLflow run in an experiment (a study's runs share one
// experiment, named after the study's directory; a single run's is its config's name, or
// run.track_experiment): the resolved config as params, the provenance of run.json as tags (build,
// host, command, source config, study, arm, seed, status; the note as the run's description),
// every generation's metrics.csv row as metrics (step = generation), and at the end the artifacts
// (curve.png, best.genome / best.params, config.ini, run.json, metrics.csv, and report.html and
// agent.gif when they exist).
//
// The run directory is the buffer: RUN_DIR/track.json says what the server has (its run id, the
// metric rows sent, the artifacts' sizes), so a sync sends only what is new, a server that was
// down gets everything on the next sync, and `neuroevo track RUN_DIR` sends what a run could not.
// A training run syncs from a thread of its own (run.track = URL): the run never waits for the
// server, a failure is said once and retried with backoff.
#ifndef NEUROEVO_TRACK_H
#define NEUROEVO_TRACK_H

#ifdef __cplusplus
extern "C" {
#endif

// How to sync; zero-initialize and set what you need.
typedef struct ne_track_options {
  const char* url;            // the tracking server, e.g. http://127.0.0.1:5000 (NULL: the run's run.track,
                              // else $MLFLOW_TRACKING_URI)
  const char* experiment;     // NULL: run.track_experiment, else the study's or the config's name
  int final;                  // 1: also the artifacts and the run's final status
  double timeout_s;           // one request's limit (<= 0: 30)
  const volatile int* abort;  // raised: requests in flight end at once (NE_EINTR). Nullable
} ne_track_options;

// What a sync sent.
typedef struct ne_track_stats {
  int rows;       // metric rows sent now
  int artifacts;  // files uploaded now
  char run_id[64];
  char experiment_id[32];
} ne_track_stats;

// The tracking URL a run with config text `config_ini` (a config.ini's text; NULL: none) uses,
// into url (size bytes): run.track, else $MLFLOW_TRACKING_URI; "" when tracking is off (empty,
// or run.track = none). Returns 1 when there is one.
int ne_track_url(const char* config_ini, char* url, int size);

// Sends what the server lacks of run_dir (see above). Returns 0, NE_EUNSUPPORTED (a build without
// libcurl), NE_ENOTFOUND (not a run directory), NE_ENET (the server: unreachable, an error reply;
// errstr quotes it) or NE_EIO. Safe to repeat at any time; never changes the run's own files but
// track.json. Nullable: stats, errstr.
int ne_track_sync(const char* run_dir, const ne_track_options* opt, ne_track_stats* stats, char* errstr);

#ifdef __cplusplus
}
#endif
#endif
