// SPDX-License-Identifier: MIT
// libmicrohttpd's functions that the dashboard (dashboard.c) calls, loaded with dlopen when a
// dashboard starts. Linking it made every process that loads libneuroevo map libmicrohttpd and
// GnuTLS with its seven dependencies and run their constructors: ~1.3 ms of CPU before main() for
// every `neuroevo` command, test and Redis worker, for a feature only `neuroevo dashboard` and
// `run --dashboard` use. The header still describes the ABI; the SONAME opened is the one of the
// library found at configure time (NE_MHD_SONAME). Only built with NE_HAVE_MICROHTTPD.
#ifndef NE_REPORT_MHD_API_H
#define NE_REPORT_MHD_API_H

#include <microhttpd.h>

// Every function the dashboard uses: X(name) expands once per function.
// clang-format off
#define NE_MHD_FUNCTIONS(X) \
  X(MHD_start_daemon) \
  X(MHD_stop_daemon) \
  X(MHD_get_daemon_info) \
  X(MHD_lookup_connection_value) \
  X(MHD_create_response_from_buffer) \
  X(MHD_add_response_header) \
  X(MHD_queue_response) \
  X(MHD_destroy_response)
// clang-format on

// One pointer per function, each of the function's own type.
typedef struct ne_mhd_api {
#define NE_MHD_POINTER(name) __typeof__(name)* name;
  NE_MHD_FUNCTIONS(NE_MHD_POINTER)
#undef NE_MHD_POINTER
} ne_mhd_api;

// The functions, loaded on the first call (thread-safe; the library then stays loaded for the life
// of the process, owned by nobody). NULL with errstr (may be NULL) saying what is missing and which
// Debian package provides it.
const ne_mhd_api* ne__mhd(char* errstr);

#endif
