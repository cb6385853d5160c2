// SPDX-License-Identifier: MIT
// Machine and process facts for provenance (see sysinfo.h). Each call reads /proc afresh: they are
// made a few times per run.
#include "core/sysinfo.h"

#include <errno.h>
#include <signal.h>  // kill(pid, 0): does the process exist
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "build_info.h"  // NE_BUILD_COMMIT, NE_BUILD_COMPILER, NE_BUILD_TYPE (cmake/build_info.cmake)
#include "neuroevo/version.h"

const ne__build_info* ne__build(void) {
  static const ne__build_info info = {NE_VERSION_STRING, NE_BUILD_COMMIT, NE_BUILD_COMPILER, NE_BUILD_TYPE};
  return &info;
}

void ne__host_name(char* buf, size_t size) {
  if (gethostname(buf, size) != 0 || !buf[0]) snprintf(buf, size, "unknown");
  buf[size - 1] = '\0';
}

void ne__cpu_model(char* buf, size_t size) {
  snprintf(buf, size, "unknown");
  FILE* f = fopen("/proc/cpuinfo", "r");
  if (!f) return;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    // x86: "model name : ...", arm64: no model name, "CPU part" instead (left as unknown)
    if (strncmp(line, "model name", 10) != 0) continue;
    const char* colon = strchr(line, ':');
    if (!colon) continue;
    colon++;
    while (*colon == ' ' || *colon == '\t') colon++;
    size_t n = strcspn(colon, "\n");
    snprintf(buf, size, "%.*s", (int)n, colon);
    break;
  }
  fclose(f);
}

void ne__os_name(char* buf, size_t size) {
  struct utsname u;
  if (uname(&u) == 0) snprintf(buf, size, "%s %s %s", u.sysname, u.release, u.machine);
  else snprintf(buf, size, "unknown");
}

// /proc/PID/stat's state letter and start time (field 3 and 22); 0 when unreadable
static int proc_stat(pid_t pid, char* state, uint64_t* start) {
  char path[64], text[1024];
  snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
  FILE* f = fopen(path, "r");
  if (!f) return 0;
  size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = '\0';
  // field 2 (comm) may hold spaces and parentheses: count fields after its last ')'
  const char* p = strrchr(text, ')');
  if (!p || p[1] != ' ') return 0;
  *state = p[2];
  for (int field = 2; field < 22 && p; field++) p = strchr(p + 1, ' ');
  *start = p ? strtoull(p + 1, NULL, 10) : 0;
  return 1;
}

uint64_t ne__proc_start(pid_t pid) {
  char state;
  uint64_t start;
  return proc_stat(pid, &state, &start) ? start : 0;
}

int ne__proc_alive(pid_t pid, uint64_t start) {
  if (pid <= 0) return 0;
  if (kill(pid, 0) != 0 && errno == ESRCH) return 0;
  char state;
  uint64_t now;
  if (!proc_stat(pid, &state, &now)) return 1;  // no /proc: assume it is
  if (state == 'Z' || state == 'X') return 0;   // dead, not yet reaped by its parent
  return start == 0 || now == start;
}

void ne__utc_now(char* buf, size_t size) {
  time_t t = time(NULL);
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}
