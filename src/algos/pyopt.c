// SPDX-License-Identifier: MIT
// Python optimizers as neuroevo algorithms: run.algorithm = nevergrad ([nevergrad] optimizer = any
// name in Nevergrad's registry) and run.algorithm = python ([python] class = module:Class, any
// ask/tell class). The optimizer lives in an optimizer server process (python/neuroevo/optserver.py,
// started through core/pyproc.c like the Gymnasium bridge's env servers); this file asks it for a
// batch of explicit vectors (NE_CAND_VECTOR, one blob each, plus the optimizer's recommendation as one
// more candidate), lets the executors evaluate them anywhere, and tells it the losses in candidate
// order. The server talks only to this file, so the executors and workers stay unchanged.
//
// Determinism and resume. The server seeds the optimizer (and Python's global generators) from the
// run seed, so a run is a pure function of (config, seed). The state in a checkpoint is the server's
// pickle of the optimizer when it is at most [section] snapshot_mb, plus a log of every generation
// told since that pickle (the losses, and a CRC of the candidates asked); resume unpickles it and
// replays the log through ask/tell without evaluating anything, checking each replayed batch against
// its CRC. Nevergrad's optimizers keep an archive of every point (~100 MB at 5k parameters after a
// few generations), so large problems resume by replay, small ones by their pickle.
//
// Errors. A missing Python, package or class, an unknown optimizer name (the server lists the
// nearest), an optimizer that raises and a server that dies or hangs ([section] call_timeout, else
// NEUROEVO_OPT_TIMEOUT, else 600 s a call; a call is announced every 30 s while it waits) all end
// the call with the server's message, which last_error hands to the runner: the run stops non-zero
// and its last checkpoint stays as it was.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>  // qsort
#include <string.h>

#include "algos/es_common.h"    // ne__report_save / load
#include "algos/pyopt_proto.h"  // the optimizer protocol's fields
#include "core/buf.h"
#include "core/crc32c.h"
#include "core/pyproc.h"
#include "core/util.h"
#include "neuroevo/alloc.h"
#include "neuroevo/rng.h"

#define PYOPT_MAGIC 0x3154504Fu  // "OPT1"
#define PYOPT_STATE_VERSION 1u
#define MAX_BATCH (1 << 20)  // most candidates one ask may return
#define SPEC_CAP 8192        // the settings' JSON text

// how the optimizer server is started (core/pyproc.h)
static const ne__pyproc_kind opt_server = {
    .module = "optserver",
    .script_env = "NEUROEVO_OPTSERVER",
    .what = "optimizer server",
    .python_hint = "numpy (and nevergrad for run.algorithm = nevergrad)",
    .magic = NE_OPT_MAGIC,
    .version = NE_OPT_VERSION,
    .timeout_env = "NEUROEVO_OPT_TIMEOUT",
    .call_timeout_s = 600.0,  // one ask, tell or pickle (a big optimizer can be slow)
    .timeout_key = "call_timeout",
    .notice_s = 30.0,
    .start_timeout_env = "NEUROEVO_OPT_START_TIMEOUT",
    .start_timeout_s = 120.0,
};

typedef enum x0_mode { X0_AUTO = 0, X0_POLICY = 1, X0_ZEROS = 2, X0_UNIFORM = 3 } x0_mode;

typedef struct pyopt {
  // fixed at create
  ne_problem prob;          // policy, n_params, run seed, episodes
  const char* section;      // "nevergrad" or "python"
  int n;                    // search dimension
  int eval_reco;            // 1: the recommendation is evaluated each generation
  uint32_t reco_episodes;   // its episodes
  uint64_t snapshot_limit;  // largest pickle kept in a checkpoint (bytes; 0: always replay)
  double call_timeout_s;    // [section] call_timeout: one call's limit (0: the server kind's default)
  double calls_s;           // seconds spent in the server's calls since started_at
  double started_at;        // ne__now() once the optimizer was made (or its state loaded)
  int warned_slow;          // 1 once warn_if_slow said so
  uint32_t spec_crc;        // CRC of the settings sent at init (a checkpoint must match)
  char who[96];             // message prefix: "nevergrad TBPSA", "python my_mod:Opt"
  ne__pyproc proc;          // the optimizer server
  // the generation in flight
  uint32_t gen;         // generations completed
  int asked;            // 1 while a batch is out
  int n_pop;            // population candidates in it (the recommendation follows)
  int cap;              // rows allocated in x
  float* x;             // (cap + 1, n) candidates, then the recommendation
  double* fit;          // (cap + 1) fitness of the last batch
  double* loss;         // (cap) losses told
  double* sorted;       // (cap) scratch for the median
  ne_candidate* cands;  // (cap + 1)
  ne_blob* blobs;       // (cap + 1)
  ne_batch batch;       // what ask hands out
  uint32_t batch_crc;   // CRC-32C of the batch's rows (replays are checked against it)
  // resume: the last pickle and the generations told since
  uint8_t* snap;  // (snap_len) the server's pickle, or NULL
  size_t snap_len;
  int snap_too_big;   // 1 once a pickle exceeded the limit: later ones are not tried
  ne_buf log;         // per generation since snap: u32 count, u32 crc, f64 losses[count]
  uint32_t log_gens;  // generations in log
  // results
  float* best_x;      // (n) best solution so far
  double best_score;  // its score (-inf before any)
  uint32_t best_gen;
  int has_best;
  ne_gen_report report;        // the last completed generation
  char errstr[NE_ERRSTR_LEN];  // the last failure (last_error)
} pyopt;

// ---- settings --------------------------------------------------------------------------------

static int parse_x0(const char* s, x0_mode* out) {
  static const char* const names[] = {"auto", "policy", "zeros", "uniform"};
  for (int i = 0; i < 4; i++)
    if (strcmp(s, names[i]) == 0) {
      *out = (x0_mode)i;
      return 0;
    }
  return NE_EINVAL;
}

// appends s to the JSON text as a string literal
static void json_str(char* out, size_t cap, const char* s) {
  size_t n = strlen(out);
  if (n + 2 >= cap) return;
  out[n++] = '"';
  for (; *s && n + 8 < cap; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') {
      out[n++] = '\\';
      out[n++] = (char)c;
    } else if (c < 0x20) {
      n += (size_t)snprintf(out + n, cap - n, "\\u%04x", c);
    } else {
      out[n++] = (char)c;
    }
  }
  out[n++] = '"';
  out[n] = '\0';
}

static void json_key(char* out, size_t cap, const char* key) {
  size_t n = strlen(out);
  snprintf(out + n, cap - n, "%s", n > 1 ? ", " : "");
  json_str(out, cap, key);
  n = strlen(out);
  snprintf(out + n, cap - n, ": ");
}

static void json_num(char* out, size_t cap, const char* key, const char* fmt, double v) {
  json_key(out, cap, key);
  size_t n = strlen(out);
  snprintf(out + n, cap - n, fmt, v);
}

// The settings the server builds the optimizer from, as JSON ({"kind": "nevergrad", ...}).
static int settings_json(const pyopt* s, const ne_config* cfg, char* out, size_t cap, char* errstr) {
  const char* sec = s->section;
  int nevergrad = strcmp(sec, "nevergrad") == 0;
  int64_t population = ne_config_int(cfg, sec, "population"), budget = 0;
  if (nevergrad) {
    budget = ne_config_int(cfg, sec, "budget");
    int64_t gens = ne_config_int(cfg, "run", "generations");
    if (budget == 0 && gens > 0) budget = gens * population;  // auto: every ask the run will make
  }
  snprintf(out, cap, "{");
  json_key(out, cap, "kind");
  json_str(out, cap, sec);
  if (nevergrad) {
    json_key(out, cap, "optimizer");
    json_str(out, cap, ne_config_str(cfg, sec, "optimizer"));
    json_num(out, cap, "sigma", "%.17g", ne_config_float(cfg, sec, "sigma"));
    json_num(out, cap, "budget", "%.0f", (double)budget);
  } else {
    const char* cls = ne_config_str(cfg, sec, "class");
    if (!*cls || !strchr(cls, ':'))
      return ne__set_error(errstr, NE_EINVAL,
                           "python.class = '%s': name an ask/tell class as module:Class, e.g. "
                           "cma:CMAEvolutionStrategy (options = x0=x0, sigma0=0.5)",
                           cls);
    json_key(out, cap, "class");
    json_str(out, cap, cls);
    json_key(out, cap, "options");
    json_str(out, cap, ne_config_str(cfg, sec, "options"));
    json_num(out, cap, "maximize", "%.0f", ne_config_bool(cfg, sec, "maximize"));
  }
  json_num(out, cap, "population", "%.0f", (double)population);
  json_num(out, cap, "seed", "%.0f", (double)(ne_seed_derive(s->prob.seed, 0, 0, NE_PURPOSE_ALGO) >> 11));
  json_num(out, cap, "recommend", "%.0f", s->eval_reco);
  size_t n = strlen(out);
  if (n + 2 >= cap) return ne__set_error(errstr, NE_ERANGE, "%s: the settings are longer than %zu bytes", sec, cap);
  snprintf(out + n, cap - n, "}");
  return 0;
}

// x0 as [section] x0 says (auto: the policy's init for networks, uniform for black-box functions)
static int initial_point(const pyopt* s, const ne_config* cfg, double* x0, char* errstr) {
  x0_mode mode;
  const char* text = ne_config_str(cfg, s->section, "x0");
  if (parse_x0(text, &mode))
    return ne__set_error(errstr, NE_EINVAL, "%s.x0 = %s: expected auto, policy, zeros or uniform", s->section, text);
  int identity = !s->prob.policy || s->prob.policy->act_dim == 0;  // black-box: no controller
  if (mode == X0_AUTO) mode = identity ? X0_UNIFORM : X0_POLICY;
  if (mode == X0_POLICY && identity)
    return ne__set_error(errstr, NE_EINVAL,
                         "%s.x0 = policy: a black-box problem has no policy init (use uniform or zeros)", s->section);
  if (mode == X0_POLICY) {
    // where the GA's first genome and CMA-ES's first mean start
    ne_policy_init_params(s->prob.policy, ne_seed_derive(s->prob.seed, 0, 0, NE_PURPOSE_INIT), s->x);
    for (int i = 0; i < s->n; i++) x0[i] = s->x[i];
  } else if (mode == X0_UNIFORM) {
    double range = ne_config_float(cfg, s->section, "x0_range");
    ne_rng rng;
    ne_rng_seed(&rng, ne_seed_derive(s->prob.seed, 0, 0, NE_PURPOSE_ALGO));
    for (int i = 0; i < s->n; i++) x0[i] = ne_rng_range(&rng, -range, range);
  } else {
    memset(x0, 0, (size_t)s->n * sizeof(double));
  }
  return 0;
}

// ---- talking to the server -------------------------------------------------------------------

// the server's failure as this object's error
static int failed(pyopt* s, int rc) {
  snprintf(s->errstr, sizeof s->errstr, "%s", s->proc.errstr[0] ? s->proc.errstr : ne_strerror(rc));
  return rc;
}

// Sends one command; an error reply becomes the failure (with the optimizer's message).
static int call(pyopt* s, char cmd, const char* what) {
  char reply;
  double t0 = ne__now();
  int rc = ne__pyproc_call(&s->proc, s->who, cmd, what, &reply);
  s->calls_s += ne__now() - t0;
  if (!rc && reply == NE_PYPROC_REPLY_ERROR) rc = ne__pyproc_error(&s->proc, s->who);
  else if (!rc && reply != NE_PYPROC_REPLY_OK)
    rc = ne__pyproc_fail(&s->proc, s->who, NE_ECORRUPT, "unexpected reply byte 0x%02x to %s", (unsigned char)reply,
                         what);
  return rc ? failed(s, rc) : 0;
}

// Starts the server and makes the optimizer from x0 and the settings.
static int start_server(pyopt* s, const double* x0, const char* spec, char* errstr) {
  size_t spec_len = strlen(spec), x0_bytes = (size_t)s->n * sizeof(double);
  size_t bytes = (size_t)1 << 20;
  while (bytes < NE_OPT_OFF_DATA + x0_bytes + spec_len) bytes *= 2;
  char reply;
  int rc = ne__pyproc_start(&s->proc, &opt_server, s->who, bytes, NULL, &reply);
  if (!rc && s->call_timeout_s > 0) s->proc.call_timeout_s = s->call_timeout_s;  // [section] call_timeout
  if (!rc && reply == NE_PYPROC_REPLY_ERROR) rc = ne__pyproc_error(&s->proc, s->who);
  else if (!rc && reply != NE_PYPROC_REPLY_HELLO)
    rc =
        ne__pyproc_fail(&s->proc, s->who, NE_ECORRUPT, "unexpected reply byte 0x%02x at startup", (unsigned char)reply);
  if (rc) return ne__set_error(errstr, rc, "%s", s->proc.errstr);
  uint32_t dim = (uint32_t)s->n;
  uint64_t len = spec_len;
  ne__pyproc_put(&s->proc, NE_OPT_OFF_DIM, &dim, sizeof dim);
  ne__pyproc_put(&s->proc, NE_OPT_OFF_LEN, &len, sizeof len);
  ne__pyproc_put(&s->proc, NE_OPT_OFF_DATA, x0, x0_bytes);
  ne__pyproc_put(&s->proc, NE_OPT_OFF_DATA + x0_bytes, spec, spec_len);
  rc = call(s, NE_OPT_CMD_INIT, "init");
  return rc ? ne__set_error(errstr, rc, "%s", s->errstr) : 0;
}

// ---- buffers ---------------------------------------------------------------------------------

// rows for a batch of `count` candidates (+ the recommendation)
static int reserve_rows(pyopt* s, int count) {
  if (count <= s->cap) return 0;
  size_t k = (size_t)count, n = (size_t)s->n;
  ne_free(s->x);
  ne_free(s->fit);
  ne_free(s->loss);
  ne_free(s->sorted);
  ne_free(s->cands);
  ne_free(s->blobs);
  s->x = ne_malloc((k + 1) * n * sizeof(float));
  s->fit = ne_calloc(k + 1, sizeof(double));
  s->loss = ne_calloc(k, sizeof(double));
  s->sorted = ne_calloc(k, sizeof(double));
  s->cands = ne_calloc(k + 1, sizeof(ne_candidate));
  s->blobs = ne_calloc(k + 1, sizeof(ne_blob));
  s->cap = count;
  if (s->x && s->fit && s->loss && s->sorted && s->cands && s->blobs) return 0;
  s->cap = 0;
  return NE_ENOMEM;
}

static void set_candidate(pyopt* s, int k, uint32_t episodes, uint64_t episode_seed) {
  ne__vector_candidate(&s->cands[k], &s->blobs[k], (uint32_t)k, episodes, episode_seed,
                       ne_seed_derive(s->prob.seed, s->gen, (uint64_t)k, NE_PURPOSE_ALGO),
                       s->x + (size_t)k * (size_t)s->n, (size_t)s->n);
}

// ---- ask / tell ----------------------------------------------------------------------------------

// Asks the server for the next batch and copies it (and its CRC) into x.
static int fetch_batch(pyopt* s) {
  int rc = call(s, NE_OPT_CMD_ASK, "ask");
  if (rc) return rc;
  uint32_t count = ne__pyproc_u32(&s->proc, NE_OPT_OFF_COUNT), reco = ne__pyproc_u32(&s->proc, NE_OPT_OFF_FLAG);
  size_t n = (size_t)s->n, rows = (size_t)count + (reco ? 1 : 0);
  if (count < 1 || count > MAX_BATCH || reco > 1 || NE_OPT_OFF_DATA + rows * n * sizeof(float) > s->proc.mem_bytes)
    return failed(s,
                  ne__pyproc_fail(&s->proc, s->who, NE_ECORRUPT,
                                  "ask returned a batch of %u candidates that does not "
                                  "fit the block",
                                  count));
  if (reserve_rows(s, (int)count))
    return failed(s,
                  ne__pyproc_fail(&s->proc, s->who, NE_ENOMEM,
                                  "out of memory for %u "
                                  "candidates",
                                  count));
  memcpy(s->x, s->proc.mem + NE_OPT_OFF_DATA, rows * n * sizeof(float));
  s->n_pop = (int)count;
  s->batch_crc = ne__crc32c(0, s->x, rows * n * sizeof(float));
  if (reco != (uint32_t)s->eval_reco)
    return failed(s,
                  ne__pyproc_fail(&s->proc, s->who, NE_ECORRUPT, "ask %s a recommendation", reco ? "sent" : "lacks"));
  return 0;
}

static int pyopt_ask(void* self, const ne_batch** batch) {
  pyopt* s = self;
  if (!s->asked) {
    int rc = fetch_batch(s);
    if (rc) return rc;
    uint32_t episodes = s->prob.episodes > 0 ? (uint32_t)s->prob.episodes : 1;
    for (int k = 0; k < s->n_pop; k++)
      set_candidate(s, k, episodes, ne_seed_derive(s->prob.seed, s->gen, (uint64_t)k, NE_PURPOSE_EPISODE));
    int total = s->n_pop;
    // the recommendation rides along as one more candidate: its return is the generation's elite_mean
    if (s->eval_reco)
      set_candidate(s, total++, s->reco_episodes, ne_seed_derive(s->prob.seed, s->gen, 0, NE_PURPOSE_REEVAL));
    memset(&s->batch, 0, sizeof s->batch);
    s->batch.generation = s->gen;
    s->batch.n = total;
    s->batch.cands = s->cands;
    s->batch.n_blobs = total;
    s->batch.blobs = s->blobs;
    s->asked = 1;
  }
  *batch = &s->batch;
  return 0;
}

// Tells the server the losses in s->loss (n_pop of them).
static int tell_losses(pyopt* s) {
  uint32_t count = (uint32_t)s->n_pop;
  ne__pyproc_put(&s->proc, NE_OPT_OFF_COUNT, &count, sizeof count);
  ne__pyproc_put(&s->proc, NE_OPT_OFF_DATA, s->loss, (size_t)count * sizeof(double));
  return call(s, NE_OPT_CMD_TELL, "tell");
}

static int by_value(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

// the generation's figures and the best so far (the recommendation's evaluation when there is one)
static void account(pyopt* s) {
  int k = s->n_pop;
  ne_gen_report* r = &s->report;
  memset(r, 0, sizeof *r);
  r->generation = s->gen;
  double sum = 0;
  int top = 0;
  for (int i = 0; i < k; i++) {
    sum += s->fit[i];
    s->sorted[i] = s->fit[i];
    if (s->fit[i] > s->fit[top]) top = i;
  }
  qsort(s->sorted, (size_t)k, sizeof(double), by_value);
  r->best = s->sorted[k - 1];
  r->mean = sum / k;
  r->median = k % 2 ? s->sorted[k / 2] : 0.5 * (s->sorted[k / 2 - 1] + s->sorted[k / 2]);
  r->elite_mean = s->eval_reco ? s->fit[k] : NAN;
  int which = s->eval_reco ? k : top;
  if (s->fit[which] > s->best_score) {
    s->best_score = s->fit[which];
    s->best_gen = s->gen;
    s->has_best = 1;
    memcpy(s->best_x, s->x + (size_t)which * (size_t)s->n, (size_t)s->n * sizeof(float));
  }
}

// appends the generation just told to the replay log
static void log_generation(pyopt* s) {
  ne__buf_u32(&s->log, (uint32_t)s->n_pop);
  ne__buf_u32(&s->log, s->batch_crc);
  ne__buf_f64s(&s->log, s->loss, (size_t)s->n_pop);
  s->log_gens++;
}

// Says once when the optimizer's own calls take most of the run's time: then the optimizer, not
// the evaluation, sets the pace (Nevergrad's NGOpt below a budget of 5 x population picks a
// sampling search whose ask costs ~1.7 s of CPU at 5k dimensions: minutes a generation).
static void warn_if_slow(pyopt* s) {
  double wall = ne__now() - s->started_at;
  if (s->warned_slow || s->calls_s < 60 || s->calls_s < 0.5 * wall) return;
  s->warned_slow = 1;
  fprintf(stderr,
          "neuroevo: note: %s: its own ask and tell took %.0f s of the %.0f s this run has trained (%.0f%%): the "
          "optimizer, not the evaluation, sets the pace (where episodes should dominate, see docs/studies.md: "
          "Nevergrad's NGOpt at small budgets)\n",
          s->who, s->calls_s, wall, 100 * s->calls_s / wall);
}

static int pyopt_tell(void* self, const ne_batch* batch, const ne_result* results, int* generation_done) {
  pyopt* s = self;
  if (!s->asked || batch != &s->batch) return NE_ESTATE;
  for (int k = 0; k < batch->n; k++)
    s->fit[k] = results[k].status == 0 && !isnan(results[k].fitness) ? results[k].fitness : -INFINITY;
  // losses are minimized: -fitness (the server tells the fitness itself under python.maximize = true)
  for (int k = 0; k < s->n_pop; k++) s->loss[k] = -s->fit[k];
  int rc = tell_losses(s);
  if (rc) return rc;
  log_generation(s);
  account(s);
  s->gen++;
  s->asked = 0;
  *generation_done = 1;
  warn_if_slow(s);
  return 0;
}

// ---- checkpoints ---------------------------------------------------------------------------------

// Asks the server for a pickle of at most snapshot_limit bytes; a new one replaces the old and
// empties the log. A larger one is not copied, and not tried again (archives only grow).
static int snapshot(pyopt* s) {
  if (s->snapshot_limit == 0 || s->snap_too_big) return 0;
  ne__pyproc_put(&s->proc, NE_OPT_OFF_LIMIT, &s->snapshot_limit, sizeof s->snapshot_limit);
  int rc = call(s, NE_OPT_CMD_SAVE, "pickle");
  if (rc) return rc;
  uint64_t len = ne__pyproc_u64(&s->proc, NE_OPT_OFF_LEN);
  if (!ne__pyproc_u32(&s->proc, NE_OPT_OFF_FLAG)) {
    s->snap_too_big = 1;
    return 0;
  }
  if (len > s->snapshot_limit || NE_OPT_OFF_DATA + len > s->proc.mem_bytes)
    return failed(
        s,
        ne__pyproc_fail(&s->proc, s->who, NE_ECORRUPT, "pickle of %llu bytes does not fit", (unsigned long long)len));
  uint8_t* copy = ne_malloc(len ? (size_t)len : 1);
  if (!copy) return NE_ENOMEM;
  memcpy(copy, s->proc.mem + NE_OPT_OFF_DATA, (size_t)len);
  ne_free(s->snap);
  s->snap = copy;
  s->snap_len = (size_t)len;
  ne__buf_free(&s->log);
  ne__buf_init(&s->log);
  s->log_gens = 0;
  return 0;
}

static int pyopt_save(void* self, uint8_t** data, size_t* len) {
  pyopt* s = self;
  if (s->asked) return NE_ESTATE;
  int rc = snapshot(s);
  if (rc) return rc;
  if (s->log.oom) return NE_ENOMEM;
  ne_buf b;
  ne__buf_init(&b);
  ne__buf_u32(&b, PYOPT_MAGIC);
  ne__buf_u32(&b, PYOPT_STATE_VERSION);
  ne__buf_u32(&b, (uint32_t)s->n);
  ne__buf_u32(&b, s->spec_crc);
  ne__buf_u32(&b, s->gen);
  ne__buf_u32(&b, (uint32_t)s->has_best);
  ne__buf_f64(&b, s->best_score);
  ne__buf_u32(&b, s->best_gen);
  ne__buf_f32s(&b, s->best_x, (size_t)s->n);
  ne__report_save(&s->report, &b);
  ne__buf_u32(&b, (uint32_t)s->snap_too_big);
  ne__buf_u64(&b, s->snap_len);
  ne__buf_bytes(&b, s->snap, s->snap_len);
  ne__buf_u32(&b, s->log_gens);
  ne__buf_u64(&b, s->log.len);
  ne__buf_bytes(&b, s->log.data, s->log.len);
  return ne__buf_take(&b, data, len);
}

// Hands a pickle to the server, which replaces its optimizer with it.
static int restore_pickle(pyopt* s, const uint8_t* data, size_t len) {
  int rc = ne__pyproc_reserve(&s->proc, s->who, NE_OPT_OFF_DATA + len);
  if (rc) return failed(s, rc);
  uint64_t n = len;
  ne__pyproc_put(&s->proc, NE_OPT_OFF_LEN, &n, sizeof n);
  ne__pyproc_put(&s->proc, NE_OPT_OFF_DATA, data, len);
  return call(s, NE_OPT_CMD_LOAD, "unpickle");
}

// Replays the logged generations through ask/tell (nothing is evaluated), each batch checked
// against the CRC of the one the original run asked for; the log is kept as it was.
static int replay(pyopt* s, const uint8_t* log, size_t len, uint32_t gens, char* errstr) {
  ne_reader r;
  ne__reader_init(&r, log, len);
  for (uint32_t g = 0; g < gens; g++) {
    uint32_t count = ne__reader_u32(&r), crc = ne__reader_u32(&r);
    if (r.bad || count < 1 || count > MAX_BATCH || ne__reader_left(&r) < (size_t)count * sizeof(double))
      return ne__set_error(errstr, NE_ECORRUPT, "%s: the optimizer's replay log is truncated", s->section);
    int rc = fetch_batch(s);
    if (rc) return ne__set_error(errstr, rc, "%s (replaying generation %u of %u)", s->errstr, g + 1, gens);
    if ((uint32_t)s->n_pop != count || s->batch_crc != crc)
      return ne__set_error(
          errstr, NE_ESTATE,
          "%s: replaying the log, the optimizer asked for other candidates than the "
          "original run at its generation %u of %u: it is not a pure function of its seed and the told "
          "values, so this run cannot be resumed",
          s->who, g + 1, gens);
    ne__reader_f64s(&r, s->loss, count);
    rc = tell_losses(s);
    if (rc) return ne__set_error(errstr, rc, "%s (replaying generation %u of %u)", s->errstr, g + 1, gens);
  }
  if (r.pos != r.len) return ne__set_error(errstr, NE_ECORRUPT, "%s: the replay log has trailing bytes", s->section);
  return 0;
}

static int pyopt_load(void* self, const uint8_t* data, size_t len, char* errstr) {
  pyopt* s = self;
  ne_reader r;
  ne__reader_init(&r, data, len);
  if (ne__reader_u32(&r) != PYOPT_MAGIC) return ne__set_error(errstr, NE_ECORRUPT, "not a %s state", s->section);
  uint32_t version = ne__reader_u32(&r), n = ne__reader_u32(&r), crc = ne__reader_u32(&r);
  if (version != PYOPT_STATE_VERSION)
    return ne__set_error(errstr, NE_EVERSION, "%s state version %u, this build reads %u", s->section, version,
                         PYOPT_STATE_VERSION);
  if (r.bad || n != (uint32_t)s->n || crc != s->spec_crc)
    return ne__set_error(errstr, NE_EINVAL,
                         "the %s state was written for other settings (%u parameters; its [%s] "
                         "settings differ from this config's)",
                         s->section, n, s->section);
  s->gen = ne__reader_u32(&r);
  s->has_best = (int)ne__reader_u32(&r);
  s->best_score = ne__reader_f64(&r);
  s->best_gen = ne__reader_u32(&r);
  ne__reader_f32s(&r, s->best_x, (size_t)s->n);
  ne__report_load(&s->report, &r);
  s->snap_too_big = (int)ne__reader_u32(&r);
  uint64_t snap_len = ne__reader_u64(&r);
  if (r.bad || snap_len > ne__reader_left(&r))
    return ne__set_error(errstr, NE_ECORRUPT, "%s state is truncated", s->section);
  const uint8_t* snap = r.data + r.pos;
  r.pos += (size_t)snap_len;
  uint32_t gens = ne__reader_u32(&r);
  uint64_t log_len = ne__reader_u64(&r);
  if (r.bad || log_len != ne__reader_left(&r))
    return ne__set_error(errstr, NE_ECORRUPT, "%s state is truncated", s->section);
  const uint8_t* log = r.data + r.pos;
  // the server's optimizer: the pickle, then the generations told since
  if (snap_len) {
    int rc = restore_pickle(s, snap, (size_t)snap_len);
    if (rc) return ne__set_error(errstr, rc, "%s", s->errstr);
    ne_free(s->snap);
    s->snap = ne_malloc((size_t)snap_len);
    if (!s->snap) return ne__set_error(errstr, NE_ENOMEM, "out of memory");
    memcpy(s->snap, snap, (size_t)snap_len);
    s->snap_len = (size_t)snap_len;
  }
  int rc = replay(s, log, (size_t)log_len, gens, errstr);
  if (rc) return rc;
  ne__buf_free(&s->log);
  ne__buf_init(&s->log);
  ne__buf_bytes(&s->log, log, (size_t)log_len);
  s->log_gens = gens;
  s->asked = 0;
  s->calls_s = 0, s->started_at = ne__now();  // the replay's calls are not the run's pace
  return s->log.oom ? ne__set_error(errstr, NE_ENOMEM, "out of memory") : 0;
}

// ---- the rest of the vtable ------------------------------------------------------------------------

static void pyopt_report(void* self, ne_gen_report* out) { *out = ((pyopt*)self)->report; }

static int pyopt_best(void* self, ne_best* out) {
  pyopt* s = self;
  if (!s->has_best) return NE_ENOTFOUND;
  memset(out, 0, sizeof *out);
  out->score = s->best_score;
  out->generation = s->best_gen;
  out->params = s->best_x;
  out->n_params = (size_t)s->n;
  return 0;
}

static const char* pyopt_last_error(void* self) {
  pyopt* s = self;
  return s->errstr[0] ? s->errstr : NULL;
}

static void pyopt_destroy(void* self) {
  pyopt* s = self;
  if (!s) return;
  ne__pyproc_stop(&s->proc, 1);
  ne_free(s->x);
  ne_free(s->fit);
  ne_free(s->loss);
  ne_free(s->sorted);
  ne_free(s->cands);
  ne_free(s->blobs);
  ne_free(s->snap);
  ne_free(s->best_x);
  ne__buf_free(&s->log);
  ne_free(s);
}

// Reads the section's settings, starts the server and makes the optimizer.
static int create(const ne_problem* problem, const ne_config* cfg, const char* section, void** self, char* errstr) {
  *self = NULL;
  if (problem->n_params < 1 || problem->n_params > (size_t)1 << 28)
    return ne__set_error(errstr, NE_EINVAL, "%s: cannot search %zu parameters", section, problem->n_params);
  pyopt* s = ne_calloc(1, sizeof *s);
  if (!s) return ne__set_error(errstr, NE_ENOMEM, "out of memory");
  *self = s;
  s->prob = *problem;
  s->section = section;
  s->n = (int)problem->n_params;
  s->best_score = -INFINITY;
  s->report.elite_mean = NAN;
  ne__buf_init(&s->log);
  s->eval_reco = ne_config_bool(cfg, section, "eval_recommendation");
  int64_t reco = ne_config_int(cfg, section, "eval_episodes");
  s->reco_episodes = reco > 0 ? (uint32_t)reco : problem->episodes > 0 ? (uint32_t)problem->episodes : 1;
  s->snapshot_limit = (uint64_t)ne_config_int(cfg, section, "snapshot_mb") << 20;
  s->call_timeout_s = ne_config_float(cfg, section, "call_timeout");
  if (strcmp(section, "nevergrad") == 0)
    snprintf(s->who, sizeof s->who, "nevergrad %s", ne_config_str(cfg, section, "optimizer"));
  else snprintf(s->who, sizeof s->who, "python %s", ne_config_str(cfg, section, "class"));
  s->best_x = ne_calloc((size_t)s->n, sizeof(float));
  double* x0 = ne_malloc((size_t)s->n * sizeof(double));
  char* spec = ne_malloc(SPEC_CAP);
  int rc = !s->best_x || !x0 || !spec || reserve_rows(s, 1) ? ne__set_error(errstr, NE_ENOMEM, "out of memory") : 0;
  if (!rc) rc = settings_json(s, cfg, spec, SPEC_CAP, errstr);
  if (!rc) rc = initial_point(s, cfg, x0, errstr);
  if (!rc) {
    // the checkpoint carries this, so that it is never resumed under other settings or another x0
    s->spec_crc = ne__crc32c(ne__crc32c(0, spec, strlen(spec)), x0, (size_t)s->n * sizeof(double));
    rc = start_server(s, x0, spec, errstr);
    s->calls_s = 0, s->started_at = ne__now();  // the server's start is not the run's pace
  }
  ne_free(x0);
  ne_free(spec);
  return rc;
}

static int nevergrad_create(const ne_problem* problem, const ne_config* cfg, void** self, char* errstr) {
  return create(problem, cfg, "nevergrad", self, errstr);
}

static int python_create(const ne_problem* problem, const ne_config* cfg, void** self, char* errstr) {
  return create(problem, cfg, "python", self, errstr);
}

const ne_algo_vt ne__algo_nevergrad = {
    .name = "nevergrad",
    .section = "nevergrad",
    .create = nevergrad_create,
    .destroy = pyopt_destroy,
    .ask = pyopt_ask,
    .tell = pyopt_tell,
    .report = pyopt_report,
    .best = pyopt_best,
    .save = pyopt_save,
    .load = pyopt_load,
    .last_error = pyopt_last_error,
};

const ne_algo_vt ne__algo_python = {
    .name = "python",
    .section = "python",
    .create = python_create,
    .destroy = pyopt_destroy,
    .ask = pyopt_ask,
    .tell = pyopt_tell,
    .report = pyopt_report,
    .best = pyopt_best,
    .save = pyopt_save,
    .load = pyopt_load,
    .last_error = pyopt_last_error,
};
