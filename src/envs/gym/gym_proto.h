// SPDX-License-Identifier: MIT
// The wire layout between the `gym:` family (gym.c) and its Python env server
// (python/neuroevo/envserver.py, which repeats these numbers; bump NE_GYM_VERSION on any change).
// Data travels in one shared-memory block. Each message (command or reply) is published by bumping a
// sequence word in the block, then announced by a one-byte doorbell on a socketpair. The receiver
// first spins a bounded time on the sequence word (no syscall, no sleep: the common case when both
// processes have a core) and only then sleeps in poll/read on the socket, where the doorbell, or the
// socket closing when the other side dies, wakes it; doorbells it did not need are drained in batches.
// Not public API.
#ifndef NEUROEVO_GYM_PROTO_H
#define NEUROEVO_GYM_PROTO_H

#define NE_GYM_MAGIC 0x5947454Eu  // "NEGY", written by the server once it has mapped the block
#define NE_GYM_VERSION 2

// commands (C -> server, at OFF_REQ_CMD) and replies (server -> C, at OFF_REP_BYTE); the doorbell byte
// repeats them, but only the block's copy counts
#define NE_GYM_CMD_RESET 'R'    // reset with the seed at OFF_SEED; obs at OFF_OBS
#define NE_GYM_CMD_STEP 'S'     // step with the action at OFF_ACT; obs, reward and flags back
#define NE_GYM_CMD_QUIT 'Q'     // close the env and exit
#define NE_GYM_REPLY_HELLO 'H'  // startup done: the spec fields are filled
#define NE_GYM_REPLY_OK 'K'     // command done
#define NE_GYM_REPLY_ERROR 'E'  // command failed: code at OFF_CODE, message at OFF_ERRMSG

// byte offsets in the shared block (native byte order: both ends run on the same machine)
#define NE_GYM_OFF_MAGIC 0           // uint32
#define NE_GYM_OFF_VERSION 4         // uint32
#define NE_GYM_OFF_CODE 8            // int32   NE_E* code of the last failure
#define NE_GYM_OFF_SEED 16           // uint64  reset seed
#define NE_GYM_OFF_REWARD 24         // float64 reward of the last step
#define NE_GYM_OFF_TERMINATED 32     // int32
#define NE_GYM_OFF_TRUNCATED 36      // int32   the env's own truncation (the TimeLimit is neuroevo's)
#define NE_GYM_OFF_OBS_DIM 40        // int32   flat observation length
#define NE_GYM_OFF_OBS_RANK 44       // int32   1 or 3
#define NE_GYM_OFF_OBS_SHAPE 48      // int32[3]
#define NE_GYM_OFF_DISCRETE 60       // int32   1: Discrete(n_actions), 0: Box(act_dim)
#define NE_GYM_OFF_N_ACTIONS 64      // int32
#define NE_GYM_OFF_ACT_DIM 68        // int32
#define NE_GYM_OFF_MAX_STEPS 72      // int32   registered max_episode_steps (0: none)
#define NE_GYM_OFF_HAS_THRESHOLD 76  // int32
#define NE_GYM_OFF_THRESHOLD 80      // float64 reward_threshold
#define NE_GYM_OFF_ACT_LOW 88        // float64[32] Box lower bounds
#define NE_GYM_OFF_ACT_HIGH 344      // float64[32] Box upper bounds
#define NE_GYM_OFF_REQ_SEQ 640       // uint32 request number: C writes the command, then stores n+1 (release)
#define NE_GYM_OFF_REQ_CMD 644       // uint32 the command byte of request REQ_SEQ
// (a #define whose comment goes on over the next line: left as written)
// clang-format off
#define NE_GYM_OFF_REP_SEQ 704      // uint32 reply number (own cache line): the server answers request n with n;
                                    //        its startup reply (hello or error) is number 1
// clang-format on
#define NE_GYM_OFF_REP_BYTE 708  // uint32 the reply byte of reply REP_SEQ
#define NE_GYM_OFF_ERRMSG 1024   // char[1024] NUL-terminated UTF-8
#define NE_GYM_ERRMSG_LEN 1024
#define NE_GYM_OFF_ACT 2048  // float32[32] action of the next step
#define NE_GYM_OFF_OBS 4096  // float32[obs_dim] observation after reset/step
#define NE_GYM_MAX_ACT 32    // = NE_ENV_MAX_ACT

#endif
