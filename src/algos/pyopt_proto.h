// SPDX-License-Identifier: MIT
// The wire layout between the Python-optimizer algorithms (pyopt.c: run.algorithm = nevergrad |
// python) and their optimizer server (python/neuroevo/optserver.py, which repeats these numbers;
// bump NE_OPT_VERSION on any change). The block's common header, the doorbells and the process are
// core/pyproc.h's; these are the optimizer protocol's own fields. Not public API.
#ifndef NEUROEVO_PYOPT_PROTO_H
#define NEUROEVO_PYOPT_PROTO_H

#include "core/pyproc.h"

#define NE_OPT_MAGIC 0x54504F4Eu  // "NOPT"
#define NE_OPT_VERSION 1

// commands (C -> server); replies are pyproc's hello / ok / error.
// INIT: make the optimizer from x0 (float64[dim]) at OFF_DATA and the settings as JSON (OFF_LEN bytes)
// right after it. ASK: the next batch, OFF_COUNT candidates (float32[count][dim]) at OFF_DATA, then,
// if OFF_FLAG = 1, the recommendation (float32[dim]). TELL: the batch's losses (float64[OFF_COUNT],
// candidate order) at OFF_DATA. SAVE: pickle the state, OFF_LEN bytes at OFF_DATA when OFF_FLAG = 1;
// OFF_FLAG = 0 when the pickle is larger than OFF_LIMIT bytes (then nothing is copied). LOAD:
// unpickle OFF_LEN bytes at OFF_DATA.
#define NE_OPT_CMD_INIT 'I'
#define NE_OPT_CMD_ASK 'A'
#define NE_OPT_CMD_TELL 'T'
#define NE_OPT_CMD_SAVE 'S'
#define NE_OPT_CMD_LOAD 'L'

#define NE_OPT_OFF_DIM (NE_PYPROC_OFF_USER + 0)     // uint32 search dimension
#define NE_OPT_OFF_COUNT (NE_PYPROC_OFF_USER + 4)   // uint32 candidates in the batch / losses told
#define NE_OPT_OFF_FLAG (NE_PYPROC_OFF_USER + 8)    // uint32 see the commands
#define NE_OPT_OFF_LEN (NE_PYPROC_OFF_USER + 16)    // uint64 byte length of a text or a pickle
#define NE_OPT_OFF_LIMIT (NE_PYPROC_OFF_USER + 24)  // uint64 largest pickle SAVE copies back
#define NE_OPT_OFF_DATA 4096                        // the payload (the block grows to hold it)

#endif
