// SPDX-License-Identifier: MIT
// Shared CLI plumbing (see cli_util.h). The stop flag is the one process-global the tool has, and
// it lives in the CLI: the library only ever reads the pointer it is given.
#include "cli/cli_util.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"
#include "neuroevo/config.h"
#include "neuroevo/error.h"

volatile int ne_cli_stop = 0;

static const char* stop_message = "";  // what the first signal prints (set before the handler)
static size_t stop_message_len;

static void on_signal(int sig) {
  if (ne_cli_stop) {
    signal(sig, SIG_DFL);
    raise(sig);
    return;
  }
  ne_cli_stop = sig;  // the signal number: the exit status is 128 + it, as a shell reports it
  ssize_t ignored = write(STDERR_FILENO, stop_message, stop_message_len);
  (void)ignored;
}

void ne_cli_install_stop_handler(const char* what) {
  static char msg[256];
  snprintf(msg, sizeof msg, "\nneuroevo: %s (Ctrl-C again to abort at once)\n", what);
  stop_message = msg;
  stop_message_len = strlen(msg);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
}

int ne_cli_stop_status(void) { return ne_cli_stop > 0 && ne_cli_stop < 64 ? 128 + ne_cli_stop : 130; }

int ne_cli_parse_int(const char* cmd, const char* option, const char* text, long long min, long long max,
                     long long* out) {
  char* end;
  errno = 0;
  long long v = text ? strtoll(text, &end, 10) : 0;
  if (!text || errno || end == text || *end || v < min || v > max) {
    fprintf(stderr, "neuroevo %s: %s expects an integer in [%lld, %lld], got '%s'\n", cmd, option, min, max,
            text ? text : "(nothing)");
    return 2;
  }
  *out = v;
  return 0;
}

int ne_cli_parse_double(const char* cmd, const char* option, const char* text, double min, double max, const char* unit,
                        double* out) {
  char* end;
  double v = text ? strtod(text, &end) : 0;
  if (!text || end == text || *end || !(v >= min && v <= max)) {
    fprintf(stderr, "neuroevo %s: %s expects %s in [%g, %g], got '%s'\n", cmd, option, unit, min, max,
            text ? text : "(nothing)");
    return 2;
  }
  *out = v;
  return 0;
}

int ne_cli_is_override(const char* arg) {
  // `section.key=value`, `key=value` (a slip the config loader names) and compare's `NAME:key=value`;
  // a file whose name has a '=' stays a config
  const char* eq = strchr(arg, '=');
  return eq && eq > arg && arg[0] != '-' && !memchr(arg, '/', (size_t)(eq - arg)) && access(arg, F_OK) != 0;
}

static void base_name(const char* path, char* name, size_t size) {
  const char* slash = strrchr(path, '/');
  const char* base = slash ? slash + 1 : path;
  size_t len = strlen(base);
  if (len > 4 && strcmp(base + len - 4, ".ini") == 0) len -= 4;
  snprintf(name, size, "%.*s", (int)len, base);
}

int ne_cli_find_config(const char* config, char* path, size_t path_size, char* name, size_t name_size) {
  base_name(config, name, name_size);
  char err[NE_ERRSTR_LEN];
  if (ne_config_find(config, NULL, path, path_size, err) == 0) return 0;
  fprintf(stderr, "neuroevo: %s\n", err);
  if (!strstr(err, "did you mean")) {  // no near miss: what there is
    static char names[16384];
    if (ne_config_names(names, sizeof names) > 0) fprintf(stderr, "named configs: %s\n", names);
  }
  return 2;
}

void ne_cli_print_notes(const ne_config* cfg) {
  // one "neuroevo: note: ..." line per note
  for (const char* p = ne_config_notes(cfg); *p;) {
    const char* nl = strchr(p, '\n');
    int len = nl ? (int)(nl - p) : (int)strlen(p);
    fprintf(stderr, "neuroevo: note: %.*s\n", len, p);
    p += len + (nl ? 1 : 0);
  }
}

int ne_cli_argc;
char** ne_cli_argv;

void ne_cli_origin_init(ne_cli_origin* o) {
  memset(o, 0, sizeof *o);
  // the whole command line main() got: a command that runs another one (cluster runs `run`)
  // records what the user typed
  o->origin.argv = (const char* const*)ne_cli_argv;
  o->origin.argc = ne_cli_argc;
  o->origin.tags = o->tags;
}

int ne_cli_origin_option(ne_cli_origin* o, const char* cmd, const char* option, const char* value, int* rc) {
  *rc = 0;
  if (strcmp(option, "--note") == 0) {
    o->origin.note = value;
    return 1;
  }
  if (strcmp(option, "--tag") != 0) return 0;
  if (!*value || strpbrk(value, ", \t\n")) {
    fprintf(stderr, "neuroevo %s: --tag '%s': a tag is one word without commas\n", cmd, value);
    *rc = 2;
  } else if (o->origin.n_tags == NE_CLI_MAX_TAGS) {
    fprintf(stderr, "neuroevo %s: at most %d tags\n", cmd, NE_CLI_MAX_TAGS);
    *rc = 2;
  } else {
    o->tags[o->origin.n_tags++] = value;
  }
  return 1;
}
