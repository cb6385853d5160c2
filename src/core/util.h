// SPDX-License-Identifier: MIT
// Internal helpers every module uses: the one place that formats errstr, near-miss suggestions for
// misspelled names, and atomic whole-file writes (temp, fsync, rename, fsync dir). Not public API.
#ifndef NEUROEVO_UTIL_H
#define NEUROEVO_UTIL_H

#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "neuroevo/error.h"

// Formats a message into errstr (NE_ERRSTR_LEN bytes) and returns code, so call sites read
// `return ne__set_error(errstr, NE_EINVAL, "...", ...)`. Nullable: errstr.
int ne__set_error(char* errstr, int code, const char* fmt, ...) __attribute__((format(printf, 3, 4)));

// Levenshtein distance between two strings (case-sensitive).
int ne__edit_distance(const char* a, const char* b);

// The choice nearest to `name` if it is a plausible misspelling (distance <= max(2, len/3)), or
// NULL. `choices` has n entries.
const char* ne__nearest(const char* name, const char* const* choices, int n);

// Writes data to path atomically: path.tmp.PID, fsync, rename over path, fsync the directory.
// Returns 0 or NE_EIO with the reason. Nullable: errstr.
int ne__write_file_atomic(const char* path, const void* data, size_t len, char* errstr);

// Reads a whole file into a new NUL-terminated buffer; caller frees with ne_free. *len gets the
// byte count (without the NUL). Returns 0, NE_ENOTFOUND, NE_EIO or NE_ENOMEM. Nullable: len, errstr.
int ne__read_file(const char* path, char** out, size_t* len, char* errstr);

// mkdir -p; returns 0 or NE_EIO.
int ne__mkdir_p(const char* path, char* errstr);

// Monotonic seconds, for progress and throughput (never for anything that affects results).
double ne__now(void);

// Writes "<prefix>: <message>\n" to out and flushes it (workers', relays' and masters' logs are
// read while they run, often through a pipe).
void ne__vsay(FILE* out, const char* prefix, const char* fmt, va_list ap) __attribute__((format(printf, 3, 0)));

// Sleeps s seconds (a signal may cut it short: callers look at their stop flags after it).
void ne__sleep_s(double s);

// Waits on cv (mu held, as pthread_cond_wait) for at most ms milliseconds: threads that must also
// look at a flag no one signals wake up this often.
void ne__cond_wait_ms(pthread_cond_t* cv, pthread_mutex_t* mu, int ms);

// 64 bits from /dev/urandom mixed with the clock and the PID, for identities that must not
// collide (experiment ids, default worker names); never for anything that affects results.
uint64_t ne__random_u64(void);

// The value of key in [section] of INI text into out (size bytes; surrounding blanks and an inline
// " ; comment" dropped); 0 if found, -1 if not. A plain line scan without the config loader, so
// that readers of run directories (plots, listings, the dashboard) also read the config.ini of
// newer or older versions.
int ne__ini_get(const char* text, const char* section, const char* key, char* out, size_t size);

// "12.3s", "4m05s" or "2h07m" ("-" for a negative or non-finite s) into buf: durations in
// progress lines, listings and pages.
void ne__fmt_duration(double s, char* buf, size_t size);

// v with a k/M/G suffix ("729.4k", "1.51M"; "-" when not finite) into buf: counts for humans.
void ne__fmt_count(double v, char* buf, size_t size);

#endif
