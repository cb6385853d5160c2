// SPDX-License-Identifier: MIT
// The whole public C API in one include: `#include <neuroevo/neuroevo.h>`. Each header below is
// also usable on its own (they include what they need); examples/train.c shows the usual path
// (config -> run -> evaluate the best agent). Valid C11 and C++ (every header has extern "C").
#ifndef NEUROEVO_NEUROEVO_H
#define NEUROEVO_NEUROEVO_H

// core: allocation hooks, error codes, noise, random numbers, versions
#include "neuroevo/alloc.h"
#include "neuroevo/error.h"
#include "neuroevo/noise.h"
#include "neuroevo/rng.h"
#include "neuroevo/version.h"
// configuration
#include "neuroevo/config.h"
// environments, policies, parameters
#include "neuroevo/cache.h"
#include "neuroevo/conv.h"
#include "neuroevo/env.h"
#include "neuroevo/genome.h"
#include "neuroevo/policy.h"
// algorithms and where candidates are evaluated
#include "neuroevo/algo.h"
#include "neuroevo/cluster.h"
#include "neuroevo/episode.h"
#include "neuroevo/evaluator.h"
#include "neuroevo/executor.h"
#include "neuroevo/meta.h"
#include "neuroevo/pool.h"
// training runs and their files
#include "neuroevo/agent.h"
#include "neuroevo/checkpoint.h"
#include "neuroevo/metrics.h"
#include "neuroevo/plot.h"
#include "neuroevo/run.h"
#include "neuroevo/runinfo.h"
#include "neuroevo/tfevents.h"
#include "neuroevo/track.h"
// reports, comparisons, videos, the dashboard
#include "neuroevo/compare.h"
#include "neuroevo/dashboard.h"
#include "neuroevo/render.h"
#include "neuroevo/report.h"

#endif
