// SPDX-License-Identifier: MIT
// Private to the config module (config.c, config_schema.c, tests/test_config.c): the section table
// behind the flat schema that ne_config_schema() returns. Not for other modules: they read values
// through the typed getters in neuroevo/config.h.
#ifndef NEUROEVO_CONFIG_INT_H
#define NEUROEVO_CONFIG_INT_H

#include "neuroevo/config.h"

// Most items an INTLIST value may hold (storage is inline in each value).
#define NE__CFG_LIST_CAP 32

// One [section] of the schema: its keys and, for algorithm-specific sections, the algorithm.
typedef struct ne__cfg_section {
  const char* name;           // section name, e.g. "ga"
  const ne_config_key* keys;  // (n_keys) this section's keys, in the order they are written
  int n_keys;                 // number of keys
  // the run.algorithm values this section configures, '|'-separated (e.g. "es|ns-es"); NULL: used by
  // every algorithm. "ga:novelty" means ga uses it only while the bool key [ga] novelty is true.
  const char* algorithm;
  const char* help;  // one line written above the section by ne_config_format
} ne__cfg_section;

// The sections in schema order; *n gets the count. Static data, never freed.
const ne__cfg_section* ne__config_sections(int* n);

// Most items allowed in the INTLIST `key` (at most NE__CFG_LIST_CAP).
int ne__config_list_max(const ne_config_key* key);

// How `sec` relates to run.algorithm `algo`: 1 it is in use (shared, or listed for algo with its
// switch on), 0 it belongs to other algorithms, -1 algo lists it but its switch key is off; then
// switch_key (64 bytes) gets that key as "section.key". Nullable: switch_key.
int ne__config_section_use(const ne_config* cfg, const ne__cfg_section* sec, const char* algo, char* switch_key);
// What `key` meant in a resolved config written before it existed (or before its default
// changed), or NULL when that is its default (ne_config_load_string applies it). Static data.
const char* ne__config_legacy_value(const ne_config_key* key);

// The "section configured for another algorithm" check of ne_config_validate, over an explicit
// section table so that tests can exercise algorithms the schema does not have yet. Nullable: errstr.
int ne__config_check_algorithm_sections(const ne_config* cfg, const ne__cfg_section* sections, int n, char* errstr);

#endif
