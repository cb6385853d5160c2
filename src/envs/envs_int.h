// SPDX-License-Identifier: MIT
// How env families plug into the registry (src/envs/registry.c): each family exports a table of
// entries; `make` fills a zeroed spec for its id. Not public API.
#ifndef NEUROEVO_ENVS_INT_H
#define NEUROEVO_ENVS_INT_H

#include <stddef.h>

#include "neuroevo/env.h"

typedef struct ne_env_entry {
  const char* id;       // registry id
  const char* summary;  // one line for `neuroevo envs`
  // fills *spec (zeroed by the caller) for this id; family data allocated here is freed by
  // spec->family->destroy. Nullable: options, errstr.
  int (*make)(const char* id, const ne_env_options* options, ne_env_spec* spec, char* errstr);
} ne_env_entry;

// Family tables, each terminated by an entry with id == NULL.
extern const ne_env_entry ne__classic_envs[];
extern const ne_env_entry ne__bbob_envs[];  // src/envs/bbob: black-box test functions
extern const ne_env_entry ne__maze_envs[];  // src/envs/maze: the deceptive hard maze (novelty search)
// physics families, built only when their library is found (cmake/physics.cmake)
extern const ne_env_entry ne__mujoco_envs[];  // src/envs/mujoco (NE_HAVE_MUJOCO)
extern const ne_env_entry ne__box2d_envs[];   // src/envs/box2d (NE_HAVE_BOX2D)
// pixel families: MinAtar always; Atari through ALE only in opt-in builds (-DNE_ALE=ON, NE_HAVE_ALE)
extern const ne_env_entry ne__minatar_envs[];  // src/envs/minatar
extern const ne_env_entry ne__ale_envs[];      // src/envs/ale (NE_HAVE_ALE)
// task families for meta-learning without a physics library (src/envs/point: PointNav2D-v0)
extern const ne_env_entry ne__point_envs[];

// gym: bridge: a family that serves every id starting with its entry's id (the prefix "gym:"),
// looked up after the exact ids and not listed by ne_env_registry_* (src/envs/gym/gym.c)
extern const ne_env_entry ne__gym_envs[];

// Task families: picks the task of the episode that ne_env_reset(seed) starts (the state's fixed
// task, else the spec's, else a draw from a stream derived from seed), records it in state->task
// and hands it to the family's set_task hook (src/envs/env_task.c).
void ne__env_begin_task(const ne_env_spec* spec, ne_env_state* state, uint64_t seed);
// Whether Gymnasium (in the interpreter the gym: bridge uses) has `id`: 1 with the id to use in out
// (`id` itself, or its registered version when Gymnasium has only another one, e.g. Taxi-v3 ->
// Taxi-v4), 0 if not or when no answer came within timeout_s. Costs a Python start (~0.5 s): for
// error messages only (src/envs/gym/gym.c).
int ne__gym_lookup(const char* id, double timeout_s, char* out, size_t size);

// The registry entry for id over every family table, or NULL (src/envs/registry.c).
const ne_env_entry* ne__env_lookup(const char* id);

#endif
