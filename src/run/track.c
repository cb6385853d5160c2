// SPDX-License-Identifier: MIT
// MLflow tracking (see track.h): one sync sends what RUN_DIR/track.json says the server lacks,
// step by step, saving track.json after each step, so a sync interrupted anywhere resumes where it
// stopped and nothing is sent twice (a run is created once; metric rows go in order; params once,
// as MLflow refuses to change them). REST endpoints of MLflow's API 2.0: experiments/get-by-name,
// experiments/create, runs/create, runs/log-batch (at most 1000 metrics, 100 params, 100 tags a
// request), runs/update, and mlflow-artifacts for files (a server started with artifact serving,
// MLflow's default). Requests go through libcurl (curl_api.h), bodies through cJSON. The threaded
// tracker of a training run (tracker.h) is at the end.
#include "neuroevo/track.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/util.h"
#include "neuroevo/alloc.h"
#include "neuroevo/error.h"
#include "neuroevo/metrics.h"
#include "run/tracker.h"
#ifdef NE_HAVE_CURL
#include "run/curl_api.h"
#endif

#define MAX_METRICS_PER_BATCH 1000
#define MAX_PARAMS_PER_BATCH 100
#define MAX_TAGS_PER_BATCH 100
#define MAX_VALUE 5000       // longest param or tag value sent (MLflow's limits are 6000 and 8000)
#define TRACK_SILENT_S 10.0  // a run's end stops waiting for a server silent this long

// The artifacts a run directory may hold, uploaded when they exist (again when they change).
static const char* const ARTIFACTS[] = {"curve.png",   "best.genome", "best.params", "config.ini", "run.json",
                                        "metrics.csv", "report.html", "agent.gif",   "agent.mp4",  "archive.csv"};
enum { N_ARTIFACTS = sizeof ARTIFACTS / sizeof ARTIFACTS[0] };

int ne_track_url(const char* config_ini, char* url, int size) {
  char v[1024] = "";
  if (config_ini && ne__ini_get(config_ini, "run", "track", v, sizeof v) != 0) v[0] = '\0';
  if (strcmp(v, "none") == 0) v[0] = '\0';
  else if (!v[0]) {
    // the team's server for every run, as MLflow's own clients read it
    const char* env = getenv("MLFLOW_TRACKING_URI");
    if (env && (strncmp(env, "http://", 7) == 0 || strncmp(env, "https://", 8) == 0)) snprintf(v, sizeof v, "%s", env);
  }
  size_t n = strlen(v);
  while (n > 0 && v[n - 1] == '/') v[--n] = '\0';  // URLs are built as url + "/api/..."
  snprintf(url, (size_t)size, "%s", v);
  return v[0] != '\0';
}

#ifdef NE_HAVE_CURL

// ---- one sync's context ---------------------------------------------------------------------------

typedef struct sync_ctx {
  const ne_curl_api* c;
  CURL* h;                    // one handle for the sync's requests (keep-alive)
  struct curl_slist* json;    // Content-Type: application/json (+ auth)
  struct curl_slist* binary;  // Content-Type: application/octet-stream (+ auth)
  char url[1024];             // the server, no trailing '/'
  double timeout_s;
  const volatile int* abort;
  double* answered_at;           // ne__now() of the last request the server answered (nullable)
  pthread_mutex_t* answered_mu;  // guards *answered_at (the tracker's mutex)
  ne_buf reply;                  // the last reply's body
  long status;                   // its HTTP status
  const char* dir;
  cJSON* state;        // track.json
  cJSON* rec;          // run.json (an empty object when none)
  char rec_stamp[64];  // its mtime and size when it was read (taken before reading it)
  char* ini;           // config.ini's text
} sync_ctx;

static size_t on_body(char* data, size_t size, size_t n, void* user) {
  ne__buf_bytes((ne_buf*)user, data, size * n);
  return ((ne_buf*)user)->oom ? 0 : size * n;
}

static int on_progress(void* user, curl_off_t a, curl_off_t b, curl_off_t c, curl_off_t d) {
  (void)a, (void)b, (void)c, (void)d;
  const volatile int* abort = user;
  return abort && *abort;  // non-zero ends the transfer
}

// the error of a failed request: MLflow's own message when it sent one
static int reply_error(sync_ctx* s, const char* what, char* errstr) {
  ne__buf_bytes(&s->reply, "", 1);
  cJSON* j = cJSON_Parse((const char*)s->reply.data);
  const cJSON* m = cJSON_GetObjectItemCaseSensitive(j, "message");
  char msg[200];
  snprintf(msg, sizeof msg, "%s", cJSON_IsString(m) ? m->valuestring : s->reply.data ? (char*)s->reply.data : "");
  cJSON_Delete(j);
  return ne__set_error(errstr, NE_ENET, "MLflow %s: HTTP %ld: %s", what, s->status, msg);
}

// one request: method path (after the server URL) with body; the reply in s->reply. 0, or
// NE_ENET for a transport failure or an HTTP status >= 400 (errstr says which), NE_EINTR on abort
static int request(sync_ctx* s, const char* method, const char* path, const void* body, size_t len, int binary,
                   char* errstr) {
  char full[4096];
  snprintf(full, sizeof full, "%s%s", s->url, path);
  s->reply.len = 0;
  const ne_curl_api* c = s->c;
  c->curl_easy_setopt(s->h, CURLOPT_URL, full);
  c->curl_easy_setopt(s->h, CURLOPT_CUSTOMREQUEST, method);
  c->curl_easy_setopt(s->h, CURLOPT_HTTPHEADER, binary ? s->binary : s->json);
  if (body) {
    c->curl_easy_setopt(s->h, CURLOPT_POSTFIELDS, body);
    c->curl_easy_setopt(s->h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
  } else {
    c->curl_easy_setopt(s->h, CURLOPT_HTTPGET, 1L);
    c->curl_easy_setopt(s->h, CURLOPT_CUSTOMREQUEST, method);
  }
  CURLcode rc = c->curl_easy_perform(s->h);
  if (rc == CURLE_ABORTED_BY_CALLBACK) return ne__set_error(errstr, NE_EINTR, "MLflow: %s %s: aborted", method, path);
  if (rc != CURLE_OK) return ne__set_error(errstr, NE_ENET, "MLflow at %s: %s", s->url, c->curl_easy_strerror(rc));
  c->curl_easy_getinfo(s->h, CURLINFO_RESPONSE_CODE, &s->status);
  if (s->answered_at) {  // the server answers: a run's end may wait for the rest
    pthread_mutex_lock(s->answered_mu);
    *s->answered_at = ne__now();
    pthread_mutex_unlock(s->answered_mu);
  }
  if (s->status >= 400) return reply_error(s, path, errstr);
  return 0;
}

// POST a JSON body to an endpoint of /api/2.0/mlflow/; the parsed reply into *out (nullable)
static int post(sync_ctx* s, const char* endpoint, const cJSON* body, cJSON** out, char* errstr) {
  char path[256];
  snprintf(path, sizeof path, "/api/2.0/mlflow/%s", endpoint);
  char* text = cJSON_PrintUnformatted(body);
  if (!text) return ne__set_error(errstr, NE_ENOMEM, "out of memory");
  int rc = request(s, "POST", path, text, strlen(text), 0, errstr);
  cJSON_free(text);
  if (!rc && out) {
    ne__buf_bytes(&s->reply, "", 1);
    *out = cJSON_Parse((const char*)s->reply.data);
  }
  return rc;
}

// ---- track.json -----------------------------------------------------------------------------------

static void state_path(const sync_ctx* s, char* buf, size_t size) { snprintf(buf, size, "%s/track.json", s->dir); }

static void save_state(sync_ctx* s) {
  char path[4200], why[NE_ERRSTR_LEN];
  state_path(s, path, sizeof path);
  char* text = cJSON_Print(s->state);
  // a lost write only means the next sync redoes a step the server then refuses or repeats
  if (text && ne__write_file_atomic(path, text, strlen(text), why) != 0)
    fprintf(stderr, "neuroevo: warning: %s\n", why);
  cJSON_free(text);
}

static const char* state_str(const sync_ctx* s, const char* key) {
  const cJSON* v = cJSON_GetObjectItemCaseSensitive(s->state, key);
  return cJSON_IsString(v) ? v->valuestring : NULL;
}

static double state_num(const sync_ctx* s, const char* key) {
  const cJSON* v = cJSON_GetObjectItemCaseSensitive(s->state, key);
  return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static void state_set(sync_ctx* s, const char* key, cJSON* v) {
  if (cJSON_HasObjectItem(s->state, key)) cJSON_ReplaceItemInObjectCaseSensitive(s->state, key, v);
  else cJSON_AddItemToObject(s->state, key, v);
}

// ---- reading the run -------------------------------------------------------------------------------

static cJSON* read_json(const char* dir, const char* name) {
  char path[4200], *text = NULL;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  cJSON* j = ne__read_file(path, &text, NULL, NULL) == 0 ? cJSON_Parse(text) : NULL;
  ne_free(text);
  if (cJSON_IsObject(j)) return j;
  cJSON_Delete(j);
  return cJSON_CreateObject();
}

// a string of run.json at a dotted path, or ""
static const char* rec_str(const sync_ctx* s, const char* path) {
  const cJSON* v = s->rec;
  char part[64];
  while (v && *path) {
    size_t n = strcspn(path, ".");
    snprintf(part, sizeof part, "%.*s", (int)n, path);
    v = cJSON_GetObjectItemCaseSensitive(v, part);
    path += n + (path[n] == '.');
  }
  return cJSON_IsString(v) ? v->valuestring : "";
}

// milliseconds since the epoch of an ISO 8601 UTC time ("2025-06-01T12:00:00Z"); now when absent
static double epoch_ms(const char* iso) {
  struct tm tm;
  memset(&tm, 0, sizeof tm);
  if (iso &&
      sscanf(iso, "%d-%d-%dT%d:%d:%dZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec) ==
          6) {
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    return 1000.0 * (double)timegm(&tm);
  }
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return 1000.0 * (double)ts.tv_sec + (double)(ts.tv_nsec / 1000000);
}

static void add_kv(cJSON* list, const char* key, const char* value) {
  cJSON* o = cJSON_CreateObject();
  char v[MAX_VALUE + 1];
  snprintf(v, sizeof v, "%s", value);
  cJSON_AddStringToObject(o, "key", key);
  cJSON_AddStringToObject(o, "value", v);
  cJSON_AddItemToArray(list, o);
}

// ---- the steps ------------------------------------------------------------------------------------

// the experiment's name: opt's, run.track_experiment, the study's directory, else the config's name
static void experiment_name(const sync_ctx* s, const ne_track_options* opt, char* out, size_t size) {
  char v[512] = "";
  if (opt && opt->experiment) snprintf(v, sizeof v, "%s", opt->experiment);
  if (!v[0] && s->ini) ne__ini_get(s->ini, "run", "track_experiment", v, sizeof v);
  if (!v[0] && rec_str(s, "study.dir")[0]) {
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", rec_str(s, "study.dir"));
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/') dir[--n] = '\0';
    const char* slash = strrchr(dir, '/');
    snprintf(v, sizeof v, "%.*s", (int)sizeof v - 1, slash ? slash + 1 : dir);  // a longer name is cut
  }
  if (!v[0]) snprintf(v, sizeof v, "%s", rec_str(s, "config_name")[0] ? rec_str(s, "config_name") : "neuroevo");
  snprintf(out, size, "%s", v);
}

// the experiment's id: found by name, or created (another run may create it at the same moment)
static int ensure_experiment(sync_ctx* s, const ne_track_options* opt, char* errstr) {
  if (state_str(s, "experiment_id")) return 0;
  char name[512], path[1600];
  experiment_name(s, opt, name, sizeof name);
  char* q = s->c->curl_easy_escape(s->h, name, 0);
  snprintf(path, sizeof path, "/api/2.0/mlflow/experiments/get-by-name?experiment_name=%s", q ? q : "");
  s->c->curl_free(q);
  for (int attempt = 0; attempt < 2; attempt++) {
    int rc = request(s, "GET", path, NULL, 0, 0, errstr);
    if (!rc) {
      ne__buf_bytes(&s->reply, "", 1);
      cJSON* j = cJSON_Parse((const char*)s->reply.data);
      const cJSON* id =
          cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "experiment"), "experiment_id");
      if (cJSON_IsString(id)) {
        state_set(s, "experiment", cJSON_CreateString(name));
        state_set(s, "experiment_id", cJSON_CreateString(id->valuestring));
      }
      cJSON_Delete(j);
      return state_str(s, "experiment_id") ? 0 : ne__set_error(errstr, NE_ENET, "MLflow: no experiment id in reply");
    }
    if (s->status != 404 || attempt) return rc;
    cJSON* body = cJSON_CreateObject();
    cJSON_AddStringToObject(body, "name", name);
    rc = post(s, "experiments/create", body, NULL, errstr);
    cJSON_Delete(body);
    if (rc && s->status != 400) return rc;  // 400: made by another run meanwhile, found next
  }
  return 0;
}

// the command line as one string for a tag
static void command_text(const sync_ctx* s, char* out, size_t size) {
  const cJSON* cmd = cJSON_GetObjectItemCaseSensitive(s->rec, "command");
  size_t used = 0;
  out[0] = '\0';
  const cJSON* a;
  cJSON_ArrayForEach(a, cmd) {
    if (!cJSON_IsString(a) || used >= size) continue;
    int quote = strpbrk(a->valuestring, " \t\"'[]") != NULL;
    used += (size_t)snprintf(out + used, size - used, "%s%s%s%s", used ? " " : "", quote ? "'" : "", a->valuestring,
                             quote ? "'" : "");
  }
}

// the provenance tags: what run.json says, and the run directory
static cJSON* provenance_tags(const sync_ctx* s) {
  cJSON* tags = cJSON_CreateArray();
  static const char* const fields[][2] = {{"neuroevo.version", "neuroevo.version"},
                                          {"neuroevo.commit", "neuroevo.commit"},
                                          {"neuroevo.build", "neuroevo.build"},
                                          {"neuroevo.simd", "neuroevo.simd"},
                                          {"machine.host", "machine.host"},
                                          {"machine.cpu", "machine.cpu"},
                                          {"executor", "executor"},
                                          {"config.source", "config.source"},
                                          {"study", "study.dir"},
                                          {"arm", "study.arm"},
                                          {"status", "status"},
                                          {"reason", "reason"},
                                          {"env", "env"},
                                          {"algorithm", "algorithm"},
                                          {"cwd", "cwd"}};
  for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
    if (rec_str(s, fields[i][1])[0]) add_kv(tags, fields[i][0], rec_str(s, fields[i][1]));
  char text[MAX_VALUE + 1];
  const cJSON* seed = cJSON_GetObjectItemCaseSensitive(s->rec, "seed");
  if (cJSON_IsNumber(seed)) snprintf(text, sizeof text, "%.0f", seed->valuedouble), add_kv(tags, "seed", text);
  command_text(s, text, sizeof text);
  if (text[0]) add_kv(tags, "command", text);
  const cJSON* files = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(s->rec, "config"), "files");
  const cJSON* last = cJSON_GetArrayItem(files, cJSON_GetArraySize(files) - 1);
  const cJSON* hash = cJSON_GetObjectItemCaseSensitive(last, "hash");
  if (cJSON_IsString(hash)) add_kv(tags, "config.hash", hash->valuestring);
  // the overrides, tags and note as text
  const char* lists[][2] = {{"config.overrides", "overrides"}, {"neuroevo.tags", "tags"}};
  for (int l = 0; l < 2; l++) {
    const cJSON* arr = l == 0
        ? cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(s->rec, "config"), "overrides")
        : cJSON_GetObjectItemCaseSensitive(s->rec, "tags");
    size_t used = 0;
    text[0] = '\0';
    const cJSON* a;
    cJSON_ArrayForEach(a, arr) if (cJSON_IsString(a) && used < sizeof text) used +=
        (size_t)snprintf(text + used, sizeof text - used, "%s%s", used ? ", " : "", a->valuestring);
    if (text[0]) add_kv(tags, lists[l][0], text);
  }
  if (rec_str(s, "note")[0]) add_kv(tags, "mlflow.note.content", rec_str(s, "note"));  // the UI's description
  char real[4096];
  if (realpath(s->dir, real)) add_kv(tags, "run_dir", real);
  return tags;
}

// the MLflow run: made once, with its name and start time
static int ensure_run(sync_ctx* s, char* errstr) {
  if (state_str(s, "run_id")) return 0;
  char name[600];
  const char* arm = rec_str(s, "study.arm");
  const cJSON* seed = cJSON_GetObjectItemCaseSensitive(s->rec, "seed");
  if (arm[0]) snprintf(name, sizeof name, "%s seed %.0f", arm, cJSON_IsNumber(seed) ? seed->valuedouble : 0);
  else {
    const char* slash = strrchr(s->dir, '/');
    snprintf(name, sizeof name, "%s", slash && slash[1] ? slash + 1 : s->dir);
  }
  cJSON* body = cJSON_CreateObject();
  cJSON_AddStringToObject(body, "experiment_id", state_str(s, "experiment_id"));
  cJSON_AddStringToObject(body, "run_name", name);
  cJSON_AddNumberToObject(body, "start_time", epoch_ms(rec_str(s, "created")[0] ? rec_str(s, "created") : NULL));
  cJSON_AddItemToObject(body, "tags", provenance_tags(s));
  cJSON* reply = NULL;
  int rc = post(s, "runs/create", body, &reply, errstr);
  cJSON_Delete(body);
  const cJSON* info = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(reply, "run"), "info");
  const cJSON* id = cJSON_GetObjectItemCaseSensitive(info, "run_id");
  const cJSON* uri = cJSON_GetObjectItemCaseSensitive(info, "artifact_uri");
  if (!rc && !cJSON_IsString(id)) rc = ne__set_error(errstr, NE_ENET, "MLflow: no run id in the reply to runs/create");
  if (!rc) {
    state_set(s, "run_id", cJSON_CreateString(id->valuestring));
    state_set(s, "artifact_uri", cJSON_CreateString(cJSON_IsString(uri) ? uri->valuestring : ""));
    state_set(s, "record_sent", cJSON_CreateString(""));
    save_state(s);
  }
  cJSON_Delete(reply);
  return rc;
}

// a log-batch request of the run with these lists (each may be NULL)
static int log_batch(sync_ctx* s, cJSON* metrics, cJSON* params, cJSON* tags, char* errstr) {
  cJSON* body = cJSON_CreateObject();
  cJSON_AddStringToObject(body, "run_id", state_str(s, "run_id"));
  if (metrics) cJSON_AddItemToObject(body, "metrics", metrics);
  if (params) cJSON_AddItemToObject(body, "params", params);
  if (tags) cJSON_AddItemToObject(body, "tags", tags);
  int rc = post(s, "runs/log-batch", body, NULL, errstr);
  cJSON_Delete(body);
  return rc;
}

// the resolved config (config.ini: the sections in use) as params "section.key", once
static int send_params(sync_ctx* s, char* errstr) {
  if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(s->state, "params")) || !s->ini) return 0;
  cJSON* batch = cJSON_CreateArray();
  char section[64] = "";
  int rc = 0;
  for (const char* line = s->ini; line && *line && !rc;) {
    const char* nl = strchr(line, '\n');
    size_t len = nl ? (size_t)(nl - line) : strlen(line);
    char text[MAX_VALUE + 200];
    snprintf(text, sizeof text, "%.*s", (int)len, line);
    line = nl ? nl + 1 : NULL;
    char* eq = strchr(text, '=');
    if (text[0] == '[') {
      snprintf(section, sizeof section, "%.*s", (int)strcspn(text + 1, "]"), text + 1);
    } else if (text[0] != '#' && text[0] != ';' && eq && section[0]) {
      char* end = eq;
      while (end > text && end[-1] == ' ') end--;
      *end = '\0';
      const char* value = eq + 1;
      while (*value == ' ') value++;
      char key[200];
      snprintf(key, sizeof key, "%s.%.120s", section, text);
      add_kv(batch, key, value);
    }
    if (cJSON_GetArraySize(batch) == MAX_PARAMS_PER_BATCH) {
      rc = log_batch(s, NULL, batch, NULL, errstr);  // log_batch owns the list
      batch = cJSON_CreateArray();
    }
  }
  if (!rc && cJSON_GetArraySize(batch) > 0) rc = log_batch(s, NULL, batch, NULL, errstr);
  else cJSON_Delete(batch);
  if (!rc) {
    state_set(s, "params", cJSON_CreateTrue());
    save_state(s);
  }
  return rc;
}

// the provenance tags again when run.json changed since they were sent (status, note, tags)
static int send_record(sync_ctx* s, char* errstr) {
  const char* sent = state_str(s, "record_sent");
  if (!s->rec_stamp[0] || (sent && strcmp(sent, s->rec_stamp) == 0)) return 0;
  int rc = log_batch(s, NULL, NULL, provenance_tags(s), errstr);
  if (!rc) {
    state_set(s, "record_sent", cJSON_CreateString(s->rec_stamp));
    save_state(s);
  }
  return rc;
}

// the metrics.csv rows the server lacks, in order, a batch at a time
static int send_metrics(sync_ctx* s, ne_track_stats* stats, char* errstr) {
  ne_metrics m;
  if (ne_metrics_read(s->dir, &m, NULL) != 0) return 0;
  int sent = (int)state_num(s, "rows"), rc = 0;
  double start = epoch_ms(rec_str(s, "created")[0] ? rec_str(s, "created") : NULL);
  while (sent < m.n_rows && !rc) {
    cJSON* batch = cJSON_CreateArray();
    int row = sent;
    for (; row < m.n_rows && cJSON_GetArraySize(batch) + NE_M_COLS <= MAX_METRICS_PER_BATCH; row++) {
      double step = ne_metrics_at(&m, row, NE_M_GEN), wall = ne_metrics_at(&m, row, NE_M_WALL);
      double ts = start + (isfinite(wall) ? 1000 * wall : 0);
      for (int c = NE_M_EVALS; c < NE_M_COLS; c++) {
        double v = ne_metrics_at(&m, row, (ne_metrics_col)c);
        if (!m.has[c] || !isfinite(v)) continue;  // JSON has no NaN; MLflow shows a gap
        cJSON* o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "key", ne_metrics_column_name((ne_metrics_col)c));
        cJSON_AddNumberToObject(o, "value", v);
        cJSON_AddNumberToObject(o, "timestamp", floor(ts));
        cJSON_AddNumberToObject(o, "step", isfinite(step) ? step : row);
        cJSON_AddItemToArray(batch, o);
      }
    }
    rc = log_batch(s, batch, NULL, NULL, errstr);
    if (!rc) {
      if (stats) stats->rows += row - sent;
      sent = row;
      state_set(s, "rows", cJSON_CreateNumber(sent));
      save_state(s);
    }
  }
  ne_metrics_free(&m);
  return rc;
}

// the files of ARTIFACTS that are new or changed, to the run's artifact root on the server
static int send_artifacts(sync_ctx* s, ne_track_stats* stats, char* errstr) {
  const char* uri = state_str(s, "artifact_uri");
  static const char scheme[] = "mlflow-artifacts:";
  if (!uri || strncmp(uri, scheme, sizeof scheme - 1) != 0) return 0;  // not served by the server: not ours to write
  const char* root = uri + sizeof scheme - 1;
  while (*root == '/') root++;
  cJSON* done = cJSON_GetObjectItemCaseSensitive(s->state, "artifacts");
  if (!cJSON_IsObject(done)) {
    state_set(s, "artifacts", cJSON_CreateObject());
    done = cJSON_GetObjectItemCaseSensitive(s->state, "artifacts");
  }
  for (int i = 0; i < N_ARTIFACTS; i++) {
    char path[4200], stamp[64], *data = NULL;
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", s->dir, ARTIFACTS[i]);
    if (stat(path, &st) != 0) continue;
    snprintf(stamp, sizeof stamp, "%lld.%09ld:%lld", (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
             (long long)st.st_size);
    const cJSON* prev = cJSON_GetObjectItemCaseSensitive(done, ARTIFACTS[i]);
    if (cJSON_IsString(prev) && strcmp(prev->valuestring, stamp) == 0) continue;
    size_t len;
    if (ne__read_file(path, &data, &len, NULL) != 0) continue;
    char url_path[1600];
    snprintf(url_path, sizeof url_path, "/api/2.0/mlflow-artifacts/artifacts/%s/%s", root, ARTIFACTS[i]);
    int rc = request(s, "PUT", url_path, data, len, 1, errstr);
    ne_free(data);
    if (rc) return rc;
    if (cJSON_HasObjectItem(done, ARTIFACTS[i]))
      cJSON_ReplaceItemInObjectCaseSensitive(done, ARTIFACTS[i], cJSON_CreateString(stamp));
    else cJSON_AddStringToObject(done, ARTIFACTS[i], stamp);
    save_state(s);
    if (stats) stats->artifacts++;
  }
  return 0;
}

// the run's status on the server: what run.json says (running, finished, failed, stopped)
static int send_status(sync_ctx* s, char* errstr) {
  const char* status = rec_str(s, "status");
  const char* mlflow = strcmp(status, "finished") == 0 ? "FINISHED"
      : strcmp(status, "failed") == 0                  ? "FAILED"
      : strcmp(status, "stopped") == 0                 ? "KILLED"
                                                       : "RUNNING";
  const char* sent = state_str(s, "status");
  if (sent && strcmp(sent, mlflow) == 0) return 0;
  cJSON* body = cJSON_CreateObject();
  cJSON_AddStringToObject(body, "run_id", state_str(s, "run_id"));
  cJSON_AddStringToObject(body, "status", mlflow);
  if (strcmp(mlflow, "RUNNING") != 0)
    cJSON_AddNumberToObject(body, "end_time", epoch_ms(rec_str(s, "ended")[0] ? rec_str(s, "ended") : NULL));
  int rc = post(s, "runs/update", body, NULL, errstr);
  cJSON_Delete(body);
  if (!rc) {
    state_set(s, "status", cJSON_CreateString(mlflow));
    save_state(s);
  }
  return rc;
}

// ---- a sync ---------------------------------------------------------------------------------------

// the curl handle and headers (auth from MLflow's own variables: a team server behind basic auth
// or a token)
static int open_ctx(sync_ctx* s, const ne_track_options* opt, char* errstr) {
  s->c = ne__curl(errstr);
  if (!s->c) return NE_EUNSUPPORTED;
  s->h = s->c->curl_easy_init();
  if (!s->h) return ne__set_error(errstr, NE_ENOMEM, "curl_easy_init failed");
  s->timeout_s = opt && opt->timeout_s > 0 ? opt->timeout_s : 30;
  s->abort = opt ? opt->abort : NULL;
  char auth[1024] = "";
  const char* token = getenv("MLFLOW_TRACKING_TOKEN");
  if (token && *token) snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
  s->json = s->c->curl_slist_append(NULL, "Content-Type: application/json");
  s->binary = s->c->curl_slist_append(NULL, "Content-Type: application/octet-stream");
  if (auth[0]) {
    s->json = s->c->curl_slist_append(s->json, auth);
    s->binary = s->c->curl_slist_append(s->binary, auth);
  }
  const char *user = getenv("MLFLOW_TRACKING_USERNAME"), *pass = getenv("MLFLOW_TRACKING_PASSWORD");
  if (user && *user) {
    s->c->curl_easy_setopt(s->h, CURLOPT_USERNAME, user);
    s->c->curl_easy_setopt(s->h, CURLOPT_PASSWORD, pass ? pass : "");
  }
  const char* insecure = getenv("MLFLOW_TRACKING_INSECURE_TLS");
  if (insecure && strcmp(insecure, "true") == 0) s->c->curl_easy_setopt(s->h, CURLOPT_SSL_VERIFYPEER, 0L);
  s->c->curl_easy_setopt(s->h, CURLOPT_NOSIGNAL, 1L);  // threads: no SIGALRM for timeouts
  s->c->curl_easy_setopt(s->h, CURLOPT_CONNECTTIMEOUT_MS, 5000L);
  s->c->curl_easy_setopt(s->h, CURLOPT_TIMEOUT_MS, (long)(s->timeout_s * 1000));
  s->c->curl_easy_setopt(s->h, CURLOPT_WRITEFUNCTION, on_body);
  s->c->curl_easy_setopt(s->h, CURLOPT_WRITEDATA, &s->reply);
  s->c->curl_easy_setopt(s->h, CURLOPT_NOPROGRESS, 0L);
  s->c->curl_easy_setopt(s->h, CURLOPT_XFERINFOFUNCTION, on_progress);
  s->c->curl_easy_setopt(s->h, CURLOPT_XFERINFODATA, (void*)s->abort);
  return 0;
}

static void close_ctx(sync_ctx* s) {
  if (s->c) {
    s->c->curl_slist_free_all(s->json);
    s->c->curl_slist_free_all(s->binary);
    if (s->h) s->c->curl_easy_cleanup(s->h);
  }
  ne__buf_free(&s->reply);
  cJSON_Delete(s->state);
  cJSON_Delete(s->rec);
  ne_free(s->ini);
}

// ne_track_sync, telling the tracker's thread when the server answers (answered_at, under mu)
static int sync_dir(const char* run_dir, const ne_track_options* opt, ne_track_stats* stats, double* answered_at,
                    pthread_mutex_t* mu, char* errstr) {
  if (stats) memset(stats, 0, sizeof *stats);
  char probe[4200];
  snprintf(probe, sizeof probe, "%s/config.ini", run_dir);
  if (access(probe, F_OK) != 0) return ne__set_error(errstr, NE_ENOTFOUND, "%s: not a run directory", run_dir);
  sync_ctx s;
  memset(&s, 0, sizeof s);
  ne__buf_init(&s.reply);
  s.dir = run_dir;
  s.answered_at = answered_at;
  s.answered_mu = mu;
  ne__read_file(probe, &s.ini, NULL, NULL);
  if (opt && opt->url && *opt->url) snprintf(s.url, sizeof s.url, "%s", opt->url);
  else if (!ne_track_url(s.ini, s.url, (int)sizeof s.url)) {
    close_ctx(&s);
    return ne__set_error(errstr, NE_EINVAL, "%s: no tracking server (run.track, --to URL or $MLFLOW_TRACKING_URI)",
                         run_dir);
  }
  size_t n = strlen(s.url);
  while (n > 0 && s.url[n - 1] == '/') s.url[--n] = '\0';
  // run.json's stamp first: a record that changes after it is read is sent again next time
  char rec_path[4200];
  struct stat st;
  snprintf(rec_path, sizeof rec_path, "%s/run.json", run_dir);
  if (stat(rec_path, &st) == 0)
    snprintf(s.rec_stamp, sizeof s.rec_stamp, "%lld.%09ld:%lld", (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
             (long long)st.st_size);
  s.rec = read_json(run_dir, "run.json");
  s.state = read_json(run_dir, "track.json");
  // another server (or a track.json copied along with the directory): start over there
  const char* was = state_str(&s, "url");
  if (!was || strcmp(was, s.url) != 0) {
    cJSON_Delete(s.state);
    s.state = cJSON_CreateObject();
    state_set(&s, "url", cJSON_CreateString(s.url));
  }
  int rc = open_ctx(&s, opt, errstr);
  if (!rc) rc = ensure_experiment(&s, opt, errstr);
  if (!rc) rc = ensure_run(&s, errstr);
  if (!rc) rc = send_params(&s, errstr);
  if (!rc) rc = send_record(&s, errstr);
  if (!rc) rc = send_metrics(&s, stats, errstr);
  if (!rc && opt && opt->final) rc = send_artifacts(&s, stats, errstr);
  if (!rc && opt && opt->final) rc = send_status(&s, errstr);
  if (stats) {
    snprintf(stats->run_id, sizeof stats->run_id, "%s", state_str(&s, "run_id") ? state_str(&s, "run_id") : "");
    snprintf(stats->experiment_id, sizeof stats->experiment_id, "%s",
             state_str(&s, "experiment_id") ? state_str(&s, "experiment_id") : "");
  }
  save_state(&s);
  close_ctx(&s);
  return rc;
}

#else  // no libcurl headers at build time

static int sync_dir(const char* run_dir, const ne_track_options* opt, ne_track_stats* stats, double* answered_at,
                    pthread_mutex_t* mu, char* errstr) {
  (void)run_dir, (void)opt, (void)answered_at, (void)mu;
  if (stats) memset(stats, 0, sizeof *stats);
  return ne__set_error(errstr, NE_EUNSUPPORTED,
                       "this build has no MLflow tracking (install libcurl4-openssl-dev and rebuild)");
}

#endif

int ne_track_sync(const char* run_dir, const ne_track_options* opt, ne_track_stats* stats, char* errstr) {
  return sync_dir(run_dir, opt, stats, NULL, NULL, errstr);
}

// ---- a training run's tracker (tracker.h) ---------------------------------------------------------

struct ne__tracker {
  char dir[4096];
  char url[1024];
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int poked;                  // a generation to send
  int final;                  // the run ended: artifacts and status too
  int stop;                   // the thread ends now
  volatile int abort;         // requests in flight end (read by libcurl's progress callback)
  int healthy;                // the last sync succeeded (or none was tried yet)
  double answered_at;         // ne__now() of the server's last answer
  int done;                   // the final sync succeeded
  int warned;                 // the first failure was said
  char error[NE_ERRSTR_LEN];  // the last failure
};

static void* tracker_main(void* arg) {
  ne__tracker* t = arg;
  double backoff = 0, retry_at = 0;
  pthread_mutex_lock(&t->mu);
  while (!t->stop) {
    if (!t->poked && !t->final) {
      // nothing new: wait for a poke, the end, or the next retry
      struct timespec until;
      clock_gettime(CLOCK_REALTIME, &until);
      until.tv_sec += 60;
      pthread_cond_timedwait(&t->cv, &t->mu, &until);
      continue;
    }
    if (backoff > 0 && ne__now() < retry_at) {
      struct timespec until;
      clock_gettime(CLOCK_REALTIME, &until);
      double wait = retry_at - ne__now();
      until.tv_sec += (time_t)wait;
      until.tv_nsec += (long)((wait - floor(wait)) * 1e9);
      if (until.tv_nsec >= 1000000000L) until.tv_sec++, until.tv_nsec -= 1000000000L;
      pthread_cond_timedwait(&t->cv, &t->mu, &until);
      continue;
    }
    int final = t->final;
    t->poked = 0;
    pthread_mutex_unlock(&t->mu);
    char err[NE_ERRSTR_LEN];
    ne_track_options opt = {.url = t->url, .final = final, .abort = &t->abort};
    int rc = sync_dir(t->dir, &opt, NULL, &t->answered_at, &t->mu, err);
    pthread_mutex_lock(&t->mu);
    t->healthy = rc == 0;
    if (rc == 0) {
      backoff = 0;
      t->error[0] = '\0';
      if (final) {
        t->done = 1;
        pthread_cond_broadcast(&t->cv);
        break;
      }
    } else if (rc != NE_EINTR) {
      snprintf(t->error, sizeof t->error, "%s", err);
      if (!t->warned)
        fprintf(stderr,
                "neuroevo: warning: MLflow tracking: %s; the run goes on, tracking retries in the background "
                "(`neuroevo track %s` sends what is left)\n",
                err, t->dir);
      t->warned = 1;
      backoff = backoff > 0 ? fmin(2 * backoff, 60) : 1;
      retry_at = ne__now() + backoff;
      t->poked = 1;  // try again then
      pthread_cond_broadcast(&t->cv);
    }
  }
  pthread_mutex_unlock(&t->mu);
  return NULL;
}

ne__tracker* ne__tracker_start(const char* dir, const ne_config* cfg) {
  char url[1024];
  const char* track = ne_config_str(cfg, "run", "track");
  char ini[1200];
  snprintf(ini, sizeof ini, "[run]\ntrack = %s\n", track);
  if (!ne_track_url(ini, url, (int)sizeof url)) return NULL;
  ne__tracker* t = ne_calloc(1, sizeof *t);
  if (!t) return NULL;
  snprintf(t->dir, sizeof t->dir, "%s", dir);
  snprintf(t->url, sizeof t->url, "%s", url);
  t->healthy = 1;
#ifdef NE_HAVE_CURL
  char why[NE_ERRSTR_LEN];
  if (!ne__curl(why)) {
    fprintf(stderr, "neuroevo: warning: run.track = %s: %s; the run goes on untracked\n", url, why);
    ne_free(t);
    return NULL;
  }
#else
  fprintf(stderr,
          "neuroevo: warning: run.track = %s: this build has no MLflow tracking (libcurl); the run goes on untracked\n",
          url);
  ne_free(t);
  return NULL;
#endif
  pthread_mutex_init(&t->mu, NULL);
  pthread_cond_init(&t->cv, NULL);
  t->poked = 1;  // the run and its params right away
  if (pthread_create(&t->thread, NULL, tracker_main, t) != 0) {
    pthread_mutex_destroy(&t->mu);
    pthread_cond_destroy(&t->cv);
    ne_free(t);
    return NULL;
  }
  return t;
}

void ne__tracker_poke(ne__tracker* t) {
  if (!t) return;
  pthread_mutex_lock(&t->mu);
  t->poked = 1;
  pthread_cond_broadcast(&t->cv);
  pthread_mutex_unlock(&t->mu);
}

void ne__tracker_finish(ne__tracker* t, double wait_s) {
  if (!t) return;
  pthread_mutex_lock(&t->mu);
  t->final = 1;
  pthread_cond_broadcast(&t->cv);
  // the last rows and the artifacts get up to wait_s while the server keeps answering (no answer for
  // TRACK_SILENT_S: it is down or stuck, no more waiting); a server known down gets no wait at all
  double start = ne__now();
  t->answered_at = start;
  while (!t->done && t->healthy && ne__now() - start < wait_s && ne__now() - t->answered_at < TRACK_SILENT_S) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += 100000000L;  // re-check every 0.1 s
    if (ts.tv_nsec >= 1000000000L) ts.tv_sec++, ts.tv_nsec -= 1000000000L;
    pthread_cond_timedwait(&t->cv, &t->mu, &ts);
  }
  int done = t->done;
  t->stop = 1;
  t->abort = 1;
  pthread_cond_broadcast(&t->cv);
  pthread_mutex_unlock(&t->mu);
  pthread_join(t->thread, NULL);
  if (!done)
    fprintf(stderr,
            "neuroevo: note: MLflow tracking (%s): not everything was sent%s%s; `neuroevo track %s` sends the rest\n",
            t->url, t->error[0] ? ": " : "", t->error, t->dir);
  pthread_mutex_destroy(&t->mu);
  pthread_cond_destroy(&t->cv);
  ne_free(t);
}
