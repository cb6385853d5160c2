// SPDX-License-Identifier: MIT
// The partial-generation log, RUN_DIR/checkpoints/partial.log: the results of the generation in
// progress, appended as candidates finish, so that a killed run loses only the candidates in hand
// instead of its whole generation (a Deep GA generation on Atari is ~15-35 CPU-minutes). A resumed
// run takes from it the results of exactly the batches it asks again (ne_batch_digest), so the run
// stays a pure function of (config, seed). Internal to the run layer.
//
// Layout: "NEPARTL\n", u32 format version, u32 base generation (the checkpoint the log continues),
// then records [u32 payload length][u32 CRC-32C of the payload][payload]. A payload is a ROUND
// (u8 1, u32 round, u64 digest, u32 n, u32 obs_dim or 0, u32 bc_dim or 0) or a RESULT (u8 2, u32
// round, u32 index, the ne_result fields, its observation sums and behaviour). A round's results
// follow its ROUND record, maybe interleaved with those of another round evaluated at the same
// time (the next generation's candidates asked ahead: round NE__PARTIAL_AHEAD); a torn or corrupt
// tail is cut off when the log is opened.
#ifndef NEUROEVO_RUN_PARTIAL_H
#define NEUROEVO_RUN_PARTIAL_H

#include <stdint.h>

#include "neuroevo/algo.h"

typedef struct ne__partial ne__partial;

// Opens dir/partial.log (creating dir) for the generation after checkpoint `base`. A log of that
// same base keeps its valid records, to be handed out by ne__partial_round; any other log (older
// base, another format, unreadable) starts over empty. obs_dim and bc_dim are the env's. *out is
// freed with ne__partial_close. Returns 0, NE_EIO or NE_ENOMEM. Nullable: errstr.
int ne__partial_open(const char* dir, uint32_t base, int obs_dim, int bc_dim, ne__partial** out, char* errstr);

// Results the log holds (0 when none).
int ne__partial_count(const ne__partial* log);

// Rounds that may be open at once (ne__partial_round between two ne__partial_begin).
#define NE__PARTIAL_OPEN 2

// The round number under which the next generation's candidates asked ahead are logged (the
// generation's own rounds are the batches' round numbers).
#define NE__PARTIAL_AHEAD 0x80000000u

// Closes the rounds in progress: the next ne__partial_round calls open the rounds evaluated next.
void ne__partial_begin(ne__partial* log);

// Opens round `round` (batch->round, or NE__PARTIAL_AHEAD) of the generation after the base: fills
// results[i] (scalars, and the observation sums and behaviour its pointers point at) and sets
// have[i] = 1 for every candidate of this exact batch (same round and digest) that the log holds,
// and returns how many. A round the log holds for another digest is dropped with everything after
// it. Later ne__partial_add calls for this round record its results.
int ne__partial_round(ne__partial* log, const ne_batch* batch, uint32_t round, uint64_t digest, ne_result* results,
                      uint8_t* have);

// Records the result of candidate `index` of open round `round`. Thread-safe; buffered: written to
// the file and fsynced as ne__partial_set_timing says (by default at most a second later, and every
// 30 s), and by ne__partial_sync.
void ne__partial_add(ne__partial* log, uint32_t round, uint32_t index, const ne_result* result);

// How long results may wait: written to the file at most flush_s after they are recorded (0: at
// once, a write(2) each: a killed process keeps every result recorded), fsynced at most sync_s
// later (a lost machine keeps all but that). Defaults 1 s and 30 s; NEUROEVO_PARTIAL_FLUSH_S
// overrides flush_s (tests).
void ne__partial_set_timing(ne__partial* log, double flush_s, double sync_s);

// Writes what is buffered and fsyncs. Returns 0 or NE_EIO.
int ne__partial_sync(ne__partial* log, char* errstr);

// The generation after `base` begins (checkpoint `base` is on disk): the log starts over empty.
int ne__partial_restart(ne__partial* log, uint32_t base, char* errstr);

// Writes what is buffered and closes. Nullable: log.
void ne__partial_close(ne__partial* log);

#endif
