// SPDX-License-Identifier: MIT
// The wire contract between a Redis master and its workers: compact, versioned binary messages for
// tasks (a chunk of candidates), results (a chunk of outcomes) and broadcast blobs, plus the key
// names and the build fingerprint both sides must agree on. Pure encoding: no sockets, no Redis.
// Not public API (the CLI and tests use it through src/).
#ifndef NEUROEVO_REDIS_WIRE_H
#define NEUROEVO_REDIS_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "neuroevo/algo.h"
#include "neuroevo/env.h"
#include "neuroevo/policy.h"

// Bumped whenever a message written by one build cannot be read by another. Every message starts
// with a 4-byte magic, this version byte and the sender's name, in every version, so a reader can
// always say who sent a message it cannot parse.
// 2: tasks name the shared noise table their PERTURB candidates read; results carry the evaluation
// time; workers report env failures
// 3: a task may carry a part of a candidate's episodes (a candidate with many episodes split over
// several workers), and the result of a part carries its per-episode returns
// 4: (two branches' builds, never both) tasks may ask for behaviour characterizations (novelty
// search) and results then carry them; or results carry the pre-adaptation return of meta-learning
// 5: both: a result message's header carries bc_dim after obs_dim and a pre_fitness flag after
// eval_us; each result its pre_fitness after steps (flag set) and its behaviour last (bc_dim > 0)
#define NE_WIRE_VERSION 5

#define NE_WIRE_MAX_NAME 64          // longest worker name carried in a message
#define NE_WIRE_MAX_CANDS (1 << 20)  // most candidates (or results) in one message
#define NE_WIRE_MAX_SEEDS (1 << 24)  // longest seed chain
#define NE_WIRE_MAX_BLOB (1u << 28)  // most floats in one blob (1 GiB)
#define NE_WIRE_MAX_ERROR 255        // longest env failure message carried in a result
#define NE_WIRE_MAX_ENTRY 47         // longest stream entry id carried in a result

// What a message is, from its first four bytes.
typedef enum ne__wire_kind {
  NE_WIRE_TASK = 0x6b74454e,    // "NEtk": a chunk of candidates (master -> workers)
  NE_WIRE_RESULT = 0x7372454e,  // "NErs": their outcomes (worker -> master)
  NE_WIRE_BLOB = 0x6c62454e,    // "NEbl": a broadcast vector (master -> workers, fetched by hash)
} ne__wire_kind;

// Identifies the batch a task belongs to; a result is valid only for the batch it was computed for.
typedef struct ne__wire_round {
  uint64_t exp;         // experiment id
  uint32_t generation;  // batch->generation
  uint32_t round;       // batch->round
  uint64_t digest;      // ne_batch_digest (algo.h) of the whole batch
} ne__wire_round;

// A broadcast vector named by a task: fetched once per worker from its own key.
typedef struct ne__wire_blobref {
  uint64_t hash;  // identity (ne_blob.hash, or a content hash for normalization vectors)
  uint32_t n;     // number of floats
} ne__wire_blobref;

// A part of a candidate's episodes: episodes first .. first + n - 1 (n == 0: the whole candidate).
typedef struct ne__wire_part {
  uint32_t first;  // first episode
  uint32_t n;      // episodes (0: the whole candidate, no per-episode returns)
} ne__wire_part;

// A decoded task. Buffers grow as needed and are reused across decodes (no allocation per task
// once warm). Candidate blob indices refer to `blobs`; chains point into `seeds`.
typedef struct ne__wire_task {
  char sender[NE_WIRE_MAX_NAME + 1];  // "master" for tasks the master wrote
  ne__wire_round round;               // the batch this chunk belongs to
  uint32_t task_no;                   // the master's sequence number, for messages
  int want_obs_stats;                 // results must carry observation sums
  int want_bc;                        // results must carry behaviour characterizations
  int has_norm;                       // observations are normalized with norm[0] (mean), norm[1] (std)
  float obs_clip;                     // clip of normalized observations (0: none)
  ne__wire_blobref norm[2];           // mean and std vectors (has_norm)
  uint64_t table_seed;                // PERTURB noise: the shared table's seed (table_size > 0)
  uint64_t table_size;                // its floats; 0: the generator (ne_batch.noise_table)
  int n_blobs;                        // blobs referenced by this chunk
  ne__wire_blobref* blobs;            // (cap_blobs)
  int n;                              // candidates in this chunk
  ne_candidate* cands;                // (cap_cands); a part's cands[j].episodes is the part's count
  ne__wire_part* parts;               // (cap_cands) parts[j].n > 0: cands[j] is episodes parts[j].first ..
  uint64_t* seeds;                    // (cap_seeds) every chain back to back
  int cap_blobs, cap_cands;           // allocated entries
  size_t cap_seeds;                   // allocated seeds
} ne__wire_task;

// What a worker sends back with a chunk of results.
typedef struct ne__wire_result_hdr {
  char worker[NE_WIRE_MAX_NAME + 1];  // the sending worker's name
  ne__wire_round round;               // copied from the task
  uint32_t task_no;                   // copied from the task
  uint64_t fingerprint;               // the worker's ne__wire_fingerprint
  int obs_dim;                        // observation sums per result (0: none)
  int bc_dim;                         // behaviour characterization floats per result (0: none)
  uint64_t eval_us;                   // the worker's wall time evaluating the task (chunk sizing)
  // an env failure (error != ""): the candidates before it are in the results, failed_index is the
  // candidate whose evaluation failed, skipped[0..n_skipped) the task's candidates not attempted
  char error[NE_WIRE_MAX_ERROR + 1];  // the env's message ("" = no failure)
  char entry[NE_WIRE_MAX_ENTRY + 1];  // the failed task's stream entry id (one attempt = one entry)
  uint32_t failed_index;              // candidate index within its batch
  int n_skipped;                      // candidates of the task not attempted
  const uint32_t* skipped;            // (n_skipped) their indices; on decode points into the message
} ne__wire_result_hdr;

// A decoded result message; buffers are reused across decodes. results[i].obs_sum/obs_sumsq point
// into `obs` when hdr.obs_dim > 0, results[i].bc into `bc` when hdr.bc_dim > 0.
typedef struct ne__wire_results {
  ne__wire_result_hdr hdr;  // header
  int n;                    // results in the message
  uint32_t* index;          // (cap) candidate index of each result within its batch
  ne_result* results;       // (cap) outcomes
  ne__wire_part* parts;     // (cap) parts[i].n > 0: result i is of that part of its candidate, with
  size_t* ret_off;          // (cap) its per-episode returns at returns + ret_off[i]
  double* returns;          // (cap_returns) per-episode returns of parts, back to back
  size_t cap_returns;       // allocated returns
  double* obs;              // (cap * 2 * obs_cap) observation sums
  int cap;                  // allocated results
  size_t obs_cap;           // allocated doubles of obs
  float* bc;                // (cap * bc_dim) behaviour characterizations
  size_t bc_cap;            // allocated floats of bc
  uint32_t* skipped;        // (cap_skipped) hdr.skipped points here
  size_t cap_skipped;       // allocated skipped indices
} ne__wire_results;

// ---- tasks --------------------------------------------------------------------------------

// Appends a task message for the candidates batch->cands[idx[0..n)] to out (which is cleared
// first). norm_hash gives the content hashes of batch->obs_mean / obs_std (ignored without them).
// Chains that share a prefix with an earlier chain of the same message are sent as a reference
// plus their tail (a GA chunk's children share their parents). Returns 0, NE_EINVAL (n out of
// range, blob index out of range) or NE_ENOMEM.
int ne__wire_encode_task(ne_buf* out, const ne__wire_round* round, uint32_t task_no, const ne_batch* batch,
                         const uint64_t norm_hash[2], int obs_dim, const int* idx, int n);

// Like ne__wire_encode_task, where parts[j] (parts[j].n > 0) makes candidate idx[j] the part of its
// episodes parts[j] names. Nullable: parts (whole candidates). NE_EINVAL for a part outside the
// candidate's episodes.
int ne__wire_encode_task_parts(ne_buf* out, const ne__wire_round* round, uint32_t task_no, const ne_batch* batch,
                               const uint64_t norm_hash[2], int obs_dim, const int* idx, const ne__wire_part* parts,
                               int n);

void ne__wire_task_init(ne__wire_task* t);
void ne__wire_task_free(ne__wire_task* t);

// Decodes a task message into t. NE_EVERSION for another wire version (errstr names it and the
// sender), NE_ECORRUPT for anything malformed (short, bad checksum, counts out of range, trailing
// bytes), NE_ENOMEM. Never reads outside data[0..len).
int ne__wire_decode_task(ne__wire_task* t, const void* data, size_t len, char* errstr);

// ---- results ------------------------------------------------------------------------------

// Appends a result message for results[0..n) (candidate indices idx[0..n)) to out (cleared first).
// With hdr->obs_dim > 0 each result's obs_count and sums are included, with hdr->bc_dim > 0 its
// behaviour characterization; when any result has a pre_fitness (meta-learning: not NaN) every
// result's is. With hdr->error set it is a failure report (n may be 0; failed_index, entry and the
// skipped list are included).
int ne__wire_encode_results(ne_buf* out, const ne__wire_result_hdr* hdr, const uint32_t* idx, const ne_result* results,
                            int n);

// Like ne__wire_encode_results, where result i with parts[i].n > 0 is of that part of its candidate
// (results[i].episodes == parts[i].n) and carries its per-episode returns: the parts' returns lie
// back to back in `returns`, in result order. Nullable: parts (and then returns).
int ne__wire_encode_results_parts(ne_buf* out, const ne__wire_result_hdr* hdr, const uint32_t* idx,
                                  const ne_result* results, const ne__wire_part* parts, const double* returns, int n);

void ne__wire_results_init(ne__wire_results* r);
void ne__wire_results_free(ne__wire_results* r);

// Decodes a result message (errors as ne__wire_decode_task). The sender's name is filled in as soon
// as it could be read, even when decoding fails later.
int ne__wire_decode_results(ne__wire_results* r, const void* data, size_t len, char* errstr);

// ---- blobs --------------------------------------------------------------------------------

// Appends a blob message (hash, n floats) to out (cleared first).
int ne__wire_encode_blob(ne_buf* out, uint64_t hash, const float* data, size_t n);

// Decodes a blob message that must hold exactly `n` floats under `hash` into out.
int ne__wire_decode_blob(const void* data, size_t len, uint64_t hash, size_t n, float* out, char* errstr);

// ---- shared contract ----------------------------------------------------------------------

// Reads the fixed prefix of any message: kind, version and sender name (sender may be NULL).
// Returns 0, or NE_ECORRUPT when even that is unreadable.
int ne__wire_peek(const void* data, size_t len, uint32_t* kind, int* version, char* sender, size_t sender_size);

// The build/spec fingerprint: library and wire versions, env and policy specs, and a short probe of
// the noise generator, the policy initializer and the env dynamics, so a worker whose build would
// compute different numbers is detected before its results are used. `synthetic` marks benchmark
// experiments (results without an env). Includes NEUROEVO_TEST_FINGERPRINT_SALT when set (a test
// hook that makes a worker look like another build).
uint64_t ne__wire_fingerprint(const ne_env_spec* env, const ne_policy_spec* policy, int synthetic);

// Experiment ids travel as 64-bit numbers and appear in keys as 16 lowercase hex digits.
void ne__wire_id_format(uint64_t id, char out[17]);
int ne__wire_id_parse(const char* text, uint64_t* id);

#endif
