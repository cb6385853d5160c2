// SPDX-License-Identifier: MIT
// The algorithm registry: `[run] algorithm = NAME` finds its ask/tell implementation here.
// Adding an algorithm is one extern line and one table entry.
#include <string.h>

#include "neuroevo/algo.h"

extern const ne_algo_vt ne__algo_ga;
extern const ne_algo_vt ne__algo_es;         // es.c
extern const ne_algo_vt ne__algo_ars;        // ars.c
extern const ne_algo_vt ne__algo_pgpe;       // pgpe.c
extern const ne_algo_vt ne__algo_snes;       // snes.c
extern const ne_algo_vt ne__algo_cmaes;      // cmaes.c
extern const ne_algo_vt ne__algo_sepcmaes;   // sepcmaes.c
extern const ne_algo_vt ne__algo_nevergrad;  // pyopt.c: Nevergrad's optimizers in a server process
extern const ne_algo_vt ne__algo_python;     // pyopt.c: any Python ask/tell class, likewise
extern const ne_algo_vt ne__algo_ns_es;      // nses.c: novelty search with ES (Conti et al. 2018)
extern const ne_algo_vt ne__algo_nsr_es;     // nses.c
extern const ne_algo_vt ne__algo_nsra_es;    // nses.c

static const ne_algo_vt* const algorithms[] = {
    &ne__algo_ga,       &ne__algo_es,        &ne__algo_ars,    &ne__algo_pgpe,  &ne__algo_snes,   &ne__algo_cmaes,
    &ne__algo_sepcmaes, &ne__algo_nevergrad, &ne__algo_python, &ne__algo_ns_es, &ne__algo_nsr_es, &ne__algo_nsra_es,
};

int ne_algo_count(void) { return (int)(sizeof algorithms / sizeof algorithms[0]); }

const ne_algo_vt* ne_algo_at(int i) { return i >= 0 && i < ne_algo_count() ? algorithms[i] : NULL; }

const ne_algo_vt* ne_algo_find(const char* name) {
  for (int i = 0; i < ne_algo_count(); i++)
    if (strcmp(algorithms[i]->name, name) == 0) return algorithms[i];
  return NULL;
}
