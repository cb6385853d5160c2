// SPDX-License-Identifier: MIT
// run.json, written (see record.h). The record is a JSON object edited in memory with cJSON: read
// under the directory's lock, changed, written back whole. Fields a newer build added are kept as
// they are, so an older build resuming a run does not drop them. Two writes per session (start
// and end), each a small file: nothing here is on a generation's path.
#include "run/record.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>  // flock: the run directory's lock
#include <unistd.h>

#include "core/cpu.h"  // the SIMD level in use
#include "core/crc32c.h"
#include "core/sysinfo.h"
#include "core/util.h"
#include "neuroevo/alloc.h"
#include "neuroevo/error.h"
#include "neuroevo/pool.h"     // ne_cpu_count
#include "neuroevo/runinfo.h"  // NE_RUNINFO_FORMAT

// ---- small cJSON helpers ----------------------------------------------------------------------

// obj[key] = item, replacing what was there (item owned by obj from now on)
static void put(cJSON* obj, const char* key, cJSON* item) {
  if (!item) return;
  if (cJSON_HasObjectItem(obj, key)) cJSON_ReplaceItemInObjectCaseSensitive(obj, key, item);
  else cJSON_AddItemToObject(obj, key, item);
}

static void put_str(cJSON* obj, const char* key, const char* s) { put(obj, key, cJSON_CreateString(s ? s : "")); }
static void put_num(cJSON* obj, const char* key, double v) {
  put(obj, key, isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull());
}

// obj[key] as an object, made when missing or not an object
static cJSON* child(cJSON* obj, const char* key) {
  cJSON* c = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (cJSON_IsObject(c)) return c;
  c = cJSON_CreateObject();
  put(obj, key, c);
  return c;
}

static cJSON* string_array(const char* const* items, int n) {
  cJSON* a = cJSON_CreateArray();
  for (int i = 0; a && i < n; i++) cJSON_AddItemToArray(a, cJSON_CreateString(items[i] ? items[i] : ""));
  return a;
}

// ---- the locked read-modify-write ---------------------------------------------------------------

// the parsed run.json of dir, or an empty object when it is missing or damaged
static cJSON* read_record(const char* dir) {
  char path[4200], *text = NULL;
  snprintf(path, sizeof path, "%s/run.json", dir);
  cJSON* obj = NULL;
  if (ne__read_file(path, &text, NULL, NULL) == 0) obj = cJSON_Parse(text);
  ne_free(text);
  if (cJSON_IsObject(obj)) return obj;
  cJSON_Delete(obj);
  return cJSON_CreateObject();
}

static int write_record(const char* dir, const cJSON* obj, char* errstr) {
  char path[4200];
  snprintf(path, sizeof path, "%s/run.json", dir);
  char* text = cJSON_Print(obj);
  if (!text) return ne__set_error(errstr, NE_ENOMEM, "%s: out of memory", path);
  size_t len = strlen(text);
  char* line = malloc(len + 2);  // cJSON's allocator: the text ends with a newline
  int rc;
  if (!line) {
    rc = ne__set_error(errstr, NE_ENOMEM, "%s: out of memory", path);
  } else {
    memcpy(line, text, len);
    line[len] = '\n';
    rc = ne__write_file_atomic(path, line, len + 1, errstr);
  }
  free(line);
  cJSON_free(text);
  return rc;
}

int ne__record_update(const char* dir, int (*edit)(void* user, cJSON* record, char* errstr), void* user, char* errstr) {
  // the directory itself is the lock: flock on its descriptor, held for the read and the write
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return ne__set_error(errstr, errno == ENOENT ? NE_ENOTFOUND : NE_EIO, "%s: %s", dir, strerror(errno));
  while (flock(fd, LOCK_EX) != 0 && errno == EINTR) {
  }
  cJSON* rec = read_record(dir);
  int rc = rec ? edit(user, rec, errstr) : ne__set_error(errstr, NE_ENOMEM, "%s/run.json: out of memory", dir);
  if (!rc) rc = write_record(dir, rec, errstr);
  cJSON_Delete(rec);
  close(fd);  // releases the lock
  return rc;
}

// ---- what a new run records once ----------------------------------------------------------------

// "crc32c:0123abcd" of a file's bytes, or "" when it cannot be read
static void file_hash(const char* path, char* out, size_t size) {
  char* text;
  size_t len;
  out[0] = '\0';
  if (ne__read_file(path, &text, &len, NULL) != 0) return;
  snprintf(out, size, "crc32c:%08x", ne__crc32c(0, text, len));
  ne_free(text);
}

// {"section.key": "value"} for each key whose value differs between cfg and ref
static cJSON* differences(const ne_config* cfg, const ne_config* ref) {
  cJSON* obj = cJSON_CreateObject();
  const ne_config_key* schema = ne_config_schema();
  for (int i = 0; obj && i < ne_config_schema_count(); i++) {
    const char* a = ne_config_text(cfg, schema[i].section, schema[i].key);
    const char* b = ne_config_text(ref, schema[i].section, schema[i].key);
    if (!a || (b && strcmp(a, b) == 0)) continue;
    char name[160];
    snprintf(name, sizeof name, "%s.%s", schema[i].section, schema[i].key);
    cJSON_AddStringToObject(obj, name, a);
  }
  return obj;
}

// "config": the files it came from (hashed), the overrides given, and which keys differ from the
// source files and from the defaults
static void record_config(cJSON* rec, const ne_config* cfg) {
  cJSON* c = child(rec, "config");
  // ne_config_sources: bases first, the file named last
  const char* sources = ne_config_sources(cfg);
  cJSON* files = cJSON_CreateArray();
  char top[4096] = "";
  for (const char* p = sources; files && *p;) {
    const char* nl = strchr(p, '\n');
    size_t n = nl ? (size_t)(nl - p) : strlen(p);
    snprintf(top, sizeof top, "%.*s", (int)n, p);
    char hash[32];
    file_hash(top, hash, sizeof hash);
    cJSON* f = cJSON_CreateObject();
    cJSON_AddStringToObject(f, "path", top);
    cJSON_AddStringToObject(f, "hash", hash);
    cJSON_AddItemToArray(files, f);
    p += n + (nl ? 1 : 0);
  }
  put(c, "files", files);
  put_str(c, "source", top);
  // the overrides as given (ne_config_override kept each one's text)
  cJSON* overrides = cJSON_CreateArray();
  const ne_config_key* schema = ne_config_schema();
  for (int i = 0; overrides && i < ne_config_schema_count(); i++) {
    const char* a = ne_config_assignment(cfg, schema[i].section, schema[i].key);
    if (a) cJSON_AddItemToArray(overrides, cJSON_CreateString(a));
  }
  put(c, "overrides", overrides);
  ne_config* ref = ne_config_create();
  if (ref) put(c, "changed_from_defaults", differences(cfg, ref));
  if (ref && top[0] && ne_config_load_file(ref, top, NULL) == 0) put(c, "changed_from_source", differences(cfg, ref));
  ne_config_destroy(ref);
}

// "neuroevo" (the build) and "machine"
static void record_build_and_machine(cJSON* rec) {
  const ne__build_info* b = ne__build();
  cJSON* n = child(rec, "neuroevo");
  put_str(n, "version", b->version);
  put_str(n, "commit", b->commit);
  put_str(n, "compiler", b->compiler);
  put_str(n, "build", b->type);
  put_str(n, "simd", ne__simd_name(ne__simd_level()));
  cJSON* m = child(rec, "machine");
  char text[512];
  ne__host_name(text, sizeof text);
  put_str(m, "host", text);
  ne__cpu_model(text, sizeof text);
  put_str(m, "cpu", text);
  put_num(m, "cores", ne_cpu_count());
  ne__os_name(text, sizeof text);
  put_str(m, "os", text);
}

// what a new run records once: name, origin, config, build and machine, study, first tags. The
// fields a reader looks at first come first (cJSON keeps insertion order; replacing keeps places).
static void record_new(cJSON* rec, const ne_config* cfg, const char* name, const ne_run_origin* o, const char* dir) {
  char now[32];
  ne__utc_now(now, sizeof now);
  put_num(rec, "format", NE_RUNINFO_FORMAT);
  const char* slash = strrchr(dir, '/');
  put_str(rec, "name", o && o->arm ? o->arm : slash && slash[1] ? slash + 1 : dir);
  if (name) put_str(rec, "config_name", name);
  put_str(rec, "status", "running");
  put_str(rec, "reason", "");
  put_str(rec, "created", now);
  put_str(rec, "started", now);
  put(rec, "ended", cJSON_CreateNull());
  put_str(rec, "env", ne_config_str(cfg, "env", "id"));
  put_str(rec, "algorithm", ne_config_str(cfg, "run", "algorithm"));
  put_num(rec, "seed", (double)ne_config_int(cfg, "run", "seed"));
  // tags and note: the caller's first ones, unless the record already has some (`neuroevo tag`
  // before the run started is not undone)
  if (!cJSON_HasObjectItem(rec, "tags")) put(rec, "tags", string_array(o ? o->tags : NULL, o ? o->n_tags : 0));
  if (!cJSON_HasObjectItem(rec, "note")) put_str(rec, "note", o && o->note ? o->note : "");
  if (o && o->study) {
    cJSON* s = child(rec, "study");
    put_str(s, "dir", o->study);
    put_str(s, "arm", o->arm);
    put_num(s, "seed", (double)ne_config_int(cfg, "run", "seed"));
  }
  if (o && o->argv) put(rec, "command", string_array(o->argv, o->argc));
  char cwd[4096];
  if (getcwd(cwd, sizeof cwd)) put_str(rec, "cwd", cwd);
  record_config(rec, cfg);
  record_build_and_machine(rec);
}

// ---- sessions ---------------------------------------------------------------------------------------

typedef struct start_args {
  const ne_config* cfg;
  const char* name;
  const ne_run_origin* origin;
  const char* dir;
  int resumed;
  const char* executor;
} start_args;

static int edit_start(void* user, cJSON* rec, char* errstr) {
  (void)errstr;
  start_args* a = user;
  if (!a->resumed || !cJSON_HasObjectItem(rec, "created")) record_new(rec, a->cfg, a->name, a->origin, a->dir);
  char now[32], host[256];
  ne__utc_now(now, sizeof now);
  ne__host_name(host, sizeof host);
  // the session: when, where, which process, on what
  cJSON* s = cJSON_CreateObject();
  cJSON_AddStringToObject(s, "started", now);
  if (a->origin && a->origin->argv) cJSON_AddItemToObject(s, "command", string_array(a->origin->argv, a->origin->argc));
  cJSON_AddStringToObject(s, "host", host);
  cJSON_AddNumberToObject(s, "pid", (double)getpid());
  cJSON_AddStringToObject(s, "executor", a->executor ? a->executor : "");
  cJSON* sessions = cJSON_GetObjectItemCaseSensitive(rec, "sessions");
  if (!cJSON_IsArray(sessions)) put(rec, "sessions", sessions = cJSON_CreateArray());
  cJSON_AddItemToArray(sessions, s);
  // the run's state now
  put_str(rec, "status", "running");
  put_str(rec, "reason", "");
  put_str(rec, "started", now);
  put(rec, "ended", cJSON_CreateNull());
  put_str(rec, "host", host);
  put_num(rec, "pid", (double)getpid());
  put_num(rec, "proc_start", (double)ne__proc_start(getpid()));
  put_str(rec, "executor", a->executor ? a->executor : "");
  return 0;
}

int ne__record_start(const char* dir, const ne_config* cfg, const char* name, const ne_run_origin* origin, int resumed,
                     const char* executor, char* errstr) {
  start_args a = {cfg, name, origin, dir, resumed, executor};
  return ne__record_update(dir, edit_start, &a, errstr);
}

typedef struct end_args {
  const char* status;
  const char* reason;
  const ne__record_result* res;
  const char* executor;
} end_args;

static int edit_end(void* user, cJSON* rec, char* errstr) {
  (void)errstr;
  end_args* a = user;
  char now[32];
  ne__utc_now(now, sizeof now);
  put_str(rec, "status", a->status);
  put_str(rec, "reason", a->reason ? a->reason : "");
  put_str(rec, "ended", now);
  if (a->executor) put_str(rec, "executor", a->executor);
  // the session's own end and CPU time; the run's CPU time is the sessions' sum
  cJSON* sessions = cJSON_GetObjectItemCaseSensitive(rec, "sessions");
  cJSON* last = cJSON_IsArray(sessions) ? cJSON_GetArrayItem(sessions, cJSON_GetArraySize(sessions) - 1) : NULL;
  if (cJSON_IsObject(last)) {
    put_str(last, "ended", now);
    put_str(last, "status", a->status);
    put_num(last, "cpu_s", round(a->res->cpu_s * 1000) / 1000);
    if (a->executor) put_str(last, "executor", a->executor);
  }
  double cpu = 0;
  cJSON* s;
  cJSON_ArrayForEach(s, sessions) {
    cJSON* c = cJSON_GetObjectItemCaseSensitive(s, "cpu_s");
    if (cJSON_IsNumber(c)) cpu += c->valuedouble;
  }
  cJSON* r = child(rec, "result");
  put_num(r, "generations", a->res->generations);
  put_num(r, "evaluations", (double)a->res->evaluations);
  put_num(r, "env_steps", (double)a->res->env_steps);
  put_num(r, "best", a->res->best);
  put_num(r, "elite", a->res->elite);
  put_num(r, "wall_s", round(a->res->wall_s * 1000) / 1000);
  put_num(r, "cpu_s", round(cpu * 1000) / 1000);
  return 0;
}

int ne__record_end(const char* dir, const char* status, const char* reason, const ne__record_result* res,
                   const char* executor, char* errstr) {
  end_args a = {status, reason, res, executor};
  return ne__record_update(dir, edit_end, &a, errstr);
}
