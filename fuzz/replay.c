// SPDX-License-Identifier: MIT
// Corpus replay without libFuzzer: links one fuzz target and runs it once over each file named on
// the command line (or each file of a named directory). Built by every build (gcc included), so
// `make test` replays the checked-in corpora and the crash regressions under ASan without clang.
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "core/util.h"  // ne__read_file
#include "fuzz.h"
#include "neuroevo/error.h"

// runs the target over one file; 1 if it could not be read
static int replay_file(const char* path) {
  char* data = NULL;
  size_t len = 0;
  char err[NE_ERRSTR_LEN];
  if (ne__read_file(path, &data, &len, err)) return fprintf(stderr, "replay: %s\n", err), 1;
  LLVMFuzzerTestOneInput((const uint8_t*)data, len);
  ne_free(data);
  return 0;
}

// a directory's regular files, in readdir order (each input is independent)
static int replay_dir(const char* dir, int* count) {
  DIR* d = opendir(dir);
  if (!d) return fprintf(stderr, "replay: cannot open %s\n", dir), 1;
  int bad = 0;
  struct dirent* e;
  char path[4096];
  while ((e = readdir(d))) {
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    if (e->d_name[0] == '.' || stat(path, &st) != 0 || !S_ISREG(st.st_mode)) continue;
    bad |= replay_file(path);
    (*count)++;
  }
  closedir(d);
  return bad;
}

int main(int argc, char** argv) {
  int bad = 0, count = 0;
  for (int i = 1; i < argc; i++) {
    struct stat st;
    if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
      bad |= replay_dir(argv[i], &count);
    } else {
      bad |= replay_file(argv[i]);
      count++;
    }
  }
  fprintf(stderr, "replay: %d input(s) ran without a crash\n", count);
  return bad || count == 0;
}
