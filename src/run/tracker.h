// SPDX-License-Identifier: MIT
// A training run's MLflow tracking (track.h) in a thread of its own: the runner pokes it after each
// generation and the thread syncs the run directory (ne_track_sync), so the run never waits for
// the server. A failing server is said once on stderr and retried with backoff (1 s doubling to
// 60 s); at the end the runner waits for the last rows and the artifacts while the server keeps
// answering (at most wait_s; none once it is silent for 10 s, or known down), and tells how to send
// the rest when they did not go. Internal to the run layer.
#ifndef NEUROEVO_RUN_TRACKER_H
#define NEUROEVO_RUN_TRACKER_H

#include "neuroevo/config.h"

typedef struct ne__tracker ne__tracker;

// Starts tracking run dir when cfg asks for it (run.track or $MLFLOW_TRACKING_URI); NULL when it
// does not, or when tracking cannot start (a build without libcurl: said on stderr, the run goes on).
ne__tracker* ne__tracker_start(const char* dir, const ne_config* cfg);

// A generation was written: sync soon. Nullable: t.
void ne__tracker_poke(ne__tracker* t);

// The run ended: the final sync (artifacts, status) gets up to wait_s seconds while the server
// keeps answering; then the thread stops and everything is freed. Nullable: t.
void ne__tracker_finish(ne__tracker* t, double wait_s);

#endif
