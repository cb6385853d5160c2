// SPDX-License-Identifier: MIT
// Seed-chain genomes (Such et al. 2017): theta = init(s0) + sigma * sum_{i>=1} eps(s_i). A genome
// travels as its seeds; its text form is what `neuroevo eval --genome` reads. A file holds header
// fields (the config keys needed to rebuild the policy: env.id, policy.*) and then one `seeds` line.
//
//   # neuroevo genome v1
//   env.id = CartPole-v1
//   policy.hidden = 64,64
//   sigma = 0.005
//   seeds = 81737 1231 99
#ifndef NEUROEVO_GENOME_H
#define NEUROEVO_GENOME_H

#include <stddef.h>
#include <stdint.h>

#include "neuroevo/config.h"
#include "neuroevo/policy.h"

#ifdef __cplusplus
extern "C" {
#endif

#define NE_GENOME_MAX_HEADER 48  // header fields a file may carry ([env], [policy], [meta]: 25 today)
#define NE_GENOME_KEY_LEN 64
#define NE_GENOME_VAL_LEN 256

// A seed chain. seeds[0] is the init seed; seeds[1..] are mutation seeds, oldest first.
typedef struct ne_genome {
  float sigma;      // mutation power applied to every mutation seed
  size_t n_seeds;   // chain length, >= 1
  size_t cap;       // allocated capacity of seeds
  uint64_t* seeds;  // (cap) owned; freed by ne_genome_free
} ne_genome;

// The `key = value` lines of a genome file before its seeds.
typedef struct ne_genome_header {
  int n;                                                // number of fields
  char key[NE_GENOME_MAX_HEADER][NE_GENOME_KEY_LEN];    // e.g. "env.id"
  char value[NE_GENOME_MAX_HEADER][NE_GENOME_VAL_LEN];  // e.g. "CartPole-v1"
} ne_genome_header;

// Initializes an empty genome (no allocation). ne_genome_free releases what later calls allocate.
void ne_genome_init(ne_genome* g);

// Frees the seeds and resets to empty. Nullable: g.
void ne_genome_free(ne_genome* g);

// Replaces g's chain by a copy of seeds[0..n). Returns 0 or NE_ENOMEM.
int ne_genome_set(ne_genome* g, const uint64_t* seeds, size_t n, float sigma);

// Appends a mutation seed. Returns 0 or NE_ENOMEM.
int ne_genome_push(ne_genome* g, uint64_t seed);

// Writes the seeds line "seeds = s0 s1 ..." (with newline) into a new string; caller frees with
// ne_free. Returns NULL on allocation failure.
char* ne_genome_format_seeds(const ne_genome* g);

// Parses a whole genome text (header lines, `sigma = x`, `seeds = ...`). `name` is used in error
// messages (file name); errors name the line. Returns 0, NE_EPARSE or NE_ENOMEM.
// Nullable: header (fields are then ignored), errstr.
int ne_genome_parse(const char* text, const char* name, ne_genome* g, ne_genome_header* header, char* errstr);

// Prints a genome file's full text into a new string; caller frees with ne_free. Nullable: header.
char* ne_genome_format(const ne_genome* g, const ne_genome_header* header);

// Reads / atomically writes (temp file, fsync, rename) a genome file. Nullable: header, errstr.
int ne_genome_read_file(const char* path, ne_genome* g, ne_genome_header* header, char* errstr);
int ne_genome_write_file(const char* path, const ne_genome* g, const ne_genome_header* header, char* errstr);

// Adds a header field; returns NE_ERANGE when full or a string is too long.
int ne_genome_header_set(ne_genome_header* h, const char* key, const char* value);

// Looks a header field up; NULL when absent.
const char* ne_genome_header_get(const ne_genome_header* h, const char* key);

// Writes the [env] and [policy] keys of cfg as header fields ("env.id", "policy.hidden", ...), so a
// genome file is self-contained. Returns 0 or NE_ERANGE.
int ne_genome_header_from_config(const ne_config* cfg, ne_genome_header* header);

// Applies such header fields onto cfg as overrides; `origin` names them in messages (e.g. the file).
// A header without policy.tanh was written before that key existed: its policy computed tanh in
// double, so cfg gets policy.tanh = double unless the header names it. Nullable: errstr.
int ne_genome_header_to_config(const ne_genome_header* header, ne_config* cfg, const char* origin, char* errstr);

// Materializes by replaying the whole chain: O(n * P). The reference the cache must agree with.
void ne_genome_materialize(const ne_policy_spec* spec, const uint64_t* seeds, size_t n, float sigma, float* out);

// Identity of a chain prefix for caches: ne_chain_hash(spec, seeds, n) ==
// ne_chain_extend(ne_chain_hash(spec, seeds, n - 1), sigma, seeds[n-1]) for n >= 2.
uint64_t ne_chain_root(const ne_policy_spec* spec, uint64_t init_seed);
uint64_t ne_chain_extend(uint64_t prefix_hash, float sigma, uint64_t seed);
uint64_t ne_chain_hash(const ne_policy_spec* spec, const uint64_t* seeds, size_t n, float sigma);

#ifdef __cplusplus
}
#endif
#endif
