// SPDX-License-Identifier: MIT
// The env registry: every id of every family table (envs_int.h), in table order, with lookup by
// id. Adding a family is one line in `families`. Read-only static data, so thread-safe; the tables
// are a few dozen entries, so lookups are linear scans.
#include <string.h>

#include "envs/envs_int.h"

// one NULL-terminated table per family
static const ne_env_entry* const families[] = {
    ne__classic_envs,
    ne__point_envs,  // task families (meta-learning); the MuJoCo ones are in ne__mujoco_envs
    ne__bbob_envs,    ne__maze_envs,
// physics families exist only when their library was found at configure time
#ifdef NE_HAVE_BOX2D
    ne__box2d_envs,
#endif
#ifdef NE_HAVE_MUJOCO
    ne__mujoco_envs,
#endif
    ne__minatar_envs,  // pixel families: MinAtar, and Atari when built with -DNE_ALE=ON
#ifdef NE_HAVE_ALE
    ne__ale_envs,
#endif
};
static const int n_families = (int)(sizeof families / sizeof families[0]);

// gym: bridge: families whose entry id is a prefix ("gym:" serves gym:CartPole-v1, ...); matched
// only when no exact id does, and not listed with the exact ids
static const ne_env_entry* const prefix_families[] = {
    ne__gym_envs,
};
static const int n_prefix_families = (int)(sizeof prefix_families / sizeof prefix_families[0]);

// the i-th entry over all tables, or NULL when i is out of range
static const ne_env_entry* entry_at(int i) {
  if (i < 0) return NULL;
  for (int f = 0; f < n_families; f++) {
    for (const ne_env_entry* e = families[f]; e->id; e++) {
      if (i == 0) return e;
      i--;
    }
  }
  return NULL;
}

int ne_env_registry_count(void) {
  int n = 0;
  for (int f = 0; f < n_families; f++)
    for (const ne_env_entry* e = families[f]; e->id; e++) n++;
  return n;
}

const char* ne_env_registry_id(int i) {
  const ne_env_entry* e = entry_at(i);
  return e ? e->id : NULL;
}

const char* ne_env_registry_summary(int i) {
  const ne_env_entry* e = entry_at(i);
  return e ? e->summary : NULL;
}

const ne_env_entry* ne__env_lookup(const char* id) {
  if (!id) return NULL;
  for (int f = 0; f < n_families; f++)
    for (const ne_env_entry* e = families[f]; e->id; e++)
      if (strcmp(e->id, id) == 0) return e;
  // gym: bridge: then the prefix families
  for (int f = 0; f < n_prefix_families; f++)
    for (const ne_env_entry* e = prefix_families[f]; e->id; e++)
      if (strncmp(e->id, id, strlen(e->id)) == 0) return e;
  return NULL;
}
