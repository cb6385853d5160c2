// SPDX-License-Identifier: MIT
// `neuroevo config [SECTION]`: the reference of the config keys (every section, or one), printed
// from the schema as Markdown: docs/configuration.md holds the same text, and ctest
// config_reference fails when the two differ. Reads the schema only; loads no config.
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "neuroevo/alloc.h"
#include "neuroevo/config.h"
#include "neuroevo/error.h"

#define CMD "neuroevo config"

static void usage(FILE* out) {
  fprintf(out,
          "usage: " CMD
          " [SECTION]\n\n"
          "Prints every config key of SECTION (e.g. es; all sections by default) as Markdown: the\n"
          "section's purpose and the algorithms that use it, then per key its value form, default and\n"
          "meaning. A config file sets keys under [section] headers; the command line overrides them\n"
          "as section.key=value. docs/configuration.md is this output (scripts/config-reference).\n");
}

int ne_cmd_config(int argc, char** argv) {
  if (ne_cli_wants_help(argc, argv)) {
    usage(stdout);
    return 0;
  }
  if (argc > 2 || (argc == 2 && argv[1][0] == '-')) {
    fprintf(stderr, CMD ": unexpected argument '%s' (see " CMD " --help)\n", argv[argc - 1]);
    return 2;
  }
  // "[es]" works as well as "es"
  char section[64] = {0};
  if (argc == 2) {
    const char* s = argv[1];
    size_t n = strlen(s);
    if (n >= 2 && s[0] == '[' && s[n - 1] == ']') s++, n -= 2;
    snprintf(section, sizeof section, "%.*s", (int)n, s);
  }
  char err[NE_ERRSTR_LEN];
  char* text = ne_config_reference(argc == 2 ? section : NULL, err);
  if (!text) {
    fprintf(stderr, CMD ": %s\n", err);
    return 2;
  }
  fputs(text + (text[0] == '\n'), stdout);
  ne_free(text);
  return 0;
}
