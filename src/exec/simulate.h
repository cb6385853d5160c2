// SPDX-License-Identifier: MIT
// Simulated evaluation for benchmarks of the distributed path (`neuroevo worker --synthetic` and
// `--simulate`): a fitness and an evaluation time that are pure functions of the candidate, so a
// run's results and the duration of every candidate do not depend on which worker ran what or when
// (a benchmark can compute the schedule an ideal executor would achieve). No env, no CPU. Not
// public API.
#ifndef NEUROEVO_SIMULATE_H
#define NEUROEVO_SIMULATE_H

#include "neuroevo/algo.h"

// A fitness in [0, 1) from the candidate's episode seed and its last seed; steps = episodes.
void ne__synthetic_result(const ne_candidate* c, ne_result* out);

// Seconds a simulated evaluation of c takes: for each of its episodes, mean_s scaled by a factor
// uniform in [1 - jitter, 1 + jitter] (jitter in [0, 1]) drawn from the episode's seed.
double ne__simulated_eval_s(const ne_candidate* c, double mean_s, double jitter);

// The same for episodes first .. first + n - 1 of c (a part of its episodes).
double ne__simulated_episodes_s(const ne_candidate* c, uint32_t first, uint32_t n, double mean_s, double jitter);

#endif
