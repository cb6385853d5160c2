// SPDX-License-Identifier: MIT
// Loads FFmpeg's libraries at the MP4 writer's first use (libav_api.h says why not at start-up).
#include "report/libav_api.h"

#include <dlfcn.h>
#include <libavcodec/version.h>
#include <libavformat/version.h>
#include <libavutil/macros.h>  // AV_STRINGIFY
#include <libavutil/version.h>
#include <libswscale/version.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "core/util.h"  // ne__set_error
#include "neuroevo/error.h"

// the SONAMEs of the ABI the headers describe
static const char* const LIBRARIES[] = {
    "libavformat.so." AV_STRINGIFY(LIBAVFORMAT_VERSION_MAJOR),
    "libavcodec.so." AV_STRINGIFY(LIBAVCODEC_VERSION_MAJOR),
    "libswscale.so." AV_STRINGIFY(LIBSWSCALE_VERSION_MAJOR),
    "libavutil.so." AV_STRINGIFY(LIBAVUTIL_VERSION_MAJOR),
};
#define N_LIBRARIES (sizeof LIBRARIES / sizeof LIBRARIES[0])

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static ne_libav_api api;
static int loaded;                   // 1 once every function was found
static char failure[NE_ERRSTR_LEN];  // why not, otherwise

// name's address in the first of the libraries that has it (dlsym also searches a library's own
// dependencies: avutil's functions are found through avformat)
static void* find(void* const* handles, const char* name) {
  for (size_t i = 0; i < N_LIBRARIES; i++) {
    void* p = dlsym(handles[i], name);
    if (p) return p;
  }
  return NULL;
}

// opens every library, then looks every function up; on failure closes what it opened
static void load(void) {
  void* handles[N_LIBRARIES] = {NULL};
  size_t opened = 0;
  for (; opened < N_LIBRARIES; opened++) {
    // RTLD_LOCAL: their symbols stay out of the global namespace (MuJoCo's GL loader and others)
    handles[opened] = dlopen(LIBRARIES[opened], RTLD_NOW | RTLD_LOCAL);
    if (!handles[opened]) {
      // dlerror names the library
      snprintf(failure, sizeof failure, "%s; apt-get install libavformat%d libavcodec%d libswscale%d", dlerror(),
               LIBAVFORMAT_VERSION_MAJOR, LIBAVCODEC_VERSION_MAJOR, LIBSWSCALE_VERSION_MAJOR);
      break;
    }
  }
  if (opened == N_LIBRARIES) {
    loaded = 1;
#define NE_LIBAV_LOOKUP(name)                                                                                      \
  if (loaded) {                                                                                                    \
    void* p = find(handles, #name);                                                                                \
    memcpy(&api.name, &p, sizeof p); /* object-to-function pointer without a cast warning */                       \
    if (!p) {                                                                                                      \
      snprintf(failure, sizeof failure, "%s (and the others) lack %s: not the version of the headers built with?", \
               LIBRARIES[0], #name);                                                                               \
      loaded = 0;                                                                                                  \
    }                                                                                                              \
  }
    NE_LIBAV_FUNCTIONS(NE_LIBAV_LOOKUP)
#undef NE_LIBAV_LOOKUP
  }
  if (!loaded) {
    for (size_t i = 0; i < opened; i++) dlclose(handles[i]);
    return;
  }
  // libav prints at AV_LOG_INFO by default, and x264 its statistics at close: the CLI prints its
  // own one-line summary, so only libav's errors reach stderr
  api.av_log_set_level(AV_LOG_ERROR);
}

const ne_libav_api* ne__libav(char* errstr) {
  pthread_once(&load_once, load);
  if (loaded) return &api;
  ne__set_error(errstr, NE_EUNSUPPORTED, "MP4 videos need FFmpeg's libraries: %s (or write a .gif)", failure);
  return NULL;
}
