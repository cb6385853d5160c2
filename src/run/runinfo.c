// SPDX-License-Identifier: MIT
// Reading run records (see runinfo.h): run.json parsed with cJSON, the last row of metrics.csv
// (metrics.h's tail reader: two small reads whatever the run's length), config.ini only for what
// an older run's record lacks. Listing thousands of runs costs a few small reads each; the whole
// metrics.csv is read only for a run whose record has no result yet (running, or made before
// run.json existed), to find its best row.
#include "neuroevo/runinfo.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/sysinfo.h"  // is a "running" run's process still there
#include "core/util.h"
#include "neuroevo/alloc.h"
#include "neuroevo/error.h"
#include "neuroevo/metrics.h"
#include "run/record.h"  // ne__record_update: tags and note

#define MAX_DEPTH 8  // directories searched below each path given to a scan

int ne_runinfo_is_run(const char* dir) {
  char path[4200];
  snprintf(path, sizeof path, "%s/run.json", dir);
  if (access(path, F_OK) == 0) return 1;
  snprintf(path, sizeof path, "%s/config.ini", dir);
  return access(path, F_OK) == 0;
}

// ---- run.json -----------------------------------------------------------------------------------

// the string at a dotted path of obj ("study.arm"), or NULL
static const cJSON* at_path(const cJSON* obj, const char* path) {
  char part[128];
  while (obj && *path) {
    size_t n = strcspn(path, ".");
    snprintf(part, sizeof part, "%.*s", (int)(n < sizeof part ? n : sizeof part - 1), path);
    obj = cJSON_IsObject(obj) ? cJSON_GetObjectItemCaseSensitive(obj, part) : NULL;
    path += n + (path[n] == '.');
  }
  return obj;
}

static void copy_str(const cJSON* obj, const char* path, char* out, size_t size) {
  const cJSON* v = at_path(obj, path);
  if (cJSON_IsString(v) && v->valuestring[0]) snprintf(out, size, "%s", v->valuestring);
}

static double num(const cJSON* obj, const char* path) {
  const cJSON* v = at_path(obj, path);
  return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

// "a,b,c" from a JSON array of strings
static void join_tags(const cJSON* tags, char* out, size_t size) {
  size_t used = 0;
  out[0] = '\0';
  const cJSON* t;
  cJSON_ArrayForEach(t, tags) {
    if (!cJSON_IsString(t) || used >= size) continue;
    used += (size_t)snprintf(out + used, size - used, "%s%s", used ? "," : "", t->valuestring);
  }
}

// the record's fields into r; a "running" record whose process is gone here reads "killed"
static void from_record(ne_runinfo* r, const cJSON* rec) {
  copy_str(rec, "name", r->name, sizeof r->name);
  copy_str(rec, "status", r->status, sizeof r->status);
  copy_str(rec, "reason", r->reason, sizeof r->reason);
  copy_str(rec, "env", r->env, sizeof r->env);
  copy_str(rec, "algorithm", r->algorithm, sizeof r->algorithm);
  copy_str(rec, "study.dir", r->study, sizeof r->study);
  copy_str(rec, "study.arm", r->arm, sizeof r->arm);
  copy_str(rec, "created", r->created, sizeof r->created);
  copy_str(rec, "ended", r->ended, sizeof r->ended);
  copy_str(rec, "host", r->host, sizeof r->host);
  copy_str(rec, "neuroevo.commit", r->commit, sizeof r->commit);
  copy_str(rec, "note", r->note, sizeof r->note);
  join_tags(at_path(rec, "tags"), r->tags, sizeof r->tags);
  double seed = num(rec, "seed");
  if (isfinite(seed)) r->seed = (int)seed;
  r->cpu_s = num(rec, "result.cpu_s");
  r->best = num(rec, "result.best");
  if (strcmp(r->status, "running") == 0) {
    char host[256];
    ne__host_name(host, sizeof host);
    double pid = num(rec, "pid"), start = num(rec, "proc_start");
    if (strcmp(host, r->host) == 0 && isfinite(pid) &&
        !ne__proc_alive((pid_t)pid, isfinite(start) ? (uint64_t)start : 0)) {
      snprintf(r->status, sizeof r->status, "killed");
      snprintf(r->reason, sizeof r->reason, "process %.0f is gone (resume it with `neuroevo resume %.150s`)", pid,
               r->dir);
    }
  }
}

// ---- the other files, for what the record lacks -------------------------------------------------

// the state an older run's log.txt tells: its last telling line
static void status_from_log(ne_runinfo* r) {
  char path[4200], *text;
  snprintf(path, sizeof path, "%s/log.txt", r->dir);
  snprintf(r->status, sizeof r->status, "unknown");
  if (ne__read_file(path, &text, NULL, NULL) != 0) return;
  for (char* line = text; line && *line;) {
    char* nl = strchr(line, '\n');
    if (nl) *nl = '\0';
    if (strncmp(line, "gen ", 4) == 0) snprintf(r->status, sizeof r->status, "stopped");
    else if (strstr(line, " reached after ")) snprintf(r->status, sizeof r->status, "finished");
    else if (strncmp(line, "interrupted", 11) == 0) snprintf(r->status, sizeof r->status, "stopped");
    line = nl ? nl + 1 : NULL;
  }
  ne_free(text);
}

// the best row score of the whole metrics.csv (elite where the row has one, else best)
static double best_row(const char* dir, int minimized) {
  ne_metrics m;
  double best = NAN;
  if (ne_metrics_read(dir, &m, NULL) != 0) return best;
  for (int i = 0; i < m.n_rows; i++) {
    double e = ne_metrics_at(&m, i, NE_M_ELITE), b = ne_metrics_at(&m, i, NE_M_BEST);
    double s = isnan(e) ? b : e;
    if (!isnan(s) && (isnan(best) || (minimized ? s < best : s > best))) best = s;
  }
  ne_metrics_free(&m);
  return best;
}

static void from_metrics(ne_runinfo* r) {
  double row[NE_M_COLS];
  if (ne_metrics_last(r->dir, row, &r->minimized, NULL) == 1) {
    r->generations = isfinite(row[NE_M_GEN]) ? (int64_t)row[NE_M_GEN] + 1 : 0;
    r->evaluations = row[NE_M_EVALS];
    r->env_steps = row[NE_M_STEPS];
    r->wall_s = row[NE_M_WALL];
    r->elite = row[NE_M_ELITE];
  }
  // the record's best is the run's at its last end; a running run has moved on since
  if (isnan(r->best) || strcmp(r->status, "running") == 0) r->best = best_row(r->dir, r->minimized);
}

static void from_config(ne_runinfo* r) {
  char path[4200];
  snprintf(path, sizeof path, "%s/config.ini", r->dir);
  if (ne__read_file(path, &r->config, NULL, NULL) != 0) return;
  char v[64];
  if (!r->env[0]) ne__ini_get(r->config, "env", "id", r->env, sizeof r->env);
  if (!r->algorithm[0]) ne__ini_get(r->config, "run", "algorithm", r->algorithm, sizeof r->algorithm);
  if (ne__ini_get(r->config, "run", "seed", v, sizeof v) == 0) r->seed = atoi(v);
}

int ne_runinfo_load(const char* dir, ne_runinfo* out, char* errstr) {
  memset(out, 0, sizeof *out);
  out->evaluations = out->env_steps = out->best = out->elite = out->wall_s = out->cpu_s = NAN;
  if (!ne_runinfo_is_run(dir)) return ne__set_error(errstr, NE_ENOTFOUND, "%s: not a run directory", dir);
  snprintf(out->dir, sizeof out->dir, "%s", dir);
  char path[4200];
  snprintf(path, sizeof path, "%s/run.json", dir);
  if (ne__read_file(path, &out->record, NULL, NULL) == 0) {
    cJSON* rec = cJSON_Parse(out->record);
    if (cJSON_IsObject(rec)) {
      out->has_record = 1;
      from_record(out, rec);
    }
    cJSON_Delete(rec);
  }
  if (!out->status[0]) status_from_log(out);
  if (!out->name[0]) {
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/') n--;
    size_t start = n;
    while (start > 0 && dir[start - 1] != '/') start--;
    snprintf(out->name, sizeof out->name, "%.*s", (int)(n - start), dir + start);
  }
  if (!out->env[0] || !out->algorithm[0] || !out->has_record) from_config(out);
  from_metrics(out);
  return 0;
}

void ne_runinfo_free(ne_runinfo* r) {
  if (!r) return;
  ne_free(r->record);
  ne_free(r->config);
  r->record = r->config = NULL;
}

// ---- fields by name ---------------------------------------------------------------------------------

static void fmt_num(double v, char* out, size_t size) {
  if (isnan(v)) out[0] = '\0';
  else snprintf(out, size, "%.10g", v);
}

int ne_runinfo_field(const ne_runinfo* r, const char* name, char* out, size_t size) {
  out[0] = '\0';
  // the struct's own fields
  static const char* const strs[] = {"dir", "name",    "status", "reason", "env",    "algorithm", "study",
                                     "arm", "created", "ended",  "host",   "commit", "tags",      "note"};
  const char* values[] = {r->dir, r->name,    r->status, r->reason, r->env,    r->algorithm, r->study,
                          r->arm, r->created, r->ended,  r->host,   r->commit, r->tags,      r->note};
  for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++)
    if (strcmp(name, strs[i]) == 0) return snprintf(out, size, "%s", values[i]), 0;
  static const char* const nums[] = {"seed", "generations", "evaluations", "env_steps",
                                     "best", "elite",       "wall_s",      "cpu_s"};
  double nv[] = {r->seed, (double)r->generations, r->evaluations, r->env_steps, r->best, r->elite, r->wall_s, r->cpu_s};
  for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++)
    if (strcmp(name, nums[i]) == 0) return fmt_num(nv[i], out, size), 0;
  // a dotted path into run.json
  int found = -1;
  if (r->record) {
    cJSON* rec = cJSON_Parse(r->record);
    const cJSON* v = at_path(rec, name);
    if (cJSON_IsString(v)) snprintf(out, size, "%s", v->valuestring), found = 0;
    else if (cJSON_IsNumber(v)) fmt_num(v->valuedouble, out, size), found = 0;
    else if (cJSON_IsBool(v)) snprintf(out, size, "%s", cJSON_IsTrue(v) ? "true" : "false"), found = 0;
    cJSON_Delete(rec);
  }
  if (found == 0) return 0;
  // a config key: section.key from config.ini
  const char* dot = strchr(name, '.');
  if (!dot || strchr(dot + 1, '.')) return -1;
  char section[64], path[4200], *text = r->config;
  snprintf(section, sizeof section, "%.*s", (int)(dot - name < 63 ? dot - name : 63), name);
  snprintf(path, sizeof path, "%s/config.ini", r->dir);
  if (!text && ne__read_file(path, &text, NULL, NULL) != 0) return -1;
  found = ne__ini_get(text, section, dot + 1, out, size);
  if (text != r->config) ne_free(text);
  return found;
}

// ---- scanning -------------------------------------------------------------------------------------

static int by_name(const void* a, const void* b) { return strcmp(*(char* const*)a, *(char* const*)b); }

// 1 for a subdirectory worth searching: not hidden, not a run's own folders
static int searchable(const char* parent, const struct dirent* e) {
  if (e->d_name[0] == '.' || strcmp(e->d_name, "checkpoints") == 0) return 0;
  if (e->d_type == DT_DIR) return 1;
  if (e->d_type != DT_UNKNOWN && e->d_type != DT_LNK) return 0;
  char path[4200];
  struct stat st;
  if (snprintf(path, sizeof path, "%s/%s", parent, e->d_name) >= (int)sizeof path) return 0;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int scan_dir(const char* dir, int depth, int (*fn)(void*, const char*), void* user) {
  if (ne_runinfo_is_run(dir)) return fn(user, dir);
  if (depth >= MAX_DEPTH) return 0;
  DIR* d = opendir(dir);
  if (!d) return 0;
  // the subdirectories, sorted: listings come out in the same order every time
  char** names = NULL;
  int n = 0, cap = 0, rc = 0;
  for (struct dirent* e; (e = readdir(d)) != NULL;) {
    if (!searchable(dir, e)) continue;
    if (n == cap) {
      cap = cap ? 2 * cap : 64;
      char** grown = ne_realloc(names, (size_t)cap * sizeof *names);
      if (!grown) break;
      names = grown;
    }
    if ((names[n] = ne_strdup(e->d_name)) != NULL) n++;
  }
  closedir(d);
  if (n) qsort(names, (size_t)n, sizeof *names, by_name);
  for (int i = 0; i < n; i++) {
    if (!rc) {
      char sub[4200];
      int len = snprintf(sub, sizeof sub, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", names[i]);
      if (len < (int)sizeof sub) rc = scan_dir(sub, depth + 1, fn, user);
    }
    ne_free(names[i]);
  }
  ne_free(names);
  return rc;
}

int ne_runinfo_scan(const char* const* paths, int n, int (*fn)(void* user, const char* dir), void* user, char* errstr) {
  for (int i = 0; i < n; i++) {
    struct stat st;
    if (stat(paths[i], &st) != 0 || !S_ISDIR(st.st_mode))
      return ne__set_error(errstr, NE_ENOTFOUND, "%s: no such directory", paths[i]);
    int rc = scan_dir(paths[i], 0, fn, user);
    if (rc) return rc;
  }
  return 0;
}

// ---- tags and note --------------------------------------------------------------------------------

typedef struct tag_args {
  const char* const* add;
  int n_add;
  const char* const* remove;
  int n_remove;
  const char* note;
} tag_args;

static int has_tag(const cJSON* tags, const char* tag) {
  const cJSON* t;
  cJSON_ArrayForEach(t, tags) if (cJSON_IsString(t) && strcmp(t->valuestring, tag) == 0) return 1;
  return 0;
}

static int edit_tags(void* user, cJSON* rec, char* errstr) {
  (void)errstr;
  tag_args* a = user;
  cJSON* tags = cJSON_GetObjectItemCaseSensitive(rec, "tags");
  if (!cJSON_IsArray(tags)) {
    cJSON_DeleteItemFromObjectCaseSensitive(rec, "tags");
    cJSON_AddItemToObject(rec, "tags", tags = cJSON_CreateArray());
  }
  for (int i = 0; i < a->n_add; i++)
    if (!has_tag(tags, a->add[i])) cJSON_AddItemToArray(tags, cJSON_CreateString(a->add[i]));
  for (int i = 0; i < a->n_remove; i++)
    for (int k = cJSON_GetArraySize(tags) - 1; k >= 0; k--) {
      const cJSON* t = cJSON_GetArrayItem(tags, k);
      if (cJSON_IsString(t) && strcmp(t->valuestring, a->remove[i]) == 0) cJSON_DeleteItemFromArray(tags, k);
    }
  if (a->note) {
    cJSON_DeleteItemFromObjectCaseSensitive(rec, "note");
    cJSON_AddStringToObject(rec, "note", a->note);
  }
  return 0;
}

int ne_runinfo_tag(const char* dir, const char* const* add, int n_add, const char* const* remove, int n_remove,
                   const char* note, char* errstr) {
  if (!ne_runinfo_is_run(dir)) return ne__set_error(errstr, NE_ENOTFOUND, "%s: not a run directory", dir);
  for (int i = 0; i < n_add; i++)
    if (!add[i][0] || strpbrk(add[i], ", \t\n"))
      return ne__set_error(errstr, NE_EINVAL, "tag '%s': a tag is one word without commas", add[i]);
  tag_args a = {add, n_add, remove, n_remove, note};
  return ne__record_update(dir, edit_tags, &a, errstr);
}

typedef struct mark_args {
  const char* status;
  const char* reason;
} mark_args;

static int edit_mark(void* user, cJSON* rec, char* errstr) {
  (void)errstr;
  mark_args* a = user;
  char now[32];
  ne__utc_now(now, sizeof now);
  const char* keys[3] = {"status", "reason", "ended"};
  const char* values[3] = {a->status, a->reason ? a->reason : "", now};
  for (int i = 0; i < 3; i++) {
    cJSON* v = cJSON_CreateString(values[i]);
    if (cJSON_HasObjectItem(rec, keys[i])) cJSON_ReplaceItemInObjectCaseSensitive(rec, keys[i], v);
    else cJSON_AddItemToObject(rec, keys[i], v);
  }
  return 0;
}

int ne_runinfo_mark(const char* dir, const char* status, const char* reason, char* errstr) {
  if (!ne_runinfo_is_run(dir)) return ne__set_error(errstr, NE_ENOTFOUND, "%s: not a run directory", dir);
  mark_args a = {status, reason};
  return ne__record_update(dir, edit_mark, &a, errstr);
}
