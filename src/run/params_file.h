// SPDX-License-Identifier: MIT
// best.params: the text form of a vector solution (ES, ARS, PGPE, SNES; any algorithm whose best is
// an explicit parameter vector rather than a seed chain). Like a genome file it is self-contained:
// the [env]/[policy] header fields, then the observation normalization the parameters were trained
// with (if any), then the parameters, every float printed with %.9g so it reads back bit for bit.
//
//   # neuroevo params v1
//   env.id = Pendulum-v1
//   policy.hidden = 32,32
//   ...
//   score = -143.2
//   generation = 57
//   obs_clip = 5
//   obs_mean = 0.01 -0.2 0.03
//   obs_std = 0.7 0.7 2.9
//   params = 0.0123 -0.456 ...
//
// Not public API: used by the runner (write) and `neuroevo eval` (read).
#ifndef NEUROEVO_PARAMS_FILE_H
#define NEUROEVO_PARAMS_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "neuroevo/algo.h"
#include "neuroevo/genome.h"

#define NE_PARAMS_FILE_MAGIC "# neuroevo params v1"

// A parsed params file. Arrays are owned; ne__params_file_free releases them.
typedef struct ne_params_file {
  ne_genome_header header;  // env.* / policy.* fields
  double score;             // score line (NaN if absent)
  uint32_t generation;      // generation line (0 if absent)
  size_t n_params;          // length of params
  float* params;            // (n_params)
  int obs_dim;              // length of obs_mean / obs_std (0: no normalization)
  float* obs_mean;          // (obs_dim)
  float* obs_std;           // (obs_dim)
  float obs_clip;           // clip of normalized observations (0: none)
} ne_params_file;

// Writes best's parameters (and normalization, if best has one) with header h to path atomically.
// Returns 0, NE_ENOMEM or NE_EIO with errstr. Nullable: errstr.
int ne__params_file_write(const char* path, const ne_genome_header* h, const ne_best* best, char* errstr);

// Reads a params file; errors name the file and line. Returns 0, NE_ENOTFOUND, NE_EIO, NE_EPARSE or
// NE_ENOMEM. On success free with ne__params_file_free. Nullable: errstr.
int ne__params_file_read(const char* path, ne_params_file* out, char* errstr);

// Parses params-file text (what ne__params_file_read does after reading the file; the fuzzer's
// entry point). `name` stands for the file in messages. Frees as ne__params_file_read. Nullable: errstr.
int ne__params_file_parse(const char* text, const char* name, ne_params_file* out, char* errstr);

// Frees the arrays. Nullable: f.
void ne__params_file_free(ne_params_file* f);

// 1 if the file at path starts with NE_PARAMS_FILE_MAGIC (a params file, not a genome), else 0.
int ne__params_file_sniff(const char* path);

#endif
