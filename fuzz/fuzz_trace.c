// SPDX-License-Identifier: MIT
// Fuzz target: `neuroevo trace` argument parsing. The command's parsers are static, so this file
// includes src/cli/cmd_trace.c whole (no hook in the CLI). Input: NUL-separated argv words; an
// --actions-file or --draws-file value is parsed as the file's text. Cheap envs only, so inputs
// stay fast.
#include "../src/cli/cmd_trace.c"

#include "fuzz.h"

// cmd_trace.c calls this CLI helper (src/cli/cli_util.c, not linked here)
int ne_cli_wants_help(int argc, char** argv) {
  (void)argc;
  (void)argv;
  return 0;
}

// the envs a fuzzed ENV_ID may name: classic control, a black-box function and one Box2D env with
// 2-component actions (when built with Box2D); the other physics envs are too slow to build per input
static ne_env_spec* make_env(const char* id) {
  static const char* ok[] = {"CartPole-v1", "Acrobot-v1",  "MountainCar-v0",          "MountainCarContinuous-v0",
                             "Pendulum-v1", "bbob/sphere", "LunarLanderContinuous-v3"};
  for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
    if (strcmp(id, ok[i]) != 0) continue;
    ne_env_options opt = {0, 3, 0};
    ne_env_spec* spec = NULL;
    char err[NE_ERRSTR_LEN];
    return ne_env_make(id, &opt, &spec, err) == 0 ? spec : NULL;
  }
  return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static int quiet;
  if (!quiet) quiet = freopen("/dev/null", "w", stdout) != NULL;  // the CSV rows are not the point
  char* text = fuzz_cstr(data, size);
  char* argv[34];
  argv[0] = "trace";
  int argc = 1 + fuzz_split(text, size, argv + 1, 32);
  argv[argc] = NULL;
  trace_args a;
  double sv[NE_ENV_MAX_STATE];
  // the whole command minus file I/O: arguments, state, seed or draws, actions, then the steps
  // themselves (a replay of draws silently first, as the command does)
  if (parse_args(argc, argv, &a) == 0) {
    ne_env_spec* spec = make_env(a.env_id);
    trace_start start = {NULL, 0, 0, {NULL, 0, 0}, NULL};
    action_list acts = {NULL, 0};
    int rc = !spec ? 1
        : a.state  ? parse_start_state(spec, a.state, sv, &start)
        : a.seed   ? parse_seed(a.seed, &start)
        : a.draws  ? parse_draws("--draws", a.draws, 0, &start)
                   : parse_draws("fuzz.draws", a.draws_file, 1, &start);
    if (rc == 0 && a.actions) rc = load_actions(spec, &a, &acts);
    else if (rc == 0) rc = parse_action_text(spec, "fuzz.actions", a.actions_file, '\n', &acts);
    ne_env_state* state = spec && rc == 0 ? ne_env_state_create(spec) : NULL;
    if (state && start.draws.v) {  // the command's silent check, in a state of its own
      rc = run_trace(spec, state, &start, &acts, 0);
      ne_env_state_destroy(state);
      state = rc == 0 ? ne_env_state_create(spec) : NULL;
    }
    if (state && rc == 0) run_trace(spec, state, &start, &acts, 1);
    ne_env_state_destroy(state);
    ne_free(start.draws_buf);
    ne_free(acts.v);
    ne_env_spec_destroy(spec);
  }
  ne_free(text);
  return 0;
}
