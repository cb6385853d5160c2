// SPDX-License-Identifier: MIT
// The run loop's TensorBoard hook (run_tfevents.c): one event file per run directory, one event of
// scalars per generation. Internal to the runner; the format itself is neuroevo/tfevents.h.
#ifndef NEUROEVO_RUN_TFEVENTS_H
#define NEUROEVO_RUN_TFEVENTS_H

#include "neuroevo/algo.h"

struct ne_run;

// Opens the run directory's event file at the run's current generation (a resumed run drops the
// events of later generations, as metrics.csv drops their rows). On failure warns once on stderr
// and leaves the hook off: event files are for watching and never stop training.
void ne__run_tb_open(struct ne_run* run);

// Appends the scalars of the generation just committed (after its metrics.csv row). No-op when off.
void ne__run_tb_write(struct ne_run* run, const ne_gen_report* r);

// Closes the event file. Nullable: run->tb.
void ne__run_tb_close(struct ne_run* run);

#endif
