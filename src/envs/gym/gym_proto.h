// SPDX-License-Identifier: MIT
// The wire layout between the `gym:` family (gym.c) and its Python env server
// (python/neuroevo/envserver.py, which repeats these numbers; bump NE_GYM_VERSION on any change).
// The block's common header, the doorbells and the process are core/pyproc.h's; these are the env
// protocol's own fields, after NE_PYPROC_OFF_USER. Not public API.
#ifndef NEUROEVO_GYM_PROTO_H
#define NEUROEVO_GYM_PROTO_H

#include "core/pyproc.h"

#define NE_GYM_MAGIC 0x5947454Eu  // "NEGY", written by the server once it has mapped the block
#define NE_GYM_VERSION 3          // 3: the common pyproc header (2: gym's own header)

// commands (C -> server); replies are pyproc's hello / ok / error
#define NE_GYM_CMD_RESET 'R'  // reset with the seed at OFF_SEED; obs at OFF_OBS
#define NE_GYM_CMD_STEP 'S'   // step with the action at OFF_ACT; obs, reward and flags back

// byte offsets in the shared block (native byte order: both ends run on the same machine)
#define NE_GYM_OFF_SEED (NE_PYPROC_OFF_USER + 0)         // uint64  reset seed
#define NE_GYM_OFF_REWARD (NE_PYPROC_OFF_USER + 8)       // float64 reward of the last step
#define NE_GYM_OFF_TERMINATED (NE_PYPROC_OFF_USER + 16)  // int32
// int32: the env's own truncation (the TimeLimit is neuroevo's)
#define NE_GYM_OFF_TRUNCATED (NE_PYPROC_OFF_USER + 20)
#define NE_GYM_OFF_OBS_DIM (NE_PYPROC_OFF_USER + 24)        // int32   flat observation length
#define NE_GYM_OFF_OBS_RANK (NE_PYPROC_OFF_USER + 28)       // int32   1 or 3
#define NE_GYM_OFF_OBS_SHAPE (NE_PYPROC_OFF_USER + 32)      // int32[3]
#define NE_GYM_OFF_DISCRETE (NE_PYPROC_OFF_USER + 44)       // int32   1: Discrete(n_actions), 0: Box(act_dim)
#define NE_GYM_OFF_N_ACTIONS (NE_PYPROC_OFF_USER + 48)      // int32
#define NE_GYM_OFF_ACT_DIM (NE_PYPROC_OFF_USER + 52)        // int32
#define NE_GYM_OFF_MAX_STEPS (NE_PYPROC_OFF_USER + 56)      // int32   registered max_episode_steps (0: none)
#define NE_GYM_OFF_HAS_THRESHOLD (NE_PYPROC_OFF_USER + 60)  // int32
#define NE_GYM_OFF_THRESHOLD (NE_PYPROC_OFF_USER + 64)      // float64 reward_threshold
#define NE_GYM_OFF_ACT_LOW (NE_PYPROC_OFF_USER + 72)        // float64[32] Box lower bounds
#define NE_GYM_OFF_ACT_HIGH (NE_PYPROC_OFF_USER + 328)      // float64[32] Box upper bounds
#define NE_GYM_OFF_ACT 3072                                 // float32[32] action of the next step
#define NE_GYM_OFF_OBS 4096                                 // float32[obs_dim] observation after reset/step
#define NE_GYM_MAX_ACT 32                                   // = NE_ENV_MAX_ACT

#endif
