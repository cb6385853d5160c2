// SPDX-License-Identifier: MIT
// What bench_redis and bench_scale share: started without a URL (as `make bench` runs them), each
// hands over to its driver script, which starts redis-server, the workers and everything else and
// then runs the program again with a URL.
#ifndef NE_BENCH_DRIVER_H
#define NE_BENCH_DRIVER_H

#include <libgen.h>  // dirname
#include <stdio.h>
#include <unistd.h>  // readlink, execlp

// Replaces this process with `bash SCRIPT BUILD`: SCRIPT is `script` in the source tree's
// bench/cluster/ (NE_SOURCE_DIR, which CMake defines for every benchmark), BUILD the build
// directory this program lives in (its bench/ folder's parent). Returns 2 only when that fails.
static inline int bench_run_driver(const char* script) {
  char exe[4096], path[4200];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return 2;
  exe[n] = '\0';
  char* build = dirname(dirname(exe));
  snprintf(path, sizeof path, "%s/bench/cluster/%s", NE_SOURCE_DIR, script);
  execlp("bash", "bash", path, build, (char*)NULL);
  perror(path);
  return 2;
}

#endif
