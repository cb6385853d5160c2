// SPDX-License-Identifier: MIT
// Loads libmicrohttpd when a dashboard starts (mhd_api.h says why not at start-up).
#include "report/mhd_api.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "core/util.h"  // ne__set_error
#include "neuroevo/error.h"

#ifndef NE_MHD_SONAME
#error "NE_MHD_SONAME: the SONAME of the libmicrohttpd found by CMake"
#endif

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static ne_mhd_api api;
static int loaded;                   // 1 once every function was found
static char failure[NE_ERRSTR_LEN];  // why not, otherwise

static void load(void) {
  // RTLD_LOCAL: GnuTLS's symbols stay out of the global namespace
  void* handle = dlopen(NE_MHD_SONAME, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {  // dlerror names the library; Debian's package is the SONAME without ".so." (libfoo12)
    const char* so = strstr(NE_MHD_SONAME, ".so.");
    int stem = so ? (int)(so - NE_MHD_SONAME) : (int)strlen(NE_MHD_SONAME);
    snprintf(failure, sizeof failure, "%s; apt-get install %.*s%s", dlerror(), stem, NE_MHD_SONAME, so ? so + 4 : "");
    return;
  }
  loaded = 1;
#define NE_MHD_LOOKUP(name)                                                                                      \
  if (loaded) {                                                                                                  \
    void* p = dlsym(handle, #name);                                                                              \
    memcpy(&api.name, &p, sizeof p); /* object-to-function pointer without a cast warning */                     \
    if (!p) {                                                                                                    \
      snprintf(failure, sizeof failure, "%s lacks %s: not the version of the header built with?", NE_MHD_SONAME, \
               #name);                                                                                           \
      loaded = 0;                                                                                                \
    }                                                                                                            \
  }
  NE_MHD_FUNCTIONS(NE_MHD_LOOKUP)
#undef NE_MHD_LOOKUP
  if (!loaded) dlclose(handle);
}

const ne_mhd_api* ne__mhd(char* errstr) {
  pthread_once(&load_once, load);
  if (loaded) return &api;
  ne__set_error(errstr, NE_EUNSUPPORTED, "the dashboard needs libmicrohttpd: %s", failure);
  return NULL;
}
