// SPDX-License-Identifier: MIT
// libcurl's functions that the MLflow tracker (track.c) calls, loaded with dlopen when a tracked run
// starts: linking libcurl would load it, OpenSSL and their constructors into every process that
// loads libneuroevo (each command, test and Redis worker) for a feature only tracked runs use. The
// header still describes the ABI; the SONAME opened is the one of the library found at configure
// time (NE_CURL_SONAME). Only built with NE_HAVE_CURL.
#ifndef NE_RUN_CURL_API_H
#define NE_RUN_CURL_API_H

// curl_easy_setopt and curl_easy_getinfo are type-checking macros otherwise, which would expand in
// `api->curl_easy_setopt(...)` too
#define CURL_DISABLE_TYPECHECK
#include <curl/curl.h>

// Every function the tracker uses: X(name) expands once per function.
// clang-format off
#define NE_CURL_FUNCTIONS(X) \
  X(curl_global_init) \
  X(curl_easy_init) \
  X(curl_easy_setopt) \
  X(curl_easy_perform) \
  X(curl_easy_getinfo) \
  X(curl_easy_cleanup) \
  X(curl_easy_strerror) \
  X(curl_easy_escape) \
  X(curl_free) \
  X(curl_slist_append) \
  X(curl_slist_free_all)
// clang-format on

// One pointer per function, each of the function's own type.
typedef struct ne_curl_api {
#define NE_CURL_POINTER(name) __typeof__(name)* name;
  NE_CURL_FUNCTIONS(NE_CURL_POINTER)
#undef NE_CURL_POINTER
} ne_curl_api;

// The functions, loaded and curl_global_init'ed on the first call (thread-safe; the library then
// stays loaded for the life of the process, owned by nobody). NULL with errstr (may be NULL)
// saying what is missing and which Debian package provides it.
const ne_curl_api* ne__curl(char* errstr);

#endif
