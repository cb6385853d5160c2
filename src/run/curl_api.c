// SPDX-License-Identifier: MIT
// Loads libcurl when a tracked run starts (curl_api.h says why not at start-up).
#include "run/curl_api.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "core/util.h"  // ne__set_error
#include "neuroevo/error.h"

#ifndef NE_CURL_SONAME
#error "NE_CURL_SONAME: the SONAME of the libcurl found by CMake"
#endif

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static ne_curl_api api;
static int loaded;                   // 1 once every function was found and curl_global_init ran
static char failure[NE_ERRSTR_LEN];  // why not, otherwise

static void load(void) {
  // RTLD_LOCAL: OpenSSL's symbols stay out of the global namespace
  void* handle = dlopen(NE_CURL_SONAME, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    snprintf(failure, sizeof failure, "%s; apt-get install libcurl4", dlerror());
    return;
  }
  loaded = 1;
#define NE_CURL_LOOKUP(name)                                                                                      \
  if (loaded) {                                                                                                   \
    void* p = dlsym(handle, #name);                                                                               \
    memcpy(&api.name, &p, sizeof p); /* object-to-function pointer without a cast warning */                      \
    if (!p) {                                                                                                     \
      snprintf(failure, sizeof failure, "%s lacks %s: not the version of the header built with?", NE_CURL_SONAME, \
               #name);                                                                                            \
      loaded = 0;                                                                                                 \
    }                                                                                                             \
  }
  NE_CURL_FUNCTIONS(NE_CURL_LOOKUP)
#undef NE_CURL_LOOKUP
  // once per process, before any handle: curl_global_init is not thread-safe in older libcurls,
  // and pthread_once makes this the only call
  if (loaded && api.curl_global_init(CURL_GLOBAL_DEFAULT) != 0) {
    snprintf(failure, sizeof failure, "curl_global_init failed");
    loaded = 0;
  }
  if (!loaded) dlclose(handle);
}

const ne_curl_api* ne__curl(char* errstr) {
  pthread_once(&load_once, load);
  if (loaded) return &api;
  ne__set_error(errstr, NE_EUNSUPPORTED, "MLflow tracking needs libcurl: %s", failure);
  return NULL;
}
