// SPDX-License-Identifier: MIT
// `neuroevo compare` in library form (compare.h): a study of arms x seeds. Each run trains in a
// process of its own (fork), several at a time on the local threads (each with a thread pool of
// threads / runs-at-once threads; results do not depend on the thread count, so a run is the same
// as the run alone) or one after another on the caller's executors (a Redis master per run). A
// run's process is its isolation: a run that fails (its config, env or optimizer, an optimizer
// call over its time limit, a crash of the process itself) is recorded with its error in
// study.json and its run.json while the others go on, and its process's exit code and CPU time
// (wait4) are exactly its own. The parent only schedules, prints progress with an ETA, and in the
// end writes the summary (compare_summary.c) of what finished. The same command later continues:
// finished runs are kept, failed and stopped ones resumed.
//
// Signals: the runs' processes have a process group of their own, so a terminal's Ctrl-C reaches
// the parent alone, which passes one SIGTERM to each running run (they checkpoint and stop); a
// parent that dies takes them along (PR_SET_PDEATHSIG).
#include "neuroevo/compare.h"

#include <cjson/cJSON.h>  // study.json
#include <errno.h>
#include <math.h>
#include <poll.h>  // waiting on the runs' pipes
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>  // wait4's rusage: a run's CPU time
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>  // PR_SET_PDEATHSIG
#endif

#include "core/sysinfo.h"  // study.json's times
#include "core/util.h"
#include "neuroevo/alloc.h"
#include "neuroevo/executor.h"
#include "neuroevo/metrics.h"  // the running runs' progress
#include "neuroevo/pool.h"     // ne_cpu_count
#include "neuroevo/run.h"
#include "neuroevo/runinfo.h"  // finished runs kept; a crashed run's record
#include "report/compare_int.h"

#define DEFAULT_SEEDS 3
#define DEFAULT_PROGRESS_S 30.0  // seconds between status lines
#define MAX_SLOTS 256            // runs trained at the same time at most
#define MSG_CAP (NE_ERRSTR_LEN + 16)

// A run's process while it trains.
typedef struct child {
  pid_t pid;          // 0: slot free
  int fd;             // read end of its pipe (its result: rc, then its error text)
  int arm, seed;      // which run
  char msg[MSG_CAP];  // what it wrote so far
  size_t msg_len;
} child;

// The study in progress.
typedef struct study {
  const ne_compare_entry* entries;
  const ne_compare_options* opt;
  ne__cmp_arm* arms;  // (n)
  int n, seeds;
  int slots, threads;  // runs at once, evaluation threads of each
  int total, done;     // runs, and runs with an outcome (finished, failed, kept)
  child kids[MAX_SLOTS];
  int running;       // kids in use
  int stopping;      // a stop request was seen (no new run starts; the running ones were told)
  double last_line;  // ne__now() of the last status line
  pid_t parent;      // this process (its runs check that it is still there)
  char created[32];  // study.json's first start
} study;

// ---- the arms -----------------------------------------------------------------------------------

// the arm's threshold in score units: --threshold, else run.target (auto: the env's)
static void resolve_threshold(ne__cmp_arm* a, const ne_config* cfg, const ne_env_spec* env,
                              const ne_compare_options* opt) {
  const char* t = ne_config_str(cfg, "run", "target");
  char* end;
  a->has_threshold = 0;
  if (opt->has_threshold) {
    a->has_threshold = 1;
    a->threshold = opt->threshold;
  } else if (strcmp(t, "auto") == 0 && env->has_threshold) {
    a->has_threshold = 1;
    a->threshold = a->minimize ? -env->reward_threshold : env->reward_threshold;
  } else if (strcmp(t, "auto") != 0 && strcmp(t, "none") != 0) {
    a->threshold = strtod(t, &end);
    a->has_threshold = *end == '\0' && isfinite(a->threshold);
  }
}

// What the summary needs to know of an arm; an arm that cannot start (its config does not
// validate, its env or policy cannot be made) gets its error instead, and the others go on. The
// env is made and freed here: each run's process makes its own.
static void prepare_arm(const ne_compare_entry* e, const ne_compare_options* opt, ne__cmp_arm* a) {
  a->name = e->name;
  snprintf(a->env_id, sizeof a->env_id, "%s", ne_config_str(e->cfg, "env", "id"));
  snprintf(a->algo, sizeof a->algo, "%s", ne_config_str(e->cfg, "run", "algorithm"));
  a->generations = opt->generations_set ? opt->generations : ne_config_int(e->cfg, "run", "generations");
  ne_env_spec* env = NULL;
  ne_policy_spec policy;
  char why[NE_ERRSTR_LEN];
  int rc = ne_config_validate(e->cfg, why);
  if (!rc) rc = ne_env_from_config(e->cfg, &env, why);
  if (!rc) rc = ne_policy_from_config(e->cfg, env, &policy, why);
  if (rc) {
    snprintf(a->error, sizeof a->error, "%s", why);
  } else {
    a->minimize = env->evaluate != NULL;
    resolve_threshold(a, e->cfg, env, opt);
  }
  ne_env_spec_destroy(env);
}

// 1 when run dir finished in an earlier invocation and continuing it would stop at once: it is
// kept without starting a process (a Nevergrad arm's would start its optimizer server first)
static int already_finished(const char* dir, const ne_compare_options* opt) {
  ne_runinfo r;
  if (ne_runinfo_load(dir, &r, NULL) != 0) return 0;
  int done = r.has_record && strcmp(r.status, "finished") == 0;
  // a larger generation budget continues a run that stopped at its old one
  if (done && opt->generations_set && strcmp(r.reason, "generation budget reached") == 0)
    done = opt->generations > 0 && opt->generations <= r.generations;
  ne_runinfo_free(&r);
  return done;
}

// ---- study.json ---------------------------------------------------------------------------------

static const char* state_text(ne__cmp_state s) {
  static const char* const names[] = {"pending", "running", "finished", "failed", "stopped"};
  return names[s];
}

static cJSON* study_json(const study* s, const char* status) {
  cJSON* j = cJSON_CreateObject();
  char now[32];
  ne__utc_now(now, sizeof now);
  cJSON_AddNumberToObject(j, "format", 1);
  cJSON_AddStringToObject(j, "status", status);
  cJSON_AddStringToObject(j, "created", s->created);
  cJSON_AddStringToObject(j, "updated", now);
  cJSON_AddNumberToObject(j, "seeds", s->seeds);
  const ne_run_origin* o = s->opt->origin;
  if (o && o->argv) cJSON_AddItemToObject(j, "command", cJSON_CreateStringArray(o->argv, o->argc));
  cJSON* arms = cJSON_AddArrayToObject(j, "arms");
  for (int i = 0; i < s->n; i++) {
    const ne__cmp_arm* a = &s->arms[i];
    cJSON* arm = cJSON_CreateObject();
    cJSON_AddStringToObject(arm, "name", a->name);
    cJSON_AddStringToObject(arm, "env", a->env_id);
    cJSON_AddStringToObject(arm, "algorithm", a->algo);
    // where the arm's config came from: its file and the overrides and swept values applied
    const ne_config* cfg = s->entries[i].cfg;
    const char* sources = ne_config_sources(cfg);
    const char* last = sources;
    for (const char* p = sources; *p; p++)
      if (p[0] == '\n' && p[1]) last = p + 1;
    char source[NE__CMP_PATH];
    snprintf(source, sizeof source, "%.*s", (int)strcspn(last, "\n"), last);
    cJSON_AddStringToObject(arm, "source", source);
    cJSON* overrides = cJSON_AddArrayToObject(arm, "overrides");
    const ne_config_key* schema = ne_config_schema();
    for (int q = 0; q < ne_config_schema_count(); q++) {
      const char* text = ne_config_assignment(cfg, schema[q].section, schema[q].key);
      if (text) cJSON_AddItemToArray(overrides, cJSON_CreateString(text));
    }
    if (a->error[0]) cJSON_AddStringToObject(arm, "error", a->error);
    cJSON* runs = cJSON_AddArrayToObject(arm, "runs");
    for (int k = 0; k < s->seeds; k++) {
      const ne__cmp_run* r = &a->runs[k];
      cJSON* run = cJSON_CreateObject();
      char dir[NE__CMP_PATH];
      snprintf(dir, sizeof dir, "%s/seed%d", a->name, k);
      cJSON_AddNumberToObject(run, "seed", k);
      cJSON_AddStringToObject(run, "dir", dir);
      cJSON_AddStringToObject(run, "status", state_text(r->state));
      if (r->error[0]) cJSON_AddStringToObject(run, "error", r->error);
      if (r->session_s > 0) cJSON_AddNumberToObject(run, "wall_s", round(r->session_s * 1000) / 1000);
      if (r->session_s > 0) cJSON_AddNumberToObject(run, "cpu_s", round(r->cpu_s * 1000) / 1000);
      cJSON_AddItemToArray(runs, run);
    }
    cJSON_AddItemToArray(arms, arm);
  }
  return j;
}

// rewrites DIR/study.json (a warning on failure: the runs' own records are the record)
static void save_study(const study* s, const char* status) {
  cJSON* j = study_json(s, status);
  char* text = j ? cJSON_Print(j) : NULL;
  char path[NE__CMP_PATH + 32], why[NE_ERRSTR_LEN];
  snprintf(path, sizeof path, "%s/study.json", s->opt->out_dir);
  if (!text || ne__write_file_atomic(path, text, strlen(text), why) != 0)
    fprintf(stderr, "neuroevo: warning: %s not written: %s\n", path, text ? why : "out of memory");
  cJSON_free(text);
  cJSON_Delete(j);
}

// the first start of an existing study.json, or now
static void study_created(study* s) {
  char path[NE__CMP_PATH + 32], *text = NULL;
  snprintf(path, sizeof path, "%s/study.json", s->opt->out_dir);
  ne__utc_now(s->created, sizeof s->created);
  if (ne__read_file(path, &text, NULL, NULL) != 0) return;
  cJSON* j = cJSON_Parse(text);
  const cJSON* c = cJSON_GetObjectItemCaseSensitive(j, "created");
  if (cJSON_IsString(c)) snprintf(s->created, sizeof s->created, "%s", c->valuestring);
  cJSON_Delete(j);
  ne_free(text);
}

// ---- a run, in its own process ------------------------------------------------------------------

// The run process's stop flag, raised by its signal handler. A process-wide flag is what a signal
// handler can reach; only a run's process (after fork) ever sets it.
static volatile int child_stop;

static void on_child_signal(int sig) {
  if (child_stop) {  // a second signal: stop at once
    signal(sig, SIG_DFL);
    raise(sig);
  }
  child_stop = 1;
}

// The config of a run: its run directory's config.ini when it exists (resume), else the arm's
// with run.seed set. *resume tells which. Caller frees with ne_config_destroy.
static int run_config_of(const ne_compare_entry* e, int seed, const char* dir, ne_config** out, int* resume,
                         char* errstr) {
  char probe[NE__CMP_PATH + 16];
  snprintf(probe, sizeof probe, "%s/config.ini", dir);
  *resume = access(probe, F_OK) == 0;
  *out = ne_config_create();
  if (!*out) return ne__set_error(errstr, NE_ENOMEM, "out of memory");
  if (*resume) return ne_config_load_file(*out, probe, errstr);
  ne_config_destroy(*out);
  *out = ne_config_clone(e->cfg);
  char seed_text[32];
  snprintf(seed_text, sizeof seed_text, "%d", seed);
  return *out ? ne_config_set(*out, "run", "seed", seed_text, "compare", errstr) : NE_ENOMEM;
}

// a local executor for cfg with the run's threads and its share of the parameter cache
static int local_executor(const study* s, const ne_config* cfg, ne_env_spec** env, ne_policy_spec* policy,
                          ne_executor** ex, char* errstr) {
  int rc = ne_env_from_config(cfg, env, errstr);
  if (!rc) rc = ne_policy_from_config(cfg, *env, policy, errstr);
  size_t cache = ((size_t)ne_config_int(cfg, "ga", "cache_mb") << 20) / (size_t)s->slots;
  if (!rc) rc = ne_local_executor_create(*env, policy, s->threads, cache, ex, errstr);
  return rc;
}

// trains run (i, k), creating or resuming its directory: on a local executor, or on the one
// opt->begin_run makes (a Redis master)
static int train_run(const study* s, int i, int k, char* errstr) {
  const ne_compare_entry* e = &s->entries[i];
  const ne_compare_options* opt = s->opt;
  char dir[NE__CMP_PATH];
  ne__cmp_run_dir(dir, sizeof dir, opt->out_dir, e->name, k);
  ne_run_origin origin = {0};
  if (opt->origin) origin = *opt->origin;
  origin.study = opt->out_dir;
  origin.arm = e->name;
  ne_run_options ro = {.name = e->name,
                       .quiet = 1,
                       .stop = &child_stop,
                       .generations = opt->generations,
                       .generations_set = opt->generations_set,
                       .origin = &origin};
  ne_config* cfg = NULL;
  ne_env_spec* env = NULL;
  ne_policy_spec policy;
  int resume, begun = 0, rc = run_config_of(e, k, dir, &cfg, &resume, errstr);
  if (!rc && opt->begin_run) {
    rc = opt->begin_run(opt->run_user, cfg, e->name, dir, &ro.executor, errstr);
    begun = rc == 0;
  } else if (!rc) {
    rc = local_executor(s, cfg, &env, &policy, &ro.executor, errstr);
  }
  ne_run* run = NULL;
  if (!rc && resume) rc = ne_run_resume(dir, &ro, &run, errstr);
  ro.out_dir = dir;
  if (!rc && !resume) rc = ne_run_create(cfg, &ro, &run, errstr);
  if (!rc) rc = ne_run_loop(run, errstr);
  ne_run_destroy(run);
  if (begun && opt->end_run) opt->end_run(opt->run_user, ro.executor, rc);
  else ne_executor_destroy(ro.executor);
  ne_env_spec_destroy(env);
  ne_config_destroy(cfg);
  return rc;
}

// The run's process: trains, writes its result code and error into fd, exits. Never returns.
static void run_process(const study* s, int i, int k, int fd) {
  setpgid(0, 0);  // the terminal's signals go to the parent, which passes them on
#ifdef __linux__
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != s->parent) _exit(1);  // the parent died before the line above
#endif
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_child_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  char err[NE_ERRSTR_LEN] = "";
  int rc = train_run(s, i, k, err);
  char msg[MSG_CAP];
  int len = snprintf(msg, sizeof msg, "%d %s", rc, err);
  ssize_t ignored = write(fd, msg, (size_t)(len < (int)sizeof msg ? len : (int)sizeof msg - 1));
  (void)ignored;
  fflush(NULL);
  _exit(rc == 0 ? 0 : rc == NE_EINTR ? 130 : 1);
}

// ---- the parent: starting runs, collecting them ----------------------------------------------------

// starts run (i, k) in a new process in a free slot; a run that cannot start fails at once
static void start_run(study* s, int i, int k) {
  ne__cmp_run* r = &s->arms[i].runs[k];
  child* c = NULL;
  for (int j = 0; j < s->slots && !c; j++)
    if (!s->kids[j].pid) c = &s->kids[j];
  int fds[2];
  if (!c || pipe(fds) != 0) {
    r->state = NE__CMP_FAILED;
    snprintf(r->error, sizeof r->error, "cannot start its process: %s", strerror(errno));
    s->done++;
    return;
  }
  fflush(NULL);  // nothing buffered is written twice
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    run_process(s, i, k, fds[1]);
  }
  close(fds[1]);
  if (pid < 0) {
    close(fds[0]);
    r->state = NE__CMP_FAILED;
    snprintf(r->error, sizeof r->error, "cannot start its process: fork: %s", strerror(errno));
    s->done++;
    return;
  }
  memset(c, 0, sizeof *c);
  *c = (child){.pid = pid, .fd = fds[0], .arm = i, .seed = k};
  r->state = NE__CMP_RUNNING;
  r->started = ne__now();
  s->running++;
}

// a progress line for a finished or failed run: progress to stdout, failures to stderr
static void say_outcome(const study* s, const ne__cmp_arm* a, int k) {
  const ne__cmp_run* r = &a->runs[k];
  if (r->state == NE__CMP_FAILED) {
    fprintf(stderr, "[%d/%d] %s seed %d: FAILED: %s\n", s->done, s->total, a->name, k, r->error);
    return;
  }
  if (s->opt->quiet || r->state != NE__CMP_FINISHED) return;
  const ne__cmp_stats* st = &r->stats;
  char thr[32] = "inf";
  if (isfinite(st->to_threshold)) snprintf(thr, sizeof thr, "%.0f", st->to_threshold);
  printf("[%d/%d] %s seed %d: final %.6g  best %.6g  %s to threshold %s  %.1fs%s\n", s->done, s->total, a->name, k,
         st->final_score, st->best_score, a->minimize ? "evaluations" : "env steps", thr, st->wall_s,
         r->kept ? "  (kept)" : "");
  fflush(stdout);
}

// what a run's process came back with: finished (its curve read), stopped, or failed with the
// error it wrote, or the signal that killed it (then its run.json, which could not say so, too)
static void collect(study* s, child* c, int status, const struct rusage* ru) {
  ne__cmp_arm* a = &s->arms[c->arm];
  ne__cmp_run* r = &a->runs[c->seed];
  char dir[NE__CMP_PATH];
  ne__cmp_run_dir(dir, sizeof dir, s->opt->out_dir, a->name, c->seed);
  c->msg[c->msg_len] = '\0';
  const char* text = strchr(c->msg, ' ');
  r->session_s = ne__now() - r->started;
  r->cpu_s = (double)ru->ru_utime.tv_sec + (double)ru->ru_stime.tv_sec +
      1e-6 * (double)(ru->ru_utime.tv_usec + ru->ru_stime.tv_usec);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    char why[NE_ERRSTR_LEN];
    r->state = ne__cmp_read_run(dir, a, r, why) == 0 ? NE__CMP_FINISHED : NE__CMP_FAILED;
    if (r->state == NE__CMP_FAILED) snprintf(r->error, sizeof r->error, "%s", why);
  } else if (WIFEXITED(status) && WEXITSTATUS(status) == 130) {
    r->state = NE__CMP_STOPPED;
  } else if (WIFEXITED(status)) {
    r->state = NE__CMP_FAILED;
    snprintf(r->error, sizeof r->error, "%s", text && text[1] ? text + 1 : "its process failed without a message");
  } else {
    r->state = NE__CMP_FAILED;
    snprintf(r->error, sizeof r->error, "its process was killed by signal %d (%s)", WTERMSIG(status),
             strsignal(WTERMSIG(status)));
    char why[NE_ERRSTR_LEN];
    if (ne_runinfo_is_run(dir) && ne_runinfo_mark(dir, "failed", r->error, why) != 0)
      fprintf(stderr, "neuroevo: warning: %s\n", why);
  }
  if (r->state != NE__CMP_STOPPED) s->done++;
  say_outcome(s, a, c->seed);
  close(c->fd);
  memset(c, 0, sizeof *c);
  s->running--;
  save_study(s, "running");
}

// reads what the running processes wrote; collects those that ended
static void wait_some(study* s, int timeout_ms) {
  struct pollfd pfd[MAX_SLOTS];
  int idx[MAX_SLOTS], n = 0;
  for (int j = 0; j < s->slots; j++)
    if (s->kids[j].pid) pfd[n] = (struct pollfd){s->kids[j].fd, POLLIN, 0}, idx[n++] = j;
  if (poll(pfd, (nfds_t)n, timeout_ms) <= 0) return;
  for (int m = 0; m < n; m++) {
    if (!pfd[m].revents) continue;
    child* c = &s->kids[idx[m]];
    ssize_t got = read(c->fd, c->msg + c->msg_len, sizeof c->msg - 1 - c->msg_len);
    if (got > 0) {
      c->msg_len += (size_t)got;
      continue;
    }
    if (got < 0 && errno == EINTR) continue;
    // end of file: the process closed its end, it exits (or did)
    int status = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    while (wait4(c->pid, &status, 0, &ru) < 0 && errno == EINTR) {
    }
    collect(s, c, status, &ru);
  }
}

// ---- progress -----------------------------------------------------------------------------------

// seconds a running run still needs: from its generations so far against its budget
static double remaining_s(const study* s, const child* c, double now, double* total) {
  const ne__cmp_arm* a = &s->arms[c->arm];
  const ne__cmp_run* r = &a->runs[c->seed];
  char dir[NE__CMP_PATH];
  ne__cmp_run_dir(dir, sizeof dir, s->opt->out_dir, a->name, c->seed);
  double row[NE_M_COLS];
  *total = NAN;
  if (ne_metrics_last(dir, row, NULL, NULL) != 1 || a->generations <= 0) return NAN;
  double done = row[NE_M_GEN] + 1, elapsed = now - r->started;
  *total = elapsed / done * (double)a->generations;  // this session's pace (a resumed run: from now on)
  return fmax(0, *total - elapsed);
}

// "4/12 done (1 failed); running: arm seed 2 (gen 40/100), ...; ETA 12m30s"
static void status_line(study* s) {
  double now = ne__now(), finished_s = 0, left = 0;
  int finished = 0, failed = 0, pending = 0, known = 0;
  char running[1024] = "";
  size_t used = 0;
  for (int i = 0; i < s->n; i++)
    for (int k = 0; k < s->seeds; k++) {
      const ne__cmp_run* r = &s->arms[i].runs[k];
      failed += r->state == NE__CMP_FAILED;
      pending += r->state == NE__CMP_PENDING;
      if (r->state == NE__CMP_FINISHED && !r->kept) finished_s += r->session_s, finished++;
    }
  double estimate = finished ? finished_s / finished : NAN;  // a run's time, from those done here
  for (int j = 0; j < s->slots; j++) {
    const child* c = &s->kids[j];
    if (!c->pid) continue;
    double total, rem = remaining_s(s, c, now, &total);
    char dir[NE__CMP_PATH];
    ne__cmp_run_dir(dir, sizeof dir, s->opt->out_dir, s->arms[c->arm].name, c->seed);
    double row[NE_M_COLS];
    int gen = ne_metrics_last(dir, row, NULL, NULL) == 1 ? (int)row[NE_M_GEN] + 1 : 0;
    if (used < sizeof running)
      used += (size_t)snprintf(running + used, sizeof running - used, "%s%s seed %d (gen %d/%lld)", used ? ", " : "",
                               s->arms[c->arm].name, c->seed, gen, (long long)s->arms[c->arm].generations);
    if (isfinite(rem)) left += rem, known++;
    if (isnan(estimate) && isfinite(total)) estimate = total;
  }
  char eta[32] = "unknown yet", fails[32] = "";
  if (isfinite(estimate) && known == s->running)
    ne__fmt_duration((left + pending * estimate) / s->slots, eta, sizeof eta);
  if (failed) snprintf(fails, sizeof fails, " (%d failed)", failed);
  printf("study: %d/%d done%s; running: %s; ETA %s\n", s->done, s->total, fails, s->running ? running : "none", eta);
  fflush(stdout);
  s->last_line = now;
}

// ---- the study --------------------------------------------------------------------------------

// the evaluation threads in all: --threads, else the largest run.threads of the arms (0 = all cores)
static int total_threads(const ne_compare_entry* entries, int n, const ne_compare_options* opt) {
  if (opt->threads > 0) return opt->threads;
  int t = 0;
  for (int i = 0; i < n; i++) {
    int ti = (int)ne_config_int(entries[i].cfg, "run", "threads");
    if (ti <= 0) ti = ne_cpu_count();
    if (ti > t) t = ti;
  }
  return t > 0 ? t : 1;
}

// each run's state before training: kept (finished earlier), failed (its arm cannot start) or pending
static int initial_states(study* s) {
  int to_train = 0;
  for (int i = 0; i < s->n; i++)
    for (int k = 0; k < s->seeds; k++) {
      ne__cmp_run* r = &s->arms[i].runs[k];
      char dir[NE__CMP_PATH];
      ne__cmp_run_dir(dir, sizeof dir, s->opt->out_dir, s->arms[i].name, k);
      if (s->arms[i].error[0]) {
        r->state = NE__CMP_FAILED;
        snprintf(r->error, sizeof r->error, "%s", s->arms[i].error);
        s->done++;
      } else if (already_finished(dir, s->opt) && ne__cmp_read_run(dir, &s->arms[i], r, NULL) == 0) {
        r->state = NE__CMP_FINISHED;
        r->kept = 1;
        s->done++;
      } else {
        to_train++;
      }
    }
  return to_train;
}

// trains every pending run, `slots` at a time, until all have an outcome or a stop request
static void train_all(study* s) {
  int next = 0;
  s->last_line = ne__now();
  double every = s->opt->progress_s > 0 ? s->opt->progress_s : DEFAULT_PROGRESS_S;
  for (;;) {
    if (s->opt->stop && *s->opt->stop && !s->stopping) {
      s->stopping = 1;  // the running runs checkpoint and stop; no new one starts
      for (int j = 0; j < s->slots; j++)
        if (s->kids[j].pid) kill(s->kids[j].pid, SIGTERM);
    }
    while (!s->stopping && s->running < s->slots && next < s->n * s->seeds) {
      int i = next / s->seeds, k = next % s->seeds;
      next++;
      if (s->arms[i].runs[k].state == NE__CMP_PENDING) start_run(s, i, k);
    }
    if (s->running == 0) break;
    wait_some(s, 500);
    if (!s->opt->quiet && ne__now() - s->last_line >= every) status_line(s);
  }
}

static void free_arms(ne__cmp_arm* arms, int n, int seeds) {
  for (int i = 0; arms && i < n; i++) {
    for (int k = 0; arms[i].runs && k < seeds; k++) ne__cmp_free_curve(&arms[i].runs[k].curve);
    ne_free(arms[i].runs);
  }
  ne_free(arms);
}

static int check_entries(const ne_compare_entry* entries, int n, const ne_compare_options* opt, char* errstr) {
  if (n < 1) return ne__set_error(errstr, NE_EINVAL, "compare: no configs");
  if (!opt || !opt->out_dir) return ne__set_error(errstr, NE_EINVAL, "compare: no output directory");
  for (int i = 0; i < n; i++) {
    if (!entries[i].name || !*entries[i].name || strchr(entries[i].name, '/'))
      return ne__set_error(errstr, NE_EINVAL, "compare: config %d needs a plain name", i + 1);
    for (int j = 0; j < i; j++)
      if (strcmp(entries[i].name, entries[j].name) == 0)
        return ne__set_error(errstr, NE_EINVAL, "compare: two configs named '%s'", entries[i].name);
  }
  return 0;
}

// the outcome counts
static void count_outcomes(const study* s, ne_compare_result* res) {
  memset(res, 0, sizeof *res);
  res->runs = s->total;
  for (int i = 0; i < s->n; i++)
    for (int k = 0; k < s->seeds; k++) {
      const ne__cmp_run* r = &s->arms[i].runs[k];
      res->finished += r->state == NE__CMP_FINISHED;
      res->kept += r->kept;
      res->failed += r->state == NE__CMP_FAILED;
      res->stopped += r->state == NE__CMP_STOPPED || r->state == NE__CMP_PENDING;
    }
}

int ne_compare_run(const ne_compare_entry* entries, int n, const ne_compare_options* opt, char* errstr) {
  int rc = check_entries(entries, n, opt, errstr);
  if (rc) return rc;
  study s = {.entries = entries, .opt = opt, .n = n, .parent = getpid()};
  s.seeds = opt->seeds > 0 ? opt->seeds : DEFAULT_SEEDS;
  s.total = n * s.seeds;
  s.arms = ne_calloc((size_t)n, sizeof *s.arms);
  rc = s.arms ? ne__mkdir_p(opt->out_dir, errstr) : ne__set_error(errstr, NE_ENOMEM, "out of memory");
  for (int i = 0; i < n && !rc; i++) {
    s.arms[i].runs = ne_calloc((size_t)s.seeds, sizeof *s.arms[i].runs);
    if (!s.arms[i].runs) rc = ne__set_error(errstr, NE_ENOMEM, "out of memory");
    else prepare_arm(&entries[i], opt, &s.arms[i]);
    if (!rc && s.arms[i].error[0]) fprintf(stderr, "neuroevo: %s cannot start: %s\n", entries[i].name, s.arms[i].error);
  }
  if (!rc) {
    int to_train = initial_states(&s), threads = total_threads(entries, n, opt);
    int kept = 0;
    for (int i = 0; i < n; i++)
      for (int k = 0; k < s.seeds; k++) kept += s.arms[i].runs[k].kept;
    if (!opt->quiet && kept > 0) printf("%d of %d runs finished earlier: kept; training %d\n", kept, s.total, to_train);
    s.slots = opt->begin_run ? 1 : threads < to_train ? threads : to_train;
    if (s.slots < 1) s.slots = 1;
    if (s.slots > MAX_SLOTS) s.slots = MAX_SLOTS;
    s.threads = threads / s.slots > 0 ? threads / s.slots : 1;
    study_created(&s);
    save_study(&s, "running");
    train_all(&s);
  }
  ne_compare_result counts;
  count_outcomes(&s, &counts);
  if (opt && opt->result) *opt->result = counts;
  if (!rc && s.stopping) {
    save_study(&s, "stopped");
    rc = ne__set_error(errstr, NE_EINTR,
                       "interrupted: the same command continues in %s (finished runs are kept, interrupted ones "
                       "resumed)",
                       opt->out_dir);
  } else if (!rc) {
    rc = ne__cmp_write_summary(s.arms, n, s.seeds, opt->out_dir, errstr);
    save_study(&s, counts.failed ? "finished with failures" : "finished");
  }
  free_arms(s.arms, n, s.seeds);
  return rc;
}
