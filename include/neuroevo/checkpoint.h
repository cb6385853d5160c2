// SPDX-License-Identifier: MIT
// Checkpoints: the runner's counters plus the algorithm's serialized state, in a versioned binary
// file with a CRC-32C, written atomically (temp, fsync, rename) as checkpoints/ckpt-GGGGGGGG.bin;
// the last K are kept. Reading takes the newest one that verifies.
#ifndef NEUROEVO_CHECKPOINT_H
#define NEUROEVO_CHECKPOINT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ne_checkpoint {
  uint32_t generation;   // generations completed
  uint64_t evaluations;  // candidate evaluations so far (re-evaluations included)
  uint64_t env_steps;    // environment steps so far
  double wall_s;         // training wall time so far
  uint8_t* algo;         // (algo_len) the algorithm's state; owned, ne_checkpoint_free releases
  size_t algo_len;       // bytes of algo
} ne_checkpoint;

// Writes ckpt into dir (created if missing) and deletes all but the newest `keep`. Nullable: errstr.
int ne_checkpoint_write(const char* dir, const ne_checkpoint* ckpt, int keep, char* errstr);

// Reads one checkpoint file; NE_ECORRUPT / NE_EVERSION with a message naming the file and the fault.
int ne_checkpoint_read(const char* path, ne_checkpoint* out, char* errstr);

// Decodes a checkpoint from memory (what ne_checkpoint_read does after reading the file; the
// fuzzer's entry point). Never reads outside data[0..len). `name` stands for the file in messages.
// On success caller frees with ne_checkpoint_free. Nullable: name, errstr.
int ne_checkpoint_decode(const void* data, size_t len, const char* name, ne_checkpoint* out, char* errstr);

// Reads the newest checkpoint in dir that verifies; each one skipped is described on `warn` lines
// (one per skipped file; Nullable). NE_ENOTFOUND when none verifies. Caller frees with ne_checkpoint_free.
int ne_checkpoint_read_latest(const char* dir, ne_checkpoint* out, char* errstr, void (*warn)(const char* msg));

// Number of checkpoint files in dir, readable or not (0 when dir is missing).
int ne_checkpoint_count(const char* dir);

// Frees the algorithm bytes. Nullable: ckpt.
void ne_checkpoint_free(ne_checkpoint* ckpt);

#ifdef __cplusplus
}
#endif
#endif
