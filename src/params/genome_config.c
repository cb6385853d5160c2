// SPDX-License-Identifier: MIT
// Genome headers and configs (see genome.h): the [env], [policy] and [meta] keys of a config written
// as a genome file's header fields, so that the file alone rebuilds exactly the same env, policy and
// inner loop (`neuroevo eval`, `--adapt`), and such fields applied back onto a config as overrides.
#include <stdio.h>
#include <string.h>

#include "neuroevo/config.h"
#include "neuroevo/genome.h"

int ne_genome_header_from_config(const ne_config* cfg, ne_genome_header* header) {
  memset(header, 0, sizeof *header);
  const ne_config_key* schema = ne_config_schema();
  int n = ne_config_schema_count();
  char key[NE_GENOME_KEY_LEN], value[NE_GENOME_VAL_LEN];
  for (int i = 0; i < n; i++) {
    const ne_config_key* k = &schema[i];
    // [meta] too: `neuroevo eval --adapt` runs the inner loop the agent was trained with
    if (strcmp(k->section, "env") != 0 && strcmp(k->section, "policy") != 0 && strcmp(k->section, "meta") != 0)
      continue;
    snprintf(key, sizeof key, "%s.%s", k->section, k->key);
    // render the value in its config text form
    switch (k->type) {
      case NE_CFG_INT: snprintf(value, sizeof value, "%lld", (long long)ne_config_int(cfg, k->section, k->key)); break;
      case NE_CFG_FLOAT: snprintf(value, sizeof value, "%.17g", ne_config_float(cfg, k->section, k->key)); break;
      case NE_CFG_BOOL:
        snprintf(value, sizeof value, "%s", ne_config_bool(cfg, k->section, k->key) ? "true" : "false");
        break;
      case NE_CFG_INTLIST: {
        int items[64];
        int m = ne_config_intlist(cfg, k->section, k->key, items, 64);
        size_t used = 0;
        value[0] = '\0';
        for (int j = 0; j < m && j < 64; j++)
          used += (size_t)snprintf(value + used, sizeof value - used, "%s%d", j ? "," : "", items[j]);
        break;
      }
      default: snprintf(value, sizeof value, "%s", ne_config_str(cfg, k->section, k->key)); break;
    }
    int rc = ne_genome_header_set(header, key, value);
    if (rc) return rc;
  }
  return 0;
}

int ne_genome_header_to_config(const ne_genome_header* header, ne_config* cfg, const char* origin, char* errstr) {
  char assignment[NE_GENOME_KEY_LEN + NE_GENOME_VAL_LEN + 2];
  // what a header written before policy.tanh and policy.fma existed meant; its own values, if any,
  // come after and win
  int rc = ne_config_set(cfg, "policy", "tanh", "double", origin, errstr);
  if (rc == 0) rc = ne_config_set(cfg, "policy", "fma", "false", origin, errstr);
  if (rc) return rc;
  for (int i = 0; i < header->n; i++) {
    snprintf(assignment, sizeof assignment, "%s=%s", header->key[i], header->value[i]);
    rc = ne_config_override(cfg, assignment, origin, errstr);
    if (rc) return rc;
  }
  return 0;
}
