// SPDX-License-Identifier: MIT
// Finding config files by name (see ne_config_find in config.h): the command line's CONFIG
// arguments, the Python package's config names and `[run] base = NAME` all resolve here, so a
// name means the same file everywhere. The search path is small (a few directories), read from the
// environment on each call: the lookups happen at start-up, never in a loop.
#include <dirent.h>  // listing a directory's configs for near-miss suggestions
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"
#include "neuroevo/alloc.h"
#include "neuroevo/config.h"
#include "neuroevo/error.h"

#define MAX_DIRS 16
#define MAX_NAMES 512  // config names considered for a suggestion

#ifndef NE_SOURCE_DIR
#define NE_SOURCE_DIR "."
#endif

// 1 when text names a file rather than a config: it has a '/' or ends in .ini
static int is_path(const char* text) {
  size_t n = strlen(text);
  return strchr(text, '/') || (n > 4 && strcmp(text + n - 4, ".ini") == 0);
}

// The directories searched, in order: from's directory (when given), each entry of
// $NEUROEVO_CONFIG_PATH, ./configs, this source tree's configs/. dirs may point into buf.
static int search_dirs(const char* from, const char** dirs, char* buf, size_t size) {
  int n = 0;
  size_t used = 0;
  if (from) {  // its directory: "." for a bare file name
    const char* slash = strrchr(from, '/');
    int len = slash ? (int)(slash - from) : 0;
    used = (size_t)snprintf(buf, size, "%.*s", slash ? (len ? len : 1) : 1, slash ? from : ".") + 1;
    dirs[n++] = buf;
  }
  const char* env = getenv("NEUROEVO_CONFIG_PATH");
  if (env && used < size) {
    char* list = buf + used;
    snprintf(list, size - used, "%s", env);
    char* save = NULL;
    for (char* d = strtok_r(list, ":", &save); d && n < MAX_DIRS - 2; d = strtok_r(NULL, ":", &save)) dirs[n++] = d;
  }
  dirs[n++] = "configs";
  dirs[n++] = NE_SOURCE_DIR "/configs";
  return n;
}

// the names of the .ini files in dir (base names without .ini) appended to names/store
static void list_dir(const char* dir, const char** names, int* n, char* store, size_t size, size_t* used) {
  DIR* d = opendir(dir);
  if (!d) return;
  for (struct dirent* e; (e = readdir(d)) != NULL && *n < MAX_NAMES;) {
    size_t len = strlen(e->d_name);
    if (len <= 4 || strcmp(e->d_name + len - 4, ".ini") != 0 || *used + len > size) continue;
    memcpy(store + *used, e->d_name, len - 4);
    store[*used + len - 4] = '\0';
    names[(*n)++] = store + *used;
    *used += len - 3;
  }
  closedir(d);
}

// the error for a name no directory has: the nearest name, and the directory listed
static int not_found(const char* name, const char** dirs, int nd, char* errstr) {
  const char** names = ne_malloc(MAX_NAMES * sizeof *names);
  char* store = ne_malloc(MAX_NAMES * 64);
  if (!names || !store) {
    ne_free(names);
    ne_free(store);
    return ne__set_error(errstr, NE_ENOTFOUND, "no config named '%s'", name);
  }
  int n = 0;
  size_t used = 0;
  for (int i = 0; i < nd; i++) list_dir(dirs[i], names, &n, store, MAX_NAMES * 64, &used);
  const char* near = ne__nearest(name, names, n);
  int rc;
  if (near) rc = ne__set_error(errstr, NE_ENOTFOUND, "no config named '%s' (did you mean '%s'?)", name, near);
  else rc = ne__set_error(errstr, NE_ENOTFOUND, "no config named '%s' (give an .ini path or a config's name)", name);
  ne_free(names);
  ne_free(store);
  return rc;
}

int ne_config_find(const char* name, const char* from, char* path, size_t size, char* errstr) {
  if (!name || !*name || !path) return ne__set_error(errstr, NE_EINVAL, "ne_config_find: no name");
  if (is_path(name)) {
    // a path: as given, or (for a base) next to the file that names it
    if (name[0] != '/' && from && strchr(from, '/'))
      snprintf(path, size, "%.*s/%s", (int)(strrchr(from, '/') - from), from, name);
    else snprintf(path, size, "%s", name);
    if (access(path, R_OK) == 0) return 0;
    if (strcmp(path, name) != 0 && access(name, R_OK) == 0) return snprintf(path, size, "%s", name), 0;
    return ne__set_error(errstr, errno == ENOENT ? NE_ENOTFOUND : NE_EIO, "config file %s: %s", name, strerror(errno));
  }
  const char* dirs[MAX_DIRS];
  char buf[8192];
  int nd = search_dirs(from, dirs, buf, sizeof buf);
  for (int i = 0; i < nd; i++) {
    snprintf(path, size, "%s/%s.ini", dirs[i], name);
    if (access(path, R_OK) == 0) return 0;
  }
  return not_found(name, dirs, nd, errstr);
}

static int by_name(const void* a, const void* b) { return strcmp(*(const char* const*)a, *(const char* const*)b); }

int ne_config_names(char* buf, size_t size) {
  const char* dirs[MAX_DIRS];
  char dirbuf[8192];
  int nd = search_dirs(NULL, dirs, dirbuf, sizeof dirbuf);
  const char** names = ne_malloc(MAX_NAMES * sizeof *names);
  char* store = ne_malloc(MAX_NAMES * 64);
  int n = 0, listed = 0;
  size_t used = 0, kept = 0;
  if (size) buf[0] = '\0';
  if (names && store) {
    for (int i = 0; i < nd; i++) list_dir(dirs[i], names, &n, store, MAX_NAMES * 64, &kept);
    qsort(names, (size_t)n, sizeof *names, by_name);
    for (int i = 0; i < n; i++) {
      if (i > 0 && strcmp(names[i], names[i - 1]) == 0) continue;  // ./configs is often the source tree's
      if (used < size) used += (size_t)snprintf(buf + used, size - used, "%s%s", listed ? " " : "", names[i]);
      listed++;
    }
  }
  ne_free(names);
  ne_free(store);
  return listed;
}
