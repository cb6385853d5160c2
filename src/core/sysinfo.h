// SPDX-License-Identifier: MIT
// What a run's provenance says about the machine and the process (run.json): the build, the host,
// the CPU model, and whether a process recorded as running is still that process. Linux reads
// (/proc); elsewhere the fields say "unknown" and a recorded process counts as alive. Called at a
// run's start and end and by listings, never per step. Not public API.
#ifndef NEUROEVO_CORE_SYSINFO_H
#define NEUROEVO_CORE_SYSINFO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

// The build: neuroevo's version, the git commit it was built from ("unknown" outside a
// checkout; "-dirty" when the tree had changes), the compiler and the build type. Static strings.
typedef struct ne__build_info {
  const char* version;   // "0.1.0"
  const char* commit;    // `git describe --always --dirty` of the source tree at build time
  const char* compiler;  // "GNU 12.2.0"
  const char* type;      // "Release", "Debug+asan+ubsan"
} ne__build_info;

const ne__build_info* ne__build(void);

// This machine's host name into buf ("unknown" if none).
void ne__host_name(char* buf, size_t size);

// The CPU's model name (/proc/cpuinfo) into buf ("unknown" if none).
void ne__cpu_model(char* buf, size_t size);

// The kernel: "Linux 6.1.0-..." (uname) into buf.
void ne__os_name(char* buf, size_t size);

// When process pid started, in clock ticks since boot (/proc/PID/stat); 0 if unknown. With the
// pid it names one process for good: a pid reused later has another start.
uint64_t ne__proc_start(pid_t pid);

// 1 while the process (pid, start as ne__proc_start gave it; 0: not recorded) still runs on this
// machine, 0 once it is gone (or the pid now belongs to another process).
int ne__proc_alive(pid_t pid, uint64_t start);

// The current UTC time as ISO 8601 ("2025-06-01T12:34:56Z") into buf (>= 21 bytes).
void ne__utc_now(char* buf, size_t size);

#endif
