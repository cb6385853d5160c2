// SPDX-License-Identifier: MIT
// `neuroevo trace ENV_ID (--state v1,... | --seed S | --draws d1,... | --draws-file FILE)
// (--actions a1,... | --actions-file FILE)`: sets an env's internal state, resets it from a seed, or
// (Box2D) resets it from Gymnasium's own random draws, applies the actions and prints one CSV row per
// step (fidelity checks against Gymnasium; the format is a stable contract). All input is parsed and
// checked before the first row is printed (a replay of draws is run once silently first, since
// only stepping tells whether the values suffice), so bad input gives exit 2 and no partial CSV.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "core/util.h"  // ne__read_file
#include "neuroevo/alloc.h"
#include "neuroevo/env.h"
#include "neuroevo/error.h"
#include "neuroevo/rng.h"  // ne_seed_derive: --seed starts where eval's episode 0 starts

#define CMD "neuroevo trace"

// what the command line asked for
typedef struct trace_args {
  const char* env_id;        // positional ENV_ID
  const char* state;         // --state text (NULL when --seed is used)
  const char* seed;          // --seed text (NULL when --state is used)
  const char* draws;         // --draws text (NULL unless given)
  const char* draws_file;    // --draws-file path (NULL unless given)
  const char* actions;       // --actions text (NULL when --actions-file is used)
  const char* actions_file;  // --actions-file path (NULL when --actions is used)
} trace_args;

// the actions to apply, parsed and checked
typedef struct action_list {
  float* v;  // (n, act_dim), owned (ne_free)
  int n;     // number of actions
} action_list;

static void usage(FILE* out) {
  fprintf(out,
          "usage: " CMD
          " ENV_ID (--state v1,v2,... | --seed S | --draws d1,d2,... | --draws-file FILE)\n"
          "                       (--actions a1,a2,... | --actions-file FILE)\n\n"
          "Sets ENV_ID's internal state (Gymnasium's env.unwrapped.state layout, e.g. CartPole-v1:\n"
          "x,x_dot,theta,theta_dot) with the step counter at 0, resets it from a seed, or resets it from\n"
          "Gymnasium's own random draws, applies the actions in order and stops after the last one or at\n"
          "the first terminated/truncated step.\n\n"
          "  --state V,...         the state vector (comma-separated numbers); classic control and\n"
          "                        MuJoCo (qpos then qvel). Not Box2D (LunarLander, BipedalWalker): a\n"
          "                        Box2D world (bodies, joints, contacts, terrain) cannot be set from a\n"
          "                        flat vector in general, so those start from --seed or --draws\n"
          "  --seed S              reset as episode 0 of `neuroevo eval --seed S` (and render) starts\n"
          "  --draws D,...         Box2D: reset as Gymnasium's env.reset() did, from the values its\n"
          "                        env.unwrapped.np_random returned (each uniform/integers/random call's\n"
          "                        values in call order, from the reset on); they replace neuroevo's own\n"
          "                        random stream for the reset and the steps, so the trace is\n"
          "                        Gymnasium's episode step for step. LunarLander: 12 terrain heights,\n"
          "                        the initial force's x and y, then 2 engine dispersions for the\n"
          "                        reset's no-op step and 2 per step. BipedalWalker: its terrain's,\n"
          "                        clouds' and initial force's draws, none per step (the order is in\n"
          "                        src/envs/box2d/bipedal_walker.c). Too few values, a value outside\n"
          "                        its draw's range, or values left over after the last action: exit 2\n"
          "  --draws-file FILE     the same values from a file (separated by commas, blanks or lines;\n"
          "                        '#' comments)\n"
          "  --actions A,...       discrete: integers; 1-D continuous: floats; several dimensions:\n"
          "                        actions separated by ';', components by ','\n"
          "  --actions-file FILE   one action per line, components separated by commas ('#' comments)\n\n"
          "Prints CSV: step,obs_0,...,obs_{n-1},reward,terminated,truncated; row 0 is the observation of\n"
          "the given or reset state. Numbers use %%.17g (observations are float32 values). Exit 2 on bad input.\n"
          "Environment ids: neuroevo envs\n");
}

// takes the value of option `name` from "--name VALUE" or "--name=VALUE"; 1 if argv[*i] is that option
static int option_value(int argc, char** argv, int* i, const char* name, const char** value, int* missing) {
  size_t len = strlen(name);
  if (strncmp(argv[*i], name, len) != 0) return 0;
  if (argv[*i][len] == '=') {
    *value = argv[*i] + len + 1;
    return 1;
  }
  if (argv[*i][len] != '\0') return 0;
  if (*i + 1 >= argc) {
    *missing = 1;
    return 1;
  }
  *value = argv[++*i];
  return 1;
}

// fills a from argv; prints the problem and returns 2 on bad usage
static int parse_args(int argc, char** argv, trace_args* a) {
  memset(a, 0, sizeof *a);
  // options may come before or after ENV_ID; values may start with '-' (negative numbers)
  for (int i = 1; i < argc; i++) {
    int missing = 0;
    if (option_value(argc, argv, &i, "--state", &a->state, &missing) ||
        option_value(argc, argv, &i, "--seed", &a->seed, &missing) ||
        option_value(argc, argv, &i, "--draws-file", &a->draws_file, &missing) ||
        option_value(argc, argv, &i, "--draws", &a->draws, &missing) ||
        option_value(argc, argv, &i, "--actions-file", &a->actions_file, &missing) ||
        option_value(argc, argv, &i, "--actions", &a->actions, &missing)) {
      if (missing) return fprintf(stderr, CMD ": %s needs a value\n", argv[i]), 2;
    } else if (argv[i][0] == '-' && argv[i][1] == '-') {
      return fprintf(stderr, CMD ": unknown option '%s' (see " CMD " --help)\n", argv[i]), 2;
    } else if (!a->env_id) {
      a->env_id = argv[i];
    } else {
      return fprintf(stderr, CMD ": unexpected argument '%s' (see " CMD " --help)\n", argv[i]), 2;
    }
  }
  // the required pieces, and exactly one source of actions
  if (!a->env_id) return fprintf(stderr, CMD ": missing ENV_ID (see " CMD " --help)\n"), 2;
  int starts = !!a->state + !!a->seed + !!a->draws + !!a->draws_file;
  if (starts == 0) return fprintf(stderr, CMD ": missing --state, --seed or --draws (see " CMD " --help)\n"), 2;
  if (starts > 1)
    return fprintf(stderr, CMD ": give one of --state, --seed, --draws and --draws-file, not several\n"), 2;
  if (!a->actions == !a->actions_file)
    return fprintf(stderr, CMD ": give exactly one of --actions and --actions-file\n"), 2;
  return 0;
}

// copies the token [s, s+len) without surrounding blanks into buf; a token too long for buf is cut
// and ends in "...", which no number parse accepts, so it is reported rather than misread
static void token_copy(const char* s, size_t len, char* buf, size_t size) {
  while (len > 0 && (*s == ' ' || *s == '\t')) s++, len--;
  while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\r')) len--;
  if (len < size) {
    memcpy(buf, s, len);
    buf[len] = '\0';
    return;
  }
  memcpy(buf, s, size - 4);
  memcpy(buf + size - 4, "...", 4);
}

// parses a whole token as a double (single: as a float, rounded once); prints and returns 2 if not a number
static int parse_number(const char* label, const char* tok, int single, double* out) {
  char* end = NULL;
  *out = single ? (double)strtof(tok, &end) : strtod(tok, &end);
  if (tok[0] == '\0' || end == tok || *end != '\0')
    return fprintf(stderr, CMD ": %s: cannot parse '%s' as a number\n", label, tok), 2;
  return 0;
}

// parses the comma-separated state into v (NE_ENV_MAX_STATE values at most)
static int parse_state(const char* text, double* v, int* n) {
  *n = 0;
  for (const char* s = text;;) {
    const char* comma = strchr(s, ',');
    size_t len = comma ? (size_t)(comma - s) : strlen(s);
    char tok[128];
    token_copy(s, len, tok, sizeof tok);
    if (*n == NE_ENV_MAX_STATE) return fprintf(stderr, CMD ": --state has more than %d values\n", NE_ENV_MAX_STATE), 2;
    char label[48];
    snprintf(label, sizeof label, "--state value %d", *n + 1);
    if (parse_number(label, tok, 0, &v[*n])) return 2;
    (*n)++;
    if (!comma) return 0;
    s = comma + 1;
  }
}

// parses one action of spec->act_dim comma-separated components into a and checks the space; label
// says where it came from in messages ("--actions action 3", "FILE:7")
static int parse_action(const ne_env_spec* spec, const char* label, const char* text, size_t len, float* a) {
  char tok[1024];
  token_copy(text, len, tok, sizeof tok);
  // each component: a number, an integer for discrete spaces, no more than act_dim of them
  int k = 0;
  for (const char* s = tok;; k++) {
    const char* comma = strchr(s, ',');
    size_t clen = comma ? (size_t)(comma - s) : strlen(s);
    char comp[128];
    token_copy(s, clen, comp, sizeof comp);
    if (k >= spec->act_dim)
      return fprintf(stderr, CMD ": %s ('%s'): %s takes %d component(s)\n", label, tok, spec->id, spec->act_dim), 2;
    double d;
    if (parse_number(label, comp, !spec->discrete, &d)) return 2;
    // a discrete action is an integer; refuse 1.5 before the float cast could hide it
    if (spec->discrete && (d != floor(d) || fabs(d) > 1e9))
      return fprintf(stderr, CMD ": %s: '%s' is not an integer (%s has Discrete(%d) actions)\n", label, comp, spec->id,
                     spec->n_actions),
             2;
    a[k] = (float)d;
    if (!comma) break;
    s = comma + 1;
  }
  // the right number of components, and inside the space
  if (k + 1 != spec->act_dim)
    return fprintf(stderr, CMD ": %s ('%s'): %s takes %d components, got %d\n", label, tok, spec->id, spec->act_dim,
                   k + 1),
           2;
  char err[NE_ERRSTR_LEN];
  if (ne_env_check_action(spec, a, err)) return fprintf(stderr, CMD ": %s: %s\n", label, err), 2;
  return 0;
}

// counts the pieces text splits into at sep (an upper bound on the number of actions)
static int count_pieces(const char* text, char sep) {
  int n = 1;
  for (const char* p = text; *p; p++) n += *p == sep;
  return n;
}

// 1 if the line holds nothing but blanks or a '#' comment
static int blank_line(const char* s, size_t len) {
  while (len > 0 && (*s == ' ' || *s == '\t' || *s == '\r')) s++, len--;
  return len == 0 || *s == '#';
}

// parses text into out: actions separated by sep (';' or ',' inline, '\n' in a file)
static int parse_action_text(const ne_env_spec* spec, const char* where, const char* text, char sep, action_list* out) {
  // one allocation for every action, sized by the separators
  int cap = count_pieces(text, sep);
  out->v = ne_malloc((size_t)cap * (size_t)spec->act_dim * sizeof *out->v);
  out->n = 0;
  if (!out->v) return fprintf(stderr, CMD ": out of memory for %d actions\n", cap), 1;
  if (sep != '\n' && text[0] == '\0') return 0;  // --actions "" applies nothing
  int piece = 0;
  for (const char* s = text;;) {
    const char* end = strchr(s, sep);
    size_t len = end ? (size_t)(end - s) : strlen(s);
    int skip = sep == '\n' && blank_line(s, len);
    char label[300];
    // a file's actions are named by line, inline ones by position
    if (sep == '\n') snprintf(label, sizeof label, "%s:%d", where, ++piece);
    else snprintf(label, sizeof label, "%s action %d", where, ++piece);
    if (!skip && parse_action(spec, label, s, len, out->v + (size_t)out->n * (size_t)spec->act_dim)) return 2;
    out->n += !skip;
    if (!end) return 0;
    s = end + 1;
  }
}

// reads the actions from --actions or --actions-file
static int load_actions(const ne_env_spec* spec, const trace_args* a, action_list* out) {
  if (a->actions) {
    // one component per action: the commas separate actions; otherwise ';' does
    char sep = spec->act_dim == 1 ? ',' : ';';
    return parse_action_text(spec, "--actions", a->actions, sep, out);
  }
  // a file: one action per line, named by line number in errors
  char* text = NULL;
  char err[NE_ERRSTR_LEN];
  int rc = ne__read_file(a->actions_file, &text, NULL, err);
  if (rc) return fprintf(stderr, CMD ": --actions-file: %s\n", err), rc == NE_ENOMEM ? 1 : 2;
  rc = parse_action_text(spec, a->actions_file, text, '\n', out);
  ne_free(text);
  return rc;
}

// step,obs_0,...,obs_{n-1},reward,terminated,truncated
static void print_header(const ne_env_spec* spec) {
  printf("step");
  for (int i = 0; i < spec->obs_dim; i++) printf(",obs_%d", i);
  printf(",reward,terminated,truncated\n");
}

// %.17g round-trips every double, so the float32 observations and float64 rewards are exact
static void print_row(const ne_env_spec* spec, int step, const float* obs, double reward, int term, int trunc) {
  printf("%d", step);
  for (int i = 0; i < spec->obs_dim; i++) printf(",%.17g", (double)obs[i]);
  printf(",%.17g,%d,%d\n", reward, term, trunc);
}

// the env's own message for a failed reset/step (MuJoCo's fatal error, a crashed env server), else
// the code's text
static const char* env_error(const ne_env_spec* spec, const ne_env_state* state, int rc) {
  static char err[NE_ERRSTR_LEN];
  if (spec->status && spec->status(spec, state->impl, err) == rc) return err;
  return ne_strerror(rc);
}

// where the trace starts: a state vector (sv, sn), a reset from a seed, or a replay of draws
typedef struct trace_start {
  const double* sv;    // (sn) state vector, or NULL for a reset
  int sn;              // its length
  uint64_t seed;       // --seed S (when sv and draws are NULL)
  ne_env_draws draws;  // --draws / --draws-file: draws.v NULL when not given
  double* draws_buf;   // the values draws.v points to, owned (ne_free)
} trace_start;

// sets the state, resets from the seed or from the draws; returns the exit code (2: bad --state or
// --draws, 1: a failed reset)
static int start_episode(const ne_env_spec* spec, ne_env_state* state, trace_start* st) {
  char err[NE_ERRSTR_LEN];
  if (st->sv) {
    int rc = ne_env_set_state(spec, state, st->sv, st->sn, err);
    return rc ? (fprintf(stderr, CMD ": --state: %s\n", err), 2) : 0;
  }
  if (st->draws.v) {
    int rc = ne_env_reset_draws(spec, state, &st->draws, err);
    return rc ? (fprintf(stderr, CMD ": --draws: %s\n", err), rc == NE_ENOMEM ? 1 : 2) : 0;
  }
  // the seed eval and render give their episode 0, so a trace replays the start of what they show
  int rc = ne_env_reset(spec, state, ne_seed_derive(st->seed, 0, 0, NE_PURPOSE_EVAL));
  return rc ? (fprintf(stderr, CMD ": reset with --seed %llu: %s\n", (unsigned long long)st->seed,
                       env_error(spec, state, rc)),
               1)
            : 0;
}

// starts the episode and steps through the actions, printing row 0 and one row per step when
// `print`; returns the exit code. A replay of draws that runs out, or has values left after the
// last action, is bad input (2)
static int run_trace(const ne_env_spec* spec, ne_env_state* state, trace_start* st, const action_list* acts,
                     int print) {
  int rc = start_episode(spec, state, st);
  if (rc) return rc;
  // row 0 is the given state's observation; then one row per step until the episode ends
  if (print) {
    print_header(spec);
    print_row(spec, 0, state->obs, 0.0, 0, 0);
  }
  int ended = 0;
  for (int i = 0; i < acts->n && !ended; i++) {
    ne_step_out out;
    rc = ne_env_step(spec, state, acts->v + (size_t)i * (size_t)spec->act_dim, &out);
    if (rc && st->draws.v && rc == NE_EINVAL)
      return fprintf(stderr, CMD ": --draws: step %d: %s\n", i + 1, env_error(spec, state, rc)), 2;
    if (rc) return fprintf(stderr, CMD ": step %d: %s\n", i + 1, env_error(spec, state, rc)), 1;
    if (print) print_row(spec, i + 1, state->obs, out.reward, out.terminated, out.truncated);
    ended = out.terminated || out.truncated;
  }
  // values left once every action ran: Gymnasium drew more than these steps take (an episode that
  // ended first leaves the draws of the steps it never took)
  if (st->draws.v && !ended && st->draws.used < st->draws.n)
    return fprintf(stderr,
                   CMD
                   ": --draws: %d of the %d values are left after the last action: they are not the draws of "
                   "this reset and these %d steps (the order is in src/envs/box2d)\n",
                   st->draws.n - st->draws.used, st->draws.n, acts->n),
           2;
  // a full disk or closed pipe must not look like success
  if (print && (fflush(stdout) != 0 || ferror(stdout))) return fprintf(stderr, CMD ": writing stdout failed\n"), 1;
  return 0;
}

// parses the numbers of --draws (comma-separated) or a --draws-file (commas, blanks or newlines;
// '#' to the end of a line is a comment) into a new array; `where` names the source in messages
static int parse_draws(const char* where, const char* text, int is_file, trace_start* st) {
  // at most one number per separator run, so this bounds the count
  int cap = 1;
  for (const char* p = text; *p; p++) cap += *p == ',' || *p == ' ' || *p == '\t' || *p == '\n' || *p == '\r';
  double* v = ne_malloc((size_t)cap * sizeof *v);
  if (!v) return fprintf(stderr, CMD ": out of memory for %d draws\n", cap), 1;
  int n = 0, line = 1;
  for (const char* p = text; *p;) {
    if (*p == '\n') line++;
    if (*p == ',' || *p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') {
      p++;
      continue;
    }
    if (is_file && *p == '#') {
      while (*p && *p != '\n') p++;
      continue;
    }
    size_t len = strcspn(p, is_file ? ", \t\r\n#" : ", \t\r\n");
    char tok[128], label[300];
    token_copy(p, len, tok, sizeof tok);
    if (is_file) snprintf(label, sizeof label, "%s:%d", where, line);
    else snprintf(label, sizeof label, "%s value %d", where, n + 1);
    if (parse_number(label, tok, 0, &v[n])) return ne_free(v), 2;
    if (!isfinite(v[n])) return fprintf(stderr, CMD ": %s: '%s' is not a finite number\n", label, tok), ne_free(v), 2;
    n++;
    p += len;
  }
  if (n == 0) return fprintf(stderr, CMD ": %s holds no values\n", where), ne_free(v), 2;
  st->draws_buf = v;
  st->draws.v = v;
  st->draws.n = n;
  st->draws.used = 0;
  return 0;
}

// --draws or --draws-file into st->draws (owned by the caller: ne_free(st->draws_buf))
static int load_draws(const trace_args* a, trace_start* st) {
  if (a->draws) return parse_draws("--draws", a->draws, 0, st);
  char* text = NULL;
  char err[NE_ERRSTR_LEN];
  int rc = ne__read_file(a->draws_file, &text, NULL, err);
  if (rc) return fprintf(stderr, CMD ": --draws-file: %s\n", err), rc == NE_ENOMEM ? 1 : 2;
  rc = parse_draws(a->draws_file, text, 1, st);
  ne_free(text);
  return rc;
}

// --state for spec: refused up front for envs without a state vector (Box2D), else parsed into sv
static int parse_start_state(const ne_env_spec* spec, const char* text, double* sv, trace_start* st) {
  if (spec->state_dim == 0) {
    // the family's own message says why and what to use instead
    char err[NE_ERRSTR_LEN];
    ne_env_state* probe = ne_env_state_create(spec);
    int rc = probe ? ne_env_set_state(spec, probe, sv, 0, err) : NE_ENOMEM;
    ne_env_state_destroy(probe);
    if (rc == NE_ENOMEM) return fprintf(stderr, CMD ": out of memory\n"), 1;
    if (rc) return fprintf(stderr, CMD ": --state: %s\n", err), 2;
  }
  st->sv = sv;
  return parse_state(text, sv, &st->sn);
}

// --seed S (a non-negative integer, as eval's) into st
static int parse_seed(const char* text, trace_start* st) {
  char* end = NULL;
  st->seed = strtoull(text, &end, 10);
  if (text[0] < '0' || text[0] > '9' || *end != '\0' || st->seed > 9000000000000000000ULL)
    return fprintf(stderr, CMD ": --seed: '%s' is not an integer in 0..9000000000000000000\n", text), 2;
  return 0;
}

// the library's unknown-id message; when its buffer cut the list of ids short, the whole list too
static void print_unknown_id(const char* err) {
  fprintf(stderr, CMD ": %s\n", err);
  size_t len = strlen(err);
  if (len < 3 || strcmp(err + len - 3, "...") != 0) return;
  fprintf(stderr, "all valid ids:");
  for (int i = 0; i < ne_env_registry_count(); i++) fprintf(stderr, "%s %s", i ? "," : "", ne_env_registry_id(i));
  fprintf(stderr, "\n");
}

int ne_cmd_trace(int argc, char** argv) {
  if (ne_cli_wants_help(argc, argv)) {
    usage(stdout);
    return 0;
  }
  trace_args args;
  int rc = parse_args(argc, argv, &args);
  if (rc) return rc;

  // an unknown id: the library's message lists the valid ids
  char err[NE_ERRSTR_LEN];
  ne_env_spec* spec = NULL;
  rc = ne_env_make(args.env_id, NULL, &spec, err);
  if (rc == NE_ENOTFOUND) return print_unknown_id(err), 2;
  if (rc) return fprintf(stderr, CMD ": %s\n", err), rc == NE_ENOMEM ? 1 : 2;

  // parse everything before the first row is printed
  double sv[NE_ENV_MAX_STATE];
  trace_start start = {NULL, 0, 0, {NULL, 0, 0}, NULL};
  action_list acts = {NULL, 0};
  ne_env_state* state = NULL;
  if (args.state) rc = parse_start_state(spec, args.state, sv, &start);
  else if (args.seed) rc = parse_seed(args.seed, &start);
  else rc = load_draws(&args, &start);
  if (!rc) rc = load_actions(spec, &args, &acts);
  if (!rc) {
    state = ne_env_state_create(spec);
    if (!state) rc = (fprintf(stderr, CMD ": out of memory\n"), 1);
  }
  // a replay is checked by a silent run first (same draws and actions, so the same episode) in a
  // state of its own, so that the printed episode is a fresh state's first whatever a family keeps
  // from one episode to the next
  if (!rc && start.draws.v) {
    rc = run_trace(spec, state, &start, &acts, 0);
    ne_env_state_destroy(state);
    state = rc ? NULL : ne_env_state_create(spec);
    if (!rc && !state) rc = (fprintf(stderr, CMD ": out of memory\n"), 1);
  }
  if (!rc) rc = run_trace(spec, state, &start, &acts, 1);
  // every path ends here, so each object is freed once
  ne_env_state_destroy(state);
  ne_free(start.draws_buf);
  ne_free(acts.v);
  ne_env_spec_destroy(spec);
  return rc;
}
